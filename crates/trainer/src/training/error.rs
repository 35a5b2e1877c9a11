//! What can stop a training session, each with the file or setting at fault
//! and what to do about it.

use std::path::PathBuf;

use cfr::CfrError;
use store::{Backend, StoreError};
use thiserror::Error;

use euchre_bots::blueprint::BlueprintError;
use euchre_bots::card_play_table::CardPlayError;
use euchre_bots::leaves::LeavesError;
use euchre_bots::policy_file::PolicyFileError;
use euchre_bots::spec::BotSpecError;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum TrainingError {
    #[error(
        "{} was trained to iteration {iterations} by a build whose store (format {version}) stamps records with exact iterations; this build reads stamps from 2,147,483,648 on as steps of 1,024 iterations, so it would discount this run's records wrongly. Resume it with the build that wrote it",
        dir.display()
    )]
    StampsPastOldFormat {
        dir: PathBuf,
        iterations: u64,
        version: u32,
    },
    #[error(
        "{} holds no run (no settings.toml); start one with `trainer train --run-dir {}`",
        dir.display(),
        dir.display()
    )]
    NoRun { dir: PathBuf },
    #[error(
        "{} is in use by another trainer (pid {pid}); stop that process first, or use another --run-dir",
        dir.display()
    )]
    RunLocked { dir: PathBuf, pid: String },
    #[error(
        "{} has no checkpoint yet; train until one is written, then export",
        dir.display()
    )]
    NoCheckpoint { dir: PathBuf },
    #[error(
        "{} keeps no average in card play (it was started with --card-play-strategy current), so it has no average strategy to export; export without --strategy (its bids' average and card play's current strategy) or with --strategy current",
        dir.display()
    )]
    NoCardPlayAverage { dir: PathBuf },
    #[error(
        "{} has not started card play: its bids are still training in {} (export that run for the bids alone, or train on until card play has a checkpoint)",
        dir.display(),
        stage_dir.display()
    )]
    BidsStillTraining { dir: PathBuf, stage_dir: PathBuf },
    #[error(
        "{} is read-only, so the policy cannot be written into it; pass --out FILE to write it elsewhere",
        dir.display()
    )]
    ReadOnlyRunDir { dir: PathBuf },
    #[error("writing the policy file")]
    WritePolicy(#[source] PolicyFileError),
    #[error("reading back the exported policy {}", path.display())]
    ReadBackPolicy {
        path: PathBuf,
        #[source]
        source: PolicyFileError,
    },
    #[error("{} does not read back as written; the disk may be failing", path.display())]
    PolicyReadsBackWrong { path: PathBuf },
    /// Taking the run's lock or writing one of its files failed; the store's
    /// message names the file and the remedy (another trainer, a full disk).
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("opening the {store} store in {}", dir.display())]
    OpenStore {
        store: Backend,
        dir: PathBuf,
        #[source]
        source: StoreError,
    },
    #[error("reading the progress recorded in {}'s store manifest", dir.display())]
    Progress {
        dir: PathBuf,
        #[source]
        source: StoreError,
    },
    #[error("recording the run's progress")]
    RecordProgress(#[source] StoreError),
    #[error("writing a checkpoint")]
    Checkpoint(#[source] StoreError),
    #[error(
        "{} holds a run made with other settings:\n  - {}\nUse `trainer resume --run-dir {}` to continue it as it was, or pick a new --run-dir",
        dir.display(),
        differences.join("\n  - "),
        dir.display()
    )]
    OtherSettings {
        dir: PathBuf,
        differences: Vec<String>,
    },
    #[error(
        "the store in {} was trained by a run with other settings ({}): it is another run's store, or the run's settings.toml was replaced; put the run's own store or settings back, or start a new run directory",
        dir.display(),
        differences.join("; ")
    )]
    StoreOfOtherRun {
        dir: PathBuf,
        differences: Vec<String>,
    },
    #[error("serialising the settings")]
    EncodeSettings(#[source] toml::ser::Error),
    #[error(
        "{} does not parse: it was edited or damaged; restore it or start a new run directory",
        path.display()
    )]
    Settings {
        path: PathBuf,
        #[source]
        source: toml::de::Error,
    },
    #[error("cannot read {}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}", path.display())]
    Unwritable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Solver(#[from] CfrError),
    #[error(
        "{}'s bids are trained in a stage of their own first, and that stage has not ended; run `trainer train` or `trainer resume` on it, which finish the stage before card play",
        dir.display()
    )]
    StageUnfinished { dir: PathBuf },
    #[error("opening the run's bidding blueprint")]
    Blueprint(#[source] BlueprintError),
    #[error("opening the run's card-play table")]
    CardPlay(#[source] CardPlayError),
    #[error(transparent)]
    Leaves(#[from] LeavesError),
    #[error(
        "table-play leaves are trained on one machine only: every rank would need the card-play table; run this bidding run without mpirun"
    )]
    TablePlayOnCluster,
    #[error(
        "a prior for bids for the game (--bids-prior) is trained on one machine only: every rank would need its file; run this bidding run without mpirun, or without the prior"
    )]
    BidsPriorOnCluster,
    #[error(
        "a best response (--best-response-to) is trained on one machine only: every rank would need the policy it answers; run it without mpirun"
    )]
    BestResponseOnCluster,
    #[error(
        "a best response (--best-response-to) models every opponent's decision, and this run's bids already model the opponents' as {opponent_bids}; train the best response on a run with equilibrium opponents' bids"
    )]
    BestResponseWithOpponentBids { opponent_bids: String },
    #[error("opening the policy to train a best response to, {}", path.display())]
    BestResponsePolicy {
        path: PathBuf,
        #[source]
        source: PolicyFileError,
    },
    #[error(
        "{} was trained under other rules than this run ({policy} against {run}); a best response needs a policy of the same game",
        path.display()
    )]
    BestResponseRules {
        path: PathBuf,
        policy: String,
        run: String,
    },
    #[error("exporting the policy to measure")]
    ExportForCurve(#[source] PolicyFileError),
    #[error("seating the curve's bots")]
    CurveBots(#[from] BotSpecError),
    #[error("starting the match's threads")]
    Threads(#[source] rayon::ThreadPoolBuildError),
    #[error(
        "{} line {line} is not a curve point: '{text}'; fix or delete the line",
        path.display()
    )]
    CurveLine {
        path: PathBuf,
        line: usize,
        text: String,
    },
    #[error("cannot open the log file {}", path.display())]
    LogFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot install the handler of Ctrl-C and the other stop signals")]
    Signals(#[source] std::io::Error),
    #[error("cannot draw {}: {reason}", path.display())]
    Draw { path: PathBuf, reason: String },
    #[error(transparent)]
    Collective(#[from] cfr::distributed::CollectiveError),
    #[error("{0}")]
    Cluster(String),
}
