//! What a cluster rank that trains in place asks of its store: a record
//! copied out and put back is the record as stored, byte for byte, after
//! any change in between; and a slot names its key, read from the keys
//! file and checked, so a keys file from another store is an error, never
//! a wrong key.

use std::path::Path;

use store::{
    Fingerprint, KEYS_FILE, Key, MemoryTable, MmapTable, Record, RecordEncoding, RecordLayout,
    StoreError, Table,
};
use test_support::TempDir;

fn keys(offset: u128) -> Vec<Key> {
    (0..5_000u128).map(|i| (i << 8) + offset).collect()
}

fn mmap(dir: &Path, keys: Vec<Key>, digest: u64) -> MmapTable {
    let layout = RecordLayout::new(7, RecordEncoding::I16Scaled).unwrap();
    let fingerprint = Fingerprint {
        digest,
        description: "exact records tests".into(),
    };
    MmapTable::open(dir, layout, fingerprint, &vec![keys], &mut |_| {}).unwrap()
}

/// Values of many magnitudes and signs, so the i16 layout's scales vary.
fn values(seed: u64) -> Record {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let exponent = (state % 40) as i32 - 20;
        let sign = if state & (1 << 40) == 0 { 1.0 } else { -1.0 };
        sign * (state >> 44) as f32 / (1u64 << 20) as f32 * 2f32.powi(exponent)
    };
    let mut record = Record {
        stamp: 1 + (seed % 1_000) as u32,
        ..Record::default()
    };
    for action in 0..7 {
        record.regrets[action] = next();
        record.strategy_sum[action] = next().abs();
    }
    record
}

/// Writes varied records, copies each out, changes it, puts it back, and
/// checks it is what was copied, as stored and as read.
fn a_record_put_back_is_the_record_as_stored(table: &dyn Table, keys: &[Key]) {
    let exact = table
        .exact_records()
        .expect("this backend puts records back");
    for (seed, &key) in keys.iter().enumerate() {
        let slot = table.slot(key).unwrap();
        let written = values(seed as u64);
        table.update(slot, &mut |record| *record = written).unwrap();
        let (stored, read) = (exact.stored(slot).unwrap(), table.read(slot).unwrap());
        assert_eq!(exact.decode(&stored), read, "key {key}: decoded");
        table
            .update(slot, &mut |record| {
                record.regrets[0] += 1.5;
                record.strategy_sum[3] *= 3.0;
                record.stamp += 7;
            })
            .unwrap();
        assert_ne!(exact.stored(slot).unwrap(), stored, "key {key}: the change");
        exact.put_back(slot, &stored).unwrap();
        assert_eq!(exact.stored(slot).unwrap(), stored, "key {key}: as stored");
        assert_eq!(table.read(slot).unwrap(), read, "key {key}: as read");
    }
}

#[test]
fn a_record_put_back_is_the_record_as_stored_byte_for_byte() {
    let scratch = TempDir::new("put-back");
    let table = mmap(&scratch.join("mmap"), keys(1), 1);
    a_record_put_back_is_the_record_as_stored(&table, &keys(1));
    let memory = MemoryTable::new();
    a_record_put_back_is_the_record_as_stored(&memory, &keys(1));
}

#[test]
fn a_slot_names_its_key() {
    let scratch = TempDir::new("keys");
    let table = mmap(&scratch.join("mmap"), keys(1), 1);
    let memory = MemoryTable::new();
    for key in keys(1) {
        assert_eq!(table.key(table.slot(key).unwrap()).unwrap(), key);
        assert_eq!(memory.key(memory.slot(key).unwrap()).unwrap(), key);
    }
}

#[test]
fn a_keys_file_from_another_store_is_an_error_not_a_wrong_key() {
    let scratch = TempDir::new("foreign");
    let (dir, other) = (scratch.join("mine"), scratch.join("other"));
    let table = mmap(&dir, keys(1), 1);
    drop(mmap(&other, keys(2), 2));
    std::fs::copy(other.join(KEYS_FILE), dir.join(KEYS_FILE)).unwrap();
    let slot = table.slot(keys(1)[10]).unwrap();
    match table.key(slot) {
        Err(StoreError::Corrupt { path, reason }) => {
            assert!(path.ends_with(KEYS_FILE), "{path:?}");
            assert!(reason.contains("another store's"), "{reason}");
        }
        other => panic!("expected the keys file refused, got {other:?}"),
    }
}

#[test]
fn a_truncated_keys_file_is_an_error() {
    let scratch = TempDir::new("truncated");
    let dir = scratch.join("mine");
    let table = mmap(&dir, keys(1), 1);
    std::fs::OpenOptions::new()
        .write(true)
        .open(dir.join(KEYS_FILE))
        .unwrap()
        .set_len(16)
        .unwrap();
    // The file keeps the first slot's key only.
    let beyond = keys(1)
        .into_iter()
        .map(|key| table.slot(key).unwrap())
        .find(|slot| slot.index() > 0)
        .unwrap();
    let error = table.key(beyond).unwrap_err().to_string();
    assert!(error.contains("has no key for record"), "{error}");
}
