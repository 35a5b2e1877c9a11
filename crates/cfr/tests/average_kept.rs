//! A game may keep no average strategy at some decisions
//! ([`cfr::Game::keeps_average`]): another player's visit there then reads
//! the record and writes nothing, and training is otherwise unchanged.

use cfr::games::kuhn::Kuhn;
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::{Game, Schedule, WarmStart};
mod common;

use common::{Hooked, sorted_records};
use store::MemoryTable;

fn train<G: Game>(root: G, warm_start: Option<WarmStart>, iterations: u64) -> MemoryTable {
    let table = MemoryTable::new();
    ExternalSampling::new(root, &table, Schedule::VANILLA, 7, 1)
        .unwrap()
        .with_warm_start(warm_start)
        .unwrap()
        .run(1, iterations)
        .unwrap();
    table
}

/// The regrets are the plain run's bit for bit (the same draws from the
/// same current strategies; vanilla CFR has no discount to catch up), and
/// no strategy sum is ever written.
#[test]
fn keeping_no_average_writes_no_sums_and_leaves_the_regrets_as_they_were() {
    let plain = sorted_records(&train(Leduc::new(), None, 3_000));
    let without = sorted_records(&train(
        Hooked {
            keeps_average: |_| false,
            ..Hooked::new(Leduc::new())
        },
        None,
        3_000,
    ));
    assert_eq!(plain.len(), without.len());
    assert!(
        plain
            .iter()
            .any(|(_, record)| record.strategy_sum.iter().any(|&s| s > 0.0))
    );
    for ((key, kept), (same_key, not_kept)) in plain.iter().zip(&without) {
        assert_eq!(key, same_key);
        assert_eq!(
            kept.regrets.map(f32::to_bits),
            not_kept.regrets.map(f32::to_bits)
        );
        assert!(
            not_kept.strategy_sum.iter().all(|&s| s == 0.0),
            "{key}: {not_kept:?}"
        );
    }
}

/// A warm start still seeds a fresh record at its first visit, whoever
/// makes it; afterwards the seed is all its sums hold.
#[test]
fn a_warm_start_still_seeds_a_record_that_keeps_no_average() {
    let warm = WarmStart {
        regret: 1.0,
        strategy_weight: 2.0,
    };
    let table = train(
        Hooked {
            suggested: |_| Some(0),
            keeps_average: |_| false,
            ..Hooked::new(Kuhn::new())
        },
        Some(warm),
        500,
    );
    let records = sorted_records(&table);
    assert_eq!(records.len(), 12, "every Kuhn infostate");
    for (key, record) in records {
        assert_eq!(record.strategy_sum[..2], [2.0, 0.0], "{key}");
    }
}
