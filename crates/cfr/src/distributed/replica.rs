//! A rank's replica, and what it keeps of its epoch's changes until the
//! ranks sync: the records as they were (training in place), or a delta
//! buffer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use store::{ExactRecords, Key, Record, SlotId, StoreError, Table};

use super::collective::Collective;
use super::in_place::{Before, ChangedRecords};
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
    /// The record's key, in halves (see [`Pending`]); `None` until the
    /// settle names it, for a record changed in place, whose key the drain
    /// does not read (most records an epoch changes in place gain sums
    /// alone, and a key is a read of the store).
    key: Option<[u64; 2]>,
    sums: [f32; store::MAX_ACTIONS],
    at: u64,
}

/// One slot's updates since the last sync.
///
/// Every lookup of an epoch writes one of these into a map far larger
/// than the caches, so its size is paid in cache lines on every lookup:
/// the key is kept in halves (a `u128` would align the entry to 16 bytes
/// and pad it) and the rare seed is boxed, which brings the map's entry
/// from 176 to 112 bytes.
#[derive(Clone, Debug, Default)]
struct Pending {
    key: [u64; 2],
    /// The additive change: regrets and strategy sums added by this rank.
    change: Record,
    /// The iteration of this rank's last update of the slot; 0 if none.
    last_update: u64,
    /// What a warm start added when this rank met the record fresh: kept
    /// apart from `change` because every rank that meets it fresh in an
    /// epoch seeds it, and the sync must count one seed, as one process
    /// would. Only records fresh to the whole run have one.
    seed: Option<Box<Record>>,
}

impl Pending {
    fn new(key: Key) -> Pending {
        Pending {
            key: halves(key),
            ..Pending::default()
        }
    }

    fn key(&self) -> Key {
        whole(self.key)
    }
}

/// A key in two `u64` halves, which align to 8 bytes where a `u128`
/// aligns its struct to 16.
fn halves(key: Key) -> [u64; 2] {
    [key as u64, (key >> 64) as u64]
}

fn whole(halves: [u64; 2]) -> Key {
    Key::from(halves[0]) | Key::from(halves[1]) << 64
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
    /// Seconds spent taking this rank's changes out of its delta buffer and
    /// encoding them, before the exchange: this rank's own work, which the
    /// other ranks wait for if this rank is the last.
    pub drain_seconds: f64,
    /// Seconds spent in the exchange itself: waiting for the slowest rank
    /// to arrive, then moving the bytes.
    pub exchange_seconds: f64,
    /// Seconds spent summing and applying.
    pub apply_seconds: f64,
    /// A settle's rounds (one per slice of the keys), and the most bytes
    /// this rank received in one of them: what bounds its memory.
    pub rounds: u64,
    pub largest_round_bytes: u64,
    /// Entries of this rank's delta buffer at the sync: the records it
    /// touched in the epoch, whatever it sent of them.
    pub entries_drained: u64,
    /// Records whose strategy sums this rank holds for a settle, after the
    /// sync.
    pub held_entries: u64,
}

/// The most memory one entry of a rank's cluster bookkeeping can take, in
/// bytes, counting a hash map's slack at its worst (capacities double, so
/// a map may be just past half full) and every copy alive at once: what a
/// rank's memory is planned from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryBytes {
    /// A record touched in the epoch, in the delta buffer.
    pub pending: u64,
    /// A record's strategy sums held for a settle.
    pub held: u64,
    /// A record this rank sends at a sync: its encoding, built in pieces
    /// and then joined (two copies).
    pub sent: u64,
    /// A record any rank sent, as every rank holds it in the sync: the
    /// gathered bytes and the decoded entry, before and after its slot is
    /// found (three copies).
    pub gathered: u64,
}

/// Bytes per entry of a hash map of `entry` bytes at its worst: the
/// entry and its control byte, at a load of 7/8 just after the capacity
/// doubled.
fn map_entry_bytes(entry: usize) -> u64 {
    ((entry as u64 + 1) * 8).div_ceil(7) * 2
}

/// Shards of the delta buffer: enough that two threads rarely meet.
const SHARDS: usize = 1024;

/// Records changed in place that a thread drains at a time: enough to
/// keep it busy between steals, few enough to spread one list over cores.
const DRAIN_CHUNK: usize = 4096;

/// Lists of records changed in place: one for each training thread up to
/// this many (threads past it share), and one for threads of no pool.
const LOGS: usize = 257;

/// The rank that holds the strategy sums a settle gathers: the one that
/// checkpoints and exports.
const ROOT: usize = 0;

/// About the most bytes of held strategy sums one round of a settle
/// gathers onto rank 0, whatever the number of ranks: the settle splits the
/// keys into as many rounds as it takes. Decoded and sorted, a round costs
/// rank 0 about three times this.
pub const SETTLE_ROUND_BYTES: u64 = 128 << 20;

