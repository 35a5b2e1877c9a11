//! Rank 0's side of a session: it tells the others what to train, trains
//! its own share, and does everything that touches the run directory.

use std::time::{Duration, Instant};

use cfr::discount::Discounter;
use cfr::distributed::{Collective, EntryBytes, ReplicatedTable, SyncStats, replicate_from_root};
use cfr::mccfr::{BatchStats, ExternalSampling};
use store::DurableTable;
use tracing::{debug, info, warn};

use super::epoch::{EpochSyncs, settle, train_epoch};
use super::memory::{self, RankMemory};
use super::orders::{self, Begin, Order};
use super::telemetry::{self, EpochLog, Event, RankEpoch, Telemetry};
use super::{SyncEvery, SyncSettings};
use crate::format::{bytes, thousands};
use crate::solver_game::EuchreGame;
use crate::training::error::TrainingError;
use crate::training::looping::{self, Budget, Ending, Looping, SessionCounts, Steps, Watcher};
use crate::training::run_dir::{Progress, STORE_DIR};

/// Runs the session's loop with every rank training: the followers open
/// replicas of the table, get rank 0's records, and train one epoch per
/// step. Rank 0 checkpoints and measures between epochs, when the
/// replicas are identical.
pub(crate) fn lead_session(
    group: &dyn Collective,
    looping: &Looping<'_>,
    budget: Budget,
    watcher: &mut dyn Watcher,
    progress: &mut Progress,
    last_checkpoint: &mut (Instant, u64),
) -> Result<(SessionCounts, Ending), TrainingError> {
    if looping.identity.bids_prior.is_some() {
        return Err(TrainingError::BidsPriorOnCluster);
    }
    if looping.inputs.opponents.is_some() {
        return Err(TrainingError::BestResponseOnCluster);
    }
    if looping.inputs.card_play.is_some() {
        // Refused before any order goes out, so the ranks wait for the
        // next session as after any other refused start.
        return Err(TrainingError::TablePlayOnCluster);
    }
    let sync = looping.settings.sync;
    let (skeleton, rank_memory) = begin(group, looping)?;
    let epoch_log = replicate(group, looping, last_checkpoint.1)?;
    let replica = ReplicatedTable::new(
        looping.table,
        Discounter::new(looping.identity.solver.schedule())?,
        sync.reads.into(),
    )
    .with_strategy_sums(sync.strategy_sums.into());
    let replica = super::replica_for(replica, looping.identity, &sync, skeleton.as_ref())?;
    if replica.trains_in_place() {
        info!(
            "cluster: card play keeps no average, so every rank trains in place on its replica{}",
            if skeleton.is_some() {
                " and names the records a sync sends by slot"
            } else {
                ""
            }
        );
    }
    let solver = looping::solver(
        looping.identity,
        looping.settings,
        &replica,
        looping.inputs,
        looping.threads,
    )?;
    let mut steps = Epochs {
        group,
        replica: &replica,
        solver: &solver,
        sizing: EpochSizing::new(sync, group.size()),
        memory: rank_memory,
        costs_per_entry: planned_entry_bytes(&replica, sync),
        held_before: vec![0; group.size()],
        fixed_epochs_warned: false,
        costs: SyncCosts::default(),
        telemetry: Telemetry::default(),
        epoch_log,
        dir: looping.run.path(),
        stamp: 0,
    };
    let result = looping.run(budget, watcher, &mut steps, progress, last_checkpoint);
    if result.is_ok() {
        orders::send(group, &Order::End)?;
        steps
            .costs
            .log(group.size(), EpochSyncs::of(&sync) == EpochSyncs::Beside);
    }
    steps.report_telemetry();
    result
}

