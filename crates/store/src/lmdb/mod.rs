//! The LMDB backend (through heed): records live in LMDB, keyed by the
//! 16-byte infostate key. Reads go straight to LMDB. Writes go to a bounded
//! write-back cache, sharded by slot, and a shard that fills is flushed in
//! one batched write transaction. When LMDB's map is full, it is doubled
//! and the write retried.
//!
//! Env flags, and what each risks:
//! - `NO_META_SYNC`: a commit makes its pages durable (one `fdatasync`),
//!   then writes its meta page without a second sync. A power loss may
//!   undo the last commit, never mix two: the file always holds a whole
//!   tree, and the undo database takes it back to the checkpoint
//!   (`power_loss_tests`: every one of thousands of emulated power-loss
//!   states opens at a checkpoint). `NO_SYNC`, used before 2026-11-28,
//!   saved that sync, and a power loss could leave a meta page naming
//!   pages that never reached the disk: the same emulation refused 10,468
//!   of 17,281 states as damage. A checkpoint calls `force_sync`, so the
//!   checkpoint itself is durable either way.
//! - No `WRITE_MAP` or `MAP_ASYNC`: a stray write through the map could
//!   corrupt the database.
//!
//! Records not yet flushed from the cache live only in memory until the
//! next batch or checkpoint.
//!
//! A batch flushed between checkpoints would let a killed process reopen
//! with records newer than its checkpoint. So the same transaction that
//! overwrites a record for the first time since the checkpoint also saves
//! its old bytes (or its absence) in an `undo` database, tagged with the
//! checkpoint's number. A checkpoint empties it under the new number.
//!
//! Opening trusts nothing in the file until it is checked, and writes
//! nothing until the records are verified: LMDB's file is first walked as
//! untrusted bytes ([`file_check`]), so a damaged page is refused instead
//! of faulting inside LMDB; then the records are read as the checkpoint
//! left them (each key's saved old bytes in place of its current ones) and
//! checked against the checkpoint's count and checksum; only then does a
//! writable open roll the saved bytes back. A read-only open (status,
//! export) reads through the saved bytes and never writes.
//!
//! Opening the env is `unsafe` in heed because two processes opening one
//! env with different options is undefined behaviour; the directory lock
//! rules that out.

mod file_check;
mod open;
mod seal;
mod undo;

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use heed::types::Bytes;
use heed::{Database, Env, RoTxn};
use rustc_hash::FxBuildHasher;

use crate::client_state::ClientState;
use crate::dir::{Committed, StoreDir, classify_write_error};
use crate::durable::DurableTable;
use crate::error::StoreError;
use crate::index::{ChunkedArena, KeyIndex};
use crate::layout::RecordLayout;
use crate::record::Record;
use crate::table::{Key, SlotId, Table};
use crate::verify::{Checksum, Verification};

use file_check::{CREATED_PREFIX, EPOCH_KEY};
use seal::SealState;

pub(crate) const LMDB_DIR: &str = "lmdb";
const DATA_FILE: &str = "data.mdb";
/// What the records' checksum was filed under before checkpoints kept a
/// running sum: a CRC-32 over every key and value in key order. Still
/// checked when a manifest has it; the next checkpoint writes the sum.
const ORDERED_CHECKSUM: &str = "lmdb records (key and value of each, in key order)";
/// What the records' running sum is filed under in the manifest.
const SUM_CHECKSUM: &str = "lmdb records (wrapping sum of each key and value's mixed CRC-32)";

fn created_list_key(batch: u64) -> [u8; 9] {
    let mut key = [CREATED_PREFIX; 9];
    key[1..].copy_from_slice(&batch.to_be_bytes());
    key
}
const CACHE_SHARDS: usize = 64;
const INITIAL_MAP_BYTES: usize = 1 << 30;
/// Free space below which a failed LMDB write is taken for a full disk:
/// LMDB reports a failed write-out as a bare I/O error.
const FULL_DISK_MARGIN: u64 = 16 << 20;

