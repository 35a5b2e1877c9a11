//! The settings a run is made with, written once. Each profile table has
//! one options type whose every field is both a key of the table (serde)
//! and, where a user changes it from run to run, a command-line flag
//! (clap): [`RunOptions`] for `[run]`, [`SolverOptions`] for `[solver]`,
//! [`StoreOptions`] for `[store]` and [`CurveOptions`] for `[eval]`. A new
//! setting is one field; [`TrainOptions::or`] lays the flags over the
//! profile, once, and `resolve` fills what neither gives with defaults.
//!
//! A few settings live on one side only, each marked: `until`, the
//! checksum skip and the cluster's are flags of one session;
//! `checkpoint_every_minutes`, `batch`, the schedule and the LMDB cache
//! are profile keys only; and the mmap store's write-back is the `[store]`
//! table's key and a session's flag (`trainer resume` may change it).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use euchre_bots::meta::{BidChoice, BidsFor};
use euchre_bots::meta::{Leaves, UnknownLeaves};
use euchre_bots::opponent_bids::{OpponentBids, UnknownOpponentBids};
use euchre_bots::phase::{Phase, UnknownPhase};
use euchre_game::keys::play::PlayAbstraction;
use serde::{Deserialize, Deserializer};
use store::{Backend, UnknownBackend};

use super::{BidsName, ConfigError, DurationError, EncodingName, parse_duration};

/// A run's settings: the flags of `trainer train` and the `[run]` table of
/// a profile. Every field is optional; the flags win.
#[derive(Clone, Debug, Default, clap::Args, Deserialize)]
#[command(next_help_heading = "Run: the profile's [run] table")]
pub struct RunOptions {
    /// The run directory (default runs/PHASE-STORE).
    #[arg(long = "run-dir", value_name = "RUN_DIR")]
    pub dir: Option<PathBuf>,
    /// bidding, play-N (the solver owns the first N cards, 1 to 19; the rest
    /// is valued open-handed) or full-play (every decision).
    #[arg(long, value_parser = parse_phase)]
    pub phase: Option<Phase>,
    /// Where regrets live: memory (snapshot at checkpoints), lmdb, or mmap
    /// (a perfect hash over the key universe; runs with files larger than RAM).
    #[arg(long, value_parser = parse_store)]
    pub store: Option<Backend>,
    /// The seed of the run's random stream.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Card-play phases: play every bid from this policy file (export a
    /// bidding run's) instead of training bids, and train card play under
    /// those bids; without it full play trains its bids in a stage of their
    /// own first (--bids). The exported policy carries these bids. Fixed
    /// when a run starts.
    #[arg(long, value_name = "POLICY")]
    pub bidding_from: Option<PathBuf>,
    /// With --bids-for game: a score-blind bidding policy (a bidding run's
    /// export) that every bid starts from: each key's first visit is
    /// seeded with the policy's bid at the same view (a warm start, worth
    /// --warm-start, 1 by default), so that each score context learns
    /// where the score changes a bid instead of starting from uniform.
    /// Fixed when a run starts.
    #[arg(long, value_name = "POLICY")]
    pub bids_prior: Option<PathBuf>,
    /// With --leaves table-play: the full-play policy (a run's exported
    /// policy.bin) whose card play, at all four seats, values each leaf, so
    /// that the bids are refit to the card play they will be played with.
    /// Fixed when a run starts.
    #[arg(long, value_name = "POLICY")]
    pub card_play_from: Option<PathBuf>,
    /// How fixed bids (--bidding-from's, or the bidding stage's) are drawn:
    /// argmax (its most likely bid, as policy-argmax: plays; the default) or
    /// average (a draw from its average strategy, as policy: plays).
    #[arg(long, value_enum, value_name = "CHOICE")]
    pub fixed_bids: Option<BidChoice>,
    /// Card-play phases without --bidding-from: staged (full play's
    /// default: a bidding run of --bidding-iterations first, in
    /// RUN_DIR/bidding, then card play under its bids, held fixed as
    /// --fixed-bids says; one command, and the same command resumes either
    /// stage) or trained (bids trained along with card play; play-N's
    /// default). Fixed when a run starts.
    #[arg(long, value_enum, value_name = "HOW")]
    pub bids: Option<BidsName>,
    /// The length of the bidding stage (default 8,000,000: about 20
    /// minutes on 2 cores, by when its local best response is about zero).
    #[arg(long, value_name = "N")]
    pub bidding_iterations: Option<u64>,
    #[command(flatten)]
    #[serde(flatten)]
    pub session: SessionOptions,
    /// Keys of the `[run]` table that no field claims. Serde cannot deny
    /// unknown fields beside a flattened struct, so they are gathered here
    /// and a profile that has any is refused, naming them; flags never
    /// fill it.
    #[arg(skip)]
    #[serde(flatten)]
    pub unknown: BTreeMap<String, toml::Value>,
}