/// Starts every rank on this session: the run's settings, its blueprint
/// and (on mmap) the store's keys and perfect hash sent, every rank ready
/// and its memory plan gathered. Returns the store's skeleton, if any,
/// and this rank's memory plan.
fn begin(
    group: &dyn Collective,
    looping: &Looping<'_>,
) -> Result<(Option<store::Skeleton>, RankMemory), TrainingError> {
    let sync = looping.settings.sync;
    let blueprint =
        match looping.identity.bids.blueprint() {
            Some(source) => Some(std::fs::read(&source.path).map_err(|source_error| {
                TrainingError::Unreadable {
                    path: source.path.clone(),
                    source: source_error,
                }
            })?),
            None => None,
        };
    let store_dir = looping.run.file(STORE_DIR);
    let skeleton = match looping.identity.store {
        store::Backend::Mmap => Some(store::Skeleton::of(&store_dir)?),
        store::Backend::Memory | store::Backend::Lmdb => None,
    };
    orders::send(
        group,
        &Order::Begin(Box::new(Begin {
            identity: looping.identity.clone(),
            settings: looping.settings.clone(),
            sync,
            blueprint,
            skeleton: skeleton.clone(),
            records: looping.table.len(),
        })),
    )?;
    let sent = match &skeleton {
        Some(skeleton) => {
            let started = Instant::now();
            let sent = super::skeleton::send(group, &store_dir, skeleton)?;
            if sent.is_ok() {
                info!(
                    "cluster: the store's keys and perfect hash ({}) sent to every rank in {:.1} s",
                    bytes(skeleton.keys.bytes + skeleton.phf.bytes),
                    started.elapsed().as_secs_f64()
                );
            }
            sent
        }
        None => Ok(()),
    };
    let store_files = skeleton.as_ref().map_or(0, memory::skeleton_bytes);
    let plan = memory::plan_this_rank(sync.rank_memory, store_files, 0, true);
    let ready = sent.and_then(|()| plan.map_or(Ok(()), |plan| plan.check()));
    if let Err((rank, reason)) = orders::all_ready(group, ready)? {
        return Err(TrainingError::Cluster(format!(
            "rank {rank} cannot train this run: {reason}"
        )));
    }
    for (rank, plan) in memory::gather_plans(group, plan)?.iter().enumerate() {
        match plan {
            Some(plan) => info!("cluster: rank {rank} {}", plan.describe()),
            None => {
                warn!("cluster: rank {rank}'s memory is unknown; its epochs are not kept to it");
            }
        }
    }
    let rank_memory = RankMemory {
        plan,
        records_at_plan: looping.table.len(),
    };
    Ok((skeleton, rank_memory))
}

/// Copies the trained records to every rank, logged as the session's
/// first event (at the run's `iterations`).
fn replicate(
    group: &dyn Collective,
    looping: &Looping<'_>,
    iterations: u64,
) -> Result<EpochLog, TrainingError> {
    let sync = looping.settings.sync;
    let copied = replicate_from_root(looping.table, group)?;
    let mut epoch_log = EpochLog::new(looping.run.path());
    epoch_log.append(
        Event::Replicate,
        iterations,
        copied.seconds,
        &[RankEpoch {
            records_sent: copied.records,
            bytes_sent: copied.bytes,
            ..RankEpoch::default()
        }],
    );
    info!(
        "cluster: {} ranks × {} threads, {sync}; {} trained records ({}) copied to every rank in {:.1} s",
        group.size(),
        looping.threads,
        thousands(copied.records),
        bytes(copied.bytes),
        copied.seconds
    );
    if let Some(warning) = super::grace::warning_for_this_process() {
        warn!("{warning}");
    }
    if let Some(warning) = crate::config::bound_cores_warning(looping.settings.threads) {
        warn!("rank 0: {warning}");
    }
    Ok(epoch_log)
}

/// Epochs as the session loop's steps.
struct Epochs<'a, 't> {
    group: &'a dyn Collective,
    replica: &'a ReplicatedTable<'t, dyn DurableTable + 't>,
    solver: &'a ExternalSampling<'t, EuchreGame<'t>, ReplicatedTable<'t, dyn DurableTable + 't>>,
    sizing: EpochSizing,
    /// This rank's memory plan, and what a rank's bookkeeping costs per
    /// entry: what every epoch is sized to fit.
    memory: RankMemory,
    costs_per_entry: EntryBytes,
    /// Every rank's held strategy sums before the last epoch.
    held_before: Vec<u64>,
    fixed_epochs_warned: bool,
    costs: SyncCosts,
    telemetry: Telemetry,
    epoch_log: EpochLog,
    dir: &'a std::path::Path,
    stamp: u64,
}

impl Epochs<'_, '_> {
    /// Logs the per-rank summary since the last one and keeps it in the
    /// run directory for `trainer status`.
    fn report_telemetry(&mut self) {
        if let Some(summary) = self.telemetry.take(self.stamp) {
            info!("{}", summary.trim_end());
            telemetry::record(self.dir, &summary);
        }
    }
}

