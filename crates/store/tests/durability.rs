//! Every backend keeps what it was given, refuses what it should, and says why.

use std::path::{Path, PathBuf};

use store::{
    ClientState, DurableTable, Fingerprint, Key, LmdbTable, MAX_ACTIONS, MemoryTable, MmapTable,
    Record, RecordEncoding, RecordLayout, SnapshotTable, StoreError, Table,
};
use store::{FORMAT_VERSION, MANIFEST_FILE, PHF_FILE, RECORDS_FILE};
use test_support::TempDir;

fn fingerprint(digest: u64) -> Fingerprint {
    Fingerprint {
        digest,
        description: format!("test universe {digest}"),
    }
}

const fn layout(max_actions: usize, encoding: RecordEncoding) -> RecordLayout {
    match RecordLayout::new(max_actions, encoding) {
        Ok(layout) => layout,
        Err(_) => panic!("a valid width"),
    }
}

const F32: RecordLayout = layout(5, RecordEncoding::F32);
const I16: RecordLayout = layout(7, RecordEncoding::I16Scaled);
/// The widest record any backend holds: its buffers must fit it.
const WIDEST: RecordLayout = layout(MAX_ACTIONS, RecordEncoding::F32);

/// A checkpoint state as the tests write them: a label.
fn state(label: &str) -> ClientState {
    ClientState::encode(&label).unwrap()
}

fn label(table: &dyn DurableTable) -> Option<String> {
    table.committed_state().decode().unwrap()
}

fn universe(count: u64) -> Vec<Vec<Key>> {
    let keys: Vec<Key> = (0..count)
        .map(|k| u128::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1)
        .collect();
    keys.chunks(1000).map(<[Key]>::to_vec).collect()
}

/// A deterministic stream of updates, rounds `first..=last`.
fn apply_updates_from(table: &dyn Table, keys: &[Key], first: u32, last: u32) {
    for round in first..=last {
        for (index, &key) in keys.iter().enumerate() {
            if (index as u32 + round).is_multiple_of(3) {
                continue;
            }
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record: &mut Record| {
                    let action = (index + round as usize) % 5;
                    record.regrets[action] += (index as f32 * 0.37 - round as f32).sin() * 10.0;
                    record.strategy_sum[action] += round as f32 * 0.5;
                    record.stamp = round;
                })
                .unwrap();
        }
    }
}

fn apply_updates(table: &dyn Table, keys: &[Key], rounds: u32) {
    apply_updates_from(table, keys, 1, rounds);
}

fn encoded(table: &dyn Table, layout: RecordLayout, keys: &[Key]) -> Vec<Vec<u8>> {
    keys.iter()
        .map(|&key| {
            let record = table.read(table.find(key).expect("key present")).unwrap();
            let mut bytes = vec![0u8; layout.bytes() as usize];
            layout.encode(RecordLayout::key_check(key), &record, &mut bytes);
            bytes
        })
        .collect()
}

fn no_progress(_: &str) {}

/// The memory store's current snapshot: the one file of its name.
fn snapshot_path(dir: &Path) -> PathBuf {
    let mut found: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().contains("memory-snapshot-"))
        .collect();
    assert_eq!(found.len(), 1, "old snapshots are removed: {found:?}");
    found.remove(0)
}

