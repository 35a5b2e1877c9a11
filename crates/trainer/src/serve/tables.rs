//! The card table: games between a person and three bots, each to a
//! target score, kept in memory (each behind its own lock, so tabs play
//! independent games, a reload shows the same game, and one bad request
//! touches only its own game), and the forms that play them: a move, the
//! next hand, hints, forced cards played for the person, taking a move
//! back in a practice game, saving the game and analysing it in one click.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use euchre_bots::human_game::{HumanGame, MoveError, Position};
use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use serde::Deserialize;

use super::analysis::{self, AnalysisDesk};
use super::catalog::BotCatalog;
use super::guard::{self, Cancel};
use super::respond::{error_html, html, lock};
use super::table_page;

/// Games kept in memory; past this the least recently used is dropped.
const MAX_GAMES: usize = 1000;

/// The games of one server and what they are played with.
pub(super) struct Tables {
    rules: Rules,
    bots: Arc<BotCatalog>,
    games: Mutex<HashMap<String, Game>>,
    next_id: Mutex<rand::rngs::SmallRng>,
    /// Set on Ctrl-C: every request's bots stop at their next decision.
    shutdown: Arc<AtomicBool>,
    hint_bot: Arc<dyn euchre_bots::bot::Bot>,
    /// Where "analyse this game" sends a game.
    analysis: Arc<AnalysisDesk>,
}

struct Game {
    table: Arc<Mutex<HumanGame>>,
    touched: Instant,
}

impl Tables {
    pub(super) fn new(
        rules: Rules,
        bots: Arc<BotCatalog>,
        seed: u64,
        shutdown: Arc<AtomicBool>,
        hint_bot: Arc<dyn euchre_bots::bot::Bot>,
        analysis: Arc<AnalysisDesk>,
    ) -> Tables {
        use rand::SeedableRng;
        Tables {
            rules,
            bots,
            games: Mutex::new(HashMap::new()),
            next_id: Mutex::new(rand::rngs::SmallRng::seed_from_u64(seed)),
            shutdown,
            hint_bot,
            analysis,
        }
    }

    fn table(&self, id: &str) -> Option<Arc<Mutex<HumanGame>>> {
        let mut games = lock(&self.games);
        let game = games.get_mut(id)?;
        game.touched = Instant::now();
        Some(Arc::clone(&game.table))
    }

    fn insert(&self, table: HumanGame) -> String {
        use rand::RngExt;
        let id = format!("{:016x}", lock(&self.next_id).random::<u64>());
        let mut games = lock(&self.games);
        if games.len() >= MAX_GAMES
            && let Some(oldest) = games
                .iter()
                .min_by_key(|(_, game)| game.touched)
                .map(|(id, _)| id.clone())
        {
            games.remove(&oldest);
        }
        games.insert(
            id.clone(),
            Game {
                table: Arc::new(Mutex::new(table)),
                touched: Instant::now(),
            },
        );
        id
    }

    fn new_game_page(&self, chosen: &NewGame, error: Option<&str>) -> String {
        table_page::new_game_page(
            &self.bots.ladder(),
            &chosen.partner_choice(),
            &chosen.opponents_choice(),
            error,
        )
    }
}

type Shared = State<Arc<Tables>>;

pub(super) fn routes<S: Clone + Send + Sync + 'static>(tables: Arc<Tables>) -> Router<S> {
    Router::new()
        .route("/", get(home))
        .route("/games", post(new_game))
        .route("/game/{id}", get(show_game))
        .route("/game/{id}/move", post(make_move))
        .route("/game/{id}/next", post(next_hand))
        .route("/game/{id}/undo", post(undo))
        .route("/game/{id}/hints", post(toggle_hints))
        .route("/game/{id}/forced", post(toggle_forced))
        .route("/game/{id}/game.egn", get(download_game))
        .route("/game/{id}/analyse", post(analyse_game))
        .with_state(tables)
}

async fn home(State(tables): Shared) -> Response {
    let default = tables.bots.default_bot().0.to_owned();
    let chosen = NewGame {
        partner: default.clone(),
        opponents: default,
        ..NewGame::default()
    };
    html(StatusCode::OK, tables.new_game_page(&chosen, None))
}

/// The new-game form: a rung of the ladder for each side (or another bot
/// typed in, which wins over the rung), the target, and whether moves may
/// be taken back.
#[derive(Debug, Default, Deserialize)]
struct NewGame {
    partner: String,
    opponents: String,
    #[serde(default)]
    partner_other: Option<String>,
    #[serde(default)]
    opponents_other: Option<String>,
    #[serde(default)]
    target: Option<String>,
    #[serde(default)]
    practice: Option<String>,
}

impl NewGame {
    fn partner_choice(&self) -> String {
        typed_or(self.partner_other.as_deref(), &self.partner)
    }

    fn opponents_choice(&self) -> String {
        typed_or(self.opponents_other.as_deref(), &self.opponents)
    }
}

