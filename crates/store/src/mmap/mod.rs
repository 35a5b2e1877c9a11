//! The mmap backend: a minimal perfect hash over a fixed key universe, and
//! a preallocated file of fixed-size records that the kernel pages in and
//! out. Resident memory is the perfect hash plus whatever pages the kernel
//! chooses to keep, so the file may be far larger than RAM.
//!
//! Files in the directory:
//! - `mmap-phf.bin`: the boomphf hash, built once and never rebuilt;
//! - `mmap-records.dat`: a 4 KiB header, then one record per key in phf order;
//! - `mmap-keys.dat`: the keys in phf order, read only to export;
//! - `mmap-build-spill/`: only while a store too large for one window of
//!   the build is built (the keys sorted by window), removed when it ends.
//!
//! Each record starts with a 32-bit check of its key. A key outside the
//! universe hashes to some slot whose check does not match, and is refused
//! instead of silently sharing that slot.
//!
//! Concurrency: a record's key check is written once, while the store is
//! built and before any other thread can see it, and never again; lookups
//! read it with an atomic load (records are whole 4-byte words, so it is
//! aligned). The rest of a record is only read or written under its
//! stripe's lock. So no byte is ever read while another thread writes it.

use std::fs::File;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use memmap2::MmapRaw;

use crate::client_state::ClientState;
use crate::dir::{Committed, StoreDir};
use crate::durable::DurableTable;
use crate::error::StoreError;
use crate::held_pages::HeldPages;
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::record::Record;
use crate::table::{ExactRecords, Key, SlotId, StoredRecord, Table};
use crate::undo::{PAGE, UndoJournal};
use crate::verify::Verification;

mod files;
mod open;
mod phf_query;
mod prefetch;
mod skeleton;
mod spill;
mod universe;

use files::*;
use phf_query::{PhfQuery, Started};
use prefetch::prefetch_line;
pub use skeleton::Skeleton;
pub use universe::KeyUniverse;

pub(crate) use files::UNDO_FILE;
pub use files::{KEYS_FILE, PHF_FILE, RECORDS_FILE};

/// Held while a record's body is read or written.
type StripeGuard<'a> = std::sync::MutexGuard<'a, ()>;
/// Updates of slots in one stripe exclude each other; 64 Ki stripes make two
/// threads meeting on one stripe rare while costing 512 KiB.
const STRIPES: usize = 1 << 16;

/// Keys of a [`Table::slots`] batch whose first probes are all started
/// before any is finished; a longer batch goes in pieces of this many.
/// The solver's batches are a decision's children, at most seven.
const MAX_BATCH: usize = 16;
/// The load factor boomphf trades size for speed with. At 20 M keys on
/// two threads (`cargo run --release -p store --example phf_load_factor --
/// 20000000 1.7 3 5`), 3 against boomphf's usual 1.7 builds the hash in
/// 0.6 of the time and answers a query alone in 52 ns instead of 64 (fewer
/// keys fall through to a later level), for 5.0 bits a key instead of 3.7.
/// Higher still builds a little faster (5: 0.5 of the time) but, twice
/// the size, made the bench's steps a few percent slower in one sitting
/// (docs/experiments/stores-side-by-side.md). Stores built with any load
/// factor read alike.
const GAMMA: f64 = 3.0;

/// A fixed-universe table in a memory-mapped file.
pub struct MmapTable {
    dir: StoreDir,
    layout: RecordLayout,
    manifest: Committed,
    phf: PhfQuery,
    map: MmapRaw,
    records: u64,
    stripes: Box<[Mutex<()>]>,
    /// `None` when opened read-only: updates and checkpoints are refused.
    undo: Option<UndoJournal>,
    /// The changed pages when they are held until checkpoints (the map is
    /// then a copy in memory, [`Writeback::AtCheckpoint`]); `None` with a
    /// shared map.
    held: Option<HeldPages>,
    verification: Verification,
    /// The keys file, opened on the first [`Table::key`]: only a cluster
    /// rank that trains in place asks, at its syncs.
    keys_file: std::sync::OnceLock<File>,
}

impl std::fmt::Debug for MmapTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmapTable")
            .field("dir", &self.dir.path())
            .field("records", &self.records)
            .finish()
    }
}

impl MmapTable {
    /// The bytes of the saved perfect hash: what must stay resident.
    pub fn phf_bytes(&self) -> u64 {
        std::fs::metadata(self.dir.file(PHF_FILE)).map_or(0, |meta| meta.len())
    }

