//! Damage done to a store's files between sessions is found when the store
//! is reopened, before any record is read, on every backend: the error
//! names the file and says what changed. Each case is one an outside tester
//! reproduced against a store that used to reopen without a word.

use std::path::{Path, PathBuf};

use store::{
    ClientState, DurableTable, Fingerprint, Key, LmdbTable, MmapTable, RECORDS_FILE,
    RecordEncoding, RecordLayout, SnapshotTable, StoreError, Table, Verify,
};
use test_support::TempDir;

fn layout() -> RecordLayout {
    RecordLayout::new(7, RecordEncoding::F32).unwrap()
}

fn fingerprint() -> Fingerprint {
    Fingerprint {
        digest: 11,
        description: "damage tests".into(),
    }
}

fn keys() -> Vec<Key> {
    (0..3000u128).map(|i| (i << 3) | 1).collect()
}

fn no_progress(_: &str) {}

fn open_mmap(dir: &Path, verify: Verify) -> Result<MmapTable, StoreError> {
    let universe = vec![keys()];
    MmapTable::open_verified(
        dir,
        layout(),
        fingerprint(),
        || universe,
        &mut no_progress,
        verify,
    )
}

fn open_lmdb(dir: &Path) -> Result<LmdbTable, StoreError> {
    LmdbTable::open(dir, layout(), fingerprint(), 1 << 12)
}

/// Trains a little and checkpoints, as a session would.
fn fill(table: &dyn DurableTable) {
    for (index, key) in keys().into_iter().enumerate() {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| {
                record.regrets[0] = index as f32 + 0.5;
                record.strategy_sum[1] = 3.0;
            })
            .unwrap();
    }
    table.checkpoint(&ClientState::NONE).unwrap();
}

fn flip_bytes(path: &Path, at: usize, count: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    for byte in &mut bytes[at..at + count] {
        *byte ^= 0x5a;
    }
    std::fs::write(path, bytes).unwrap();
}

