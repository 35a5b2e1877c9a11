//! A rank's replica, and what it keeps of its epoch's changes until the
//! ranks sync: the records as they were (training in place), or a delta
//! buffer.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rustc_hash::FxHashMap;
use store::{ExactRecords, Key, Record, SlotId, StoreError, Table};

use super::in_place::{Before, ChangedRecords};
use super::wire::{self, Values};
use crate::discount::Discounter;
use crate::error::CfrError;

mod apply;
mod records;
mod settle;
mod sync;

use records::{add_difference, add_values, update_in_place};

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

    /// A digest of what every replica holds the same: the trained records'
    /// regrets and iteration stamps, and their strategy sums when those
    /// travel with every sync (deferred, they are rank 0's alone).
    pub fn digest(&self) -> Result<(u64, u64), StoreError> {
        super::digest::digest(self.base, self.strategy_sums == StrategySums::EachSync)
    }
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

    /// Bytes that are not whole entries (a peer of another build, or
    /// damage on the way) are refused by name before any record changes.
    #[test]
    fn a_rank_that_sent_part_of_an_entry_is_refused_before_anything_is_applied() {
        let table = store::MemoryTable::new();
        let slot = table.slot(7).unwrap();
        let replica = ReplicatedTable::new(
            &table,
            Discounter::new(crate::Schedule::LINEAR).unwrap(),
            Reads::Live,
        );
        let mut whole = Vec::new();
        let change = Record {
            regrets: [1.0; store::MAX_ACTIONS],
            ..Record::default()
        };
        wire::put_delta(&mut whole, 7, &change, table.max_actions(), Values::Both);
        let everyone = [(&whole[..], &[][..]), (&whole[..whole.len() - 1], &[][..])];
        let error = replica
            .apply_gathered(
                &everyone,
                0,
                Values::Both,
                Address::Key,
                (10, apply::Retire::AtEnd),
                add_values,
            )
            .unwrap_err()
            .to_string();
        assert!(error.contains("rank 1 sent"), "{error}");
        assert!(error.contains("not a whole number of"), "{error}");
        assert_eq!(table.read(slot).unwrap(), Record::default());
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
