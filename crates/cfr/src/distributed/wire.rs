//! The byte layouts that travel between ranks: little-endian, fixed width
//! per entry, so any rank (and any architecture) reads them the same way.

use store::{Key, MAX_ACTIONS, Record};

/// Which of a record's values a delta carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Values {
    /// Regrets and strategy sums.
    Both,
    /// Regrets only: the strategy sums wait for a settle.
    Regrets,
    /// Strategy sums only: a settle.
    StrategySums,
}

impl Values {
    const fn count(self, width: usize) -> usize {
        match self {
            Values::Both => 2 * width,
            Values::Regrets | Values::StrategySums => width,
        }
    }

    fn of(self, record: &Record, width: usize) -> impl Iterator<Item = &f32> {
        let regrets = &record.regrets[..width];
        let sums = &record.strategy_sum[..width];
        let (first, second): (&[f32], &[f32]) = match self {
            Values::Both => (regrets, sums),
            Values::Regrets => (regrets, &[]),
            Values::StrategySums => (sums, &[]),
        };
        first.iter().chain(second)
    }

    fn of_mut(self, record: &mut Record, width: usize) -> impl Iterator<Item = &mut f32> {
        let Record {
            regrets,
            strategy_sum,
            ..
        } = record;
        let (first, second): (&mut [f32], &mut [f32]) = match self {
            Values::Both => (&mut regrets[..width], &mut strategy_sum[..width]),
            Values::Regrets => (&mut regrets[..width], &mut []),
            Values::StrategySums => (&mut strategy_sum[..width], &mut []),
        };
        first.iter_mut().chain(second)
    }
}

/// A key and the change to one record's `values`.
pub(crate) const fn delta_bytes(width: usize, values: Values) -> usize {
    16 + 4 * values.count(width)
}

/// A key and one whole record, for copying a replica.
pub(crate) const fn record_bytes(width: usize) -> usize {
    16 + 4 + 8 * width
}

pub(crate) fn put_delta(
    out: &mut Vec<u8>,
    key: Key,
    change: &Record,
    width: usize,
    values: Values,
) {
    out.extend_from_slice(&key.to_le_bytes());
    for value in values.of(change, width) {
        out.extend_from_slice(&value.to_le_bytes());
    }
}

pub(crate) fn put_record(out: &mut Vec<u8>, key: Key, record: &Record, width: usize) {
    out.extend_from_slice(&key.to_le_bytes());
    out.extend_from_slice(&record.stamp.to_le_bytes());
    for value in Values::Both.of(record, width) {
        out.extend_from_slice(&value.to_le_bytes());
    }
}

/// The entries of `bytes`, each `(key, record)`; `None` if the length is
/// not a whole number of entries (a peer of another build).
#[cfg(test)]
pub(crate) fn deltas(bytes: &[u8], width: usize, values: Values) -> Option<Vec<(Key, Record)>> {
    entries(bytes, delta_bytes(width, values), |entry| {
        delta(entry, width, values)
    })
}

/// One entry of [`delta_bytes`]`(width, values)` bytes: its key and its
/// change. The apply decodes a sync's entries one by one on every core.
pub(crate) fn delta(entry: &[u8], width: usize, values: Values) -> (Key, Record) {
    let mut record = Record::default();
    read_values(&entry[16..], &mut record, width, values);
    (key_of(entry), record)
}

pub(crate) fn records(bytes: &[u8], width: usize) -> Option<Vec<(Key, Record)>> {
    entries(bytes, record_bytes(width), |entry| {
        let mut record = Record {
            stamp: u32::from_le_bytes([entry[16], entry[17], entry[18], entry[19]]),
            ..Record::default()
        };
        read_values(&entry[20..], &mut record, width, Values::Both);
        (key_of(entry), record)
    })
}

/// The keys of the delta entries in `bytes` (whole entries, as
/// [`deltas`] checked).
pub(crate) fn delta_keys(bytes: &[u8], width: usize, values: Values) -> impl Iterator<Item = Key> {
    bytes.chunks_exact(delta_bytes(width, values)).map(key_of)
}

/// `parts` in one buffer: each one's length (8 bytes, little-endian),
/// then its bytes.
#[cfg(test)]
pub(crate) fn sections(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        push_section(&mut out, part);
    }
    out
}

/// Appends `part` to a buffer of sections.
pub(crate) fn push_section(out: &mut Vec<u8>, part: &[u8]) {
    out.extend_from_slice(&(part.len() as u64).to_le_bytes());
    out.extend_from_slice(part);
}

/// A buffer whose first section is written in place (no copy of a large
/// part): append the part's bytes, then [`close_first_section`].
pub(crate) fn open_first_section() -> Vec<u8> {
    vec![0; 8]
}