fn typed_or(typed: Option<&str>, chosen: &str) -> String {
    typed
        .map(str::trim)
        .filter(|typed| !typed.is_empty())
        .unwrap_or(chosen)
        .trim()
        .to_owned()
}

async fn new_game(State(state): Shared, form: Result<Form<NewGame>, FormRejection>) -> Response {
    let request = match form {
        Ok(Form(request)) => request,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return guard::too_large("/games");
        }
        Err(_) => {
            return error_html(
                StatusCode::BAD_REQUEST,
                "Bad request",
                "a new game needs the fields partner and opponents (bots this server offers)",
            );
        }
    };
    let refuse = |message: String| {
        html(
            StatusCode::BAD_REQUEST,
            state.new_game_page(&request, Some(&message)),
        )
    };
    let target = match request.target.as_deref().map(str::trim) {
        None | Some("") => 10,
        Some(text) => match text.parse::<u32>() {
            Ok(target) if (1..=100).contains(&target) => target,
            _ => {
                return refuse(format!(
                    "points to win must be a number from 1 to 100, not '{}'",
                    text.chars().take(40).collect::<String>()
                ));
            }
        },
    };
    let (partner_label, partner) = match state.bots.choose(&request.partner_choice()) {
        Ok(chosen) => chosen,
        Err(error) => return refuse(format!("partner: {error}")),
    };
    let (opponents_label, opponents) = match state.bots.choose(&request.opponents_choice()) {
        Ok(chosen) => chosen,
        Err(error) => return refuse(format!("opponents: {error}")),
    };
    let seed = {
        use rand::RngExt;
        lock(&state.next_id).random::<u64>()
    };
    // The bots' first moves are made when the game is first shown.
    let id = state.insert(
        HumanGame::new(partner, opponents, state.rules, target, seed)
            .with_bot_names(
                &state.bots.shown_name(&partner_label),
                &state.bots.shown_name(&opponents_label),
            )
            .with_practice(request.practice.as_deref() == Some("on")),
    );
    Redirect::to(&format!("/game/{id}")).into_response()
}

/// Lets the bots of `table` move until the person's turn, on a blocking
/// thread, stopping early if `cancel` is dropped (the client went away, its
/// time ran out) or the server shuts down; a later request resumes them.
async fn run_bots(table: &Arc<Mutex<HumanGame>>, cancel: &Cancel) -> Result<(), Response> {
    let worker = Arc::clone(table);
    let stop = cancel.checker();
    tokio::task::spawn_blocking(move || lock(&worker).run_bots(&stop))
        .await
        .map_err(|_| internal_error())
}

fn internal_error() -> Response {
    error_html(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Internal error",
        "a bot failed while thinking; other games are unaffected",
    )
}

fn unknown_game(id: &str) -> Response {
    error_html(
        StatusCode::NOT_FOUND,
        "No such game",
        &format!(
            "there is no game '{id}' on this server (games live in memory, so a restart ends them)"
        ),
    )
}

async fn show_game(State(state): Shared, Path(id): Path<String>) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let cancel = Cancel::new(&state.shutdown);
    if lock(&table).bots_to_move()
        && let Err(response) = run_bots(&table, &cancel).await
    {
        return response;
    }
    let hint = if lock(&table).show_hints {
        let worker = Arc::clone(&table);
        let bot = Arc::clone(&state.hint_bot);
        // Stops, and lets go of the game, when its client leaves.
        let stop = cancel.checker();
        let hint = tokio::task::spawn_blocking(move || {
            euchre_bots::stop::with_stop(stop, || {
                let hint = lock(&worker).hint(bot.as_ref());
                hint.filter(|_| !euchre_bots::stop::requested())
            })
        })
        .await
        .ok()
        .flatten();
        drop(cancel);
        hint
    } else {
        None
    };
    let page = table_page::play_page(&id, &lock(&table), None, hint.as_ref());
    html(StatusCode::OK, page)
}

/// A switch of the table: `show=on` turns it on, anything else off.
#[derive(Debug, Deserialize)]
struct SwitchForm {
    show: Option<String>,
}

/// Sets one of the game's switches from its form, then back to the game.
fn set_switch(
    state: &Tables,
    id: &str,
    form: Result<Form<SwitchForm>, FormRejection>,
    set: impl FnOnce(&mut HumanGame, bool),
) -> Response {
    let Some(table) = state.table(id) else {
        return unknown_game(id);
    };
    let on = matches!(form, Ok(Form(SwitchForm { show: Some(ref v) })) if v == "on");
    set(&mut lock(&table), on);
    Redirect::to(&format!("/game/{id}")).into_response()
}

/// Turns the hints on or off for this game; the person sees them on their
/// own moves only.
async fn toggle_hints(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<SwitchForm>, FormRejection>,
) -> Response {
    set_switch(&state, &id, form, |game, on| game.show_hints = on)
}