/// The `[solver]` table of a profile, whose settings a run is made with
/// (fixed when it starts); those a user changes from run to run are flags
/// too. A key the profile leaves out and a flag not given are both `None`,
/// so "did anyone choose this?" needs no second look at the TOML.
#[derive(Clone, Debug, Default, clap::Args, Deserialize)]
#[command(next_help_heading = "Solver: the profile's [solver] table")]
#[serde(deny_unknown_fields)]
pub struct SolverOptions {
    /// `dcfr`, `linear`, `cfr+` or `vanilla`.
    #[arg(skip)]
    pub schedule: Option<super::ScheduleName>,
    /// DCFR's exponents; read only with `schedule = "dcfr"`.
    #[arg(skip)]
    pub alpha: Option<f64>,
    #[arg(skip)]
    pub beta: Option<f64>,
    #[arg(skip)]
    pub gamma: Option<f64>,
    /// How positions past the phase are valued: open-hand (both sides play
    /// the rest perfectly, face up; pair the policy with pimc:N),
    /// pimc-calibrated (bidding only: the open-hand count mapped to what
    /// PIMC's card play scores from it; pair with pimc:N), heuristic-play
    /// (the heuristic plays the rest; pair it with heuristic) or table-play
    /// (a trained full-play table, --card-play-from, plays the rest; pair
    /// it with that table).
    #[arg(long, value_parser = parse_leaves)]
    pub leaves: Option<Leaves>,
    /// How card play is keyed: plain (the rank-compressed key),
    /// maker-seat (plus which seat made trump, not only which side; 73 M
    /// keys with a choice instead of 44 M) or trump-voids (plus which
    /// seats have shown a void in trump). Fixed when a run starts.
    #[arg(long, value_parser = parse_abstraction)]
    pub abstraction: Option<PlayAbstraction>,
    /// What the trained bids assume of the opponents' bids: equilibrium
    /// (nothing) or heuristic:SHARE (that they bid as the heuristic in that
    /// share of the walks, 0 to 1: a restricted Nash response, stronger
    /// against the heuristic, weaker against bidders unlike it). Full
    /// play's bidding stage trains with it; the default is equilibrium.
    /// Fixed when a run starts.
    #[arg(long, value_name = "MODEL", value_parser = parse_opponent_bids)]
    pub opponent_bids: Option<OpponentBids>,
    /// What card play keeps and exports: average (its strategy sums;
    /// play-N's default) or current (no sums: fewer writes, and cluster
    /// ranks train in place; the export plays card play's current
    /// strategy beside the bids' average; full play's default). Fixed when
    /// a run starts: a run made with the average resumes with it.
    #[arg(long, value_enum)]
    pub card_play_strategy: Option<super::CardPlayStrategy>,
    /// What the bids are trained to win: points (the hand's, whatever the
    /// score; the default) or game (the chance of winning a game to 10:
    /// each hand dealt at a score, one bid for each of nine score
    /// contexts, each side 1, 2 or 3+ points to go). A bidding run, or
    /// full play's bidding stage; not on the mmap store. Fixed when a run
    /// starts.
    #[arg(long, value_enum)]
    pub bids_for: Option<BidsFor>,
}

