//! The byte layouts that travel between ranks: little-endian, fixed width
//! per entry, so any rank (and any architecture) reads them the same way.

use store::{Key, MAX_ACTIONS, Record};

/// A key and the change to one record's values.
pub(crate) const fn delta_bytes(width: usize) -> usize {
    16 + 8 * width
}

/// A key and one whole record, for copying a replica.
pub(crate) const fn record_bytes(width: usize) -> usize {
    16 + 4 + 8 * width
}

pub(crate) fn put_delta(out: &mut Vec<u8>, key: Key, change: &Record, width: usize) {
    out.extend_from_slice(&key.to_le_bytes());
    put_values(out, change, width);
}

pub(crate) fn put_record(out: &mut Vec<u8>, key: Key, record: &Record, width: usize) {
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&record.last_iteration.to_le_bytes());
    put_values(out, record, width);
}

fn put_values(out: &mut Vec<u8>, record: &Record, width: usize) {
    for value in record.regrets[..width]
        .iter()
        .chain(&record.strategy_sum[..width])
    {
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// The entries of `bytes`, each `(key, record)`; `None` if the length is
/// not a whole number of entries (a peer of another build).
pub(crate) fn deltas(bytes: &[u8], width: usize) -> Option<Vec<(Key, Record)>> {
    entries(bytes, delta_bytes(width), |entry| {
        let mut record = Record::default();
        read_values(&entry[16..], &mut record, width);
        (key_of(entry), record)
    })
}

pub(crate) fn records(bytes: &[u8], width: usize) -> Option<Vec<(Key, Record)>> {
    entries(bytes, record_bytes(width), |entry| {
        let mut record = Record {
            last_iteration: u32::from_le_bytes([entry[16], entry[17], entry[18], entry[19]]),
            ..Record::default()
        };
        read_values(&entry[20..], &mut record, width);
        (key_of(entry), record)
    })
}

fn entries(
    bytes: &[u8],
    size: usize,
    decode: impl Fn(&[u8]) -> (Key, Record),
) -> Option<Vec<(Key, Record)>> {
    if !bytes.len().is_multiple_of(size) {
        return None;
    }
    Some(bytes.chunks_exact(size).map(decode).collect())
}

fn key_of(entry: &[u8]) -> Key {
    let mut key = [0; 16];
    key.copy_from_slice(&entry[..16]);
    Key::from_le_bytes(key)
}

fn read_values(bytes: &[u8], record: &mut Record, width: usize) {
    debug_assert!(width <= MAX_ACTIONS);
    let mut values = bytes
        .chunks_exact(4)
        .map(|v| f32::from_le_bytes([v[0], v[1], v[2], v[3]]));
    for slot in record.regrets[..width]
        .iter_mut()
        .chain(&mut record.strategy_sum[..width])
    {
        *slot = values.next().unwrap_or(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let mut record = Record {
            last_iteration: 77,
            ..Record::default()
        };
        record.regrets[..3].copy_from_slice(&[1.5, -2.0, 0.25]);
        record.strategy_sum[..3].copy_from_slice(&[3.0, 0.0, 9.5]);
        let key = (7u128 << 100) | 12345;
        let mut bytes = Vec::new();
        put_record(&mut bytes, key, &record, 3);
        put_delta(&mut bytes, key, &record, 3);
        let (records_part, deltas_part) = bytes.split_at(record_bytes(3));
        assert_eq!(records(records_part, 3).unwrap(), vec![(key, record)]);
        let delta = Record {
            last_iteration: 0,
            ..record
        };
        assert_eq!(deltas(deltas_part, 3).unwrap(), vec![(key, delta)]);
        assert!(deltas(&bytes[..5], 3).is_none());
    }
}
