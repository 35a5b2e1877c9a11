//! The yardsticks pinned: the heuristic and PIMC-50 against random and
//! each other, on the very matches `docs/experiments/yardsticks/` restates
//! after each change to the bots (`trainer eval --a A --b B --hands N`,
//! seed 1), to the point. A change that moves a yardstick by one point
//! anywhere fails here, so the yardsticks stay what every published figure
//! was measured against; a deliberate change must restate them and update
//! these totals together.

use std::sync::Arc;

use euchre_bots::arena::{run_match, summarise};
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::rules::Rules;

/// The points each side took over `hands` duplicate hands of seed 1.
fn points(a: &str, b: &str, hands: u64) -> [u64; 2] {
    let bot = |spec: &str| -> Arc<dyn Bot> {
        from_spec(spec, Rules::default(), Unseen::Heuristic).unwrap()
    };
    let results = run_match(&bot(a), &bot(b), Rules::default(), hands / 2, 1, &|| {});
    let summary = summarise(&results);
    assert_eq!(summary.hands, hands);
    summary
        .points_per_hand
        .map(|per_hand| (per_hand * hands as f64).round() as u64)
}

/// `after-trust-iii.txt`: "points per hand: A 1.5379, B 0.2228" over
/// 20,000 hands.
#[test]
fn the_heuristic_against_random_takes_the_points_it_always_took() {
    assert_eq!(points("heuristic", "random", 20_000), [30_758, 4_456]);
}

/// "points per hand: A 0.8410, B 0.6460" over 1,000 hands.
#[test]
fn pimc_50_against_the_heuristic_takes_the_points_it_always_took() {
    assert_eq!(points("pimc:50", "heuristic", 1_000), [841, 646]);
}

/// "points per hand: A 1.4910, B 0.2610" over 1,000 hands.
#[test]
fn pimc_50_against_random_takes_the_points_it_always_took() {
    assert_eq!(points("pimc:50", "random", 1_000), [1_491, 261]);
}
