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

mod curve;
pub use curve::CurveSettings;

use euchre_bots::blueprint::{BidChoice, BiddingBlueprint, BlueprintError, BlueprintSource};
use euchre_bots::leaves::Leaves;
use euchre_bots::phase::Phase;
use euchre_bots::spec::BotSpecError;

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
}

impl Default for StoreSettings {
    fn default() -> StoreSettings {
        StoreSettings {
            encoding: None,
            lmdb_cache_records: 1 << 20,
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
    pub run: RunSection,
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
    pub eval: EvalSection,
}

/// A profile's `[eval]` table: a learning-curve point every `every` of
/// training, against `against`, over `hands` hands.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EvalSection {
    pub every: Option<String>,
    pub against: Option<String>,
    pub hands: Option<u64>,
    pub seed: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunSection {
    /// The run directory; by default `runs/<phase>-<store>`.
    pub dir: Option<PathBuf>,
    /// Export the policy at the end of each session.
    pub export: Option<bool>,
    pub phase: Option<Phase>,
    pub store: Option<Backend>,
    pub leaves: Option<Leaves>,
    pub encoding: Option<EncodingName>,
    pub threads: Option<usize>,
    pub iterations: Option<u64>,
    #[serde(rename = "for")]
    pub duration: Option<String>,
    pub seed: Option<u64>,
    pub checkpoint_every_iterations: Option<u64>,
    pub checkpoint_every_minutes: Option<f64>,
    pub batch: Option<u64>,
    /// Regret-based pruning: skip actions with regret below `-prune`.
    pub prune: Option<f64>,
    pub prune_after: Option<u64>,
    /// A bidding policy file whose bids this run plays instead of training
    /// its own (card-play phases only).
    pub bidding_from: Option<PathBuf>,
    /// How those bids are drawn: `argmax` (the default) or `average`.
    pub fixed_bids: Option<BidChoice>,
    /// Where a card-play run's bids come from when no `bidding_from` names
    /// them: `staged` (full play's default) or `trained`.
    pub bids: Option<BidsName>,
    /// The iterations of a staged run's bidding stage.
    pub bidding_iterations: Option<u64>,
}

/// Where a card-play run's bids come from, when no blueprint file names
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BidsName {
    /// A bidding stage trains the bids first, in `<run>/bidding`, and card
    /// play then trains under them, held fixed. Full play's default: bids
    /// learnt against the run's own weak early card play are far too bold,
    /// and an iteration that walks the card play below every bid costs
    /// about four times one that walks a single bid's.
    Staged,
    /// Bids and card play trained together, in one game tree.
    Trained,
}

impl fmt::Display for BidsName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BidsName::Staged => "staged",
            BidsName::Trained => "trained",
        })
    }
}

/// A staged run's first stage: a bidding run of `iterations` in
/// `<run>/bidding`, whose exported policy then plays every bid of the card
/// play, drawn as `choice` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BiddingStage {
    pub iterations: u64,
    pub choice: BidChoice,
}

/// The bidding stage's length unless a flag or profile says otherwise: on
/// 2 threads of this project's machine about 19 minutes, by when the
/// bidding phase's local best response is about zero (`docs/experiments/full-play-fixed-bids.md`).
pub const DEFAULT_BIDDING_STAGE_ITERATIONS: u64 = 8_000_000;

