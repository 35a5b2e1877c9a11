//! `/analysis`: a recorded game (Euchre Game Notation) uploaded or picked
//! from the server's games directory, judged by a bot, and shown deal by
//! deal, move by move: the cards on the table, each decision marked by its
//! loss, and the annotators' comments beside the bot's.
//!
//! An analysis lives in memory like a game; a client names only a file in
//! the directory the command line gave (never a path) or uploads one, and
//! chooses among the bots the server seats (capped PIMC included). One
//! analysis runs at a time, so uploads queue rather than multiply the load.

use std::collections::HashMap;
use std::path::{Path as FsPath, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, Multipart, Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use euchre_bots::analysis::{GameAnalysis, analyse};
use euchre_game::egn;
use rand::rngs::SmallRng;
use serde::Deserialize;

use super::analysis_pages;
use super::catalog::{BotCatalog, DEFAULT_JUDGE};
use super::guard::{Cancel, MAX_UPLOAD_BYTES};
use super::respond::{error_html, html, lock};

/// Analyses kept in memory; past this the oldest is dropped.
const MAX_ANALYSES: usize = 64;

/// What the analysis pages share: the analyses made, the games directory,
/// and the bots a client may choose as the judge.
pub(super) struct AnalysisDesk {
    done: Mutex<HashMap<String, (Arc<GameAnalysis>, Instant)>>,
    /// Held while an analysis runs, by the blocking task that runs it (not
    /// by the request, which may be gone): one at a time.
    running: Arc<tokio::sync::Mutex<()>>,
    games_dir: Option<PathBuf>,
    bots: Arc<BotCatalog>,
    ids: Mutex<SmallRng>,
    /// Set on Ctrl-C: an analysis under way stops.
    shutdown: Arc<AtomicBool>,
}

/// Why a games directory is not one, checked at start: a mistyped
/// `--games` would otherwise serve an empty list without a word.
pub(super) fn games_dir_problem(dir: &FsPath) -> Option<String> {
    match std::fs::metadata(dir) {
        Ok(metadata) if metadata.is_dir() => None,
        Ok(metadata) => Some(format!(
            "{}, not a directory; name the directory that holds the .egn files",
            store::kind_of(&metadata)
        )),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Some("no such directory; name the directory that holds the .egn files".to_owned())
        }
        Err(error) => Some(error.to_string()),
    }
}

impl AnalysisDesk {
    pub(super) fn new(
        games_dir: Option<PathBuf>,
        bots: Arc<BotCatalog>,
        seed: u64,
        shutdown: Arc<AtomicBool>,
    ) -> AnalysisDesk {
        use rand::SeedableRng;
        AnalysisDesk {
            done: Mutex::new(HashMap::new()),
            running: Arc::new(tokio::sync::Mutex::new(())),
            games_dir,
            bots,
            ids: Mutex::new(SmallRng::seed_from_u64(seed.rotate_left(17))),
            shutdown,
        }
    }

    fn form_page(&self, error: Option<&str>) -> String {
        analysis_pages::form_page(&self.files(), &self.bots.ladder(), error)
    }

    /// The `.egn` files of the games directory, by name.
    fn files(&self) -> Vec<String> {
        let Some(dir) = &self.games_dir else {
            return Vec::new();
        };
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|entry| entry.path().extension().is_some_and(|e| e == "egn"))
            // Regular files only: not a link (to `/dev/zero`, or out of the
            // directory), a FIFO or a device a client could pick.
            .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_file()))
            .filter_map(|entry| entry.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }

    /// The file `name` of the games directory: only a name it lists, so
    /// a client cannot reach any other file.
    fn file(&self, name: &str) -> Option<PathBuf> {
        let dir = self.games_dir.as_deref()?;
        self.files()
            .into_iter()
            .find(|listed| listed == name)
            .map(|listed| dir.join(listed))
    }

    fn get(&self, id: &str) -> Option<Arc<GameAnalysis>> {
        lock(&self.done)
            .get(id)
            .map(|(analysis, _)| Arc::clone(analysis))
    }

    fn insert(&self, id: String, analysis: GameAnalysis) {
        let mut done = lock(&self.done);
        if done.len() >= MAX_ANALYSES
            && let Some(oldest) = done
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(id, _)| id.clone())
        {
            done.remove(&oldest);
        }
        done.insert(id, (Arc::new(analysis), Instant::now()));
    }
}

type Shared = State<Arc<AnalysisDesk>>;

