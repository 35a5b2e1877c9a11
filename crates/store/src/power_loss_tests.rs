//! Power-loss emulation for every store: each store trains past a
//! checkpoint, checkpoints again and trains on, while the recorder
//! ([`crate::power_loss`]) keeps the directory at every point where power
//! could be lost, as it is and as it is durable. Every state a power loss
//! could leave there (what was durable plus any subset of what was written
//! since, page by page) is written to a scratch directory and opened for
//! writing, as a resumed trainer opens it. It must open at the checkpoint
//! its manifest names, with exactly that checkpoint's records, or be
//! refused with the store's path named; never open with other records,
//! never panic.

use std::collections::BTreeMap;
use std::path::Path;

use crate::held_pages::Writeback;
use crate::layout::RecordEncoding;
use crate::power_loss::tests::{self as recorder, Files};
use crate::{
    ClientState, DurableTable, Fingerprint, Key, LmdbTable, MmapTable, Record, RecordLayout,
    SnapshotTable, StoreError,
};
use test_support::TempDir;

const LAYOUT: RecordLayout = match RecordLayout::new(5, RecordEncoding::F32) {
    Ok(layout) => layout,
    Err(_) => panic!("a valid width"),
};
/// Random subsets tried per recorded instant, beyond the structured ones.
const SAMPLED: usize = 12;

fn fingerprint() -> Fingerprint {
    Fingerprint {
        digest: 11,
        description: "power-loss universe".into(),
    }
}

fn keys(count: u128) -> Vec<Key> {
    (0..count)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1)
        .collect()
}

fn chunks(keys: &[Key]) -> Vec<Vec<Key>> {
    keys.chunks(500).map(<[Key]>::to_vec).collect()
}

/// Each key's record, or `None` where the store holds none.
fn records(table: &dyn DurableTable, keys: &[Key]) -> Vec<Option<Record>> {
    keys.iter()
        .map(|&key| table.find(key).map(|slot| table.read(slot).unwrap()))
        .collect()
}

fn train(table: &dyn DurableTable, keys: &[Key], by: f32) {
    for (i, &key) in keys.iter().enumerate() {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| {
                record.regrets[i % 5] += by;
                record.strategy_sum[0] += 1.0;
            })
            .unwrap();
    }
}

fn label(name: &str) -> ClientState {
    ClientState::encode(&name).unwrap()
}

/// What a store's run left: the power-loss states and each checkpoint's
/// records by its label.
struct Run {
    states: Vec<Files>,
    expected: BTreeMap<String, Vec<Option<Record>>>,
}

/// Trains half the keys and checkpoints ("one"); then, recording, trains
/// every key and checkpoints ("two"), and trains every key again with no
/// checkpoint, as a session the power cut would end.
fn record_run(
    dir: &Path,
    open: &dyn Fn(&Path) -> Box<dyn DurableTable>,
    keys: &[Key],
    sampled: usize,
) -> Run {
    let mut expected = BTreeMap::new();
    let table = open(dir);
    train(table.as_ref(), &keys[..keys.len() / 2], 1.0);
    table.checkpoint(&label("one")).unwrap();
    expected.insert("one".to_owned(), records(table.as_ref(), keys));
    recorder::start(dir);
    train(table.as_ref(), keys, 2.0);
    table.checkpoint(&label("two")).unwrap();
    expected.insert("two".to_owned(), records(table.as_ref(), keys));
    train(table.as_ref(), keys, 3.0);
    crate::power_loss::point();
    let instants = recorder::stop();
    drop(table);
    assert!(instants.len() > 3, "{} instants recorded", instants.len());
    Run {
        states: recorder::distinct_states(&instants, sampled),
        expected,
    }
}

/// Opens a store as a resumed trainer does.
type Reopen<'a> = dyn Fn(&Path) -> Result<Box<dyn DurableTable>, StoreError> + 'a;

/// How the states of a run opened.
#[derive(Debug, Default)]
struct Tally {
    states: usize,
    at_one: usize,
    at_two: usize,
    refused: usize,
}

fn reopen_every_state(name: &str, run: &Run, open: &Reopen<'_>, keys: &[Key]) -> Tally {
    let scratch = TempDir::unmade(&format!("{name}-state"));
    let mut tally = Tally::default();
    for (index, state) in run.states.iter().enumerate() {
        recorder::write_files(&scratch.0, state);
        tally.states += 1;
        match open(&scratch.0) {
            Ok(table) => {
                let at: Option<String> = table.committed_state().decode().unwrap();
                let at = at.unwrap_or_else(|| panic!("{name} state {index}: no checkpoint"));
                assert_eq!(
                    records(table.as_ref(), keys),
                    run.expected[&at],
                    "{name} state {index}: opened at checkpoint {at} with other records"
                );
                match at.as_str() {
                    "one" => tally.at_one += 1,
                    _ => tally.at_two += 1,
                }
            }
            Err(error) => {
                assert!(
                    error.to_string().contains(&scratch.0.display().to_string()),
                    "{name} state {index}: a refusal that names no file of the store: {error}"
                );
                tally.refused += 1;
            }
        }
    }
    eprintln!("power loss, {name}: {tally:?}");
    tally
}

