//! `trainer bench store`: the workload of the published comparison of
//! disk-backed stores for a euchre bot, on every backend plus a
//! `Mutex<HashMap>` baseline measured in the same run, the limit the
//! hardware allows, and (feature `bench-peers`) the other stores a euchre
//! trainer would consider (`bench/peers.rs`).

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{Context, bail};
use rayon::prelude::*;
use store::{
    Backend, ClientState, DurableTable, Fingerprint, Key, KeyUniverse, LmdbTable, MemoryTable,
    MmapTable, Record, RecordEncoding, RecordLayout, Table,
};

use crate::format::{bytes, thousands};
use crate::meter::MemorySampler;

/// What one measurement runs on: a store backend, the baseline it is
/// compared with, the limit, or a peer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A `Mutex<HashMap>`: the obvious store, to measure the others against.
    Baseline,
    /// What the hardware allows: a flat array of records indexed by a dense
    /// id computed before the clock starts, the same steps in the same
    /// order, a lock a record.
    Limit,
    Store(Backend),
    /// Another store, by the name `bench/peers.rs` opens it by.
    #[cfg(feature = "bench-peers")]
    Peer(&'static str),
}

impl Subject {
    /// Every row, the baseline first.
    fn all() -> Vec<Subject> {
        let ours = [
            Subject::Baseline,
            Subject::Limit,
            Subject::Store(Backend::Memory),
            Subject::Store(Backend::Lmdb),
            Subject::Store(Backend::Mmap),
        ];
        #[cfg(feature = "bench-peers")]
        let peers = super::peers::NAMES.map(Subject::Peer);
        #[cfg(not(feature = "bench-peers"))]
        let peers: [Subject; 0] = [];
        ours.into_iter().chain(peers).collect()
    }

    /// The name `--only` takes.
    fn name(self) -> &'static str {
        match self {
            Subject::Baseline => "baseline",
            Subject::Limit => "limit",
            Subject::Store(backend) => backend.name(),
            #[cfg(feature = "bench-peers")]
            Subject::Peer(name) => name,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Subject::Baseline => "Mutex<HashMap> (baseline)",
            Subject::Limit => "limit: flat array",
            Subject::Store(Backend::Mmap) => "mmap + phf",
            Subject::Store(backend) => backend.name(),
            #[cfg(feature = "bench-peers")]
            Subject::Peer(name) => name,
        }
    }
}

/// A subject name that names no row of the bench.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown subject '{0}': use baseline, limit, memory, lmdb or mmap (or, built with --features bench-peers, rocksdb, sqlite, redb or fjall)"
)]
pub struct UnknownSubject(pub String);

impl std::str::FromStr for Subject {
    type Err = UnknownSubject;

