//! The in-memory backend, and the reference the others are tested against.
//!
//! Keys resolve through a sharded hash index to dense slot ids; records
//! live in an arena of fixed-size chunks allocated on demand, so a slot's
//! address never moves and growing the table never blocks readers of other
//! shards. Each record has its own lock, held only while one record is
//! read or changed.

use std::sync::{Mutex, PoisonError};

use crate::error::StoreError;
use crate::index::{ChunkedArena, KeyIndex, MAX_SLOTS};
use crate::layout::RecordLayout;
use crate::record::{MAX_ACTIONS, Record};
use crate::table::{ExactRecords, Key, SlotId, StoredRecord, Table};

#[derive(Debug, Default)]
struct Entry {
    key: Key,
    record: Record,
}

/// A growable in-memory table with no global lock.
#[derive(Debug)]
pub struct MemoryTable {
    index: KeyIndex,
    entries: ChunkedArena<Mutex<Entry>>,
    /// When set, every update is rounded through this layout, so that the
    /// table holds exactly what a disk backend with the layout would.
    quantise_to: Option<RecordLayout>,
}

impl Default for MemoryTable {
    fn default() -> Self {
        MemoryTable::with_capacity(MAX_SLOTS)
    }
}

impl MemoryTable {
    pub fn new() -> MemoryTable {
        MemoryTable::default()
    }

    /// A table that refuses to grow past `capacity` records.
    pub fn with_capacity(capacity: u64) -> MemoryTable {
        MemoryTable {
            index: KeyIndex::new(capacity.min(MAX_SLOTS)),
            entries: ChunkedArena::new(),
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

    /// The most memory one record takes: its slot in the arena and its
    /// entry in the index, at a hash map's worst slack (just after its
    /// capacity doubled). What a run's memory is planned from.
    pub fn bytes_per_record() -> u64 {
        let arena = size_of::<Mutex<Entry>>() as u64;
        let index_entry = size_of::<(Key, u64)>() as u64 + 1;
        arena + (index_entry * 8).div_ceil(7) * 2
    }

    #[inline]
    fn entry(&self, slot: SlotId) -> std::sync::MutexGuard<'_, Entry> {
        self.entries
            .get(slot)
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Table for MemoryTable {
    fn max_actions(&self) -> usize {
        self.quantise_to
            .map_or(MAX_ACTIONS, |layout| layout.max_actions())
    }

    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.index.resolve(key, |slot| {
            self.entries
                .get_or_create(slot)
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .key = key;
        })
    }

    fn find(&self, key: Key) -> Option<SlotId> {
        self.index.find(key)
    }

    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        Ok(self.entry(slot).record)
    }

    fn key(&self, slot: SlotId) -> Result<Key, StoreError> {
        Ok(self.entry(slot).key)
    }

    fn exact_records(&self) -> Option<&dyn ExactRecords> {
        Some(self)
    }

    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        let mut entry = self.entry(slot);
        change(&mut entry.record);
        if let Some(layout) = &self.quantise_to {
            layout.quantise(&mut entry.record);
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.index.len()
    }

    /// Slots created while this runs may be skipped; call it when no
    /// training thread is inserting.
    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        for slot in 0..self.len() {
            let entry = self.entry(SlotId::new(slot));
            visit(entry.key, &entry.record);
        }
        Ok(())
    }
}

/// The record itself is what is stored: its values' bits, and the stamp.
impl ExactRecords for MemoryTable {
    fn stored(&self, slot: SlotId) -> Result<StoredRecord, StoreError> {
        let record = self.entry(slot).record;
        let mut stored = StoredRecord::default();
        let values = record.regrets.iter().chain(&record.strategy_sum);
        for (chunk, value) in stored.bytes.chunks_exact_mut(4).zip(values) {
            chunk.copy_from_slice(&value.to_bits().to_le_bytes());
        }
        stored.bytes[8 * MAX_ACTIONS..][..4].copy_from_slice(&record.stamp.to_le_bytes());
        Ok(stored)
    }

    fn put_back(&self, slot: SlotId, stored: &StoredRecord) -> Result<(), StoreError> {
        self.entry(slot).record = self.decode(stored);
        Ok(())
    }

    fn decode(&self, stored: &StoredRecord) -> Record {
        let word = |at: usize| {
            let mut word = [0u8; 4];
            word.copy_from_slice(&stored.bytes[at..at + 4]);
            u32::from_le_bytes(word)
        };
        let mut record = Record::default();
        for action in 0..MAX_ACTIONS {
            record.regrets[action] = f32::from_bits(word(4 * action));
            record.strategy_sum[action] = f32::from_bits(word(4 * (MAX_ACTIONS + action)));
        }
        record.stamp = word(8 * MAX_ACTIONS);
        record
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
        assert_eq!((a.index(), b.index()), (0, 1));
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
            table
                .update(slot, &mut |record| {
                    record.regrets[0] += 1.0;
                    record.strategy_sum[1] += 2.0;
                    record.stamp = record.stamp.max(step as u32);
                })
                .unwrap();
        });
        assert_eq!(table.len(), 64);
        let mut total = 0.0;
        table
            .for_each(&mut |key, record| {
                assert!(keys.contains(&key));
                assert_eq!(record.strategy_sum[1], 2.0 * record.regrets[0]);
                total += f64::from(record.regrets[0]);
            })
            .unwrap();
        assert_eq!(total, 200_000.0);
    }
}
