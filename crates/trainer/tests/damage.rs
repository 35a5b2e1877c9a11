//! A run whose store files were damaged between sessions, driven through
//! the binary as a user would: `train` and `resume` refuse to train on it,
//! `export` refuses to write a policy from it, and `status` says what is
//! wrong (and exits non-zero), on every backend, each naming the file. The
//! cases are the ones an outside tester found trained on, or crashed on.

mod support;

use std::path::Path;

use support::{TempDir, ok, refused, text, trainer};

/// A short bidding run on `store`, checkpointed and stopped, as the
/// tester's 3,000-iteration runs were (shorter here, the same files).
fn trained_run(temp: &TempDir, store: &str) -> String {
    let run = temp.join(store).display().to_string();
    ok(&trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        store,
        "--threads",
        "1",
        "--iterations",
        "400",
        "--run-dir",
        &run,
    ]));
    run
}

fn flip(path: &Path, at: usize, count: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    for byte in &mut bytes[at..at + count] {
        *byte ^= 0x5a;
    }
    std::fs::write(path, bytes).unwrap();
}

fn truncate_to_half(path: &Path) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(file.metadata().unwrap().len() / 2).unwrap();
}

/// Every command that reads the store refuses it, naming `file` and, for
/// the ones that train, never reporting a resumed session.
fn every_command_refuses(run: &str, store: &str, file: &str) {
    let train = trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        store,
        "--threads",
        "1",
        "--iterations",
        "100",
        "--run-dir",
        run,
    ]);
    let resume = trainer(&["resume", "--run-dir", run, "--iterations", "100"]);
    let export = trainer(&["export", "--run-dir", run]);
    for (name, output) in [("train", &train), ("resume", &resume), ("export", &export)] {
        assert_ne!(
            output.status.code(),
            Some(135),
            "{store} {name} died of SIGBUS"
        );
        let error = refused(output);
        assert!(error.contains(file), "{store} {name}: {error}");
        assert!(
            !text(&output.stdout).contains("resumed"),
            "{store} {name} trained on a damaged store"
        );
    }
    let status = trainer(&["status", "--run-dir", run]);
    let printed = text(&status.stdout);
    assert!(!status.status.success(), "{printed}");
    assert!(
        printed.contains("check      DAMAGED") && printed.contains(file),
        "{store} status: {printed}"
    );
}

#[test]
fn flipped_mmap_records_are_refused_and_the_skip_is_explicit() {
    let temp = TempDir::new("damage-mmap-flip");
    let run = trained_run(&temp, "mmap");
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(status.contains("check      verified ("), "{status}");
    let records = Path::new(&run).join("store").join("mmap-records.dat");
    // One f32 in each of 27 records past the header.
    for index in 0..27 {
        flip(&records, 4096 + index * 4000 + 8, 4);
    }
    every_command_refuses(&run, "mmap", "mmap-records.dat");
    // Lengths only, when asked: the damage is not seen, and status says
    // what was not checked.
    let status = ok(&trainer(&["status", "--run-dir", &run, "--skip-checksums"]));
    assert!(status.contains("lengths only"), "{status}");
}

#[test]
fn a_truncated_mmap_keys_file_is_refused() {
    let temp = TempDir::new("damage-mmap-keys");
    let run = trained_run(&temp, "mmap");
    truncate_to_half(&Path::new(&run).join("store").join("mmap-keys.dat"));
    every_command_refuses(&run, "mmap", "mmap-keys.dat");
}

#[test]
fn a_truncated_lmdb_file_is_an_error_not_sigbus() {
    let temp = TempDir::new("damage-lmdb-cut");
    let run = trained_run(&temp, "lmdb");
    truncate_to_half(&Path::new(&run).join("store").join("lmdb").join("data.mdb"));
    every_command_refuses(&run, "lmdb", "data.mdb");
}

#[test]
fn an_emptied_or_deleted_lmdb_file_is_refused() {
    let temp = TempDir::new("damage-lmdb-empty");
    let run = trained_run(&temp, "lmdb");
    let data = Path::new(&run).join("store").join("lmdb").join("data.mdb");
    std::fs::write(&data, b"").unwrap();
    every_command_refuses(&run, "lmdb", "data.mdb");
    std::fs::remove_file(&data).unwrap();
    every_command_refuses(&run, "lmdb", "data.mdb");
}