/// The `[store]` table of a profile: how records are kept. The encoding is
/// fixed when a run starts; the LMDB cache is the profile's alone. (How the
/// mmap store writes back is this table's key too, but a session's flag,
/// [`SessionOptions::mmap_writeback`], since `trainer resume` may change it.)
#[derive(Clone, Debug, Default, clap::Args, Deserialize)]
#[command(next_help_heading = "Store: the profile's [store] table")]
#[serde(deny_unknown_fields)]
pub struct StoreOptions {
    /// Record encoding: i16 (one scale per infostate, half the disk and
    /// page cache; the default for full play) or f32 (the default for
    /// bidding and play-N). Fixed when a run starts.
    #[arg(long, value_enum)]
    pub encoding: Option<EncodingName>,
    /// LMDB only: dirty records held before a batched write transaction.
    #[arg(skip)]
    pub lmdb_cache_records: Option<usize>,
    /// mmap only: `at-checkpoint`, `continuous` or `auto`.
    #[arg(skip)]
    pub mmap_writeback: Option<crate::config::MmapWriteback>,
}

/// Everything `trainer train` takes besides its profile and rules: each
/// field is a profile table (`[run]`, `[solver]`, `[store]`, `[eval]`) and
/// its flags, laid over the profile once by [`TrainOptions::or`].
#[derive(Clone, Debug, Default, clap::Args)]
pub struct TrainOptions {
    #[command(flatten)]
    pub run: RunOptions,
    #[command(flatten)]
    pub solver: SolverOptions,
    #[command(flatten)]
    pub store: StoreOptions,
    #[command(flatten)]
    pub curve: CurveOptions,
}

impl From<RunOptions> for TrainOptions {
    fn from(run: RunOptions) -> TrainOptions {
        TrainOptions {
            run,
            ..TrainOptions::default()
        }
    }
}

impl TrainOptions {
    /// These options, each missing one taken from `base`.
    #[must_use]
    pub fn or(self, base: TrainOptions) -> TrainOptions {
        TrainOptions {
            run: self.run.or(base.run),
            solver: self.solver.or(base.solver),
            store: self.store.or(base.store),
            curve: self.curve.or(base.curve),
        }
    }
}

impl SolverOptions {
    /// These options, each missing one taken from `base`.
    #[must_use]
    pub fn or(self, base: SolverOptions) -> SolverOptions {
        SolverOptions {
            schedule: self.schedule.or(base.schedule),
            alpha: self.alpha.or(base.alpha),
            beta: self.beta.or(base.beta),
            gamma: self.gamma.or(base.gamma),
            leaves: self.leaves.or(base.leaves),
            abstraction: self.abstraction.or(base.abstraction),
            opponent_bids: self.opponent_bids.or(base.opponent_bids),
            card_play_strategy: self.card_play_strategy.or(base.card_play_strategy),
            bids_for: self.bids_for.or(base.bids_for),
        }
    }
}

impl StoreOptions {
    /// These options, each missing one taken from `base`.
    #[must_use]
    pub fn or(self, base: StoreOptions) -> StoreOptions {
        StoreOptions {
            encoding: self.encoding.or(base.encoding),
            lmdb_cache_records: self.lmdb_cache_records.or(base.lmdb_cache_records),
            mmap_writeback: self.mmap_writeback.or(base.mmap_writeback),
        }
    }
}

