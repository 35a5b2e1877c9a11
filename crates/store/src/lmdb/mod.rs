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
mod seal;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions, RoTxn};
use rustc_hash::FxBuildHasher;

use crate::client_state::ClientState;
use crate::dir::{Backend, Committed, Fingerprint, Manifest, StoreDir, classify_write_error};
use crate::durable::DurableTable;
use crate::error::StoreError;
use crate::index::{ChunkedArena, KeyIndex, MAX_SLOTS};
use crate::layout::RecordLayout;
use crate::record::Record;
use crate::table::{Key, SlotId, Table};
use crate::verify::{Checksum, Timer, Verification, expect};

use file_check::{CREATED_PREFIX, EPOCH_KEY, LiveMeta, RECORDS_DB, UNDO_DB};
use seal::{Seal, SealState};

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

/// The data file must exist when the manifest lists checkpoints, and any
/// data file must pass [`file_check`] before LMDB maps it.
fn check_data_file(
    path: &Path,
    manifest: &Manifest,
    layout: RecordLayout,
) -> Result<Option<LiveMeta>, StoreError> {
    match std::fs::metadata(path) {
        Ok(_) => file_check::check(path, layout.bytes()).map(Some),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if manifest.checkpoints == 0 {
                return Ok(None);
            }
            Err(StoreError::Missing {
                path: path.to_path_buf(),
                hint: format!(
                    "the manifest lists {} records from checkpoint {}; restore the file or start a new store directory",
                    manifest.records, manifest.checkpoints
                ),
            })
        }
        Err(source) => Err(StoreError::io(path)(source)),
    }
}

/// How the undo database stands against the manifest's checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UndoState {
    /// Tagged with the checkpoint, holding nothing: the records are the
    /// checkpoint's.
    Clean,
    /// Tagged with the checkpoint and holding saved bytes: the last
    /// session ended without a checkpoint.
    Pending,
    /// Tagged otherwise (a crash between the manifest and the undo reset,
    /// or a new store): its contents describe no checkpoint of this
    /// manifest and are ignored.
    Stale,
}

impl LmdbTable {
    /// Opens or creates the store in `path`, caching at most `cache_records`
    /// dirty records before writing a batch.
    pub fn open(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        cache_records: usize,
    ) -> Result<LmdbTable, StoreError> {
        Self::open_with_map_size(path, layout, fingerprint, cache_records, INITIAL_MAP_BYTES)
    }

