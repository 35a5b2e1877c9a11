//! A rank other than 0: it holds a replica, trains its share of each
//! epoch, and does what rank 0 says until told to quit. It never touches
//! the run directory, so it needs no shared file system.
//!
//! The replica is in rank 0's layout and, for a run on the mmap store, on
//! the same kind of store, built in this rank's temporary directory: a
//! follower on a memory table in full precision held about four times the
//! memory and trained 15% to 45% slower than rank 0, and the slowest rank
//! gates every sync.

use cfr::discount::Discounter;
use cfr::distributed::{Collective, ReplicatedTable, replicate_from_root};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::meta::BlueprintSource;
use store::{DurableTable, MemoryTable, Table};

use super::epoch::{settle, train_epoch};
use super::memory::{self, RankMemory};
use super::orders::{self, Begin, Order};
use super::skeleton;
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
    table: Replica,
    blueprint: Option<BiddingBlueprint>,
    memory: RankMemory,
}

/// Where a follower's replica lives.
enum Replica {
    /// For runs on the memory and LMDB stores: records decoded in memory,
    /// quantised as rank 0's layout quantises them.
    Memory(MemoryTable),
    /// For runs on the mmap store: the same store as rank 0's (perfect
    /// hash, records in rank 0's layout), in a directory of its own that
    /// goes when the session ends.
    Mmap {
        table: Box<dyn DurableTable>,
        _dir: ScratchDir,
    },
}

impl Replica {
    fn table(&self) -> &dyn Table {
        match self {
            Replica::Memory(table) => table,
            Replica::Mmap { table, .. } => &**table,
        }
    }

    /// This rank's memory plan with the replica made (`None` if its memory
    /// is unknown): a memory replica has rank 0's `records` still to
    /// come, an mmap one its files to map.
    fn plan(&self, group: &dyn Collective, begin: &Begin) -> RankMemory {
        let (store_files, records_to_come) = match self {
            Replica::Memory(_) => (0, begin.records),
            Replica::Mmap { .. } => (begin.skeleton.as_ref().map_or(0, memory::skeleton_bytes), 0),
        };
        RankMemory {
            plan: memory::plan_this_rank(
                begin.sync.rank_memory,
                store_files,
                records_to_come,
                group.rank() == 0,
            ),
            records_at_plan: begin.records,
        }
    }
}

/// A directory removed when dropped.
struct ScratchDir(std::path::PathBuf);

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The directory of this rank's replica store, for runs on the mmap store.
fn scratch_dir(group: &dyn Collective) -> ScratchDir {
    let dir = ScratchDir(std::env::temp_dir().join(format!(
        "trainer-rank-{}-{}-store",
        group.rank(),
        std::process::id()
    )));
    let _ = std::fs::remove_dir_all(&dir.0);
    dir
}

/// The replica for `begin`'s run (see [`Replica`]); for the mmap store, in
/// `dir`, where rank 0's skeleton has been received.
fn make_replica(group: &dyn Collective, begin: &Begin, dir: ScratchDir) -> Result<Replica, String> {
    let layout = backend::layout(&begin.identity).map_err(|error| error.to_string())?;
    let Some(skeleton) = &begin.skeleton else {
        return Ok(Replica::Memory(MemoryTable::with_layout(layout)));
    };
    let rank = group.rank();
    let tuning = backend::StoreTuning {
        lmdb_cache_records: begin.settings.lmdb_cache_records,
        mmap_writeback: begin.settings.mmap_writeback,
    };
    let table = backend::open_from_skeleton(
        &begin.identity,
        &dir.0,
        tuning,
        skeleton,
        worker_threads(begin.settings.threads),
        &mut |stage| tracing::info!("rank {rank} store: {stage}"),
    )
    .map_err(|error| {
        format!(
            "cannot make its replica's store in {}: {error}",
            dir.0.display()
        )
    })?;
    Ok(Replica::Mmap { table, _dir: dir })
}

/// Receives what rank 0 sends with the session's start, then makes the
/// replica: `Err` inside says why this rank cannot train.
fn prepare(
    group: &dyn Collective,
    begin: &Begin,
) -> Result<Result<Prepared, String>, TrainingError> {
    // First, before anything that may fail here: every broadcast of rank
    // 0's store skeleton must be taken, or rank 0 would wait forever.
    let dir = scratch_dir(group);
    let received = match &begin.skeleton {
        Some(skeleton) => skeleton::receive(group, &dir.0, skeleton)?.map_err(|error| {
            format!(
                "cannot make its replica's store in {}: {error}",
                dir.0.display()
            )
        }),
        None => Ok(()),
    };
    Ok(received.and_then(|()| {
        let blueprint = match (&begin.blueprint, begin.identity.bids.blueprint()) {
            (Some(bytes), Some(source)) => Some(load_blueprint(group, bytes, source, begin)?),
            (None, None) => None,
            _ => return Err("rank 0 sent no bids for a run with fixed bids".into()),
        };
        let table = make_replica(group, begin, dir)?;
        let memory = table.plan(group, begin);
        if let Some(plan) = memory.plan {
            plan.check()?;
        }
        Ok(Prepared {
            table,
            blueprint,
            memory,
        })
    }))
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
    let prepared = prepare(group, begin)?;
    let mine = prepared.as_ref().map(|_| ()).map_err(Clone::clone);
    if orders::all_ready(group, mine)?.is_err() {
        // Rank 0 says why and ends the command.
        return Ok(None);
    }
    let Ok(Prepared {
        table,
        blueprint,
        memory,
    }) = prepared
    else {
        return Ok(None);
    };
    memory::gather_plans(group, memory.plan)?;
    let table = table.table();
    replicate_from_root(table, group)?;
    let replica = ReplicatedTable::new(
        table,
        Discounter::new(begin.identity.solver.schedule())?,
        begin.sync.reads.into(),
    )
    .with_strategy_sums(begin.sync.strategy_sums.into());
    let replica = super::replica_for(
        replica,
        &begin.identity,
        &begin.sync,
        begin.skeleton.as_ref(),
    )?;
    let threads = worker_threads(begin.settings.threads);
    if let Some(warning) = crate::config::bound_cores_warning(begin.settings.threads) {
        tracing::warn!("rank {}: {warning}", group.rank());
    }
    let for_game = crate::training::session::for_game_of(&begin.identity)?;
    let solver = looping::solver(
        &begin.identity,
        &begin.settings,
        &replica,
        looping::GameInputs {
            fixed_bids: blueprint.as_ref(),
            card_play: None,
            for_game: for_game.as_ref(),
            opponents: None,
        },
        threads,
    )?;
    loop {
        match orders::receive(group)? {
            Order::Epoch { first, total } => {
                train_epoch(
                    group,
                    &solver,
                    &replica,
                    &memory,
                    &begin.sync,
                    (first, total),
                )?;
            }
            Order::Settle { through } => {
                settle(group, &replica, through, &begin.sync)?;
            }
            Order::End => return Ok(None),
            Order::Quit { error } => return Ok(Some(error)),
            order @ (Order::Begin(_) | Order::Probe(_)) => {
                return Err(out_of_order(group, &order));
            }
        }
    }
}
