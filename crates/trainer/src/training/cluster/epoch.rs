//! One epoch, as every rank runs it: its share of the iterations, the
//! sync, and the totals.

use cfr::distributed::{Collective, EpochShare, ReplicatedTable, SyncStats};
use cfr::mccfr::{BatchStats, ExternalSampling};
use store::Table;

use std::time::{Duration, Instant};

use super::SyncSettings;
use super::memory::RankMemory;
use super::orders::sum_counters;
use super::telemetry::{self, RankEpoch};
use crate::solver_game::EuchreGame;
use crate::training::error::TrainingError;

/// What an epoch did over all the ranks, and this rank's sync.
pub(crate) struct EpochDone {
    pub stats: BatchStats,
    pub sync: SyncStats,
    /// Every rank's share, in rank order.
    pub ranks: Vec<RankEpoch>,
    /// The iteration the replicas were synced through, and their digest
    /// and trained records, when asked to compare.
    pub checked: Option<(u64, (u64, u64))>,
}

/// How an epoch meets the syncs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EpochSyncs {
    /// Train, then sync the epoch.
    After,
    /// Train while the last epoch's sync runs, then put this epoch's
    /// changes in flight for the next.
    Beside,
}

impl EpochSyncs {
    /// How the epochs of a session with `settings` meet its syncs.
    pub(crate) fn of(settings: &SyncSettings) -> EpochSyncs {
        if settings.overlapped() {
            EpochSyncs::Beside
        } else {
            EpochSyncs::After
        }
    }
}

/// A stretch in which every rank is expected in the same collectives: a
/// rank silent for `within` is taken as gone
/// ([`Collective::expect_everyone`]). Ends when dropped, on every path out.
struct EveryoneExpected<'g>(&'g dyn Collective);

impl<'g> EveryoneExpected<'g> {
    fn new(group: &'g dyn Collective, within: Duration) -> EveryoneExpected<'g> {
        group.expect_everyone(Some(within));
        EveryoneExpected(group)
    }
}

impl Drop for EveryoneExpected<'_> {
    fn drop(&mut self) {
        self.0.expect_everyone(None);
    }
}

/// How long a silent rank is waited for after this rank trained for
/// `trained`: the settings' timeout, or the training if longer (the other
/// ranks trained as much, and one may be that much slower).
fn patience(settings: &SyncSettings, trained: Duration) -> Duration {
    settings.rank_timeout.max(trained)
}