/// The analysis pages, with the desk as their own state, to merge into the
/// server's router.
pub(super) fn routes<S: Clone + Send + Sync + 'static>(desk: Arc<AnalysisDesk>) -> Router<S> {
    Router::new()
        .route(
            "/analysis",
            get(form)
                .post(submit)
                .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/analysis/{id}", get(show))
        .with_state(desk)
}

pub(super) async fn form(State(desk): Shared) -> Response {
    html(StatusCode::OK, desk.form_page(None))
}

/// What the form sent: a file's text (uploaded or picked) and the bot.
struct Submitted {
    text: Option<String>,
    picked: Option<String>,
    bot: String,
    /// The "another judge" field, which wins over `bot` when filled.
    typed_bot: Option<String>,
}

/// The form's fields; a form that names no judge gets `default_bot` (the
/// first bot the server offers, as for new games and the API).
async fn read_form(
    mut multipart: Multipart,
    default_bot: &str,
) -> Result<Submitted, (StatusCode, String)> {
    let mut submitted = Submitted {
        text: None,
        picked: None,
        bot: default_bot.to_owned(),
        typed_bot: None,
    };
    let unreadable = |error: axum::extract::multipart::MultipartError| {
        if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
            (
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "the upload is too large: a game file is at most {} KiB",
                    MAX_UPLOAD_BYTES / 1024
                ),
            )
        } else {
            (
                StatusCode::BAD_REQUEST,
                format!("the upload could not be read ({error}); choose the file again"),
            )
        }
    };
    let not_text = || {
        (
            StatusCode::BAD_REQUEST,
            "the file is not UTF-8 text; an EGN file is JSON (convert a binary .egnb file with the EGN project's egn-convert)".to_owned(),
        )
    };
    while let Some(field) = multipart.next_field().await.map_err(unreadable)? {
        match field.name().unwrap_or("") {
            "file" => {
                let bytes = field.bytes().await.map_err(unreadable)?;
                if !bytes.is_empty() {
                    submitted.text =
                        Some(String::from_utf8(bytes.to_vec()).map_err(|_| not_text())?);
                }
            }
            "pick" => {
                let name = field.text().await.map_err(unreadable)?;
                if !name.is_empty() {
                    submitted.picked = Some(name);
                }
            }
            "bot" => submitted.bot = field.text().await.map_err(unreadable)?,
            // A bot typed in is judged by instead of the one chosen.
            "bot_other" => {
                let typed = field.text().await.map_err(unreadable)?;
                if !typed.trim().is_empty() {
                    submitted.typed_bot = Some(typed);
                }
            }
            _ => {}
        }
    }
    Ok(submitted)
}

/// Where the game to analyse comes from.
enum Source {
    Uploaded(String),
    Picked(PathBuf),
}

/// How an analysis ended, on its blocking thread.
enum Outcome {
    Done(Box<GameAnalysis>),
    Refused(StatusCode, String),
    /// Its client left, its time ran out, or the server is stopping.
    Stopped,
}

pub(super) async fn submit(State(desk): Shared, multipart: Multipart) -> Response {
    let refuse = |status: StatusCode, message: &str| html(status, desk.form_page(Some(message)));
    let submitted = match read_form(multipart, desk.bots.default_bot().0).await {
        Ok(submitted) => submitted,
        Err((status, message)) => return refuse(status, &message),
    };
    let source = match (submitted.text, submitted.picked) {
        (Some(text), _) => Source::Uploaded(text),
        (None, Some(name)) => match desk.file(&name) {
            Some(path) => Source::Picked(path),
            None => {
                return refuse(
                    StatusCode::BAD_REQUEST,
                    &format!("there is no game '{name}' in this server's games directory"),
                );
            }
        },
        (None, None) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "choose a game: upload an .egn file, or pick one of this server's",
            );
        }
    };
    let judge = submitted.typed_bot.as_deref().unwrap_or(&submitted.bot);
    analyse_and_show(&desk, source, judge, None).await
}

/// A game from the table, analysed by the default judge and shown at
/// `deal` (the table's one-click "analyse this game").
pub(super) async fn analyse_played(
    desk: &Arc<AnalysisDesk>,
    egn_text: String,
    deal: usize,
) -> Response {
    analyse_and_show(desk, Source::Uploaded(egn_text), DEFAULT_JUDGE, Some(deal)).await
}

