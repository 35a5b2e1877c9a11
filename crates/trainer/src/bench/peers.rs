//! The other stores a euchre trainer would consider, on `trainer bench
//! store`'s workload (feature `bench-peers`; the default build does not
//! compile them): RocksDB (the published comparison's contender), SQLite
//! (its second post's baseline), and two pure-Rust stores, redb (a B-tree
//! in one file) and fjall (an LSM tree).
//!
//! Each is configured as its own documentation advises for a write-heavy
//! load that may lose its last seconds on a power cut but not on a crash of
//! the process (no sync per commit), and each sees the workload the way the
//! published comparison fed LMDB: every step looks its key up in a cache of
//! pending writes and then in the store, and the writes go to the store in
//! batches of a million keys ([`WriteBack`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, RwLock};

use anyhow::Context;
use store::{Key, Record};

/// Pending writes held before one batch goes to the store.
pub const BATCH_KEYS: usize = 1 << 20;

/// The bytes a peer keeps per record: the record's floats and stamp.
pub const RECORD_BYTES: usize = 4 * (2 * store::MAX_ACTIONS + 1);

/// A key-value store seen as the workload needs it: a point read and a
/// batch of writes.
pub trait Peer: Send + Sync {
    /// How it was configured, for the table's notes.
    fn settings(&self) -> &'static str;
    fn get(&self, key: Key) -> anyhow::Result<Option<Vec<u8>>>;
    /// Writes every pair; durable against a crash of the process once it
    /// returns, not against a power cut.
    fn put_batch(&self, pairs: &[(Key, Vec<u8>)]) -> anyhow::Result<()>;
}

/// The peers by the names `--only` takes.
pub const NAMES: [&str; 4] = ["rocksdb", "sqlite", "redb", "fjall"];

/// Opens the peer `name` in the empty directory `dir`.
pub fn open(name: &str, dir: &Path) -> anyhow::Result<Box<dyn Peer>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(match name {
        "rocksdb" => Box::new(rocks::Rocks::open(dir)?),
        "sqlite" => Box::new(sqlite::Sqlite::open(dir)?),
        "redb" => Box::new(redb_peer::Redb::open(dir)?),
        "fjall" => Box::new(fjall_peer::Fjall::open(dir)?),
        other => anyhow::bail!("no peer '{other}': use one of {}", NAMES.join(", ")),
    })
}

/// How peer `name` is configured, without opening it.
pub fn settings(name: &str) -> anyhow::Result<&'static str> {
    Ok(match name {
        "rocksdb" => rocks::SETTINGS,
        "sqlite" => sqlite::SETTINGS,
        "redb" => redb_peer::SETTINGS,
        "fjall" => fjall_peer::SETTINGS,
        other => anyhow::bail!("no peer '{other}'"),
    })
}

pub fn record_bytes(record: &Record) -> Vec<u8> {
    let mut out = Vec::with_capacity(RECORD_BYTES);
    for value in record.regrets.iter().chain(&record.strategy_sum) {
        out.extend_from_slice(&value.to_le_bytes());
    }
    out.extend_from_slice(&record.stamp.to_le_bytes());
    out
}

pub fn record_of(bytes: &[u8]) -> anyhow::Result<Record> {
    anyhow::ensure!(
        bytes.len() == RECORD_BYTES,
        "a record of {} bytes, not {RECORD_BYTES}",
        bytes.len()
    );
    let float =
        |at: usize| f32::from_le_bytes(bytes[4 * at..4 * at + 4].try_into().unwrap_or([0; 4]));
    let mut record = Record::default();
    for action in 0..store::MAX_ACTIONS {
        record.regrets[action] = float(action);
        record.strategy_sum[action] = float(store::MAX_ACTIONS + action);
    }
    record.stamp = u32::from_le_bytes(bytes[RECORD_BYTES - 4..].try_into().unwrap_or([0; 4]));
    Ok(record)
}

/// Shards of the cache of pending writes: enough that threads on
/// different keys rarely meet.
const SHARDS: usize = 256;

