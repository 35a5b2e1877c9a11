//! A replica whose updates wait in a delta buffer until the ranks sync.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use store::{Key, Record, SlotId, StoreError, Table};

use super::collective::Collective;
use super::wire::{self, Values};
use crate::discount::Discounter;
use crate::error::CfrError;
use crate::regret::floor_regrets;

/// What a rank's reads see between syncs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reads {
    /// The replica plus this rank's own pending updates: asynchronous
    /// MCCFR as on one machine, with the other ranks' updates arriving at
    /// each sync.
    #[default]
    Live,
    /// The replica as of the last sync only: every iteration of an epoch,
    /// on every rank, plays the same strategy, so an epoch is one exact
    /// (sampled) iteration over all the ranks' deals.
    Frozen,
}

impl std::fmt::Display for Reads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Reads::Live => "live",
            Reads::Frozen => "frozen",
        })
    }
}

impl std::str::FromStr for Reads {
    type Err = String;

    fn from_str(text: &str) -> Result<Reads, String> {
        match text {
            "live" => Ok(Reads::Live),
            "frozen" => Ok(Reads::Frozen),
            other => Err(format!("`{other}`: reads are `live` or `frozen`")),
        }
    }
}

/// When the strategy sums travel between ranks.
///
/// Regret matching reads only the regrets, so the strategy sums change
/// nothing in training until someone reads the average strategy: a
/// checkpoint, a curve point, an export. Deferring them halves what a
/// sync carries per record and leaves out the records that only other
/// players' sampled decisions touched (in external sampling, most of
/// them), at the price of each rank holding its own sums, discounted as
/// they wait, until [`ReplicatedTable::settle`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum StrategySums {
    /// With the regrets, at every sync.
    #[default]
    EachSync,
    /// Held by each rank until a settle.
    Deferred,
}

impl std::fmt::Display for StrategySums {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StrategySums::EachSync => "each-sync",
            StrategySums::Deferred => "deferred",
        })
    }
}

/// One slot's strategy sums held back from the syncs, as of iteration
/// `at`.
#[derive(Clone, Copy, Debug)]
struct Deferred {
    key: Key,
    sums: [f32; store::MAX_ACTIONS],
    at: u32,
}

/// One slot's updates since the last sync.
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    key: Key,
    /// The additive change: regrets and strategy sums added by this rank.
    change: Record,
    /// The iteration of this rank's last update of the slot; 0 if none.
    last_update: u32,
}

/// What one sync moved and how long it took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SyncStats {
    /// Records this rank changed since the last sync.
    pub records_sent: u64,
    pub bytes_sent: u64,
    /// Bytes from all the other ranks.
    pub bytes_received: u64,
    /// Distinct records changed by any rank: what every replica applied.
    pub records_applied: u64,
    /// Seconds spent exchanging (waiting for the slowest rank included).
    pub exchange_seconds: f64,
    /// Seconds spent summing and applying.
    pub apply_seconds: f64,
}

/// Shards of the delta buffer: enough that two threads rarely meet.
const SHARDS: usize = 1024;

/// A [`Table`] over one rank's replica (`base`) that holds back the
/// replica's changes until [`ReplicatedTable::sync`]. Updates are applied
/// to a view of the record, and the difference they make, beyond the
/// discounting to the update's iteration, is what is kept: the additive
/// part that the ranks can sum. Discounting, CFR+ flooring and the
/// quantisation of the base's layout happen at the sync, the same on every
/// rank.
pub struct ReplicatedTable<'a, T: Table + ?Sized> {
    base: &'a T,
    discounter: Discounter,
    floor: bool,
    reads: Reads,
    shards: Vec<Mutex<FxHashMap<u64, Pending>>>,
    strategy_sums: StrategySums,
    /// Strategy sums waiting for a settle, sharded like `shards`.
    deferred: Vec<Mutex<FxHashMap<u64, Deferred>>>,
}

impl<T: Table + ?Sized> std::fmt::Debug for ReplicatedTable<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplicatedTable")
            .field("reads", &self.reads)
            .finish_non_exhaustive()
    }
}