impl Epochs<'_, '_> {
    /// Keeps the next epoch within every rank's room: settles held sums
    /// that fill half a rank's room, and shortens epochs sized by time (a
    /// fixed number of iterations is the user's, so it is only warned of).
    fn keep_to_memory(&mut self, fit: memory::Fit, through: u64) -> Result<(), TrainingError> {
        if let Some(rank) = fit.settle {
            info!(
                "cluster: rank {rank}'s held strategy sums fill half its memory's room; settling them early"
            );
            Steps::settle(self, through)?;
            self.held_before.iter_mut().for_each(|held| *held = 0);
        }
        let Some(largest) = fit.largest_epoch else {
            return Ok(());
        };
        match self.sizing.settings.every {
            SyncEvery::Time(_) => {
                if self.sizing.cap(largest) {
                    debug!(
                        "cluster: epochs held to {} iterations to fit every rank's memory",
                        thousands(largest)
                    );
                }
            }
            SyncEvery::Iterations(iterations) => {
                if iterations > largest && !self.fixed_epochs_warned {
                    warn!(
                        "cluster: epochs of {} iterations may not fit a rank's memory (about {} do): use --sync-iterations {} or fewer, or --sync-every, which keeps epochs to the ranks' memory",
                        thousands(iterations),
                        thousands(largest),
                        largest.max(1)
                    );
                    self.fixed_epochs_warned = true;
                }
            }
        }
        Ok(())
    }
}

impl Steps for Epochs<'_, '_> {
    fn preferred(&self) -> u64 {
        self.sizing.next()
    }

    fn run(&mut self, first: u64, count: u64) -> Result<BatchStats, TrainingError> {
        let started = Instant::now();
        orders::send(
            self.group,
            &Order::Epoch {
                first,
                total: count,
            },
        )?;
        let done = train_epoch(
            self.group,
            self.solver,
            self.replica,
            &self.memory,
            &self.sizing.settings,
            (first, count),
        )?;
        let took = started.elapsed();
        self.sizing.adapt(count, took);
        let fit = memory::fit(&done.ranks, &self.held_before, self.costs_per_entry);
        self.held_before = done.ranks.iter().map(|rank| rank.held_entries).collect();
        self.keep_to_memory(fit, first + count - 1)?;
        self.costs.add(&done.sync, took);
        self.stamp = first + count - 1;
        self.telemetry.add(&done.ranks);
        self.epoch_log
            .append(Event::Sync, self.stamp, took.as_secs_f64(), &done.ranks);
        if self.telemetry.due() {
            self.report_telemetry();
        }
        debug!(
            "epoch of {} iterations from {}: {:.2} s, sync sent {} records ({}) and received {} in {:.3} s to drain + {:.3} s to exchange + {:.3} s to apply {} records",
            thousands(count),
            thousands(first),
            took.as_secs_f64(),
            thousands(done.sync.records_sent),
            bytes(done.sync.bytes_sent),
            bytes(done.sync.bytes_received),
            done.sync.drain_seconds,
            done.sync.exchange_seconds,
            done.sync.apply_seconds,
            thousands(done.sync.records_applied)
        );
        if let Some((through, (digest, records))) = done.checked {
            info!(
                "sync at iteration {}: every replica has digest {digest:016x} over {} trained records",
                thousands(through),
                thousands(records)
            );
        }
        Ok(done.stats)
    }

    fn settle(&mut self, through: u64) -> Result<(), TrainingError> {
        if self.replica.strategy_sums() == cfr::distributed::StrategySums::EachSync
            && !self.replica.in_flight()
        {
            return Ok(());
        }
        let started = Instant::now();
        orders::send(self.group, &Order::Settle { through })?;
        let (finished, settled) = settle(self.group, self.replica, through, &self.sizing.settings)?;
        if finished != SyncStats::default() {
            // The last epoch's sync, with no epoch beside it to train.
            self.costs.add(&finished, started.elapsed());
        }
        if self.replica.strategy_sums() == cfr::distributed::StrategySums::EachSync {
            return Ok(());
        }
        self.epoch_log.append(
            Event::Settle,
            through,
            started.elapsed().as_secs_f64(),
            &[RankEpoch {
                sync_seconds: settled.exchange_seconds + settled.apply_seconds,
                exchange_seconds: settled.exchange_seconds,
                apply_seconds: settled.apply_seconds,
                records_sent: settled.records_sent,
                bytes_sent: settled.bytes_sent,
                records_applied: settled.records_applied,
                resident_bytes: telemetry::resident_bytes(),
                ..RankEpoch::default()
            }],
        );
        debug!(
            "settle at iteration {}: sent {} records of strategy sums ({}) in {} rounds (at most {} received in one), applied {} in {:.3} s + {:.3} s",
            thousands(through),
            thousands(settled.records_sent),
            bytes(settled.bytes_sent),
            settled.rounds,
            bytes(settled.largest_round_bytes),
            thousands(settled.records_applied),
            settled.exchange_seconds,
            settled.apply_seconds
        );
        self.costs.add_settle(&settled);
        Ok(())
    }
}