/// A table in LMDB with a bounded write-back cache.
pub struct LmdbTable {
    dir: StoreDir,
    layout: RecordLayout,
    manifest: Committed,
    env: Env,
    db: Database<Bytes, Bytes>,
    /// Old bytes of records overwritten since the last checkpoint.
    undo: Database<Bytes, Bytes>,
    /// Held for reading by every transaction, for writing by a resize:
    /// LMDB may only resize its map while no transaction is open.
    gate: RwLock<()>,
    index: KeyIndex,
    keys: ChunkedArena<OnceLock<Key>>,
    /// Whether a slot's record has ever been written to LMDB. A cache miss
    /// on a slot that never was needs no read transaction: it is fresh.
    in_database: ChunkedArena<AtomicBool>,
    /// Each slot's term in the records' running sum, as LMDB holds it.
    record_sums: ChunkedArena<AtomicU32>,
    /// Per slot, the [`Self::epoch_stamp`] at which its checkpoint state
    /// (old bytes, or absence) went into the undo database: later writes
    /// before the next checkpoint save nothing more.
    saved_at: ChunkedArena<AtomicU32>,
    /// The last checkpoint's count plus one (wrapping): what `saved_at`
    /// holds for slots saved since that checkpoint.
    epoch_stamp: AtomicU32,
    /// Numbers the undo database's lists of created keys.
    created_batches: std::sync::atomic::AtomicU64,
    /// With `through_undo`: the keys created since the checkpoint, which
    /// the checkpoint's view does not hold.
    created: std::collections::HashSet<[u8; 16], FxBuildHasher>,
    /// The running sum of every stored record's term.
    sum: AtomicU32,
    cache: Box<[Mutex<HashMap<u64, Record, FxBuildHasher>>]>,
    shard_capacity: usize,
    verification: Verification,
    /// Opened read-only: updates and checkpoints are refused.
    read_only: bool,
    /// Reads see the undo database's saved bytes first: a read-only open
    /// of a store whose last session ended without a checkpoint.
    through_undo: bool,
    /// The checkpoint's seal of the data file, voided before any write.
    sealing: SealState,
}

impl std::fmt::Debug for LmdbTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmdbTable")
            .field("dir", &self.dir.path())
            .finish()
    }
}

/// Maps heed's errors to the store's: I/O stays I/O (or a full disk, when
/// the filesystem has no room left), anything else is damage.
fn lmdb_error(path: &Path) -> impl FnOnce(heed::Error) -> StoreError + '_ {
    move |error| match error {
        heed::Error::Io(source) => disk_error(path, source),
        heed::Error::Mdb(heed::MdbError::Other(code)) => {
            disk_error(path, std::io::Error::from_raw_os_error(code))
        }
        other => StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("LMDB reports {other}"),
        },
    }
}

/// A failed write: LMDB passes on `EIO` where the kernel could not write a
/// page out for lack of space, so the filesystem's free space decides.
fn disk_error(path: &Path, source: std::io::Error) -> StoreError {
    let full = matches!(source.raw_os_error(), Some(5 | 28 | 122))
        && free_bytes(path).is_some_and(|free| free < FULL_DISK_MARGIN);
    if full {
        classify_write_error(
            path,
            FULL_DISK_MARGIN,
            std::io::Error::from_raw_os_error(28),
        )
    } else {
        classify_write_error(path, 0, source)
    }
}

/// Bytes free to this process on the filesystem of `path`.
fn free_bytes(path: &Path) -> Option<u64> {
    let stats = rustix::fs::statvfs(path).ok()?;
    Some(stats.f_bavail.saturating_mul(stats.f_frsize))
}

/// One record's term in the running sum: its key and value's CRC-32,
/// mixed so that the wrapping sum is not linear in the CRCs.
fn record_term(key: &[u8], value: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(key);
    hasher.update(value);
    let mut mixed = u64::from(hasher.finalize()) ^ ((value.len() as u64) << 32);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (mixed ^ (mixed >> 31)) as u32
}

/// Both checksums over the records as read in key order at open: the
/// ordered CRC older manifests recorded, and the running sum.
#[derive(Default)]
struct RecordsSums {
    ordered: crc32fast::Hasher,
    sum: u32,
    bytes: u64,
}

impl RecordsSums {
    fn add(&mut self, key: &[u8], value: &[u8]) -> u32 {
        self.ordered.update(key);
        self.ordered.update(value);
        self.bytes += (key.len() + value.len()) as u64;
        let term = record_term(key, value);
        self.sum = self.sum.wrapping_add(term);
        term
    }

