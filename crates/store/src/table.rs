//! The one trait every backend implements.

use crate::error::StoreError;
use crate::record::Record;

/// An infostate key: fixed-size plain data, produced by the game.
pub type Key = u128;

/// A dense index into a table's records, stable for the table's lifetime,
/// so a solver can keep per-slot scratch in flat arrays.
///
/// Only a table makes one (the field is private), and a backend that
/// addresses memory by it still checks it against its own size: a slot of
/// one table handed to another is an error, never a read out of bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotId(u64);

impl SlotId {
    #[inline]
    pub(crate) const fn new(index: u64) -> SlotId {
        SlotId(index)
    }

    /// The slot at `index` of a table laid out as another replica's: a
    /// cluster rank names a record to the others by its slot when every
    /// rank's store was built from one skeleton. The caller checks `index`
    /// against the table's length.
    #[inline]
    pub const fn at(index: u64) -> SlotId {
        SlotId(index)
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The raw index, for the disk backends' offsets and keys.
    #[cfg(any(feature = "lmdb", feature = "mmap"))]
    #[inline]
    pub(crate) const fn get(self) -> u64 {
        self.0
    }
}

/// A table of records shared by many threads. All methods take `&self`:
/// a backend synchronises per slot (or per small stripe of slots), never
/// with one lock around the whole table.
///
/// Reads and updates return `Result` because a disk backend can fail
/// between any two calls; a backend never answers a failed read with a
/// fresh record, since an update would then write it over the real one.
pub trait Table: Send + Sync {
    /// Actions per record: a solver refuses decisions wider than this
    /// rather than letting them spill past the stored values.
    fn max_actions(&self) -> usize;

    /// The slot for `key`, created zeroed on first use where the backend
    /// can grow; a fixed-universe backend refuses keys it does not know.
    fn slot(&self, key: Key) -> Result<SlotId, StoreError>;

    /// The slot for `key` if it has one, without creating it.
    fn find(&self, key: Key) -> Option<SlotId>;

    /// The slots of several keys, `slots[i]` for `keys[i]` (the two as
    /// long as each other), every one filled when it returns `Ok`; failing
    /// as [`Table::slot`] fails at the first key that does. A backend whose
    /// lookups miss the cache starts every key's miss before it waits for
    /// any, so a solver with several lookups ahead of it (the traverser's
    /// children) pays for about one; the default looks them up in turn.
    fn slots(&self, keys: &[Key], slots: &mut [Option<SlotId>]) -> Result<(), StoreError> {
        for (&key, slot) in keys.iter().zip(slots) {
            *slot = Some(self.slot(key)?);
        }
        Ok(())
    }

    /// A consistent copy of one record.
    fn read(&self, slot: SlotId) -> Result<Record, StoreError>;

    /// Applies `change` to one record atomically: no other update of the
    /// same slot interleaves, so no update is lost or torn. On an error the
    /// record is as it was, or the error says the store cannot be trusted
    /// until it is reopened at its last checkpoint.
    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError>;

    /// The key `slot` was made for: what a cluster rank that trains in
    /// place sends for each record it changed, at the sync, instead of
    /// keeping every looked-up key on the way (which cost it a seventh
    /// of its training, docs/experiments/cluster-replica-overhead.md).
    /// Not on any training path: a backend may read it from disk.
    fn key(&self, slot: SlotId) -> Result<Key, StoreError>;

    /// How many slots are in use.
    fn len(&self) -> u64;

    /// This backend's records as stored, to copy out and put back bit for
    /// bit, if it can: an update re-encodes a record, and a record put
    /// back by an update could come out a rounding apart from its copies
    /// elsewhere. Needed by a cluster rank that trains in place.
    fn exact_records(&self) -> Option<&dyn ExactRecords> {
        None
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `visit` with every key and its record, in slot order. Fails,
    /// rather than visiting fewer records, when the keys cannot be read.
    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError>;
}

/// A record exactly as a backend stores it (see [`ExactRecords`]); opaque
/// to everyone else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoredRecord {
    pub(crate) bytes: [u8; crate::layout::RecordLayout::MAX_BYTES],
}

impl Default for StoredRecord {
    fn default() -> Self {
        StoredRecord {
            bytes: [0; crate::layout::RecordLayout::MAX_BYTES],
        }
    }
}

/// Records that can be copied out and put back unchanged, bit for bit.
pub trait ExactRecords: Send + Sync {
    /// A copy of the record at `slot`, as stored.
    fn stored(&self, slot: SlotId) -> Result<StoredRecord, StoreError>;

    /// Writes back what [`Self::stored`] copied from the same slot of this
    /// table: afterwards the record is what it was, byte for byte.
    fn put_back(&self, slot: SlotId, stored: &StoredRecord) -> Result<(), StoreError>;

    /// The record [`Table::read`] would give for `stored`, without reading
    /// the table.
    fn decode(&self, stored: &StoredRecord) -> Record;
}
