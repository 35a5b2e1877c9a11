//! The LMDB backend (through heed): records live in LMDB, keyed by the
//! 16-byte infostate key. Reads go straight to LMDB. Writes go to a bounded
//! write-back cache, sharded by slot, and a shard that fills is flushed in
//! one batched write transaction. When LMDB's map is full, it is doubled
//! and the write retried.
//!
//! Env flags, and what each risks:
//! - `NO_SYNC`: commits do not fsync. A killed *process* loses nothing that
//!   was committed (the data is in the OS page cache); an OS crash or power
//!   loss may lose commits since the last `checkpoint`, which calls
//!   `force_sync`, and on a filesystem that reorders writes could damage
//!   the database. The trainer only trusts checkpoints, and a checkpoint is
//!   durable, so this trades nothing it relies on for one fsync per batch.
//! - No `WRITE_MAP` or `MAP_ASYNC`: a stray write through the map could
//!   corrupt the database, and with `NO_SYNC` it would lose ACI guarantees.
//!
//! Records not yet flushed from the cache live only in memory until the
//! next batch or checkpoint.
//!
//! A batch flushed between checkpoints would let a killed process reopen
//! with records newer than its checkpoint. So the same transaction that
//! overwrites a record for the first time since the checkpoint also saves
//! its old bytes (or its absence) in an `undo` database, tagged with the
//! checkpoint's number. Opening rolls those back when the tag matches the
//! manifest; a checkpoint empties it under the new number. Opening the env is `unsafe` in heed because two
//! processes opening one env with different options is undefined
//! behaviour; the directory lock rules that out.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};

use heed::types::Bytes;
use heed::{Database, Env, EnvFlags, EnvOpenOptions};
use rustc_hash::FxBuildHasher;

use crate::client_state::ClientState;
use crate::dir::{Backend, Committed, Fingerprint, Manifest, StoreDir};
use crate::durable::DurableTable;
use crate::error::StoreError;
use crate::index::{ChunkedArena, KeyIndex, MAX_SLOTS};
use crate::layout::RecordLayout;
use crate::record::Record;
use crate::table::{Key, SlotId, Table};
use crate::verify::{Checksum, Timer, Verification, expect};

pub(crate) const LMDB_DIR: &str = "lmdb";
const DATA_FILE: &str = "data.mdb";
/// What the records' checksum is filed under in the manifest.
const RECORDS_CHECKSUM: &str = "lmdb records (key and value of each, in key order)";
/// The undo database's checkpoint tag: one byte, so no 16-byte key meets it.
const EPOCH_KEY: &[u8] = &[0xEC];

/// Restores the records saved in `undo` if they belong to checkpoint
/// `epoch`, then empties it under that tag.
fn roll_back(
    transaction: &mut heed::RwTxn<'_>,
    db: Database<Bytes, Bytes>,
    undo: Database<Bytes, Bytes>,
    epoch: u64,
) -> Result<(), heed::Error> {
    let tag = undo.get(transaction, EPOCH_KEY)?.map(<[u8]>::to_vec);
    if tag.as_deref() == Some(&epoch.to_le_bytes()[..]) {
        let mut saved: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
        for entry in undo.iter(transaction)? {
            let (key, value) = entry?;
            if key.len() == 16 {
                saved.push((key.to_vec(), value.to_vec()));
            }
        }
        for (key, old) in saved {
            if old.is_empty() {
                db.delete(transaction, &key)?;
            } else {
                db.put(transaction, &key, &old)?;
            }
        }
    }
    undo.clear(transaction)?;
    undo.put(transaction, EPOCH_KEY, &epoch.to_le_bytes())
}
const CACHE_SHARDS: usize = 64;
const INITIAL_MAP_BYTES: usize = 1 << 30;

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
    cache: Box<[Mutex<HashMap<u64, Record, FxBuildHasher>>]>,
    shard_capacity: usize,
    verification: Verification,
    /// Opened read-only: updates and checkpoints are refused.
    read_only: bool,
}

impl std::fmt::Debug for LmdbTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LmdbTable")
            .field("dir", &self.dir.path())
            .finish()
    }
}

