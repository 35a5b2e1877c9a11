//! Run profiles in TOML, and the settings a run is made with.
//!
//! A profile (see `configs/`) may set any field; flags on the command line
//! override it; defaults fill the rest. Unknown keys are errors that name
//! the key, so a typo never silently falls back to a default.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use cfr::{CfrError, Schedule};
use euchre_game::engine::rules::Rules;
use serde::{Deserialize, Serialize};
use store::{Backend, RecordEncoding};
use thiserror::Error;

mod bids;
mod curve;
mod options;
mod sync;
mod writeback;
pub use bids::{BiddingStage, Bids, BidsName, DEFAULT_BIDDING_STAGE_ITERATIONS};
pub use curve::CurveSettings;
pub use options::{ClusterOptions, CurveOptions, RunOptions, SessionOptions};
pub use sync::{DEFAULT_SYNC_EVERY, SyncEvery, SyncReads, SyncSettings, SyncStrategySums};
pub use writeback::MmapWriteback;

use euchre_bots::blueprint::{BiddingBlueprint, BlueprintError};

use euchre_bots::card_play_table::CardPlayError;
use euchre_bots::leaves::LeavesError;
use euchre_bots::meta::BlueprintSource;
use euchre_bots::meta::CardPlaySource;
use euchre_bots::meta::Leaves;
use euchre_bots::opponent_bids::{OpponentBids, UnknownOpponentBids};
use euchre_bots::phase::Phase;
use euchre_bots::spec::BotSpecError;
use euchre_game::keys::play::PlayAbstraction;

/// How regrets and the average are weighted over iterations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverSettings {
    /// `dcfr`, `linear`, `cfr+` or `vanilla`.
    pub schedule: ScheduleName,
    /// DCFR exponents; read only with `schedule = "dcfr"`.
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    /// How positions past the phase's horizon are valued. Runs saved
    /// before the setting existed were open-hand.
    pub leaves: Leaves,
    /// How card play is keyed: `plain` (the rank-compressed key),
    /// `maker-seat` (plus which seat made trump) or `trump-voids` (plus
    /// which seats have shown a void in trump). Runs saved before the
    /// setting existed were plain.
    pub abstraction: PlayAbstraction,
    /// What the trained bids assume of the opponents' bids: `equilibrium`
    /// (nothing), or `heuristic:SHARE` (that they bid as the heuristic in
    /// that share of walks). Runs saved before the setting existed were
    /// equilibrium.
    #[serde(skip_serializing_if = "OpponentBids::is_equilibrium")]
    pub opponent_bids: OpponentBids,
}

/// Linear CFR by default: under sampling a key waits thousands of
/// iterations between visits, and DCFR with β = 0 halves negative regrets
/// every iteration, so by the next visit they are gone and a lucky sample
/// can swing the key. On the one-hour bidding run linear CFR was ahead of
/// DCFR(1.5, 0, 2) at every point of the curve
/// (`docs/experiments/bidding-hour.md`), and
/// regret-based pruning needs the negative regrets it keeps.
impl Default for SolverSettings {
    fn default() -> SolverSettings {
        SolverSettings {
            schedule: ScheduleName::Linear,
            alpha: 1.5,
            beta: 0.0,
            gamma: 2.0,
            leaves: Leaves::OpenHand,
            abstraction: PlayAbstraction::Plain,
            opponent_bids: OpponentBids::Equilibrium,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScheduleName {
    #[serde(rename = "dcfr")]
    Dcfr,
    #[serde(rename = "linear")]
    Linear,
    #[serde(rename = "cfr+")]
    CfrPlus,
    #[serde(rename = "vanilla")]
    Vanilla,
}

impl fmt::Display for SolverSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.schedule {
            ScheduleName::Dcfr => write!(
                f,
                "dcfr (alpha {}, beta {}, gamma {})",
                self.alpha, self.beta, self.gamma
            ),
            ScheduleName::Linear => f.write_str("linear"),
            ScheduleName::CfrPlus => f.write_str("cfr+"),
            ScheduleName::Vanilla => f.write_str("vanilla"),
        }
    }
}

impl SolverSettings {
    pub fn schedule(&self) -> Schedule {
        match self.schedule {
            ScheduleName::Dcfr => Schedule::dcfr(self.alpha, self.beta, self.gamma),
            ScheduleName::Linear => Schedule::LINEAR,
            ScheduleName::CfrPlus => Schedule::CFR_PLUS,
            ScheduleName::Vanilla => Schedule::VANILLA,
        }
    }
}

/// Store options beyond the choice of backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreSettings {
    /// `f32`, or `i16` with one scale per infostate (half the disk); when
    /// unset, the phase's default ([`EncodingName::default_for`]).
    pub encoding: Option<EncodingName>,
    /// LMDB only: dirty records held before a batched write transaction.
    pub lmdb_cache_records: usize,
    /// mmap only: `at-checkpoint`, `continuous` or `auto` (see
    /// [`MmapWriteback`]).
    pub mmap_writeback: MmapWriteback,
}

impl Default for StoreSettings {
    fn default() -> StoreSettings {
        StoreSettings {
            encoding: None,
            lmdb_cache_records: 1 << 20,
            mmap_writeback: MmapWriteback::Auto,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EncodingName {
    F32,
    I16,
}

impl fmt::Display for EncodingName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodingName::F32 => "f32",
            EncodingName::I16 => "i16",
        })
    }
}

impl EncodingName {
    /// Full play is the laptop job: 46 M infostates whose pages must stay
    /// in the page cache, so it halves its records unless told otherwise.
    /// The smaller phases keep exact f32 records.
    pub fn default_for(phase: Phase) -> EncodingName {
        match phase {
            Phase::FullPlay => EncodingName::I16,
            Phase::Bidding | Phase::Play(_) => EncodingName::F32,
        }
    }

    pub fn encoding(self) -> RecordEncoding {
        match self {
            EncodingName::F32 => RecordEncoding::F32,
            EncodingName::I16 => RecordEncoding::I16Scaled,
        }
    }
}

/// A run profile as written in TOML: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunProfile {
    #[serde(default)]
    pub run: RunOptions,
    #[serde(default)]
    pub rules: Rules,
    #[serde(default)]
    pub solver: SolverSettings,
    #[serde(default)]
    pub store: StoreSettings,
    #[serde(default)]
    pub log: LogSettings,
    /// The learning curve: `every`, `against`, `hands` (see configs/example.toml).
    #[serde(default)]
    pub eval: CurveOptions,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogSettings {
    /// `error`, `warn`, `info`, `debug` or `trace`.
    pub level: String,
    /// Also log to `train.log` in the run directory.
    pub file: bool,
    /// Draw a progress bar when stderr is a terminal.
    pub progress: bool,
}

impl Default for LogSettings {
    fn default() -> LogSettings {
        LogSettings {
            level: "info".into(),
            file: true,
            progress: true,
        }
    }
}

