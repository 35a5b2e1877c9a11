//! The loop of a training session, apart from the session that opens the
//! run: it takes iterations from a source of `Steps` (the solver on this
//! process, or an epoch over the ranks of a cluster), checkpoints on
//! schedule, measures curve points and stops on its [`Budget`] or when the
//! [`Watcher`] asks. The session and the cluster's leader both drive it,
//! so neither needs the other's file.

use std::path::Path;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cfr::mccfr::{BatchStats, ExternalSampling};
use store::DurableTable;
use tracing::info;

use crate::config::{CardPlayStrategy, Identity, SessionSettings};
use crate::format::thousands;
use crate::solver_game::EuchreGame;
use crate::solver_game::for_game::ForGame;
use crate::training::curve::{self, CurvePoint};
use crate::training::error::TrainingError;
use crate::training::run_dir::{Progress, RunDir};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::bot::Bot;
use euchre_bots::card_play_table::CardPlayTable;
use euchre_bots::opponent_bids::OpponentBids;

/// Why a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Budget,
    Interrupted,
}

/// How much one call of [`crate::training::session::Session::train`] may do; the first limit reached
/// ends it. No limit at all trains until the watcher asks to stop.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Iterations in this call.
    pub iterations: Option<u64>,
    /// Stop once the run's total reaches this many iterations.
    pub until: Option<u64>,
    /// Training time (building a new store does not count).
    pub duration: Option<Duration>,
}

impl Budget {
    pub fn of(settings: &SessionSettings) -> Budget {
        Budget {
            iterations: settings.iterations,
            until: settings.until,
            duration: settings.duration,
        }
    }

    /// Iterations still allowed after `done` at run total `total`, with
    /// `trained` seconds of training this session. Time is the solver's
    /// own: checkpoints and curve points do not count, so a `--for 60m`
    /// session trains for 60 minutes and its last curve point, due at the
    /// end, is measured.
    fn remaining(&self, done: u64, total: u64, trained: f64) -> u64 {
        let by_count = self.iterations.map_or(u64::MAX, |n| n.saturating_sub(done));
        let by_total = self.until.map_or(u64::MAX, |n| n.saturating_sub(total));
        let by_time = match self.duration {
            Some(duration) if trained >= duration.as_secs_f64() => 0,
            _ => u64::MAX,
        };
        by_count.min(by_total).min(by_time)
    }

