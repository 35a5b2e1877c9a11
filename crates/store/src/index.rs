//! Key → dense slot id, sharded so that lookups of different keys rarely
//! meet on a lock, for the backends that grow as keys arrive.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{PoisonError, RwLock};

use rustc_hash::FxBuildHasher;

use crate::error::StoreError;
use crate::table::{Key, SlotId};

const SHARDS: usize = 256;

#[derive(Debug)]
pub(crate) struct KeyIndex {
    shards: Box<[RwLock<HashMap<Key, u64, FxBuildHasher>>]>,
    next_slot: AtomicU64,
    capacity: u64,
}

impl KeyIndex {
    pub(crate) fn new(capacity: u64) -> KeyIndex {
        KeyIndex {
            shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
            next_slot: AtomicU64::new(0),
            capacity,
        }
    }

    #[inline]
    fn shard(&self, key: Key) -> &RwLock<HashMap<Key, u64, FxBuildHasher>> {
        // Mix the high and low halves so keys differing anywhere spread out.
        let mixed = (key as u64) ^ ((key >> 64) as u64).rotate_left(29);
        let spread = mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56;
        &self.shards[spread as usize % SHARDS]
    }

    /// The slot of `key`, allocating the next one for a new key. `on_new`
    /// runs before any other thread can see the new slot.
    pub(crate) fn resolve(
        &self,
        key: Key,
        on_new: impl FnOnce(SlotId),
    ) -> Result<SlotId, StoreError> {
        let shard = self.shard(key);
        if let Some(&slot) = shard
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
        {
            return Ok(SlotId::new(slot));
        }
        let mut map = shard.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(&slot) = map.get(&key) {
            return Ok(SlotId::new(slot));
        }
        let slot = self.next_slot.fetch_add(1, Ordering::Relaxed);
        if slot >= self.capacity {
            self.next_slot.fetch_sub(1, Ordering::Relaxed);
            return Err(StoreError::Full {
                capacity: self.capacity,
            });
        }
        on_new(SlotId::new(slot));
        map.insert(key, slot);
        Ok(SlotId::new(slot))
    }

    pub(crate) fn find(&self, key: Key) -> Option<SlotId> {
        self.shard(key)
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .map(|&slot| SlotId::new(slot))
    }

    pub(crate) fn len(&self) -> u64 {
        self.next_slot.load(Ordering::Relaxed).min(self.capacity)
    }
}

/// A slot-indexed arena of `T`, in chunks allocated on first use, so that an
/// element's address never moves while the arena grows.
#[derive(Debug)]
pub(crate) struct ChunkedArena<T> {
    chunks: Box<[std::sync::OnceLock<Box<[T]>>]>,
}

pub(crate) const CHUNK_BITS: u32 = 16;
const CHUNK_SLOTS: usize = 1 << CHUNK_BITS;
const MAX_CHUNKS: usize = 1 << 16;
/// The most slots a growing backend can hold.
pub(crate) const MAX_SLOTS: u64 = (CHUNK_SLOTS * MAX_CHUNKS) as u64;

impl<T: Default> ChunkedArena<T> {
    pub(crate) fn new() -> ChunkedArena<T> {
        ChunkedArena {
            chunks: (0..MAX_CHUNKS)
                .map(|_| std::sync::OnceLock::new())
                .collect(),
        }
    }

    /// The element of `slot`, allocating its chunk if needed.
    pub(crate) fn get_or_create(&self, slot: SlotId) -> &T {
        let chunk = self.chunks[slot.index() >> CHUNK_BITS]
            .get_or_init(|| (0..CHUNK_SLOTS).map(|_| T::default()).collect());
        &chunk[slot.index() & (CHUNK_SLOTS - 1)]
    }

    /// The element of a slot that was handed out (so its chunk exists).
    pub(crate) fn get(&self, slot: SlotId) -> &T {
        let chunk = self.chunks[slot.index() >> CHUNK_BITS]
            .get()
            .expect("slot ids are only handed out after their chunk exists");
        &chunk[slot.index() & (CHUNK_SLOTS - 1)]
    }
}