/// Why a profile or the flags on top of it make no valid run. Each message
/// names the setting and says what would be valid.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("cannot read the config file {}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: store::RegularFileError,
    },
    #[error(
        "{origin}, line {line}: [run] {key}: {message} (configs/example.toml documents every key)"
    )]
    RunKey {
        origin: String,
        key: String,
        line: usize,
        message: String,
    },
    #[error("{origin} is not a valid run profile (see configs/example.toml)")]
    Profile {
        origin: String,
        #[source]
        source: toml::de::Error,
    },
    #[error(
        "{origin}: [run] has no setting {}; see configs/example.toml for every key",
        keys.iter().map(|key| format!("'{key}'")).collect::<Vec<_>>().join(", ")
    )]
    UnknownRunKeys { origin: String, keys: Vec<String> },
    #[error("the [solver] table is not a valid discount schedule")]
    Schedule(#[source] CfrError),
    #[error(
        "pimc-calibrated leaves are measured at the first lead, so they value only the bidding phase's leaves; use --phase bidding, or --leaves open-hand for {phase}"
    )]
    CalibratedLeavesPhase { phase: Phase },
    #[error(
        "table-play leaves value the positions past a phase's horizon, and full play has none; train bids with --phase bidding --leaves table-play --card-play-from POLICY"
    )]
    TablePlayPhase,
    #[error(transparent)]
    Leaves(#[from] LeavesError),
    #[error(
        "--opponent-bids says what trained bids assume of the opponents' bids, but --bidding-from fixes every bid; drop one of the two (a staged or bidding run trains bids against the model)"
    )]
    OpponentBidsWithFixedBids,
    #[error("[solver] opponent_bids")]
    OpponentBids(#[from] UnknownOpponentBids),
    #[error("opening the card-play table of --card-play-from")]
    CardPlay(#[source] CardPlayError),
    #[error("an iteration budget of 0 trains nothing: give at least 1, or use --for 2h")]
    ZeroIterations,
    #[error("[run] batch must be at least 1")]
    ZeroBatch,
    #[error(
        "--checkpoint-every 0 (checkpoint_every_iterations = 0) would checkpoint after every batch; give at least 1 iteration (the default is 1,000,000; checkpoints also come every 10 minutes and at Ctrl-C)"
    )]
    ZeroCheckpointEvery,
    #[error(
        "--until 0 stops before any training; give the total the run should reach, above its current one (trainer status shows it)"
    )]
    ZeroUntil,
    #[error(
        "--threads {threads} is more than this machine can use: give 1 to {most} ({per_core} a core on its {cores} cores), or 0 for one a core"
    )]
    TooManyThreads {
        threads: usize,
        most: usize,
        per_core: usize,
        cores: usize,
    },
    #[error("--sync-every 0 would sync without training: give a period such as 10s")]
    ZeroSyncPeriod,
    #[error("[run] checkpoint_every_minutes must be a positive number of minutes, not {minutes}")]
    CheckpointMinutes { minutes: f64 },
    #[error("[log] level '{level}' is not one of error, warn, info, debug, trace")]
    LogLevel { level: String },
    #[error(
        "--prune {regret}: give how far below zero an action's regret must fall to be skipped, as a positive number (--prune 20), or 0 to turn pruning off"
    )]
    Prune { regret: f64 },
    #[error(
        "--warm-start {weight}: give what the heuristic's move weighs on a fresh infostate as a positive number (--warm-start 1), or 0 to start infostates at zero"
    )]
    WarmStart { weight: f64 },
    #[error(
        "--sample-own-after {given:?}: give how many of the traverser's branching decisions per walk it explores before it samples (--sample-own-after 2), or `off` to explore them all"
    )]
    SampleOwnAfter { given: String },
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error("--eval-hands {hands} must be an even number of at least 2: each deal is played twice")]
    EvalHands { hands: u64 },
    #[error("--eval-every must be a positive duration")]
    EvalEvery,
    #[error("--eval-against '{against}'")]
    EvalAgainst {
        against: String,
        #[source]
        source: BotSpecError,
    },
    #[error(
        "--bidding-from fixes the bids of a card-play run, but the bidding phase trains nothing else; use it with --phase full-play or play-N"
    )]
    BlueprintPhase,
    #[error("--bidding-from")]
    Blueprint(#[source] BlueprintError),
    #[error(
        "--fixed-bids says how bids are drawn from a bidding blueprint; name the blueprint with --bidding-from POLICY, or train one first with --bids staged"
    )]
    FixedBidsWithoutBlueprint,
    #[error(
        "--bids and --bidding-iterations say where a card-play run's bids come from, but the bidding phase trains only bids; use them with --phase full-play or play-N"
    )]
    BidsPhase,
    #[error(
        "--bidding-from already fixes the bids, so --bids cannot also choose them; keep one of the two"
    )]
    BidsWithBlueprint,
    #[error(
        "--bidding-iterations sets the length of a bidding stage, but this run has none (its bids come from --bidding-from, or --bids trained); drop it, or use --bids staged"
    )]
    StageWithoutStage,
    #[error(
        "--bidding-iterations 0 trains no bids; give the stage at least 1 iteration (the default is 8,000,000), or use --bids trained"
    )]
    ZeroBiddingStage,
}

/// The first key of `[run]` whose value does not read, with its line and
/// what is wrong with it.
fn run_key_error(text: &str) -> Option<(String, usize, String)> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let run = table.get("run")?.as_table()?;
    run.iter().find_map(|(key, value)| {
        let mut alone = toml::Table::new();
        alone.insert(key.clone(), value.clone());
        let error = toml::Value::Table(alone).try_into::<RunOptions>().err()?;
        Some((
            key.clone(),
            line_of_run_key(text, key),
            error.message().to_owned(),
        ))
    })
}

/// The line (from 1) where `key` is set in the `[run]` table of `text`;
/// 0 when it cannot be told (a dotted or inline form).
fn line_of_run_key(text: &str, key: &str) -> usize {
    let mut in_run = false;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_run = line == "[run]";
        } else if in_run
            && line
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return index + 1;
        }
    }
    0
}

pub fn parse_profile(text: &str, origin: &str) -> Result<RunProfile, ConfigError> {
    let mut profile: RunProfile = toml::from_str(text).map_err(|source| {
        // `[run]` is read through flattened structs, whose errors lose the
        // key and point at the table: find the key by reading each alone.
        match run_key_error(text) {
            Some((key, line, message)) => ConfigError::RunKey {
                origin: origin.to_owned(),
                key,
                line,
                message,
            },
            None => ConfigError::Profile {
                origin: origin.to_owned(),
                source,
            },
        }
    })?;
    profile.run.check_known(origin)?;
    // Whether a profile chose the opponents' bids decides between its
    // choice and the phase's default (and, on resume, the run's own), but
    // `[solver]` fills every missing field with a default. The table, parsed
    // again, says whether the key was there.
    let names_opponent_bids = toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|table| {
            table
                .get("solver")
                .and_then(toml::Value::as_table)
                .map(|solver| solver.contains_key("opponent_bids"))
        })
        .unwrap_or(false);
    if names_opponent_bids {
        profile.run.opponent_bids = profile
            .run
            .opponent_bids
            .or(Some(profile.solver.opponent_bids));
    }
    Ok(profile)
}

/// A profile is a page or two of TOML; the cap keeps a file named by
/// mistake (a device, a policy, a log) from being read whole.
pub const MAX_PROFILE_BYTES: u64 = 1 << 20;