    /// Refuses a slot beyond this table's records: one made by another,
    /// larger table. Every path to `record_pointer` from the `Table` trait
    /// passes here first, which is what keeps its pointer in the mapping.
    #[inline]
    fn check_bounds(&self, slot: SlotId) -> Result<(), StoreError> {
        if slot.get() < self.records {
            Ok(())
        } else {
            Err(StoreError::NoSuchSlot {
                slot: slot.get(),
                records: self.records,
            })
        }
    }

    #[inline]
    fn record_pointer(&self, slot: SlotId) -> *mut u8 {
        debug_assert!(slot.get() < self.records);
        let offset = HEADER_BYTES + slot.get() * self.layout.bytes();
        // SAFETY: every caller has a slot below `records`: `slot` returns
        // only such ids, and `read` and `update` check theirs
        // (`check_bounds`), so the offset is within the mapping.
        #[allow(unsafe_code)]
        unsafe {
            self.map.as_mut_ptr().add(offset as usize)
        }
    }

    /// Where the perfect hash puts `key`, if within the records; a key
    /// outside the universe may land anywhere, hence [`Self::holds`].
    #[inline]
    fn hashed_slot(&self, key: Key) -> Option<SlotId> {
        self.within(self.phf.slot(key))
    }

    /// A slot of the perfect hash's, if within the records.
    #[inline]
    fn within(&self, slot: Option<u64>) -> Option<SlotId> {
        slot.filter(|&slot| slot < self.records).map(SlotId::new)
    }

    /// Whether the record at `slot` (from [`Self::hashed_slot`]) is `key`'s.
    #[inline]
    fn holds(&self, slot: SlotId, key: Key) -> bool {
        self.key_check_of(slot) == RecordLayout::key_check(key)
    }

    /// The key check of the record at `slot`, which must be below `records`.
    #[inline]
    fn key_check_of(&self, slot: SlotId) -> u32 {
        // SAFETY: the record lies within the mapping (see `record_pointer`)
        // and starts on a 4-byte boundary: the header is 4096 bytes and
        // every layout's record a whole number of words. The check is only
        // ever written before the table is shared (`build`), so this load
        // races with no write; the mapping outlives `self`.
        #[allow(unsafe_code)]
        let check = unsafe { AtomicU32::from_ptr(self.record_pointer(slot).cast::<u32>()) };
        u32::from_le(check.load(Ordering::Relaxed))
    }

    #[inline]
    /// What every write of the bytes at `offset` does first: the page's
    /// old bytes go to the journal, or the page is marked held. When the
    /// journal cannot take them (a full disk) the write is refused, and
    /// every later checkpoint fails, so the store reopens at its last
    /// checkpoint instead of committing a run with holes in it.
    fn before_writing(&self, offset: u64, length: u64) -> Result<(), StoreError> {
        let undo = self.undo.as_ref().ok_or_else(|| StoreError::ReadOnly {
            path: self.dir.path().to_path_buf(),
        })?;
        match &self.held {
            Some(held) => held.mark(offset, length),
            None => undo.protect(offset, length, &|page, out| {
                self.read_page(page, out);
            })?,
        }
        Ok(())
    }

    fn stripe(&self, slot: SlotId) -> StripeGuard<'_> {
        self.stripes[slot.index() % STRIPES]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Copies one record's bytes after its key check out. Only callable
    /// with the record's stripe held, which is what makes it sound.
    #[inline]
    fn load_body(&self, _stripe: &StripeGuard<'_>, slot: SlotId, out: &mut [u8]) {
        // SAFETY: bytes 4.. of the record are within the mapping (see
        // `record_pointer`; `out` is the layout's length less 4), and every
        // writer of them holds the same stripe lock as the caller.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.record_pointer(slot).add(KEY_CHECK_BYTES),
                out.as_mut_ptr(),
                out.len(),
            );
        }
    }

    #[inline]
    /// Copies one page of the records file out, for the undo journal.
    fn read_page(&self, page: u64, out: &mut [u8]) {
        read_mapped(&self.map, page * PAGE, out);
    }

    /// Writes one record's bytes after its key check, under its stripe.
    fn store_body(&self, _stripe: &StripeGuard<'_>, slot: SlotId, bytes: &[u8]) {
        // SAFETY: as for `load_body`; the stripe lock makes this the only
        // access to these bytes.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.record_pointer(slot).add(KEY_CHECK_BYTES),
                bytes.len(),
            );
        }
    }
}