/// A [`Table`] over one rank's replica (`base`) that keeps what the
/// epoch changed apart until [`ReplicatedTable::sync`], so that every rank
/// applies the same sums to the same records. Trained in place
/// ([`ReplicatedTable::training_in_place`]), updates change the replica
/// as they would one process's table, and the records as they were are
/// noted. Otherwise updates are applied to a view of the record, and the
/// difference they make, beyond the discounting to the update's
/// iteration, is what is kept in a delta buffer: the additive part that
/// the ranks can sum. Either way the change sent is additive, and the
/// discounting, CFR+ flooring and quantisation of the base's layout that
/// follow happen at the sync, the same on every rank.
pub struct ReplicatedTable<'a, T: Table + ?Sized> {
    base: &'a T,
    discounter: Discounter,
    floor: bool,
    reads: Reads,
    /// This epoch's changes: the delta buffer, sharded by slot.
    ///
    /// The buffers keep their capacity across epochs: an epoch touches
    /// about as many records as the last, and maps grown again from
    /// nothing every epoch spent a rank's training time rehashing and
    /// faulting fresh pages in. Only the capacity a live buffer needs is
    /// kept: [`Self::close_epoch`] trims the next epoch's buffer to the
    /// closed epoch's size, and a sync between epochs frees the spare
    /// (kept idle through the epoch, it cost each rank 0.8 GiB in full
    /// play).
    shards: Vec<Mutex<FxHashMap<SlotId, Pending>>>,
    /// The last epoch's changes while its sync runs beside the next
    /// epoch's training ([`ReplicatedTable::close_epoch`]), sharded like
    /// `shards`: still this rank's to read, each entry leaving as the sync
    /// applies its record.
    in_flight: Vec<Mutex<FxHashMap<SlotId, Pending>>>,
    /// The last iteration of the epoch in flight; 0 when none is.
    in_flight_through: AtomicU64,
    strategy_sums: StrategySums,
    /// Strategy sums waiting for a settle, sharded like `shards`.
    deferred: Vec<Mutex<FxHashMap<SlotId, Deferred>>>,
    settle_round_bytes: u64,
    /// With [`Self::training_in_place`]: the records this epoch changed in
    /// the replica itself, and what each held before; the delta buffers
    /// then stay empty.
    in_place: Option<(ChangedRecords, &'a dyn ExactRecords)>,
    /// Every rank's table puts each key at the same slot
    /// ([`Self::with_shared_layout`]): a sync in place names records by
    /// slot, and neither reads keys nor looks them up.
    shared_layout: bool,
}