/// How one session trains: the settings `trainer resume` may change too.
#[derive(Clone, Debug, Default, clap::Args, Deserialize)]
#[command(next_help_heading = "This session (in a profile, keys of [run])")]
pub struct SessionOptions {
    /// Worker threads (default: every core).
    #[arg(long, value_parser = super::parse_threads)]
    pub threads: Option<usize>,
    /// Iterations to run in this session. With no --iterations, --for or
    /// --until, full play trains until Ctrl-C (it checkpoints every 10
    /// minutes and on Ctrl-C; the same command resumes), and the other
    /// phases run 20,000 iterations.
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Stop once the run's total reaches this many iterations.
    #[arg(long, value_name = "TOTAL")]
    #[serde(skip)]
    pub until: Option<u64>,
    /// Training time for this session, like 90s, 45m, 2h or 1h30m
    /// (checkpoints and curve points do not count).
    #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration_flag)]
    #[serde(rename = "for", default, deserialize_with = "duration_text")]
    pub duration: Option<Duration>,
    /// Also checkpoint every N iterations (checkpoints come every 10 minutes,
    /// and on Ctrl-C, without it).
    #[arg(long = "checkpoint-every", value_name = "N")]
    pub checkpoint_every_iterations: Option<u64>,
    #[arg(skip)]
    pub checkpoint_every_minutes: Option<f64>,
    /// Iterations between progress updates and stop checks.
    #[arg(skip)]
    pub batch: Option<u64>,
    /// Export the policy at the end and print what the bot learned.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    pub export: Option<bool>,
    /// Regret-based pruning (as in Pluribus): after --prune-after, 95% of
    /// iterations skip the traverser's actions that its strategy never plays
    /// and whose regret is below -REGRET; the last two tricks are never
    /// pruned. 0 turns it off. Kept for later sessions of the run; pair it
    /// with a schedule that keeps negative regrets (linear or vanilla).
    #[arg(long, value_name = "REGRET")]
    pub prune: Option<f64>,
    /// The run's iteration from which --prune applies (default 0).
    #[arg(long, value_name = "ITERATION", requires = "prune")]
    pub prune_after: Option<u64>,
    /// Warm start: each infostate's first visit starts from the
    /// heuristic's move, worth WEIGHT (that much regret in points, and
    /// that many visits in the average strategy), instead of from
    /// uniform. Later visits wash it out. Full play's default is 1; the
    /// other phases start cold. 0 turns it off. Kept for later sessions of
    /// the run.
    #[arg(long, value_name = "WEIGHT")]
    pub warm_start: Option<f64>,
    /// Past its first N branching decisions of a walk, the traverser
    /// samples one of its actions (60% uniform, its value weighed by the
    /// inverse of its probability) instead of walking them all: cheaper
    /// iterations, noisier regrets. `off` (the default) walks them all.
    /// Kept for later sessions of the run.
    #[arg(long, value_name = "N|off")]
    pub sample_own_after: Option<String>,
    /// Train a best response to the exported policy in FILE instead of an
    /// equilibrium: in every walk the traverser's opponents play FILE's
    /// most likely action (the heuristic's on keys it never trained), and
    /// the table learns to beat it. Meant for a copy of a run
    /// (docs/training.md, "A learned best response"); `off` trains as
    /// usual again. Kept for later sessions of the run; one machine only.
    #[arg(long, value_name = "FILE|off")]
    pub best_response_to: Option<String>,
    /// Check only the store files' lengths when opening it, not their
    /// checksums (reading a full-play store whole takes seconds). Damage
    /// that keeps a file's length then goes unseen. This session only.
    #[arg(long, num_args = 0, default_missing_value = "true")]
    #[serde(skip)]
    pub skip_checksums: Option<bool>,
    /// How the mmap store writes its changes: at-checkpoint (held in
    /// memory, written at each checkpoint: no disk writes in between, but
    /// the changed pages stay resident), continuous (the kernel writes them
    /// back as it likes: for records files larger than RAM, at the cost of
    /// constant disk writes) or auto (at-checkpoint when the records file
    /// fits in half the memory; the default). This session only. (Its
    /// profile key is `[store] mmap_writeback`; this is the flag that
    /// `trainer resume` takes too.)
    #[arg(long, value_enum, value_name = "WAY")]
    #[serde(skip)]
    pub mmap_writeback: Option<crate::config::MmapWriteback>,
    #[command(flatten)]
    #[serde(skip)]
    pub cluster: ClusterOptions,
}

