//! `trainer serve`: a local web server to play the bots in a browser, watch
//! training runs, and call a bot over HTTP.
//!
//! - `/`: choose the partner and opponents (any bot spec) and deal.
//! - `/game/{id}`: one game to the target score. Games live in memory,
//!   each behind its own lock, so tabs play independent games, a reload
//!   shows the same game, and one bad request touches only its own game.
//! - `/runs`: `trainer status` and the learning curve of each run directory.
//! - `POST /api/act`: the bot API of [`euchre_bots::api`].
//!
//! Pages are server-rendered HTML with plain forms: no build step, no
//! script, and the assets are compiled into the binary.

pub mod pages;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::FormRejection;
use axum::extract::{Form, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use serde::Deserialize;
use thiserror::Error;

use euchre_bots::human_game::{HumanGame, MoveError};

use crate::training::status::RunStatus;
use euchre_bots::api::{ActError, ActRequest, act};
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::from_spec;

/// Games kept in memory; past this the least recently used is dropped.
const MAX_GAMES: usize = 1000;

const STYLE: &str = include_str!("assets/style.css");

/// What `trainer serve` was asked to do.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The bot a new game and the API use unless told otherwise.
    pub bot: String,
    pub run_dirs: Vec<PathBuf>,
    pub rules: Rules,
    pub unseen: Unseen,
    pub address: SocketAddr,
    /// Fixes the deals (and ids) of the games in the order they start, so a
    /// test or a rematch sees the same cards; `None` deals at random.
    pub seed: Option<u64>,
}

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ServeError {
    #[error(
        "port {port} on {host} is already in use: stop what holds it, or pick another port with --port"
    )]
    PortInUse { host: String, port: u16 },
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Bot(#[from] euchre_bots::spec::BotSpecError),
    #[error("the server stopped: {0}")]
    Io(#[from] std::io::Error),
}

/// Everything the handlers share.
struct AppState {
    rules: Rules,
    unseen: Unseen,
    default_bot: String,
    api_bot: Arc<dyn Bot>,
    /// Bots built so far, by spec: a policy file is read once.
    bots: Mutex<HashMap<String, Arc<dyn Bot>>>,
    games: Mutex<HashMap<String, Game>>,
    run_dirs: Vec<PathBuf>,
    next_id: Mutex<rand::rngs::SmallRng>,
}

struct Game {
    table: Arc<Mutex<HumanGame>>,
    touched: Instant,
}

/// A lock that a panic elsewhere cannot make unusable: the data behind
/// these locks is valid after any single step.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AppState {
    fn bot(&self, spec: &str) -> Result<Arc<dyn Bot>, String> {
        if let Some(bot) = lock(&self.bots).get(spec) {
            return Ok(Arc::clone(bot));
        }
        // The whole chain: a policy file's message, then the OS's reason.
        let bot = from_spec(spec, self.rules, self.unseen)
            .map_err(|error| format!("{:#}", anyhow::Error::from(error)))?;
        lock(&self.bots).insert(spec.to_owned(), Arc::clone(&bot));
        Ok(bot)
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
}

/// The application, ready to serve; fails if the default bot cannot be
/// built (a missing or foreign policy file).
pub fn app(options: &ServeOptions) -> Result<Router, ServeError> {
    use rand::SeedableRng;
    let api_bot =
        from_spec(&options.bot, options.rules, options.unseen).map_err(ServeError::Bot)?;
    let seed = options.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64)
    });
    let state = AppState {
        rules: options.rules,
        unseen: options.unseen,
        default_bot: options.bot.clone(),
        bots: Mutex::new(HashMap::from([(options.bot.clone(), Arc::clone(&api_bot))])),
        api_bot,
        games: Mutex::new(HashMap::new()),
        run_dirs: options.run_dirs.clone(),
        next_id: Mutex::new(rand::rngs::SmallRng::seed_from_u64(seed)),
    };
    Ok(Router::new()
        .route("/", get(home))
        .route("/style.css", get(style))
        .route("/games", post(new_game))
        .route("/game/{id}", get(show_game))
        .route("/game/{id}/move", post(make_move))
        .route("/game/{id}/next", post(next_hand))
        .route("/runs", get(runs))
        .route("/runs/{index}/curve.svg", get(curve))
        .route("/api/act", post(api_act))
        .fallback(not_found)
        .with_state(Arc::new(state)))
}