/// How a sync's entries name their records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Address {
    Key,
    Slot,
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
            in_flight: (0..SHARDS).map(|_| Mutex::default()).collect(),
            in_flight_through: AtomicU64::new(0),
            strategy_sums: StrategySums::EachSync,
            deferred: Vec::new(),
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: None,
            shared_layout: false,
        }
    }

    /// Says every rank's table puts each key at the same slot (their stores
    /// were built from one skeleton): syncs in place then send slot numbers
    /// instead of keys, sparing the sender a read of each key and every
    /// receiver a lookup. Every rank must say the same.
    #[must_use]
    pub fn with_shared_layout(mut self) -> Self {
        self.shared_layout = true;
        self
    }

    /// Trains on the replica itself, as one process trains on its table,
    /// noting each record's value before the epoch first changes it; the
    /// sync finds the epoch's change from the record as it is and as it
    /// was, and puts every changed record back to what every replica
    /// computes from the one before. What this saves is the delta buffer's
    /// work on every lookup and update (see `in_place::ChangedRecords`);
    /// what it gives up: syncs beside training ([`Self::close_epoch`]
    /// refuses) and frozen reads, which must not see the epoch's own
    /// changes.
    pub fn training_in_place(mut self) -> Result<Self, CfrError> {
        if self.reads == Reads::Frozen {
            return Err(CfrError::Replica(
                "a replica with frozen reads cannot train in place: its epochs must not see their own changes".into(),
            ));
        }
        let exact = self.base.exact_records().ok_or_else(|| {
            CfrError::Replica(
                "this store cannot put records back exactly, which training in place needs; sync through the delta buffer".into(),
            )
        })?;
        self.in_place = Some((ChangedRecords::new(self.base.len(), LOGS), exact));
        Ok(self)
    }

    /// Whether this replica trains in place ([`Self::training_in_place`]).
    pub fn trains_in_place(&self) -> bool {
        self.in_place.is_some()
    }

    /// Settles in rounds of about `bytes` each instead of
    /// [`SETTLE_ROUND_BYTES`]; every rank must say the same.
    #[must_use]
    pub fn with_settle_round_bytes(mut self, bytes: u64) -> Self {
        self.settle_round_bytes = bytes.max(1);
        self
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
    /// what waits for the settle in the slot's shard of held sums,
    /// discounting what waited to `now` first.
    fn defer(
        &self,
        shard: &mut FxHashMap<SlotId, Deferred>,
        (slot, key): (SlotId, Option<Key>),
        change: &Record,
        now: u64,
        width: usize,
    ) {
        let held = shard.entry(slot).or_insert(Deferred {
            key: None,
            sums: [0.0; store::MAX_ACTIONS],
            at: now,
        });
        if let Some(key) = key {
            held.key = Some(halves(key));
        }
        self.discount_held(held, now);
        for (sum, delta) in held.sums[..width].iter_mut().zip(&change.strategy_sum) {
            *sum += delta;
        }
    }

    /// Discounts held sums from their iteration to `now`, as the replica's
    /// own sums are discounted when caught up.
    fn discount_held(&self, held: &mut Deferred, now: u64) {
        if held.at < now {
            let mut record = Record {
                strategy_sum: held.sums,
                stamp: store::stamp::encode(held.at),
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

    /// What an entry of this replica's bookkeeping costs at most; see
    /// [`EntryBytes`].
    pub fn entry_bytes(&self) -> EntryBytes {
        let width = self.base.max_actions();
        let values = match self.strategy_sums {
            StrategySums::EachSync => Values::Both,
            StrategySums::Deferred => Values::Regrets,
        };
        let wire = wire::delta_bytes(width, values) as u64;
        let decoded = (size_of::<(Key, u64, Record)>() + size_of::<(SlotId, u64, Record)>()) as u64;
        // A seed's box, with the allocator's header, where every record is
        // fresh (a new run's first epochs).
        let boxed_seed = (size_of::<Record>() + 16).next_multiple_of(16);
        // Training in place, a record changed in the epoch is one noted
        // value in a vector, at most half full just after it doubled; its
        // bit is the table's, not the entry's.
        let pending = match self.in_place {
            Some(_) => 2 * size_of::<Before>() as u64,
            None => map_entry_bytes(size_of::<(SlotId, Pending)>()),
        };
        EntryBytes {
            pending: pending + boxed_seed as u64,
            held: map_entry_bytes(size_of::<(SlotId, Deferred)>()),
            sent: 2 * wire,
            gathered: wire + decoded,
        }
    }

    pub fn reads(&self) -> Reads {
        self.reads
    }

    /// Notes `key` as the key of `slot`, for the sync, which sends keys
    /// (replicas on different backends number their slots apart).
    fn remember(&self, slot: SlotId, key: Key) {
        self.shard(slot)
            .entry(slot)
            .or_insert_with(|| Pending::new(key));
    }

    fn shard(&self, slot: SlotId) -> MutexGuard<'_, FxHashMap<SlotId, Pending>> {
        self.shards[slot.index() % SHARDS]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// The slot's shard of the epoch in flight, if one is. Taken before
    /// the record and its current shard, always in that order.
    fn in_flight_shard(&self, slot: SlotId) -> Option<MutexGuard<'_, FxHashMap<SlotId, Pending>>> {
        (self.in_flight_through.load(Ordering::Acquire) != 0).then(|| {
            self.in_flight[slot.index() % SHARDS]
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
        })
    }

    /// Whether an epoch's sync is in flight.
    pub fn in_flight(&self) -> bool {
        self.in_flight_through.load(Ordering::Acquire) != 0
    }

    /// Records with pending changes.
    pub fn pending(&self) -> u64 {
        if let Some((changed, _)) = &self.in_place {
            return changed.len();
        }
        self.shards
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len() as u64)
            .sum()
    }

    /// The record as this rank's updates see it: the replica, plus this
    /// rank's changes not yet in it (the epoch in flight's and this
    /// epoch's) when reads are live, and never fresh again once this rank
    /// has updated it (so a warm start seeds it once).
    fn view(&self, base: Record, in_flight: Option<&Pending>, pending: Option<&Pending>) -> Record {
        let last_update = match (in_flight, pending) {
            (None, None) => return base,
            (Some(one), None) | (None, Some(one)) => one.last_update,
            (Some(earlier), Some(later)) => earlier.last_update.max(later.last_update),
        };
        // The pending changes are in the units of this rank's last update,
        // so the replica's record is caught up to it first: a record last
        // synced epochs ago is discounted as the one process would have.
        let mut view = base;
        self.discounter.catch_up(&mut view, last_update);
        if self.reads == Reads::Live {
            for changes in in_flight.into_iter().chain(pending) {
                add_values(&mut view, &changes.change);
                if let Some(seed) = &changes.seed {
                    add_values(&mut view, seed);
                }
            }
        }
        view
    }

    /// Exchanges every rank's pending changes and applies their sum to the
    /// replica, after discounting it to iteration `now` (the epoch's last).
    /// Every rank must call it with the same `now`; afterwards every
    /// replica holds the same records, bit for bit. With
    /// [`StrategySums::Deferred`] only the regrets travel; the strategy
    /// sums wait on this rank for [`ReplicatedTable::settle`].
    pub fn sync(&self, group: &dyn Collective, now: u64) -> Result<SyncStats, CfrError> {
        if let Some((changed, exact)) = &self.in_place {
            return self.sync_in_place(group, (changed, *exact), now);
        }
        self.close_epoch(now)?;
        self.finish(group, false)
    }

    /// Ends this rank's epoch at iteration `now` without syncing it yet:
    /// its changes go in flight and the next epoch's go to empty buffers,
    /// so that the next epoch can train while [`Self::finish_sync`] syncs
    /// this one. Until a record's sum is applied this rank still reads its
    /// own changes to it; the other ranks' arrive with the apply, one
    /// epoch later than with [`Self::sync`]. Every replica still applies
    /// the same sums in the same order, so the replicas stay identical;
    /// what the next epoch's training reads of them meanwhile depends on
    /// timing, as with any reads beside other threads' updates. Not for
    /// [`Reads::Frozen`], whose epochs must not see the replica move.
    pub fn close_epoch(&self, now: u64) -> Result<(), CfrError> {
        if self.in_place.is_some() {
            return Err(CfrError::Replica(
                "a replica training in place syncs between epochs, not beside them".into(),
            ));
        }
        if self.in_flight() {
            return Err(CfrError::Replica(
                "an epoch was closed while the last one's sync was still in flight".into(),
            ));
        }
        for (in_flight, current) in self.in_flight.iter().zip(&self.shards) {
            let mut in_flight = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            let mut current = current.lock().unwrap_or_else(PoisonError::into_inner);
            std::mem::swap(&mut *in_flight, &mut *current);
            // No more capacity than the epoch just closed needed: a
            // shrinking epoch (as the held sums fill a rank's room) frees
            // its memory.
            current.shrink_to(in_flight.len());
        }
        self.in_flight_through.store(now.max(1), Ordering::Release);
        Ok(())
    }

    /// Syncs the epoch [`Self::close_epoch`] put in flight, as
    /// [`Self::sync`] does, while this rank's next epoch may be training:
    /// each record's changes leave this rank's reads as its sum is applied,
    /// under the same lock, so a read sees them once, before or after. A
    /// no-op when nothing is in flight; every rank must call it together.
    pub fn finish_sync(&self, group: &dyn Collective) -> Result<SyncStats, CfrError> {
        if !self.in_flight() {
            return Ok(SyncStats::default());
        }
        self.finish(group, true)
    }

    /// The sync of the epoch in flight; `beside_training`: whether reads
    /// may come meanwhile, so that entries leave one by one as applied.
    fn finish(&self, group: &dyn Collective, beside_training: bool) -> Result<SyncStats, CfrError> {
        let now = self.in_flight_through.load(Ordering::Acquire);
        let width = self.base.max_actions();
        let started = Instant::now();
        let values = match self.strategy_sums {
            StrategySums::EachSync => Values::Both,
            StrategySums::Deferred => Values::Regrets,
        };
        // Each shard is drained on its own thread into its own pieces (the
        // drain was serial, and at a cluster's epochs of millions of
        // records it took as long as the apply); the pieces are joined in
        // shard order. A record's entry sits in one shard and each rank
        // sends a record once, so the order changes no sum. The changes
        // form the first section; the seeds, once per record and few, the
        // second. Beside training the entries stay readable until applied.
        // Not beside training, a shard is emptied as it is drained.
        let pieces: Vec<(Vec<u8>, Vec<u8>, u64, u64)> = self
            .in_flight
            .par_iter()
            .enumerate()
            .map(|(index, shard)| {
                let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
                // The held sums are sharded by the same slot modulus: one
                // lock for the whole shard, not one per entry.
                let mut held = (values == Values::Regrets).then(|| {
                    self.deferred[index]
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                });
                let entries = shard.len() as u64;
                let (mut changes, mut seeds, mut sent) = (Vec::new(), Vec::new(), 0);
                for (&slot, pending) in shard.iter() {
                    if pending.last_update == 0 {
                        continue;
                    }
                    let key = pending.key();
                    if let Some(seed) = pending.seed.as_deref()
                        && !is_zero(seed, width)
                    {
                        // Regrets and sums alike, whatever `values`: a seed
                        // is once per record and small.
                        wire::put_delta(&mut seeds, key, seed, width, Values::Both);
                    }
                    if let Some(held) = held.as_deref_mut() {
                        if pending.change.strategy_sum[..width]
                            .iter()
                            .any(|&d| d != 0.0)
                        {
                            self.defer(held, (slot, Some(key)), &pending.change, now, width);
                        }
                        if pending.change.regrets[..width].iter().all(|&d| d == 0.0) {
                            continue;
                        }
                    }
                    wire::put_delta(&mut changes, key, &pending.change, width, values);
                    sent += 1;
                }
                if !beside_training {
                    shard.clear();
                }
                (changes, seeds, sent, entries)
            })
            .collect();
        let mut outgoing = wire::open_first_section();
        outgoing.reserve(pieces.iter().map(|(changes, ..)| changes.len()).sum());
        let mut seeds = Vec::new();
        let (mut records_sent, mut entries_drained) = (0, 0);
        for (changes, shard_seeds, sent, entries) in pieces {
            outgoing.extend_from_slice(&changes);
            seeds.extend_from_slice(&shard_seeds);
            records_sent += sent;
            entries_drained += entries;
        }
        wire::close_first_section(&mut outgoing);
        wire::push_section(&mut outgoing, &seeds);
        let drain_seconds = started.elapsed().as_secs_f64();
        let floor = self.floor;
        let retire = if beside_training {
            Retire::EachRecord
        } else {
            Retire::AtEnd
        };
        let stats = self.exchange_and_apply(
            group,
            &outgoing,
            values,
            Address::Key,
            (now, retire),
            |record, change| {
                add_values(record, change);
                if floor {
                    floor_regrets(&mut record.regrets[..width]);
                }
            },
        )?;
        // What is left in flight was not sent (no regret changed, or only
        // looked up): nothing more of it to read. Not beside training,
        // nothing touched the current buffer during the sync, so the
        // emptied one, with its capacity, takes its place and the spare is
        // freed (see `shards`).
        for (in_flight, current) in self.in_flight.iter().zip(&self.shards) {
            let mut in_flight = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            in_flight.clear();
            if !beside_training {
                let mut current = current.lock().unwrap_or_else(PoisonError::into_inner);
                if current.is_empty() {
                    std::mem::swap(&mut *in_flight, &mut *current);
                    in_flight.shrink_to(0);
                }
            }
        }
        self.in_flight_through.store(0, Ordering::Release);
        Ok(SyncStats {
            records_sent,
            drain_seconds,
            entries_drained,
            held_entries: self.deferred(),
            ..stats
        })
    }

    /// [`Self::sync`] for a replica training in place. Each record the
    /// epoch changed is put back as stored before the epoch, bit for bit,
    /// and its change is what the record as it had become, caught up to
    /// `now`, adds to the record as it was, caught up alike, less a warm
    /// start's seed, which travels apart (as the buffered changes' does);
    /// its regrets, and its strategy sums, each count only if an update
    /// moved them.
    /// A change goes to the other ranks as the delta buffer's would: all
    /// of it, or with [`StrategySums::Deferred`] its regrets, when they
    /// moved, its sums held here for the settle.
    fn sync_in_place(
        &self,
        group: &dyn Collective,
        (changed, exact): (&ChangedRecords, &dyn ExactRecords),
        now: u64,
    ) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        let values = match self.strategy_sums {
            StrategySums::EachSync => Values::Both,
            StrategySums::Deferred => Values::Regrets,
        };
        let befores = changed.take();
        let discounter = &self.discounter;
        let address = if self.shared_layout {
            Address::Slot
        } else {
            Address::Key
        };
        let pieces = befores
            .shards
            .par_iter()
            .flat_map(|list| list.par_chunks(DRAIN_CHUNK))
            .map(|chunk| {
                let (mut changes, mut seeds, mut sent) = (Vec::new(), Vec::new(), 0);
                for before in chunk {
                    let mut after = self.base.read(before.slot)?;
                    exact.put_back(before.slot, &before.stored)?;
                    let mut was = exact.decode(&before.stored);
                    discounter.catch_up(&mut after, now);
                    discounter.catch_up(&mut was, now);
                    let mut change = Record::default();
                    add_difference(&mut change, &after, &was);
                    let seed = before.seed.as_deref().filter(|seed| !is_zero(seed, width));
                    if let Some(seed) = seed {
                        add_difference(&mut change, &Record::default(), seed);
                    }
                    // Only rounding apart where no update moved them: the
                    // layout's, each time the record was written back.
                    if !before.regrets_moved {
                        change.regrets = [0.0; store::MAX_ACTIONS];
                    }
                    if !before.sums_moved {
                        change.strategy_sum = [0.0; store::MAX_ACTIONS];
                    }
                    let send = if values == Values::Regrets {
                        if change.strategy_sum[..width].iter().any(|&d| d != 0.0) {
                            let mut held = self.deferred[before.slot.index() % SHARDS]
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner);
                            self.defer(&mut held, (before.slot, None), &change, now, width);
                        }
                        before.regrets_moved
                    } else {
                        !is_zero(&change, width)
                    };
                    if !send && seed.is_none() {
                        continue;
                    }
                    let key = match address {
                        Address::Slot => before.slot.index() as Key,
                        Address::Key => self.base.key(before.slot)?,
                    };
                    if let Some(seed) = seed {
                        wire::put_delta(&mut seeds, key, seed, width, Values::Both);
                    }
                    if send {
                        wire::put_delta(&mut changes, key, &change, width, values);
                        sent += 1;
                    }
                }
                Ok((changes, seeds, sent))
            })
            .collect::<Result<Vec<(Vec<u8>, Vec<u8>, u64)>, StoreError>>()?;
        let mut outgoing = wire::open_first_section();
        outgoing.reserve(pieces.iter().map(|(changes, ..)| changes.len()).sum());
        let (mut seeds, mut records_sent) = (Vec::new(), 0);
        for (changes, piece_seeds, sent) in pieces {
            outgoing.extend_from_slice(&changes);
            seeds.extend_from_slice(&piece_seeds);
            records_sent += sent;
        }
        wire::close_first_section(&mut outgoing);
        wire::push_section(&mut outgoing, &seeds);
        let drain_seconds = started.elapsed().as_secs_f64();
        let entries_drained = befores.len() as u64;
        changed.give_back(befores);
        let floor = self.floor;
        let stats = self.exchange_and_apply(
            group,
            &outgoing,
            values,
            address,
            (now, Retire::AtEnd),
            |record, change| {
                add_values(record, change);
                if floor {
                    floor_regrets(&mut record.regrets[..width]);
                }
            },
        )?;
        Ok(SyncStats {
            records_sent,
            drain_seconds,
            entries_drained,
            held_entries: self.deferred(),
            ..stats
        })
    }

    /// Brings every rank's deferred strategy sums, discounted to iteration
    /// `now` (the last sync's), to rank 0, which adds them to its replica:
    /// afterwards it holds the sums it would have held had they travelled
    /// with every sync, up to rounding. Only rank 0 checkpoints, measures
    /// and exports, so only it needs them; the other ranks never read
    /// strategy sums, and theirs go stale. Every rank must call it with the
    /// same `now`; a checkpoint, a curve point or an export must follow it.
    ///
    /// Memory stays flat in the number of ranks: the keys are split into
    /// rounds of about [`SETTLE_ROUND_BYTES`] over all ranks, a rank sends
    /// and drops one round's sums at a time, and rank 0 holds one round's.
    /// Rank 0 catches each record it adds to up to `now`, which discounts
    /// its regrets too; it sends the round's keys to the others, who catch
    /// the same records up, so the replicas' regrets and iteration stamps
    /// stay identical bit for bit. With [`StrategySums::EachSync`] there is
    /// nothing to settle and no rank communicates.
    pub fn settle(&self, group: &dyn Collective, now: u64) -> Result<SyncStats, CfrError> {
        if self.in_flight() {
            return Err(CfrError::Replica(
                "a settle while a sync was in flight: finish the sync first".into(),
            ));
        }
        if self.strategy_sums == StrategySums::EachSync {
            return Ok(SyncStats::default());
        }
        let width = self.base.max_actions();
        let started = Instant::now();
        self.name_held()?;
        let held = self.deferred();
        let everyone_held: u64 = group
            .all_gather(&held.to_le_bytes())?
            .iter()
            .map(|bytes| wire::count(bytes))
            .sum::<Option<u64>>()
            .ok_or_else(|| {
                CfrError::Replica("a rank sent a malformed count of held sums".into())
            })?;
        let entry = wire::delta_bytes(width, Values::StrategySums) as u64;
        let rounds = (everyone_held * entry)
            .div_ceil(self.settle_round_bytes)
            .max(1);
        let mut stats = SyncStats {
            rounds,
            ..SyncStats::default()
        };
        for round in 0..rounds {
            let outgoing = self.take_held(now, |key| round_of(key, rounds) == round);
            stats.records_sent += (outgoing.len() as u64) / entry;
            stats.bytes_sent += outgoing.len() as u64;
            let gathered = group.gather(ROOT, &outgoing)?;
            drop(outgoing);
            let mut keys = Vec::new();
            let round_stats = match gathered {
                Some(everyone) => {
                    let parts: Vec<(&[u8], &[u8])> =
                        everyone.iter().map(|bytes| (&bytes[..], &[][..])).collect();
                    let applied = self.apply_gathered(
                        &parts,
                        group.rank(),
                        Values::StrategySums,
                        Address::Key,
                        (now, Retire::AtEnd),
                        add_strategy_sums,
                    )?;
                    let mut touched: Vec<Key> = everyone
                        .iter()
                        .flat_map(|bytes| wire::delta_keys(bytes, width, Values::StrategySums))
                        .collect();
                    touched.par_sort_unstable();
                    touched.dedup();
                    wire::put_keys(&mut keys, &touched);
                    applied
                }
                None => SyncStats::default(),
            };
            stats.apply_seconds += round_stats.apply_seconds;
            stats.records_applied += round_stats.records_applied;
            let mut received = round_stats.bytes_received;
            group.broadcast(ROOT, &mut keys)?;
            if group.rank() != ROOT {
                received += keys.len() as u64;
                let caught_up = Instant::now();
                let touched = wire::keys(&keys).ok_or_else(|| {
                    CfrError::Replica(format!(
                        "rank 0 sent {} bytes of settled keys, not a whole number of keys",
                        keys.len()
                    ))
                })?;
                stats.records_applied += touched.len() as u64;
                self.catch_up_keys(&touched, now)?;
                stats.apply_seconds += caught_up.elapsed().as_secs_f64();
            }
            stats.bytes_received += received;
            stats.largest_round_bytes = stats.largest_round_bytes.max(received);
        }
        for shard in &self.deferred {
            shard
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .shrink_to_fit();
        }
        stats.exchange_seconds = started.elapsed().as_secs_f64() - stats.apply_seconds;
        Ok(stats)
    }

    /// Reads the keys of the held sums that have none yet (records changed
    /// in place), shard by shard on every core.
    fn name_held(&self) -> Result<(), StoreError> {
        self.deferred.par_iter().try_for_each(|shard| {
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            for (&slot, held) in shard.iter_mut() {
                if held.key.is_none() {
                    held.key = Some(halves(self.base.key(slot)?));
                }
            }
            Ok(())
        })
    }

    /// Removes the held sums of the keys `this_round` picks, discounted to
    /// `now`, as wire entries. Every held sum must have its key
    /// ([`Self::name_held`]).
    fn take_held(&self, now: u64, this_round: impl Fn(Key) -> bool) -> Vec<u8> {
        let width = self.base.max_actions();
        let mut outgoing = Vec::new();
        for shard in &self.deferred {
            shard
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|_, held| {
                    let Some(key) = held.key.map(whole) else {
                        return true;
                    };
                    if !this_round(key) {
                        return true;
                    }
                    self.discount_held(held, now);
                    let change = Record {
                        strategy_sum: held.sums,
                        ..Record::default()
                    };
                    wire::put_delta(&mut outgoing, key, &change, width, Values::StrategySums);
                    false
                });
        }
        outgoing
    }

    /// Catches the records of `keys` up to `now`, as rank 0 did when it
    /// added their sums.
    fn catch_up_keys(&self, keys: &[Key], now: u64) -> Result<(), StoreError> {
        let discounter = &self.discounter;
        keys.par_iter().try_for_each(|&key| {
            let slot = self.base.slot(key)?;
            self.base
                .update(slot, &mut |record| discounter.catch_up(record, now))
        })
    }

    /// A digest of what every replica holds the same: the trained records'
    /// regrets and iteration stamps, and their strategy sums when those
    /// travel with every sync (deferred, they are rank 0's alone).
    pub fn digest(&self) -> Result<(u64, u64), StoreError> {
        super::digest::digest(self.base, self.strategy_sums == StrategySums::EachSync)
    }

    /// The slot a received entry names: by its key, or by its slot number
    /// on a shared layout, which must be inside this table.
    fn slot_named(&self, name: Key, address: Address) -> Result<SlotId, CfrError> {
        match address {
            Address::Key => Ok(self.base.slot(name)?),
            Address::Slot if name < Key::from(self.base.len()) => Ok(SlotId::at(name as u64)),
            Address::Slot => Err(CfrError::Replica(format!(
                "a rank named record {name}, past this table's {} records: do all ranks share \
                 rank 0's store skeleton?",
                self.base.len()
            ))),
        }
    }

    /// All-gathers `sent` (a sync's changes and seeds, in sections), sums
    /// every rank's entries per key in rank order (every rank adds the same
    /// floats in the same order), and applies each sum with `apply`, after
    /// catching the record up to iteration `now`; `retire` says when this
    /// rank's own changes in flight leave its reads.
    fn exchange_and_apply(
        &self,
        group: &dyn Collective,
        sent: &[u8],
        values: Values,
        address: Address,
        (now, retire): (u64, Retire),
        apply: impl Fn(&mut Record, &Record) + Sync,
    ) -> Result<SyncStats, CfrError> {
        let started = Instant::now();
        let everyone = group.all_gather(sent)?;
        let exchanged = Instant::now();
        let parts = everyone
            .iter()
            .enumerate()
            .map(|(rank, bytes)| {
                wire::split_sections(bytes)
                    .and_then(|parts| <[&[u8]; 2]>::try_from(parts).ok())
                    .map(|[changes, seeds]| (changes, seeds))
                    .ok_or_else(|| {
                        CfrError::Replica(format!(
                            "rank {rank} sent {} bytes that are not a sync's changes and seeds: \
                             is every rank running the same trainer?",
                            bytes.len()
                        ))
                    })
            })
            .collect::<Result<Vec<_>, CfrError>>()?;
        let applied =
            self.apply_gathered(&parts, group.rank(), values, address, (now, retire), apply)?;
        Ok(SyncStats {
            bytes_sent: sent.len() as u64,
            exchange_seconds: (exchanged - started).as_secs_f64(),
            ..applied
        })
    }

    /// Sums the entries of `everyone` (every rank's, in rank order) per
    /// key in rank order, and applies each sum with `apply` after catching
    /// the record up to iteration `now`. `me` is this rank, whose own bytes
    /// do not count as received; with [`Retire::EachRecord`] its changes in
    /// flight to a record leave with the record's apply, under the lock
    /// its reads take first.
    fn apply_gathered(
        &self,
        everyone: &[(&[u8], &[u8])],
        me: usize,
        values: Values,
        address: Address,
        (now, retire): (u64, Retire),
        apply: impl Fn(&mut Record, &Record) + Sync,
    ) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        // Every rank's entries, each tagged with its rank and its place in
        // that rank's list, then sorted by slot and tag: a record's entries
        // come together in rank order, so every rank adds the same floats in
        // the same order, and the whole apply runs on every core (a map
        // summing the entries was serial, and at a large cluster's unions of
        // millions of records it would be most of the sync). Slot order also
        // walks a disk store's pages in file order. A rank's seeds follow
        // its changes, tagged apart, and only the first rank's counts.
        let mut entries: Vec<(Key, u64, Record)> = Vec::new();
        for (rank, &(changes, seeds)) in everyone.iter().enumerate() {
            let rank_tag = (rank as u64) << 40;
            for (bytes, values, tag) in [
                (changes, values, rank_tag),
                (seeds, Values::Both, rank_tag | SEED),
            ] {
                let decoded = wire::deltas(bytes, width, values).ok_or_else(|| {
                    CfrError::Replica(format!(
                        "rank {rank} sent {} bytes of changes, not a whole number of {}-byte \
                         entries: is every rank running the same trainer with the same flags?",
                        bytes.len(),
                        wire::delta_bytes(width, values)
                    ))
                })?;
                entries.extend(
                    decoded
                        .into_iter()
                        .enumerate()
                        .map(|(place, (key, change))| (key, tag | place as u64, change)),
                );
            }
        }
        let mut entries = entries
            .into_par_iter()
            .map(|(key, tag, change)| Ok((self.slot_named(key, address)?, tag, change)))
            .collect::<Result<Vec<(SlotId, u64, Record)>, CfrError>>()?;
        entries.par_sort_unstable_by_key(|&(slot, tag, _)| (slot, tag));
        let records_applied = AtomicU64::new(0);
        let discounter = &self.discounter;
        entries
            .par_chunk_by(|a, b| a.0 == b.0)
            .try_for_each(|same_record| {
                // The sum with the first seed, for a record still fresh, and
                // without: with syncs beside training, a record seeded in
                // the last sync may be seeded again by a rank that met it
                // before that sync's apply, and it is seeded once.
                let (mut sum, mut unseeded) = (Record::default(), Record::default());
                let mut seeded = false;
                for (_, tag, change) in same_record {
                    if tag & SEED != 0 {
                        if seeded {
                            continue;
                        }
                        seeded = true;
                    } else {
                        add_values(&mut unseeded, change);
                    }
                    add_values(&mut sum, change);
                }
                records_applied.fetch_add(1, Ordering::Relaxed);
                let slot = same_record[0].0;
                let in_flight = match retire {
                    Retire::EachRecord => Some(
                        self.in_flight[slot.index() % SHARDS]
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner),
                    ),
                    Retire::AtEnd => None,
                };
                self.base.update(slot, &mut |record| {
                    let fresh = record.stamp == 0;
                    discounter.catch_up(record, now);
                    apply(record, if fresh { &sum } else { &unseeded });
                })?;
                if let Some(mut in_flight) = in_flight {
                    in_flight.remove(&slot);
                }
                Ok::<(), StoreError>(())
            })?;
        let bytes_received = everyone
            .iter()
            .enumerate()
            .filter(|&(rank, _)| rank != me)
            .map(|(_, (changes, seeds))| (changes.len() + seeds.len()) as u64)
            .sum();
        Ok(SyncStats {
            bytes_received,
            records_applied: records_applied.into_inner(),
            apply_seconds: started.elapsed().as_secs_f64(),
            ..SyncStats::default()
        })
    }
}