/// How the ranks of a run under `mpirun` work together: flags of one
/// session, never saved with the run (see docs/cluster.md).
#[derive(Clone, Debug, Default, clap::Args)]
#[command(next_help_heading = "Under mpirun")]
pub struct ClusterOptions {
    /// Under mpirun: sync the ranks' tables about every DURATION of
    /// training (default 10s); epochs adapt their iterations to it.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_flag, conflicts_with = "sync_iterations")]
    pub sync_every: Option<Duration>,
    /// Under mpirun: sync every N iterations over all the ranks instead
    /// of by time.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sync_iterations: Option<u64>,
    /// Under mpirun: what a rank's reads see between syncs. live: its own
    /// updates at once; frozen: only the table of the last sync, so that an
    /// epoch is one exact iteration over every rank's deals.
    #[arg(long, value_enum, value_name = "READS")]
    pub sync_reads: Option<super::SyncReads>,
    /// Under mpirun: when the strategy sums travel. at-checkpoint (the
    /// default): each rank holds its own until a checkpoint, a curve point
    /// or the session's end, so syncs carry regrets only; each-sync: with
    /// the regrets, every sync.
    #[arg(long, value_enum, value_name = "WHEN")]
    pub sync_strategy_sums: Option<super::SyncStrategySums>,
    /// Under mpirun: after every sync, check that every rank's replica has
    /// the same digest (reads every record; for tests and for doubt).
    #[arg(long)]
    pub sync_check: bool,
    /// Under mpirun: the memory each rank may use, like 60G (default: its
    /// machine's, or its cgroup's limit if lower). A session whose replica
    /// leaves a rank too little of it is refused before it trains, and
    /// epochs are kept short enough that every rank's changes fit.
    #[arg(long, value_name = "SIZE", value_parser = parse_size_flag)]
    pub rank_memory: Option<u64>,
    /// Under mpirun: whether each epoch trains while the last one's sync
    /// runs (on; live reads only), so that a sync costs the cores it uses
    /// rather than the time it takes, and the other ranks' updates arrive
    /// an epoch later; off (the default): training waits for every sync.
    #[arg(long, value_enum, value_name = "ON|OFF")]
    pub sync_overlap: Option<super::SyncOverlap>,
    /// Under mpirun: how long a rank may give no answer in a sync before
    /// the others name it, end, and leave the run to resume from rank 0's
    /// last checkpoint (default 1m; never less than an epoch's training).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration_flag)]
    pub rank_timeout: Option<Duration>,
}

impl ClusterOptions {
    pub fn settings(&self) -> Result<super::SyncSettings, ConfigError> {
        use super::{SyncEvery, SyncSettings};
        let defaults = SyncSettings::default();
        let every = match (self.sync_iterations, self.sync_every) {
            (Some(iterations), _) => SyncEvery::Iterations(iterations),
            (None, Some(every)) if every.is_zero() => return Err(ConfigError::ZeroSyncPeriod),
            (None, Some(every)) => SyncEvery::Time(every),
            (None, None) => defaults.every,
        };
        // A zero duration is refused as the flag is parsed.
        let rank_timeout = self.rank_timeout.unwrap_or(defaults.rank_timeout);
        Ok(SyncSettings {
            every,
            reads: self.sync_reads.unwrap_or(defaults.reads),
            strategy_sums: self.sync_strategy_sums.unwrap_or(defaults.strategy_sums),
            check: self.sync_check,
            rank_memory: self.rank_memory,
            overlap: self.sync_overlap.unwrap_or(defaults.overlap),
            rank_timeout,
        })
    }
}

/// A learning curve: the `--eval-*` flags and a profile's `[eval]` table.
#[derive(Clone, Debug, Default, clap::Args, Deserialize)]
#[command(next_help_heading = "Learning curve: the profile's [eval] table")]
#[serde(deny_unknown_fields)]
pub struct CurveOptions {
    /// Measure a learning curve: a point every DURATION of training time,
    /// written to curve.csv and drawn in curve.svg in the run directory.
    /// A new full-play run measures one by default (every 30m against the
    /// heuristic); off turns it off.
    #[arg(long = "eval-every", value_name = "DURATION", value_parser = parse_curve_interval)]
    #[serde(default, deserialize_with = "curve_interval_text")]
    pub every: Option<Duration>,
    /// The curve's fixed opponent (default pimc:20; heuristic for full
    /// play, whose budget goes to training). The policy's side plays past
    /// its phase's horizon with the same bot, so only trained decisions
    /// differ.
    #[arg(long = "eval-against", value_name = "BOT")]
    pub against: Option<String>,
    /// Hands per curve point (default 2000; 4000 for full play; even).
    #[arg(long = "eval-hands", value_name = "N")]
    pub hands: Option<u64>,
    /// The seed of every point's deals.
    #[arg(skip)]
    pub seed: Option<u64>,
}

impl RunOptions {
    /// These options, each missing one taken from `base`.
    #[must_use]
    pub fn or(self, base: RunOptions) -> RunOptions {
        RunOptions {
            dir: self.dir.or(base.dir),
            phase: self.phase.or(base.phase),
            store: self.store.or(base.store),
            seed: self.seed.or(base.seed),
            bidding_from: self.bidding_from.or(base.bidding_from),
            bids_prior: self.bids_prior.or(base.bids_prior),
            card_play_from: self.card_play_from.or(base.card_play_from),
            fixed_bids: self.fixed_bids.or(base.fixed_bids),
            bids: self.bids.or(base.bids),
            bidding_iterations: self.bidding_iterations.or(base.bidding_iterations),
            session: self.session.or(base.session),
            unknown: if self.unknown.is_empty() {
                base.unknown
            } else {
                self.unknown
            },
        }
    }

