//! Leduc hold'em: the curves an independent implementation (OpenSpiel)
//! reaches on this kind of machine, and the known game value.

use cfr::Schedule;
use cfr::best_response::exploitability;
use cfr::exact::solve;
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use store::MemoryTable;

fn exact_run(schedule: Schedule, iterations: u32) -> (f64, f64, usize) {
    let solved = solve(&Leduc::new(), schedule, iterations).unwrap();
    (solved.exploitability, solved.values[0], solved.infosets)
}

#[test]
fn the_tree_has_the_expected_infostates() {
    let tree = Tree::build(&Leduc::new()).unwrap();
    // 936 infostates with suited cards; ranks only merge suit pairs: 288 keys.
    assert_eq!(tree.infosets.len(), 288);
}

#[test]
fn cfr_plus_reaches_openspiels_curve_in_1000_iterations() {
    let (exploitability, value, infosets) = exact_run(Schedule::CFR_PLUS, 1000);
    assert!(exploitability <= 3e-4, "exploitability {exploitability}");
    assert!((value + 0.0856).abs() < 1e-3, "game value {value}");
    assert_eq!(infosets, 288);
}

#[test]
fn dcfr_beats_cfr_plus_early() {
    let (dcfr, _, _) = exact_run(Schedule::DCFR, 324);
    assert!(dcfr <= 1e-3, "DCFR(1.5, 0, 2) after 324 iterations: {dcfr}");
}

#[test]
fn external_sampling_reaches_openspiels_curve_in_100k_iterations() {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 42, 1).unwrap();
    solver.run(1, 100_000).unwrap();
    let tree = Tree::build(&Leduc::new()).unwrap();
    let exploitability = exploitability(&tree, &AveragePolicy::load(&table).unwrap()).unwrap();
    assert!(exploitability <= 0.07, "exploitability {exploitability}");
}