impl fmt::Display for BiddingStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a bidding stage of {} iterations first, its {} bids then fixed",
            crate::format::thousands(self.iterations),
            self.choice
        )
    }
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
        source: std::io::Error,
    },
    #[error("{origin} is not a valid run profile (see configs/example.toml)")]
    Profile {
        origin: String,
        #[source]
        source: toml::de::Error,
    },
    #[error("the [solver] table is not a valid discount schedule")]
    Schedule(#[source] CfrError),
    #[error(
        "pimc-calibrated leaves are measured at the first lead, so they value only the bidding phase's leaves; use --phase bidding, or --leaves open-hand for {phase}"
    )]
    CalibratedLeavesPhase { phase: Phase },
    #[error("an iteration budget of 0 trains nothing: give at least 1, or use --for 2h")]
    ZeroIterations,
    #[error("[run] batch must be at least 1")]
    ZeroBatch,
    #[error("[run] checkpoint_every_minutes must be a positive number of minutes, not {minutes}")]
    CheckpointMinutes { minutes: f64 },
    #[error("[log] level '{level}' is not one of error, warn, info, debug, trace")]
    LogLevel { level: String },
    #[error(
        "--prune {regret}: give how far below zero an action's regret must fall to be skipped, as a positive number (--prune 20), or 0 to turn pruning off"
    )]
    Prune { regret: f64 },
    #[error("'{text}' is not a duration: {hint}")]
    Duration { text: String, hint: &'static str },
    /// A setting read from a profile's field, named by `field`.
    #[error("{field}")]
    Field {
        field: &'static str,
        #[source]
        source: Box<ConfigError>,
    },
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

impl ConfigError {
    fn in_field(field: &'static str) -> impl FnOnce(ConfigError) -> ConfigError {
        move |source| ConfigError::Field {
            field,
            source: Box::new(source),
        }
    }
}

pub fn parse_profile(text: &str, origin: &str) -> Result<RunProfile, ConfigError> {
    toml::from_str(text).map_err(|source| ConfigError::Profile {
        origin: origin.to_owned(),
        source,
    })
}

pub fn load_profile(path: Option<&Path>) -> Result<RunProfile, ConfigError> {
    let Some(path) = path else {
        return Ok(RunProfile::default());
    };
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Unreadable {
        path: path.to_path_buf(),
        source,
    })?;
    parse_profile(&text, &path.display().to_string())
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
#[serde(deny_unknown_fields)]
pub struct Identity {
    pub phase: Phase,
    pub store: Backend,
    pub rules: Rules,
    pub solver: SolverSettings,
    pub encoding: EncodingName,
    pub seed: u64,
    /// Bids played from a fixed blueprint instead of trained. Runs saved
    /// before the setting existed trained their bids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bidding_from: Option<BlueprintSource>,
    /// Bids trained by a stage of the run itself, before its card play;
    /// `bidding_from` names the stage's policy once the stage has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bidding_stage: Option<BiddingStage>,
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
            "store encoding",
            self.encoding.to_string(),
            saved.encoding.to_string(),
        );
        check("seed", self.seed.to_string(), saved.seed.to_string());
        let describe_stage = |stage: &Option<BiddingStage>| {
            stage.map_or_else(|| "no bidding stage".to_owned(), |stage| stage.to_string())
        };
        check(
            "bids",
            describe_stage(&self.bidding_stage),
            describe_stage(&saved.bidding_stage),
        );
        let describe = |source: &Option<BlueprintSource>| {
            source
                .as_ref()
                .map_or_else(|| "bids trained by the run".to_owned(), ToString::to_string)
        };
        // A stage's blueprint is the run's own, known only once the stage
        // has ended: before that, either side may not have it yet.
        let stage_unfinished = self.bidding_stage.is_some()
            && (self.bidding_from.is_none() || saved.bidding_from.is_none());
        if !stage_unfinished {
            check(
                "bidding blueprint",
                describe(&self.bidding_from),
                describe(&saved.bidding_from),
            );
        }
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
    /// Export the policy and say what it learned when the session ends.
    pub export: bool,
    pub log: LogSettings,
    /// Measure a learning curve while training; `None` for no curve.
    #[serde(default)]
    pub curve: Option<CurveSettings>,
    /// Regret-based pruning; `None` explores every action.
    #[serde(default)]
    pub pruning: Option<PruningSettings>,
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

/// Command-line values that override a profile.
#[derive(Debug, Default)]
pub struct Overrides {
    pub phase: Option<Phase>,
    pub store: Option<Backend>,
    pub leaves: Option<Leaves>,
    pub encoding: Option<EncodingName>,
    pub threads: Option<usize>,
    pub iterations: Option<u64>,
    pub until: Option<u64>,
    pub duration: Option<Duration>,
    pub seed: Option<u64>,
    pub checkpoint_every_iterations: Option<u64>,
    pub export: bool,
    pub eval_every: Option<Duration>,
    pub eval_against: Option<String>,
    pub eval_hands: Option<u64>,
    pub prune: Option<f64>,
    pub prune_after: Option<u64>,
    pub bidding_from: Option<PathBuf>,
    pub fixed_bids: Option<BidChoice>,
    pub bids: Option<BidsName>,
    pub bidding_iterations: Option<u64>,
}

/// Whether a profile with these flags says where the bids come from. A run
/// directory made before staged bids were full play's default keeps its
/// own bids when the command says nothing about them.
pub fn chooses_bids(profile: &RunProfile, flags: &Overrides) -> bool {
    let run = &profile.run;
    flags.bids.or(run.bids).is_some()
        || flags.bidding_from.is_some()
        || run.bidding_from.is_some()
        || flags
            .bidding_iterations
            .or(run.bidding_iterations)
            .is_some()
        || flags.fixed_bids.or(run.fixed_bids).is_some()
}

/// Where a phase's bids come from when nothing says: full play trains them
/// in a stage of their own first; play-N trains them with its card play.
pub fn default_bids(phase: Phase) -> BidsName {
    match phase {
        Phase::FullPlay => BidsName::Staged,
        Phase::Bidding | Phase::Play(_) => BidsName::Trained,
    }
}

/// Resolves a profile and flags into the run's identity and this session's
/// settings.
pub fn resolve(
    profile: RunProfile,
    flags: Overrides,
) -> Result<(Identity, SessionSettings, Option<PathBuf>), ConfigError> {
    let run = profile.run;
    let dir = run.dir.clone();
    let curve = curve_with_flags(CurveBase::of_section(&profile.eval)?, &flags);
    let phase = flags.phase.or(run.phase).unwrap_or(Phase::Bidding);
    let mut identity = Identity {
        phase,
        store: flags.store.or(run.store).unwrap_or(Backend::Memory),
        rules: profile.rules,
        solver: SolverSettings {
            leaves: flags.leaves.unwrap_or(profile.solver.leaves),
            ..profile.solver
        },
        encoding: flags
            .encoding
            .or(profile.store.encoding)
            .unwrap_or_else(|| EncodingName::default_for(phase)),
        seed: flags.seed.or(run.seed).unwrap_or(1),
        bidding_from: None,
        bidding_stage: None,
    };
    identity
        .solver
        .schedule()
        .validate()
        .map_err(ConfigError::Schedule)?;
    if identity.solver.leaves == Leaves::PimcCalibrated && phase != Phase::Bidding {
        return Err(ConfigError::CalibratedLeavesPhase { phase });
    }
    let choice = flags.fixed_bids.or(run.fixed_bids);
    let bids = flags.bids.or(run.bids);
    let stage_iterations = flags.bidding_iterations.or(run.bidding_iterations);
    let blueprint = flags
        .bidding_from
        .as_deref()
        .or(run.bidding_from.as_deref());
    if phase == Phase::Bidding {
        if blueprint.is_some() {
            return Err(ConfigError::BlueprintPhase);
        }
        if bids.is_some() || stage_iterations.is_some() {
            return Err(ConfigError::BidsPhase);
        }
    }
    match (blueprint, bids.unwrap_or_else(|| default_bids(phase))) {
        (Some(_), _) if bids.is_some() => return Err(ConfigError::BidsWithBlueprint),
        (Some(_), _) if stage_iterations.is_some() => {
            return Err(ConfigError::StageWithoutStage);
        }
        (Some(path), _) => {
            let blueprint =
                BiddingBlueprint::load(path, identity.rules, choice.unwrap_or_default())
                    .map_err(ConfigError::Blueprint)?;
            identity.bidding_from = Some(blueprint.source().clone());
        }
        (None, BidsName::Staged) => {
            let iterations = stage_iterations.unwrap_or(DEFAULT_BIDDING_STAGE_ITERATIONS);
            if iterations == 0 {
                return Err(ConfigError::ZeroBiddingStage);
            }
            identity.bidding_stage = Some(BiddingStage {
                iterations,
                choice: choice.unwrap_or_default(),
            });
        }
        (None, BidsName::Trained) if choice.is_some() => {
            return Err(ConfigError::FixedBidsWithoutBlueprint);
        }
        (None, BidsName::Trained) if stage_iterations.is_some() => {
            return Err(ConfigError::StageWithoutStage);
        }
        (None, BidsName::Trained) => {}
    }
    let duration = match flags.duration {
        Some(duration) => Some(duration),
        None => run
            .duration
            .as_deref()
            .map(parse_duration)
            .transpose()
            .map_err(ConfigError::in_field("[run] for"))?,
    };
    let mut iterations = flags.iterations.or(run.iterations);
    if iterations == Some(0) {
        return Err(ConfigError::ZeroIterations);
    }
    if iterations.is_none() && duration.is_none() && flags.until.is_none() {
        iterations = default_iterations(phase);
    }
    let batch = run.batch.unwrap_or(1000);
    if batch == 0 {
        return Err(ConfigError::ZeroBatch);
    }
    let minutes = run.checkpoint_every_minutes.unwrap_or(10.0);
    if !(minutes > 0.0 && minutes.is_finite()) {
        return Err(ConfigError::CheckpointMinutes { minutes });
    }
    let session = SessionSettings {
        threads: flags.threads.or(run.threads).unwrap_or(0),
        iterations,
        until: flags.until,
        duration,
        checkpoint_every_iterations: flags
            .checkpoint_every_iterations
            .or(run.checkpoint_every_iterations)
            .unwrap_or(1_000_000)
            .max(1),
        checkpoint_every_minutes: minutes,
        batch,
        lmdb_cache_records: profile.store.lmdb_cache_records.max(1024),
        export: flags.export || run.export.unwrap_or(false),
        log: profile.log,
        curve,
        pruning: match flags.prune.or(run.prune) {
            Some(regret) => {
                PruningSettings::from_flags(regret, flags.prune_after.or(run.prune_after))?
            }
            None => None,
        },
    };
    if let Some(curve) = &session.curve {
        curve.validate(identity.rules)?;
    }
    if !["error", "warn", "info", "debug", "trace"].contains(&session.log.level.as_str()) {
        return Err(ConfigError::LogLevel {
            level: session.log.level,
        });
    }
    Ok((identity, session, dir))
}

/// Hands per learning-curve point unless a flag or profile says otherwise.
pub const DEFAULT_EVAL_HANDS: u64 = 2000;
/// The learning curve's opponent unless a flag or profile says otherwise.
pub const DEFAULT_EVAL_AGAINST: &str = "pimc:20";

/// A learning curve's settings before the flags: from a profile's `[eval]`
/// table, or the curve a resumed run was saved with.
#[derive(Debug, Default)]
pub struct CurveBase {
    pub every: Option<Duration>,
    pub against: Option<String>,
    pub hands: Option<u64>,
    pub seed: Option<u64>,
}

impl CurveBase {
    fn of_section(section: &EvalSection) -> Result<CurveBase, ConfigError> {
        Ok(CurveBase {
            every: section
                .every
                .as_deref()
                .map(parse_duration)
                .transpose()
                .map_err(ConfigError::in_field("[eval] every"))?,
            against: section.against.clone(),
            hands: section.hands,
            seed: section.seed,
        })
    }
}

impl From<Option<CurveSettings>> for CurveBase {
    fn from(saved: Option<CurveSettings>) -> CurveBase {
        saved.map_or_else(CurveBase::default, |curve| CurveBase {
            every: Some(curve.every),
            against: Some(curve.against),
            hands: Some(curve.hands),
            seed: Some(curve.seed),
        })
    }
}

/// The curve `flags` ask for on top of `base`: one exists when either gives
/// an interval; each flag overrides its field and defaults fill the rest.
pub fn curve_with_flags(base: CurveBase, flags: &Overrides) -> Option<CurveSettings> {
    Some(CurveSettings {
        every: flags.eval_every.or(base.every)?,
        against: flags
            .eval_against
            .clone()
            .or(base.against)
            .unwrap_or_else(|| DEFAULT_EVAL_AGAINST.to_owned()),
        hands: flags
            .eval_hands
            .or(base.hands)
            .unwrap_or(DEFAULT_EVAL_HANDS),
        seed: base.seed.unwrap_or(1),
    })
}

/// Parses `90s`, `45m`, `2h`, `1h30m` or `1d`.
pub fn parse_duration(text: &str) -> Result<Duration, ConfigError> {
    const UNITS: &str = "use a number with s, m, h or d, like 90s, 45m or 2h";
    let invalid = |hint| ConfigError::Duration {
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
            resolve(profile, Overrides::default()).unwrap();
        }
        // Step 2 of fixed-bid full play needs step 1's policy: without it,
        // the profile parses and the error names the missing file.
        let text = include_str!("../../../../configs/full-play-fixed-bids.toml");
        let profile = parse_profile(text, "full-play-fixed-bids").unwrap();
        let error = resolve(profile, Overrides::default()).unwrap_err();
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
        let flags = Overrides {
            store: Some(Backend::Mmap),
            seed: Some(9),
            ..Overrides::default()
        };
        let (identity, session, _) = resolve(profile, flags).unwrap();
        assert_eq!(identity.phase, Phase::Play(2));
        assert_eq!(identity.store, Backend::Mmap);
        assert_eq!(identity.seed, 9);
        assert_eq!(session.threads, 2);
    }

    #[test]
    fn the_bare_full_play_command_is_the_laptop_profile() {
        let bare = Overrides {
            phase: Some(Phase::FullPlay),
            store: Some(Backend::Mmap),
            ..Overrides::default()
        };
        let (identity, session, dir) = resolve(RunProfile::default(), bare).unwrap();
        assert_eq!(identity.encoding, EncodingName::I16);
        assert_eq!(
            identity.bidding_stage,
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
            resolve(profile, Overrides::default()).unwrap();
        assert_eq!(profile_identity, identity);
        assert_eq!(profile_session, session);
        assert_eq!(
            profile_dir.as_deref(),
            Some(Path::new("runs/full-play-mmap"))
        );

        let (bidding, bidding_session, _) =
            resolve(RunProfile::default(), Overrides::default()).unwrap();
        assert_eq!(bidding.encoding, EncodingName::F32);
        assert_eq!(bidding_session.iterations, Some(DEFAULT_ITERATIONS));

        let f32_full_play = Overrides {
            phase: Some(Phase::FullPlay),
            encoding: Some(EncodingName::F32),
            ..Overrides::default()
        };
        let (identity, _, _) = resolve(RunProfile::default(), f32_full_play).unwrap();
        assert_eq!(identity.encoding, EncodingName::F32);
        let profile = parse_profile(
            "[run]\nphase = \"full-play\"\n[store]\nencoding = \"f32\"\n",
            "t",
        );
        let (identity, _, _) = resolve(profile.unwrap(), Overrides::default()).unwrap();
        assert_eq!(identity.encoding, EncodingName::F32);
    }

    #[test]
    fn bad_values_are_explained() {
        let bad = |text: &str| {
            let profile = parse_profile(text, "t").unwrap();
            chain(&resolve(profile, Overrides::default()).unwrap_err())
        };
        // The exponents are DCFR's; linear CFR, the default, has none.
        assert!(bad("[solver]\nschedule = \"dcfr\"\nalpha = -3\n").contains("schedule"));
        assert!(bad("[run]\nprune = -3\n").contains("positive number"));
        assert!(bad("[run]\nfor = \"soon\"\n").contains("duration"));
        assert!(bad("[run]\niterations = 0\n").contains("at least 1"));
        assert!(bad("[log]\nlevel = \"loud\"\n").contains("loud"));
    }

    #[test]
    fn where_the_bids_come_from_is_resolved_and_conflicts_are_explained() {
        let with = |phase: Phase, flags: Overrides| {
            resolve(
                RunProfile::default(),
                Overrides {
                    phase: Some(phase),
                    ..flags
                },
            )
        };
        let stage = |flags: Overrides| with(Phase::FullPlay, flags).unwrap().0.bidding_stage;
        assert_eq!(
            stage(Overrides {
                bidding_iterations: Some(5000),
                fixed_bids: Some(BidChoice::Average),
                ..Overrides::default()
            }),
            Some(BiddingStage {
                iterations: 5000,
                choice: BidChoice::Average
            })
        );
        assert_eq!(
            stage(Overrides {
                bids: Some(BidsName::Trained),
                ..Overrides::default()
            }),
            None
        );
        let play = with(Phase::Play(2), Overrides::default()).unwrap().0;
        assert_eq!(
            play.bidding_stage, None,
            "play-N trains its bids unless asked"
        );
        let staged_play = with(
            Phase::Play(2),
            Overrides {
                bids: Some(BidsName::Staged),
                ..Overrides::default()
            },
        );
        assert!(staged_play.unwrap().0.bidding_stage.is_some());
        let profile = parse_profile("[run]\nphase = \"full-play\"\nbids = \"trained\"\n", "t");
        let (identity, _, _) = resolve(profile.unwrap(), Overrides::default()).unwrap();
        assert_eq!(identity.bidding_stage, None);

        let refused = |phase: Phase, flags: Overrides| chain(&with(phase, flags).unwrap_err());
        let message = refused(
            Phase::Bidding,
            Overrides {
                bids: Some(BidsName::Staged),
                ..Overrides::default()
            },
        );
        assert!(
            message.contains("the bidding phase trains only bids"),
            "{message}"
        );
        let message = refused(
            Phase::FullPlay,
            Overrides {
                bids: Some(BidsName::Staged),
                bidding_from: Some(PathBuf::from("any.bin")),
                ..Overrides::default()
            },
        );
        assert!(message.contains("keep one of the two"), "{message}");
        let message = refused(
            Phase::FullPlay,
            Overrides {
                bids: Some(BidsName::Trained),
                bidding_iterations: Some(100),
                ..Overrides::default()
            },
        );
        assert!(message.contains("this run has none"), "{message}");
        let message = refused(
            Phase::FullPlay,
            Overrides {
                bidding_iterations: Some(0),
                ..Overrides::default()
            },
        );
        assert!(message.contains("at least 1 iteration"), "{message}");
        let message = refused(
            Phase::FullPlay,
            Overrides {
                bids: Some(BidsName::Trained),
                fixed_bids: Some(BidChoice::Argmax),
                ..Overrides::default()
            },
        );
        assert!(message.contains("--bids staged"), "{message}");
    }

    #[test]
    fn a_staged_run_names_a_changed_stage_but_not_its_own_blueprint_before_it_exists() {
        let staged = |iterations| Identity {
            bidding_stage: Some(BiddingStage {
                iterations,
                choice: BidChoice::Argmax,
            }),
            ..resolve(RunProfile::default(), Overrides::default())
                .unwrap()
                .0
        };
        let mut finished = staged(100);
        finished.bidding_from = Some(BlueprintSource {
            path: PathBuf::from("/runs/x/bidding/policy.bin"),
            checksum: 7,
            iterations: 100,
            choice: BidChoice::Argmax,
        });
        assert!(staged(100).differences(&finished).is_empty());
        assert!(finished.differences(&staged(100)).is_empty());
        let changed = staged(200).differences(&finished);
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(changed[0].starts_with("bids: the run has a bidding stage of 100 iterations"));
        let mut joint = staged(100);
        joint.bidding_stage = None;
        assert_eq!(
            joint.differences(&finished).len(),
            2,
            "the stage and its blueprint"
        );
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