impl<'a, T: Table + ?Sized> ReplicatedTable<'a, T> {
    /// `discounter` must be the solver's: the sync discounts the replica
    /// to each epoch's end the way the solver would have.
    pub fn new(base: &'a T, discounter: Discounter, reads: Reads) -> Self {
        ReplicatedTable {
            base,
            floor: discounter.schedule().floor_regrets,
            discounter,
            reads,
            shards: (0..SHARDS).map(|_| Mutex::default()).collect(),
            strategy_sums: StrategySums::EachSync,
            deferred: Vec::new(),
        }
    }

    /// Sends the strategy sums as `strategy_sums` says; every rank must
    /// say the same.
    #[must_use]
    pub fn with_strategy_sums(mut self, strategy_sums: StrategySums) -> Self {
        self.strategy_sums = strategy_sums;
        self.deferred = match strategy_sums {
            StrategySums::EachSync => Vec::new(),
            StrategySums::Deferred => (0..SHARDS).map(|_| Mutex::default()).collect(),
        };
        self
    }

    pub fn strategy_sums(&self) -> StrategySums {
        self.strategy_sums
    }

    /// Records whose strategy sums wait for a settle.
    pub fn deferred(&self) -> u64 {
        self.deferred
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len() as u64)
            .sum()
    }

    /// Adds one slot's strategy-sum change of the epoch ending at `now` to
    /// what waits for the settle, discounting what waited to `now` first.
    fn defer(&self, slot: u64, key: Key, change: &Record, now: u32, width: usize) {
        let mut shard = self.deferred[slot as usize % SHARDS]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let held = shard.entry(slot).or_insert(Deferred {
            key,
            sums: [0.0; store::MAX_ACTIONS],
            at: now,
        });
        self.discount_held(held, now);
        for (sum, delta) in held.sums[..width].iter_mut().zip(&change.strategy_sum) {
            *sum += delta;
        }
    }

    /// Discounts held sums from their iteration to `now`, as the replica's
    /// own sums are discounted when caught up.
    fn discount_held(&self, held: &mut Deferred, now: u32) {
        if held.at < now {
            let mut record = Record {
                strategy_sum: held.sums,
                last_iteration: held.at,
                ..Record::default()
            };
            self.discounter.catch_up(&mut record, now);
            held.sums = record.strategy_sum;
            held.at = now;
        }
    }

    pub fn base(&self) -> &'a T {
        self.base
    }

    pub fn reads(&self) -> Reads {
        self.reads
    }

    /// Notes `key` as the key of `slot`, for the sync, which sends keys
    /// (replicas on different backends number their slots apart).
    fn remember(&self, slot: SlotId, key: Key) {
        self.shard(slot)
            .entry(slot.index() as u64)
            .or_insert_with(|| Pending {
                key,
                ..Pending::default()
            });
    }

    fn shard(&self, slot: SlotId) -> MutexGuard<'_, FxHashMap<u64, Pending>> {
        self.shards[slot.index() % SHARDS]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Records with pending changes.
    pub fn pending(&self) -> u64 {
        self.shards
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len() as u64)
            .sum()
    }

    /// The record as this rank's updates see it: the replica, plus this
    /// rank's pending changes when reads are live, and never fresh again
    /// once this rank has updated it (so a warm start seeds it once).
    fn view(&self, base: Record, pending: Option<&Pending>) -> Record {
        let Some(pending) = pending else {
            return base;
        };
        // The pending change is in the units of this rank's last update,
        // so the replica's record is caught up to it first: a record last
        // synced epochs ago is discounted as the one process would have.
        let mut view = base;
        self.discounter.catch_up(&mut view, pending.last_update);
        if self.reads == Reads::Live {
            add_values(&mut view, &pending.change);
        }
        view
    }

    /// Exchanges every rank's pending changes and applies their sum to the
    /// replica, after discounting it to iteration `now` (the epoch's last).
    /// Every rank must call it with the same `now`; afterwards every
    /// replica holds the same records, bit for bit. With
    /// [`StrategySums::Deferred`] only the regrets travel; the strategy
    /// sums wait on this rank for [`ReplicatedTable::settle`].
    pub fn sync(&self, group: &dyn Collective, now: u32) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        let values = match self.strategy_sums {
            StrategySums::EachSync => Values::Both,
            StrategySums::Deferred => Values::Regrets,
        };
        let mut outgoing = Vec::new();
        let mut records_sent = 0;
        for shard in &self.shards {
            let drained =
                std::mem::take(&mut *shard.lock().unwrap_or_else(PoisonError::into_inner));
            for (&slot, pending) in &drained {
                if pending.last_update == 0 {
                    continue;
                }
                if values == Values::Regrets {
                    if pending.change.strategy_sum[..width]
                        .iter()
                        .any(|&d| d != 0.0)
                    {
                        self.defer(slot, pending.key, &pending.change, now, width);
                    }
                    if pending.change.regrets[..width].iter().all(|&d| d == 0.0) {
                        continue;
                    }
                }
                wire::put_delta(&mut outgoing, pending.key, &pending.change, width, values);
                records_sent += 1;
            }
        }
        let floor = self.floor;
        let stats = self.exchange_and_apply(group, &outgoing, values, now, |record, change| {
            add_values(record, change);
            if floor {
                floor_regrets(&mut record.regrets[..width]);
            }
        })?;
        Ok(SyncStats {
            records_sent,
            // Draining the buffers counts as the exchange's.
            exchange_seconds: started.elapsed().as_secs_f64() - stats.apply_seconds,
            ..stats
        })
    }

    /// Exchanges and applies every rank's deferred strategy sums,
    /// discounted to iteration `now` (the last sync's). Afterwards every
    /// replica holds the sums it would have held had they travelled with
    /// every sync, up to rounding, and the same bits on every rank: a
    /// checkpoint, a curve point or an export must follow a settle. Every
    /// rank must call it with the same `now`. With
    /// [`StrategySums::EachSync`] there is nothing to settle and no rank
    /// communicates.
    pub fn settle(&self, group: &dyn Collective, now: u32) -> Result<SyncStats, CfrError> {
        if self.strategy_sums == StrategySums::EachSync {
            return Ok(SyncStats::default());
        }
        let width = self.base.max_actions();
        let started = Instant::now();
        let mut outgoing = Vec::new();
        let mut records_sent = 0;
        for shard in &self.deferred {
            let drained =
                std::mem::take(&mut *shard.lock().unwrap_or_else(PoisonError::into_inner));
            for mut held in drained.into_values() {
                self.discount_held(&mut held, now);
                let change = Record {
                    strategy_sum: held.sums,
                    ..Record::default()
                };
                wire::put_delta(
                    &mut outgoing,
                    held.key,
                    &change,
                    width,
                    Values::StrategySums,
                );
                records_sent += 1;
            }
        }
        let stats =
            self.exchange_and_apply(group, &outgoing, Values::StrategySums, now, add_values)?;
        Ok(SyncStats {
            records_sent,
            // Draining the buffers counts as the exchange's.
            exchange_seconds: started.elapsed().as_secs_f64() - stats.apply_seconds,
            ..stats
        })
    }

    /// All-gathers `outgoing`, sums every rank's entries per key in rank
    /// order (every rank adds the same floats in the same order), and
    /// applies each sum with `apply`, after catching the record up to
    /// iteration `now`.
    fn exchange_and_apply(
        &self,
        group: &dyn Collective,
        outgoing: &[u8],
        values: Values,
        now: u32,
        apply: impl Fn(&mut Record, &Record) + Sync,
    ) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        let everyone = group.all_gather(outgoing)?;
        let exchanged = Instant::now();
        // Every rank's entries, each tagged with its rank and its place in
        // that rank's list, then sorted by slot and tag: a record's entries
        // come together in rank order, so every rank adds the same floats in
        // the same order, and the whole apply runs on every core (a map
        // summing the entries was serial, and at a large cluster's unions of
        // millions of records it would be most of the sync). Slot order also
        // walks a disk store's pages in file order.
        let mut entries: Vec<(Key, u64, Record)> = Vec::new();
        for (rank, bytes) in everyone.iter().enumerate() {
            let decoded = wire::deltas(bytes, width, values).ok_or_else(|| {
                CfrError::Replica(format!(
                    "rank {rank} sent {} bytes of changes, not a whole number of {}-byte \
                     entries: is every rank running the same trainer with the same flags?",
                    bytes.len(),
                    wire::delta_bytes(width, values)
                ))
            })?;
            let rank = (rank as u64) << 40;
            entries.extend(
                decoded
                    .into_iter()
                    .enumerate()
                    .map(|(place, (key, change))| (key, rank | place as u64, change)),
            );
        }
        let mut entries = entries
            .into_par_iter()
            .map(|(key, tag, change)| Ok((self.base.slot(key)?, tag, change)))
            .collect::<Result<Vec<(SlotId, u64, Record)>, StoreError>>()?;
        entries.par_sort_unstable_by_key(|&(slot, tag, _)| (slot, tag));
        let records_applied = AtomicU64::new(0);
        let discounter = &self.discounter;
        entries
            .par_chunk_by(|a, b| a.0 == b.0)
            .try_for_each(|same_record| {
                let mut sum = Record::default();
                for (_, _, change) in same_record {
                    add_values(&mut sum, change);
                }
                records_applied.fetch_add(1, Ordering::Relaxed);
                self.base.update(same_record[0].0, &mut |record| {
                    discounter.catch_up(record, now);
                    apply(record, &sum);
                })
            })?;
        let bytes_received = everyone
            .iter()
            .enumerate()
            .filter(|&(rank, _)| rank != group.rank())
            .map(|(_, bytes)| bytes.len() as u64)
            .sum();
        Ok(SyncStats {
            records_sent: 0,
            bytes_sent: outgoing.len() as u64,
            bytes_received,
            records_applied: records_applied.into_inner(),
            exchange_seconds: (exchanged - started).as_secs_f64(),
            apply_seconds: exchanged.elapsed().as_secs_f64(),
        })
    }
}