#[test]
fn all_backends_hold_byte_identical_records_across_reopen() {
    for layout in [F32, I16, WIDEST] {
        let chunks = universe(5_000);
        let keys: Vec<Key> = chunks.concat();
        let reference = MemoryTable::with_layout(layout);
        apply_updates(&reference, &keys, 6);
        let expected = encoded(&reference, layout, &keys);

        let memory_dir = TempDir::unmade(&format!("identical-memory-{}", layout.bytes()));
        {
            let table = SnapshotTable::open(&memory_dir.0, layout, fingerprint(1)).unwrap();
            apply_updates(&table, &keys, 3);
            table.checkpoint(&ClientState::NONE).unwrap();
        }
        {
            let table = SnapshotTable::open(&memory_dir.0, layout, fingerprint(1)).unwrap();
            assert!(table.committed_state().is_none());
            apply_updates_from(&table, &keys, 4, 6);
            table.checkpoint(&state("at 6")).unwrap();
        }
        let reopened = SnapshotTable::open(&memory_dir.0, layout, fingerprint(1)).unwrap();
        assert_eq!(label(&reopened).as_deref(), Some("at 6"));
        assert_eq!(
            encoded(&reopened, layout, &keys),
            expected,
            "memory snapshot, {layout:?}"
        );

        let lmdb_dir = TempDir::unmade(&format!("identical-lmdb-{}", layout.bytes()));
        {
            // A cache of 256 records forces many batched flushes mid-run.
            let table = LmdbTable::open(&lmdb_dir.0, layout, fingerprint(1), 256).unwrap();
            apply_updates(&table, &keys, 3);
            table.checkpoint(&ClientState::NONE).unwrap();
        }
        {
            let table = LmdbTable::open(&lmdb_dir.0, layout, fingerprint(1), 256).unwrap();
            assert_eq!(
                table.len(),
                keys.len() as u64,
                "reopen indexes every stored key"
            );
            apply_updates_from(&table, &keys, 4, 6);
            table.checkpoint(&state("lmdb at 6")).unwrap();
        }
        let reopened = LmdbTable::open(&lmdb_dir.0, layout, fingerprint(1), 256).unwrap();
        assert_eq!(label(&reopened).as_deref(), Some("lmdb at 6"));
        assert_eq!(
            encoded(&reopened, layout, &keys),
            expected,
            "lmdb, {layout:?}"
        );

        let mmap_dir = TempDir::unmade(&format!("identical-mmap-{}", layout.bytes()));
        {
            let table = MmapTable::open(
                &mmap_dir.0,
                layout,
                fingerprint(1),
                &chunks,
                &mut no_progress,
            )
            .unwrap();
            apply_updates(&table, &keys, 3);
            table.checkpoint(&ClientState::NONE).unwrap();
        }
        let table = MmapTable::open(
            &mmap_dir.0,
            layout,
            fingerprint(1),
            &Vec::<Vec<Key>>::new(),
            &mut no_progress,
        )
        .unwrap();
        apply_updates_from(&table, &keys, 4, 6);
        assert_eq!(encoded(&table, layout, &keys), expected, "mmap, {layout:?}");
        let mut visited = 0;
        table
            .for_each(&mut |key, record| {
                visited += 1;
                assert_eq!(*record, table.read(table.find(key).unwrap()).unwrap());
            })
            .unwrap();
        assert_eq!(visited, keys.len());
    }
}

#[test]
fn lmdb_grows_its_map_when_full() {
    let dir = TempDir::unmade("lmdb-grow");
    let keys: Vec<Key> = universe(60_000).concat();
    let touch_all = |table: &dyn Table| {
        for (index, &key) in keys.iter().enumerate() {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.regrets[index % 5] = index as f32;
                    record.stamp = 1;
                })
                .unwrap();
        }
    };
    {
        // 1 MiB of map for ~3.5 MB of records: it must grow at least twice.
        let table =
            LmdbTable::open_with_map_size(&dir.0, F32, fingerprint(8), 4096, 1 << 20).unwrap();
        touch_all(&table);
        table.checkpoint(&ClientState::NONE).unwrap();
        assert!(
            table.disk_bytes() > 2 << 20,
            "{} bytes on disk",
            table.disk_bytes()
        );
    }
    let reopened = LmdbTable::open(&dir.0, F32, fingerprint(8), 4096).unwrap();
    assert_eq!(reopened.len(), keys.len() as u64);
    let reference = MemoryTable::with_layout(F32);
    touch_all(&reference);
    assert_eq!(
        encoded(&reopened, F32, &keys),
        encoded(&reference, F32, &keys)
    );
}