/// Writes the length of the first section, which runs to the buffer's end.
pub(crate) fn close_first_section(out: &mut [u8]) {
    let length = (out.len() - 8) as u64;
    out[..8].copy_from_slice(&length.to_le_bytes());
}

/// The parts [`sections`] joined; `None` if `bytes` is not such a buffer.
pub(crate) fn split_sections(mut bytes: &[u8]) -> Option<Vec<&[u8]>> {
    let mut parts = Vec::new();
    while !bytes.is_empty() {
        let (length, rest) = bytes.split_first_chunk::<8>()?;
        let length = usize::try_from(u64::from_le_bytes(*length)).ok()?;
        if length > rest.len() {
            return None;
        }
        let (part, rest) = rest.split_at(length);
        parts.push(part);
        bytes = rest;
    }
    Some(parts)
}

/// A count sent as 8 little-endian bytes; `None` if `bytes` is not one.
pub(crate) fn count(bytes: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// Keys alone, 16 bytes each.
pub(crate) fn put_keys(out: &mut Vec<u8>, keys: &[Key]) {
    out.reserve(16 * keys.len());
    for key in keys {
        out.extend_from_slice(&key.to_le_bytes());
    }
}

/// The keys of `bytes`; `None` if it is not a whole number of keys.
pub(crate) fn keys(bytes: &[u8]) -> Option<Vec<Key>> {
    bytes
        .len()
        .is_multiple_of(16)
        .then(|| bytes.chunks_exact(16).map(key_of).collect())
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

fn read_values(bytes: &[u8], record: &mut Record, width: usize, values: Values) {
    debug_assert!(width <= MAX_ACTIONS);
    let mut read = bytes
        .chunks_exact(4)
        .map(|v| f32::from_le_bytes([v[0], v[1], v[2], v[3]]));
    for slot in values.of_mut(record, width) {
        *slot = read.next().unwrap_or(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip() {
        let mut record = Record {
            stamp: 77,
            ..Record::default()
        };
        record.regrets[..3].copy_from_slice(&[1.5, -2.0, 0.25]);
        record.strategy_sum[..3].copy_from_slice(&[3.0, 0.0, 9.5]);
        let key = (7u128 << 100) | 12345;
        let mut bytes = Vec::new();
        put_record(&mut bytes, key, &record, 3);
        put_delta(&mut bytes, key, &record, 3, Values::Both);
        let (records_part, deltas_part) = bytes.split_at(record_bytes(3));
        assert_eq!(records(records_part, 3).unwrap(), vec![(key, record)]);
        let delta = Record { stamp: 0, ..record };
        assert_eq!(
            deltas(deltas_part, 3, Values::Both).unwrap(),
            vec![(key, delta)]
        );
        assert!(deltas(&bytes[..5], 3, Values::Both).is_none());
    }

    #[test]
    fn sections_round_trip() {
        let joined = sections(&[b"abc", b"", b"de"]);
        assert_eq!(
            split_sections(&joined).unwrap(),
            vec![&b"abc"[..], &b""[..], &b"de"[..]]
        );
        assert!(split_sections(&joined[..joined.len() - 1]).is_none());
        assert!(split_sections(&joined[..3]).is_none());
    }

    #[test]
    fn keys_round_trip() {
        let sent = [1u128, u128::MAX, 7 << 100];
        let mut bytes = Vec::new();
        put_keys(&mut bytes, &sent);
        assert_eq!(keys(&bytes).unwrap(), sent);
        assert!(keys(&bytes[..17]).is_none());
        let mut deltas = Vec::new();
        for &key in &sent {
            put_delta(
                &mut deltas,
                key,
                &Record::default(),
                3,
                Values::StrategySums,
            );
        }
        let found: Vec<Key> = delta_keys(&deltas, 3, Values::StrategySums).collect();
        assert_eq!(found, sent);
    }

    #[test]
    fn a_delta_of_one_half_carries_that_half_only() {
        let mut record = Record::default();
        record.regrets[..2].copy_from_slice(&[1.5, -2.0]);
        record.strategy_sum[..2].copy_from_slice(&[3.0, 9.5]);
        for (values, regrets, sums) in [
            (Values::Regrets, [1.5, -2.0], [0.0, 0.0]),
            (Values::StrategySums, [0.0, 0.0], [3.0, 9.5]),
        ] {
            let mut bytes = Vec::new();
            put_delta(&mut bytes, 9, &record, 2, values);
            assert_eq!(bytes.len(), delta_bytes(2, values));
            assert_eq!(bytes.len(), 16 + 8);
            let (key, back) = deltas(&bytes, 2, values).unwrap().remove(0);
            assert_eq!(key, 9);
            assert_eq!(&back.regrets[..2], &regrets);
            assert_eq!(&back.strategy_sum[..2], &sums);
        }
    }
}