/// When a rank's changes in flight leave its reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Retire {
    /// Each with its record's apply: the next epoch trains meanwhile.
    EachRecord,
    /// All at the end of the sync: nothing reads meanwhile.
    AtEnd,
}

/// The tag bit of a seed's entry in a sync: below the rank's bits, above
/// any place in a rank's list.
const SEED: u64 = 1 << 39;

/// Whether the first `width` regrets and sums of `record` are all zero.
fn is_zero(record: &Record, width: usize) -> bool {
    record.regrets[..width]
        .iter()
        .chain(&record.strategy_sum[..width])
        .all(|&value| value == 0.0)
}

/// Which of `rounds` rounds of a settle carries `key`: by a hash, so a
/// round's share is even whatever the keys' structure.
fn round_of(key: Key, rounds: u64) -> u64 {
    super::digest::mix(key as u64 ^ super::digest::mix((key >> 64) as u64)) % rounds
}

/// Adds `after - before`, value by value, to `sum`.
fn add_difference(sum: &mut Record, after: &Record, before: &Record) {
    for (sum, (a, b)) in sum
        .regrets
        .iter_mut()
        .zip(after.regrets.iter().zip(&before.regrets))
    {
        *sum += a - b;
    }
    for (sum, (a, b)) in sum
        .strategy_sum
        .iter_mut()
        .zip(after.strategy_sum.iter().zip(&before.strategy_sum))
    {
        *sum += a - b;
    }
}