/// A peer behind a cache of pending writes: a step reads its record from
/// the cache or the store and leaves the new value in the cache; when the
/// cache holds [`BATCH_KEYS`] records they go to the store in one batch.
pub struct WriteBack {
    peer: Box<dyn Peer>,
    shards: Vec<Mutex<HashMap<Key, Vec<u8>>>>,
    /// The batch being written: still read by steps until the store holds
    /// it, so that no step reads a value older than the batch's.
    in_flight: RwLock<HashMap<Key, Vec<u8>>>,
    pending: AtomicUsize,
    /// Pending records that make a batch.
    batch_keys: usize,
    /// One flush at a time.
    flushing: Mutex<()>,
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl std::fmt::Debug for WriteBack {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteBack")
            .field("peer", &self.peer.settings())
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl WriteBack {
    /// `peer` behind a cache that writes a batch every `batch_keys`
    /// records ([`BATCH_KEYS`] in the bench).
    pub fn new(peer: Box<dyn Peer>, batch_keys: usize) -> WriteBack {
        WriteBack {
            peer,
            shards: (0..SHARDS).map(|_| Mutex::new(HashMap::new())).collect(),
            in_flight: RwLock::new(HashMap::new()),
            pending: AtomicUsize::new(0),
            batch_keys: batch_keys.max(1),
            flushing: Mutex::new(()),
        }
    }

    pub fn settings(&self) -> &'static str {
        self.peer.settings()
    }

    fn shard(&self, key: Key) -> &Mutex<HashMap<Key, Vec<u8>>> {
        let mixed = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        &self.shards[(mixed >> 56) as usize % SHARDS]
    }

    /// The record as the store will hold it once pending writes land.
    fn current(&self, key: Key) -> anyhow::Result<Record> {
        let in_flight = self
            .in_flight
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(bytes) = in_flight.get(&key) {
            return record_of(bytes);
        }
        match self.peer.get(key)? {
            Some(bytes) => record_of(&bytes),
            None => Ok(Record::default()),
        }
    }

    /// `key`'s record: a pending write's, or the store's.
    pub fn read(&self, key: Key) -> anyhow::Result<Record> {
        if let Some(bytes) = locked(self.shard(key)).get(&key) {
            return record_of(bytes);
        }
        self.current(key)
    }

    /// Reads `key`'s record, lets `work` change it, and holds the result
    /// for the next batch. The shard stays locked from the read to the
    /// write, so no step on the same key is lost.
    pub fn update(&self, key: Key, work: impl FnOnce(&mut Record)) -> anyhow::Result<()> {
        let fresh = {
            let mut shard = locked(self.shard(key));
            let mut record = match shard.get(&key) {
                Some(bytes) => record_of(bytes)?,
                None => self.current(key)?,
            };
            work(&mut record);
            shard.insert(key, record_bytes(&record)).is_none()
        };
        if fresh && self.pending.fetch_add(1, Ordering::Relaxed) + 1 >= self.batch_keys {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes every pending record to the store in one batch.
    pub fn flush(&self) -> anyhow::Result<()> {
        let _turn = locked(&self.flushing);
        if self.pending.load(Ordering::Relaxed) == 0 {
            return Ok(());
        }
        // Shard, then the batch: the order a step takes them in.
        for shard in &self.shards {
            let mut shard = locked(shard);
            self.pending.fetch_sub(shard.len(), Ordering::Relaxed);
            self.in_flight
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .extend(shard.drain());
        }
        let batch: Vec<(Key, Vec<u8>)> = self
            .in_flight
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|(key, value)| (*key, value.clone()))
            .collect();
        self.peer.put_batch(&batch)?;
        self.in_flight
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        Ok(())
    }
}

mod rocks {
    pub(super) const SETTINGS: &str = "RocksDB: WAL without sync, 64 MiB memtables (4), bloom filter 10 bits a key, 256 MiB block cache, a background thread a core";

    use super::{Key, Peer};
    use anyhow::Context;
    use std::path::Path;

    pub(super) struct Rocks {
        db: rocksdb::DB,
        write: rocksdb::WriteOptions,
    }

    impl Rocks {
        pub(super) fn open(dir: &Path) -> anyhow::Result<Rocks> {
            let mut options = rocksdb::Options::default();
            options.create_if_missing(true);
            // RocksDB's tuning guide: background threads for every core,
            // a bloom filter for point lookups (most miss here), larger
            // memtables for a write-heavy load.
            options.increase_parallelism(rayon::current_num_threads().max(2) as i32);
            options.set_write_buffer_size(64 << 20);
            options.set_max_write_buffer_number(4);
            let mut table = rocksdb::BlockBasedOptions::default();
            table.set_bloom_filter(10.0, false);
            table.set_block_cache(&rocksdb::Cache::new_lru_cache(256 << 20));
            options.set_block_based_table_factory(&table);
            let db = rocksdb::DB::open(&options, dir).context("cannot open RocksDB")?;
            let mut write = rocksdb::WriteOptions::default();
            write.set_sync(false);
            Ok(Rocks { db, write })
        }
    }

    impl Peer for Rocks {
        fn settings(&self) -> &'static str {
            SETTINGS
        }

        fn get(&self, key: Key) -> anyhow::Result<Option<Vec<u8>>> {
            Ok(self.db.get(key.to_be_bytes())?)
        }

        fn put_batch(&self, pairs: &[(Key, Vec<u8>)]) -> anyhow::Result<()> {
            let mut batch = rocksdb::WriteBatch::default();
            for (key, value) in pairs {
                batch.put(key.to_be_bytes(), value);
            }
            Ok(self.db.write_opt(batch, &self.write)?)
        }
    }
}

mod sqlite {
    pub(super) const SETTINGS: &str = "SQLite: WITHOUT ROWID table, WAL with synchronous=NORMAL, 256 MiB page cache, a connection a thread";

