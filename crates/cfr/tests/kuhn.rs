//! Kuhn poker: known value -1/18 and a known equilibrium family.

use cfr::best_response::{best_response_value, expected_values, exploitability};
use cfr::exact::solve;
use cfr::games::kuhn::{Kuhn, equilibrium};
use cfr::mccfr::ExternalSampling;
use cfr::policy::{AveragePolicy, FnPolicy};
use cfr::tree::Tree;
use cfr::{Game, Schedule};
use store::{MemoryTable, Table};

const VALUE: f64 = -1.0 / 18.0;

#[test]
fn the_tree_has_twelve_infostates() {
    let tree = Tree::build(&Kuhn::new()).unwrap();
    assert_eq!(tree.infosets.len(), 12);
    assert_eq!(
        tree.infosets.iter().filter(|info| info.player == 0).count(),
        6
    );
}

#[test]
fn best_response_is_exact_on_the_analytic_equilibrium() {
    let tree = Tree::build(&Kuhn::new()).unwrap();
    for alpha in [0.0, 0.1, 1.0 / 3.0] {
        let policy = FnPolicy(move |key, out: &mut [f64]| equilibrium(alpha, key, out));
        let values = expected_values(&tree, &policy);
        assert!(
            (values[0] - VALUE).abs() < 1e-12,
            "alpha {alpha}: value {}",
            values[0]
        );
        assert!((values[0] + values[1]).abs() < 1e-12);
        // Neither player can gain against an equilibrium.
        assert!((best_response_value(&tree, &policy, 0) - values[0]).abs() < 1e-12);
        assert!((best_response_value(&tree, &policy, 1) - values[1]).abs() < 1e-12);
        assert!(exploitability(&tree, &policy).unwrap().abs() < 1e-12);
    }
}

#[test]
fn best_response_punishes_a_known_mistake() {
    let tree = Tree::build(&Kuhn::new()).unwrap();
    // Uniform random play: exploitability 11/24 (NashConv 11/12), a value
    // other implementations report too.
    let uniform = FnPolicy(|_, out: &mut [f64]| out.fill(0.5));
    let uniform_exploitability = exploitability(&tree, &uniform).unwrap();
    assert!(
        (uniform_exploitability - 11.0 / 24.0).abs() < 1e-12,
        "{uniform_exploitability}"
    );
    // Player 1 never calls with a king: player 0 bluffs every jack and gains.
    let leaky = FnPolicy(|key, out: &mut [f64]| {
        equilibrium(0.0, key, out);
        let card = ((key >> 8) & 0xff) as u8;
        let history_len = (key >> 4) & 0xf;
        if card == Kuhn::KING && history_len == 1 && key & 1 == 1 {
            out.copy_from_slice(&[1.0, 0.0]);
        }
    });
    let gain = best_response_value(&tree, &leaky, 0) - VALUE;
    assert!(
        gain > 0.05,
        "the best response should exploit the leak: {gain}"
    );
}

fn solve_exact(schedule: Schedule, iterations: u32) -> (f64, f64) {
    let solved = solve(&Kuhn::new(), schedule, iterations).unwrap();
    (solved.exploitability, solved.values[0])
}

#[test]
fn cfr_plus_solves_kuhn() {
    let (exploitability, value) = solve_exact(Schedule::CFR_PLUS, 1000);
    assert!(exploitability < 1e-3, "exploitability {exploitability}");
    assert!((value - VALUE).abs() < 2e-3, "value {value}");
}

#[test]
fn vanilla_cfr_and_dcfr_converge_on_kuhn() {
    for schedule in [Schedule::VANILLA, Schedule::LINEAR, Schedule::DCFR] {
        let (exploitability, value) = solve_exact(schedule, 2000);
        assert!(
            exploitability < 5e-3,
            "{schedule:?}: exploitability {exploitability}"
        );
        assert!((value - VALUE).abs() < 1e-2, "{schedule:?}: value {value}");
    }
}

#[test]
fn external_sampling_converges_on_kuhn() {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Kuhn::new(), &table, Schedule::VANILLA, 3, 1).unwrap();
    solver.run(1, 100_000).unwrap();
    let tree = Tree::build(&Kuhn::new()).unwrap();
    let exploitability = exploitability(&tree, &AveragePolicy::load(&table).unwrap()).unwrap();
    assert!(exploitability < 0.01, "exploitability {exploitability}");
    assert_eq!(table.len(), 12);
}

#[test]
fn kuhn_deals_every_pair_once() {
    let tree = Tree::build(&Kuhn::new()).unwrap();
    let chance_nodes = tree
        .nodes
        .iter()
        .filter(|node| node.kind == cfr::tree::NodeKind::Chance)
        .count();
    assert_eq!(chance_nodes, 4, "one deal to player 0, three to player 1");
    assert_eq!(Kuhn::new().num_players(), 2);
}
