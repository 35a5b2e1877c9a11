//! Warm starts: a good suggestion makes the first iterations' average
//! strategy better, a bad one still converges, and a seed of nothing is
//! the plain run bit for bit.

use cfr::best_response::exploitability;
use cfr::games::kuhn::{Kuhn, equilibrium};
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use cfr::{Game, Schedule, WarmStart};
mod common;

use common::{Hooked, sorted_records};
use store::MemoryTable;

/// The most likely action of Kuhn's pure-as-can-be equilibrium (alpha 0).
fn kuhn_equilibrium_move(game: &Kuhn) -> usize {
    let mut strategy = [0.0; 2];
    equilibrium(0.0, game.info_key(), &mut strategy);
    usize::from(strategy[1] > strategy[0])
}

fn train<G: Game>(
    root: G,
    warm_start: Option<WarmStart>,
    seed: u64,
    iterations: u64,
) -> MemoryTable {
    let table = MemoryTable::new();
    ExternalSampling::new(root, &table, Schedule::VANILLA, seed, 1)
        .unwrap()
        .with_warm_start(warm_start)
        .unwrap()
        .run(1, iterations)
        .unwrap();
    table
}

/// Early on, most of an average strategy is its first visits; a seed
/// from a good player is worth many of them. (Measured: after 10
/// iterations, 1.33 summed over the seeds against 2.56 cold.)
#[test]
fn a_good_suggestion_makes_the_early_average_less_exploitable() {
    let tree = Tree::build(&Kuhn::new()).unwrap();
    let warm = WarmStart {
        regret: 1.0,
        strategy_weight: 2.0,
    };
    let suggesting = Hooked {
        suggested: |game| Some(kuhn_equilibrium_move(game)),
        ..Hooked::new(Kuhn::new())
    };
    let (mut cold_total, mut warm_total) = (0.0, 0.0);
    for seed in 1..=8 {
        let cold = train(Kuhn::new(), None, seed, 10);
        let seeded = train(suggesting.clone(), Some(warm), seed, 10);
        cold_total += exploitability(&tree, &AveragePolicy::load(&cold).unwrap()).unwrap();
        warm_total += exploitability(&tree, &AveragePolicy::load(&seeded).unwrap()).unwrap();
    }
    assert!(
        warm_total < 0.7 * cold_total,
        "warm {warm_total}, cold {cold_total} (summed over 8 seeds)"
    );
}

/// A seed is one bounded addition to the first visit: a suggestion that
/// always folds, weighted heavily, still washes out.
#[test]
fn a_bad_suggestion_still_converges() {
    let tree = Tree::build(&Leduc::new()).unwrap();
    let always_first = Hooked {
        suggested: |_| Some(0),
        ..Hooked::new(Leduc::new())
    };
    let warm = WarmStart {
        regret: 20.0,
        strategy_weight: 20.0,
    };
    let table = train(always_first, Some(warm), 42, 100_000);
    let seeded = exploitability(&tree, &AveragePolicy::load(&table).unwrap()).unwrap();
    // OpenSpiel's external sampling reaches 0.065 after 100k iterations.
    assert!(seeded <= 0.07, "warm-started Leduc at {seeded}");
}

#[test]
fn a_seed_of_nothing_is_the_plain_run_bit_for_bit() {
    let nothing = WarmStart {
        regret: 0.0,
        strategy_weight: 0.0,
    };
    let suggesting = Hooked {
        suggested: |_| Some(1),
        ..Hooked::new(Leduc::new())
    };
    let plain = sorted_records(&train(Leduc::new(), None, 7, 2_000));
    let seeded = sorted_records(&train(suggesting, Some(nothing), 7, 2_000));
    assert_eq!(plain.len(), seeded.len());
    for ((key, a), (other, b)) in plain.iter().zip(&seeded) {
        assert_eq!(key, other);
        assert_eq!(
            (
                a.regrets.map(f32::to_bits),
                a.strategy_sum.map(f32::to_bits)
            ),
            (
                b.regrets.map(f32::to_bits),
                b.strategy_sum.map(f32::to_bits)
            ),
            "{key:?}"
        );
    }
}

#[test]
fn a_bad_warm_start_is_refused() {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Kuhn::new(), &table, Schedule::VANILLA, 1, 1).unwrap();
    let refused = solver.with_warm_start(Some(WarmStart {
        regret: -1.0,
        strategy_weight: 1.0,
    }));
    assert!(refused.is_err());
}