/// Analyses `source` with the bot `choice` names, one analysis at a time,
/// and redirects to it (at `deal`, if given); a refusal is shown on the
/// form page.
async fn analyse_and_show(
    desk: &Arc<AnalysisDesk>,
    source: Source,
    choice: &str,
    deal: Option<usize>,
) -> Response {
    let refuse = |status: StatusCode, message: &str| html(status, desk.form_page(Some(message)));
    let (label, bot) = match desk.bots.choose(choice) {
        Ok((label, bot)) => (desk.bots.shown_name(&label), bot),
        Err(error) => return refuse(StatusCode::BAD_REQUEST, &error.to_string()),
    };
    // Waiting here ends with the request; once the work starts, the
    // blocking task holds the turn until the work itself ends, so work a
    // client abandoned still counts against "one at a time" while it stops.
    let turn = Arc::clone(&desk.running).lock_owned().await;
    // Dropped with this handler (the client left, its deadline passed):
    // the analysis then stops at its next decision.
    let cancel = Cancel::new(&desk.shutdown);
    let stop = cancel.checker();
    let outcome = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        euchre_bots::stop::with_stop(Arc::clone(&stop), || {
            analyse_source(source, &label, bot.as_ref())
        })
    })
    .await;
    drop(cancel);
    match outcome {
        Ok(Outcome::Done(analysis)) => {
            let analysis = *analysis;
            let id = {
                use rand::RngExt;
                format!("{:016x}", lock(&desk.ids).random::<u64>())
            };
            desk.insert(id.clone(), analysis);
            let at = deal.map_or_else(String::new, |deal| format!("?deal={deal}"));
            Redirect::to(&format!("/analysis/{id}{at}")).into_response()
        }
        Ok(Outcome::Refused(status, message)) => refuse(status, &message),
        Ok(Outcome::Stopped) => error_html(
            StatusCode::SERVICE_UNAVAILABLE,
            "Stopped",
            "the analysis was stopped: the server is shutting down",
        ),
        Err(_) => error_html(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Internal error",
            "the bot failed while analysing; try another bot",
        ),
    }
}

/// Reads, parses and analyses a game: the CPU work of an upload, on a
/// blocking thread (parsing a large upload on an async worker stalled
/// every other request). Stops when the installed stop check asks.
fn analyse_source(source: Source, label: &str, bot: &dyn euchre_bots::bot::Bot) -> Outcome {
    let text = match source {
        Source::Uploaded(text) => text,
        Source::Picked(path) => match read_games_file(&path) {
            Ok(text) => text,
            Err(message) => return Outcome::Refused(StatusCode::BAD_REQUEST, message),
        },
    };
    let game = match egn::read(&text) {
        Ok(game) => game,
        Err(error) => return Outcome::Refused(StatusCode::UNPROCESSABLE_ENTITY, error.to_string()),
    };
    let seed = 1;
    let mut analysis = analyse(&game, bot, seed);
    if euchre_bots::stop::requested() {
        return Outcome::Stopped;
    }
    // The label the client chose, never a policy file's path.
    analysis.bot = label.to_owned();
    Outcome::Done(Box::new(analysis))
}

/// A file the games directory lists: a regular file (a link is refused,
/// not followed), opened without blocking, its size checked before it is
/// read.
fn read_games_file(path: &FsPath) -> Result<String, String> {
    store::read_text_bounded_with(path, MAX_UPLOAD_BYTES as u64, store::Links::Refuse).map_err(
        |error| match error {
            store::RegularFileError::TooLarge { .. } => {
                "the game file is larger than an EGN game can be".to_owned()
            }
            store::RegularFileError::NotText { .. } => "the game file is not UTF-8 text".to_owned(),
            store::RegularFileError::NotRegular { kind, .. } => {
                format!("that game is {kind}, not a regular file, so it is not read")
            }
            store::RegularFileError::Io { source, .. } => format!("cannot read the game: {source}"),
        },
    )
}

#[derive(Debug, Deserialize)]
pub(super) struct At {
    deal: Option<String>,
    step: Option<String>,
}

pub(super) async fn show(
    State(desk): Shared,
    Path(id): Path<String>,
    Query(at): Query<At>,
) -> Response {
    let Some(analysis) = desk.get(&id) else {
        return error_html(
            StatusCode::NOT_FOUND,
            "No such analysis",
            &format!(
                "there is no analysis '{id}' on this server (analyses live in memory: a restart ends them); analyse the game again"
            ),
        );
    };
    let number = |text: Option<&str>| text.and_then(|t| t.trim().parse::<usize>().ok());
    let deal = number(at.deal.as_deref())
        .unwrap_or(0)
        .min(analysis.deals.len().saturating_sub(1));
    let step = number(at.step.as_deref());
    html(
        StatusCode::OK,
        analysis_pages::analysis_page(&id, &analysis, deal, step),
    )
}