/// What a rank's bookkeeping costs per entry: with syncs beside training,
/// an epoch's delta buffer lives on while the next one fills, so twice.
fn planned_entry_bytes<T: store::Table + ?Sized>(
    replica: &ReplicatedTable<'_, T>,
    settings: SyncSettings,
) -> EntryBytes {
    let costs = replica.entry_bytes();
    match EpochSyncs::of(&settings) {
        EpochSyncs::After => costs,
        EpochSyncs::Beside => EntryBytes {
            pending: 2 * costs.pending,
            ..costs
        },
    }
}

/// Iterations per epoch: fixed, or adapted so an epoch takes about the
/// sync period.
struct EpochSizing {
    settings: SyncSettings,
    ranks: u64,
    current: u64,
}

impl EpochSizing {
    /// Holds the next epoch to at most `largest` iterations (at least one
    /// a rank); says whether that shortened it.
    fn cap(&mut self, largest: u64) -> bool {
        let largest = largest.max(self.ranks);
        let shortened = self.current > largest;
        self.current = self.current.min(largest);
        shortened
    }
}

impl EpochSizing {
    fn new(settings: SyncSettings, ranks: usize) -> EpochSizing {
        EpochSizing {
            settings,
            ranks: ranks as u64,
            current: ranks as u64,
        }
    }

    fn next(&self) -> u64 {
        match self.settings.every {
            SyncEvery::Iterations(iterations) => iterations.max(1),
            SyncEvery::Time(_) => self.current,
        }
    }

    /// Scales the next epoch toward the period by the last one's rate,
    /// at most fourfold at a time.
    fn adapt(&mut self, count: u64, took: Duration) {
        if let SyncEvery::Time(period) = self.settings.every {
            let scale = period.as_secs_f64() / took.as_secs_f64().max(1e-6);
            let next = (count as f64 * scale.clamp(0.5, 4.0)) as u64;
            self.current = next.max(self.ranks);
        }
    }
}

/// Rank 0's sums of what the syncs cost, for the session's summary.
#[derive(Default)]
struct SyncCosts {
    settles: u64,
    settle_records_applied: u64,
    settle_seconds: f64,
    syncs: u64,
    records_sent: u64,
    bytes_sent: u64,
    bytes_received: u64,
    records_applied: u64,
    drain_seconds: f64,
    exchange_seconds: f64,
    apply_seconds: f64,
    epoch_seconds: f64,
}

impl SyncCosts {
    fn add(&mut self, sync: &SyncStats, took: Duration) {
        self.syncs += 1;
        self.records_sent += sync.records_sent;
        self.bytes_sent += sync.bytes_sent;
        self.bytes_received += sync.bytes_received;
        self.records_applied += sync.records_applied;
        self.drain_seconds += sync.drain_seconds;
        self.exchange_seconds += sync.exchange_seconds;
        self.apply_seconds += sync.apply_seconds;
        self.epoch_seconds += took.as_secs_f64();
    }

    fn add_settle(&mut self, settle: &SyncStats) {
        self.settles += 1;
        self.settle_records_applied += settle.records_applied;
        self.settle_seconds += settle.exchange_seconds + settle.apply_seconds;
    }

    /// Logs the session's syncs; `beside`: whether they ran beside the
    /// training, so that their time was not the epochs' to wait for.
    fn log(&self, ranks: usize, beside: bool) {
        if self.syncs == 0 {
            return;
        }
        let n = self.syncs as f64;
        let share = 100.0 * (self.drain_seconds + self.exchange_seconds + self.apply_seconds)
            / self.epoch_seconds;
        info!(
            "cluster: {} syncs over {ranks} ranks; per sync rank 0 sent {} records ({}), received {}, applied {} records; drain {:.3} s, exchange {:.3} s, apply {:.3} s; syncs {} {share:.1}% of the epochs' time",
            thousands(self.syncs),
            thousands((self.records_sent as f64 / n) as u64),
            bytes((self.bytes_sent as f64 / n) as u64),
            bytes((self.bytes_received as f64 / n) as u64),
            thousands((self.records_applied as f64 / n) as u64),
            self.drain_seconds / n,
            self.exchange_seconds / n,
            self.apply_seconds / n,
            if beside {
                "ran beside the training for"
            } else {
                "took"
            },
        );
        if self.settles > 0 {
            info!(
                "cluster: {} settles of the strategy sums held back from the syncs; per settle {} records applied in {:.3} s",
                thousands(self.settles),
                thousands(self.settle_records_applied / self.settles),
                self.settle_seconds / self.settles as f64
            );
        }
    }
}