impl Table for MmapTable {
    fn max_actions(&self) -> usize {
        self.layout.max_actions()
    }

    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.hashed_slot(key)
            .filter(|&slot| self.holds(slot, key))
            .ok_or(StoreError::UnknownKey { key })
    }

    /// Every error of `slot` means the key has no record here.
    fn find(&self, key: Key) -> Option<SlotId> {
        self.slot(key).ok()
    }

    /// Three passes: every key hashed for the perfect hash's first level,
    /// its bit vector's line asked for; then every key's slot, asking for
    /// each record's lines and its stripe's lock without waiting for them;
    /// then the key checks, which find the records in cache or on their
    /// way. Each pass's misses overlap instead of each waiting for the one
    /// before.
    fn slots(&self, keys: &[Key], slots: &mut [Option<SlotId>]) -> Result<(), StoreError> {
        for (keys, slots) in keys.chunks(MAX_BATCH).zip(slots.chunks_mut(MAX_BATCH)) {
            let mut started = [Started::default(); MAX_BATCH];
            for (&key, started) in keys.iter().zip(started.iter_mut()) {
                *started = self.phf.start(key);
            }
            for ((&key, slot), &started) in keys.iter().zip(slots.iter_mut()).zip(&started) {
                *slot = self.within(self.phf.slot_from(key, started));
                if let Some(slot) = *slot {
                    let first = self.record_pointer(slot);
                    prefetch_line(first);
                    prefetch_line(first.wrapping_add(self.layout.bytes() as usize - 1));
                    prefetch_line(std::ptr::from_ref(&self.stripes[slot.index() % STRIPES]).cast());
                }
            }
        }
        for (&key, slot) in keys.iter().zip(slots.iter()) {
            if !slot.is_some_and(|slot| self.holds(slot, key)) {
                return Err(StoreError::UnknownKey { key });
            }
        }
        Ok(())
    }

    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        self.check_bounds(slot)?;
        let mut bytes = [0u8; RecordLayout::MAX_BYTES];
        let record_bytes = &mut bytes[..self.layout.bytes() as usize];
        {
            let stripe = self.stripe(slot);
            self.load_body(&stripe, slot, &mut record_bytes[KEY_CHECK_BYTES..]);
        }
        let mut record = Record::default();
        self.layout.decode(record_bytes, &mut record);
        Ok(record)
    }

    /// Read from the keys file (page cache, not this process's resident
    /// memory), and checked against the record's key check, so a keys
    /// file from another store is an error, never a wrong key.
    fn key(&self, slot: SlotId) -> Result<Key, StoreError> {
        use std::os::unix::fs::FileExt;
        self.check_bounds(slot)?;
        let path = self.dir.file(KEYS_FILE);
        let file = match self.keys_file.get() {
            Some(file) => file,
            None => {
                let file = File::open(&path).map_err(StoreError::missing_or_io(
                    &path,
                    "the keys file names the records a cluster rank sends; restore it or start a new store directory",
                ))?;
                self.keys_file.get_or_init(|| file)
            }
        };
        let mut bytes = [0u8; 16];
        file.read_exact_at(&mut bytes, slot.get() * KEY_BYTES)
            .map_err(|source| StoreError::Corrupt {
                path: path.clone(),
                reason: format!("it has no key for record {} ({source})", slot.get()),
            })?;
        let key = Key::from_le_bytes(bytes);
        if !self.holds(slot, key) {
            return Err(StoreError::Corrupt {
                path,
                reason: format!(
                    "its key for record {} does not match the record's key check: the keys file is another store's",
                    slot.get()
                ),
            });
        }
        Ok(key)
    }

    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        self.check_bounds(slot)?;
        let mut bytes = [0u8; RecordLayout::MAX_BYTES];
        let length = self.layout.bytes();
        let record_bytes = &mut bytes[..length as usize];
        let offset = HEADER_BYTES + slot.get() * length;
        self.before_writing(offset, length)?;
        let stripe = self.stripe(slot);
        self.load_body(&stripe, slot, &mut record_bytes[KEY_CHECK_BYTES..]);
        let mut record = Record::default();
        self.layout.decode(record_bytes, &mut record);
        change(&mut record);
        // The check encoded here is not stored: only the body is written.
        self.layout.encode(0, &record, record_bytes);
        self.store_body(&stripe, slot, &record_bytes[KEY_CHECK_BYTES..]);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.records
    }

    fn exact_records(&self) -> Option<&dyn ExactRecords> {
        Some(self)
    }

    /// Streams the keys file in blocks, so that exporting never holds the
    /// key universe in memory.
    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        use std::io::Read;
        let path = self.dir.file(KEYS_FILE);
        let file = File::open(&path).map_err(StoreError::missing_or_io(
            &path,
            "the keys file is needed to export; restore it or start a new store directory",
        ))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
        let mut entry = [0u8; 16];
        for slot in 0..self.records {
            reader
                .read_exact(&mut entry)
                .map_err(|source| StoreError::Corrupt {
                    path: path.clone(),
                    reason: format!("it ends after {slot} of {} keys ({source})", self.records),
                })?;
            visit(Key::from_le_bytes(entry), &self.read(SlotId::new(slot))?);
        }
        Ok(())
    }
}

