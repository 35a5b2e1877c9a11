//! Settings resolved in one place: the flags laid over the profile, the
//! phase's defaults filled in, and every combination that cannot work
//! refused by name.

use std::path::PathBuf;

use euchre_game::engine::rules::Rules;
use store::Backend;

use euchre_bots::blueprint::BiddingBlueprint;

use euchre_bots::meta::{BidChoice, CardPlaySource};
use euchre_bots::meta::{BidsFor, Leaves};
use euchre_bots::phase::Phase;

use super::*;

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

/// A command's settings resolved: what the run is, how this session
/// trains, and the profile's run directory, with what the command chose
/// (flags and profile), which decides how a run already in the directory
/// goes on ([`Resolved::as_made`]).
#[derive(Debug)]
pub struct Resolved {
    pub identity: Identity,
    pub session: SessionSettings,
    pub dir: Option<PathBuf>,
    chosen: TrainOptions,
}

/// Resolves a profile and the flags over it into the run's identity, this
/// session's settings, and the profile's run directory. The flags are laid
/// over the profile here and nowhere else.
pub fn resolve(profile: RunProfile, flags: TrainOptions) -> Result<Resolved, ConfigError> {
    let RunProfile {
        run,
        rules,
        solver,
        store,
        log,
        eval,
    } = profile;
    let chosen = flags.or(TrainOptions {
        run,
        solver,
        store,
        curve: eval,
    });
    let identity = identity_of(&chosen, rules)?;
    let curve = chosen.curve.clone().settings_for_new_run(identity.phase);
    let mut session = session_of(&chosen, identity.phase, log, curve)?;
    // A prior is read through the warm start: on unless told otherwise.
    if identity.bids_prior.is_some() && chosen.run.session.warm_start.is_none() {
        session.warm_start = WarmStartSettings::from_flag(1.0)?;
    }
    if let Some(curve) = &session.curve {
        curve.validate(identity.rules)?;
    }
    Ok(Resolved {
        identity,
        session,
        dir: chosen.run.dir.clone(),
        chosen,
    })
}

/// What the run is: fixed when it starts.
fn identity_of(chosen: &TrainOptions, rules: Rules) -> Result<Identity, ConfigError> {
    let options = &chosen.run;
    let phase = options.phase.unwrap_or(Phase::Bidding);
    let bids = bids_of(options, phase, rules)?;
    let solver = solver_settings(&chosen.solver, phase);
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
    if !solver.card_play_strategy.is_average() && phase == Phase::Bidding {
        return Err(ConfigError::CurrentCardPlayInBidding);
    }
    if !solver.opponent_bids.is_equilibrium() && options.bidding_from.is_some() {
        return Err(ConfigError::OpponentBidsWithFixedBids);
    }
    check_bids_for(&solver, phase, options)?;
    let card_play_from = options
        .card_play_from
        .as_deref()
        .map(|path| CardPlaySource::probe(path, rules))
        .transpose()
        .map_err(ConfigError::CardPlay)?;
    solver.leaves.check_table(card_play_from.is_some())?;
    let bids_prior = match &options.bids_prior {
        Some(_) if solver.bids_for != BidsFor::Game => {
            return Err(ConfigError::BidsPriorWithoutGame);
        }
        Some(path) => Some(
            BiddingBlueprint::load(path, rules, BidChoice::Argmax)
                .map_err(ConfigError::Blueprint)?
                .source()
                .clone(),
        ),
        None => None,
    };
    Ok(Identity {
        phase,
        store: options.store.unwrap_or(Backend::Memory),
        rules,
        solver,
        encoding: chosen
            .store
            .encoding
            .unwrap_or_else(|| EncodingName::default_for(phase)),
        seed: options.seed.unwrap_or(1),
        bids,
        card_play_from,
        bids_prior,
    })
}