/// Trains this rank's share of `total` iterations from `first` and syncs
/// (this epoch, or with [`EpochSyncs::Beside`] the last one, meanwhile),
/// and sums the counts over the ranks; with the settings' check, compares
/// every rank's replica digest and fails if any differs. Every rank reports
/// its room after the sync by `memory`. From the end of its training (and
/// through a sync beside it) a rank expects every other in the sync, and
/// ends naming one that goes silent.
pub(crate) fn train_epoch<T: Table + ?Sized>(
    group: &dyn Collective,
    solver: &ExternalSampling<'_, EuchreGame<'_>, ReplicatedTable<'_, T>>,
    replica: &ReplicatedTable<'_, T>,
    memory: &RankMemory,
    settings: &SyncSettings,
    (first, total): (u64, u64),
) -> Result<EpochDone, TrainingError> {
    let check = settings.check;
    let last = first + total.max(1) - 1;
    let now = record_iteration(last)?;
    let share = EpochShare::of(first, total, group.rank(), group.size());
    let started = Instant::now();
    // The sync's seconds: after the training, all of its time; beside
    // it, the time this thread spent in it.
    let synced_before = replica.in_flight();
    let (mine, trained, sync, sync_seconds) = match EpochSyncs::of(settings) {
        EpochSyncs::After => {
            let mine = solver.run_share(share)?;
            let trained = started.elapsed();
            let _expected = EveryoneExpected::new(group, patience(settings, trained));
            let sync = replica.sync(group, now)?;
            (
                mine,
                trained,
                sync,
                (started.elapsed() - trained).as_secs_f64(),
            )
        }
        EpochSyncs::Beside => {
            // The transport stays on this thread; the training goes to
            // another, which runs the solver's own thread pool.
            let (mine, sync) = std::thread::scope(|beside| {
                let training = beside.spawn(|| {
                    let mine = solver.run_share(share);
                    (mine, started.elapsed())
                });
                let sync = {
                    // Every rank starts this sync as its epoch starts.
                    let _expected = EveryoneExpected::new(group, settings.rank_timeout);
                    replica.finish_sync(group)
                };
                let synced = started.elapsed();
                let trained = training
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                (trained, (sync, synced))
            });
            let ((mine, trained), (sync, synced)) = (mine, sync);
            let (mine, sync) = (mine?, sync?);
            replica.close_epoch(now)?;
            (mine, trained, sync, synced.as_secs_f64())
        }
    };
    let _expected = EveryoneExpected::new(group, patience(settings, trained));
    let ranks = telemetry::gather(
        group,
        RankEpoch::new(
            mine.iterations,
            trained.as_secs_f64(),
            sync_seconds,
            &sync,
            memory.room(replica.len()),
        ),
    )?;
    let [iterations, regret_updates, strategy_updates, pruned_actions] = sum_counters(
        group,
        [
            mine.iterations,
            mine.regret_updates,
            mine.strategy_updates,
            mine.pruned_actions,
        ],
    )?;
    // Beside the syncs, the replicas hold every epoch before this one, if
    // one was in flight (not at a session's first epoch).
    let synced_through = match EpochSyncs::of(settings) {
        EpochSyncs::After => Some(last),
        EpochSyncs::Beside => synced_before.then(|| first - 1),
    };
    let checked = match synced_through {
        Some(through) if check => Some((
            through,
            same_everywhere(group, replica, &format!("at iteration {through}"))?,
        )),
        _ => None,
    };
    Ok(EpochDone {
        stats: BatchStats {
            iterations,
            regret_updates,
            strategy_updates,
            pruned_actions,
        },
        sync,
        ranks,
        checked,
    })
}

/// The replicas' digest and trained records, the same on every rank, or
/// an error naming the rank that differs after the sync `synced`.
fn same_everywhere<T: Table + ?Sized>(
    group: &dyn Collective,
    replica: &ReplicatedTable<'_, T>,
    synced: &str,
) -> Result<(u64, u64), TrainingError> {
    let (digest, records) = replica.digest()?;
    let mine = [digest.to_le_bytes(), records.to_le_bytes()].concat();
    let everyone = group.all_gather(&mine)?;
    if let Some(rank) = everyone.iter().position(|theirs| theirs != &mine) {
        return Err(TrainingError::Cluster(format!(
            "after the sync {synced}, rank {rank}'s replica differs from rank {}'s: the ranks no longer train the same table; resume from the last checkpoint",
            group.rank()
        )));
    }
    Ok((digest, records))
}

/// Finishes the sync in flight, if any (with `check`, comparing the
/// replicas after it), then exchanges the strategy sums every rank held
/// back, as of iteration `through` (the last epoch's last): afterwards
/// every replica holds every epoch. Every rank calls it together, at rank
/// 0's order, and expects every other in it.
pub(crate) fn settle<T: Table + ?Sized>(
    group: &dyn Collective,
    replica: &ReplicatedTable<'_, T>,
    through: u64,
    settings: &SyncSettings,
) -> Result<(SyncStats, SyncStats), TrainingError> {
    let check = settings.check;
    let _expected = EveryoneExpected::new(group, settings.rank_timeout);
    let was_in_flight = replica.in_flight();
    let finished = replica.finish_sync(group)?;
    if was_in_flight && check {
        let (digest, records) =
            same_everywhere(group, replica, &format!("at iteration {through}"))?;
        if group.rank() == 0 {
            tracing::info!(
                "sync at iteration {}: every replica has digest {digest:016x} over {} trained records",
                crate::format::thousands(through),
                crate::format::thousands(records)
            );
        }
    }
    let settled = replica.settle(group, record_iteration(through)?)?;
    Ok((finished, settled))
}

/// `iteration`, refused past the stamps' limit, as the solver refuses it.
fn record_iteration(iteration: u64) -> Result<u64, TrainingError> {
    if iteration > cfr::mccfr::LAST_ITERATION {
        return Err(cfr::CfrError::IterationLimit(iteration).into());
    }
    Ok(iteration)
}
