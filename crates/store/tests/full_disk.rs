//! A full disk is a clear error, never a SIGBUS or a silent loss.
//!
//! This test runs `mount`, which forks. A forked child shares every open
//! file description of the parent until it execs, including any store
//! lock file another test thread holds, so a test that reopens its store
//! at that moment would find it locked by its own process. Each test file
//! is its own process and cargo runs them one after another, so keeping
//! the only forking test alone in this file keeps the other store tests
//! deterministic.

use std::path::Path;

use store::{
    ClientState, DurableTable, Fingerprint, Key, LmdbTable, MmapTable, RecordEncoding,
    RecordLayout, StoreError, Table, classify_write_error,
};
use test_support::TempDir;

fn universe(count: u64) -> Vec<Vec<Key>> {
    let keys: Vec<Key> = (0..count)
        .map(|k| u128::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1)
        .collect();
    keys.chunks(1000).map(<[Key]>::to_vec).collect()
}

#[test]
fn a_full_disk_is_a_clear_error() {
    // A 1 MiB tmpfs, where permitted (root); the records file needs 5 MB.
    let dir = TempDir::unmade("full-disk");
    std::fs::create_dir_all(&dir.0).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
        .arg(&dir.0)
        .status()
        .is_ok_and(|status| status.success());
    if mounted {
        let chunks = universe(100_000);
        let error = MmapTable::open(
            &dir.0.join("store"),
            RecordLayout::new(5, RecordEncoding::F32).unwrap(),
            Fingerprint {
                digest: 7,
                description: "test universe 7".into(),
            },
            &chunks,
            &mut |_| {},
        )
        .unwrap_err();
        std::process::Command::new("umount")
            .arg(&dir.0)
            .status()
            .ok();
        assert!(
            matches!(&error, StoreError::DiskFull { needed, .. } if *needed > 4_000_000),
            "{error}"
        );
        assert!(
            error.to_string().contains("not enough disk space"),
            "{error}"
        );
        lmdb_says_the_disk_is_full();
        lmdb_resumes_once_space_is_freed_after_the_first_commit_past_a_checkpoint_failed();
    } else {
        eprintln!(
            "tmpfs mount not permitted here; checking ENOSPC handling through /dev/full instead"
        );
    }
    // Either way, a real ENOSPC from the kernel must classify as a full disk.
    use std::io::Write;
    let mut full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let source = full
        .write_all(b"x")
        .and_then(|()| full.flush())
        .unwrap_err();
    let error = classify_write_error(Path::new("/dev/full"), 1, source);
    assert!(
        matches!(error, StoreError::DiskFull { needed: 1, .. }),
        "{error}"
    );
}

/// LMDB on a full filesystem: its failed write-out reaches the store as a
/// bare I/O error, which the store reports as the full disk it is, like
/// the other backends, and the last checkpoint stays readable.
fn lmdb_says_the_disk_is_full() {
    let dir = TempDir::unmade("full-disk-lmdb");
    std::fs::create_dir_all(&dir.0).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=3m", "tmpfs"])
        .arg(&dir.0)
        .status()
        .is_ok_and(|status| status.success());
    assert!(mounted, "a second tmpfs mounts where the first did");
    let layout = RecordLayout::new(7, RecordEncoding::F32).unwrap();
    let fingerprint = Fingerprint {
        digest: 8,
        description: "test universe 8".into(),
    };
    let path = dir.0.join("store");
    let table = LmdbTable::open_with_map_size(&path, layout, fingerprint.clone(), 1 << 10, 1 << 20)
        .unwrap();
    let mut outcome = Ok(());
    'fill: for round in 0..200u128 {
        for key in 0..1000u128 {
            let slot = table.slot((round << 20) | key).unwrap();
            if let Err(error) = table.update(slot, &mut |record| record.regrets[0] += 1.0) {
                outcome = Err(error);
                break 'fill;
            }
        }
        if round == 0 {
            table.checkpoint(&ClientState::NONE).unwrap();
        }
    }
    let error = match outcome {
        Err(error) => error,
        Ok(()) => table.checkpoint(&ClientState::NONE).unwrap_err(),
    };
    drop(table);
    let reopened = LmdbTable::open_read_only(&path, layout, fingerprint).map(|table| table.len());
    std::process::Command::new("umount")
        .arg(&dir.0)
        .status()
        .ok();
    assert!(matches!(error, StoreError::DiskFull { .. }), "{error}");
    assert!(
        error.to_string().contains("not enough disk space"),
        "{error}"
    );
    assert_eq!(reopened.unwrap(), 1000, "the first checkpoint survives");
}

/// The first commit after a checkpoint meets a full disk (its pages part
/// written, the file grown): once space is freed, the store opens for
/// writing at its checkpoint with every record as it was. (The checkpoint's
/// seal of the data file once refused this intact store; the seal is now
/// voided before any write begins.)
fn lmdb_resumes_once_space_is_freed_after_the_first_commit_past_a_checkpoint_failed() {
    let dir = TempDir::unmade("full-disk-lmdb-resume");
    std::fs::create_dir_all(&dir.0).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(&dir.0)
        .status()
        .is_ok_and(|status| status.success());
    assert!(mounted, "a third tmpfs mounts where the first did");
    let layout = RecordLayout::new(7, RecordEncoding::F32).unwrap();
    let fingerprint = Fingerprint {
        digest: 9,
        description: "test universe 9".into(),
    };
    let path = dir.0.join("store");
    let table = LmdbTable::open_with_map_size(&path, layout, fingerprint.clone(), 1 << 12, 1 << 20)
        .unwrap();
    let keys: Vec<Key> = (0..3000u128).map(|key| (key << 7) | 3).collect();
    for (i, &key) in keys.iter().enumerate() {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.regrets[0] = i as f32)
            .unwrap();
    }
    table.checkpoint(&ClientState::NONE).unwrap();
    let checkpointed: Vec<_> = keys
        .iter()
        .map(|&key| table.read(table.slot(key).unwrap()).unwrap())
        .collect();
    // Ballast leaves the disk too full for the next commit's pages.
    let ballast = dir.0.join("ballast");
    let mut file = std::fs::File::create(&ballast).unwrap();
    let chunk = vec![0u8; 4096];
    while std::io::Write::write_all(&mut file, &chunk).is_ok() {}
    drop(file);
    let mut outcome = Ok(());
    for round in 1..50u128 {
        for &key in &keys {
            let slot = table.slot(key ^ (round << 40)).unwrap();
            if let Err(error) = table.update(slot, &mut |record| record.regrets[1] += 1.0) {
                outcome = Err(error);
                break;
            }
        }
        if outcome.is_err() {
            break;
        }
    }
    drop(table);
    std::fs::remove_file(&ballast).unwrap();
    let reopened = LmdbTable::open(&path, layout, fingerprint, 1 << 12).map(|table| {
        let records: Vec<_> = keys
            .iter()
            .map(|&key| table.find(key).map(|slot| table.read(slot).unwrap()))
            .collect();
        (table.len(), records)
    });
    std::process::Command::new("umount")
        .arg(&dir.0)
        .status()
        .ok();
    let error = outcome.expect_err("the disk fills");
    assert!(matches!(error, StoreError::DiskFull { .. }), "{error}");
    let (len, records) = reopened.expect("an intact store opens once space is freed");
    assert_eq!(len, 3000, "the checkpoint's records, and only them");
    for (found, expected) in records.into_iter().zip(&checkpointed) {
        assert_eq!(found.as_ref(), Some(expected));
    }
}
