//! A training session: a run directory opened and locked, its store, and
//! the loop that iterates in batches, checkpoints on schedule and stops on
//! its budget or when asked.
//!
//! The session prints nothing. Whoever runs it (the `train` command, the
//! training benchmark, a test) watches it through a [`Watcher`]: a progress
//! bar and Ctrl-C for a person, nothing at all for a benchmark.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cfr::mccfr::{BatchStats, ExternalSampling};
use store::DurableTable;
use tracing::info;

use crate::config::{Identity, PruningSettings, SessionSettings};
use crate::format::{bytes, thousands};
use crate::game::EuchreGame;
use crate::training::backend;
use crate::training::curve::{self, CurvePoint};
use crate::training::error::TrainingError;
use crate::training::run_dir::{Progress, RunDir, STORE_DIR, check_store_identity};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::card_play_table::CardPlayTable;
use euchre_bots::policy_file::PolicyMeta;

/// Why a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    Budget,
    Interrupted,
}

/// What a session did, for the caller to report.
#[derive(Debug)]
pub struct Summary {
    pub run_dir: PathBuf,
    pub resumed_from: u64,
    pub progress: Progress,
    pub session_iterations: u64,
    /// Wall time of the whole `train` call, checkpoints included.
    pub session_seconds: f64,
    /// Time spent iterating only: what a speed measurement divides by.
    pub train_seconds: f64,
    pub infostates: u64,
    pub disk_bytes: u64,
    pub ending: Ending,
    /// Traverser actions that pruning skipped this session.
    pub pruned_actions: u64,
}

/// How much one call of [`Session::train`] may do; the first limit reached
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
    fn stage(&mut self, _stage: &str) {}
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
}

impl Watcher for () {}

/// An open training run. Dropping it releases the run directory's lock;
/// everything since the last checkpoint is then lost, as after a crash.
pub struct Session {
    run: RunDir,
    identity: Identity,
    settings: SessionSettings,
    table: Box<dyn DurableTable>,
    /// The bids the run plays instead of training, if it has fixed ones.
    fixed_bids: Option<BiddingBlueprint>,
    /// The card play that values table-play leaves.
    card_play: Option<CardPlayTable>,
    progress: Progress,
    resumed_from: u64,
    /// When, and at which run total, the last checkpoint was written.
    last_checkpoint: (Instant, u64),
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("run", &self.run.path())
            .field("progress", &self.progress)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Locks `run_dir`, checks `identity` against the run's saved one (a new
    /// run has none), opens or builds the store, and saves the identity and
    /// `settings` for `trainer resume`.
    pub fn open(
        run_dir: &Path,
        identity: &Identity,
        settings: &SessionSettings,
        watcher: &mut dyn Watcher,
    ) -> Result<Session, TrainingError> {
        Session::open_locked(RunDir::lock(run_dir)?, identity, settings, watcher)
    }

