//! Opening an LMDB table: the file walked as untrusted bytes, the env and
//! its databases opened, the records checked against the checkpoint before
//! anything is written.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, RwLock};

use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions};

use crate::dir::{Backend, Committed, Fingerprint, Manifest, StoreDir};
use crate::error::StoreError;
use crate::index::{ChunkedArena, KeyIndex, MAX_SLOTS};
use crate::layout::RecordLayout;
use crate::table::{Key, Table};
use crate::verify::{Timer, Verification, expect};

use super::file_check::{LiveMeta, RECORDS_DB, UNDO_DB};
use super::seal::{Seal, SealState};
use super::undo::UndoState;
use super::{
    CACHE_SHARDS, DATA_FILE, INITIAL_MAP_BYTES, LMDB_DIR, LmdbTable, ORDERED_CHECKSUM, RecordsSums,
    SUM_CHECKSUM, file_check, lmdb_error, seal,
};

/// The data file must exist when the manifest lists checkpoints, and any
/// data file must pass [`file_check`] before LMDB maps it.
pub(super) fn check_data_file(
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

/// LMDB's env on a data file that passed the walk of its pages.
pub(super) struct CheckedEnv {
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
    pub(super) fn refuse_a_broken_seal(&self, dir: &StoreDir) -> Result<(), StoreError> {
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
pub(super) fn open_checked_env(
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
pub(super) fn open_databases(
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
    pub(super) fn new(
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

    /// Loads the index and checks the records against the last
    /// checkpoint's count and checksum.
    pub(super) fn verified(self, env_path: &Path, timer: &Timer) -> Result<LmdbTable, StoreError> {
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
    pub(super) fn load_index(&self) -> Result<RecordsSums, StoreError> {
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
}
