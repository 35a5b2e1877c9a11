//! What PIMC's card play scores from a position whose open-hand value is
//! known.
//!
//! An open-hand solve lets both sides see every card. Real card play does
//! not, and it errs in a way that matters for bidding: measured over
//! PIMC-50 self-play, positions the solver calls a euchre (two maker
//! tricks) end in a euchre only about half the time, and solver makes with
//! three tricks fail about a fifth of the time. Because a euchre costs
//! twice what a make earns, open-hand leaves undervalue marginal bids; and
//! lone hands score more than the solver says, since real defenders, unlike
//! open-handed ones, guess which suit to guard.
//!
//! [`COUNTS`] holds, for normal and lone contracts, how often the makers
//! took each number of tricks in real play given the open-hand count at the
//! first lead. A leaf's value is the points expected under that
//! distribution, scored under the position's own contract (so lone
//! defenders and marches score as the rules say). Each row is shrunk
//! towards the open-hand count by [`PRIOR`] pseudo-hands, so a thinly
//! measured row stays near the solver.
//!
//! Measured with `cargo run --release -p trainer --example calibrate_leaves
//! -- pimc:50 16000` (16,000 hands of `pimc:50` at every seat, default
//! rules, each hand seeded by its number so the run repeats); the example
//! prints this table.

use std::sync::OnceLock;

use euchre_game::engine::card::Suit;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Contract, score};

/// `COUNTS[alone][open-hand maker tricks][tricks taken in play]`.
pub const COUNTS: [[[u32; 6]; 6]; 2] = [
    [
        [62, 108, 82, 11, 0, 0],
        [18, 338, 418, 75, 5, 0],
        [9, 200, 1282, 762, 100, 0],
        [0, 65, 544, 2344, 662, 62],
        [0, 5, 106, 1231, 2378, 376],
        [0, 0, 12, 248, 763, 1619],
    ],
    [
        [0, 1, 0, 0, 0, 0],
        [0, 2, 3, 0, 0, 0],
        [0, 4, 41, 27, 3, 0],
        [0, 3, 22, 280, 83, 11],
        [0, 0, 5, 134, 614, 127],
        [0, 0, 0, 1, 14, 740],
    ],
];

/// Pseudo-hands at the open-hand count added to each row.
pub const PRIOR: f64 = 4.0;

/// The makers' expected points: `[alone][lone defender][open-hand tricks]`.
fn table() -> &'static [[[f64; 6]; 2]; 2] {
    static TABLE: OnceLock<[[[f64; 6]; 2]; 2]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = [[[0.0; 6]; 2]; 2];
        for (alone, by_defence) in table.iter_mut().enumerate() {
            for (lone_defender, row) in by_defence.iter_mut().enumerate() {
                for (open_hand, value) in row.iter_mut().enumerate() {
                    *value = expected_points(
                        &COUNTS[alone][open_hand],
                        open_hand,
                        alone == 1,
                        lone_defender == 1,
                    );
                }
            }
        }
        table
    })
}

fn expected_points(counts: &[u32; 6], open_hand: usize, alone: bool, lone_defender: bool) -> f64 {
    // The seat and trump are irrelevant to the points; only the team is.
    let contract = Contract {
        maker: Seat::North,
        trump: Suit::Spades,
        alone,
        round: 1,
    };
    let points = |tricks: usize| {
        let split = [tricks as u8, 5 - tricks as u8];
        f64::from(score(Some(contract), lone_defender, split).payoff(Team::NorthSouth))
    };
    let total = counts.iter().map(|&c| f64::from(c)).sum::<f64>() + PRIOR;
    let weighted: f64 = counts
        .iter()
        .enumerate()
        .map(|(tricks, &count)| f64::from(count) * points(tricks))
        .sum::<f64>()
        + PRIOR * points(open_hand);
    weighted / total
}

/// Whether the calibration values a contract: normal contracts only.
/// The lone-hand rows were measured on the hands PIMC chose to play alone,
/// which are strong ones; applied to every lone bid they made lone hands
/// look better than they are (a policy trained on them went alone in 15%
/// of hands, twice PIMC's rate, and was euchred more; `docs/experiments/bidding-levers.md`), so
/// lone hands, and contracts with a lone defender (never measured), keep
/// their open-hand values.
pub fn applies(alone: bool, lone_defender: bool) -> bool {
    !alone && !lone_defender
}

/// The points the makers expect from a position whose open-hand count
/// (including tricks already won) is `open_hand_tricks`.
pub fn expected_maker_points(alone: bool, lone_defender: bool, open_hand_tricks: u8) -> f64 {
    table()[usize::from(alone)][usize::from(lone_defender)][usize::from(open_hand_tricks.min(5))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn more_open_hand_tricks_never_expect_fewer_points() {
        for alone in [false, true] {
            for lone_defender in [false, true] {
                for tricks in 0..5 {
                    assert!(
                        expected_maker_points(alone, lone_defender, tricks)
                            <= expected_maker_points(alone, lone_defender, tricks + 1),
                        "alone {alone}, lone defender {lone_defender}, {tricks} tricks"
                    );
                }
            }
        }
    }

    #[test]
    fn values_stay_within_the_scores_and_a_certain_march_is_a_march() {
        for alone in [false, true] {
            for tricks in 0..=5 {
                let value = expected_maker_points(alone, false, tricks);
                assert!((-2.0..=4.0).contains(&value), "{value}");
            }
        }
        // Open-hand marches nearly always march: close to the full score.
        assert!(expected_maker_points(false, false, 5) > 1.5);
        assert!(expected_maker_points(true, false, 5) > 3.5);
        // And an open-hand euchre is still a loss on average.
        assert!(expected_maker_points(false, false, 0) < -1.0);
    }
}
