//! `trainer serve`: a local web server to play the bots in a browser, watch
//! training runs, and call a bot over HTTP.
//!
//! - `/`: choose the partner and opponents on a difficulty ladder (the
//!   built-in bots, then those the command line offered; [`catalog`]) and
//!   deal. A client never names a file.
//! - `/game/{id}`: one game to the target score (`tables.rs`), with hints,
//!   forced cards played for the person, moves taken back in a practice
//!   game, the game saved as Euchre Game Notation (`game.egn`), and
//!   analysed in one click.
//! - `/analysis`: a recorded game (EGN) uploaded or picked, judged decision
//!   by decision by a bot the server seats, and stepped through deal by deal.
//! - `/runs`: `trainer status` and the learning curve of each run directory.
//! - `POST /api/act`: the bot API of [`euchre_bots::api`].
//!
//! Pages are server-rendered HTML with plain forms: no build step, and
//! the assets are compiled into the binary. Every page works without
//! script; the analysis board adds arrow keys with a few lines of it.
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
mod table_page;
mod tables;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use euchre_game::engine::rules::Rules;
use thiserror::Error;

use euchre_bots::api::{ActError, ActRequest, act};
use euchre_bots::bots::policy::Unseen;

use self::analysis::AnalysisDesk;
use self::catalog::BotCatalog;
use self::guard::{Cancel, MAX_BODY_BYTES};
use self::respond::{error_html, html};
use self::tables::Tables;
use crate::training::status::RunStatus;

pub use self::connections::MAX_CONNECTIONS;

/// How long a connection may take to send a request's headers, and how
/// long an idle keep-alive connection stays open.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long Ctrl-C waits for requests under way before closing them.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

const STYLE: &str = include_str!("assets/style.css");
const BOARD_SCRIPT: &str = include_str!("assets/board.js");

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

/// What the runs pages and the bot API share.
struct AppState {
    rules: Rules,
    bots: Arc<BotCatalog>,
    run_dirs: Vec<PathBuf>,
    /// Set on Ctrl-C: every request's bots stop at their next decision.
    shutdown: Arc<AtomicBool>,
}

/// The application, ready to serve; fails if an offered bot cannot be
/// built (a missing or foreign policy file). `shutdown`, once set, stops
/// every request's bots at their next decision.
pub fn app(options: &ServeOptions, shutdown: &Arc<AtomicBool>) -> Result<Router, ServeError> {
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
    let tables = Arc::new(Tables::new(
        options.rules,
        Arc::clone(&bots),
        seed,
        Arc::clone(shutdown),
        euchre_bots::spec::from_spec(&options.hint_bot, options.rules, options.unseen)?,
        Arc::clone(&analysis),
    ));
    let state = AppState {
        rules: options.rules,
        bots,
        run_dirs: options.run_dirs.clone(),
        shutdown: Arc::clone(shutdown),
    };
    Ok(Router::new()
        .route("/style.css", get(style))
        .route("/board.js", get(board_script))
        .merge(tables::routes(tables))
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

async fn style() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], STYLE).into_response()
}

/// The analysis board's arrow keys: the one script the server sends, and
/// the board works without it.
async fn board_script() -> Response {
    (
        [(header::CONTENT_TYPE, "text/javascript; charset=utf-8")],
        BOARD_SCRIPT,
    )
        .into_response()
}

async fn not_found() -> Response {
    error_html(
        StatusCode::NOT_FOUND,
        "Not found",
        "There is no page here. Start a game from the first page.",
    )
}

/// `/runs?every=N` asks the page to reload itself (any N: the interval is
/// the server's).
#[derive(Debug, Default, serde::Deserialize)]
struct RunsQuery {
    every: Option<String>,
}

async fn runs(
    State(state): Shared,
    axum::extract::Query(query): axum::extract::Query<RunsQuery>,
) -> Response {
    let refreshing = query.every.is_some();
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
        Ok(sections) => html(StatusCode::OK, pages::runs_page(&sections, refreshing)),
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