/// Binds `address`, naming a port that is taken.
pub async fn bind(address: SocketAddr) -> Result<tokio::net::TcpListener, ServeError> {
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| match source.kind() {
            std::io::ErrorKind::AddrInUse => ServeError::PortInUse {
                host: address.ip().to_string(),
                port: address.port(),
            },
            _ => ServeError::Bind { address, source },
        })
}

/// Serves until Ctrl-C. `on_ready` gets the bound address (the port may
/// have been chosen by the system).
pub fn serve(options: &ServeOptions, on_ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let router = app(options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = bind(options.address).await?;
        on_ready(listener.local_addr()?);
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                tokio::signal::ctrl_c().await.ok();
            })
            .await?;
        Ok(())
    })
}

type Shared = State<Arc<AppState>>;

fn html(status: StatusCode, body: String) -> Response {
    (status, Html(body)).into_response()
}

fn error_html(status: StatusCode, title: &str, message: &str) -> Response {
    html(status, pages::error_page(title, message))
}

async fn home(State(state): Shared) -> Response {
    html(
        StatusCode::OK,
        pages::home_page(&state.default_bot, &state.default_bot, None),
    )
}

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

async fn not_found() -> Response {
    error_html(
        StatusCode::NOT_FOUND,
        "Not found",
        "There is no page here. Start a game from the first page.",
    )
}

#[derive(Debug, Deserialize)]
struct NewGame {
    partner: String,
    opponents: String,
    #[serde(default)]
    target: Option<String>,
}

async fn new_game(State(state): Shared, form: Result<Form<NewGame>, FormRejection>) -> Response {
    let Ok(Form(request)) = form else {
        return error_html(
            StatusCode::BAD_REQUEST,
            "Bad request",
            "a new game needs the fields partner and opponents (bot specs)",
        );
    };
    let refuse = |message: String| {
        html(
            StatusCode::BAD_REQUEST,
            pages::home_page(&request.partner, &request.opponents, Some(&message)),
        )
    };
    let target = match request.target.as_deref().map(str::trim) {
        None | Some("") => 10,
        Some(text) => match text.parse::<u32>() {
            Ok(target) if (1..=100).contains(&target) => target,
            _ => {
                return refuse(format!(
                    "points to win must be a number from 1 to 100, not '{text}'"
                ));
            }
        },
    };
    let worker = Arc::clone(&state);
    let (partner, opponents) = (
        request.partner.trim().to_owned(),
        request.opponents.trim().to_owned(),
    );
    let built = tokio::task::spawn_blocking(move || {
        let partner = worker.bot(&partner).map_err(|e| format!("partner: {e}"))?;
        let opponents = worker
            .bot(&opponents)
            .map_err(|e| format!("opponents: {e}"))?;
        let seed = {
            use rand::RngExt;
            lock(&worker.next_id).random::<u64>()
        };
        let table = HumanGame::new(partner, opponents, worker.rules, target, seed);
        Ok::<_, String>(worker.insert(table))
    })
    .await;
    match built {
        Ok(Ok(id)) => Redirect::to(&format!("/game/{id}")).into_response(),
        Ok(Err(message)) => refuse(message),
        Err(_) => internal_error(),
    }
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
    let page = pages::play_page(&id, &lock(&table), None);
    html(StatusCode::OK, page)
}

#[derive(Debug, Deserialize)]
struct MoveForm {
    action: String,
}

