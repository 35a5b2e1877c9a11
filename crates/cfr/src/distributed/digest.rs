//! A digest of a replica that does not depend on slot order, so replicas
//! on different backends (an mmap file on rank 0, memory elsewhere) that
//! hold the same records have the same digest.

use store::{Record, StoreError, Table};

/// Sums a 64-bit hash of each trained record (key, values and last
/// iteration, by their bits). Records never updated are skipped: a
/// fixed-universe backend holds every key from the start, a growable one
/// only those it has seen.
pub fn replica_digest<T: Table + ?Sized>(table: &T) -> Result<(u64, u64), StoreError> {
    digest(table, true)
}

/// [`replica_digest`], of the strategy sums too or not.
pub(super) fn digest<T: Table + ?Sized>(
    table: &T,
    with_sums: bool,
) -> Result<(u64, u64), StoreError> {
    let width = table.max_actions();
    let mut digest = 0u64;
    let mut records = 0u64;
    table.for_each(&mut |key, record| {
        if record.stamp != 0 {
            digest = digest.wrapping_add(record_hash(key, record, width, with_sums));
            records += 1;
        }
    })?;
    Ok((digest, records))
}

fn record_hash(key: u128, record: &Record, width: usize, with_sums: bool) -> u64 {
    let mut hash = mix(key as u64 ^ mix((key >> 64) as u64));
    let sums: &[f32] = if with_sums {
        &record.strategy_sum[..width]
    } else {
        &[]
    };
    let values = record.regrets[..width].iter().chain(sums);
    for value in values {
        hash = mix(hash ^ u64::from(value.to_bits()));
    }
    mix(hash ^ u64::from(record.stamp))
}

/// SplitMix64's finaliser: every input bit moves every output bit.
pub(super) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