#[test]
fn flipped_lmdb_records_are_refused() {
    let temp = TempDir::new("damage-lmdb-flip");
    let run = trained_run(&temp, "lmdb");
    let data = Path::new(&run).join("store").join("lmdb").join("data.mdb");
    // Flip 16 bytes of the first record value on every leaf page (LMDB
    // copies pages on write, so stale copies are flipped too, and the live
    // ones among them).
    let bytes = std::fs::read(&data).unwrap();
    let word = |at: usize| usize::from(u16::from_le_bytes([bytes[at], bytes[at + 1]]));
    let mut flipped = 0;
    for (index, page) in bytes.chunks_exact(4096).enumerate() {
        let (flags, lower) = (word(index * 4096 + 10), word(index * 4096 + 12));
        if flags & 0x02 == 0 || lower <= 16 {
            continue;
        }
        // The first node: 8 bytes of header (sizes, flags, key size),
        // then the key, then the value.
        let node = word(index * 4096 + 16);
        let key_size = word(index * 4096 + node + 6);
        if key_size == 16 && node + 8 + 16 + 16 <= page.len() {
            flip(&data, index * 4096 + node + 8 + 16, 16);
            flipped += 1;
        }
    }
    assert!(flipped > 0, "no record value found to flip");
    every_command_refuses(&run, "lmdb", "data.mdb");
}

#[test]
fn a_damaged_memory_snapshot_is_refused() {
    let temp = TempDir::new("damage-memory");
    let run = trained_run(&temp, "memory");
    let snapshot = std::fs::read_dir(Path::new(&run).join("store"))
        .unwrap()
        .flatten()
        .map(|entry| entry.path())
        .find(|path| path.to_string_lossy().contains("memory-snapshot-"))
        .unwrap();
    flip(&snapshot, 1000, 4);
    every_command_refuses(&run, "memory", "memory-snapshot-");
}

/// Sets the store manifest's format version and, if given, the committed
/// iteration count, as a build before 64-bit stamps would have left them.
fn rewrite_manifest(run: &str, version: u64, iterations: Option<u64>) {
    let path = Path::new(run).join("store").join("store-manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    manifest["format_version"] = version.into();
    if let Some(iterations) = iterations {
        manifest["state"]["iterations"] = iterations.into();
    }
    std::fs::write(&path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap();
}

/// Stores written before the stamps went past 2^32 iterations (format 2)
/// stamp exact iterations; this build reads a stamp from 2^31 on as a step
/// of 1,024. Below 2^31 the two agree, so such a store resumes and its next
/// checkpoint is the current format; a run past 2^31 is refused by name
/// before it trains, rather than discounted wrongly.
#[test]
fn an_old_store_resumes_below_2_to_the_31_iterations_and_is_refused_past_it() {
    let temp = TempDir::new("old-stamps");
    let run = trained_run(&temp, "memory");
    let resume = || {
        trainer(&[
            "train",
            "--phase",
            "bidding",
            "--store",
            "memory",
            "--threads",
            "1",
            "--iterations",
            "100",
            "--run-dir",
            &run,
        ])
    };
    rewrite_manifest(&run, 2, None);
    let resumed = ok(&resume());
    assert!(
        resumed.contains("iteration 500") || resumed.contains("500"),
        "{resumed}"
    );
    let manifest =
        std::fs::read_to_string(Path::new(&run).join("store/store-manifest.json")).unwrap();
    assert!(
        manifest.contains(&format!("\"format_version\": {}", store::FORMAT_VERSION)),
        "{manifest}"
    );

    rewrite_manifest(&run, 2, Some((1 << 31) + 5));
    let message = refused(&resume());
    for needed in [
        "2147483653",
        "format 2",
        "2,147,483,648",
        "build that wrote it",
    ] {
        assert!(message.contains(needed), "no `{needed}` in: {message}");
    }
}
