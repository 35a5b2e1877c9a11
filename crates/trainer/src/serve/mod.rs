//! `trainer serve`: a local web server to play the bots in a browser, watch
//! training runs, and call a bot over HTTP.
//!
//! - `/`: choose the partner and opponents and deal: among the bots the
//!   command line offered, or random, heuristic and pimc:N with N capped
//!   ([`catalog`]). A client never names a file.
//! - `/game/{id}`: one game to the target score. Games live in memory,
//!   each behind its own lock, so tabs play independent games, a reload
//!   shows the same game, and one bad request touches only its own game.
//! - `/game/{id}/game.egn`: the game so far in Euchre Game Notation; a
//!   toggle on the page shows a bot's judgement of the person's moves.
//! - `/analysis`: a recorded game (EGN) uploaded or picked, judged decision
//!   by decision by a bot the server seats, and stepped through deal by deal.
//! - `/runs`: `trainer status` and the learning curve of each run directory.
//! - `POST /api/act`: the bot API of [`euchre_bots::api`].
//!
//! Pages are server-rendered HTML with plain forms: no build step, no
//! script, and the assets are compiled into the binary.
//!
//! The server trusts no client ([`guard`]): posts from another site's page
//! are refused, every request has a bounded body and time, headers and idle
//! connections time out, connections are capped, a move carries the
//! position it answers (a replayed form gets 409), and the bots' work for a
//! client that has gone, or on Ctrl-C, stops at their next decision.

mod analysis;
mod analysis_pages;
pub mod catalog;
pub mod connections;
#[cfg(test)]
mod contrast;
pub mod guard;
pub mod pages;
mod respond;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, FormRejection};
use axum::extract::{DefaultBodyLimit, Form, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use serde::Deserialize;
use thiserror::Error;

use euchre_bots::api::{ActError, ActRequest, act};
use euchre_bots::bots::policy::Unseen;
use euchre_bots::human_game::{HumanGame, MoveError, Position};

use self::analysis::AnalysisDesk;
use self::catalog::BotCatalog;
use self::guard::{Cancel, MAX_BODY_BYTES};
use self::respond::{error_html, html, lock};
use crate::training::status::RunStatus;

/// Games kept in memory; past this the least recently used is dropped.
const MAX_GAMES: usize = 1000;

pub use self::connections::MAX_CONNECTIONS;

/// How long a connection may take to send a request's headers, and how
/// long an idle keep-alive connection stays open.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long Ctrl-C waits for requests under way before closing them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

const STYLE: &str = include_str!("assets/style.css");

/// What `trainer serve` was asked to do.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The bots clients may seat besides the built-ins, as specs; the
    /// first is the default of new games and the bot of the API. Chosen
    /// here, at start: a client never names a file.
    pub bots: Vec<String>,
    pub run_dirs: Vec<PathBuf>,
    pub rules: Rules,
    pub unseen: Unseen,
    pub address: SocketAddr,
    /// Fixes the deals (and ids) of the games in the order they start, so a
    /// test or a rematch sees the same cards; `None` deals at random.
    pub seed: Option<u64>,
    /// Names besides IP addresses and `localhost` that clients may reach
    /// the server by (see [`guard::AllowedHosts`]).
    pub allowed_hosts: Vec<String>,
    /// A directory of `.egn` games the analysis page offers to pick.
    pub games_dir: Option<PathBuf>,
    /// The bot whose judgement the play page's hints show.
    pub hint_bot: String,
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
    #[error("--games {}: {why}", path.display())]
    GamesDir { path: PathBuf, why: String },
}

/// Everything the handlers share.
struct AppState {
    rules: Rules,
    bots: Arc<BotCatalog>,
    games: Mutex<HashMap<String, Game>>,
    run_dirs: Vec<PathBuf>,
    next_id: Mutex<rand::rngs::SmallRng>,
    /// Set on Ctrl-C: every request's bots stop at their next decision.
    shutdown: Arc<AtomicBool>,
    hint_bot: Arc<dyn euchre_bots::bot::Bot>,
}

struct Game {
    table: Arc<Mutex<HumanGame>>,
    touched: Instant,
}

impl AppState {
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

    fn offered(&self) -> Vec<String> {
        self.bots.labels().map(str::to_owned).collect()
    }

    fn default_label(&self) -> String {
        self.bots.default_bot().0.to_owned()
    }
}