    /// As [`Self::open`], with the map starting at `initial_map_bytes`; it
    /// still grows on demand. Small values exercise growth in tests.
    pub fn open_with_map_size(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        cache_records: usize,
        initial_map_bytes: usize,
    ) -> Result<LmdbTable, StoreError> {
        let dir = StoreDir::lock(path)?;
        let wanted = Manifest::new(Backend::Lmdb, layout, fingerprint);
        let manifest = match dir.read_manifest()? {
            Some(stored) => {
                stored.check_compatible(&wanted, path)?;
                stored
            }
            None => wanted,
        };
        let env_path: PathBuf = dir.file(LMDB_DIR);
        let timer = Timer::start();
        std::fs::create_dir_all(&env_path).map_err(StoreError::io(&env_path))?;
        let existing =
            std::fs::metadata(env_path.join(DATA_FILE)).map_or(0, |meta| meta.len() as usize);
        let map_bytes = (2 * existing)
            .max(initial_map_bytes)
            .next_multiple_of(1 << 20);
        let checked = open_checked_env(&dir, &manifest, layout, map_bytes, EnvFlags::NO_META_SYNC)?;
        let env = checked.env.clone();
        // An existing store's databases are opened in a read transaction:
        // nothing is written before the records are verified.
        let found = open_databases(&env, &env_path)?;
        let (db, undo) = match found {
            Some(databases) => databases,
            None if manifest.checkpoints == 0 => {
                let mut transaction = env.write_txn().map_err(lmdb_error(&env_path))?;
                let db = env
                    .create_database(&mut transaction, Some(RECORDS_DB))
                    .map_err(lmdb_error(&env_path))?;
                let undo = env
                    .create_database(&mut transaction, Some(UNDO_DB))
                    .map_err(lmdb_error(&env_path))?;
                transaction.commit().map_err(lmdb_error(&env_path))?;
                (db, undo)
            }
            None => {
                return Err(StoreError::Corrupt {
                    path: env_path.join(DATA_FILE),
                    reason: "it has no 'records' or no 'undo' database".to_owned(),
                });
            }
        };
        let table = LmdbTable::new(dir, layout, manifest, env, db, undo, cache_records, false);
        let state = table.undo_state(checked.live.as_ref())?;
        let table = table
            .through_undo(state == UndoState::Pending)?
            .verified(&env_path, &timer)?;
        checked.refuse_a_broken_seal(&table.dir)?;
        if state != UndoState::Clean {
            table.roll_back(state)?;
            // The rolled-back file is the checkpoint's again, in new bytes.
            if table.manifest.get().checkpoints > 0 {
                table.seal()?;
            }
        }
        Ok(LmdbTable {
            through_undo: false,
            created: Default::default(),
            ..table
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn new(
        dir: StoreDir,
        layout: RecordLayout,
        manifest: Manifest,
        env: Env,
        db: Database<Bytes, Bytes>,
        undo: Database<Bytes, Bytes>,
        cache_records: usize,
        read_only: bool,
    ) -> LmdbTable {
        let manifest_checkpoints = manifest.checkpoints;
        LmdbTable {
            dir,
            layout,
            manifest: Committed::new(manifest),
            env,
            db,
            undo,
            gate: RwLock::new(()),
            index: KeyIndex::new(MAX_SLOTS),
            keys: ChunkedArena::new(),
            in_database: ChunkedArena::new(),
            record_sums: ChunkedArena::new(),
            saved_at: ChunkedArena::new(),
            epoch_stamp: AtomicU32::new((manifest_checkpoints as u32).wrapping_add(1)),
            created_batches: std::sync::atomic::AtomicU64::new(0),
            created: std::collections::HashSet::default(),
            sum: AtomicU32::new(0),
            cache: (0..CACHE_SHARDS).map(|_| Mutex::default()).collect(),
            shard_capacity: (cache_records / CACHE_SHARDS).max(1),
            verification: Verification::default(),
            read_only,
            through_undo: false,
            sealing: SealState::new(!read_only),
        }
    }

    /// Where the undo database stands; `live` is the data file's live meta
    /// as checked before LMDB opened it.
    fn undo_state(&self, live: Option<&LiveMeta>) -> Result<UndoState, StoreError> {
        let state = self.undo_tag_state()?;
        let manifest = self.manifest.get();
        if state == UndoState::Clean
            && live.is_some_and(|live| Seal::contradicts(&self.dir, &manifest, live))
        {
            return Err(StoreError::Corrupt {
                path: self.dir.file(LMDB_DIR).join(DATA_FILE),
                reason: "its last transaction is not the one its checkpoint sealed, yet it records no change since: it was changed behind the store's back".to_owned(),
            });
        }
        Ok(state)
    }

    fn undo_tag_state(&self) -> Result<UndoState, StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
        let epoch = self.manifest.get().checkpoints.to_le_bytes();
        let tag = self
            .undo
            .get(&transaction, EPOCH_KEY)
            .map_err(lmdb_error(&env_path))?;
        if tag != Some(&epoch[..]) {
            return Ok(UndoState::Stale);
        }
        let saved = self.undo.len(&transaction).map_err(lmdb_error(&env_path))?;
        Ok(if saved > 1 {
            UndoState::Pending
        } else {
            UndoState::Clean
        })
    }

    /// Makes reads see the checkpoint's view through the undo database
    /// (when `on`), loading the keys created since the checkpoint.
    fn through_undo(self, on: bool) -> Result<LmdbTable, StoreError> {
        if !on {
            return Ok(self);
        }
        let env_path = self.dir.file(LMDB_DIR);
        let mut created = std::collections::HashSet::default();
        {
            let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
            let prefix = [CREATED_PREFIX];
            for entry in self
                .undo
                .prefix_iter(&transaction, &prefix[..])
                .map_err(lmdb_error(&env_path))?
            {
                let (key, list) = entry.map_err(lmdb_error(&env_path))?;
                if key.len() == 9 {
                    created.extend(list.chunks_exact(16).map(|key| {
                        let mut bytes = [0u8; 16];
                        bytes.copy_from_slice(key);
                        bytes
                    }));
                }
            }
        }
        Ok(LmdbTable {
            through_undo: true,
            created,
            ..self
        })
    }

    /// Puts back the records saved since the checkpoint (when `state` is
    /// pending) and empties the undo database under the checkpoint's tag.
    /// Called only after the records, read through the saved bytes, were
    /// verified.
    fn roll_back(&self, state: UndoState) -> Result<(), StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        let epoch = self.manifest.get().checkpoints;
        let mut transaction = self.write_transaction()?;
        (|| -> Result<(), heed::Error> {
            if state == UndoState::Pending {
                let mut saved: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                for entry in self.undo.iter(&transaction)? {
                    let (key, value) = entry?;
                    if key.len() == 16 {
                        saved.push((key.to_vec(), value.to_vec()));
                    } else if key.len() == 9 && key[0] == CREATED_PREFIX {
                        saved.extend(value.chunks_exact(16).map(|key| (key.to_vec(), Vec::new())));
                    }
                }
                for (key, old) in saved {
                    if old.is_empty() {
                        self.db.delete(&mut transaction, &key)?;
                    } else {
                        self.db.put(&mut transaction, &key, &old)?;
                    }
                }
            }
            self.undo.clear(&mut transaction)?;
            self.undo
                .put(&mut transaction, EPOCH_KEY, &epoch.to_le_bytes())
        })()
        .map_err(lmdb_error(&env_path))?;
        transaction.commit().map_err(lmdb_error(&env_path))?;
        crate::power_loss::lmdb_committed(&env_path.join(DATA_FILE));
        Ok(())
    }

    /// Loads the index and checks the records against the last
    /// checkpoint's count and checksum.
    fn verified(self, env_path: &Path, timer: &Timer) -> Result<LmdbTable, StoreError> {
        let table = self;
        let sums = table.load_index()?;
        let stored = table.manifest.get();
        let data_path = env_path.join(DATA_FILE);
        let recorded = stored
            .checksums
            .iter()
            .find(|checksum| checksum.what == SUM_CHECKSUM || checksum.what == ORDERED_CHECKSUM);
        let verification = match recorded {
            Some(recorded) => {
                expect(recorded, &sums.checksum(&recorded.what), &data_path)?;
                Verification {
                    checked: vec![format!("{} records", stored.records)],
                    not_checked: None,
                    seconds: timer.seconds(),
                }
            }
            None if stored.checkpoints == 0 => Verification::default(),
            None => Verification {
                checked: Vec::new(),
                not_checked: Some(
                    "the manifest predates checksums; the next checkpoint records them".to_owned(),
                ),
                seconds: timer.seconds(),
            },
        };
        if stored.checkpoints > 0 && table.len() != stored.records {
            return Err(StoreError::Corrupt {
                path: data_path,
                reason: format!(
                    "it holds {} records, but the last checkpoint wrote {}",
                    table.len(),
                    stored.records
                ),
            });
        }
        table.sum.store(sums.sum, Ordering::Relaxed);
        Ok(LmdbTable {
            verification,
            ..table
        })
    }

    /// Opens an existing store to read it only, as export and status do:
    /// nothing is written, and LMDB's own lock is off (the directory lock
    /// already excludes every other process). A store whose last session
    /// ended without a checkpoint is read as its checkpoint left it,
    /// through the saved bytes in the undo database.
    pub fn open_read_only(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
    ) -> Result<LmdbTable, StoreError> {
        let dir = StoreDir::lock(path)?;
        let wanted = Manifest::new(Backend::Lmdb, layout, fingerprint);
        let manifest = dir.read_manifest()?.ok_or_else(|| StoreError::Missing {
            path: dir.file(crate::dir::MANIFEST_FILE),
            hint: "there is no store here to read".to_owned(),
        })?;
        manifest.check_compatible(&wanted, path)?;
        let env_path: PathBuf = dir.file(LMDB_DIR);
        let data_path = env_path.join(DATA_FILE);
        let timer = Timer::start();
        if manifest.checkpoints == 0 && !data_path.exists() {
            return Err(StoreError::Missing {
                path: data_path,
                hint: "the store was never checkpointed; there is nothing to read".to_owned(),
            });
        }
        let map_bytes = std::fs::metadata(&data_path)
            .map_or(INITIAL_MAP_BYTES, |meta| meta.len() as usize)
            .max(INITIAL_MAP_BYTES)
            .next_multiple_of(1 << 20);
        // `NO_LOCK` is safe: the directory lock keeps every other process
        // out of this env.
        let checked = open_checked_env(
            &dir,
            &manifest,
            layout,
            map_bytes,
            EnvFlags::READ_ONLY | EnvFlags::NO_LOCK,
        )?;
        let env = checked.env.clone();
        let (db, undo) = open_databases(&env, &env_path)?.ok_or_else(|| StoreError::Corrupt {
            path: data_path.clone(),
            reason: "it has no 'records' or no 'undo' database".to_owned(),
        })?;
        let table = LmdbTable::new(dir, layout, manifest, env, db, undo, 1, true);
        let pending = table.undo_state(checked.live.as_ref())? == UndoState::Pending;
        let table = table.through_undo(pending)?.verified(&env_path, &timer)?;
        checked.refuse_a_broken_seal(&table.dir)?;
        Ok(table)
    }

    /// Gives every stored key a slot, so that slot ids stay dense and
    /// `len` counts what is stored. Only keys are held in memory. Returns
    /// the records' checksums, summed on the same pass. Reads through the
    /// undo database's saved bytes when `through_undo` is set.
    fn load_index(&self) -> Result<RecordsSums, StoreError> {
        let mut sums = RecordsSums::default();
        let env_path = self.dir.file(LMDB_DIR);
        let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
        for entry in self.db.iter(&transaction).map_err(lmdb_error(&env_path))? {
            let (key, value) = entry.map_err(lmdb_error(&env_path))?;
            let value = match self.saved(&transaction, key)? {
                Some([]) => continue,
                Some(old) => old,
                None => value,
            };
            let key: [u8; 16] = key.try_into().map_err(|_| StoreError::Corrupt {
                path: env_path.clone(),
                reason: format!("a key is {} bytes, not 16", key.len()),
            })?;
            if value.len() as u64 != self.layout.bytes() {
                return Err(StoreError::Corrupt {
                    path: env_path.clone(),
                    reason: format!(
                        "a record is {} bytes, not {}",
                        value.len(),
                        self.layout.bytes()
                    ),
                });
            }
            let term = sums.add(&key, value);
            let slot = self.slot(Key::from_le_bytes(key))?;
            self.in_database.get(slot).store(true, Ordering::Relaxed);
            self.record_sums.get(slot).store(term, Ordering::Relaxed);
        }
        Ok(sums)
    }

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

/// LMDB's env on a data file that passed the walk of its pages.
struct CheckedEnv {
    /// The file's live meta (`None` for a store with no file yet).
    live: Option<LiveMeta>,
    env: Env,
    /// How the file differs from its checkpoint's seal, while the seal
    /// applies: refused once the records are checked.
    broken_seal: Option<String>,
}

impl CheckedEnv {
    /// Refuses a file that differs from its seal, saying that the records
    /// verified: call once they have.
    fn refuse_a_broken_seal(&self, dir: &StoreDir) -> Result<(), StoreError> {
        match &self.broken_seal {
            None => Ok(()),
            Some(reason) => Err(StoreError::ChangedOutsideRecords {
                path: dir.file(LMDB_DIR).join(DATA_FILE),
                reason: reason.clone(),
                seal: dir.file(seal::SEAL_FILE),
            }),
        }
    }
}

/// Checks the data file (the walk of its pages, and its seal while that
/// applies), then opens LMDB's env on it with `flags` and a map of
/// `map_bytes`: LMDB maps nothing that did not pass the walk.
fn open_checked_env(
    dir: &StoreDir,
    manifest: &Manifest,
    layout: RecordLayout,
    map_bytes: usize,
    flags: EnvFlags,
) -> Result<CheckedEnv, StoreError> {
    let env_path = dir.file(LMDB_DIR);
    let live = check_data_file(&env_path.join(DATA_FILE), manifest, layout)?;
    let broken_seal = match &live {
        Some(live) => Seal::check(dir, manifest, live, &env_path.join(DATA_FILE))?,
        None => None,
    };
    // A file that broke its seal is refused once its records are checked:
    // read it only, so that the refusal writes nothing, not even LMDB's
    // lock file (`NO_LOCK` is safe: the directory lock keeps other
    // processes out).
    let flags = match broken_seal {
        Some(_) => EnvFlags::READ_ONLY | EnvFlags::NO_LOCK,
        None => flags,
    };
    // SAFETY: the directory lock guarantees that no other process has this
    // env open, and this process opens it once; the flags are discussed in
    // the module docs. The file passed `file_check`.
    #[allow(unsafe_code)]
    let env = unsafe {
        EnvOpenOptions::new()
            .map_size(map_bytes)
            .max_dbs(2)
            .flags(flags)
            .open(&env_path)
    }
    .map_err(lmdb_error(&env_path))?;
    Ok(CheckedEnv {
        live,
        env,
        broken_seal,
    })
}

/// The store's two databases, if the file has them; opened in a read
/// transaction, which is committed (not dropped) so that the handles stay.
#[allow(clippy::type_complexity)]
fn open_databases(
    env: &Env,
    env_path: &Path,
) -> Result<Option<(Database<Bytes, Bytes>, Database<Bytes, Bytes>)>, StoreError> {
    let transaction = env.read_txn().map_err(lmdb_error(env_path))?;
    let db = env
        .open_database(&transaction, Some(RECORDS_DB))
        .map_err(lmdb_error(env_path))?;
    let undo = env
        .open_database(&transaction, Some(UNDO_DB))
        .map_err(lmdb_error(env_path))?;
    transaction.commit().map_err(lmdb_error(env_path))?;
    Ok(db.zip(undo))
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

    struct TempDir(PathBuf);

    impl TempDir {
        fn new(name: &str) -> TempDir {
            let path =
                std::env::temp_dir().join(format!("store-lmdb-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            TempDir(path)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

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
        let dir = TempDir::new("unreadable");
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
        let dir = TempDir::new("short");
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
        let dir = TempDir::new("intact");
        let (table, slot) = checkpointed(&dir.0);
        assert_eq!(table.read(slot).unwrap().regrets[0], 5.0);
    }
}