#[test]
fn mmap_refuses_keys_outside_its_universe() {
    let dir = TempDir::unmade("unknown-key");
    let chunks = universe(2_000);
    let table = MmapTable::open(&dir.0, F32, fingerprint(2), &chunks, &mut no_progress).unwrap();
    assert_eq!(table.len(), 2_000);
    let mut refused = 0;
    for outsider in 0..1_000u128 {
        let key = outsider << 1; // even: never in the (odd) universe
        match table.slot(key) {
            Err(StoreError::UnknownKey { key: named }) => {
                assert_eq!(named, key);
                refused += 1;
            }
            other => panic!("{key:#x} was accepted: {other:?}"),
        }
    }
    assert_eq!(refused, 1_000);
}

/// Keys looked up together get the slots they get one at a time, and a
/// batch with a key outside the universe is refused, naming that key.
#[test]
fn mmap_slots_of_a_batch_are_the_slots_of_each_key() {
    let dir = TempDir::unmade("batch");
    let chunks = universe(2_000);
    let table = MmapTable::open(&dir.0, F32, fingerprint(2), &chunks, &mut no_progress).unwrap();
    let members: Vec<Key> = chunks.iter().flatten().copied().collect();
    // Batches as the solver makes them, and longer than the store starts
    // at once (it takes those in pieces).
    for size in [5, 40] {
        for batch in members.chunks(size) {
            let mut slots = vec![None; batch.len()];
            table.slots(batch, &mut slots).unwrap();
            let one_at_a_time: Vec<_> = batch.iter().map(|&key| table.slot(key).ok()).collect();
            assert_eq!(slots, one_at_a_time, "batches of {size}");
        }
    }
    let outsider: Key = 4; // even: never in the (odd) universe
    let mixed = [members[0], members[1], outsider, members[2]];
    let mut slots = [None; 4];
    match table.slots(&mixed, &mut slots) {
        Err(StoreError::UnknownKey { key }) => assert_eq!(key, outsider),
        other => panic!("a batch holding {outsider:#x} was accepted: {other:?}"),
    }
}

/// A slot is only as good as the table that made it: one from a larger
/// table is refused by a smaller one, never followed out of its mapping.
#[test]
fn mmap_refuses_a_slot_from_another_larger_table() {
    let (small_dir, large_dir) = (
        TempDir::unmade("small-slots"),
        TempDir::unmade("large-slots"),
    );
    let small = MmapTable::open(
        &small_dir.0,
        F32,
        fingerprint(2),
        &universe(10),
        &mut no_progress,
    )
    .unwrap();
    let large_universe = universe(5_000);
    let large = MmapTable::open(
        &large_dir.0,
        F32,
        fingerprint(2),
        &large_universe,
        &mut no_progress,
    )
    .unwrap();
    let foreign = large_universe
        .iter()
        .flatten()
        .map(|&key| large.slot(key).unwrap())
        .find(|slot| slot.index() >= 10)
        .unwrap();
    assert!(matches!(
        small.read(foreign),
        Err(StoreError::NoSuchSlot { records: 10, .. })
    ));
    assert!(matches!(
        small.update(foreign, &mut |record| record.regrets[0] = 1.0),
        Err(StoreError::NoSuchSlot { records: 10, .. })
    ));
}

fn expect_mismatch(result: Result<impl std::fmt::Debug, StoreError>, field: &str) {
    match result {
        Err(StoreError::Mismatch { field: named, .. }) => assert_eq!(named, field),
        other => panic!("expected a {field} mismatch, got {other:?}"),
    }
}

