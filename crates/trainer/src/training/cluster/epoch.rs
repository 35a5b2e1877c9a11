//! One epoch, as every rank runs it: its share of the iterations, the
//! sync, and the totals.

use cfr::distributed::{Collective, EpochShare, ReplicatedTable, SyncStats};
use cfr::mccfr::{BatchStats, ExternalSampling};
use store::Table;

use std::time::Instant;

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
    /// The replicas' digest and trained records, when asked to compare.
    pub checked: Option<(u64, u64)>,
}

/// Trains this rank's share of `total` iterations from `first`, syncs, and
/// sums the counts over the ranks; with `check`, compares every rank's
/// replica digest and fails if any differs. Every rank reports its room
/// after the sync by `memory`.
pub(crate) fn train_epoch<T: Table + ?Sized>(
    group: &dyn Collective,
    solver: &ExternalSampling<'_, EuchreGame<'_>, ReplicatedTable<'_, T>>,
    replica: &ReplicatedTable<'_, T>,
    memory: &RankMemory,
    (first, total): (u64, u64),
    check: bool,
) -> Result<EpochDone, TrainingError> {
    let last = first + total.max(1) - 1;
    let now = record_iteration(last)?;
    let share = EpochShare::of(first, total, group.rank(), group.size());
    let started = Instant::now();
    let mine = solver.run_share(share)?;
    let trained = started.elapsed();
    let sync = replica.sync(group, now)?;
    let ranks = telemetry::gather(
        group,
        RankEpoch::new(
            mine.iterations,
            trained.as_secs_f64(),
            (started.elapsed() - trained).as_secs_f64(),
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
    let checked = if check {
        let (digest, records) = replica.digest()?;
        let mine = [digest.to_le_bytes(), records.to_le_bytes()].concat();
        let everyone = group.all_gather(&mine)?;
        if let Some(rank) = everyone.iter().position(|theirs| theirs != &mine) {
            return Err(TrainingError::Cluster(format!(
                "after the sync at iteration {last}, rank {rank}'s replica differs from rank {}'s: the ranks no longer train the same table; resume from the last checkpoint",
                group.rank()
            )));
        }
        Some((digest, records))
    } else {
        None
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

/// Exchanges the strategy sums every rank held back, as of iteration
/// `through` (the last epoch's last); every rank calls it together.
pub(crate) fn settle<T: Table + ?Sized>(
    group: &dyn Collective,
    replica: &ReplicatedTable<'_, T>,
    through: u64,
) -> Result<SyncStats, TrainingError> {
    Ok(replica.settle(group, record_iteration(through)?)?)
}

/// `iteration`, refused past the stamps' limit, as the solver refuses it.
fn record_iteration(iteration: u64) -> Result<u64, TrainingError> {
    if iteration > cfr::mccfr::LAST_ITERATION {
        return Err(cfr::CfrError::IterationLimit(iteration).into());
    }
    Ok(iteration)
}
