use memmap2::MmapOptions;
use test_support::TempDir;

use super::*;
use crate::layout::RecordEncoding;
use crate::mmap::files::{HEADER_BYTES, allocate};

const KEYS: u64 = 5_000;

fn layout() -> RecordLayout {
    RecordLayout::new(5, RecordEncoding::F32).unwrap()
}

fn universe() -> Vec<Vec<Key>> {
    let keys: Vec<Key> = (0..u128::from(KEYS))
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) ^ 0xABCD)
        .collect();
    keys.chunks(700).map(<[Key]>::to_vec).collect()
}

fn hash(chunks: &[Vec<Key>]) -> Mphf<Key> {
    Mphf::from_chunked_iterator_parallel(1.7, &ChunkList(chunks.to_vec()), None, KEYS, 2)
}

/// The records and keys files of a build of [`universe`] in `dir` whose
/// windows are `window_bytes` each.
fn build(dir: &Path, phf: &Mphf<Key>, window_bytes: u64) -> (Vec<u8>, Vec<u8>) {
    let chunks = universe();
    let records_path = dir.join("records");
    let records = allocate(&records_path, HEADER_BYTES + KEYS * layout().bytes()).unwrap();
    let map = MmapOptions::new().map_raw(&records).unwrap();
    let keys_path = dir.join("keys");
    let keys = MmapOptions::new()
        .map_raw(&allocate(&keys_path, KEYS * KEY_BYTES).unwrap())
        .unwrap();
    let files = BuildFiles {
        layout: layout(),
        records: &map,
        keys: &keys,
    };
    let mut stages = Vec::new();
    write_key_checks_and_keys(
        &chunks,
        phf,
        &files,
        dir,
        KEYS,
        2,
        window_bytes,
        &mut |stage| stages.push(stage.to_owned()),
    )
    .unwrap();
    map.flush().unwrap();
    keys.flush().unwrap();
    let windows = KEYS.div_ceil(window_bytes / slot_bytes());
    assert_eq!(
        stages.len() as u64,
        windows,
        "one stage a window: {stages:?}"
    );
    (
        std::fs::read(&records_path).unwrap(),
        std::fs::read(&keys_path).unwrap(),
    )
}

fn slot_bytes() -> u64 {
    window_slot_bytes(layout())
}

#[test]
fn every_key_lands_at_its_slot_in_both_files_when_the_build_takes_many_windows() {
    let dir = TempDir::new("universe-many-windows");
    let phf = hash(&universe());
    let (records, keys) = build(dir.path(), &phf, 600 * slot_bytes());
    for key in universe().into_iter().flatten() {
        let slot = phf.hash(&key);
        let at = (slot * KEY_BYTES) as usize;
        assert_eq!(keys[at..at + 16], key.to_le_bytes(), "key at slot {slot}");
        let check = (HEADER_BYTES + slot * layout().bytes()) as usize;
        assert_eq!(
            records[check..check + 4],
            RecordLayout::key_check(key).to_le_bytes(),
            "check at slot {slot}"
        );
    }
}

#[test]
fn the_files_are_the_same_whatever_the_window() {
    let phf = hash(&universe());
    let one = TempDir::new("universe-one-window");
    let many = TempDir::new("universe-nine-windows");
    let whole = build(one.path(), &phf, MIN_WINDOW_BYTES);
    let windowed = build(many.path(), &phf, KEYS.div_ceil(9) * slot_bytes());
    assert!(whole.0 == windowed.0, "the records files differ");
    assert!(whole.1 == windowed.1, "the keys files differ");
}

#[test]
fn the_spill_is_removed_when_the_build_ends_and_a_killed_builds_is_replaced() {
    let dir = TempDir::new("universe-spill-removed");
    let left_behind = dir.join(SPILL_DIR);
    std::fs::create_dir(&left_behind).unwrap();
    std::fs::write(left_behind.join("window-0.bin"), b"a killed build's bytes").unwrap();
    let phf = hash(&universe());
    let (_, keys) = build(dir.path(), &phf, 1_000 * slot_bytes());
    assert!(!left_behind.exists(), "the spill directory is left behind");
    assert!(
        keys.chunks_exact(16).all(|key| key != [0; 16]),
        "every slot has its key"
    );
}

#[test]
fn a_spilled_offset_outside_its_window_is_refused_before_anything_is_written() {
    let dir = TempDir::new("universe-bad-offset");
    let records_path = dir.join("records");
    let records = allocate(&records_path, HEADER_BYTES + 10 * layout().bytes()).unwrap();
    let map = MmapOptions::new().map_raw(&records).unwrap();
    let keys_path = dir.join("keys");
    let keys = MmapOptions::new()
        .map_raw(&allocate(&keys_path, 10 * KEY_BYTES).unwrap())
        .unwrap();
    let files = BuildFiles {
        layout: layout(),
        records: &map,
        keys: &keys,
    };
    let window = Window::open(&files, 5..10, 2);
    let mut spilled = Vec::new();
    for (offset, key) in [(1u32, 7u128), (5, 9)] {
        spilled.extend_from_slice(&offset.to_le_bytes());
        spilled.extend_from_slice(&key.to_le_bytes());
    }
    let reason = scatter(&spilled, &window, 2).unwrap_err();
    assert!(reason.contains("offset 5"), "{reason}");
    map.flush().unwrap();
    keys.flush().unwrap();
    let written = |path: &Path| std::fs::read(path).unwrap().iter().any(|&byte| byte != 0);
    assert!(!written(&records_path), "a check was written");
    assert!(!written(&keys_path), "a key was written");
}

#[test]
#[should_panic(expected = "beyond its files")]
fn a_window_beyond_its_files_is_refused_before_any_write() {
    let dir = TempDir::new("universe-window-beyond");
    let records = allocate(&dir.join("records"), HEADER_BYTES + 10 * layout().bytes()).unwrap();
    let map = MmapOptions::new().map_raw(&records).unwrap();
    let keys = MmapOptions::new()
        .map_raw(&allocate(&dir.join("keys"), 10 * KEY_BYTES).unwrap())
        .unwrap();
    let files = BuildFiles {
        layout: layout(),
        records: &map,
        keys: &keys,
    };
    Window::open(&files, 5..11, 2);
}

#[test]
fn a_listed_universe_holds_every_key_of_its_chunks_in_order() {
    let chunks = universe();
    let listed = list_keys(&chunks, KEYS, 2, Path::new("store")).unwrap();
    assert_eq!(listed, chunks.concat());
}

#[test]
fn a_universe_that_miscounts_its_keys_is_refused_by_name() {
    let error = list_keys(&universe(), KEYS + 1, 2, Path::new("store")).unwrap_err();
    assert!(
        matches!(&error, StoreError::Corrupt { reason, .. } if reason.contains("holds 5001 keys but its chunks hold 5000")),
        "{error}"
    );
}