#[test]
fn a_format_1_manifest_opens_with_its_state_and_is_rewritten_as_current() {
    let dir = TempDir::unmade("format-1");
    let table = SnapshotTable::open(&dir.0, F32, fingerprint(3)).unwrap();
    let slot = table.slot(9).unwrap();
    table
        .update(slot, &mut |record| record.regrets[0] = 2.5)
        .unwrap();
    table.checkpoint(&ClientState::NONE).unwrap();
    drop(table);
    // Format 1 kept the caller's state as JSON text in a string.
    let path = dir.0.join(MANIFEST_FILE);
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let object = manifest.as_object_mut().unwrap();
    object.remove("state");
    object.insert("format_version".into(), 1.into());
    object.insert("client_state".into(), r#""at 4""#.into());
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();

    let table = SnapshotTable::open(&dir.0, F32, fingerprint(3)).unwrap();
    assert_eq!(label(&table).as_deref(), Some("at 4"));
    assert_eq!(table.read(table.find(9).unwrap()).unwrap().regrets[0], 2.5);
    table.checkpoint(&state("at 5")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains(&format!("\"format_version\": {FORMAT_VERSION}"))
            && !text.contains("client_state"),
        "{text}"
    );
}

#[test]
fn reopening_with_other_settings_names_what_differs() {
    let dir = TempDir::unmade("mismatch");
    SnapshotTable::open(&dir.0, F32, fingerprint(3))
        .unwrap()
        .checkpoint(&ClientState::NONE)
        .unwrap();
    expect_mismatch(
        SnapshotTable::open(&dir.0, I16, fingerprint(3)),
        "record layout",
    );
    let error = SnapshotTable::open(&dir.0, F32, fingerprint(4)).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("test universe 3") && message.contains("test universe 4"),
        "{message}"
    );
    expect_mismatch(
        MmapTable::open(&dir.0, F32, fingerprint(3), &universe(10), &mut no_progress),
        "backend",
    );
    // A manifest from another format version.
    let text = std::fs::read_to_string(dir.0.join(MANIFEST_FILE)).unwrap();
    std::fs::write(
        dir.0.join(MANIFEST_FILE),
        text.replace(
            &format!("\"format_version\": {FORMAT_VERSION}"),
            "\"format_version\": 99",
        ),
    )
    .unwrap();
    let error = SnapshotTable::open(&dir.0, F32, fingerprint(3)).unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::Mismatch {
                field: "format_version",
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("another version"), "{error}");
}

fn corrupt_after<F: FnOnce(&Path)>(name: &str, mmap: bool, damage: F) -> StoreError {
    let dir = TempDir::unmade(name);
    let chunks = universe(500);
    if mmap {
        let table =
            MmapTable::open(&dir.0, F32, fingerprint(5), &chunks, &mut no_progress).unwrap();
        apply_updates(&table, &chunks.concat(), 2);
        table.checkpoint(&ClientState::NONE).unwrap();
    } else {
        let table = SnapshotTable::open(&dir.0, F32, fingerprint(5)).unwrap();
        apply_updates(&table, &chunks.concat(), 2);
        table.checkpoint(&ClientState::NONE).unwrap();
    }
    damage(&dir.0);
    if mmap {
        MmapTable::open(&dir.0, F32, fingerprint(5), &chunks, &mut no_progress).unwrap_err()
    } else {
        SnapshotTable::open(&dir.0, F32, fingerprint(5)).unwrap_err()
    }
}

fn truncate(path: &Path, by: u64) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let length = file.metadata().unwrap().len();
    file.set_len(length - by).unwrap();
}