pub fn load_profile(path: Option<&Path>) -> Result<RunProfile, ConfigError> {
    let Some(path) = path else {
        return Ok(RunProfile::default());
    };
    let text = store::read_text_bounded(path, MAX_PROFILE_BYTES).map_err(|source| {
        ConfigError::Unreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    parse_profile(&text, &path.display().to_string())
}

/// Threads a core past which a thread count is a typo, not a choice: the
/// workers only compete for the cores, and thousands of them stall the
/// machine (each also holds a stack and its own caches).
pub const MAX_THREADS_PER_CORE: usize = 8;

/// Refuses a thread count no machine of this size can use.
pub fn check_threads(threads: usize) -> Result<(), ConfigError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = MAX_THREADS_PER_CORE * cores;
    if threads > most {
        return Err(ConfigError::TooManyThreads {
            threads,
            most,
            per_core: MAX_THREADS_PER_CORE,
            cores,
        });
    }
    Ok(())
}

/// `--threads` as clap parses it: a count, bounded by [`check_threads`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let threads: usize = text
        .parse()
        .map_err(|_| format!("'{text}' is not a thread count: give 0 (one a core) or a number"))?;
    check_threads(threads).map_err(|error| error.to_string())?;
    Ok(threads)
}

/// The threads a `threads` setting asks for: 0 means every core.
pub fn worker_threads(requested: usize) -> usize {
    if requested == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        requested
    }
}

/// The rules from `path`'s `[rules]` table, or the defaults without a file.
pub fn load_rules(path: Option<&Path>) -> Result<Rules, ConfigError> {
    Ok(load_profile(path)?.rules)
}

/// What a run is, fixed when it starts: resuming with any of these changed
/// would mix two different trainings in one store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "IdentityOnDisk", into = "IdentityOnDisk")]
pub struct Identity {
    pub phase: Phase,
    pub store: Backend,
    pub rules: Rules,
    pub solver: SolverSettings,
    pub encoding: EncodingName,
    pub seed: u64,
    pub bids: Bids,
    /// The card-play table that values table-play leaves.
    pub card_play_from: Option<CardPlaySource>,
}

/// [`Identity`] as `settings.toml` holds it, the bids as two optional
/// fields, so that every run directory ever written still opens.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentityOnDisk {
    phase: Phase,
    store: Backend,
    rules: Rules,
    solver: SolverSettings,
    encoding: EncodingName,
    seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bidding_from: Option<BlueprintSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bidding_stage: Option<BiddingStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    card_play_from: Option<CardPlaySource>,
}

impl From<IdentityOnDisk> for Identity {
    fn from(disk: IdentityOnDisk) -> Identity {
        Identity {
            phase: disk.phase,
            store: disk.store,
            rules: disk.rules,
            solver: disk.solver,
            encoding: disk.encoding,
            seed: disk.seed,
            bids: bids::BidsOnDisk {
                bidding_from: disk.bidding_from,
                bidding_stage: disk.bidding_stage,
            }
            .into(),
            card_play_from: disk.card_play_from,
        }
    }
}

impl From<Identity> for IdentityOnDisk {
    fn from(identity: Identity) -> IdentityOnDisk {
        let bids = bids::BidsOnDisk::from(identity.bids);
        IdentityOnDisk {
            phase: identity.phase,
            store: identity.store,
            rules: identity.rules,
            solver: identity.solver,
            encoding: identity.encoding,
            seed: identity.seed,
            bidding_from: bids.bidding_from,
            bidding_stage: bids.bidding_stage,
            card_play_from: identity.card_play_from,
        }
    }
}

impl Identity {
    /// Each setting that differs from `other`, as "name: ours vs theirs".
    pub fn differences(&self, saved: &Identity) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |name: &str, now: String, then: String| {
            if now != then {
                out.push(format!(
                    "{name}: the run has {then}, this command asks for {now}"
                ));
            }
        };
        check("phase", self.phase.to_string(), saved.phase.to_string());
        check("store", self.store.to_string(), saved.store.to_string());
        check("rules", self.rules.to_string(), saved.rules.to_string());
        check("solver", self.solver.to_string(), saved.solver.to_string());
        check(
            "leaves",
            self.solver.leaves.to_string(),
            saved.solver.leaves.to_string(),
        );
        check(
            "play key",
            self.solver.abstraction.to_string(),
            saved.solver.abstraction.to_string(),
        );
        check(
            "opponents' bids",
            self.solver.opponent_bids.to_string(),
            saved.solver.opponent_bids.to_string(),
        );
        check(
            "store encoding",
            self.encoding.to_string(),
            saved.encoding.to_string(),
        );
        check("seed", self.seed.to_string(), saved.seed.to_string());
        let describe_stage = |stage: Option<BiddingStage>| {
            stage.map_or_else(|| "no bidding stage".to_owned(), |stage| stage.to_string())
        };
        check(
            "bids",
            describe_stage(self.bids.stage()),
            describe_stage(saved.bids.stage()),
        );
        let describe = |source: Option<&BlueprintSource>| {
            source.map_or_else(|| "bids trained by the run".to_owned(), ToString::to_string)
        };
        // A stage's blueprint is the run's own, known only once the stage
        // has ended: before that, either side may not have it yet.
        let stage_unfinished = self.bids.stage().is_some()
            && (self.bids.blueprint().is_none() || saved.bids.blueprint().is_none());
        if !stage_unfinished {
            check(
                "bidding blueprint",
                describe(self.bids.blueprint()),
                describe(saved.bids.blueprint()),
            );
        }
        let describe_table = |source: Option<&CardPlaySource>| {
            source.map_or_else(|| "no card-play table".to_owned(), ToString::to_string)
        };
        check(
            "card-play table",
            describe_table(self.card_play_from.as_ref()),
            describe_table(saved.card_play_from.as_ref()),
        );
        out
    }
}

/// How a session runs: free to change between sessions of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSettings {
    /// Worker threads; 0 means every core.
    pub threads: usize,
    /// Iterations to run in this session; `None` for no limit.
    pub iterations: Option<u64>,
    /// Stop once the run's total reaches this many iterations.
    pub until: Option<u64>,
    /// Wall-clock budget for this session.
    pub duration: Option<Duration>,
    pub checkpoint_every_iterations: u64,
    pub checkpoint_every_minutes: f64,
    /// Iterations between progress updates and stop checks.
    pub batch: u64,
    pub lmdb_cache_records: usize,
    /// How the mmap store writes its changes: this session's choice, never
    /// saved with the run.
    #[serde(skip)]
    pub mmap_writeback: MmapWriteback,
    /// Export the policy and say what it learned when the session ends.
    pub export: bool,
    pub log: LogSettings,
    /// Measure a learning curve while training; `None` for no curve.
    #[serde(default)]
    pub curve: Option<CurveSettings>,
    /// Regret-based pruning; `None` explores every action.
    #[serde(default)]
    pub pruning: Option<PruningSettings>,
    /// Fresh infostates seeded with the heuristic's move; `None` starts
    /// them at zero.
    #[serde(default)]
    pub warm_start: Option<WarmStartSettings>,
    /// The traverser samples its own actions past its first decisions;
    /// `None` explores them all.
    #[serde(default)]
    pub traverser_sampling: Option<TraverserSamplingSettings>,
    /// How much opening the store checks: this session's choice
    /// (`--skip-checksums`), never saved with the run.
    #[serde(skip)]
    pub verify: store::Verify,
    /// When the ranks sync under `mpirun`: this session's choice, never
    /// saved (a run may resume on one machine or many).
    #[serde(skip)]
    pub sync: SyncSettings,
}

/// Regret-based pruning as a run keeps it between sessions (see
/// [`cfr::pruning`]). It speeds training up and changes what it computes,
/// like the thread count, so a session may turn it on or off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PruningSettings {
    /// Actions with regret below `-below` may be skipped.
    pub below: f64,
    /// The run's iteration from which iterations may prune.
    pub after: u64,
    /// The share of those iterations that prune.
    pub share: f64,
}