    /// Whether these options say where a card-play run's bids come from. A
    /// run directory made before staged bids were full play's default keeps
    /// its own bids when the command says nothing about them.
    pub fn chooses_bids(&self) -> bool {
        self.bids.is_some()
            || self.bidding_from.is_some()
            || self.bidding_iterations.is_some()
            || self.fixed_bids.is_some()
    }

    /// Refuses keys of a `[run]` table that name no setting.
    pub(super) fn check_known(&self, origin: &str) -> Result<(), ConfigError> {
        if self.unknown.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::UnknownRunKeys {
                origin: origin.to_owned(),
                keys: self.unknown.keys().cloned().collect(),
            })
        }
    }
}

impl SessionOptions {
    /// These options, each missing one taken from `base`.
    #[must_use]
    pub fn or(self, base: SessionOptions) -> SessionOptions {
        SessionOptions {
            threads: self.threads.or(base.threads),
            iterations: self.iterations.or(base.iterations),
            until: self.until.or(base.until),
            duration: self.duration.or(base.duration),
            checkpoint_every_iterations: self
                .checkpoint_every_iterations
                .or(base.checkpoint_every_iterations),
            checkpoint_every_minutes: self
                .checkpoint_every_minutes
                .or(base.checkpoint_every_minutes),
            batch: self.batch.or(base.batch),
            export: self.export.or(base.export),
            prune: self.prune.or(base.prune),
            prune_after: self.prune_after.or(base.prune_after),
            warm_start: self.warm_start.or(base.warm_start),
            sample_own_after: self.sample_own_after.or(base.sample_own_after),
            best_response_to: self.best_response_to.or(base.best_response_to),
            skip_checksums: self.skip_checksums.or(base.skip_checksums),
            mmap_writeback: self.mmap_writeback.or(base.mmap_writeback),
            cluster: self.cluster,
        }
    }

    /// How much opening the store checks.
    pub fn verify(&self) -> store::Verify {
        if self.skip_checksums == Some(true) {
            store::Verify::LengthsOnly
        } else {
            store::Verify::Full
        }
    }

    /// Whether these options give the session a budget of their own.
    pub fn sets_budget(&self) -> bool {
        self.iterations.is_some() || self.until.is_some() || self.duration.is_some()
    }
}

impl CurveOptions {
    /// These options, each missing one taken from `base`.
    #[must_use]
    pub fn or(self, base: CurveOptions) -> CurveOptions {
        CurveOptions {
            every: self.every.or(base.every),
            against: self.against.or(base.against),
            hands: self.hands.or(base.hands),
            seed: self.seed.or(base.seed),
        }
    }
}

/// A duration as a profile writes it: `"90s"`, `"45m"`, `"1h30m"`.
fn duration_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_duration(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

fn parse_size_flag(text: &str) -> Result<u64, super::SizeError> {
    super::parse_size(text)
}

fn parse_duration_flag(text: &str) -> Result<Duration, DurationError> {
    parse_duration(text)
}

/// A curve's interval: a duration, or `off` (held as zero) for no curve.
pub(super) fn parse_curve_interval(text: &str) -> Result<Duration, DurationError> {
    if text.trim() == "off" {
        Ok(Duration::ZERO)
    } else {
        parse_duration(text)
    }
}

fn curve_interval_text<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Duration>, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse_curve_interval(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

fn parse_phase(text: &str) -> Result<Phase, UnknownPhase> {
    text.parse()
}

fn parse_leaves(text: &str) -> Result<Leaves, UnknownLeaves> {
    text.parse()
}

fn parse_opponent_bids(text: &str) -> Result<OpponentBids, UnknownOpponentBids> {
    text.parse()
}

fn parse_abstraction(text: &str) -> Result<PlayAbstraction, String> {
    text.parse()
}

fn parse_store(text: &str) -> Result<Backend, UnknownBackend> {
    text.parse()
}