    fn checksum(&self, what: &str) -> Checksum {
        Checksum {
            what: what.to_owned(),
            bytes: self.bytes,
            crc32: if what == ORDERED_CHECKSUM {
                self.ordered.clone().finalize()
            } else {
                self.sum
            },
        }
    }
}

impl LmdbTable {
    /// The bytes the undo database saved for `key` when reads go through
    /// it: `Some(empty)` for a record created after the checkpoint.
    fn saved<'t>(
        &self,
        transaction: &'t RoTxn<'_>,
        key: &[u8],
    ) -> Result<Option<&'t [u8]>, StoreError> {
        if !self.through_undo {
            return Ok(None);
        }
        if self.created.contains(key) {
            return Ok(Some(&[]));
        }
        self.undo
            .get(transaction, key)
            .map_err(lmdb_error(&self.dir.file(LMDB_DIR)))
    }

    /// The records' checksum as checkpoints record it: the running sum.
    fn records_checksum(&self) -> Checksum {
        Checksum {
            what: SUM_CHECKSUM.to_owned(),
            bytes: self.len() * (16 + self.layout.bytes()),
            crc32: self.sum.load(Ordering::Acquire),
        }
    }

    fn key_of(&self, slot: SlotId) -> Key {
        *self
            .keys
            .get(slot)
            .get()
            .expect("a slot's key is set before the slot is handed out")
    }

    /// The record as LMDB holds it. A slot never written is fresh; any
    /// other outcome than reading the record whole is an error, because the
    /// caller may be about to update it, and an update of a record that was
    /// not read would write a fresh record over the real one.
    fn stored(&self, slot: SlotId) -> Result<Record, StoreError> {
        if !self.in_database.get(slot).load(Ordering::Acquire) {
            return Ok(Record::default());
        }
        let key = self.key_of(slot);
        let env_path = self.dir.file(LMDB_DIR);
        let _gate = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
        let key_bytes = key.to_le_bytes();
        let bytes = match self.saved(&transaction, &key_bytes)? {
            Some([]) => return Ok(Record::default()),
            Some(old) => Some(old),
            None => self
                .db
                .get(&transaction, &key_bytes)
                .map_err(lmdb_error(&env_path))?,
        }
        .ok_or_else(|| StoreError::Corrupt {
            path: env_path.clone(),
            reason: format!("the record of key {key:#034x} is gone from the database"),
        })?;
        if bytes.len() as u64 != self.layout.bytes() {
            return Err(StoreError::Corrupt {
                path: env_path,
                reason: format!(
                    "the record of key {key:#034x} is {} bytes, not {}",
                    bytes.len(),
                    self.layout.bytes()
                ),
            });
        }
        let mut record = Record::default();
        self.layout.decode(bytes, &mut record);
        Ok(record)
    }

    /// Writes every cached record in one commit, with every shard locked
    /// (in index order) for its duration.
    fn flush_all(&self) -> Result<(), StoreError> {
        let mut guards: Vec<_> = self
            .cache
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner))
            .collect();
        let mut shards: Vec<&mut HashMap<u64, Record, FxBuildHasher>> =
            guards.iter_mut().map(|guard| &mut **guard).collect();
        self.flush(&mut shards)
    }

    fn shard(&self, slot: SlotId) -> &Mutex<HashMap<u64, Record, FxBuildHasher>> {
        &self.cache[slot.index() % CACHE_SHARDS]
    }

    /// Writes the dirty records of `shards` in one transaction (one commit,
    /// one sync), in key order, growing the map and retrying when it is full.
    fn flush(
        &self,
        shards: &mut [&mut HashMap<u64, Record, FxBuildHasher>],
    ) -> Result<(), StoreError> {
        let mut entries: Vec<(Key, u64, Record)> = shards
            .iter()
            .flat_map(|shard| {
                shard
                    .iter()
                    .map(|(&slot, record)| (self.key_of(SlotId::new(slot)), slot, *record))
            })
            .collect();
        if entries.is_empty() {
            return Ok(());
        }
        entries.sort_unstable_by_key(|(key, _, _)| *key);
        let env_path = self.dir.file(LMDB_DIR);
        let record_bytes = self.layout.bytes() as usize;
        let mut encoded = vec![0u8; entries.len() * record_bytes];
        for ((key, _, record), out) in entries.iter().zip(encoded.chunks_exact_mut(record_bytes)) {
            self.layout
                .encode(RecordLayout::key_check(*key), record, out);
        }
        let stamp = self.epoch_stamp.load(Ordering::Acquire);
        loop {
            let gate = self.gate.read().unwrap_or_else(PoisonError::into_inner);
            let mut transaction = self.write_transaction()?;
            let attempt = (|| -> Result<(), heed::Error> {
                // What the checkpoint held, saved once per record: the old
                // bytes of a record it held, or a record's absence (listed
                // once for the whole batch).
                let mut created = Vec::new();
                for ((key, slot, _), value) in
                    entries.iter().zip(encoded.chunks_exact(record_bytes))
                {
                    let key_bytes = key.to_le_bytes();
                    let slot = SlotId::new(*slot);
                    if self.saved_at.get(slot).load(Ordering::Acquire) != stamp {
                        if self.in_database.get(slot).load(Ordering::Acquire) {
                            let old = self.db.get(&transaction, &key_bytes)?.map(<[u8]>::to_vec);
                            self.undo.put(
                                &mut transaction,
                                &key_bytes,
                                old.as_deref().unwrap_or(&[]),
                            )?;
                        } else {
                            created.extend_from_slice(&key_bytes);
                        }
                    }
                    self.db.put(&mut transaction, &key_bytes, value)?;
                }
                if !created.is_empty() {
                    let batch = self.created_batches.fetch_add(1, Ordering::Relaxed);
                    self.undo
                        .put(&mut transaction, &created_list_key(batch), &created)?;
                }
                Ok(())
            })()
            .and_then(|()| transaction.commit());
            drop(gate);
            crate::power_loss::lmdb_committed(&env_path.join(DATA_FILE));
            match attempt {
                Ok(()) => break,
                Err(heed::Error::Mdb(heed::MdbError::MapFull)) => self.grow()?,
                Err(error) => return Err(lmdb_error(&env_path)(error)),
            }
        }
        // The sum follows what LMDB holds, so only a committed batch moves it.
        let mut change = 0u32;
        for ((key, slot, _), value) in entries.iter().zip(encoded.chunks_exact(record_bytes)) {
            let slot = SlotId::new(*slot);
            let term = record_term(&key.to_le_bytes(), value);
            let old = self.record_sums.get(slot).swap(term, Ordering::AcqRel);
            change = change.wrapping_add(term.wrapping_sub(old));
            self.in_database.get(slot).store(true, Ordering::Release);
            self.saved_at.get(slot).store(stamp, Ordering::Release);
        }
        self.sum.fetch_add(change, Ordering::AcqRel);
        for shard in shards.iter_mut() {
            shard.clear();
        }
        Ok(())
    }

    /// Seals the data file as this checkpoint leaves it (see [`seal`]).
    /// Call with no write in flight: at the end of a checkpoint.
    fn seal(&self) -> Result<(), StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        self.sync_data_file()?;
        self.sealing.seal(
            &self.dir,
            self.manifest.get().checkpoints,
            self.env.info().last_txn_id as u64,
            &env_path.join(DATA_FILE),
        )
    }

    /// Makes every commit so far durable, the last meta page included
    /// (LMDB commits with `NO_META_SYNC`).
    fn sync_data_file(&self) -> Result<(), StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        self.env.force_sync().map_err(lmdb_error(&env_path))?;
        crate::power_loss::synced(&env_path.join(DATA_FILE));
        crate::power_loss::point();
        Ok(())
    }

    /// Begins a write transaction, the seal voided first (see [`seal`]).
    /// Every write to the data file goes through here.
    fn write_transaction(&self) -> Result<heed::RwTxn<'_>, StoreError> {
        self.sealing.void_before_writing(&self.dir)?;
        #[cfg(test)]
        tests::hooks::write_begun(self.dir.path());
        crate::power_loss::lmdb_commit_begun(&self.dir.file(LMDB_DIR).join(DATA_FILE));
        let env_path = self.dir.file(LMDB_DIR);
        self.env.write_txn().map_err(lmdb_error(&env_path))
    }

    fn grow(&self) -> Result<(), StoreError> {
        let _exclusive = self.gate.write().unwrap_or_else(PoisonError::into_inner);
        let doubled = self.env.info().map_size * 2;
        // SAFETY: holding the gate for writing means no transaction of this
        // process is open, and no other process has the env (directory lock).
        #[allow(unsafe_code)]
        unsafe { self.env.resize(doubled) }.map_err(lmdb_error(&self.dir.file(LMDB_DIR)))
    }
}