fn add_values(record: &mut Record, change: &Record) {
    for (value, delta) in record.regrets.iter_mut().zip(&change.regrets) {
        *value += delta;
    }
    for (value, delta) in record.strategy_sum.iter_mut().zip(&change.strategy_sum) {
        *value += delta;
    }
}

impl<T: Table + ?Sized> Table for ReplicatedTable<'_, T> {
    fn max_actions(&self) -> usize {
        self.base.max_actions()
    }

    /// The replica's slot, its key remembered for the sync.
    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        let slot = self.base.slot(key)?;
        self.remember(slot, key);
        Ok(slot)
    }

    fn slots(&self, keys: &[Key], slots: &mut [Option<SlotId>]) -> Result<(), StoreError> {
        self.base.slots(keys, slots)?;
        for (&key, slot) in keys.iter().zip(slots.iter()) {
            if let Some(slot) = *slot {
                self.remember(slot, key);
            }
        }
        Ok(())
    }

    fn find(&self, key: Key) -> Option<SlotId> {
        self.base.find(key)
    }

    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        let base = self.base.read(slot)?;
        let shard = self.shard(slot);
        Ok(self.view(base, shard.get(&(slot.index() as u64))))
    }

    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        let base = self.base.read(slot)?;
        let mut shard = self.shard(slot);
        let Some(pending) = shard.get_mut(&(slot.index() as u64)) else {
            // Slots come from `slot`, which registers them; one that did
            // not is not this table's.
            return Err(StoreError::NoSuchSlot {
                slot: slot.index() as u64,
                records: self.base.len(),
            });
        };
        let view = self.view(base, Some(pending));
        let mut after = view;
        change(&mut after);
        // What the update did beyond catching the view up to its iteration.
        let mut before = view;
        self.discounter.catch_up(&mut before, after.last_iteration);
        for (sum, (a, b)) in pending
            .change
            .regrets
            .iter_mut()
            .zip(after.regrets.iter().zip(&before.regrets))
        {
            *sum += a - b;
        }
        for (sum, (a, b)) in pending
            .change
            .strategy_sum
            .iter_mut()
            .zip(after.strategy_sum.iter().zip(&before.strategy_sum))
        {
            *sum += a - b;
        }
        pending.last_update = pending.last_update.max(after.last_iteration.max(1));
        Ok(())
    }

    /// The replica as of the last sync: pending changes are not records yet.
    fn len(&self) -> u64 {
        self.base.len()
    }

    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        self.base.for_each(visit)
    }
}
