//! A rank other than 0: it holds a replica in memory, trains its share of
//! each epoch, and does what rank 0 says until told to quit. It never
//! touches the run directory, so it needs no shared file system.

use cfr::discount::Discounter;
use cfr::distributed::{Collective, ReplicatedTable, replicate_from_root};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::meta::BlueprintSource;
use store::MemoryTable;

use super::epoch::{settle, train_epoch};
use super::orders::{self, Begin, Order};
use crate::config::worker_threads;
use crate::training::backend;
use crate::training::error::TrainingError;
use crate::training::looping;

/// Serves rank 0 until it says the command is over. Returns rank 0's
/// error, if its command failed (rank 0 reports it).
pub fn serve(group: &dyn Collective) -> Result<Option<String>, TrainingError> {
    loop {
        match orders::receive(group)? {
            Order::Begin(begin) => {
                if let Some(quit) = follow_session(group, &begin)? {
                    return Ok(quit);
                }
            }
            Order::Quit { error } => return Ok(error),
            Order::Probe(probe) => {
                probe.run(group)?;
            }
            order => return Err(out_of_order(group, &order)),
        }
    }
}

fn out_of_order(group: &dyn Collective, order: &Order) -> TrainingError {
    TrainingError::Cluster(format!(
        "rank {} got {order:?} outside a session: start every rank with the same trainer build",
        group.rank()
    ))
}

/// A replica ready to train, or why not.
struct Prepared {
    table: MemoryTable,
    blueprint: Option<BiddingBlueprint>,
}

fn prepare(group: &dyn Collective, begin: &Begin) -> Result<Prepared, String> {
    let layout = backend::layout(&begin.identity).map_err(|error| error.to_string())?;
    let blueprint = match (&begin.blueprint, begin.identity.bids.blueprint()) {
        (Some(bytes), Some(source)) => Some(load_blueprint(group, bytes, source, begin)?),
        (None, None) => None,
        _ => return Err("rank 0 sent no bids for a run with fixed bids".into()),
    };
    Ok(Prepared {
        table: MemoryTable::with_layout(layout),
        blueprint,
    })
}

/// The fixed bids from rank 0's bytes, checked against the run's checksum.
fn load_blueprint(
    group: &dyn Collective,
    bytes: &[u8],
    source: &BlueprintSource,
    begin: &Begin,
) -> Result<BiddingBlueprint, String> {
    let path = std::env::temp_dir().join(format!(
        "trainer-rank-{}-{}-bids.bin",
        group.rank(),
        std::process::id()
    ));
    std::fs::write(&path, bytes)
        .map_err(|error| format!("cannot write the bids to {}: {error}", path.display()))?;
    let copy = BlueprintSource {
        path: path.clone(),
        ..source.clone()
    };
    let loaded = BiddingBlueprint::reopen(&copy, begin.identity.rules)
        .map_err(|error| format!("the bids rank 0 sent do not load: {error}"));
    let _ = std::fs::remove_file(&path);
    loaded
}

/// One session: `Some(error)` if rank 0 quit in the middle of it.
fn follow_session(
    group: &dyn Collective,
    begin: &Begin,
) -> Result<Option<Option<String>>, TrainingError> {
    let prepared = prepare(group, begin);
    let mine = prepared.as_ref().map(|_| ()).map_err(Clone::clone);
    if orders::all_ready(group, mine)?.is_err() {
        // Rank 0 says why and ends the command.
        return Ok(None);
    }
    let Ok(Prepared { table, blueprint }) = prepared else {
        return Ok(None);
    };
    replicate_from_root(&table, group)?;
    let replica = ReplicatedTable::new(
        &table,
        Discounter::new(begin.identity.solver.schedule())?,
        begin.sync.reads.into(),
    )
    .with_strategy_sums(begin.sync.strategy_sums.into());
    let threads = worker_threads(begin.settings.threads);
    if let Some(warning) = crate::config::bound_cores_warning(begin.settings.threads) {
        tracing::warn!("rank {}: {warning}", group.rank());
    }
    let solver = looping::solver(
        &begin.identity,
        &begin.settings,
        &replica,
        blueprint.as_ref(),
        None,
        threads,
    )?;
    loop {
        match orders::receive(group)? {
            Order::Epoch { first, total } => {
                train_epoch(group, &solver, &replica, first, total, begin.sync.check)?;
            }
            Order::Settle { through } => {
                settle(group, &replica, through)?;
            }
            Order::End => return Ok(None),
            Order::Quit { error } => return Ok(Some(error)),
            order @ (Order::Begin(_) | Order::Probe(_)) => {
                return Err(out_of_order(group, &order));
            }
        }
    }
}
