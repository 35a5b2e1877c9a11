//! A training session: a run directory opened and locked, its store, and
//! the loop that iterates in batches, checkpoints on schedule and stops on
//! its budget or when asked.
//!
//! The session prints nothing. Whoever runs it (the `train` command, the
//! training benchmark, a test) watches it through a [`Watcher`]: a progress
//! bar and Ctrl-C for a person, nothing at all for a benchmark.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use store::{DurableTable, Manifest};
use tracing::info;

use crate::config::{BestResponseSettings, Identity, PruningSettings, SessionSettings};
use crate::format::{bytes, thousands};
use crate::solver_game::for_game::ForGame;
use crate::training::backend;
use crate::training::cluster::Group;
use crate::training::error::TrainingError;
use crate::training::looping::{
    BatchSize, Budget, Ending, GameInputs, LocalSteps, Looping, SessionCounts, Watcher, commit,
    solver,
};
use crate::training::run_dir::{Progress, RunDir, STORE_DIR, check_store_identity};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::bot::Bot;
use euchre_bots::bots::heuristic::Heuristic;
use euchre_bots::bots::policy::{PolicyBot, Sampling, Unseen};
use euchre_bots::card_play_table::CardPlayTable;
use euchre_bots::meta::BidsFor;

/// What a session did, for the caller to report.
#[derive(Debug)]
pub struct SessionSummary {
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

/// What bids for the game are valued by and start from, where the run
/// trains them: bids for the game whose bids are not fixed (a bidding run,
/// or full play's bidding stage).
pub(crate) fn for_game_of(identity: &Identity) -> Result<Option<ForGame>, TrainingError> {
    if identity.solver.bids_for != BidsFor::Game || identity.bids.blueprint().is_some() {
        return Ok(None);
    }
    let prior = identity
        .bids_prior
        .as_ref()
        .map(|source| BiddingBlueprint::reopen(source, identity.rules))
        .transpose()
        .map_err(TrainingError::Blueprint)?;
    if let Some(prior) = &prior {
        info!(
            "bids for the game start from the score-blind bids of {}",
            prior.source()
        );
    }
    Ok(Some(ForGame::new(prior)))
}

/// The policy a best response trains against, played as
/// `policy-argmax:FILE --unseen heuristic` plays it.
fn opponents_of(
    best_response: &BestResponseSettings,
    identity: &Identity,
) -> Result<PolicyBot, TrainingError> {
    let path = &best_response.policy;
    let bot = PolicyBot::load(
        path,
        Sampling::Argmax,
        Unseen::Heuristic,
        Arc::new(Heuristic),
    )
    .map_err(|source| TrainingError::BestResponsePolicy {
        path: path.clone(),
        source,
    })?;
    let rules = bot.rules();
    if rules != identity.rules {
        return Err(TrainingError::BestResponseRules {
            path: path.clone(),
            policy: rules.to_string(),
            run: identity.rules.to_string(),
        });
    }
    info!("{best_response}");
    Ok(bot)
}

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
    /// What bids for the game are valued by and start from.
    for_game: Option<ForGame>,
    /// The policy a best response is trained against.
    opponents: Option<PolicyBot>,
    progress: Progress,
    resumed_from: u64,
    /// When, and at which run total, the last checkpoint was written.
    last_checkpoint: (Instant, u64),
    /// The ranks this session trains on as their rank 0, if any.
    group: Option<Group>,
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

    /// The run directory, still locked, once the session is done with it.
    pub fn into_run(self) -> RunDir {
        self.run
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
        let for_game = for_game_of(identity)?;
        let opponents = settings
            .best_response_to
            .as_ref()
            .map(|best_response| opponents_of(best_response, identity))
            .transpose()?;
        info!(
            "run {}: phase {}, store {}, seed {}, solver {}, {} leaves, {} play key, {} opponents' bids, bids for {}",
            run_dir.display(),
            identity.phase,
            identity.store,
            identity.seed,
            identity.solver,
            identity.solver.leaves,
            identity.solver.abstraction,
            identity.solver.opponent_bids,
            identity.solver.bids_for
        );
        // Read before the store opens: a checkpoint rewrites it as current.
        let written_as = Manifest::read(&run.file(STORE_DIR))
            .ok()
            .flatten()
            .map(|manifest| manifest.format_version);
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
                watcher.opening(stage);
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
        if let Some(version) = written_as
            && version < 3
            && progress.iterations >= store::stamp::EXACT_BELOW
        {
            return Err(TrainingError::StampsPastOldFormat {
                dir: run_dir.clone(),
                iterations: progress.iterations,
                version,
            });
        }
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
            for_game,
            opponents,
            resumed_from: progress.iterations,
            last_checkpoint: (Instant::now(), progress.iterations),
            progress,
            group: None,
        })
    }

    /// Trains on `group` as its rank 0 (with `None`, alone).
    #[must_use]
    pub fn on(self, group: Option<Group>) -> Session {
        Session {
            group: group.filter(|group| group.size() > 1),
            ..self
        }
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
    ) -> Result<SessionSummary, TrainingError> {
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
            for_game,
            opponents,
            progress,
            last_checkpoint,
            group,
            ..
        } = self;
        let table = table.as_ref();
        let inputs = GameInputs {
            fixed_bids: fixed_bids.as_ref(),
            card_play: card_play.as_ref(),
            for_game: for_game.as_ref(),
            opponents: opponents.as_ref().map(|bot| bot as &dyn Bot),
        };
        let looping = Looping {
            run,
            identity,
            settings,
            table,
            inputs,
            threads,
        };
        match group {
            None => {
                let solver = solver(identity, settings, table, inputs, threads)?;
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
    ) -> SessionSummary {
        let summary = SessionSummary {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RunOptions, RunProfile, SessionOptions, resolve};
    use euchre_bots::phase::Phase;

    use test_support::TempDir;

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
        let resolved = resolve(RunProfile::default(), flags.into()).unwrap();
        let (identity, mut settings) = (resolved.identity, resolved.session);
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
        let resolved = resolve(RunProfile::default(), flags.into()).unwrap();
        let (identity, settings) = (resolved.identity, resolved.session);
        assert!(identity.bids.unfinished_stage().is_some());
        let dir = TempDir::unmade("unstaged");
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
        let dir = TempDir::unmade("budget");
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
        let dir = TempDir::unmade("second");
        let (identity, settings) = settings(1000);
        let _first = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap();
        let error = Session::open(&dir.0, &identity, &settings, &mut ()).unwrap_err();
        assert!(
            format!("{error:#}").contains("another trainer"),
            "{error:#}"
        );
    }
}