fn corrupt_reason(error: &StoreError) -> &str {
    match error {
        StoreError::Corrupt { reason, .. } => reason,
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn mmap_records_flipped_after_a_checkpoint_are_refused_unless_the_check_is_skipped() {
    let dir = TempDir::unmade("mmap-flip");
    let table = open_mmap(&dir.0, Verify::Full).unwrap();
    fill(&table);
    drop(table);
    let clean = open_mmap(&dir.0, Verify::Full).unwrap();
    let report = clean.verification();
    assert!(report.not_checked.is_none(), "{report}");
    assert_eq!(
        report.checked.len(),
        3,
        "records, keys, perfect hash: {report}"
    );
    drop(clean);

    // One f32 in each of 27 records, past the 4 KiB header.
    let records = dir.0.join(RECORDS_FILE);
    let record_bytes = layout().bytes() as usize;
    for index in 0..27 {
        flip_bytes(&records, 4096 + index * 100 * record_bytes + 8, 4);
    }
    let error = open_mmap(&dir.0, Verify::Full).unwrap_err();
    assert!(corrupt_reason(&error).contains("CRC-32"), "{error}");
    assert!(error.to_string().contains(RECORDS_FILE), "{error}");
    // Skipping the full check is explicit, and the report says so.
    let skipped = open_mmap(&dir.0, Verify::LengthsOnly).unwrap();
    assert!(
        skipped.verification().to_string().contains("lengths only"),
        "{}",
        skipped.verification()
    );
}

#[test]
fn mmap_keys_truncated_or_changed_are_refused_at_open() {
    let dir = TempDir::unmade("mmap-keys");
    fill(&open_mmap(&dir.0, Verify::Full).unwrap());
    let keys_file = dir.0.join(store::KEYS_FILE);
    flip_bytes(&keys_file, 32, 16);
    let error = open_mmap(&dir.0, Verify::Full).unwrap_err();
    assert!(corrupt_reason(&error).contains("CRC-32"), "{error}");
    flip_bytes(&keys_file, 32, 16);
    open_mmap(&dir.0, Verify::Full).unwrap();

    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&keys_file)
        .unwrap();
    file.set_len(file.metadata().unwrap().len() / 2).unwrap();
    // Even the quick check measures the files.
    let error = open_mmap(&dir.0, Verify::LengthsOnly).unwrap_err();
    assert!(corrupt_reason(&error).contains("truncated"), "{error}");
}

/// The data file cut to half its size: LMDB would map it and die of
/// SIGBUS at the first read past the end. The store reads LMDB's own meta
/// pages first and refuses.
#[test]
fn lmdb_truncated_is_an_error_not_a_crash() {
    let dir = TempDir::unmade("lmdb-cut");
    fill(&open_lmdb(&dir.0).unwrap());
    let data = dir.0.join("lmdb").join("data.mdb");
    let file = std::fs::OpenOptions::new().write(true).open(&data).unwrap();
    file.set_len(file.metadata().unwrap().len() / 2).unwrap();
    let error = open_lmdb(&dir.0).unwrap_err();
    assert!(corrupt_reason(&error).contains("truncated"), "{error}");
    assert!(error.to_string().contains("data.mdb"), "{error}");
}

/// An emptied or deleted data file under a manifest that lists records is
/// not an empty store to train on from scratch.
#[test]
fn lmdb_emptied_or_deleted_under_a_manifest_is_refused() {
    let dir = TempDir::unmade("lmdb-empty");
    fill(&open_lmdb(&dir.0).unwrap());
    let data = dir.0.join("lmdb").join("data.mdb");
    std::fs::write(&data, b"").unwrap();
    let error = open_lmdb(&dir.0).unwrap_err();
    assert!(corrupt_reason(&error).contains("emptied"), "{error}");
    std::fs::remove_file(&data).unwrap();
    let error = open_lmdb(&dir.0).unwrap_err();
    assert!(
        matches!(&error, StoreError::Missing { hint, .. } if hint.contains("3000 records")),
        "{error}"
    );
}

/// Sixteen bytes flipped inside one record's value in LMDB's file: the
/// records' checksum from the last checkpoint no longer matches.
#[test]
fn lmdb_records_changed_on_disk_are_refused() {
    let dir = TempDir::unmade("lmdb-flip");
    fill(&open_lmdb(&dir.0).unwrap());
    let data = dir.0.join("lmdb").join("data.mdb");
    let bytes = std::fs::read(&data).unwrap();
    let key = keys()[1234].to_le_bytes();
    // Copy-on-write leaves stale copies of a page behind: flip the value
    // after every copy of the key, the live one among them.
    let copies: Vec<usize> = bytes
        .windows(16)
        .enumerate()
        .filter(|(_, window)| *window == key)
        .map(|(at, _)| at)
        .collect();
    assert!(!copies.is_empty(), "the key is in the file");
    for at in copies {
        flip_bytes(&data, at + 16 + 8, 16);
    }
    let error = open_lmdb(&dir.0).unwrap_err();
    assert!(corrupt_reason(&error).contains("CRC-32"), "{error}");
}

/// A reopen after a clean checkpoint verifies on every backend and says
/// what it checked.
#[test]
fn every_backend_reports_what_it_verified() {
    let memory = TempDir::unmade("report-memory");
    fill(&SnapshotTable::open(&memory.0, layout(), fingerprint()).unwrap());
    let report = SnapshotTable::open(&memory.0, layout(), fingerprint())
        .unwrap()
        .verification();
    assert!(report.to_string().starts_with("verified"), "{report}");

    let lmdb = TempDir::unmade("report-lmdb");
    fill(&open_lmdb(&lmdb.0).unwrap());
    let report = open_lmdb(&lmdb.0).unwrap().verification();
    assert!(
        report.to_string().contains("verified (3000 records"),
        "{report}"
    );

    let mmap = TempDir::unmade("report-mmap");
    fill(&open_mmap(&mmap.0, Verify::Full).unwrap());
    let report = open_mmap(&mmap.0, Verify::Full).unwrap().verification();
    assert!(report.to_string().contains(RECORDS_FILE), "{report}");
}

/// The lock is held on the directory itself: deleting the pid file while a
/// process holds the store does not let a second one in.
#[test]
fn deleting_the_lock_file_does_not_let_a_second_writer_in() {
    let dir = TempDir::unmade("lock-deleted");
    let first = SnapshotTable::open(&dir.0, layout(), fingerprint()).unwrap();
    for entry in std::fs::read_dir(&dir.0).unwrap().flatten() {
        if entry.file_name().to_string_lossy().ends_with(".lock") {
            std::fs::remove_file(entry.path()).unwrap();
        }
    }
    let error = SnapshotTable::open(&dir.0, layout(), fingerprint()).unwrap_err();
    assert!(matches!(error, StoreError::Locked { .. }), "{error}");
    drop(first);
    SnapshotTable::open(&dir.0, layout(), fingerprint()).unwrap();
}

/// A session that ended without a checkpoint left newer records in the
/// file and their old bytes in the journal. Opened read-only, the store
/// replays the journal into a private copy: it reads and verifies as the
/// checkpoint left it, and its files are not written.
#[test]
fn mmap_opened_read_only_reads_the_checkpoint_and_writes_nothing() {
    let dir = TempDir::unmade("mmap-read-only");
    let table = open_mmap(&dir.0, Verify::Full).unwrap();
    fill(&table);
    let first = table.slot(keys()[7]).unwrap();
    let checkpointed = table.read(first).unwrap();
    table
        .update(first, &mut |record| record.regrets[0] = -99.0)
        .unwrap();
    drop(table); // no checkpoint: as if killed
    let files = |dir: &Path| -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|entry| !entry.file_name().to_string_lossy().ends_with(".lock"))
            .map(|entry| {
                (
                    entry.file_name().to_string_lossy().into_owned(),
                    std::fs::read(entry.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    };
    let before = files(&dir.0);
    let reader = MmapTable::open_read_only(&dir.0, layout(), fingerprint(), Verify::Full).unwrap();
    assert!(reader.verification().not_checked.is_none());
    let slot = reader.slot(keys()[7]).unwrap();
    assert_eq!(reader.read(slot).unwrap(), checkpointed);
    assert!(matches!(
        reader.update(slot, &mut |_| {}),
        Err(StoreError::ReadOnly { .. })
    ));
    assert!(matches!(
        reader.checkpoint(&ClientState::NONE),
        Err(StoreError::ReadOnly { .. })
    ));
    drop(reader);
    assert!(before == files(&dir.0), "a read-only open wrote");
    let reader = LmdbTable::open_read_only(&dir.0, layout(), fingerprint());
    assert!(reader.is_err(), "an mmap store is not an LMDB one");
}

/// Where an outside tester flipped 64 bytes of each file: 10% to 95% of
/// its length.
const POSITIONS: [u64; 10] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95];

/// Every file under `dir` with its bytes (lock files aside, which opening
/// rewrites with the opener's pid): what "nothing was written" compares.
fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if !path.to_string_lossy().ends_with(".lock") {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::remove_dir_all(to).ok();
    for (path, bytes) in all_files(from) {
        let target = to.join(path.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

/// Flips 64 bytes at `percent` of the file's length.
fn flip_at(path: &Path, percent: u64) {
    let length = std::fs::metadata(path).unwrap().len();
    let at = (length * percent / 100).min(length - 64);
    flip_bytes(path, at as usize, 64);
}

/// For each file of a checkpointed store and each of the ten positions:
/// `open` on a copy with 64 bytes flipped there must refuse, naming the
/// file, and leave every file as it was.
fn refuses_damage_everywhere(
    name: &str,
    fill_store: &dyn Fn(&Path),
    files: &[&str],
    open: &dyn Fn(&Path) -> Result<(), StoreError>,
) {
    let clean = TempDir::unmade(&format!("{name}-clean"));
    fill_store(&clean.0);
    for file in files {
        for percent in POSITIONS {
            let damaged = TempDir::unmade(&format!("{name}-damaged"));
            copy_dir(&clean.0, &damaged.0);
            flip_at(&damaged.0.join(file), percent);
            let before = all_files(&damaged.0);
            let error = open(&damaged.0).expect_err(&format!("{file} flipped at {percent}%"));
            let file_name = Path::new(file).file_name().unwrap().to_string_lossy();
            assert!(
                error.to_string().contains(&*file_name),
                "{file} at {percent}%: {error}"
            );
            assert!(
                before == all_files(&damaged.0),
                "{file} at {percent}%: the refusing open wrote"
            );
        }
    }
}

#[test]
fn lmdb_damage_at_ten_positions_is_refused_before_lmdb_maps_the_file_and_nothing_is_written() {
    let fill_store = |dir: &Path| fill(&open_lmdb(dir).unwrap());
    refuses_damage_everywhere("lmdb", &fill_store, &["lmdb/data.mdb"], &|dir| {
        open_lmdb(dir).map(drop)
    });
    refuses_damage_everywhere("lmdb-ro", &fill_store, &["lmdb/data.mdb"], &|dir| {
        LmdbTable::open_read_only(dir, layout(), fingerprint()).map(drop)
    });
}

#[test]
fn mmap_damage_at_ten_positions_in_any_file_is_refused_and_nothing_is_written() {
    let fill_store = |dir: &Path| fill(&open_mmap(dir, Verify::Full).unwrap());
    let files = [RECORDS_FILE, store::KEYS_FILE, store::PHF_FILE];
    refuses_damage_everywhere("mmap", &fill_store, &files, &|dir| {
        open_mmap(dir, Verify::Full).map(drop)
    });
    refuses_damage_everywhere("mmap-ro", &fill_store, &files, &|dir| {
        MmapTable::open_read_only(dir, layout(), fingerprint(), Verify::Full).map(drop)
    });
}

#[test]
fn memory_snapshot_damage_at_ten_positions_is_refused_and_nothing_is_written() {
    let fill_store = |dir: &Path| fill(&SnapshotTable::open(dir, layout(), fingerprint()).unwrap());
    refuses_damage_everywhere("memory", &fill_store, &["memory-snapshot-1.bin"], &|dir| {
        SnapshotTable::open(dir, layout(), fingerprint()).map(drop)
    });
}

/// An LMDB store checkpointed by [`fill`], then changed past the checkpoint
/// (every record, and `created` new ones) by a session that was killed.
/// Returns the records as the checkpoint left them, in [`keys`] order.
fn killed_lmdb_session(dir: &Path, created: u128) -> Vec<store::Record> {
    let table = open_lmdb(dir).unwrap();
    fill(&table);
    let checkpointed: Vec<_> = keys()
        .into_iter()
        .map(|key| table.read(table.slot(key).unwrap()).unwrap())
        .collect();
    for key in keys() {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.regrets[2] -= 7.0)
            .unwrap();
    }
    for key in (0..created).map(|i| (i << 3) | 5) {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.regrets[0] = 1.0)
            .unwrap();
    }
    drop(table); // no checkpoint: as if killed
    checkpointed
}

/// A session that wrote past its checkpoint and was killed: the seal no
/// longer applies, so the walk of LMDB's file alone stands between damage
/// and LMDB. Damage anywhere must be refused with nothing written, or
/// (where it hit a page LMDB does not use) leave the checkpoint's records
/// readable; never a fault.
#[test]
fn lmdb_damage_after_a_killed_session_never_faults() {
    let clean = TempDir::unmade("lmdb-killed-clean");
    let checkpointed = killed_lmdb_session(&clean.0, 500);
    let mut refused = 0;
    for percent in POSITIONS {
        for shift in [0u64, 1000, 3000] {
            let damaged = TempDir::unmade("lmdb-killed-damaged");
            copy_dir(&clean.0, &damaged.0);
            let data = damaged.0.join("lmdb/data.mdb");
            let length = std::fs::metadata(&data).unwrap().len();
            flip_bytes(
                &data,
                ((length * percent / 100 + shift).min(length - 64)) as usize,
                64,
            );
            let before = all_files(&damaged.0);
            match open_lmdb(&damaged.0) {
                Err(error) => {
                    refused += 1;
                    assert!(error.to_string().contains("data.mdb"), "{error}");
                    assert!(before == all_files(&damaged.0), "a refusing open wrote");
                }
                Ok(table) => {
                    assert_eq!(table.len(), 3000);
                    for (key, expected) in keys().into_iter().zip(&checkpointed) {
                        assert_eq!(&table.read(table.slot(key).unwrap()).unwrap(), expected);
                    }
                }
            }
        }
    }
    assert!(refused > 0, "some damage must land on pages in use");
}

/// A killed session left records past the checkpoint in LMDB and their
/// old bytes (or, for new records, their keys) in the undo database.
/// Opened read-only, the store reads the checkpoint's records through
/// them and writes nothing; opened for writing, it rolls them back to the
/// same records.
#[test]
fn lmdb_read_only_reads_the_checkpoint_after_a_killed_session_and_writes_nothing() {
    let dir = TempDir::unmade("lmdb-ro-killed");
    let checkpointed = killed_lmdb_session(&dir.0, 2000);
    let before = all_files(&dir.0);
    let reader = LmdbTable::open_read_only(&dir.0, layout(), fingerprint()).unwrap();
    assert_eq!(
        reader.len(),
        3000,
        "records created after the checkpoint are not read"
    );
    assert!(
        reader
            .verification()
            .to_string()
            .contains("verified (3000 records")
    );
    for (key, expected) in keys().into_iter().zip(&checkpointed) {
        assert_eq!(&reader.read(reader.slot(key).unwrap()).unwrap(), expected);
    }
    drop(reader);
    assert!(before == all_files(&dir.0), "a read-only open wrote");
    let writer = open_lmdb(&dir.0).unwrap();
    assert_eq!(writer.len(), 3000);
    for (key, expected) in keys().into_iter().zip(&checkpointed) {
        assert_eq!(&writer.read(writer.slot(key).unwrap()).unwrap(), expected);
    }
}

/// A store whose session was killed after changing records: its journal
/// holds their checkpoint bytes.
fn killed_mmap_session(dir: &Path, bump: f32) {
    let table = open_mmap(dir, Verify::Full).unwrap();
    fill(&table);
    for key in keys().into_iter().step_by(7) {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.regrets[3] += bump)
            .unwrap();
    }
    drop(table); // no checkpoint: as if killed
}

/// Another store's undo journal (left by a kill -9) copied into a healthy
/// store: refused by name before anything is replayed, and the store's
/// files are unchanged, so putting things right is removing the file.
#[test]
fn a_foreign_undo_journal_is_refused_and_nothing_is_written() {
    let healthy = TempDir::unmade("journal-healthy");
    fill(&open_mmap(&healthy.0, Verify::Full).unwrap());
    let other = TempDir::unmade("journal-other");
    killed_mmap_session(&other.0, 5.0);
    let journal = "mmap-undo.dat";
    std::fs::copy(other.0.join(journal), healthy.0.join(journal)).unwrap();
    let before = all_files(&healthy.0);
    for open in [
        &(|dir: &Path| open_mmap(dir, Verify::Full).map(drop))
            as &dyn Fn(&Path) -> Result<(), StoreError>,
        &|dir: &Path| open_mmap(dir, Verify::LengthsOnly).map(drop),
        &|dir: &Path| {
            MmapTable::open_read_only(dir, layout(), fingerprint(), Verify::Full).map(drop)
        },
    ] {
        let error = open(&healthy.0).unwrap_err();
        assert!(error.to_string().contains(journal), "{error}");
        assert!(error.to_string().contains("another store"), "{error}");
        assert!(
            before == all_files(&healthy.0),
            "a refused journal was replayed"
        );
    }
    std::fs::remove_file(healthy.0.join(journal)).unwrap();
    let reopened = open_mmap(&healthy.0, Verify::Full).unwrap();
    assert!(reopened.verification().not_checked.is_none());
}

/// The store's own journal, damaged: a damaged header is refused; a
/// damaged entry would leave a page unrestored, which the dry run on a
/// private copy finds before anything is written.
#[test]
fn a_damaged_undo_journal_is_refused_and_nothing_is_written() {
    let clean = TempDir::unmade("journal-damaged-clean");
    killed_mmap_session(&clean.0, 5.0);
    let journal = "mmap-undo.dat";
    for (at, what) in [(4usize, "header"), (32 + 12 + 100, "an entry")] {
        let damaged = TempDir::unmade("journal-damaged");
        copy_dir(&clean.0, &damaged.0);
        flip_bytes(&damaged.0.join(journal), at, 8);
        let before = all_files(&damaged.0);
        let error = open_mmap(&damaged.0, Verify::Full).unwrap_err();
        assert!(error.to_string().contains(journal), "{what}: {error}");
        assert!(before == all_files(&damaged.0), "{what}: the open wrote");
    }
    // Undamaged, the same journal rolls the store back to its checkpoint.
    let table = open_mmap(&clean.0, Verify::Full).unwrap();
    let slot = table.slot(keys()[0]).unwrap();
    assert_eq!(table.read(slot).unwrap().regrets[3], 0.0);
}