    fn from_str(text: &str) -> Result<Subject, UnknownSubject> {
        Subject::all()
            .into_iter()
            .find(|subject| subject.name() == text)
            .ok_or_else(|| UnknownSubject(text.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_back_passes_what_the_steps_wrote_and_refuses_anything_else() {
        let table = MemoryTable::new();
        run_steps(&table, 5_000).unwrap();
        assert!(read_table(&table, 5_000).is_ok());
        let error = read_back(10, &|index| {
            let mut record = Record::default();
            touch(&mut record, index + u64::from(index == 7));
            Ok(record)
        })
        .unwrap_err();
        assert!(error.to_string().contains("key 7 reads back"), "{error}");
        // A table the steps never wrote does not read back as written.
        assert!(read_table(&MemoryTable::new(), 1).is_err());
    }

    #[test]
    fn workload_keys_are_distinct_sequences_of_six_to_nineteen_actions() {
        let keys: std::collections::HashSet<Key> = (0..200_000).map(key_of).collect();
        assert_eq!(keys.len(), 200_000);
        for key in keys {
            let length = (key >> 120) as u32;
            assert!((6..=19).contains(&length));
            assert_eq!(
                key & !((1u128 << (5 * length)) - 1) & ((1u128 << 120) - 1),
                0
            );
        }
    }
}

/// Records of about five actions, as in the post.
const LAYOUT: RecordLayout = match RecordLayout::new(5, RecordEncoding::F32) {
    Ok(layout) => layout,
    Err(_) => panic!("five actions fit a record"),
};

/// A bijection on `bits`-bit integers (xorshifts and odd multiplications
/// modulo 2^bits), so that distinct inputs give distinct random-looking outputs.
fn mix_bits(mut x: u128, bits: u32) -> u128 {
    let mask = (1u128 << bits) - 1;
    let shift = bits / 2;
    for multiplier in [
        0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835u128,
        0xD6E8_FEB8_6659_FD93_A5A5_5A5A_C3C3_3C3Bu128 | 1,
    ] {
        x ^= x >> shift;
        x = x.wrapping_mul(multiplier) & mask;
    }
    x ^ (x >> shift)
}

/// The `index`-th key: an action sequence of length 6 to 19 over 32
/// actions, 5 bits an action, with the length in the top byte. Lengths
/// cycle with the index, and the sequence is a bijective mix of the rest of
/// the index, so keys look random, never repeat (a perfect hash needs a
/// set), and are never held in memory as a list.
pub(super) fn key_of(index: u64) -> Key {
    let length = 6 + (index % 14) as u32;
    let sequence = mix_bits(u128::from(index / 14), 5 * length);
    u128::from(length) << 120 | sequence
}

/// The workload's keys in chunks of index ranges, for the perfect hash.
pub(super) struct BenchUniverse(pub(super) u64);

/// Indices as `u32` because boomphf needs exact-size chunks, and ranges of
/// `u64` do not promise that on 32-bit targets.
#[derive(Clone)]
pub(super) struct IndexChunk(std::ops::Range<u32>);

fn key_of_u32(index: u32) -> Key {
    key_of(u64::from(index))
}

impl IntoIterator for IndexChunk {
    type Item = Key;
    type IntoIter = std::iter::Map<std::ops::Range<u32>, fn(u32) -> Key>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.map(key_of_u32 as fn(u32) -> Key)
    }
}

impl KeyUniverse for BenchUniverse {
    type Chunk = IndexChunk;

    fn chunks(&self) -> Vec<IndexChunk> {
        let step = 1u32 << 20;
        let total = u32::try_from(self.0).unwrap_or(u32::MAX);
        (0..total.div_ceil(step))
            .map(|c| IndexChunk(c * step..(c.saturating_add(1).saturating_mul(step)).min(total)))
            .collect()
    }

    fn len(&self) -> u64 {
        self.0
    }
}

/// The value written back at each step.
fn touch(record: &mut Record, index: u64) {
    for action in 0..5 {
        record.regrets[action] += (index % 7) as f32 - 3.0;
        record.strategy_sum[action] += 1.0;
    }
    record.stamp = 1;
}

fn run_steps(table: &dyn Table, keys: u64) -> anyhow::Result<()> {
    (0..keys).into_par_iter().try_for_each(|index| {
        let slot = table.slot(key_of(index))?;
        table.update(slot, &mut |record| touch(record, index))?;
        Ok::<(), store::StoreError>(())
    })?;
    Ok(())
}

/// One backend's figures, printed by the child as one parseable line.
struct Measurement {
    seconds: f64,
    /// Reading every record back after the steps, when asked (0 otherwise).
    read_seconds: f64,
    setup_seconds: f64,
    peak_anon: u64,
    peak_file: u64,
    disk: u64,
    index_bytes: u64,
}

pub(super) fn fingerprint(keys: u64) -> Fingerprint {
    Fingerprint {
        digest: keys,
        description: format!("bench store workload with {keys} keys"),
    }
}

/// Reads every key's record once, in parallel, and checks that each holds
/// what its step wrote: the second workload of the posts (write a set of
/// records, then read them back).
fn read_back(
    keys: u64,
    read: &(dyn Fn(u64) -> anyhow::Result<Record> + Sync),
) -> anyhow::Result<f64> {
    let started = Instant::now();
    (0..keys).into_par_iter().try_for_each(|index| {
        let record = read(index)?;
        let mut expected = Record::default();
        touch(&mut expected, index);
        anyhow::ensure!(
            record.regrets[..5] == expected.regrets[..5]
                && record.strategy_sum[..5] == expected.strategy_sum[..5],
            "key {index} reads back {record:?}, not what its step wrote"
        );
        Ok(())
    })?;
    Ok(started.elapsed().as_secs_f64())
}

fn measure(backend: Subject, keys: u64, dir: &Path, read: bool) -> anyhow::Result<Measurement> {
    let sampler = MemorySampler::start();
    let setup = Instant::now();
    let mut index_bytes = 0;
    let mut disk = 0;
    let mut read_seconds = 0.0;
    let seconds = match backend {
        Subject::Baseline => {
            let map: Mutex<HashMap<Key, Record>> = Mutex::new(HashMap::new());
            let started = Instant::now();
            (0..keys).into_par_iter().for_each(|index| {
                let mut map = map
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                touch(map.entry(key_of(index)).or_default(), index);
            });
            let seconds = started.elapsed().as_secs_f64();
            if read {
                read_seconds = read_back(keys, &|index| {
                    let map = map
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    map.get(&key_of(index))
                        .cloned()
                        .context("a written key is missing")
                })?;
            }
            seconds
        }
        Subject::Limit => {
            let (seconds, read) = measure_limit(keys, read)?;
            read_seconds = read;
            seconds
        }
        #[cfg(feature = "bench-peers")]
        Subject::Peer(name) => {
            let peer_dir = dir.join(name);
            let table = super::peers::WriteBack::new(
                super::peers::open(name, &peer_dir)?,
                super::peers::BATCH_KEYS,
            );
            let started = Instant::now();
            (0..keys)
                .into_par_iter()
                .try_for_each(|index| table.update(key_of(index), |record| touch(record, index)))?;
            table.flush()?;
            let seconds = started.elapsed().as_secs_f64();
            disk = directory_bytes(&peer_dir);
            if read {
                read_seconds = read_back(keys, &|index| table.read(key_of(index)))?;
            }
            seconds
        }
        Subject::Store(Backend::Memory) => {
            let table = MemoryTable::new();
            let started = Instant::now();
            run_steps(&table, keys)?;
            let seconds = started.elapsed().as_secs_f64();
            if read {
                read_seconds = read_table(&table, keys)?;
            }
            seconds
        }
        Subject::Store(Backend::Lmdb) => {
            let table = LmdbTable::open(&dir.join("lmdb"), LAYOUT, fingerprint(keys), 1 << 20)?;
            let started = Instant::now();
            run_steps(&table, keys)?;
            table.checkpoint(&ClientState::NONE)?;
            let seconds = started.elapsed().as_secs_f64();
            disk = table.disk_bytes();
            if read {
                read_seconds = read_table(&table, keys)?;
            }
            seconds
        }
        Subject::Store(Backend::Mmap) => {
            let universe = BenchUniverse(keys);
            let table = MmapTable::open(
                &dir.join("mmap"),
                LAYOUT,
                fingerprint(keys),
                &universe,
                &mut |stage| {
                    eprintln!("mmap: {stage}");
                },
            )?;
            index_bytes = table.phf_bytes();
            let started = Instant::now();
            run_steps(&table, keys)?;
            table.checkpoint(&ClientState::NONE)?;
            let seconds = started.elapsed().as_secs_f64();
            disk = table.disk_bytes();
            if read {
                read_seconds = read_table(&table, keys)?;
            }
            seconds
        }
    };
    let setup_seconds = setup.elapsed().as_secs_f64() - seconds - read_seconds;
    let (peak_anon, peak_file) = sampler.finish();
    Ok(Measurement {
        seconds,
        read_seconds,
        setup_seconds,
        peak_anon,
        peak_file,
        disk,
        index_bytes,
    })
}

/// Reads every record of one of our tables back by its key.
fn read_table(table: &dyn Table, keys: u64) -> anyhow::Result<f64> {
    read_back(keys, &|index| Ok(table.read(table.slot(key_of(index))?)?))
}

/// The limit's seconds: dense ids shuffled before the clock starts (as a
/// perfect hash scatters keys), then every step on its record; and, with
/// `read`, every record read back by its id.
fn measure_limit(keys: u64, read: bool) -> anyhow::Result<(f64, f64)> {
    use rand::{SeedableRng, seq::SliceRandom};
    let mut ids: Vec<u32> = (0..keys as u32).collect();
    ids.shuffle(&mut rand::rngs::SmallRng::seed_from_u64(keys));
    let records: Vec<Mutex<Record>> = (0..keys).map(|_| Mutex::new(Record::default())).collect();
    let started = Instant::now();
    (0..keys).into_par_iter().for_each(|index| {
        // The key is made as in every other row (black_box keeps that work),
        // and its id looked up.
        std::hint::black_box(key_of(index));
        let id = ids[index as usize] as usize;
        let mut record = records[id]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        touch(&mut record, index);
    });
    let seconds = started.elapsed().as_secs_f64();
    let read_seconds = if read {
        read_back(keys, &|index| {
            std::hint::black_box(key_of(index));
            let id = ids[index as usize] as usize;
            Ok(*records[id]
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner))
        })?
    } else {
        0.0
    };
    Ok((seconds, read_seconds))
}

/// Bytes of every file under `dir`.
#[cfg(feature = "bench-peers")]
fn directory_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .map(|entry| match entry.file_type() {
                Ok(kind) if kind.is_dir() => directory_bytes(&entry.path()),
                Ok(_) => entry.metadata().map_or(0, |m| m.len()),
                Err(_) => 0,
            })
            .sum()
    })
}