/// Pluribus prunes in 95% of its iterations after the warm-up.
pub const PRUNING_SHARE: f64 = 0.95;

impl PruningSettings {
    /// `--prune REGRET` (and `--prune-after`): 0 turns pruning off.
    pub fn from_flags(
        regret: f64,
        after: Option<u64>,
    ) -> Result<Option<PruningSettings>, ConfigError> {
        if regret == 0.0 {
            return Ok(None);
        }
        if !(regret > 0.0 && regret.is_finite()) {
            return Err(ConfigError::Prune { regret });
        }
        Ok(Some(PruningSettings {
            below: regret,
            after: after.unwrap_or(0),
            share: PRUNING_SHARE,
        }))
    }

    pub fn solver(&self) -> cfr::Pruning {
        cfr::Pruning {
            after: self.after,
            share: self.share,
            threshold: -self.below,
        }
    }
}

impl fmt::Display for PruningSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.0}% of iterations after iteration {} skip actions with regret below -{}",
            100.0 * self.share,
            self.after,
            self.below
        )
    }
}

/// A warm start as a run keeps it between sessions (see
/// [`cfr::warm_start`]): each infostate's first visit is seeded with the
/// heuristic's move, worth `weight` (that much regret, in points, and that
/// many visits in the average strategy). Like pruning, it changes what is
/// computed but not what is stored, so a session may turn it on or off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmStartSettings {
    pub weight: f64,
}

/// Full play's warm start unless told otherwise: one visit's worth. Its
/// curve at equal wall time is far ahead of the cold start's
/// (docs/experiments/full-play-warm-start.md).
pub const FULL_PLAY_WARM_START: f64 = 1.0;

impl WarmStartSettings {
    /// A new run's warm start when no flag or profile sets one: full play
    /// starts from the heuristic; bidding and play-N, whose tables are
    /// small enough to visit every key often, start from zero.
    pub fn default_for(phase: Phase) -> Option<WarmStartSettings> {
        (phase == Phase::FullPlay).then_some(WarmStartSettings {
            weight: FULL_PLAY_WARM_START,
        })
    }

    /// `--warm-start WEIGHT`: 0 turns it off.
    pub fn from_flag(weight: f64) -> Result<Option<WarmStartSettings>, ConfigError> {
        if weight == 0.0 {
            return Ok(None);
        }
        if !(weight > 0.0 && weight.is_finite()) {
            return Err(ConfigError::WarmStart { weight });
        }
        Ok(Some(WarmStartSettings { weight }))
    }

    pub fn solver(&self) -> cfr::WarmStart {
        cfr::WarmStart {
            regret: self.weight,
            strategy_weight: self.weight,
        }
    }
}

impl fmt::Display for WarmStartSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "each fresh infostate starts from the heuristic's move, worth {} (regret in points, and visits in the average)",
            self.weight
        )
    }
}

/// Traverser sampling as a run keeps it between sessions (see
/// [`cfr::traverser_sampling`]): past its first `explored_decisions`
/// branching decisions of a walk, the traverser samples one action instead
/// of walking all of them. It changes what is computed but not what is
/// stored, so a session may turn it on or off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraverserSamplingSettings {
    pub explored_decisions: u32,
    /// The uniform share of the sampling distribution.
    pub exploration: f64,
}

/// Outcome sampling's usual uniform share (Lanctot et al. 2009).
pub const TRAVERSER_EXPLORATION: f64 = 0.6;

impl TraverserSamplingSettings {
    /// `--sample-own-after N`: `off` explores every decision.
    pub fn from_flag(given: &str) -> Result<Option<TraverserSamplingSettings>, ConfigError> {
        if given == "off" {
            return Ok(None);
        }
        let explored_decisions = given.parse().map_err(|_| ConfigError::SampleOwnAfter {
            given: given.to_string(),
        })?;
        Ok(Some(TraverserSamplingSettings {
            explored_decisions,
            exploration: TRAVERSER_EXPLORATION,
        }))
    }

    pub fn solver(&self) -> cfr::TraverserSampling {
        cfr::TraverserSampling {
            explored_decisions: self.explored_decisions,
            exploration: self.exploration,
        }
    }
}

impl fmt::Display for TraverserSamplingSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the traverser explores its first {} branching decisions of a walk and samples the rest ({:.0}% uniform)",
            self.explored_decisions,
            100.0 * self.exploration
        )
    }
}

/// The budget of a bidding or play-N session when neither a profile nor a
/// flag gives one: a short run that shows what the phase learns.
pub const DEFAULT_ITERATIONS: u64 = 20_000;

/// The session budget when none is given: full play is the long laptop
/// job, meant to be stopped with Ctrl-C and resumed by running the same
/// command again, so it trains until stopped; the other phases run
/// [`DEFAULT_ITERATIONS`].
pub fn default_iterations(phase: Phase) -> Option<u64> {
    match phase {
        Phase::FullPlay => None,
        Phase::Bidding | Phase::Play(_) => Some(DEFAULT_ITERATIONS),
    }
}

/// Where a phase's bids come from when nothing says: full play trains them
/// in a stage of their own first; play-N trains them with its card play.
pub fn default_bids(phase: Phase) -> BidsName {
    match phase {
        Phase::FullPlay => BidsName::Staged,
        Phase::Bidding | Phase::Play(_) => BidsName::Trained,
    }
}

/// What full play's bidding stage assumes of the opponents' bids when
/// nothing says: that they bid as the heuristic in 90% of the walks (a
/// restricted Nash response). On the 2-hour run of the user's command it
/// took the export from +0.153 to +0.216 a hand against the heuristic,
/// held PIMC-50 at about half the points (51.4%, 50.7% against 51.5%,
/// 51.6%), kept the bids' local best response about zero (−0.015 ±
/// 0.021), and gave up nothing measurable head to head against the
/// equilibrium's export (−0.007 ± 0.012):
/// docs/experiments/full-play-opponent-bids.md. Every other run, the
/// bidding phase's blueprint included, is an equilibrium unless told.
pub const STAGED_OPPONENT_BIDS: OpponentBids = OpponentBids::Heuristic { share: 0.9 };

/// What a run's trained bids assume of the opponents' when neither a flag
/// nor a profile says.
pub fn default_opponent_bids(phase: Phase, bids: &Bids) -> OpponentBids {
    match (phase, bids) {
        (Phase::FullPlay, Bids::Staged { .. }) => STAGED_OPPONENT_BIDS,
        _ => OpponentBids::Equilibrium,
    }
}

/// Resolves a profile and the flags over it into the run's identity, this
/// session's settings, and the profile's run directory.
pub fn resolve(
    profile: RunProfile,
    flags: RunOptions,
    curve_flags: CurveOptions,
) -> Result<(Identity, SessionSettings, Option<PathBuf>), ConfigError> {
    let RunProfile {
        run,
        rules,
        solver,
        store,
        log,
        eval,
    } = profile;
    let options = flags.or(run);
    let identity = identity_of(&options, rules, solver, &store)?;
    let curve = curve_flags.or(eval).settings_for_new_run(identity.phase);
    let session = session_of(&options.session, identity.phase, &store, log, curve)?;
    if let Some(curve) = &session.curve {
        curve.validate(identity.rules)?;
    }
    Ok((identity, session, options.dir))
}