    /// The session's length in iterations, when a count fixes it.
    fn length(&self, start_total: u64) -> Option<u64> {
        let by_total = self.until.map(|n| n.saturating_sub(start_total));
        match (self.iterations, by_total) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

/// Who watches a session, and may ask it to stop. Every method has a
/// default that does nothing, so `()` watches silently.
pub trait Watcher {
    /// A slow step of opening the store, such as building a perfect hash.
    fn opening(&mut self, _step: &str) {}
    /// Training starts; `length` is its iterations when a count fixes it.
    fn started(&mut self, _length: Option<u64>) {}
    /// A batch finished; `done` iterations so far this session.
    fn batch(&mut self, _done: u64, _table: &dyn DurableTable) {}
    /// A learning-curve point was measured.
    fn point(&mut self, _point: &CurvePoint) {}
    /// Asked between batches: stop now (with a checkpoint)?
    fn should_stop(&self) -> bool {
        false
    }
    /// The run goes on to its next stage, whose store may take a while to
    /// open (a staged run: card play after its bids).
    fn next_stage(&mut self) {}
}

impl Watcher for () {}

/// What one call of [`crate::training::session::Session::train`] has done so far.
#[derive(Debug, Default)]
pub(crate) struct SessionCounts {
    pub(crate) iterations: u64,
    /// Time spent iterating only.
    pub(crate) train_seconds: f64,
    pub(crate) pruned_actions: u64,
}

impl SessionCounts {
    pub(crate) fn add(&mut self, count: u64, stats: &BatchStats, took: Duration) {
        self.iterations += count;
        self.train_seconds += took.as_secs_f64();
        self.pruned_actions += stats.pruned_actions;
    }
}

impl Progress {
    pub(crate) fn add(&mut self, count: u64, stats: &BatchStats, took: Duration) {
        self.iterations += count;
        self.regret_updates += stats.regret_updates;
        self.strategy_updates += stats.strategy_updates;
        self.train_seconds += took.as_secs_f64();
    }
}

/// A source of iterations for the session's loop: the solver alone, or an
/// epoch over many ranks.
pub(crate) trait Steps {
    /// The most iterations the next step would like to run.
    fn preferred(&self) -> u64;

    /// Runs iterations `first .. first + count` and says what they did.
    fn run(&mut self, first: u64, count: u64) -> Result<BatchStats, TrainingError>;

    /// Makes the table whole before anyone reads its average strategy (a
    /// checkpoint, a curve point, the session's end), `through` being the
    /// last iteration run. Steps that hold nothing back have nothing to do.
    fn settle(&mut self, through: u64) -> Result<(), TrainingError> {
        let _ = through;
        Ok(())
    }
}

/// The solver on this process alone, in batches of about half a second.
pub(crate) struct LocalSteps<'s, 't> {
    pub(crate) solver: &'s ExternalSampling<'t, EuchreGame<'t>, dyn DurableTable + 't>,
    pub(crate) batch: BatchSize,
}

impl Steps for LocalSteps<'_, '_> {
    fn preferred(&self) -> u64 {
        self.batch.next()
    }

    fn run(&mut self, first: u64, count: u64) -> Result<BatchStats, TrainingError> {
        let started = Instant::now();
        let stats = self.solver.run(first, count)?;
        self.batch.adapt(started.elapsed());
        Ok(stats)
    }
}

/// What the session's loop needs of an open session, borrowed apart from
/// its progress so that a solver may borrow the table meanwhile.
pub(crate) struct Looping<'a> {
    pub(crate) run: &'a RunDir,
    pub(crate) identity: &'a Identity,
    pub(crate) settings: &'a SessionSettings,
    pub(crate) table: &'a dyn DurableTable,
    pub(crate) inputs: GameInputs<'a>,
    pub(crate) threads: usize,
}

impl Looping<'_> {
    /// Steps until the budget is spent or the watcher asks to stop,
    /// checkpointing and measuring curve points on the way.
    pub(crate) fn run(
        &self,
        budget: Budget,
        watcher: &mut dyn Watcher,
        steps: &mut dyn Steps,
        progress: &mut Progress,
        last_checkpoint: &mut (Instant, u64),
    ) -> Result<(SessionCounts, Ending), TrainingError> {
        let Looping {
            run,
            identity,
            settings,
            table,
            inputs,
            threads,
        } = *self;
        let fixed_bids = inputs.fixed_bids;
        watcher.started(budget.length(progress.iterations));
        let mut this_session = SessionCounts::default();
        let mut next_point = settings
            .curve
            .as_ref()
            .map(|curve| curve.next_point(progress.train_seconds));
        let ending = loop {
            if watcher.should_stop() {
                break Ending::Interrupted;
            }
            let remaining = budget.remaining(
                this_session.iterations,
                progress.iterations,
                this_session.train_seconds,
            );
            if remaining == 0 {
                break Ending::Budget;
            }
            // Never cross a checkpoint boundary inside a batch.
            let since_checkpoint = progress.iterations - last_checkpoint.1;
            let to_checkpoint = settings
                .checkpoint_every_iterations
                .map_or(u64::MAX, |every| every - since_checkpoint % every);
            let count = steps.preferred().min(remaining).min(to_checkpoint);
            let batch_started = Instant::now();
            let stats = steps.run(progress.iterations + 1, count)?;
            let took = batch_started.elapsed();
            this_session.add(count, &stats, took);
            progress.add(count, &stats, took);
            watcher.batch(this_session.iterations, table);
            let minutes = Duration::from_secs_f64(settings.checkpoint_every_minutes * 60.0);
            let counted_out = settings
                .checkpoint_every_iterations
                .is_some_and(|every| progress.iterations - last_checkpoint.1 >= every);
            if counted_out || last_checkpoint.0.elapsed() >= minutes {
                steps.settle(progress.iterations)?;
                commit(table, progress, identity)?;
                *last_checkpoint = (Instant::now(), progress.iterations);
            }
            if let (Some(curve), Some(at)) = (&settings.curve, next_point)
                && progress.train_seconds >= at
            {
                steps.settle(progress.iterations)?;
                let point = curve_point(
                    identity,
                    table,
                    fixed_bids,
                    progress,
                    curve,
                    threads,
                    run.path(),
                )?;
                watcher.point(&point);
                next_point = Some(curve.next_point(progress.train_seconds));
            }
        };
        // The session's last checkpoint and its export come next.
        steps.settle(progress.iterations)?;
        Ok((this_session, ending))
    }
}

/// What the run's game reads besides its store: its fixed bids, the table
/// of its table-play leaves, and what bids for the game are valued by and
/// start from, where the run has them.
#[derive(Clone, Copy, Default)]
pub(crate) struct GameInputs<'t> {
    pub(crate) fixed_bids: Option<&'t BiddingBlueprint>,
    pub(crate) card_play: Option<&'t CardPlayTable>,
    pub(crate) for_game: Option<&'t ForGame>,
    /// The bot a best response is trained against.
    pub(crate) opponents: Option<&'t dyn Bot>,
}