/// The application, ready to serve; fails if an offered bot cannot be
/// built (a missing or foreign policy file). `shutdown`, once set, stops
/// every request's bots at their next decision.
pub fn app(options: &ServeOptions, shutdown: &Arc<AtomicBool>) -> Result<Router, ServeError> {
    use rand::SeedableRng;
    let specs = if options.bots.is_empty() {
        vec!["heuristic".to_owned()]
    } else {
        options.bots.clone()
    };
    let bots = Arc::new(BotCatalog::new(&specs, options.rules, options.unseen)?);
    let seed = options.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_nanos() as u64)
    });
    if let Some(dir) = &options.games_dir
        && let Some(why) = analysis::games_dir_problem(dir)
    {
        return Err(ServeError::GamesDir {
            path: dir.clone(),
            why,
        });
    }
    let analysis = Arc::new(AnalysisDesk::new(
        options.games_dir.clone(),
        Arc::clone(&bots),
        seed,
        Arc::clone(shutdown),
    ));
    let state = AppState {
        rules: options.rules,
        bots,
        games: Mutex::new(HashMap::new()),
        run_dirs: options.run_dirs.clone(),
        next_id: Mutex::new(rand::rngs::SmallRng::seed_from_u64(seed)),
        shutdown: Arc::clone(shutdown),
        hint_bot: euchre_bots::spec::from_spec(&options.hint_bot, options.rules, options.unseen)?,
    };
    Ok(Router::new()
        .route("/", get(home))
        .route("/style.css", get(style))
        .route("/games", post(new_game))
        .route("/game/{id}", get(show_game))
        .route("/game/{id}/move", post(make_move))
        .route("/game/{id}/next", post(next_hand))
        .route("/game/{id}/hints", post(toggle_hints))
        .route("/game/{id}/game.egn", get(download_game))
        .merge(analysis::routes(Arc::clone(&analysis)))
        .route("/runs", get(runs))
        .route("/runs/{index}/curve.svg", get(curve))
        .route("/api/act", post(api_act))
        .fallback(not_found)
        .method_not_allowed_fallback(guard::method_not_allowed)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(guard::AllowedHosts::new(&options.allowed_hosts)),
            guard::bounded_and_same_origin,
        ))
        .with_state(Arc::new(state)))
}

