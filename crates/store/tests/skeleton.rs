//! A store made from a copy of another's skeleton (its keys file and
//! perfect hash) is the store a build from the key universe makes, slot for
//! slot and byte for byte; a copy that is damaged, or that mixes two
//! stores' files, is refused before any record is written.

use std::path::Path;

use store::{
    ClientState, Fingerprint, KEYS_FILE, Key, MmapTable, PHF_FILE, RECORDS_FILE, RecordEncoding,
    RecordLayout, Skeleton, StoreError, Table, Verify,
};
use test_support::TempDir;

fn layout() -> RecordLayout {
    RecordLayout::new(7, RecordEncoding::I16Scaled).unwrap()
}

fn fingerprint() -> Fingerprint {
    Fingerprint {
        digest: 17,
        description: "skeleton tests".into(),
    }
}

fn keys(offset: u128) -> Vec<Key> {
    (0..20_000u128).map(|i| (i << 4) + offset).collect()
}

fn build(dir: &Path, keys: Vec<Key>) -> MmapTable {
    let universe = vec![keys[..7_000].to_vec(), keys[7_000..].to_vec()];
    MmapTable::open(dir, layout(), fingerprint(), &universe, &mut |_| {}).unwrap()
}

fn copy_skeleton(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for name in [KEYS_FILE, PHF_FILE] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}

fn from_skeleton(dir: &Path, expected: &Skeleton) -> Result<MmapTable, StoreError> {
    MmapTable::build_from_skeleton(dir, layout(), fingerprint(), expected, 3, &mut |_| {})
}

#[test]
fn a_store_made_from_a_copied_skeleton_is_the_built_store_slot_for_slot() {
    let scratch = TempDir::new("same");
    let (built_dir, copy_dir) = (scratch.join("built"), scratch.join("copy"));
    let built = build(&built_dir, keys(1));
    let skeleton = Skeleton::of(&built_dir).unwrap();
    copy_skeleton(&built_dir, &copy_dir);
    let copy = from_skeleton(&copy_dir, &skeleton).unwrap();
    for key in keys(1) {
        assert_eq!(built.slot(key).unwrap(), copy.slot(key).unwrap());
    }
    assert!(
        copy.slot(3).is_err(),
        "a key outside the universe is refused"
    );
    drop((built, copy));
    assert_eq!(
        std::fs::read(built_dir.join(RECORDS_FILE)).unwrap(),
        std::fs::read(copy_dir.join(RECORDS_FILE)).unwrap(),
        "the records files are the same bytes"
    );

    // It reopens, checked in full, trains and checkpoints like any store.
    let reopened = MmapTable::open_verified(
        &copy_dir,
        layout(),
        fingerprint(),
        Vec::<Vec<Key>>::new,
        &mut |_| {},
        Verify::Full,
    )
    .unwrap();
    let slot = reopened.slot(keys(1)[123]).unwrap();
    reopened
        .update(slot, &mut |record| record.regrets[2] = 4.0)
        .unwrap();
    store::DurableTable::checkpoint(&reopened, &ClientState::NONE).unwrap();
}

#[test]
fn a_damaged_copy_is_refused_naming_the_file_and_nothing_is_built() {
    let scratch = TempDir::new("damaged");
    let (built_dir, copy_dir) = (scratch.join("built"), scratch.join("copy"));
    drop(build(&built_dir, keys(1)));
    let skeleton = Skeleton::of(&built_dir).unwrap();
    copy_skeleton(&built_dir, &copy_dir);
    let mut bytes = std::fs::read(copy_dir.join(KEYS_FILE)).unwrap();
    bytes[5_000] ^= 0x40;
    std::fs::write(copy_dir.join(KEYS_FILE), bytes).unwrap();
    let error = from_skeleton(&copy_dir, &skeleton).unwrap_err().to_string();
    assert!(error.contains(KEYS_FILE), "{error}");
    assert!(!copy_dir.join(RECORDS_FILE).exists());

    let short = TempDir::new("short");
    copy_skeleton(&built_dir, &short.0);
    let keys_file = short.join(KEYS_FILE);
    let length = std::fs::metadata(&keys_file).unwrap().len();
    std::fs::File::options()
        .write(true)
        .open(&keys_file)
        .unwrap()
        .set_len(length - 16)
        .unwrap();
    let error = from_skeleton(&short.0, &skeleton).unwrap_err().to_string();
    assert!(error.contains(KEYS_FILE), "{error}");
}

#[test]
fn the_keys_of_one_store_with_the_hash_of_another_are_refused() {
    let scratch = TempDir::new("mixed");
    let (one, other, copy) = (
        scratch.join("one"),
        scratch.join("other"),
        scratch.join("copy"),
    );
    drop(build(&one, keys(1)));
    drop(build(&other, keys(2)));
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(one.join(KEYS_FILE), copy.join(KEYS_FILE)).unwrap();
    std::fs::copy(other.join(PHF_FILE), copy.join(PHF_FILE)).unwrap();
    let mixed = Skeleton {
        keys: Skeleton::of(&one).unwrap().keys,
        phf: Skeleton::of(&other).unwrap().phf,
    };
    let error = from_skeleton(&copy, &mixed).unwrap_err().to_string();
    assert!(error.contains("does not hash to it"), "{error}");
}

#[test]
fn a_directory_without_a_store_has_no_skeleton_and_a_store_is_not_rebuilt() {
    let scratch = TempDir::new("none");
    let error = Skeleton::of(&scratch.0).unwrap_err().to_string();
    assert!(error.contains("no store"), "{error}");
    let built_dir = scratch.join("built");
    drop(build(&built_dir, keys(1)));
    let skeleton = Skeleton::of(&built_dir).unwrap();
    let error = from_skeleton(&built_dir, &skeleton)
        .unwrap_err()
        .to_string();
    assert!(error.contains("already holds a store"), "{error}");
}