    /// [`Session::open`] in a run directory the caller has locked already.
    pub fn open_locked(
        run: RunDir,
        identity: &Identity,
        settings: &SessionSettings,
        watcher: &mut dyn Watcher,
    ) -> Result<Session, TrainingError> {
        let run_dir = run.path().to_path_buf();
        if identity.bids.unfinished_stage().is_some() {
            return Err(TrainingError::StageUnfinished { dir: run_dir });
        }
        run.check(identity)?;
        let fixed_bids = identity
            .bids
            .blueprint()
            .map(|source| BiddingBlueprint::reopen(source, identity.rules))
            .transpose()
            .map_err(TrainingError::Blueprint)?;
        if let Some(source) = identity.bids.blueprint() {
            info!("bids are played from the blueprint {source}, not trained");
        }
        let card_play = identity
            .card_play_from
            .as_ref()
            .map(|source| CardPlayTable::reopen(source, identity.rules))
            .transpose()
            .map_err(TrainingError::CardPlay)?;
        if let Some(source) = &identity.card_play_from {
            info!("leaves are played out by the card-play table {source}");
        }
        info!(
            "run {}: phase {}, store {}, seed {}, solver {}, {} leaves, {} play key, {} opponents' bids",
            run_dir.display(),
            identity.phase,
            identity.store,
            identity.seed,
            identity.solver,
            identity.solver.leaves,
            identity.solver.abstraction,
            identity.solver.opponent_bids
        );
        let opened = Instant::now();
        let table = backend::open(
            identity,
            &run.file(STORE_DIR),
            backend::StoreTuning {
                lmdb_cache_records: settings.lmdb_cache_records,
                mmap_writeback: settings.mmap_writeback,
            },
            &mut |stage| {
                info!("store: {stage}");
                watcher.stage(stage);
            },
            settings.verify,
        )
        .map_err(|source| TrainingError::OpenStore {
            store: identity.store,
            dir: run_dir.clone(),
            source,
        })?;
        info!("store: {}", table.verification());
        check_store_identity(&table.committed_state(), identity, &run.file(STORE_DIR))?;
        // Saved only once the store has opened, so that a run that never
        // started leaves no settings to trip over.
        run.save(identity, settings)?;
        let progress = Progress::committed(&table.committed_state(), &run_dir)?;
        if progress.iterations > 0 {
            info!(
                "resuming from the checkpoint at iteration {} ({} infostates, opened in {:.1} s)",
                thousands(progress.iterations),
                thousands(table.len()),
                opened.elapsed().as_secs_f64()
            );
        } else {
            info!("starting a new run");
        }
        Ok(Session {
            run,
            identity: identity.clone(),
            settings: settings.clone(),
            table,
            fixed_bids,
            card_play,
            resumed_from: progress.iterations,
            last_checkpoint: (Instant::now(), progress.iterations),
            progress,
        })
    }

    /// The run's progress, including iterations not yet checkpointed.
    pub fn progress(&self) -> Progress {
        self.progress
    }

    /// The run total this session opened at.
    pub fn resumed_from(&self) -> u64 {
        self.resumed_from
    }

    pub fn table(&self) -> &dyn DurableTable {
        self.table.as_ref()
    }

    /// Trains within `budget`: iterations in batches, a checkpoint whenever
    /// one is due and one at the end. Checkpoints land on the same
    /// iterations however the batches fall, so a run is reproducible on one
    /// thread whatever its sessions' budgets.
    pub fn train(
        &mut self,
        budget: Budget,
        watcher: &mut dyn Watcher,
    ) -> Result<Summary, TrainingError> {
        let threads = crate::config::worker_threads(self.settings.threads);
        let start_total = self.progress.iterations;
        let started = Instant::now();
        let (this_session, ending) = self.train_batches(budget, threads, watcher)?;
        if self.settings.pruning.is_some() {
            info!(
                "pruning skipped {} actions this session",
                thousands(this_session.pruned_actions)
            );
        }
        // A new run always gets a first checkpoint, so that it can be
        // resumed and exported even if it stopped before its first iteration.
        if self.progress.iterations != self.last_checkpoint.1
            || self.table.committed_state().is_none()
        {
            self.checkpoint()?;
        }
        Ok(self.summary(start_total, &this_session, started, ending))
    }

    /// Runs batches until the budget is spent or the watcher asks to stop,
    /// checkpointing and measuring curve points on the way. Alone, a batch
    /// is a run of the solver; leading other ranks, it is an epoch that
    /// ends with a sync (see [`crate::training::cluster`]).
    fn train_batches(
        &mut self,
        budget: Budget,
        threads: usize,
        watcher: &mut dyn Watcher,
    ) -> Result<(SessionCounts, Ending), TrainingError> {
        let Session {
            run,
            identity,
            settings,
            table,
            fixed_bids,
            card_play,
            progress,
            last_checkpoint,
            ..
        } = self;
        let table = table.as_ref();
        let fixed_bids = fixed_bids.as_ref();
        let card_play = card_play.as_ref();
        let looping = Looping {
            run,
            identity,
            settings,
            table,
            fixed_bids,
            card_play,
            threads,
        };
        match crate::training::cluster::leading() {
            None => {
                let solver = solver(identity, settings, table, fixed_bids, card_play, threads)?;
                let mut steps = LocalSteps {
                    solver: &solver,
                    batch: BatchSize::new(settings.batch),
                };
                looping.run(budget, watcher, &mut steps, progress, last_checkpoint)
            }
            Some(group) => crate::training::cluster::leader::lead_session(
                group.as_ref(),
                &looping,
                budget,
                watcher,
                progress,
                last_checkpoint,
            ),
        }
    }