async fn make_move(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<MoveForm>, FormRejection>,
) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let result = match form {
        Err(rejection) => Err(MoveError::Unreadable(String::new(), rejection.body_text())),
        Ok(Form(form)) => match form.action.parse::<Action>() {
            Err(error) => Err(MoveError::Unreadable(form.action, error.to_string())),
            Ok(action) => {
                let table = Arc::clone(&table);
                match tokio::task::spawn_blocking(move || lock(&table).person_moves(action)).await {
                    Ok(result) => result,
                    Err(_) => return internal_error(),
                }
            }
        },
    };
    after_move(&id, &table, result)
}

async fn next_hand(State(state): Shared, Path(id): Path<String>) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let worker = Arc::clone(&table);
    let Ok(result) = tokio::task::spawn_blocking(move || lock(&worker).next_hand()).await else {
        return internal_error();
    };
    after_move(&id, &table, result)
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
                MoveError::NotYourTurn | MoveError::GameOver | MoveError::HandNotOver => {
                    StatusCode::CONFLICT
                }
            };
            let page = pages::play_page(id, &lock(table), Some(&error.to_string()));
            html(status, page)
        }
    }
}

async fn runs(State(state): Shared) -> Response {
    let dirs = state.run_dirs.clone();
    let sections = tokio::task::spawn_blocking(move || {
        dirs.iter()
            .map(|dir| {
                let status = RunStatus::read(dir, false)
                    .map(|status| status.to_string())
                    .map_err(|error| error_chain(&error));
                let has_curve = dir.join(crate::training::curve::CURVE_PLOT).is_file();
                (dir.display().to_string(), status, has_curve)
            })
            .collect::<Vec<_>>()
    })
    .await;
    match sections {
        Ok(sections) => html(StatusCode::OK, pages::runs_page(&sections)),
        // The reading task panicked: say so rather than show no runs.
        Err(error) => html(
            StatusCode::INTERNAL_SERVER_ERROR,
            pages::error_page("Runs", &format!("reading the runs failed: {error}")),
        ),
    }
}

/// An error and every cause under it, as `trainer status` prints them.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

async fn curve(State(state): Shared, Path(index): Path<String>) -> Response {
    let Some(dir) = index
        .parse::<usize>()
        .ok()
        .and_then(|i| state.run_dirs.get(i))
    else {
        return error_html(StatusCode::NOT_FOUND, "Not found", "there is no such run");
    };
    let path = dir.join(crate::training::curve::CURVE_PLOT);
    match tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .unwrap_or_else(|_| Err(std::io::ErrorKind::Other.into()))
    {
        Ok(svg) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            svg,
        )
            .into_response(),
        Err(_) => error_html(
            StatusCode::NOT_FOUND,
            "Not found",
            &format!("{} has no learning curve yet", dir.display()),
        ),
    }
}

/// `POST /api/act`: 200 with the move; 400 for a body that is not a view,
/// 409 for a view whose seat is not to act, 422 for an impossible view.
async fn api_act(State(state): Shared, body: Bytes) -> Response {
    let request = match serde_json::from_slice::<ActRequest>(&body) {
        Ok(request) => request,
        Err(error) => return api_error(&ActError::Malformed(error.to_string())),
    };
    let worker = Arc::clone(&state);
    let answer =
        tokio::task::spawn_blocking(move || act(worker.api_bot.as_ref(), worker.rules, &request))
            .await;
    match answer {
        Ok(Ok(answer)) => (StatusCode::OK, axum::Json(answer)).into_response(),
        Ok(Err(error)) => api_error(&error),
        Err(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            axum::Json(serde_json::json!({ "error": "the bot failed while thinking" })),
        )
            .into_response(),
    }
}

fn api_error(error: &ActError) -> Response {
    let status = if error.is_malformed() {
        StatusCode::BAD_REQUEST
    } else if error.is_out_of_turn() {
        StatusCode::CONFLICT
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    (
        status,
        axum::Json(serde_json::json!({ "error": error.to_string() })),
    )
        .into_response()
}