impl Table for LmdbTable {
    fn max_actions(&self) -> usize {
        self.layout.max_actions()
    }

    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.index.resolve(key, |slot| {
            // A new slot's key is set exactly once, here, before any other
            // thread can see the slot, so `set` cannot find it taken.
            let _ = self.keys.get_or_create(slot).set(key);
            self.in_database.get_or_create(slot);
            self.record_sums.get_or_create(slot);
            self.saved_at.get_or_create(slot);
        })
    }

    fn find(&self, key: Key) -> Option<SlotId> {
        self.index.find(key)
    }

    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        if let Some(record) = self
            .shard(slot)
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&slot.get())
        {
            return Ok(*record);
        }
        self.stored(slot)
    }

    fn key(&self, slot: SlotId) -> Result<Key, StoreError> {
        (slot.get() < self.len())
            .then(|| self.keys.get(slot).get().copied())
            .flatten()
            .ok_or(StoreError::NoSuchSlot {
                slot: slot.get(),
                records: self.len(),
            })
    }

    /// A failed flush keeps its records cached (none is lost) and returns
    /// the error; the caller stops, and a later checkpoint retries them.
    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                path: self.dir.path().to_path_buf(),
            });
        }
        let mut shard = self
            .shard(slot)
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut record = match shard.get(&slot.get()) {
            Some(record) => *record,
            None => self.stored(slot)?,
        };
        change(&mut record);
        self.layout.quantise(&mut record);
        shard.insert(slot.get(), record);
        if shard.len() > self.shard_capacity {
            // The whole cache goes in one commit: each commit costs a sync
            // (`NO_META_SYNC`), so fewer, larger commits. Every shard is
            // locked in order, this one released first, so two threads
            // flushing at once cannot deadlock.
            drop(shard);
            self.flush_all()?;
        }
        Ok(())
    }

    fn len(&self) -> u64 {
        self.index.len()
    }

    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        for slot in 0..self.len() {
            let slot = SlotId::new(slot);
            visit(self.key_of(slot), &self.read(slot)?);
        }
        Ok(())
    }
}