    /// What the session did, logged and returned.
    fn summary(
        &self,
        start_total: u64,
        this_session: &SessionCounts,
        started: Instant,
        ending: Ending,
    ) -> Summary {
        let summary = Summary {
            run_dir: self.run.path().to_path_buf(),
            resumed_from: start_total,
            progress: self.progress,
            session_iterations: this_session.iterations,
            session_seconds: started.elapsed().as_secs_f64(),
            train_seconds: this_session.train_seconds,
            infostates: self.table.len(),
            disk_bytes: self.table.disk_bytes(),
            ending,
            pruned_actions: this_session.pruned_actions,
        };
        info!(
            "{} at iteration {}: {} this session in {:.1} s, {} infostates, store {} on disk",
            match ending {
                Ending::Budget => "checkpointed",
                Ending::Interrupted => "interrupted and checkpointed",
            },
            thousands(summary.progress.iterations),
            thousands(this_session.iterations),
            summary.session_seconds,
            thousands(summary.infostates),
            bytes(summary.disk_bytes)
        );
        summary
    }

    /// Prunes (or not) from the next call of [`Session::train`] on.
    pub fn set_pruning(&mut self, pruning: Option<PruningSettings>) {
        self.settings.pruning = pruning;
    }

    /// Commits the records and the run's progress in one atomic step.
    pub fn checkpoint(&mut self) -> Result<(), TrainingError> {
        commit(self.table.as_ref(), &mut self.progress, &self.identity)?;
        self.last_checkpoint = (Instant::now(), self.progress.iterations);
        Ok(())
    }
}

/// What one call of [`Session::train`] has done so far.
#[derive(Debug, Default)]
pub(crate) struct SessionCounts {
    iterations: u64,
    /// Time spent iterating only.
    train_seconds: f64,
    pruned_actions: u64,
}

impl SessionCounts {
    fn add(&mut self, count: u64, stats: &BatchStats, took: Duration) {
        self.iterations += count;
        self.train_seconds += took.as_secs_f64();
        self.pruned_actions += stats.pruned_actions;
    }
}

