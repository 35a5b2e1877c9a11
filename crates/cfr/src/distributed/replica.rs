//! A replica whose updates wait in a delta buffer until the ranks sync.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use store::{Key, Record, SlotId, StoreError, Table};

use super::collective::Collective;
use super::wire;
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
        }
    }

    pub fn base(&self) -> &'a T {
        self.base
    }

    pub fn reads(&self) -> Reads {
        self.reads
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
        let mut view = base;
        if self.reads == Reads::Live {
            add_values(&mut view, &pending.change);
        }
        view.last_iteration = view.last_iteration.max(pending.last_update);
        view
    }

    /// Exchanges every rank's pending changes and applies their sum to the
    /// replica, after discounting it to iteration `now` (the epoch's last).
    /// Every rank must call it with the same `now`; afterwards every
    /// replica holds the same records, bit for bit.
    pub fn sync(&self, group: &dyn Collective, now: u32) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        let mut outgoing = Vec::new();
        let mut records_sent = 0;
        for shard in &self.shards {
            let drained =
                std::mem::take(&mut *shard.lock().unwrap_or_else(PoisonError::into_inner));
            for pending in drained.values() {
                if pending.last_update != 0 {
                    wire::put_delta(&mut outgoing, pending.key, &pending.change, width);
                    records_sent += 1;
                }
            }
        }
        let everyone = group.all_gather(&outgoing)?;
        let exchanged = Instant::now();
        let mut sums: FxHashMap<Key, Record> = FxHashMap::default();
        // Summed in rank order, so every rank adds the same floats in the
        // same order.
        for (rank, bytes) in everyone.iter().enumerate() {
            let entries = wire::deltas(bytes, width).ok_or_else(|| {
                CfrError::Replica(format!(
                    "rank {rank} sent {} bytes of changes, not a whole number of {}-byte \
                     entries: is every rank running the same trainer?",
                    bytes.len(),
                    wire::delta_bytes(width)
                ))
            })?;
            for (key, change) in entries {
                add_values(sums.entry(key).or_default(), &change);
            }
        }
        let mut sums: Vec<(Key, Record)> = sums.into_iter().collect();
        sums.par_sort_unstable_by_key(|&(key, _)| key);
        let (discounter, floor) = (&self.discounter, self.floor);
        sums.par_iter().try_for_each(|(key, change)| {
            let slot = self.base.slot(*key)?;
            self.base.update(slot, &mut |record| {
                discounter.catch_up(record, now);
                add_values(record, change);
                if floor {
                    floor_regrets(&mut record.regrets[..width]);
                }
            })
        })?;
        let bytes_received = everyone
            .iter()
            .enumerate()
            .filter(|&(rank, _)| rank != group.rank())
            .map(|(_, bytes)| bytes.len() as u64)
            .sum();
        Ok(SyncStats {
            records_sent,
            bytes_sent: outgoing.len() as u64,
            bytes_received,
            records_applied: sums.len() as u64,
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

    /// The replica's slot; the key is remembered for the sync, which sends
    /// keys (replicas on different backends number their slots apart).
    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        let slot = self.base.slot(key)?;
        self.shard(slot)
            .entry(slot.index() as u64)
            .or_insert_with(|| Pending {
                key,
                ..Pending::default()
            });
        Ok(slot)
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