/// Plays the person's card for them when it is their only legal one, or
/// stops doing so (the next showing plays a forced card now due).
async fn toggle_forced(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<SwitchForm>, FormRejection>,
) -> Response {
    set_switch(&state, &id, form, |game, on| game.auto_play_forced = on)
}

/// Takes back the person's last move in a practice game, from the
/// position the form was drawn at.
async fn undo(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<AtForm>, FormRejection>,
) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let result = form_position(form).and_then(|at| {
        let mut game = lock(&table);
        game.check_position(at)?;
        game.undo()
    });
    after_move(&id, &table, result)
}

/// The game's finished hands, judged by the analysis page's default bot,
/// opened at the last of them.
async fn analyse_game(State(state): Shared, Path(id): Path<String>) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let (text, hands) = {
        let game = lock(&table);
        (game.egn(), game.hands_played)
    };
    if hands == 0 {
        let error = MoveError::NothingToAnalyse;
        return after_move(&id, &table, Err(error));
    }
    analysis::analyse_played(&state.analysis, text, hands as usize - 1).await
}

/// The game's finished hands as an `.egn` file.
async fn download_game(State(state): Shared, Path(id): Path<String>) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let text = lock(&table).egn();
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "application/json; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"euchre-game.egn\"",
            ),
        ],
        text,
    )
        .into_response()
}

#[derive(Debug, Deserialize)]
struct MoveForm {
    action: String,
    /// The position the form was drawn at ([`Position`]).
    at: Option<String>,
}

/// A form that carries only the position it was drawn at.
#[derive(Debug, Deserialize)]
struct AtForm {
    at: Option<String>,
}

/// The position such a form answers, or why it cannot be read.
fn form_position(form: Result<Form<AtForm>, FormRejection>) -> Result<Position, MoveError> {
    match form {
        Ok(Form(form)) => position_of(form.at.as_deref()),
        Err(rejection) => Err(MoveError::Unreadable(String::new(), rejection.body_text())),
    }
}

/// The position a form says it answers; a form without one is refused, so
/// that nothing but this server's own pages can move.
fn position_of(at: Option<&str>) -> Result<Position, MoveError> {
    at.ok_or_else(|| {
        MoveError::Unreadable(
            String::new(),
            "the form does not say which position it answers (field 'at'); reload the game and move from its page".to_owned(),
        )
    })?
    .parse()
}

async fn make_move(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<MoveForm>, FormRejection>,
) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let form = match form {
        Ok(Form(form)) => form,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return guard::too_large("/game");
        }
        Err(rejection) => {
            let error = MoveError::Unreadable(String::new(), rejection.body_text());
            return after_move(&id, &table, Err(error));
        }
    };
    let parsed = position_of(form.at.as_deref()).and_then(|at| {
        let action = form
            .action
            .parse::<Action>()
            .map_err(|error| MoveError::Unreadable(form.action.clone(), error.to_string()))?;
        Ok((at, action))
    });
    let (at, action) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return after_move(&id, &table, Err(error)),
    };
    let cancel = Cancel::new(&state.shutdown);
    let stop = cancel.checker();
    let worker = Arc::clone(&table);
    let result = tokio::task::spawn_blocking(move || {
        let mut game = lock(&worker);
        game.check_position(at)?;
        game.person_moves(action, &stop)
    })
    .await;
    match result {
        Ok(result) => after_move(&id, &table, result),
        Err(_) => internal_error(),
    }
}

async fn next_hand(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<AtForm>, FormRejection>,
) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let at = match form_position(form) {
        Ok(at) => at,
        Err(error) => return after_move(&id, &table, Err(error)),
    };
    let cancel = Cancel::new(&state.shutdown);
    let stop = cancel.checker();
    let worker = Arc::clone(&table);
    let result = tokio::task::spawn_blocking(move || {
        let mut game = lock(&worker);
        game.check_position(at)?;
        game.next_hand(&stop)
    })
    .await;
    match result {
        Ok(result) => after_move(&id, &table, result),
        Err(_) => internal_error(),
    }
}

/// Back to the game after a move (a redirect, so a reload does not
/// repeat it), or the game with the reason the move was refused.
fn after_move(id: &str, table: &Mutex<HumanGame>, result: Result<(), MoveError>) -> Response {
    match result {
        Ok(()) => Redirect::to(&format!("/game/{id}")).into_response(),
        Err(error) => {
            let status = match error {
                MoveError::Unreadable(..) => StatusCode::BAD_REQUEST,
                MoveError::Illegal { .. } => StatusCode::UNPROCESSABLE_ENTITY,
                MoveError::NotYourTurn
                | MoveError::GameOver
                | MoveError::HandNotOver
                | MoveError::Stale { .. }
                | MoveError::CannotUndo(_)
                | MoveError::NothingToAnalyse => StatusCode::CONFLICT,
            };
            let page = table_page::play_page(id, &lock(table), Some(&error.to_string()), None);
            html(status, page)
        }
    }
}