impl Progress {
    fn add(&mut self, count: u64, stats: &BatchStats, took: Duration) {
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
struct LocalSteps<'s, 't> {
    solver: &'s ExternalSampling<'t, EuchreGame<'t>, dyn DurableTable + 't>,
    batch: BatchSize,
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
    pub(crate) fixed_bids: Option<&'a BiddingBlueprint>,
    pub(crate) card_play: Option<&'a CardPlayTable>,
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
            fixed_bids,
            card_play: _,
            threads,
        } = *self;
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
            let every = settings.checkpoint_every_iterations;
            let to_checkpoint = every - (progress.iterations - last_checkpoint.1) % every;
            let count = steps.preferred().min(remaining).min(to_checkpoint);
            let batch_started = Instant::now();
            let stats = steps.run(progress.iterations + 1, count)?;
            let took = batch_started.elapsed();
            this_session.add(count, &stats, took);
            progress.add(count, &stats, took);
            watcher.batch(this_session.iterations, table);
            let minutes = Duration::from_secs_f64(settings.checkpoint_every_minutes * 60.0);
            if progress.iterations - last_checkpoint.1 >= every
                || last_checkpoint.0.elapsed() >= minutes
            {
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

/// The solver over the run's game (with its fixed bids and the table of
/// its table-play leaves, if any) and store, on `threads` threads.
pub(crate) fn solver<'t, T: store::Table + ?Sized>(
    identity: &Identity,
    settings: &SessionSettings,
    table: &'t T,
    fixed_bids: Option<&'t BiddingBlueprint>,
    card_play: Option<&'t CardPlayTable>,
    threads: usize,
) -> Result<ExternalSampling<'t, EuchreGame<'t>, T>, TrainingError> {
    let leaves = identity.solver.leaves.valuer(card_play)?;
    let mut root = EuchreGame::root(identity.rules, identity.phase, leaves)
        .with_play_abstraction(identity.solver.abstraction);
    if let Some(blueprint) = fixed_bids {
        root = root.with_fixed_bids(blueprint);
    }
    let opponent_model = identity.solver.opponent_bids.solver();
    if opponent_model.is_some() {
        root = root.with_modelled_bids();
        info!("opponents' bids: {}", identity.solver.opponent_bids);
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
    if let Some(warm_start) = &settings.warm_start {
        info!("warm start: {warm_start}");
    }
    Ok(solver)
}

/// Exports the average strategy as it stands and plays it against the
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
    let meta = PolicyMeta {
        phase: identity.phase,
        rules: identity.rules,
        iterations: progress.iterations,
        leaves: identity.solver.leaves,
        strategy: euchre_bots::policy_file::Strategy::Average,
        bidding_from: identity.bids.blueprint().cloned(),
        play_abstraction: identity.solver.abstraction,
        card_play_from: identity.card_play_from.clone(),
        opponent_bids: identity.solver.opponent_bids,
    };
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
struct BatchSize {
    current: u64,
    most: u64,
}

impl BatchSize {
    fn new(most: u64) -> BatchSize {
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

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{CurveOptions, RunOptions, RunProfile, SessionOptions, resolve};
    use euchre_bots::phase::Phase;

    struct TempDir(PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir(name: &str) -> TempDir {
        let path =
            std::env::temp_dir().join(format!("trainer-session-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        TempDir(path)
    }

    fn settings(checkpoint_every: u64) -> (Identity, SessionSettings) {
        let flags = RunOptions {
            phase: Some(Phase::Bidding),
            session: SessionOptions {
                threads: Some(1),
                checkpoint_every_iterations: Some(checkpoint_every),
                ..SessionOptions::default()
            },
            ..RunOptions::default()
        };
        let (identity, mut settings, _) =
            resolve(RunProfile::default(), flags, CurveOptions::default()).unwrap();
        settings.log.progress = false;
        (identity, settings)
    }

    /// Stops after a set number of batches, as Ctrl-C would.
    struct StopAfter(u64, u64);

    impl Watcher for StopAfter {
        fn batch(&mut self, _done: u64, _table: &dyn DurableTable) {
            self.1 += 1;
        }

        fn should_stop(&self) -> bool {
            self.1 >= self.0
        }
    }

    #[test]
    fn a_staged_run_opens_only_once_its_bids_are_trained() {
        let flags = RunOptions {
            phase: Some(Phase::FullPlay),
            ..RunOptions::default()
        };
        let (identity, settings, _) =
            resolve(RunProfile::default(), flags, CurveOptions::default()).unwrap();
        assert!(identity.bids.unfinished_stage().is_some());
        let dir = temp_dir("unstaged");
        let error = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap_err();
        assert!(
            matches!(error, TrainingError::StageUnfinished { .. }),
            "{error}"
        );
        assert!(
            !dir.0.join(crate::training::run_dir::SETTINGS_FILE).exists(),
            "nothing saved"
        );
    }

    #[test]
    fn budgets_end_sessions_and_progress_survives_a_reopen() {
        let dir = temp_dir("budget");
        let (identity, settings) = settings(50);
        let mut session = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap();
        let budget = Budget {
            iterations: Some(120),
            ..Budget::default()
        };
        let summary = session.train(budget, &mut ()).unwrap();
        assert_eq!(summary.session_iterations, 120);
        assert_eq!(summary.ending, Ending::Budget);
        let until = Budget {
            until: Some(150),
            ..Budget::default()
        };
        assert_eq!(
            session.train(until, &mut ()).unwrap().session_iterations,
            30
        );
        drop(session);

        let mut session = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap();
        assert_eq!(session.resumed_from(), 150);
        let summary = session
            .train(Budget::default(), &mut StopAfter(2, 0))
            .unwrap();
        assert_eq!(summary.ending, Ending::Interrupted);
        assert!(summary.session_iterations > 0);
        assert_eq!(
            summary.progress.iterations,
            150 + summary.session_iterations
        );
    }

    #[test]
    fn a_second_session_on_one_directory_is_refused() {
        let dir = temp_dir("second");
        let (identity, settings) = settings(1000);
        let _first = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap();
        let error = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap_err();
        assert!(
            format!("{error:#}").contains("another trainer"),
            "{error:#}"
        );
    }
}