/// What the run is: fixed when it starts.
fn identity_of(
    options: &RunOptions,
    rules: Rules,
    solver: SolverSettings,
    store: &StoreSettings,
) -> Result<Identity, ConfigError> {
    let phase = options.phase.unwrap_or(Phase::Bidding);
    let bids = bids_of(options, phase, rules)?;
    // A profile's `[solver] opponent_bids` reaches here as
    // `options.opponent_bids` (see `parse_profile`), so `None` means that
    // nothing chose it and the phase's default applies.
    let solver = SolverSettings {
        leaves: options.leaves.unwrap_or(solver.leaves),
        abstraction: options.abstraction.unwrap_or(solver.abstraction),
        opponent_bids: options
            .opponent_bids
            .unwrap_or_else(|| default_opponent_bids(phase, &bids)),
        ..solver
    };
    solver
        .schedule()
        .validate()
        .map_err(ConfigError::Schedule)?;
    if solver.leaves == Leaves::PimcCalibrated && phase != Phase::Bidding {
        return Err(ConfigError::CalibratedLeavesPhase { phase });
    }
    if solver.leaves == Leaves::TablePlay && phase == Phase::FullPlay {
        return Err(ConfigError::TablePlayPhase);
    }
    if !solver.opponent_bids.is_equilibrium() && options.bidding_from.is_some() {
        return Err(ConfigError::OpponentBidsWithFixedBids);
    }
    let card_play_from = options
        .card_play_from
        .as_deref()
        .map(|path| CardPlaySource::probe(path, rules))
        .transpose()
        .map_err(ConfigError::CardPlay)?;
    solver.leaves.check_table(card_play_from.is_some())?;
    Ok(Identity {
        phase,
        store: options.store.unwrap_or(Backend::Memory),
        rules,
        solver,
        encoding: options
            .encoding
            .or(store.encoding)
            .unwrap_or_else(|| EncodingName::default_for(phase)),
        seed: options.seed.unwrap_or(1),
        bids,
        card_play_from,
    })
}

/// Where the bids come from, and every combination of settings that
/// contradicts itself refused by name.
fn bids_of(options: &RunOptions, phase: Phase, rules: Rules) -> Result<Bids, ConfigError> {
    let choice = options.fixed_bids;
    let bids = options.bids;
    let stage_iterations = options.bidding_iterations;
    let blueprint = options.bidding_from.as_deref();
    if phase == Phase::Bidding {
        if blueprint.is_some() {
            return Err(ConfigError::BlueprintPhase);
        }
        if bids.is_some() || stage_iterations.is_some() {
            return Err(ConfigError::BidsPhase);
        }
    }
    match (blueprint, bids.unwrap_or_else(|| default_bids(phase))) {
        (Some(_), _) if bids.is_some() => Err(ConfigError::BidsWithBlueprint),
        (Some(_), _) if stage_iterations.is_some() => Err(ConfigError::StageWithoutStage),
        (Some(path), _) => {
            let blueprint = BiddingBlueprint::load(path, rules, choice.unwrap_or_default())
                .map_err(ConfigError::Blueprint)?;
            Ok(Bids::Fixed(blueprint.source().clone()))
        }
        (None, BidsName::Staged) => {
            let iterations = stage_iterations.unwrap_or(DEFAULT_BIDDING_STAGE_ITERATIONS);
            if iterations == 0 {
                return Err(ConfigError::ZeroBiddingStage);
            }
            Ok(Bids::Staged {
                stage: BiddingStage {
                    iterations,
                    choice: choice.unwrap_or_default(),
                },
                blueprint: None,
            })
        }
        (None, BidsName::Trained) if choice.is_some() => {
            Err(ConfigError::FixedBidsWithoutBlueprint)
        }
        (None, BidsName::Trained) if stage_iterations.is_some() => {
            Err(ConfigError::StageWithoutStage)
        }
        (None, BidsName::Trained) => Ok(Bids::Trained),
    }
}

/// How this session trains.
fn session_of(
    options: &SessionOptions,
    phase: Phase,
    store: &StoreSettings,
    log: LogSettings,
    curve: Option<CurveSettings>,
) -> Result<SessionSettings, ConfigError> {
    let mut iterations = options.iterations;
    if iterations == Some(0) {
        return Err(ConfigError::ZeroIterations);
    }
    if !options.sets_budget() {
        iterations = default_iterations(phase);
    }
    let batch = options.batch.unwrap_or(1000);
    if batch == 0 {
        return Err(ConfigError::ZeroBatch);
    }
    if options.checkpoint_every_iterations == Some(0) {
        return Err(ConfigError::ZeroCheckpointEvery);
    }
    if options.until == Some(0) {
        return Err(ConfigError::ZeroUntil);
    }
    if let Some(threads) = options.threads {
        check_threads(threads)?;
    }
    let minutes = options.checkpoint_every_minutes.unwrap_or(10.0);
    if !(minutes > 0.0 && minutes.is_finite()) {
        return Err(ConfigError::CheckpointMinutes { minutes });
    }
    if !["error", "warn", "info", "debug", "trace"].contains(&log.level.as_str()) {
        return Err(ConfigError::LogLevel { level: log.level });
    }
    Ok(SessionSettings {
        threads: options.threads.unwrap_or(0),
        iterations,
        until: options.until,
        duration: options.duration,
        checkpoint_every_iterations: options.checkpoint_every_iterations.unwrap_or(1_000_000),
        checkpoint_every_minutes: minutes,
        batch,
        lmdb_cache_records: store.lmdb_cache_records.max(1024),
        mmap_writeback: options.mmap_writeback.unwrap_or(store.mmap_writeback),
        export: options.export.unwrap_or(false),
        log,
        curve,
        pruning: match options.prune {
            Some(regret) => PruningSettings::from_flags(regret, options.prune_after)?,
            None => None,
        },
        warm_start: match options.warm_start {
            Some(weight) => WarmStartSettings::from_flag(weight)?,
            None => WarmStartSettings::default_for(phase),
        },
        traverser_sampling: match &options.sample_own_after {
            Some(given) => TraverserSamplingSettings::from_flag(given)?,
            None => None,
        },
        verify: options.verify(),
        sync: options.cluster.settings()?,
    })
}

impl SessionSettings {
    /// A resumed run's saved session with this command's flags over it:
    /// threads, a new budget (all three limits together), checkpoints,
    /// export, pruning, the warm start, traverser sampling and the curve.
    pub fn with_flags(
        mut self,
        flags: &SessionOptions,
        curve_flags: CurveOptions,
    ) -> Result<SessionSettings, ConfigError> {
        if let Some(threads) = flags.threads {
            self.threads = threads;
        }
        if flags.sets_budget() {
            self.iterations = flags.iterations;
            self.until = flags.until;
            self.duration = flags.duration;
        }
        if let Some(every) = flags.checkpoint_every_iterations {
            self.checkpoint_every_iterations = every.max(1);
        }
        self.export |= flags.export.unwrap_or(false);
        if let Some(regret) = flags.prune {
            self.pruning = PruningSettings::from_flags(regret, flags.prune_after)?;
        }
        if let Some(weight) = flags.warm_start {
            self.warm_start = WarmStartSettings::from_flag(weight)?;
        }
        if let Some(given) = &flags.sample_own_after {
            self.traverser_sampling = TraverserSamplingSettings::from_flag(given)?;
        }
        self.curve = curve_flags.or(self.curve.take().into()).settings();
        self.verify = flags.verify();
        self.mmap_writeback = flags.mmap_writeback.unwrap_or_default();
        self.sync = flags.cluster.settings()?;
        Ok(self)
    }
}