impl DurableTable for LmdbTable {
    fn checkpoint(&self, state: &ClientState) -> Result<(), StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly {
                path: self.dir.path().to_path_buf(),
            });
        }
        self.flush_all()?;
        self.sync_data_file()?;
        let records = self.len();
        let checksum = self.records_checksum();
        self.manifest.commit(&self.dir, state, |manifest| {
            manifest.records = records;
            manifest.checksums = vec![checksum];
        })?;
        // The records as committed are the new restore point.
        let env_path = self.dir.file(LMDB_DIR);
        let _gate = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let mut transaction = self.write_transaction()?;
        self.undo
            .clear(&mut transaction)
            .and_then(|()| {
                self.undo.put(
                    &mut transaction,
                    EPOCH_KEY,
                    &self.manifest.get().checkpoints.to_le_bytes(),
                )
            })
            .map_err(lmdb_error(&env_path))?;
        transaction.commit().map_err(lmdb_error(&env_path))?;
        drop(_gate);
        crate::power_loss::lmdb_committed(&env_path.join(DATA_FILE));
        self.created_batches.store(0, Ordering::Relaxed);
        self.epoch_stamp.store(
            (self.manifest.get().checkpoints as u32).wrapping_add(1),
            Ordering::Release,
        );
        self.seal()
    }

    fn committed_state(&self) -> ClientState {
        self.manifest.get().state
    }

    fn disk_bytes(&self) -> u64 {
        std::fs::metadata(self.dir.file(LMDB_DIR).join(DATA_FILE)).map_or(0, |meta| meta.len())
    }

    fn verification(&self) -> Verification {
        self.verification.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dir::Fingerprint;
    use crate::layout::RecordEncoding;

    mod crash_states;

    /// Test-only observation points inside the store.
    pub(super) mod hooks {
        use std::cell::RefCell;
        use std::path::Path;

        type Hook = Box<dyn FnMut(&Path)>;

        thread_local! {
            static WRITE_BEGUN: RefCell<Option<Hook>> = const { RefCell::new(None) };
        }

        /// Called with the store's directory when a write transaction has
        /// begun (the seal voided, nothing written yet) on this thread.
        pub(in crate::lmdb) fn write_begun(dir: &Path) {
            WRITE_BEGUN.with(|hook| {
                if let Some(hook) = hook.borrow_mut().as_mut() {
                    hook(dir);
                }
            });
        }

        /// Runs `hook` at every write transaction begun on this thread
        /// until the returned guard drops.
        pub(in crate::lmdb) fn on_write_begun(hook: impl FnMut(&Path) + 'static) -> Installed {
            WRITE_BEGUN.with(|slot| *slot.borrow_mut() = Some(Box::new(hook)));
            Installed
        }

        pub(in crate::lmdb) struct Installed;

        impl Drop for Installed {
            fn drop(&mut self) {
                WRITE_BEGUN.with(|slot| *slot.borrow_mut() = None);
            }
        }
    }

    use test_support::TempDir;

    const LAYOUT: RecordLayout = match RecordLayout::new(3, RecordEncoding::F32) {
        Ok(layout) => layout,
        Err(_) => panic!("a valid width"),
    };
    const KEY: Key = 0xABCD;

    fn fingerprint() -> Fingerprint {
        Fingerprint {
            digest: 1,
            description: "test".into(),
        }
    }

    /// A table whose record of `KEY` (regret 5) has been checkpointed, and
    /// whose cache no longer holds it, so the next access reads LMDB.
    fn checkpointed(dir: &Path) -> (LmdbTable, SlotId) {
        let table = LmdbTable::open(dir, LAYOUT, fingerprint(), 1024).unwrap();
        let slot = table.slot(KEY).unwrap();
        table
            .update(slot, &mut |record| record.regrets[0] = 5.0)
            .unwrap();
        table.checkpoint(&ClientState::NONE).unwrap();
        (table, slot)
    }

    /// Overwrites or deletes the stored record of `KEY` behind the table's
    /// back, as a damaged database would present it.
    fn damage(table: &LmdbTable, bytes: Option<&[u8]>) {
        let mut transaction = table.env.write_txn().unwrap();
        match bytes {
            Some(bytes) => table
                .db
                .put(&mut transaction, &KEY.to_le_bytes(), bytes)
                .unwrap(),
            None => {
                table
                    .db
                    .delete(&mut transaction, &KEY.to_le_bytes())
                    .unwrap();
            }
        }
        transaction.commit().unwrap();
    }

    fn stored_bytes(table: &LmdbTable) -> Option<Vec<u8>> {
        let transaction = table.env.read_txn().unwrap();
        table
            .db
            .get(&transaction, &KEY.to_le_bytes())
            .unwrap()
            .map(<[u8]>::to_vec)
    }

    #[test]
    fn a_record_that_cannot_be_read_is_an_error_and_never_overwritten() {
        let dir = TempDir::unmade("unreadable");
        let (table, slot) = checkpointed(&dir.0);
        damage(&table, None);
        assert!(
            matches!(table.read(slot), Err(StoreError::Corrupt { .. })),
            "a read of a record that is gone says so"
        );
        let error = table
            .update(slot, &mut |record| record.regrets[1] += 1.0)
            .unwrap_err();
        assert!(error.to_string().contains("gone"), "{error}");
        // The failed update left nothing in the cache to flush: a fresh
        // record must never be written in place of one that was not read.
        table.checkpoint(&ClientState::NONE).unwrap();
        assert_eq!(stored_bytes(&table), None);
    }

    #[test]
    fn a_damaged_record_is_an_error_not_a_panic() {
        let dir = TempDir::unmade("short");
        let (table, slot) = checkpointed(&dir.0);
        damage(&table, Some(&[1, 2, 3]));
        let error = table.read(slot).unwrap_err();
        assert!(error.to_string().contains("3 bytes"), "{error}");
        assert!(table.update(slot, &mut |_| {}).is_err());
        table.checkpoint(&ClientState::NONE).unwrap();
        assert_eq!(stored_bytes(&table), Some(vec![1, 2, 3]));
    }

    #[test]
    fn an_intact_record_reads_back() {
        let dir = TempDir::unmade("intact");
        let (table, slot) = checkpointed(&dir.0);
        assert_eq!(table.read(slot).unwrap().regrets[0], 5.0);
    }
}