/// Measures every subject, each in a child process of `trainer` (so that
/// each peak of memory is its own), or with `only`, one subject in this
/// process. `trainer` is the executable that runs the children. With
/// `read`, every record is also read back after the steps (the posts'
/// second workload).
pub fn run(
    keys: u64,
    threads: Option<usize>,
    dir: &Path,
    only: Option<Subject>,
    read: bool,
    trainer: &Path,
) -> anyhow::Result<()> {
    anyhow::ensure!(keys > 0, "--keys must be at least 1");
    anyhow::ensure!(
        keys <= u64::from(u32::MAX),
        "--keys must be at most {}",
        u32::MAX
    );
    if let Some(threads) = threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build_global()
            .context("cannot start the thread pool")?;
    }
    if let Some(backend) = only {
        let m = measure(backend, keys, dir, read)?;
        println!(
            "RESULT {} {} {} {} {} {} {}",
            m.seconds,
            m.setup_seconds,
            m.peak_anon,
            m.peak_file,
            m.disk,
            m.index_bytes,
            m.read_seconds
        );
        return Ok(());
    }
    let rows = Subject::all()
        .into_iter()
        .map(|backend| {
            Ok((
                backend,
                measure_in_child(backend, keys, threads, dir, read, trainer)?,
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    print_table(keys, read, &rows);
    Ok(())
}

/// Measures one subject in a child process of its own, so that each
/// peak RSS is its own, and returns the seven figures the child printed.
fn measure_in_child(
    backend: Subject,
    keys: u64,
    threads: Option<usize>,
    dir: &Path,
    read: bool,
    trainer: &Path,
) -> anyhow::Result<Vec<f64>> {
    let run_dir = dir.join(backend.name());
    std::fs::remove_dir_all(&run_dir).ok();
    eprintln!(
        "measuring {} on {} keys ...",
        backend.label(),
        thousands(keys)
    );
    let mut command = Command::new(trainer);
    command
        .args(["bench", "store", "--keys", &keys.to_string(), "--dir"])
        .arg(&run_dir);
    command.args(["--only", backend.name()]);
    if let Some(threads) = threads {
        command.args(["--threads", &threads.to_string()]);
    }
    if read {
        command.arg("--read-back");
    }
    let output = command.output().context("cannot run the benchmark child")?;
    std::fs::remove_dir_all(&run_dir).ok();
    if !output.status.success() {
        bail!(
            "{} failed: {}",
            backend.label(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<f64> = text
        .lines()
        .find_map(|line| line.strip_prefix("RESULT "))
        .context("the benchmark child printed no result")?
        .split_whitespace()
        .map(|value| value.parse().unwrap_or(0.0))
        .collect();
    anyhow::ensure!(fields.len() == 7, "malformed benchmark result: {text}");
    Ok(fields)
}

/// The table, each time as a ratio of the first row's (the baseline).
fn print_table(keys: u64, read: bool, rows: &[(Subject, Vec<f64>)]) {
    let baseline = rows[0].1[0];
    let read_baseline = rows[0].1[6];
    println!(
        "{} keys (action sequences of 6-19 over 32 actions), records of {} actions ({} B), {} threads",
        thousands(keys),
        LAYOUT.max_actions(),
        LAYOUT.bytes(),
        rayon::current_num_threads()
    );
    print!(
        "{:<26} {:>9} {:>11} {:>10} {:>14} {:>14} {:>11} {:>10}",
        "store",
        "time (s)",
        "vs baseline",
        "setup (s)",
        "peak anon RSS",
        "peak file RSS",
        "disk",
        "phf"
    );
    if read {
        print!(" {:>9} {:>11}", "read (s)", "vs baseline");
    }
    println!();
    let size = |value: f64| {
        if value > 0.0 {
            bytes(value as u64)
        } else {
            "-".into()
        }
    };
    for (backend, f) in rows {
        print!(
            "{:<26} {:>9.2} {:>10.2}x {:>10.2} {:>14} {:>14} {:>11} {:>10}",
            backend.label(),
            f[0],
            f[0] / baseline,
            f[1],
            bytes(f[2] as u64),
            bytes(f[3] as u64),
            size(f[4]),
            size(f[5]),
        );
        if read {
            print!(" {:>9.2} {:>10.2}x", f[6], f[6] / read_baseline);
        }
        println!();
    }
    println!(
        "time: the look-up + write-back steps (LMDB and mmap include their final checkpoint);"
    );
    if read {
        println!(
            "read: then every record read back by its key and checked against what its step wrote."
        );
    }
    println!(
        "setup: building the perfect hash and allocating files (mmap), opening the env (LMDB)."
    );
    println!(
        "file RSS is mmap page cache, which the kernel reclaims under pressure; see the memcap run in docs/architecture.md."
    );
    println!(
        "limit: a flat array of records, a lock each, indexed by ids shuffled before the clock starts: what the hardware allows for these steps."
    );
    #[cfg(feature = "bench-peers")]
    {
        println!(
            "peers: each step reads a cache of pending writes, then the store; writes go in batches of {} keys:",
            super::peers::BATCH_KEYS
        );
        for (subject, _) in rows {
            if let Subject::Peer(name) = subject
                && let Ok(settings) = super::peers::settings(name)
            {
                println!("  {settings}");
            }
        }
    }
}
