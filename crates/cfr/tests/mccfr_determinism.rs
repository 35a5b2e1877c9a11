//! Reproducibility, resumption and lost-update freedom of parallel MCCFR.

use cfr::Schedule;
use cfr::best_response::exploitability;
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use store::{Key, MemoryTable, Record, Table};

fn snapshot(table: &MemoryTable) -> Vec<(Key, Record)> {
    let mut rows = Vec::new();
    table
        .for_each(&mut |key, record| rows.push((key, *record)))
        .unwrap();
    rows.sort_by_key(|(key, _)| *key);
    rows
}

fn bits(rows: &[(Key, Record)]) -> Vec<(Key, Vec<u32>, u32)> {
    rows.iter()
        .map(|(key, record)| {
            let values = record
                .regrets
                .iter()
                .chain(&record.strategy_sum)
                .map(|v| v.to_bits())
                .collect();
            (*key, values, record.stamp)
        })
        .collect()
}

#[test]
fn one_thread_with_a_fixed_seed_is_bit_for_bit_reproducible() {
    for schedule in [Schedule::VANILLA, Schedule::DCFR, Schedule::CFR_PLUS] {
        let run = || {
            let table = MemoryTable::new();
            ExternalSampling::new(Leduc::new(), &table, schedule, 9, 1)
                .unwrap()
                .run(1, 5_000)
                .unwrap();
            bits(&snapshot(&table))
        };
        assert_eq!(run(), run(), "{schedule:?}");
    }
}

#[test]
fn stopping_and_resuming_equals_one_run() {
    for schedule in [Schedule::VANILLA, Schedule::DCFR] {
        let whole = MemoryTable::new();
        ExternalSampling::new(Leduc::new(), &whole, schedule, 5, 1)
            .unwrap()
            .run(1, 4_000)
            .unwrap();
        let halves = MemoryTable::new();
        // A new solver for the second half, as after a restart: only the
        // table and the seed carry over.
        ExternalSampling::new(Leduc::new(), &halves, schedule, 5, 1)
            .unwrap()
            .run(1, 2_000)
            .unwrap();
        ExternalSampling::new(Leduc::new(), &halves, schedule, 5, 1)
            .unwrap()
            .run(2_001, 2_000)
            .unwrap();
        assert_eq!(
            bits(&snapshot(&whole)),
            bits(&snapshot(&halves)),
            "{schedule:?}"
        );
    }
}

#[test]
fn different_seeds_differ() {
    let run = |seed| {
        let table = MemoryTable::new();
        ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, seed, 1)
            .unwrap()
            .run(1, 500)
            .unwrap();
        bits(&snapshot(&table))
    };
    assert_ne!(run(1), run(2));
}

#[test]
fn two_threads_lose_no_update() {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 17, 2).unwrap();
    assert_eq!(solver.threads(), 2);
    let stats = solver.run(1, 50_000).unwrap();
    // Without discounting, every strategy update adds a distribution summing
    // to 1: the table's total mass must equal the number of updates.
    let mut mass = 0.0f64;
    table
        .for_each(&mut |_, record| {
            mass += record
                .strategy_sum
                .iter()
                .map(|&s| f64::from(s))
                .sum::<f64>();
        })
        .unwrap();
    let expected = stats.strategy_updates as f64;
    assert!(
        (mass - expected).abs() / expected < 1e-4,
        "mass {mass} vs {expected} updates"
    );
    // And the parallel run still converges.
    let tree = Tree::build(&Leduc::new()).unwrap();
    let exploitability = exploitability(&tree, &AveragePolicy::load(&table).unwrap()).unwrap();
    assert!(exploitability < 0.1, "{exploitability}");
}

#[test]
fn bad_schedules_are_clear_errors() {
    let table = MemoryTable::new();
    let error = ExternalSampling::new(Leduc::new(), &table, Schedule::dcfr(0.1, 0.0, 2.0), 1, 1)
        .unwrap_err();
    assert!(error.to_string().contains("alpha = 0.1"), "{error}");
}

/// Records stamp their last iteration in 32 bits (`store::stamp`): the
/// last iteration a stamp holds trains, the next is refused by name
/// instead of stamped wrongly (a wrong stamp would discount every record it
/// touches wrongly).
#[test]
fn an_iteration_past_the_stamps_limit_is_refused_not_wrapped() {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 9, 1).unwrap();
    let last = cfr::mccfr::LAST_ITERATION;
    solver
        .iteration(last)
        .expect("the last iteration a stamp holds");
    let error = solver.iteration(last + 1).unwrap_err();
    assert!(
        matches!(error, cfr::CfrError::IterationLimit(n) if n == last + 1),
        "{error}"
    );
    assert!(error.to_string().contains(&last.to_string()), "{error}");
    let error = solver.run(last, 2).unwrap_err();
    assert!(matches!(error, cfr::CfrError::IterationLimit(_)), "{error}");
}

/// Past 2^31 iterations, where 32-bit stamps used to end in a wall at
/// 2^32, a run goes on: a stretch across 2^31 and one across 2^32 train,
/// every record they touch stamped at or after the stretch's start.
#[test]
fn a_run_trains_across_2_to_the_31_and_2_to_the_32() {
    for first in [(1u64 << 31) - 300, (1u64 << 32) - 300] {
        let table = MemoryTable::new();
        let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::LINEAR, 9, 1).unwrap();
        solver.run(first, 600).unwrap();
        let mut trained = 0;
        table
            .for_each(&mut |_, record| {
                if record.stamp != 0 {
                    trained += 1;
                    assert!(store::stamp::decode(record.stamp) >= first);
                    assert!(record.regrets.iter().all(|r| r.is_finite()));
                }
            })
            .unwrap();
        assert!(trained > 100, "{first}: {trained} records trained");
    }
}