/// The solver over the run's game (with its [`GameInputs`]) and store, on
/// `threads` threads.
pub(crate) fn solver<'t, T: store::Table + ?Sized>(
    identity: &Identity,
    settings: &SessionSettings,
    table: &'t T,
    inputs: GameInputs<'t>,
    threads: usize,
) -> Result<ExternalSampling<'t, EuchreGame<'t>, T>, TrainingError> {
    let GameInputs {
        fixed_bids,
        card_play,
        for_game,
        opponents,
    } = inputs;
    let leaves = identity.solver.leaves.valuer(card_play)?;
    let mut root = EuchreGame::root(identity.rules, identity.phase, leaves)
        .with_play_abstraction(identity.solver.abstraction);
    if let Some(blueprint) = fixed_bids {
        root = root.with_fixed_bids(blueprint);
    }
    if identity.solver.card_play_strategy == CardPlayStrategy::Current {
        root = root.without_card_play_average();
        info!("card play keeps no average: its current strategy is exported");
    }
    // Bids for the game train where bids train: a bidding run, or full
    // play's bidding stage; card play under fixed bids plays for points.
    if let Some(for_game) = for_game {
        root = root.with_bids_for_game(for_game);
        info!("bids for the game: one bid a score context, valued by the chance of winning");
    }
    let mut opponent_model = opponent_model(identity.solver.opponent_bids);
    if opponent_model.is_some() {
        root = root.with_modelled_bids();
        info!("opponents' bids: {}", identity.solver.opponent_bids);
    }
    if let Some(bot) = opponents {
        if opponent_model.is_some() {
            return Err(TrainingError::BestResponseWithOpponentBids {
                opponent_bids: identity.solver.opponent_bids.to_string(),
            });
        }
        root = root.with_modelled_opponents(bot);
        opponent_model = Some(cfr::OpponentModel { share: 1.0 });
        info!(
            "a best response: the opponents play {} in every walk",
            bot.name()
        );
    }
    let solver = ExternalSampling::new(
        root,
        table,
        identity.solver.schedule(),
        identity.seed,
        threads,
    )?
    .with_pruning(settings.pruning.map(|pruning| pruning.solver()))?
    .with_warm_start(settings.warm_start.map(|warm_start| warm_start.solver()))?
    .with_traverser_sampling(
        settings
            .traverser_sampling
            .map(|sampling| sampling.solver()),
    )?
    .with_opponent_model(opponent_model)?;
    if let Some(sampling) = &settings.traverser_sampling {
        info!("traverser sampling: {sampling}");
    }
    if let Some(pruning) = &settings.pruning {
        info!("pruning: {pruning}");
    }
    match (
        &settings.warm_start,
        for_game.is_some_and(ForGame::has_prior),
    ) {
        (Some(warm_start), true) => info!(
            "warm start: each fresh bid starts from the prior's bid at its view, worth {} (regret in the payoff's unit, 2 × chance of winning − 1, and visits in the average)",
            warm_start.weight
        ),
        (Some(warm_start), false) if opponents.is_some() => info!(
            "warm start: each fresh infostate starts from the answered policy's move, worth {}",
            warm_start.weight
        ),
        (Some(warm_start), false) => info!("warm start: {warm_start}"),
        (None, _) => {}
    }
    Ok(solver)
}

/// Exports the run's strategy as it stands and plays it against the
/// curve's opponent; the point is recorded in the run directory.
fn curve_point(
    identity: &Identity,
    table: &dyn DurableTable,
    fixed_bids: Option<&BiddingBlueprint>,
    progress: &Progress,
    curve: &crate::config::CurveSettings,
    threads: usize,
    run_dir: &Path,
) -> Result<CurvePoint, TrainingError> {
    let meta = identity.policy_meta(progress.iterations, identity.exported_strategy());
    let point = curve::measure(
        table,
        &meta,
        fixed_bids,
        progress.train_seconds,
        curve,
        threads,
        run_dir,
    )?;
    curve::record(run_dir, &point)?;
    info!("curve: {point}");
    Ok(point)
}

/// Iterations per batch, adapted to take about half a second: responsive
/// to Ctrl-C and cheap to account for. Starts at one and doubles.
pub(crate) struct BatchSize {
    current: u64,
    most: u64,
}

impl BatchSize {
    pub(crate) fn new(most: u64) -> BatchSize {
        BatchSize { current: 1, most }
    }

    fn next(&self) -> u64 {
        self.current.min(self.most)
    }

    fn adapt(&mut self, took: Duration) {
        if took < Duration::from_millis(250) {
            self.current = (self.current * 2).min(self.most);
        } else if took > Duration::from_secs(1) && self.current > 1 {
            self.current /= 2;
        }
    }
}

pub(crate) fn commit(
    table: &dyn DurableTable,
    progress: &mut Progress,
    identity: &Identity,
) -> Result<(), TrainingError> {
    let started = Instant::now();
    progress.checkpoint_unix = unix_now();
    table
        .checkpoint(&progress.to_state(identity)?)
        .map_err(TrainingError::Checkpoint)?;
    info!(
        "checkpoint at iteration {} written in {:.2} s",
        thousands(progress.iterations),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// The solver's model of the opponents' bids, if the run assumes one.
fn opponent_model(bids: OpponentBids) -> Option<cfr::OpponentModel> {
    match bids {
        OpponentBids::Equilibrium => None,
        OpponentBids::Heuristic { share } => Some(cfr::OpponentModel { share }),
    }
}