#[test]
fn damaged_files_are_named_never_loaded() {
    let error = corrupt_after("truncated-snapshot", false, |dir| {
        truncate(&snapshot_path(dir), 7);
    });
    assert!(
        matches!(&error, StoreError::Corrupt { reason, .. } if reason.contains("truncated")),
        "{error}"
    );

    let error = corrupt_after("flipped-snapshot", false, |dir| {
        let path = snapshot_path(dir);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[100] ^= 0x40;
        std::fs::write(&path, bytes).unwrap();
    });
    assert!(
        matches!(&error, StoreError::Corrupt { reason, .. } if reason.contains("CRC")),
        "{error}"
    );

    let error = corrupt_after("garbled-manifest", false, |dir| {
        std::fs::write(
            dir.join(MANIFEST_FILE),
            "{ \"magic\": \"euchre-cfr-store\", ",
        )
        .unwrap();
    });
    assert!(
        matches!(&error, StoreError::Corrupt { reason, .. } if reason.contains("does not parse")),
        "{error}"
    );

    let error = corrupt_after("missing-snapshot", false, |dir| {
        std::fs::remove_file(snapshot_path(dir)).unwrap();
    });
    assert!(matches!(error, StoreError::Missing { .. }), "{error}");

    let error = corrupt_after("truncated-records", true, |dir| {
        truncate(&dir.join(RECORDS_FILE), 48);
    });
    assert!(
        matches!(&error, StoreError::Corrupt { reason, .. } if reason.contains("truncated")),
        "{error}"
    );

    let error = corrupt_after("missing-phf", true, |dir| {
        std::fs::remove_file(dir.join(PHF_FILE)).unwrap();
    });
    assert!(
        matches!(&error, StoreError::Missing { hint, .. } if hint.contains("never rebuilt")),
        "{error}"
    );

    let error = corrupt_after("garbled-phf", true, |dir| {
        std::fs::write(dir.join(PHF_FILE), b"not a hash").unwrap();
    });
    assert!(matches!(error, StoreError::Corrupt { .. }), "{error}");

    // Export needs the keys file: a missing or short one is an error, never
    // an export with fewer records.
    let dir = TempDir::unmade("keys-file");
    let table = MmapTable::open(
        &dir.0,
        F32,
        fingerprint(9),
        &universe(300),
        &mut no_progress,
    )
    .unwrap();
    truncate(&dir.0.join(store::KEYS_FILE), 16);
    let mut visited = 0;
    let error = table.for_each(&mut |_, _| visited += 1).unwrap_err();
    assert!(
        matches!(&error, StoreError::Corrupt { reason, .. } if reason.contains("299 of 300")),
        "{error}"
    );
    std::fs::remove_file(dir.0.join(store::KEYS_FILE)).unwrap();
    assert!(matches!(
        table.for_each(&mut |_, _| {}),
        Err(StoreError::Missing { .. })
    ));
    drop(table);

    let error = corrupt_after("missing-records", true, |dir| {
        std::fs::remove_file(dir.join(RECORDS_FILE)).unwrap();
    });
    assert!(matches!(error, StoreError::Missing { .. }), "{error}");
}

#[test]
fn a_second_writer_is_refused_with_the_holders_pid() {
    let dir = TempDir::unmade("second-writer");
    let first = SnapshotTable::open(&dir.0, F32, fingerprint(6)).unwrap();
    let error = SnapshotTable::open(&dir.0, F32, fingerprint(6)).unwrap_err();
    match &error {
        StoreError::Locked { pid, .. } => assert_eq!(pid, &std::process::id().to_string()),
        other => panic!("expected Locked, got {other:?}"),
    }
    assert!(error.to_string().contains("another process"), "{error}");
    drop(first);
    assert!(
        SnapshotTable::open(&dir.0, F32, fingerprint(6)).is_ok(),
        "the lock goes with its holder"
    );
}

/// Reads every key of `keys` that the table holds, missing ones as `None`.
fn snapshot_of(table: &dyn Table, layout: RecordLayout, keys: &[Key]) -> Vec<Option<Vec<u8>>> {
    keys.iter()
        .map(|&key| {
            table.find(key).map(|slot| {
                let mut bytes = vec![0u8; layout.bytes() as usize];
                layout.encode(
                    RecordLayout::key_check(key),
                    &table.read(slot).unwrap(),
                    &mut bytes,
                );
                bytes
            })
        })
        .collect()
}