/// A record's bytes after its key check, which never changes.
impl ExactRecords for MmapTable {
    fn stored(&self, slot: SlotId) -> Result<StoredRecord, StoreError> {
        self.check_bounds(slot)?;
        let mut stored = StoredRecord::default();
        let body = &mut stored.bytes[..self.layout.bytes() as usize - KEY_CHECK_BYTES];
        self.load_body(&self.stripe(slot), slot, body);
        Ok(stored)
    }

    fn put_back(&self, slot: SlotId, stored: &StoredRecord) -> Result<(), StoreError> {
        self.check_bounds(slot)?;
        let length = self.layout.bytes();
        self.before_writing(HEADER_BYTES + slot.get() * length, length)?;
        let body = &stored.bytes[..length as usize - KEY_CHECK_BYTES];
        self.store_body(&self.stripe(slot), slot, body);
        Ok(())
    }

    fn decode(&self, stored: &StoredRecord) -> Record {
        // The layout reads the key check first, which the copy leaves out.
        let length = self.layout.bytes() as usize;
        let mut bytes = [0u8; RecordLayout::MAX_BYTES];
        bytes[KEY_CHECK_BYTES..length].copy_from_slice(&stored.bytes[..length - KEY_CHECK_BYTES]);
        let mut record = Record::default();
        self.layout.decode(&bytes[..length], &mut record);
        record
    }
}

impl DurableTable for MmapTable {
    /// Call between batches, with no update in flight.
    fn checkpoint(&self, state: &ClientState) -> Result<(), StoreError> {
        let undo = self.undo.as_ref().ok_or_else(|| StoreError::ReadOnly {
            path: self.dir.path().to_path_buf(),
        })?;
        undo.check()?;
        crate::power_loss::point();
        match &self.held {
            Some(held) => {
                held.write_out(&self.map, undo)?;
            }
            None => {
                self.map
                    .flush()
                    .map_err(StoreError::io(self.dir.file(RECORDS_FILE)))?;
                crate::power_loss::synced(&self.dir.file(RECORDS_FILE));
                crate::power_loss::point();
            }
        }
        let records = records_checksum(&self.map);
        self.manifest.commit(&self.dir, state, |manifest| {
            match manifest
                .checksums
                .iter_mut()
                .find(|checksum| checksum.what == RECORDS_FILE)
            {
                Some(stored) => *stored = records,
                None => manifest.checksums.push(records),
            }
        })?;
        undo.reset(journal_owner(&self.manifest.get()))?;
        if let Some(held) = &self.held {
            held.clear();
        }
        Ok(())
    }

    fn committed_state(&self) -> ClientState {
        self.manifest.get().state
    }

    fn verification(&self) -> Verification {
        self.verification.clone()
    }