    use super::{Key, Peer};
    use anyhow::Context;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;

    /// One connection a thread for reads (SQLite's connections are not
    /// shared between threads), one for writes.
    pub(super) struct Sqlite {
        path: PathBuf,
        readers: Vec<Mutex<Option<rusqlite::Connection>>>,
        writer: Mutex<rusqlite::Connection>,
    }

    fn connect(path: &Path) -> anyhow::Result<rusqlite::Connection> {
        let connection = rusqlite::Connection::open(path).context("cannot open SQLite")?;
        // SQLite's advice for concurrent readers beside a writer: the
        // write-ahead log; in it, synchronous=NORMAL syncs at checkpoints
        // only, not at each commit.
        connection.pragma_update(None, "journal_mode", "WAL")?;
        connection.pragma_update(None, "synchronous", "NORMAL")?;
        connection.pragma_update(None, "cache_size", -262_144)?;
        Ok(connection)
    }

    impl Sqlite {
        pub(super) fn open(dir: &Path) -> anyhow::Result<Sqlite> {
            let path = dir.join("records.sqlite");
            let writer = connect(&path)?;
            writer.execute(
                "CREATE TABLE IF NOT EXISTS records (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID",
                [],
            )?;
            let threads = rayon::current_num_threads() + 1;
            Ok(Sqlite {
                path,
                readers: (0..threads).map(|_| Mutex::new(None)).collect(),
                writer: Mutex::new(writer),
            })
        }
    }

    impl Peer for Sqlite {
        fn settings(&self) -> &'static str {
            SETTINGS
        }

        fn get(&self, key: Key) -> anyhow::Result<Option<Vec<u8>>> {
            let slot = rayon::current_thread_index().map_or(self.readers.len() - 1, |i| i);
            let mut reader = self.readers[slot % self.readers.len()]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if reader.is_none() {
                *reader = Some(connect(&self.path)?);
            }
            let connection = reader.as_ref().context("a reader")?;
            let mut statement =
                connection.prepare_cached("SELECT value FROM records WHERE key = ?1")?;
            let mut rows = statement.query([key.to_be_bytes().as_slice()])?;
            Ok(match rows.next()? {
                Some(row) => Some(row.get(0)?),
                None => None,
            })
        }

        fn put_batch(&self, pairs: &[(Key, Vec<u8>)]) -> anyhow::Result<()> {
            let mut writer = self
                .writer
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let transaction = writer.transaction()?;
            {
                let mut insert = transaction.prepare_cached(
                    "INSERT OR REPLACE INTO records (key, value) VALUES (?1, ?2)",
                )?;
                for (key, value) in pairs {
                    insert.execute((key.to_be_bytes().as_slice(), value.as_slice()))?;
                }
            }
            transaction.commit()?;
            Ok(())
        }
    }
}

mod redb_peer {
    pub(super) const SETTINGS: &str =
        "redb: 256 MiB cache, each batch one write transaction with Durability::None (not synced)";

    use super::{Key, Peer};
    use anyhow::Context;
    use redb::{ReadableDatabase, TableDefinition};
    use std::path::Path;

    const RECORDS: TableDefinition<'_, u128, &[u8]> = TableDefinition::new("records");

    pub(super) struct Redb {
        db: redb::Database,
    }

    impl Redb {
        pub(super) fn open(dir: &Path) -> anyhow::Result<Redb> {
            let db = redb::Database::builder()
                .set_cache_size(256 << 20)
                .create(dir.join("records.redb"))
                .context("cannot open redb")?;
            let transaction = db.begin_write()?;
            transaction.open_table(RECORDS)?;
            transaction.commit()?;
            Ok(Redb { db })
        }
    }

    impl Peer for Redb {
        fn settings(&self) -> &'static str {
            SETTINGS
        }

        fn get(&self, key: Key) -> anyhow::Result<Option<Vec<u8>>> {
            let transaction = self.db.begin_read()?;
            let table = transaction.open_table(RECORDS)?;
            Ok(table.get(key)?.map(|value| value.value().to_vec()))
        }

