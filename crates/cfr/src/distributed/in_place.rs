//! What a rank that trains in place on its replica keeps between syncs:
//! which records it changed, and what each held before.
//!
//! A delta buffer keyed by slot costs a rank about two cache misses on
//! every record's first touch in an epoch and a view of the record on
//! every update (a rank trained at 0.71 of one process with it,
//! docs/experiments/cluster-replica-overhead.md). Training in place costs
//! what one process pays, plus one bit per slot, which stays in cache, and
//! one appended copy of a record the first time an epoch changes it. At the
//! sync each record is put back as it was, bit for bit, and its change,
//! found from the record as it was and as it had become, goes to the other
//! ranks only if it is one they apply (most records an epoch changes gain
//! only strategy sums, which wait on the rank for a settle).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use store::{Record, SlotId, StoreError, StoredRecord};

/// Slots a chunk of [`SlotBits`] covers: 256 KiB of bits, allocated on
/// first use so that a growing table pays for the slots it has.
const CHUNK_SLOTS: u64 = 1 << 21;

/// The slots a growing backend may hand out at most.
const GROWING_SLOTS: u64 = 1 << 32;

/// One bit per slot, set concurrently.
pub(super) struct SlotBits {
    chunks: Box<[OnceLock<Box<[AtomicU64]>>]>,
}

impl SlotBits {
    /// Room for `slots` slots, or for as many as a growing backend can
    /// hand out if that is more.
    pub(super) fn new(slots: u64) -> SlotBits {
        let chunks = slots.max(GROWING_SLOTS).div_ceil(CHUNK_SLOTS);
        SlotBits {
            chunks: (0..chunks).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Sets `slot`'s bit; whether it was clear.
    pub(super) fn set(&self, slot: SlotId) -> Result<bool, StoreError> {
        let index = slot.index() as u64;
        let chunk = self
            .chunks
            .get((index / CHUNK_SLOTS) as usize)
            .ok_or(StoreError::NoSuchSlot {
                slot: index,
                records: self.chunks.len() as u64 * CHUNK_SLOTS,
            })?
            .get_or_init(|| (0..CHUNK_SLOTS / 64).map(|_| AtomicU64::new(0)).collect());
        let within = index % CHUNK_SLOTS;
        let bit = 1 << (within % 64);
        Ok(chunk[(within / 64) as usize].fetch_or(bit, Ordering::Relaxed) & bit == 0)
    }

    /// Whether `slot`'s bit is set. Bits are set, never cleared, while an
    /// epoch trains, so a set bit read without ordering is still set.
    pub(super) fn is_set(&self, slot: SlotId) -> bool {
        let index = slot.index() as u64;
        self.chunks
            .get((index / CHUNK_SLOTS) as usize)
            .and_then(OnceLock::get)
            .is_some_and(|chunk| {
                let within = index % CHUNK_SLOTS;
                chunk[(within / 64) as usize].load(Ordering::Relaxed) & (1 << (within % 64)) != 0
            })
    }

    /// Clears the bits of `slots` (the ones set since the last clear), so
    /// the work is the epoch's, not the table's.
    pub(super) fn clear(&self, slots: impl Iterator<Item = SlotId>) {
        for slot in slots {
            let index = slot.index() as u64;
            if let Some(chunk) = self.chunks[(index / CHUNK_SLOTS) as usize].get() {
                let within = index % CHUNK_SLOTS;
                chunk[(within / 64) as usize].store(0, Ordering::Relaxed);
            }
        }
    }
}

/// A record as it was before an epoch first changed it.
#[derive(Clone, Debug)]
pub(super) struct Before {
    pub slot: SlotId,
    pub stored: StoredRecord,
    /// Whether the epoch moved its regrets: taken from
    /// [`ChangedRecords::regrets_moved`] when the epoch is taken.
    pub regrets_moved: bool,
    /// Whether the epoch added to its strategy sums: taken from
    /// [`ChangedRecords::sums_moved`] alike.
    pub sums_moved: bool,
    /// What a warm start added at that first change, when the record was
    /// fresh: every rank that meets a record fresh in an epoch seeds it,
    /// and the sync counts one seed, as one process would.
    pub seed: Option<Box<Record>>,
}

/// The records an epoch changed, in one list per training thread, so that
/// each thread appends to its own, in order, without meeting another.
pub(super) struct ChangedRecords {
    /// Changed in the epoch (its record noted).
    pub bits: SlotBits,
    /// Regrets changed by an update in the epoch, beyond catching up. The
    /// rest gained strategy sums alone: their regrets as they are differ
    /// from before only by the layout's rounding, which is no change to
    /// send.
    pub regrets_moved: SlotBits,
    /// Strategy sums added to by an update in the epoch. The rest are only
    /// rewritten: under a discount, each write re-quantises the sums as
    /// discounted, a rounding apart from the stored sums caught up, which
    /// would otherwise be held for the settle as if trained (with card
    /// play keeping no average, that is every card-play record).
    pub sums_moved: SlotBits,
    shards: Box<[Mutex<Vec<Before>>]>,
}

impl ChangedRecords {
    pub(super) fn new(slots: u64, shards: usize) -> ChangedRecords {
        ChangedRecords {
            bits: SlotBits::new(slots),
            regrets_moved: SlotBits::new(slots),
            sums_moved: SlotBits::new(slots),
            shards: (0..shards).map(|_| Mutex::default()).collect(),
        }
    }

    pub(super) fn push(&self, before: Before) {
        let thread = rayon::current_thread_index().map_or(0, |index| index + 1);
        self.shards[thread % self.shards.len()]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(before);
    }

    /// Records changed since the last [`Self::take`].
    pub(super) fn len(&self) -> u64 {
        self.shards
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner).len() as u64)
            .sum()
    }