/// Hands per learning-curve point unless a flag or profile says otherwise.
pub const DEFAULT_EVAL_HANDS: u64 = 2000;
/// The learning curve's opponent unless a flag or profile says otherwise.
pub const DEFAULT_EVAL_AGAINST: &str = "pimc:20";
/// A full-play run's curve unless told otherwise: a point every half hour
/// against the heuristic, which costs seconds where PIMC would cost
/// minutes, so `trainer status` and the runs page show every long run's
/// strength without taking its training time.
pub const FULL_PLAY_EVAL_EVERY: Duration = Duration::from_secs(30 * 60);
pub const FULL_PLAY_EVAL_AGAINST: &str = "heuristic";
pub const FULL_PLAY_EVAL_HANDS: u64 = 4000;

impl CurveOptions {
    /// The curve these options ask for: one exists when they give an
    /// interval other than `off`, and defaults fill the rest.
    pub fn settings(self) -> Option<CurveSettings> {
        self.settings_with(DEFAULT_EVAL_AGAINST, DEFAULT_EVAL_HANDS)
    }

    /// The curve of a new run of `phase`: full play measures one unless
    /// the options turn it off (`--eval-every off`). A resumed run keeps
    /// what it was started with ([`CurveOptions::settings`]).
    pub fn settings_for_new_run(mut self, phase: Phase) -> Option<CurveSettings> {
        if phase != Phase::FullPlay {
            return self.settings();
        }
        self.every.get_or_insert(FULL_PLAY_EVAL_EVERY);
        self.settings_with(FULL_PLAY_EVAL_AGAINST, FULL_PLAY_EVAL_HANDS)
    }

    fn settings_with(self, against: &str, hands: u64) -> Option<CurveSettings> {
        let every = self.every.filter(|every| !every.is_zero())?;
        Some(CurveSettings {
            every,
            against: self.against.unwrap_or_else(|| against.to_owned()),
            hands: self.hands.unwrap_or(hands),
            seed: self.seed.unwrap_or(1),
        })
    }
}

impl From<Option<CurveSettings>> for CurveOptions {
    /// The options a saved curve was made with, for a resumed run's flags
    /// to lay themselves over.
    fn from(saved: Option<CurveSettings>) -> CurveOptions {
        saved.map_or_else(CurveOptions::default, |curve| CurveOptions {
            every: Some(curve.every),
            against: Some(curve.against),
            hands: Some(curve.hands),
            seed: Some(curve.seed),
        })
    }
}

/// Parses `90s`, `45m`, `2h`, `1h30m` or `1d`.
/// A duration that does not parse, with how to write one.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{text}' is not a duration: {hint}")]
pub struct DurationError {
    pub text: String,
    pub hint: &'static str,
}

pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    const UNITS: &str = "use a number with s, m, h or d, like 90s, 45m or 2h";
    let invalid = |hint| DurationError {
        text: text.to_owned(),
        hint,
    };
    let mut seconds = 0u64;
    let mut digits = String::new();
    let mut any = false;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(invalid(UNITS)),
        };
        let value: u64 = digits
            .parse()
            .map_err(|_| invalid("put a number before each unit, like 1h30m"))?;
        seconds = value
            .checked_mul(unit)
            .and_then(|more| seconds.checked_add(more))
            .ok_or_else(|| invalid("it is too long; give at most a few years"))?;
        digits.clear();
        any = true;
    }
    if !digits.is_empty() || !any || seconds == 0 {
        return Err(invalid(UNITS));
    }
    Ok(Duration::from_secs(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_bots::meta::BidChoice;

    fn resolve_flags(
        profile: RunProfile,
        flags: RunOptions,
    ) -> Result<(Identity, SessionSettings, Option<PathBuf>), ConfigError> {
        resolve(profile, flags, CurveOptions::default())
    }

    /// The message with every cause after it, as the binary prints it.
    fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            text = format!("{text}: {cause}");
            source = cause.source();
        }
        text
    }

    #[test]
    fn every_shipped_profile_parses() {
        for (name, text) in [
            ("example", include_str!("../../../../configs/example.toml")),
            ("quick", include_str!("../../../../configs/quick.toml")),
            ("bidding", include_str!("../../../../configs/bidding.toml")),
            ("play-2", include_str!("../../../../configs/play-2.toml")),
            (
                "full-play",
                include_str!("../../../../configs/full-play.toml"),
            ),
            (
                "bids-20m",
                include_str!("../../../../configs/bids-20m.toml"),
            ),
        ] {
            let profile = parse_profile(text, name).unwrap();
            resolve_flags(profile, RunOptions::default()).unwrap();
        }
        // Step 2 of fixed-bid full play needs step 1's policy: without it,
        // the profile parses and the error names the missing file.
        let text = include_str!("../../../../configs/full-play-fixed-bids.toml");
        let profile = parse_profile(text, "full-play-fixed-bids").unwrap();
        let error = resolve_flags(profile, RunOptions::default()).unwrap_err();
        assert!(
            chain(&error).contains("runs/bids-20m/policy.bin"),
            "{}",
            chain(&error)
        );
    }

    #[test]
    fn unknown_keys_are_named() {
        let error = parse_profile("[rules]\nstick_the_deler = true\n", "test.toml").unwrap_err();
        let message = chain(&error);
        assert!(message.contains("stick_the_deler"), "{message}");
        assert!(message.contains("test.toml"), "{message}");
        let error = parse_profile("[rulez]\n", "test.toml").unwrap_err();
        assert!(chain(&error).contains("rulez"));
        let error = parse_profile("[rules]\nlone_defender = 3\n", "test.toml").unwrap_err();
        assert!(chain(&error).contains("lone_defender"));
        let error = parse_profile("[run]\nphase = \"play-40\"\n", "test.toml").unwrap_err();
        assert!(chain(&error).contains("play-N"), "{error:?}");
        let error = parse_profile("[run]\nstore = \"redis\"\n", "test.toml").unwrap_err();
        assert!(chain(&error).contains("redis"), "{error:?}");
        let error = parse_profile("[solver]\nschedule = \"dcfr\"\nalpa = 1\n", "t").unwrap_err();
        assert!(chain(&error).contains("alpa"), "{error:?}");
    }

    #[test]
    fn flags_override_the_profile() {
        let profile = parse_profile(
            "[run]\nphase = \"play-2\"\nstore = \"lmdb\"\nthreads = 2\nseed = 5\n",
            "t",
        )
        .unwrap();
        let flags = RunOptions {
            store: Some(Backend::Mmap),
            seed: Some(9),
            ..RunOptions::default()
        };
        let (identity, session, _) = resolve_flags(profile, flags).unwrap();
        assert_eq!(identity.phase, Phase::Play(2));
        assert_eq!(identity.store, Backend::Mmap);
        assert_eq!(identity.seed, 9);
        assert_eq!(session.threads, 2);
    }

    #[test]
    fn the_bare_full_play_command_is_the_laptop_profile() {
        let bare = RunOptions {
            phase: Some(Phase::FullPlay),
            store: Some(Backend::Mmap),
            ..RunOptions::default()
        };
        let (identity, session, dir) = resolve_flags(RunProfile::default(), bare).unwrap();
        assert_eq!(identity.encoding, EncodingName::I16);
        assert_eq!(
            identity.bids.stage(),
            Some(BiddingStage {
                iterations: DEFAULT_BIDDING_STAGE_ITERATIONS,
                choice: BidChoice::Argmax
            }),
            "full play trains its bids in a stage of their own first"
        );
        assert_eq!(session.iterations, None, "full play trains until stopped");
        assert_eq!((session.until, session.duration), (None, None));
        assert_eq!(dir, None, "the default run directory, runs/full-play-mmap");

        let profile =
            parse_profile(include_str!("../../../../configs/full-play.toml"), "f").unwrap();
        let (profile_identity, profile_session, profile_dir) =
            resolve_flags(profile, RunOptions::default()).unwrap();
        assert_eq!(profile_identity, identity);
        assert_eq!(profile_session, session);
        assert_eq!(
            profile_dir.as_deref(),
            Some(Path::new("runs/full-play-mmap"))
        );

        let (bidding, bidding_session, _) =
            resolve_flags(RunProfile::default(), RunOptions::default()).unwrap();
        assert_eq!(bidding.encoding, EncodingName::F32);
        assert_eq!(bidding_session.iterations, Some(DEFAULT_ITERATIONS));

        let f32_full_play = RunOptions {
            phase: Some(Phase::FullPlay),
            encoding: Some(EncodingName::F32),
            ..RunOptions::default()
        };
        let (identity, _, _) = resolve_flags(RunProfile::default(), f32_full_play).unwrap();
        assert_eq!(identity.encoding, EncodingName::F32);
        let profile = parse_profile(
            "[run]\nphase = \"full-play\"\n[store]\nencoding = \"f32\"\n",
            "t",
        );
        let (identity, _, _) = resolve_flags(profile.unwrap(), RunOptions::default()).unwrap();
        assert_eq!(identity.encoding, EncodingName::F32);
    }

    /// Full play's staged bids model the heuristic's unless a flag or a
    /// profile says otherwise; every other run's bids are an equilibrium,
    /// and fixed bids, which train nothing, are never modelled.
    #[test]
    fn only_full_plays_bidding_stage_models_the_heuristics_bids_by_default() {
        let opponents = |profile: &str, flags: RunOptions| {
            let profile = parse_profile(profile, "t").unwrap();
            resolve_flags(profile, flags)
                .unwrap()
                .0
                .solver
                .opponent_bids
        };
        let phase = |phase: Phase| RunOptions {
            phase: Some(phase),
            ..RunOptions::default()
        };
        assert_eq!(opponents("", phase(Phase::FullPlay)), STAGED_OPPONENT_BIDS);
        assert_eq!(
            opponents("", phase(Phase::Bidding)),
            OpponentBids::Equilibrium
        );
        assert_eq!(
            opponents("", phase(Phase::Play(2))),
            OpponentBids::Equilibrium
        );
        let joint = RunOptions {
            bids: Some(BidsName::Trained),
            ..phase(Phase::FullPlay)
        };
        assert_eq!(opponents("", joint), OpponentBids::Equilibrium);
        // A profile's choice is a choice, even of the equilibrium; a flag
        // overrides it.
        let equilibrium = "[solver]\nopponent_bids = \"equilibrium\"\n";
        assert_eq!(
            opponents(equilibrium, phase(Phase::FullPlay)),
            OpponentBids::Equilibrium
        );
        let flagged = RunOptions {
            opponent_bids: Some(OpponentBids::Heuristic { share: 0.5 }),
            ..phase(Phase::FullPlay)
        };
        assert_eq!(
            opponents(equilibrium, flagged),
            OpponentBids::Heuristic { share: 0.5 }
        );
        // A `[solver]` table without the key leaves the default.
        assert_eq!(
            opponents("[solver]\nschedule = \"linear\"\n", phase(Phase::FullPlay)),
            STAGED_OPPONENT_BIDS
        );
    }

    #[test]
    fn bad_values_are_explained() {
        // Refused when the profile is read, or when it is resolved.
        let bad = |text: &str| match parse_profile(text, "t") {
            Ok(profile) => chain(&resolve_flags(profile, RunOptions::default()).unwrap_err()),
            Err(error) => chain(&error),
        };
        // The exponents are DCFR's; linear CFR, the default, has none.
        assert!(bad("[solver]\nschedule = \"dcfr\"\nalpha = -3\n").contains("schedule"));
        assert!(bad("[run]\nprune = -3\n").contains("positive number"));
        assert!(bad("[run]\nfor = \"soon\"\n").contains("duration"));
        assert!(bad("[run]\niterations = 0\n").contains("at least 1"));
        assert!(bad("[log]\nlevel = \"loud\"\n").contains("loud"));
        assert!(
            bad("[solver]\nopponent_bids = \"heuristic:7\"\n")
                .contains("'heuristic:7' is not an opponent-bids setting")
        );
        // Keys the [run] table once took and ignored are now refused by name.
        let message = bad("[run]\nleaves = \"heuristic-play\"\nthreds = 2\n");
        assert!(
            message.contains("'leaves'") && message.contains("'threds'"),
            "{message}"
        );
        assert!(message.contains("configs/example.toml"), "{message}");
    }

    #[test]
    fn where_the_bids_come_from_is_resolved_and_conflicts_are_explained() {
        let with = |phase: Phase, flags: RunOptions| {
            resolve_flags(
                RunProfile::default(),
                RunOptions {
                    phase: Some(phase),
                    ..flags
                },
            )
        };
        let stage = |flags: RunOptions| with(Phase::FullPlay, flags).unwrap().0.bids.stage();
        assert_eq!(
            stage(RunOptions {
                bidding_iterations: Some(5000),
                fixed_bids: Some(BidChoice::Average),
                ..RunOptions::default()
            }),
            Some(BiddingStage {
                iterations: 5000,
                choice: BidChoice::Average
            })
        );
        assert_eq!(
            stage(RunOptions {
                bids: Some(BidsName::Trained),
                ..RunOptions::default()
            }),
            None
        );
        let play = with(Phase::Play(2), RunOptions::default()).unwrap().0;
        assert_eq!(
            play.bids,
            Bids::Trained,
            "play-N trains its bids unless asked"
        );
        let staged_play = with(
            Phase::Play(2),
            RunOptions {
                bids: Some(BidsName::Staged),
                ..RunOptions::default()
            },
        );
        assert!(staged_play.unwrap().0.bids.stage().is_some());
        let profile = parse_profile("[run]\nphase = \"full-play\"\nbids = \"trained\"\n", "t");
        let (identity, _, _) = resolve_flags(profile.unwrap(), RunOptions::default()).unwrap();
        assert_eq!(identity.bids, Bids::Trained);

        let refused = |phase: Phase, flags: RunOptions| chain(&with(phase, flags).unwrap_err());
        let message = refused(
            Phase::Bidding,
            RunOptions {
                bids: Some(BidsName::Staged),
                ..RunOptions::default()
            },
        );
        assert!(
            message.contains("the bidding phase trains only bids"),
            "{message}"
        );
        let message = refused(
            Phase::FullPlay,
            RunOptions {
                bids: Some(BidsName::Staged),
                bidding_from: Some(PathBuf::from("any.bin")),
                ..RunOptions::default()
            },
        );
        assert!(message.contains("keep one of the two"), "{message}");
        let message = refused(
            Phase::FullPlay,
            RunOptions {
                bids: Some(BidsName::Trained),
                bidding_iterations: Some(100),
                ..RunOptions::default()
            },
        );
        assert!(message.contains("this run has none"), "{message}");
        let message = refused(
            Phase::FullPlay,
            RunOptions {
                bidding_iterations: Some(0),
                ..RunOptions::default()
            },
        );
        assert!(message.contains("at least 1 iteration"), "{message}");
        let message = refused(
            Phase::FullPlay,
            RunOptions {
                bids: Some(BidsName::Trained),
                fixed_bids: Some(BidChoice::Argmax),
                ..RunOptions::default()
            },
        );
        assert!(message.contains("--bids staged"), "{message}");
    }

    /// `settings.toml` keeps the two bid fields it has always had, so run
    /// directories made before `Bids` existed open unchanged.
    #[test]
    fn the_bids_are_saved_as_they_always_were() {
        let base = resolve_flags(RunProfile::default(), RunOptions::default())
            .unwrap()
            .0;
        let source = BlueprintSource {
            path: PathBuf::from("/runs/x/bidding/policy.bin"),
            checksum: 7,
            iterations: 100,
            choice: BidChoice::Argmax,
        };
        let stage = BiddingStage {
            iterations: 100,
            choice: BidChoice::Argmax,
        };
        for (bids, from, staged) in [
            (Bids::Trained, false, false),
            (Bids::Fixed(source.clone()), true, false),
            (
                Bids::Staged {
                    stage,
                    blueprint: None,
                },
                false,
                true,
            ),
            (
                Bids::Staged {
                    stage,
                    blueprint: Some(source.clone()),
                },
                true,
                true,
            ),
        ] {
            let identity = Identity {
                bids,
                ..base.clone()
            };
            let text = toml::to_string(&identity).unwrap();
            assert_eq!(text.contains("[bidding_from]"), from, "{text}");
            assert_eq!(text.contains("[bidding_stage]"), staged, "{text}");
            assert_eq!(toml::from_str::<Identity>(&text).unwrap(), identity);
        }
    }

    #[test]
    fn a_staged_run_names_a_changed_stage_but_not_its_own_blueprint_before_it_exists() {
        let staged = |iterations| Identity {
            bids: Bids::Staged {
                stage: BiddingStage {
                    iterations,
                    choice: BidChoice::Argmax,
                },
                blueprint: None,
            },
            ..resolve_flags(RunProfile::default(), RunOptions::default())
                .unwrap()
                .0
        };
        let mut finished = staged(100);
        if let Bids::Staged { blueprint, .. } = &mut finished.bids {
            *blueprint = Some(BlueprintSource {
                path: PathBuf::from("/runs/x/bidding/policy.bin"),
                checksum: 7,
                iterations: 100,
                choice: BidChoice::Argmax,
            });
        }
        assert!(staged(100).differences(&finished).is_empty());
        assert!(finished.differences(&staged(100)).is_empty());
        let changed = staged(200).differences(&finished);
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(changed[0].starts_with("bids: the run has a bidding stage of 100 iterations"));
        let mut joint = staged(100);
        joint.bids = Bids::Trained;
        assert_eq!(
            joint.differences(&finished).len(),
            2,
            "the stage and its blueprint"
        );
    }

    #[test]
    fn a_new_full_play_run_measures_a_curve_unless_told_not_to() {
        let curve = |phase: Phase, every: Option<&str>| {
            let every = every.map(|text| options::parse_curve_interval(text).unwrap());
            resolve(
                RunProfile::default(),
                RunOptions {
                    phase: Some(phase),
                    ..RunOptions::default()
                },
                CurveOptions {
                    every,
                    ..CurveOptions::default()
                },
            )
            .unwrap()
            .1
            .curve
        };
        let default = curve(Phase::FullPlay, None).unwrap();
        assert_eq!(default.every, FULL_PLAY_EVAL_EVERY);
        assert_eq!(default.against, "heuristic");
        assert_eq!(default.hands, FULL_PLAY_EVAL_HANDS);
        assert_eq!(
            curve(Phase::FullPlay, Some("10m")).unwrap().every,
            Duration::from_secs(600)
        );
        assert_eq!(curve(Phase::FullPlay, Some("off")), None);
        assert_eq!(curve(Phase::Bidding, None), None);
        assert_eq!(
            curve(Phase::Bidding, Some("5m")).unwrap().against,
            DEFAULT_EVAL_AGAINST
        );
    }

    #[test]
    fn traverser_sampling_is_a_count_of_explored_decisions_or_off() {
        let sample = |given: &str| {
            resolve_flags(
                RunProfile::default(),
                RunOptions {
                    phase: Some(Phase::FullPlay),
                    session: SessionOptions {
                        sample_own_after: Some(given.to_string()),
                        ..SessionOptions::default()
                    },
                    ..RunOptions::default()
                },
            )
            .map(|(_, session, _)| session.traverser_sampling)
        };
        assert_eq!(
            sample("2").unwrap(),
            Some(TraverserSamplingSettings {
                explored_decisions: 2,
                exploration: TRAVERSER_EXPLORATION
            })
        );
        assert_eq!(sample("off").unwrap(), None);
        let error = sample("two").unwrap_err().to_string();
        assert!(error.contains("--sample-own-after \"two\""), "{error}");
        assert!(error.contains("`off`"), "{error}");
        // Off unless asked for, in every phase.
        let default = resolve_flags(
            RunProfile::default(),
            RunOptions {
                phase: Some(Phase::FullPlay),
                ..RunOptions::default()
            },
        )
        .unwrap()
        .1;
        assert_eq!(default.traverser_sampling, None);
        // A resumed run keeps it unless the session's flag says otherwise.
        let kept = SessionSettings {
            traverser_sampling: sample("1").unwrap(),
            ..default
        };
        let resumed = kept
            .clone()
            .with_flags(&SessionOptions::default(), CurveOptions::default())
            .unwrap();
        assert_eq!(resumed.traverser_sampling, kept.traverser_sampling);
        let off = kept
            .with_flags(
                &SessionOptions {
                    sample_own_after: Some("off".into()),
                    ..SessionOptions::default()
                },
                CurveOptions::default(),
            )
            .unwrap();
        assert_eq!(off.traverser_sampling, None);
    }

    #[test]
    fn a_warm_start_is_a_positive_weight_or_off() {
        let warm = |weight| {
            resolve_flags(
                RunProfile::default(),
                RunOptions {
                    session: SessionOptions {
                        warm_start: Some(weight),
                        ..SessionOptions::default()
                    },
                    ..RunOptions::default()
                },
            )
            .map(|(_, session, _)| session.warm_start)
        };
        assert_eq!(warm(2.0).unwrap(), Some(WarmStartSettings { weight: 2.0 }));
        assert_eq!(warm(0.0).unwrap(), None);
        // By default full play starts warm and the other phases cold.
        let default = |phase| {
            resolve_flags(
                RunProfile::default(),
                RunOptions {
                    phase: Some(phase),
                    ..RunOptions::default()
                },
            )
            .unwrap()
            .1
            .warm_start
        };
        assert_eq!(
            default(Phase::FullPlay),
            Some(WarmStartSettings {
                weight: FULL_PLAY_WARM_START
            })
        );
        assert_eq!(default(Phase::Bidding), None);
        assert_eq!(default(Phase::Play(3)), None);
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let message = warm(bad).unwrap_err().to_string();
            assert!(message.contains("--warm-start"), "{message}");
        }
    }

    #[test]
    fn durations_parse() {
        assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
        assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("2d").unwrap(), Duration::from_secs(172_800));
        for bad in ["", "5", "h", "3x", "0s", "9999999999999999999h"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }
}