        fn put_batch(&self, pairs: &[(Key, Vec<u8>)]) -> anyhow::Result<()> {
            let mut transaction = self.db.begin_write()?;
            transaction.set_durability(redb::Durability::None)?;
            {
                let mut table = transaction.open_table(RECORDS)?;
                for (key, value) in pairs {
                    table.insert(key, value.as_slice())?;
                }
            }
            transaction.commit()?;
            Ok(())
        }
    }
}

mod fjall_peer {
    pub(super) const SETTINGS: &str = "fjall: 256 MiB cache, journal written without sync per batch (its default), an atomic batch per flush";

    use super::{Key, Peer};
    use anyhow::Context;
    use std::path::Path;

    pub(super) struct Fjall {
        db: fjall::Database,
        records: fjall::Keyspace,
    }

    impl Fjall {
        pub(super) fn open(dir: &Path) -> anyhow::Result<Fjall> {
            let db = fjall::Database::builder(dir)
                .cache_size(256 << 20)
                .open()
                .context("cannot open fjall")?;
            let records = db.keyspace("records", fjall::KeyspaceCreateOptions::default)?;
            Ok(Fjall { db, records })
        }
    }

    impl Peer for Fjall {
        fn settings(&self) -> &'static str {
            SETTINGS
        }

        fn get(&self, key: Key) -> anyhow::Result<Option<Vec<u8>>> {
            Ok(self
                .records
                .get(key.to_be_bytes())?
                .map(|value| value.to_vec()))
        }

        fn put_batch(&self, pairs: &[(Key, Vec<u8>)]) -> anyhow::Result<()> {
            let mut batch = self.db.batch();
            for (key, value) in pairs {
                batch.insert(&self.records, key.to_be_bytes(), value.as_slice());
            }
            batch.commit()?;
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    /// A store in memory, to test the cache alone.
    #[derive(Default)]
    struct InMemory(Mutex<HashMap<Key, Vec<u8>>>);

    impl Peer for InMemory {
        fn settings(&self) -> &'static str {
            "in memory"
        }

        fn get(&self, key: Key) -> anyhow::Result<Option<Vec<u8>>> {
            Ok(locked(&self.0).get(&key).cloned())
        }

        fn put_batch(&self, pairs: &[(Key, Vec<u8>)]) -> anyhow::Result<()> {
            locked(&self.0).extend(pairs.iter().cloned());
            Ok(())
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let mut record = Record::default();
        record.regrets[2] = -1.5;
        record.strategy_sum[4] = 7.25;
        record.stamp = 9;
        let bytes = record_bytes(&record);
        assert_eq!(bytes.len(), RECORD_BYTES);
        let back = record_of(&bytes).unwrap();
        assert_eq!(
            (back.regrets, back.strategy_sum, back.stamp),
            (record.regrets, record.strategy_sum, record.stamp)
        );
        assert!(record_of(&bytes[1..]).is_err(), "a short record is refused");
    }

    /// Every step on every key counts, from every thread, across many
    /// batches (each key is stepped 20 times, batches are 7 keys).
    #[test]
    fn no_step_is_lost_across_batches_and_threads() {
        let cache = WriteBack::new(Box::new(InMemory::default()), 7);
        (0..2000u32).into_par_iter().for_each(|step| {
            let key = Key::from(step % 100);
            cache
                .update(key, |record| record.strategy_sum[0] += 1.0)
                .unwrap();
        });
        cache.flush().unwrap();
        for key in 0..100u128 {
            let record = record_of(&cache.peer.get(key).unwrap().unwrap()).unwrap();
            assert_eq!(record.strategy_sum[0], 20.0, "key {key}");
        }
    }

    /// Each real store keeps what a batch wrote, and misses what it never
    /// saw.
    #[test]
    fn every_peer_reads_back_its_batches() {
        let dir = std::env::temp_dir().join(format!("bench-peers-{}", std::process::id()));
        for name in NAMES {
            let peer = open(name, &dir.join(name)).unwrap();
            let pairs: Vec<(Key, Vec<u8>)> = (0..1000u128)
                .map(|key| (key << 70 | key, vec![key as u8; RECORD_BYTES]))
                .collect();
            peer.put_batch(&pairs).unwrap();
            assert_eq!(
                peer.get(5 << 70 | 5).unwrap(),
                Some(vec![5; RECORD_BYTES]),
                "{name}"
            );
            assert_eq!(peer.get(1 << 100).unwrap(), None, "{name}");
            assert!(!settings(name).unwrap().is_empty());
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