/// LMDB commits with `MDB_NOMETASYNC`: each commit's pages are durable
/// before its meta page is written, so a power loss keeps the last commit
/// or the one before, never a mix, and the undo database takes the store
/// back to its checkpoint. (Under `MDB_NOSYNC`, as the store committed
/// before 2026-11-28, this emulation refused 10,468 of 17,281 states:
/// `docs/reliability.md`.) `count` keys through a cache of 64 records.
fn lmdb_power_loss(count: u128, sampled: usize) -> Tally {
    let dir = TempDir::unmade(&format!("lmdb-{count}-{sampled}"));
    let keys = keys(count);
    let open_lmdb = |path: &Path| LmdbTable::open(path, LAYOUT, fingerprint(), 64);
    let mut run = record_run(
        &dir.0,
        &|path| Box::new(open_lmdb(path).unwrap()),
        &keys,
        sampled,
    );
    run.states
        .sort_by_key(|state| state.values().map(Vec::len).sum::<usize>());
    let tally = reopen_every_state(
        "lmdb",
        &run,
        &|path| open_lmdb(path).map(|t| Box::new(t) as Box<dyn DurableTable>),
        &keys,
    );
    assert_eq!(tally.refused, 0, "{tally:?}");
    assert!(tally.at_one > 0 && tally.at_two > 0, "{tally:?}");
    tally
}

#[test]
fn lmdb_always_opens_at_a_checkpoint_after_a_power_loss() {
    let tally = lmdb_power_loss(300, 8);
    assert!(tally.states > 300, "{tally:?}");
}

#[test]
#[ignore = "the long emulation: thousands of states, a few minutes"]
fn lmdb_always_opens_at_a_checkpoint_after_a_power_loss_long() {
    lmdb_power_loss(2000, 16);
}

fn open_mmap(path: &Path, keys: &[Key], writeback: Writeback) -> Result<MmapTable, StoreError> {
    MmapTable::open(path, LAYOUT, fingerprint(), &chunks(keys), &mut |_| {})?
        .with_writeback(writeback)
}

#[test]
fn mmap_holding_changes_to_checkpoints_always_opens_at_a_checkpoint_after_a_power_loss() {
    let dir = TempDir::unmade("mmap-held");
    let keys = keys(3000);
    let run = record_run(
        &dir.0,
        &|path| Box::new(open_mmap(path, &keys, Writeback::AtCheckpoint).unwrap()),
        &keys,
        SAMPLED,
    );
    let tally = reopen_every_state(
        "mmap, writeback at checkpoints",
        &run,
        &|path| {
            open_mmap(path, &keys, Writeback::AtCheckpoint)
                .map(|t| Box::new(t) as Box<dyn DurableTable>)
        },
        &keys,
    );
    assert_eq!(tally.refused, 0, "{tally:?}");
    assert!(tally.at_one > 0 && tally.at_two > 0, "{tally:?}");
}

#[test]
fn mmap_written_continuously_opens_at_a_checkpoint_or_refuses_by_name_after_a_power_loss() {
    let dir = TempDir::unmade("mmap-continuous");
    let keys = keys(3000);
    let run = record_run(
        &dir.0,
        &|path| Box::new(open_mmap(path, &keys, Writeback::Continuous).unwrap()),
        &keys,
        4,
    );
    let tally = reopen_every_state(
        "mmap, continuous writeback",
        &run,
        &|path| {
            open_mmap(path, &keys, Writeback::Continuous)
                .map(|t| Box::new(t) as Box<dyn DurableTable>)
        },
        &keys,
    );
    assert!(tally.at_one > 0 && tally.at_two > 0, "{tally:?}");
}

#[test]
fn the_memory_store_always_opens_at_a_checkpoint_after_a_power_loss() {
    let dir = TempDir::unmade("memory");
    let keys = keys(300);
    let open_memory = |path: &Path| SnapshotTable::open(path, LAYOUT, fingerprint());
    let run = record_run(
        &dir.0,
        &|path| Box::new(open_memory(path).unwrap()),
        &keys,
        SAMPLED,
    );
    let tally = reopen_every_state(
        "memory",
        &run,
        &|path| open_memory(path).map(|t| Box::new(t) as Box<dyn DurableTable>),
        &keys,
    );
    assert_eq!(tally.refused, 0, "{tally:?}");
    assert!(tally.at_one > 0 && tally.at_two > 0, "{tally:?}");
}
