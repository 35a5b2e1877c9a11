//! Regret-based pruning: it skips work, the solver still converges, and a
//! run whose pruning is not yet due is the run without it, bit for bit.

use cfr::best_response::exploitability;
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use cfr::{Pruning, Schedule};
mod common;

use common::record_bits;
use store::MemoryTable;

/// Trains Leduc for `iterations` on one thread; returns the table, the
/// exploitability of its average strategy and the actions pruned.
fn train(pruning: Option<Pruning>, iterations: u64) -> (MemoryTable, f64, u64) {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 42, 1)
        .unwrap()
        .with_pruning(pruning)
        .unwrap();
    let stats = solver.run(1, iterations).unwrap();
    let tree = Tree::build(&Leduc::new()).unwrap();
    let exploitability = exploitability(&tree, &AveragePolicy::load(&table).unwrap()).unwrap();
    (table, exploitability, stats.pruned_actions)
}

/// Pruning trades accuracy for speed, and the threshold sets the price. An
/// action only 100 chips behind is often one a mixed equilibrium still
/// needs; explored in 5% of iterations it climbs back 20 times slower, and
/// Leduc ends several times more exploitable. An action 10,000 chips behind
/// (regrets here are sums over tens of thousands of visits) is truly
/// hopeless: skipping it costs nothing measurable.
#[test]
fn deep_thresholds_prune_without_cost_and_shallow_ones_cost_convergence() {
    let pruning = |threshold| {
        Some(Pruning {
            after: 10_000,
            share: 0.95,
            threshold,
        })
    };
    let (_, unpruned, none) = train(None, 100_000);
    let (_, deep, deep_skips) = train(pruning(-10_000.0), 100_000);
    let (_, shallow, shallow_skips) = train(pruning(-100.0), 100_000);
    assert_eq!(none, 0);
    assert!(deep_skips > 10_000, "only {deep_skips} actions pruned");
    assert!(shallow_skips > deep_skips);
    // OpenSpiel's external sampling reaches 0.065 after 100k iterations.
    assert!(unpruned <= 0.07, "unpruned {unpruned}");
    assert!(deep <= 0.07, "deep {deep} (unpruned {unpruned})");
    assert!(
        shallow > 2.0 * unpruned,
        "shallow {shallow} (unpruned {unpruned})"
    );
}

#[test]
fn pruning_that_is_not_yet_due_changes_nothing() {
    let later = Pruning {
        after: 1_000_000,
        share: 0.95,
        threshold: -1.0,
    };
    let (plain, _, _) = train(None, 3_000);
    let (waiting, _, skipped) = train(Some(later), 3_000);
    assert_eq!(skipped, 0);
    assert_eq!(record_bits(&plain), record_bits(&waiting));
}

#[test]
fn bad_pruning_is_refused_before_training() {
    let table = MemoryTable::new();
    let error = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 1, 1)
        .unwrap()
        .with_pruning(Some(Pruning {
            after: 0,
            share: 0.95,
            threshold: 2.0,
        }))
        .expect_err("a positive threshold was accepted");
    assert!(error.to_string().contains("threshold 2"), "{error}");
}