#[test]
fn a_crash_between_checkpoints_reopens_at_the_last_checkpoint() {
    // Dropping a table without a checkpoint is what a killed process
    // leaves: the mmap's changed pages and LMDB's flushed batches are in
    // the files, the manifest is the last checkpoint's.
    let chunks = universe(4_000);
    let keys: Vec<Key> = chunks.concat();
    let (early, late) = keys.split_at(2_500);

    let mmap_dir = TempDir::unmade("crash-mmap");
    let open_mmap =
        || MmapTable::open(&mmap_dir.0, F32, fingerprint(1), &chunks, &mut no_progress).unwrap();
    let expected = {
        let table = open_mmap();
        apply_updates(&table, &keys, 2);
        table.checkpoint(&state("two rounds")).unwrap();
        let expected = snapshot_of(&table, F32, &keys);
        apply_updates_from(&table, &keys, 3, 5);
        expected
    };
    for _ in 0..2 {
        // Twice: a second crash after the roll back must roll back again.
        let table = open_mmap();
        assert_eq!(label(&table).as_deref(), Some("two rounds"));
        assert_eq!(
            snapshot_of(&table, F32, &keys),
            expected,
            "mmap after a crash"
        );
        apply_updates_from(&table, &keys, 3, 4);
    }

    let lmdb_dir = TempDir::unmade("crash-lmdb");
    let expected = {
        // A 64-record cache flushes many batches before the crash.
        let table = LmdbTable::open(&lmdb_dir.0, F32, fingerprint(1), 64).unwrap();
        apply_updates(&table, early, 2);
        table.checkpoint(&state("early keys")).unwrap();
        let expected = snapshot_of(&table, F32, &keys);
        apply_updates_from(&table, early, 3, 4);
        apply_updates(&table, late, 2);
        expected
    };
    assert!(
        expected[2_600].is_none(),
        "late keys were not in the checkpoint"
    );
    for _ in 0..2 {
        let table = LmdbTable::open(&lmdb_dir.0, F32, fingerprint(1), 64).unwrap();
        assert_eq!(label(&table).as_deref(), Some("early keys"));
        assert_eq!(
            table.len(),
            early.len() as u64,
            "keys added after the checkpoint are gone"
        );
        assert_eq!(
            snapshot_of(&table, F32, &keys),
            expected,
            "lmdb after a crash"
        );
        apply_updates(&table, late, 1);
    }
}

#[test]
fn held_writes_reach_the_file_only_at_checkpoints_and_match_shared_ones() {
    use store::Writeback;
    let chunks = universe(4_000);
    let keys: Vec<Key> = chunks.concat();
    let shared_dir = TempDir::unmade("writeback-shared");
    let held_dir = TempDir::unmade("writeback-held");
    let open = |dir: &Path, writeback: Writeback| {
        MmapTable::open(dir, I16, fingerprint(1), &chunks, &mut no_progress)
            .unwrap()
            .with_writeback(writeback)
            .unwrap()
    };
    let records_file = |dir: &Path| std::fs::read(dir.join(RECORDS_FILE)).unwrap();

    let shared = open(&shared_dir.0, Writeback::Continuous);
    apply_updates(&shared, &keys, 2);
    shared.checkpoint(&state("two rounds")).unwrap();
    apply_updates_from(&shared, &keys, 3, 4);
    shared.checkpoint(&state("four rounds")).unwrap();
    let expected = encoded(&shared, I16, &keys);
    drop(shared);

    let expected_after_two = {
        let held = open(&held_dir.0, Writeback::AtCheckpoint);
        assert_eq!(held.writeback(), Writeback::AtCheckpoint);
        let built = records_file(&held_dir.0);
        apply_updates(&held, &keys, 2);
        assert_eq!(
            records_file(&held_dir.0),
            built,
            "a held change reached the file before its checkpoint"
        );
        held.checkpoint(&state("two rounds")).unwrap();
        let after_two = records_file(&held_dir.0);
        assert_ne!(after_two, built, "the checkpoint wrote nothing");
        let expected_after_two = snapshot_of(&held, I16, &keys);
        apply_updates_from(&held, &keys, 3, 4);
        assert_eq!(records_file(&held_dir.0), after_two);
        held.checkpoint(&state("four rounds")).unwrap();
        assert_eq!(encoded(&held, I16, &keys), expected, "held against shared");
        // Work after the last checkpoint dies with the process.
        apply_updates_from(&held, &keys, 5, 6);
        expected_after_two
    };
    // Reopened either way, the file is the last checkpoint's, byte for
    // byte what the shared map wrote.
    let reopened = open(&held_dir.0, Writeback::Continuous);
    assert_eq!(label(&reopened).as_deref(), Some("four rounds"));
    assert_eq!(encoded(&reopened, I16, &keys), expected);
    assert_ne!(snapshot_of(&reopened, I16, &keys), expected_after_two);
    drop(reopened);
    assert_eq!(
        records_file(&held_dir.0),
        records_file(&shared_dir.0),
        "the two ways wrote different files"
    );
}
