//! The in-memory backend, and the reference the others are tested against.
//!
//! Keys resolve through a sharded hash index to dense slot ids; records
//! live in an arena of fixed-size chunks allocated on demand, so a slot's
//! address never moves and growing the table never blocks readers of other
//! shards. Each record has its own lock, held only while one record is
//! read or changed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use rustc_hash::FxBuildHasher;

use crate::error::StoreError;
use crate::layout::RecordLayout;
use crate::record::Record;
use crate::table::{Key, SlotId, Table};

const SHARDS: usize = 256;
const CHUNK_BITS: u32 = 16;
const CHUNK_SLOTS: usize = 1 << CHUNK_BITS;
const MAX_CHUNKS: usize = 1 << 16;

#[derive(Debug, Default)]
struct Entry {
    key: Key,
    record: Record,
}

type Chunk = Box<[Mutex<Entry>]>;

/// A growable in-memory table with no global lock.
#[derive(Debug)]
pub struct MemoryTable {
    shards: Box<[RwLock<HashMap<Key, u64, FxBuildHasher>>]>,
    chunks: Box<[OnceLock<Chunk>]>,
    next_slot: AtomicU64,
    capacity: u64,
    /// When set, every update is rounded through this layout, so that the
    /// table holds exactly what a disk backend with the layout would.
    quantise_to: Option<RecordLayout>,
}

impl Default for MemoryTable {
    fn default() -> Self {
        MemoryTable::with_capacity((CHUNK_SLOTS * MAX_CHUNKS) as u64)
    }
}

impl MemoryTable {
    pub fn new() -> MemoryTable {
        MemoryTable::default()
    }

    /// A table that refuses to grow past `capacity` records.
    pub fn with_capacity(capacity: u64) -> MemoryTable {
        MemoryTable {
            shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
            chunks: (0..MAX_CHUNKS).map(|_| OnceLock::new()).collect(),
            next_slot: AtomicU64::new(0),
            capacity: capacity.min((CHUNK_SLOTS * MAX_CHUNKS) as u64),
            quantise_to: None,
        }
    }

    /// A table whose records always hold what `layout` can represent.
    pub fn with_layout(layout: RecordLayout) -> MemoryTable {
        MemoryTable {
            quantise_to: Some(layout),
            ..MemoryTable::default()
        }
    }

    #[inline]
    fn shard(&self, key: Key) -> &RwLock<HashMap<Key, u64, FxBuildHasher>> {
        // Mix the high and low halves so keys differing anywhere spread out.
        let mixed = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        let spread = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56;
        &self.shards[spread as usize % SHARDS]
    }

    #[inline]
    fn entry(&self, slot: SlotId) -> &Mutex<Entry> {
        let chunk = self.chunks[slot.index() >> CHUNK_BITS]
            .get()
            .expect("slot ids are only handed out after their chunk exists");
        &chunk[slot.index() & (CHUNK_SLOTS - 1)]
    }
}

impl Table for MemoryTable {
    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        let shard = self.shard(key);
        if let Some(&slot) = shard
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(SlotId(slot));
        }
        let mut index = shard.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(&slot) = index.get(&key) {
            return Ok(SlotId(slot));
        }
        let slot = self.next_slot.fetch_add(1, Ordering::Relaxed);
        if slot >= self.capacity {
            self.next_slot.fetch_sub(1, Ordering::Relaxed);
            return Err(StoreError::Full {
                capacity: self.capacity,
            });
        }
        let chunk = self.chunks[(slot as usize) >> CHUNK_BITS]
            .get_or_init(|| (0..CHUNK_SLOTS).map(|_| Mutex::default()).collect());
        chunk[(slot as usize) & (CHUNK_SLOTS - 1)]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .key = key;
        index.insert(key, slot);
        Ok(SlotId(slot))
    }

    fn find(&self, key: Key) -> Option<SlotId> {
        self.shard(key)
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .map(|&slot| SlotId(slot))
    }

    fn read(&self, slot: SlotId) -> Record {
        self.entry(slot)
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .record
    }

    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) {
        let mut entry = self
            .entry(slot)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        change(&mut entry.record);
        if let Some(layout) = &self.quantise_to {
            layout.quantise(&mut entry.record);
        }
    }

    fn len(&self) -> u64 {
        self.next_slot.load(Ordering::Relaxed).min(self.capacity)
    }

    /// Slots created while this runs may be skipped; call it when no
    /// training thread is inserting.
    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) {
        for slot in 0..self.len() {
            let entry = self
                .entry(SlotId(slot))
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            visit(entry.key, &entry.record);
        }
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    use super::*;

    #[test]
    fn slots_are_dense_and_stable() {
        let table = MemoryTable::new();
        let a = table.slot(7).unwrap();
        let b = table.slot(u128::MAX).unwrap();
        assert_eq!((a, b), (SlotId(0), SlotId(1)));
        assert_eq!(table.slot(7).unwrap(), a);
        assert_eq!(table.find(u128::MAX), Some(b));
        assert_eq!(table.find(8), None);
        assert_eq!(table.len(), 2);
    }

    #[test]
    fn a_full_table_says_so() {
        let table = MemoryTable::with_capacity(2);
        table.slot(1).unwrap();
        table.slot(2).unwrap();
        assert!(matches!(
            table.slot(3),
            Err(StoreError::Full { capacity: 2 })
        ));
        assert_eq!(table.len(), 2);
        assert!(table.slot(1).is_ok(), "existing keys still resolve");
    }

    #[test]
    fn concurrent_updates_are_never_lost() {
        let table = MemoryTable::new();
        let keys: Vec<Key> = (0..64).map(|k| k * 0x1_0000_0001).collect();
        (0..200_000u64).into_par_iter().for_each(|step| {
            let slot = table.slot(keys[(step % 64) as usize]).unwrap();
            table.update(slot, &mut |record| {
                record.regrets[0] += 1.0;
                record.strategy_sum[1] += 2.0;
                record.last_iteration = record.last_iteration.max(step as u32);
            });
        });
        assert_eq!(table.len(), 64);
        let mut total = 0.0;
        table.for_each(&mut |key, record| {
            assert!(keys.contains(&key));
            assert_eq!(record.strategy_sum[1], 2.0 * record.regrets[0]);
            total += f64::from(record.regrets[0]);
        });
        assert_eq!(total, 200_000.0);
    }
}