/// Adds the sums alone: adding a zero regret would turn a regret of -0.0
/// into +0.0 on rank 0 alone, and the replicas' bits apart.
fn add_strategy_sums(record: &mut Record, change: &Record) {
    for (value, delta) in record.strategy_sum.iter_mut().zip(&change.strategy_sum) {
        *value += delta;
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

/// One update of a replica training in place: applied to the record
/// itself, as one process applies it, with a copy of the record as stored
/// noted first if this is the epoch's first change to it. Which update is
/// first is settled under the record's own lock; the copy is taken before
/// that lock (a backend's records are copied under their own), which is
/// sound because every change goes through here: until the first update
/// holds the lock, nothing has changed the record since the sync. Until
/// updates of the epoch have moved both the record's regrets and its
/// strategy sums, each update is checked for what it moved (against the
/// record caught up). A fresh
/// record is seeded as [`ReplicatedTable`]'s buffered updates seed it: the
/// update runs on a twin that is not fresh first, so the seed is told
/// apart, and `change` runs last on the record kept.
fn update_in_place<T: Table + ?Sized>(
    (base, discounter): (&T, &Discounter),
    (changed, exact): (&ChangedRecords, &dyn ExactRecords),
    slot: SlotId,
    change: &mut dyn FnMut(&mut Record),
) -> Result<(), StoreError> {
    if changed.regrets_moved.is_set(slot) && changed.sums_moved.is_set(slot) {
        return base.update(slot, change);
    }
    let noted_before = changed.bits.is_set(slot);
    let stored = if noted_before {
        None
    } else {
        Some(exact.stored(slot)?)
    };
    let mut first = None;
    let mut bits = Ok(());
    let updated = base.update(slot, &mut |record| {
        let is_first = match changed.bits.set(slot) {
            Ok(is_first) => is_first,
            Err(error) => {
                bits = Err(error);
                return;
            }
        };
        let before = *record;
        let unseeded = (is_first && record.stamp == 0).then(|| {
            let mut twin = *record;
            twin.stamp = store::stamp::NEVER_DISCOUNTED;
            change(&mut twin);
            twin
        });
        change(record);
        // The twin's regrets, unseeded, say what the update itself did.
        let updated = unseeded.as_ref().unwrap_or(record);
        let mut caught_up = before;
        discounter.catch_up(&mut caught_up, store::stamp::decode(record.stamp));
        for (moved, flag) in [
            (caught_up.regrets != updated.regrets, &changed.regrets_moved),
            (
                caught_up.strategy_sum != updated.strategy_sum,
                &changed.sums_moved,
            ),
        ] {
            if moved && let Err(error) = flag.set(slot) {
                bits = Err(error);
            }
        }
        if let (true, Some(stored)) = (is_first, stored) {
            let seed = unseeded.map(|unseeded| {
                let mut seed = Box::<Record>::default();
                add_difference(&mut seed, record, &unseeded);
                seed
            });
            first = Some(Before {
                slot,
                stored,
                regrets_moved: false,
                sums_moved: false,
                seed,
            });
        }
    });
    // Noted even if the backend failed after the change: the sync then
    // puts the record back as it was, whatever the backend kept.
    if let Some(first) = first {
        changed.push(first);
    }
    bits?;
    updated
}

impl<T: Table + ?Sized> Table for ReplicatedTable<'_, T> {
    fn max_actions(&self) -> usize {
        self.base.max_actions()
    }

    /// The replica's slot, its key remembered for the sync (training in
    /// place, the sync asks the replica for the keys of the records it
    /// changed instead).
    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        let slot = self.base.slot(key)?;
        if self.in_place.is_none() {
            self.remember(slot, key);
        }
        Ok(slot)
    }

    fn slots(&self, keys: &[Key], slots: &mut [Option<SlotId>]) -> Result<(), StoreError> {
        self.base.slots(keys, slots)?;
        if self.in_place.is_some() {
            return Ok(());
        }
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
        if self.in_place.is_some() {
            return self.base.read(slot);
        }
        let in_flight = self.in_flight_shard(slot);
        let base = self.base.read(slot)?;
        let shard = self.shard(slot);
        Ok(self.view(
            base,
            in_flight.as_ref().and_then(|shard| shard.get(&slot)),
            shard.get(&slot),
        ))
    }

    /// Keeps what the update added beyond catching the record up. A record
    /// fresh to this rank (never updated anywhere as of the last sync, nor
    /// here since) may be seeded by a warm start, and every rank that meets
    /// it fresh within an epoch seeds it: the update is run on a twin that
    /// is not fresh first, so that the seed is told apart from the update
    /// and counted once at the sync. `change` runs last on the record kept,
    /// so what it leaves behind (a strategy it computed) is the real one.
    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        if let Some((changed, exact)) = &self.in_place {
            return update_in_place(
                (self.base, &self.discounter),
                (changed, *exact),
                slot,
                change,
            );
        }
        let in_flight = self.in_flight_shard(slot);
        let base = self.base.read(slot)?;
        let mut shard = self.shard(slot);
        let Some(pending) = shard.get_mut(&slot) else {
            // Slots come from `slot`, which registers them; one that did
            // not is not this table's.
            return Err(StoreError::NoSuchSlot {
                slot: slot.index() as u64,
                records: self.base.len(),
            });
        };
        let view = self.view(
            base,
            in_flight.as_ref().and_then(|shard| shard.get(&slot)),
            Some(pending),
        );
        let unseeded = if view.stamp == 0 {
            // A stamp no iteration reaches: not fresh, and never
            // discounted (`catch_up` does not move backwards).
            let mut twin = view;
            twin.stamp = store::stamp::NEVER_DISCOUNTED;
            change(&mut twin);
            Some(twin)
        } else {
            None
        };
        let mut after = view;
        change(&mut after);
        // What the update did beyond catching the view up to its iteration.
        let mut before = view;
        self.discounter
            .catch_up(&mut before, store::stamp::decode(after.stamp));
        let updated = match unseeded {
            Some(unseeded) => {
                add_difference(pending.seed.get_or_insert_default(), &after, &unseeded);
                unseeded
            }
            None => after,
        };
        add_difference(&mut pending.change, &updated, &before);
        pending.last_update = pending
            .last_update
            .max(store::stamp::decode(after.stamp).max(1));
        Ok(())
    }

    fn key(&self, slot: SlotId) -> Result<Key, StoreError> {
        self.base.key(slot)
    }

    /// The replica as of the last sync: pending changes are not records yet.
    fn len(&self) -> u64 {
        self.base.len()
    }

    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        self.base.for_each(visit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lookup of an epoch writes one pending entry into a map far
    /// larger than the caches; an entry grown back past 112 bytes (a
    /// 16-byte-aligned key, the seed unboxed) costs every rank's training
    /// speed, which this keeps from happening unnoticed.
    #[test]
    fn a_pending_entry_takes_112_bytes_of_its_map() {
        assert_eq!(size_of::<(SlotId, Pending)>(), 112);
    }

    #[test]
    fn a_pending_key_comes_back_whole() {
        for key in [
            0,
            1,
            u128::from(u64::MAX),
            u128::MAX,
            0x0123_4567_89ab_cdef_u128 << 60,
        ] {
            assert_eq!(Pending::new(key).key(), key);
        }
    }

    /// A record named by slot must be inside the table: a rank whose
    /// layout differs, or bytes damaged on the way, give an error naming
    /// the cause, never a read past the table.
    #[test]
    fn a_slot_name_past_the_table_is_an_error() {
        let table = store::MemoryTable::new();
        for key in [3, 1, 2] {
            table.slot(key).unwrap();
        }
        let replica = ReplicatedTable::new(
            &table,
            Discounter::new(crate::Schedule::LINEAR).unwrap(),
            Reads::Live,
        )
        .with_shared_layout();
        assert_eq!(replica.slot_named(2, Address::Slot).unwrap(), SlotId::at(2));
        assert_eq!(
            replica.slot_named(3, Address::Key).unwrap(),
            table.slot(3).unwrap()
        );
        let error = replica
            .slot_named(3, Address::Slot)
            .unwrap_err()
            .to_string();
        assert!(error.contains("past this table's 3 records"), "{error}");
        assert!(replica.slot_named(u128::MAX, Address::Slot).is_err());
    }
}