/// What someone other than this machine's user can reach when the server
/// listens on `address`, or `None` on loopback.
pub fn exposure_warning(address: SocketAddr, options: &ServeOptions) -> Option<String> {
    if address.ip().is_loopback() {
        return None;
    }
    let runs = if options.run_dirs.is_empty() {
        String::new()
    } else {
        format!(
            ", read the status and learning curve of {} run director{}",
            options.run_dirs.len(),
            if options.run_dirs.len() == 1 {
                "y"
            } else {
                "ies"
            }
        )
    };
    Some(format!(
        "warning: listening on {address}, not loopback: anyone who can reach this machine on port {} can play games against the bots, call the bot API{runs}, and use this machine's CPU for it. No client can name a file. Use --host 127.0.0.1 to keep the server to this machine.",
        address.port()
    ))
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
/// have been chosen by the system). Each connection has [`HEADER_TIMEOUT`]
/// to send its headers (idle keep-alive connections too), at most
/// [`MAX_CONNECTIONS`] are served at once, and Ctrl-C cancels the bots'
/// work under way and closes every connection within [`SHUTDOWN_GRACE`].
pub fn serve(options: &ServeOptions, on_ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let shutdown = Arc::new(AtomicBool::new(false));
    let router = app(options, &shutdown)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(async {
        let listener = bind(options.address).await?;
        on_ready(listener.local_addr()?);
        accept_until_ctrl_c(listener, router, &shutdown).await;
        Ok(())
    });
    // Decisions stop between worlds once `shutdown` is set; a blocking
    // task that still runs (a single world can take a moment) is not
    // waited for past this.
    runtime.shutdown_timeout(Duration::from_secs(1));
    served
}

async fn accept_until_ctrl_c(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: &Arc<AtomicBool>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;

    let table = connections::ConnectionTable::new(MAX_CONNECTIONS);
    let (closing, _) = tokio::sync::watch::channel(false);
    let mut connections = tokio::task::JoinSet::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(HEADER_TIMEOUT);
    let ctrl_c = tokio::signal::ctrl_c();
    tokio::pin!(ctrl_c);
    loop {
        tokio::select! {
            _ = &mut ctrl_c => break,
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                // Full of busy connections: this one is closed unread.
                let Some(slot) = table.admit() else { continue };
                let inner = TowerToHyperService::new(router.clone());
                let activity = Arc::clone(&slot.connection);
                // A connection with a request in flight is never evicted.
                let service = hyper::service::service_fn(move |request| {
                    let busy = activity.request();
                    let response = hyper::service::Service::call(&inner, request);
                    async move {
                        let response = response.await;
                        drop(busy);
                        response
                    }
                });
                let connection = http.serve_connection(TokioIo::new(stream), service);
                let mut closing = closing.subscribe();
                connections.spawn(async move {
                    tokio::pin!(connection);
                    tokio::select! {
                        _ = connection.as_mut() => {}
                        // Its place went to a newer connection.
                        _ = slot.connection.evicted() => {}
                        _ = closing.changed() => {
                            connection.as_mut().graceful_shutdown();
                            let _ = tokio::time::timeout(SHUTDOWN_GRACE, connection).await;
                        }
                    }
                    drop(slot);
                });
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    shutdown.store(true, Ordering::Relaxed);
    let _ = closing.send(true);
    // A second Ctrl-C stops waiting for connections to finish.
    let drained = tokio::select! {
        drained = tokio::time::timeout(SHUTDOWN_GRACE + Duration::from_secs(1), async {
            while connections.join_next().await.is_some() {}
        }) => drained.is_ok(),
        _ = tokio::signal::ctrl_c() => false,
    };
    if !drained {
        connections.abort_all();
    }
}

type Shared = State<Arc<AppState>>;

async fn home(State(state): Shared) -> Response {
    let default = state.default_label();
    html(
        StatusCode::OK,
        pages::home_page(&default, &default, &state.offered(), None),
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
            pages::home_page(
                &request.partner,
                &request.opponents,
                &state.offered(),
                Some(&message),
            ),
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
    let (partner_label, partner) = match state.bots.choose(&request.partner) {
        Ok(chosen) => chosen,
        Err(error) => return refuse(format!("partner: {error}")),
    };
    let (opponents_label, opponents) = match state.bots.choose(&request.opponents) {
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
            .with_bot_names(&partner_label, &opponents_label),
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
    let page = pages::play_page(&id, &lock(&table), None, hint.as_ref());
    html(StatusCode::OK, page)
}

#[derive(Debug, Deserialize)]
struct HintsForm {
    show: Option<String>,
}

/// Turns the hints on or off for this game; the person sees them on their
/// own moves only.
async fn toggle_hints(
    State(state): Shared,
    Path(id): Path<String>,
    form: Result<Form<HintsForm>, FormRejection>,
) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let show = matches!(form, Ok(Form(HintsForm { show: Some(ref v) })) if v == "on");
    lock(&table).show_hints = show;
    Redirect::to(&format!("/game/{id}")).into_response()
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

#[derive(Debug, Deserialize)]
struct NextForm {
    at: Option<String>,
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
    form: Result<Form<NextForm>, FormRejection>,
) -> Response {
    let Some(table) = state.table(&id) else {
        return unknown_game(&id);
    };
    let at = match form {
        Ok(Form(form)) => position_of(form.at.as_deref()),
        Err(rejection) => Err(MoveError::Unreadable(String::new(), rejection.body_text())),
    };
    let at = match at {
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
                | MoveError::Stale { .. } => StatusCode::CONFLICT,
            };
            let page = pages::play_page(id, &lock(table), Some(&error.to_string()), None);
            html(status, page)
        }
    }
}

async fn runs(State(state): Shared) -> Response {
    let dirs = state.run_dirs.clone();
    let sections = tokio::task::spawn_blocking(move || {
        dirs.iter()
            .map(|dir| {
                // A client sees each run by its directory's name: where
                // the server's files live is not its business.
                let shown = public_dir_name(dir);
                let hide = |text: String| text.replace(&dir.display().to_string(), &shown);
                let status = RunStatus::read(dir, false, None)
                    .map(|status| hide(status.to_string()))
                    .map_err(|error| hide(error_chain(&error)));
                let has_curve = dir.join(crate::training::curve::CURVE_PLOT).is_file();
                (shown, status, has_curve)
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
/// A run directory as clients see it: its last component only.
fn public_dir_name(dir: &std::path::Path) -> String {
    dir.file_name().map_or_else(
        || "run".to_owned(),
        |name| name.to_string_lossy().into_owned(),
    )
}

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
    // A run's plot is a few tens of KiB; anything else at that path (a
    // FIFO, a device, a huge file) is not served.
    const MAX_PLOT_BYTES: u64 = 16 << 20;
    match tokio::task::spawn_blocking(move || store::read_bounded(&path, MAX_PLOT_BYTES))
        .await
        .map_err(|_| ())
        .and_then(|read| read.map_err(|_| ()))
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
            &format!("{} has no learning curve yet", public_dir_name(dir)),
        ),
    }
}

/// `POST /api/act`: 200 with the move; 400 for a body that is not a view,
/// 409 for a view whose seat is not to act, 422 for an impossible view,
/// 413 for a body over the limit. The answer names the bot by its public
/// label, never by a path on this machine.
async fn api_act(State(state): Shared, body: Result<Bytes, BytesRejection>) -> Response {
    let body = match body {
        Ok(body) => body,
        Err(rejection) if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            return guard::too_large("/api/act");
        }
        Err(rejection) => return api_error(&ActError::Malformed(rejection.body_text())),
    };
    let request = match serde_json::from_slice::<ActRequest>(&body) {
        Ok(request) => request,
        Err(error) => return api_error(&ActError::Malformed(error.to_string())),
    };
    let worker = Arc::clone(&state);
    // Dropped with this handler when the client leaves, its time runs out
    // or the server stops: the bot then ends its decision between worlds.
    let cancel = Cancel::new(&state.shutdown);
    let stop = cancel.checker();
    let answer = tokio::task::spawn_blocking(move || {
        let (label, bot) = worker.bots.default_bot();
        euchre_bots::stop::with_stop(stop, || act(bot.as_ref(), worker.rules, &request)).map(
            |mut answer| {
                answer.bot = label.to_owned();
                answer
            },
        )
    })
    .await;
    let stopped = cancel.checker()();
    drop(cancel);
    match answer {
        // A decision cut short by Ctrl-C is not an answer.
        Ok(Ok(_)) if stopped => (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(serde_json::json!({
                "error": "the server is shutting down; the decision was cut short, ask again later"
            })),
        )
            .into_response(),
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