fn lmdb_error(path: &Path) -> impl FnOnce(heed::Error) -> StoreError + '_ {
    move |error| match error {
        heed::Error::Io(source) => StoreError::Io {
            path: path.to_path_buf(),
            source,
        },
        other => StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: format!("LMDB reports {other}"),
        },
    }
}

/// A CRC-32 over every record's key and value, in key order (LMDB's
/// order), so it depends only on what the records are.
#[derive(Default)]
struct RecordsSum {
    hasher: crc32fast::Hasher,
    bytes: u64,
}

impl RecordsSum {
    fn add(&mut self, key: &[u8], value: &[u8]) {
        self.hasher.update(key);
        self.hasher.update(value);
        self.bytes += (key.len() + value.len()) as u64;
    }

    fn finish(self) -> Checksum {
        Checksum {
            what: RECORDS_CHECKSUM.to_owned(),
            bytes: self.bytes,
            crc32: self.hasher.finalize(),
        }
    }
}

/// LMDB's own account of its file: two meta pages at the start, the live
/// one (the higher transaction id) naming the last page in use. The file
/// must reach that page; LMDB itself would map a shorter file and fault.
fn check_data_file(path: &Path, manifest: &Manifest) -> Result<(), StoreError> {
    const MAGIC: u32 = 0xBEEF_C0DE;
    let corrupt = |reason: String| StoreError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    // The meta pages only: the file itself may be gigabytes.
    let read_head = || -> std::io::Result<(Vec<u8>, u64)> {
        use std::io::Read;
        let file = File::open(path)?;
        let length = file.metadata()?.len();
        let mut head = Vec::new();
        file.take(128 * 1024).read_to_end(&mut head)?;
        Ok((head, length))
    };
    let (bytes, length) = match read_head() {
        Ok(read) => read,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
                hint: format!(
                    "the manifest lists {} records from checkpoint {}; restore the file or start a new store directory",
                    manifest.records, manifest.checkpoints
                ),
            });
        }
        Err(source) => return Err(StoreError::io(path)(source)),
    };
    let word = |at: usize| -> Option<u32> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
    };
    let long = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
    };
    // Each meta page: a 16-byte page header, then magic, version, address,
    // map size, the two databases' headers (the first's pad holds the page
    // size), the last page number and the transaction id.
    let meta = |page: usize| -> Option<(u64, u64, u64)> {
        (word(page + 16)? == MAGIC).then_some(())?;
        let page_size = u64::from(word(page + 40)?);
        Some((page_size, long(page + 136)?, long(page + 144)?))
    };
    let Some((page_size, ..)) = meta(0).filter(|(size, ..)| *size >= 512) else {
        return Err(corrupt(format!(
            "it is {length} bytes and does not start with an LMDB meta page; it was emptied or overwritten (the manifest lists {} records)",
            manifest.records
        )));
    };
    let second = usize::try_from(page_size).unwrap_or(usize::MAX);
    let live = [meta(0), meta(second)]
        .into_iter()
        .flatten()
        .max_by_key(|&(_, _, txnid)| txnid);
    let Some((_, last_page, _)) = live else {
        return Err(corrupt("its meta pages do not read".to_owned()));
    };
    let needed = (last_page + 1).saturating_mul(page_size);
    if length < needed {
        return Err(corrupt(format!(
            "it is {length} bytes, but its own metadata says it uses {needed} (pages of {page_size} up to page {last_page}); it was truncated"
        )));
    }
    Ok(())
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
        // LMDB maps whatever file it finds and creates one that is missing:
        // a truncated file would fault (SIGBUS) at the first read past its
        // end, and a missing one would be a silently empty store.
        if manifest.checkpoints > 0 {
            check_data_file(&env_path.join(DATA_FILE), &manifest)?;
        }
        std::fs::create_dir_all(&env_path).map_err(StoreError::io(&env_path))?;
        let existing =
            std::fs::metadata(env_path.join(DATA_FILE)).map_or(0, |meta| meta.len() as usize);
        let map_bytes = (2 * existing)
            .max(initial_map_bytes)
            .next_multiple_of(1 << 20);
        // SAFETY: the directory lock guarantees that no other process has
        // this env open, and we open it exactly once; the flags are
        // discussed in the module docs.
        #[allow(unsafe_code)]
        let env = unsafe {
            EnvOpenOptions::new()
                .map_size(map_bytes)
                .max_dbs(2)
                .flags(EnvFlags::NO_SYNC)
                .open(&env_path)
        }
        .map_err(lmdb_error(&env_path))?;
        let mut transaction = env.write_txn().map_err(lmdb_error(&env_path))?;
        let db: Database<Bytes, Bytes> = env
            .create_database(&mut transaction, Some("records"))
            .map_err(lmdb_error(&env_path))?;
        let undo: Database<Bytes, Bytes> = env
            .create_database(&mut transaction, Some("undo"))
            .map_err(lmdb_error(&env_path))?;
        roll_back(&mut transaction, db, undo, manifest.checkpoints)
            .map_err(lmdb_error(&env_path))?;
        transaction.commit().map_err(lmdb_error(&env_path))?;
        let table = LmdbTable {
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
            cache: (0..CACHE_SHARDS).map(|_| Mutex::default()).collect(),
            shard_capacity: (cache_records / CACHE_SHARDS).max(1),
            verification: Verification::default(),
            read_only: false,
        };
        table.verified(&env_path, &timer)
    }

    /// Loads the index and checks the records against the last
    /// checkpoint's count and checksum.
    fn verified(self, env_path: &Path, timer: &Timer) -> Result<LmdbTable, StoreError> {
        let table = self;
        let found = table.load_index()?;
        let stored = table.manifest.get();
        let verification = match stored
            .checksums
            .iter()
            .find(|checksum| checksum.what == RECORDS_CHECKSUM)
        {
            Some(recorded) => {
                expect(recorded, &found, &env_path.join(DATA_FILE))?;
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
                path: env_path.join(DATA_FILE),
                reason: format!(
                    "it holds {} records, but the last checkpoint wrote {}",
                    table.len(),
                    stored.records
                ),
            });
        }
        Ok(LmdbTable {
            verification,
            ..table
        })
    }

    /// Opens an existing store to read it only, as export and status do on
    /// a read-only directory: LMDB's own lock is off (the directory
    /// lock already excludes every other process) and nothing is written.
    /// A store whose last session ended without a checkpoint holds changes
    /// past it that only a writable open can roll back, so it is refused.
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
        let timer = Timer::start();
        check_data_file(&env_path.join(DATA_FILE), &manifest)?;
        let map_bytes = std::fs::metadata(env_path.join(DATA_FILE))
            .map_or(INITIAL_MAP_BYTES, |meta| meta.len() as usize)
            .max(INITIAL_MAP_BYTES)
            .next_multiple_of(1 << 20);
        // SAFETY: as in `open_with_map_size`; `NO_LOCK` is safe because the
        // directory lock keeps every other process out of this env.
        #[allow(unsafe_code)]
        let env = unsafe {
            EnvOpenOptions::new()
                .map_size(map_bytes)
                .max_dbs(2)
                .flags(EnvFlags::READ_ONLY | EnvFlags::NO_LOCK)
                .open(&env_path)
        }
        .map_err(lmdb_error(&env_path))?;
        let transaction = env.read_txn().map_err(lmdb_error(&env_path))?;
        let missing = |name: &str| StoreError::Corrupt {
            path: env_path.join(DATA_FILE),
            reason: format!("it has no '{name}' database"),
        };
        let db: Database<Bytes, Bytes> = env
            .open_database(&transaction, Some("records"))
            .map_err(lmdb_error(&env_path))?
            .ok_or_else(|| missing("records"))?;
        let undo: Database<Bytes, Bytes> = env
            .open_database(&transaction, Some("undo"))
            .map_err(lmdb_error(&env_path))?
            .ok_or_else(|| missing("undo"))?;
        let tag = undo
            .get(&transaction, EPOCH_KEY)
            .map_err(lmdb_error(&env_path))?
            .map(<[u8]>::to_vec);
        let pending = undo.len(&transaction).map_err(lmdb_error(&env_path))?;
        if tag.as_deref() == Some(&manifest.checkpoints.to_le_bytes()[..]) && pending > 1 {
            return Err(StoreError::Corrupt {
                path: env_path.join(DATA_FILE),
                reason: "the last session ended without a checkpoint, so it holds changes past it; open the store once with write access to roll them back".to_owned(),
            });
        }
        // Committing (not dropping) the read transaction keeps the database
        // handles it opened; an aborted one would close them.
        transaction.commit().map_err(lmdb_error(&env_path))?;
        let table = LmdbTable {
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
            cache: (0..CACHE_SHARDS).map(|_| Mutex::default()).collect(),
            shard_capacity: 1,
            verification: Verification::default(),
            read_only: true,
        };
        table.verified(&env_path, &timer)
    }

    /// Gives every stored key a slot, so that slot ids stay dense and
    /// `len` counts what is stored. Only keys are held in memory. Returns
    /// the records' checksum, summed on the same pass.
    fn load_index(&self) -> Result<Checksum, StoreError> {
        let mut sum = RecordsSum::default();
        let env_path = self.dir.file(LMDB_DIR);
        let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
        for entry in self.db.iter(&transaction).map_err(lmdb_error(&env_path))? {
            let (key, value) = entry.map_err(lmdb_error(&env_path))?;
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
            sum.add(&key, value);
            let slot = self.slot(Key::from_le_bytes(key))?;
            self.in_database.get(slot).store(true, Ordering::Relaxed);
        }
        Ok(sum.finish())
    }

    /// The records' checksum as they stand in the database (after a flush).
    fn records_checksum(&self) -> Result<Checksum, StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        let _gate = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
        let mut sum = RecordsSum::default();
        for entry in self.db.iter(&transaction).map_err(lmdb_error(&env_path))? {
            let (key, value) = entry.map_err(lmdb_error(&env_path))?;
            sum.add(key, value);
        }
        Ok(sum.finish())
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
        let bytes = self
            .db
            .get(&transaction, &key.to_le_bytes())
            .map_err(lmdb_error(&env_path))?
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
        let mut encoded = vec![0u8; self.layout.bytes() as usize];
        loop {
            let attempt = (|| -> Result<(), heed::Error> {
                let _gate = self.gate.read().unwrap_or_else(PoisonError::into_inner);
                let mut transaction = self.env.write_txn()?;
                for (key, _, record) in &entries {
                    let key_bytes = key.to_le_bytes();
                    if self.undo.get(&transaction, &key_bytes)?.is_none() {
                        let old = self.db.get(&transaction, &key_bytes)?.map(<[u8]>::to_vec);
                        self.undo.put(
                            &mut transaction,
                            &key_bytes,
                            old.as_deref().unwrap_or(&[]),
                        )?;
                    }
                    self.layout
                        .encode(RecordLayout::key_check(*key), record, &mut encoded);
                    self.db
                        .put(&mut transaction, &key.to_le_bytes(), &encoded)?;
                }
                transaction.commit()
            })();
            match attempt {
                Ok(()) => break,
                Err(heed::Error::Mdb(heed::MdbError::MapFull)) => self.grow()?,
                Err(error) => return Err(lmdb_error(&env_path)(error)),
            }
        }
        for (_, slot, _) in &entries {
            self.in_database
                .get(SlotId::new(*slot))
                .store(true, Ordering::Release);
        }
        for shard in shards.iter_mut() {
            shard.clear();
        }
        Ok(())
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
            self.flush(&mut [&mut shard])?;
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
        let mut guards: Vec<_> = self
            .cache
            .iter()
            .map(|shard| shard.lock().unwrap_or_else(PoisonError::into_inner))
            .collect();
        let mut shards: Vec<&mut HashMap<u64, Record, FxBuildHasher>> =
            guards.iter_mut().map(|guard| &mut **guard).collect();
        self.flush(&mut shards)?;
        drop(shards);
        drop(guards);
        self.env
            .force_sync()
            .map_err(lmdb_error(&self.dir.file(LMDB_DIR)))?;
        let records = self.len();
        let checksum = self.records_checksum()?;
        self.manifest.commit(&self.dir, state, |manifest| {
            manifest.records = records;
            manifest.checksums = vec![checksum];
        })?;
        // The records as committed are the new restore point.
        let env_path = self.dir.file(LMDB_DIR);
        let _gate = self.gate.read().unwrap_or_else(PoisonError::into_inner);
        let mut transaction = self.env.write_txn().map_err(lmdb_error(&env_path))?;
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
        transaction.commit().map_err(lmdb_error(&env_path))
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