    fn disk_bytes(&self) -> u64 {
        [RECORDS_FILE, PHF_FILE, KEYS_FILE, UNDO_FILE]
            .iter()
            .map(|name| std::fs::metadata(self.dir.file(name)).map_or(0, |meta| meta.len()))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::FileExt;
    use std::path::Path;

    use super::universe::BuildPlan;
    use super::*;
    use crate::dir::Fingerprint;
    use crate::held_pages::Writeback;
    use crate::layout::RecordEncoding;

    use test_support::TempDir;

    fn open(dir: &Path, chunks: &Vec<Vec<Key>>) -> MmapTable {
        let layout = RecordLayout::new(7, RecordEncoding::I16Scaled).unwrap();
        let fingerprint = Fingerprint {
            digest: 3,
            description: "test universe 3".into(),
        };
        MmapTable::open(dir, layout, fingerprint, chunks, &mut |_| {})
            .unwrap()
            .with_writeback(Writeback::AtCheckpoint)
            .unwrap()
    }

    #[test]
    fn a_store_built_from_chunks_in_many_windows_finds_every_key_as_one_built_from_a_list() {
        let chunks: Vec<Vec<Key>> = (0..6u128)
            .map(|chunk| (0..700).map(|i| chunk << 64 | (i * 7 + 1)).collect())
            .collect();
        let layout = RecordLayout::new(7, RecordEncoding::I16Scaled).unwrap();
        let fingerprint = || Fingerprint {
            digest: 4,
            description: "test universe 4".into(),
        };
        let streamed = TempDir::new("mmap-build-streamed");
        let listed = TempDir::new("mmap-build-listed");
        let slot_bytes = universe::window_slot_bytes(layout);
        let plans = [
            (
                &streamed,
                BuildPlan {
                    list: false,
                    window_bytes: 500 * slot_bytes,
                },
            ),
            (
                &listed,
                BuildPlan {
                    list: true,
                    window_bytes: 1 << 30,
                },
            ),
        ];
        for (dir, plan) in plans {
            let locked = StoreDir::lock(dir.path()).unwrap();
            let manifest =
                crate::dir::Manifest::new(crate::dir::Backend::Mmap, layout, fingerprint());
            let table =
                MmapTable::build(locked, layout, manifest, &chunks, plan, &mut |_| {}).unwrap();
            assert!(
                !dir.join(spill::SPILL_DIR).exists(),
                "{plan:?} left its spill behind"
            );
            let mut slots = std::collections::HashSet::new();
            for &key in chunks.iter().flatten() {
                let slot = table.slot(key).unwrap();
                assert_eq!(
                    table.key(slot).unwrap(),
                    key,
                    "{plan:?}: the keys file at {slot:?}"
                );
                slots.insert(slot.index());
            }
            assert_eq!(slots.len(), 4_200, "{plan:?}: every key its own slot");
            assert!(
                table.slot(1u128 << 100).is_err(),
                "{plan:?}: a foreign key is refused"
            );
            drop(table);
            let reopened = MmapTable::open(dir.path(), layout, fingerprint(), &chunks, &mut |_| {});
            assert!(
                reopened.is_ok(),
                "{plan:?}: the built store reopens and verifies"
            );
        }
    }

    fn bump(table: &MmapTable, keys: &[Key], by: f32) {
        for &key in keys {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.regrets[(key % 7) as usize] += by;
                    record.strategy_sum[0] += by;
                    record.stamp += 1;
                })
                .unwrap();
        }
    }

    fn records(table: &MmapTable, keys: &[Key]) -> Vec<Record> {
        keys.iter()
            .map(|&key| table.read(table.slot(key).unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn a_crash_while_a_checkpoint_writes_held_pages_rolls_back() {
        let dir = TempDir::unmade("mmap-held");
        let keys: Vec<Key> = (1..=20_000u128)
            .map(|k| k * 0x9E37_79B9_7F4A_7C15)
            .collect();
        let chunks: Vec<Vec<Key>> = keys.chunks(1000).map(<[Key]>::to_vec).collect();
        let at_checkpoint = {
            let table = open(&dir.0, &chunks);
            bump(&table, &keys, 1.0);
            table
                .checkpoint(&ClientState::encode(&"one").unwrap())
                .unwrap();
            let at_checkpoint = records(&table, &keys);
            bump(&table, &keys, 2.0);
            // A checkpoint's first steps, then a crash: every changed page
            // journalled, half of them written, no manifest.
            let held = table.held.as_ref().unwrap();
            let pages = held.changed_pages();
            assert!(pages.len() > 10, "{} pages changed", pages.len());
            let undo = table.undo.as_ref().unwrap();
            undo.save(&pages, &|page, out| {
                held.file
                    .read_exact_at(out, page * PAGE)
                    .map_err(StoreError::io(&held.path))
            })
            .unwrap();
            for &page in &pages[..pages.len() / 2] {
                let mut bytes = vec![0u8; PAGE as usize];
                let length = (held.file_bytes - page * PAGE).min(PAGE) as usize;
                read_mapped(&table.map, page * PAGE, &mut bytes[..length]);
                held.file
                    .write_all_at(&bytes[..length], page * PAGE)
                    .unwrap();
            }
            at_checkpoint
        };
        let reopened = open(&dir.0, &chunks);
        assert_eq!(
            reopened
                .committed_state()
                .decode::<String>()
                .unwrap()
                .as_deref(),
            Some("one")
        );
        assert_eq!(records(&reopened, &keys), at_checkpoint);
    }
}
