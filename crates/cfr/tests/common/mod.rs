//! Helpers shared by the solver's integration tests.

#[allow(dead_code)] // not every test file hooks a game
mod hooked;
#[allow(unused_imports)]
pub(crate) use hooked::Hooked;

use store::{Key, MemoryTable, Record, Table};

/// Every record of `table`, in key order.
pub(crate) fn sorted_records(table: &MemoryTable) -> Vec<(Key, Record)> {
    let mut rows = Vec::new();
    table
        .for_each(&mut |key, record: &Record| rows.push((key, *record)))
        .unwrap();
    rows.sort_by_key(|(key, _)| *key);
    rows
}

/// Every record's regrets and strategy sums as bits, in key order: equal
/// only when two runs computed the same floats.
#[allow(dead_code)] // not every test file compares bits
pub(crate) fn record_bits(table: &MemoryTable) -> Vec<(Key, Vec<u32>)> {
    sorted_records(table)
        .into_iter()
        .map(|(key, record)| {
            let bits = record
                .regrets
                .iter()
                .chain(&record.strategy_sum)
                .map(|value| value.to_bits())
                .collect();
            (key, bits)
        })
        .collect()
}