    /// Every record changed since the last call, their bits cleared: call
    /// with no update running, and hand the lists back with
    /// [`Self::give_back`] after the sync, so the next epoch appends to
    /// vectors already grown.
    pub(super) fn take(&self) -> Taken {
        let mut shards: Vec<Vec<Before>> = self
            .shards
            .iter()
            .map(|shard| std::mem::take(&mut *shard.lock().unwrap_or_else(PoisonError::into_inner)))
            .collect();
        // A word of bits holds slots of many shards: every flag is read
        // before any word is cleared.
        for before in shards.iter_mut().flatten() {
            before.regrets_moved = self.regrets_moved.is_set(before.slot);
            before.sums_moved = self.sums_moved.is_set(before.slot);
        }
        for shard in &shards {
            let slots = || shard.iter().map(|before| before.slot);
            self.bits.clear(slots());
            self.regrets_moved.clear(slots());
            self.sums_moved.clear(slots());
        }
        Taken { shards }
    }

    /// Returns what [`Self::take`] took, emptied, keeping its capacity.
    pub(super) fn give_back(&self, taken: Taken) {
        for (shard, mut list) in self.shards.iter().zip(taken.shards) {
            list.clear();
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            if shard.is_empty() {
                *shard = list;
            }
        }
    }
}

/// One epoch's changed records, in their threads' lists.
pub(super) struct Taken {
    pub shards: Vec<Vec<Before>>,
}

impl Taken {
    pub(super) fn len(&self) -> usize {
        self.shards.iter().map(Vec::len).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(index: u64) -> SlotId {
        // Slots are only made by tables; a memory table hands them out in
        // order.
        let table = store::MemoryTable::new();
        let mut last = None;
        for key in 0..=index {
            last = Some(store::Table::slot(&table, u128::from(key)).unwrap());
        }
        last.unwrap()
    }

    #[test]
    fn a_bit_is_set_once_until_cleared() {
        let bits = SlotBits::new(100);
        let (a, b) = (slot(3), slot(70));
        assert!(!bits.is_set(a));
        assert!(bits.set(a).unwrap());
        assert!(bits.is_set(a));
        assert!(!bits.set(a).unwrap());
        assert!(bits.set(b).unwrap());
        bits.clear([a].into_iter());
        assert!(bits.set(a).unwrap());
        assert!(!bits.set(b).unwrap());
    }

    #[test]
    fn taking_the_changed_records_clears_their_bits_and_reads_their_flags() {
        let changed = ChangedRecords::new(100, 4);
        for index in [9, 2, 5, 13] {
            assert!(changed.bits.set(slot(index)).unwrap());
            if index % 2 == 1 {
                changed.regrets_moved.set(slot(index)).unwrap();
            }
            if index > 6 {
                changed.sums_moved.set(slot(index)).unwrap();
            }
            changed.push(Before {
                slot: slot(index),
                stored: StoredRecord::default(),
                regrets_moved: false,
                sums_moved: false,
                seed: None,
            });
        }
        assert_eq!(changed.len(), 4);
        let taken = changed.take();
        assert_eq!(taken.len(), 4);
        assert_eq!(changed.len(), 0);
        // This thread is no pool's: its list is the first, in push order.
        let listed: Vec<(usize, bool, bool)> = taken.shards[0]
            .iter()
            .map(|before| (before.slot.index(), before.regrets_moved, before.sums_moved))
            .collect();
        assert_eq!(
            listed,
            [
                (9, true, true),
                (2, false, false),
                (5, true, false),
                (13, true, true)
            ]
        );
        for index in [9, 2, 5, 13] {
            assert!(!changed.bits.is_set(slot(index)));
            assert!(!changed.regrets_moved.is_set(slot(index)));
            assert!(!changed.sums_moved.is_set(slot(index)));
        }
        changed.give_back(taken);
        assert_eq!(changed.len(), 0);
        assert!(changed.shards[0].lock().unwrap().capacity() >= 4);
    }
}
