//! A full disk is a clear error, never a SIGBUS or a silent loss.
//!
//! This test runs `mount`, which forks. A forked child shares every open
//! file description of the parent until it execs, including any store
//! lock file another test thread holds, so a test that reopens its store
//! at that moment would find it locked by its own process. Each test file
//! is its own process and cargo runs them one after another, so keeping
//! the only forking test alone in this file keeps the other store tests
//! deterministic.

use std::path::{Path, PathBuf};

use store::{
    Fingerprint, Key, MmapTable, RecordEncoding, RecordLayout, StoreError, classify_write_error,
};

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!("store-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn universe(count: u64) -> Vec<Vec<Key>> {
    let keys: Vec<Key> = (0..count)
        .map(|k| u128::from(k).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1)
        .collect();
    keys.chunks(1000).map(<[Key]>::to_vec).collect()
}

#[test]
fn a_full_disk_is_a_clear_error() {
    // A 1 MiB tmpfs, where permitted (root); the records file needs 5 MB.
    let dir = TempDir::new("full-disk");
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