/// The `[solver]` settings a new run is made with: what the command chose,
/// and the defaults for the rest. Nothing chooses a model of the
/// opponents' bids unless it is written, so every run's bids are an
/// equilibrium by default. Full play's bidding stage once modelled the
/// heuristic's bids by default (`heuristic:0.9`); the panel showed that it
/// gained only against the heuristic, so the default went back to the
/// equilibrium (docs/experiments/bids-default-by-panel.md). Runs made under
/// it recorded the model in their settings and resume as made
/// ([`Resolved::as_made`]). Card play's strategy defaults by phase.
fn solver_settings(chosen: &SolverOptions, phase: Phase) -> SolverSettings {
    let defaults = SolverSettings::default();
    SolverSettings {
        schedule: chosen.schedule.unwrap_or(defaults.schedule),
        alpha: chosen.alpha.unwrap_or(defaults.alpha),
        beta: chosen.beta.unwrap_or(defaults.beta),
        gamma: chosen.gamma.unwrap_or(defaults.gamma),
        leaves: chosen.leaves.unwrap_or(defaults.leaves),
        abstraction: chosen.abstraction.unwrap_or(defaults.abstraction),
        opponent_bids: chosen.opponent_bids.unwrap_or(defaults.opponent_bids),
        card_play_strategy: chosen
            .card_play_strategy
            .unwrap_or_else(|| CardPlayStrategy::default_for(phase)),
        bids_for: chosen.bids_for.unwrap_or(defaults.bids_for),
    }
}

/// Bids for the game, refused where they cannot train: leaves that value
/// a hand by fractional points (no score follows from them), the mmap
/// store (its key universe has no score contexts), and card play with
/// fixed or trained-along bids (bids for the game train in a bidding run,
/// or in full play's bidding stage).
fn check_bids_for(
    solver: &SolverSettings,
    phase: Phase,
    options: &RunOptions,
) -> Result<(), ConfigError> {
    if solver.bids_for == BidsFor::Points {
        return Ok(());
    }
    if solver.leaves == Leaves::PimcCalibrated {
        return Err(ConfigError::BidsForGameLeaves);
    }
    match phase {
        Phase::Bidding if options.store == Some(Backend::Mmap) => {
            Err(ConfigError::BidsForGameOnMmap)
        }
        Phase::Bidding => Ok(()),
        _ if options.bidding_from.is_some()
            || options.bids.unwrap_or_else(|| default_bids(phase)) != BidsName::Staged =>
        {
            Err(ConfigError::BidsForGameUnstaged { phase })
        }
        _ => Ok(()),
    }
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
    chosen: &TrainOptions,
    phase: Phase,
    log: LogSettings,
    curve: Option<CurveSettings>,
) -> Result<SessionSettings, ConfigError> {
    let options = &chosen.run.session;
    let store = &chosen.store;
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
        checkpoint_every_iterations: options.checkpoint_every_iterations,
        checkpoint_every_minutes: minutes,
        batch,
        lmdb_cache_records: store
            .lmdb_cache_records
            .unwrap_or(DEFAULT_LMDB_CACHE_RECORDS)
            .max(1024),
        mmap_writeback: options
            .mmap_writeback
            .or(store.mmap_writeback)
            .unwrap_or_default(),
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
        best_response_to: match &options.best_response_to {
            Some(given) => BestResponseSettings::from_flag(given)?,
            None => None,
        },
        verify: options.verify(),
        sync: options.cluster.settings()?,
    })
}

/// Dirty records the LMDB store holds before a batched write transaction
/// when the profile does not say.
pub const DEFAULT_LMDB_CACHE_RECORDS: usize = 1 << 20;

impl Resolved {
    /// The identity to train under, given the identity of the run already
    /// in the directory (`saved`, if any): a run made before staged bids,
    /// or while bids modelling the heuristic's or card play's average were
    /// full play's default, goes on as it was made when the command (flags
    /// and profile) does not choose them. Any other difference is the
    /// session's to refuse.
    #[must_use]
    pub fn as_made(mut self, saved: Option<&Identity>) -> Resolved {
        if let Some(saved) = saved
            && saved.phase == self.identity.phase
        {
            let identity = &mut self.identity;
            if !self.chosen.run.chooses_bids() {
                identity.bids = saved.bids.clone();
            }
            if self.chosen.solver.opponent_bids.is_none() {
                identity.solver.opponent_bids = saved.solver.opponent_bids;
            }
            if self.chosen.solver.card_play_strategy.is_none() {
                identity.solver.card_play_strategy = saved.solver.card_play_strategy;
            }
        }
        self
    }
}
