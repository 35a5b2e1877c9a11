//! Duplicate matches: every deal is played twice, with the two bots'
//! seats swapped, so the luck of the cards cancels and what is left is
//! play.
//!
//! Deal `i` (dealer rotating) and every bot's random stream are derived
//! from the seed and `i` alone, so a match gives the same numbers for a
//! seed whatever the thread count.

use std::sync::Arc;

use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Outcome};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

use crate::bot::Bot;
use crate::seen::Seen;

/// Which team each side of a match sits as, at one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seating {
    ANorthSouth,
    AEastWest,
}

/// One played hand, from side A's point of view.
#[derive(Clone, Copy, Debug, Default)]
pub struct HandResult {
    pub points: [u8; 2],
    pub made_trump: [bool; 2],
    pub alone: [bool; 2],
    pub euchred: [bool; 2],
    pub defended_alone: [bool; 2],
}

/// Both tables of one deal: A as north-south, then as east-west.
pub type DealResult = [HandResult; 2];

/// Plays one hand with `bots` by seat; returns the outcome and the history.
pub fn play_hand(
    deal: Deal,
    rules: Rules,
    bots: [&dyn Bot; 4],
    rng: &mut SmallRng,
    mut observe: impl FnMut(&GameState, Seat, Action),
) -> (GameState, Option<Outcome>) {
    let mut state = GameState::new(deal, rules);
    let mut history: Vec<(Seat, Action)> = Vec::with_capacity(32);
    while let Some(seat) = state.to_act() {
        let action = bots[seat.index()].act(&Seen::new(&state, &history), rng);
        let action = if state.legal_actions().contains(action) {
            action
        } else {
            // A bot bug must not end a long match; the first legal action
            // stands in, and debug builds say so.
            debug_assert!(
                false,
                "{} chose the illegal {action}",
                bots[seat.index()].name()
            );
            state.legal_actions()[0]
        };
        observe(&state, seat, action);
        state.apply(action);
        history.push((seat, action));
    }
    (state, state.outcome())
}

fn hand_result(state: &GameState, outcome: Option<Outcome>, a_team: Team) -> HandResult {
    let side = |team: Team| usize::from(team != a_team);
    let mut result = HandResult::default();
    if let Some(outcome) = outcome {
        for team in [Team::NorthSouth, Team::EastWest] {
            result.points[side(team)] = outcome.points[team.index()];
        }
    }
    if let Some(contract) = state.contract() {
        let makers = side(contract.maker.team());
        result.made_trump[makers] = true;
        result.alone[makers] = contract.alone;
        let maker_tricks = outcome.map_or(0, |o| o.tricks[contract.maker.team().index()]);
        result.euchred[makers] = maker_tricks < 3;
        result.defended_alone[1 - makers] = state.lone_defender().is_some();
    }
    result
}

/// Plays `deals` duplicate deals between `a` and `b`; results in deal order.
pub fn run_match(
    a: &Arc<dyn Bot>,
    b: &Arc<dyn Bot>,
    rules: Rules,
    deals: u64,
    seed: u64,
    on_deal: &(dyn Fn() + Sync),
) -> Vec<DealResult> {
    run_deals(a, b, rules, 0..deals, seed, on_deal)
}

/// Plays the duplicate deals `deals` (by index) between `a` and `b`:
/// deal `i` is the same for every pair of bots and every call, so a long
/// match can be played in pieces and resumed.
pub fn run_deals(
    a: &Arc<dyn Bot>,
    b: &Arc<dyn Bot>,
    rules: Rules,
    deals: std::ops::Range<u64>,
    seed: u64,
    on_deal: &(dyn Fn() + Sync),
) -> Vec<DealResult> {
    deals
        .into_par_iter()
        .map(|index| {
            let mut deal_rng = SmallRng::seed_from_u64(mix(seed, index, 0));
            let dealer = Seat::from_index((index % 4) as u8);
            let deal = Deal::random(dealer, &mut deal_rng);
            let tables = [Seating::ANorthSouth, Seating::AEastWest].map(|seating| {
                let (north_south, east_west) = match seating {
                    Seating::ANorthSouth => (a.as_ref(), b.as_ref()),
                    Seating::AEastWest => (b.as_ref(), a.as_ref()),
                };
                let bots = [north_south, east_west, north_south, east_west];
                let table = 1 + seating as u64;
                let mut rng = SmallRng::seed_from_u64(mix(seed, index, table));
                let (state, outcome) = play_hand(deal, rules, bots, &mut rng, |_, _, _| {});
                let a_team = match seating {
                    Seating::ANorthSouth => Team::NorthSouth,
                    Seating::AEastWest => Team::EastWest,
                };
                hand_result(&state, outcome, a_team)
            });
            on_deal();
            tables
        })
        .collect()
}

/// A well-spread 64-bit seed for one stream of one deal.
fn mix(seed: u64, index: u64, stream: u64) -> u64 {
    let mut z = seed
        ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a match shows, from side A's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSummary {
    pub hands: u64,
    /// A's points minus B's, per hand, and the half-width of its 95%
    /// interval (from the per-deal means, so the duplicate pairing counts).
    pub net_per_hand: f64,
    pub net_interval: f64,
    pub points_per_hand: [f64; 2],
    pub point_share: f64,
    /// Games to 10 won by each side, chaining each table's hands in order.
    pub games_won: [u64; 2],
    pub made_trump: [f64; 2],
    pub alone: [f64; 2],
    pub euchred: [f64; 2],
    pub defended_alone: [f64; 2],
}

pub fn summarise(results: &[DealResult]) -> MatchSummary {
    let deals = results.len().max(1) as f64;
    let hands = 2.0 * deals;
    let per_deal: Vec<f64> = results
        .iter()
        .map(|tables| {
            tables
                .iter()
                .map(|hand| f64::from(hand.points[0]) - f64::from(hand.points[1]))
                .sum::<f64>()
                / 2.0
        })
        .collect();
    let mean = per_deal.iter().sum::<f64>() / deals;
    let variance = if per_deal.len() > 1 {
        per_deal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (deals - 1.0)
    } else {
        0.0
    };
    let mut points = [0.0f64; 2];
    let mut rates = [[0.0f64; 2]; 4];
    for hand in results.iter().flatten() {
        for side in 0..2 {
            points[side] += f64::from(hand.points[side]);
            rates[0][side] += f64::from(u8::from(hand.made_trump[side]));
            rates[1][side] += f64::from(u8::from(hand.alone[side]));
            rates[2][side] += f64::from(u8::from(hand.euchred[side]));
            rates[3][side] += f64::from(u8::from(hand.defended_alone[side]));
        }
    }
    let mut games_won = [0u64; 2];
    for table in 0..2 {
        let mut score = [0u32; 2];
        for tables in results {
            let hand = &tables[table];
            for (total, &points) in score.iter_mut().zip(&hand.points) {
                *total += u32::from(points);
            }
            if let Some(winner) = (0..2).find(|&side| score[side] >= 10) {
                games_won[winner] += 1;
                score = [0, 0];
            }
        }
    }
    let per_hand = |values: [f64; 2]| values.map(|v| v / hands);
    MatchSummary {
        hands: 2 * results.len() as u64,
        net_per_hand: mean,
        net_interval: 1.96 * (variance / deals).sqrt(),
        points_per_hand: per_hand(points),
        point_share: if points[0] + points[1] > 0.0 {
            points[0] / (points[0] + points[1])
        } else {
            0.5
        },
        games_won,
        made_trump: per_hand(rates[0]),
        alone: per_hand(rates[1]),
        euchred: per_hand(rates[2]),
        defended_alone: per_hand(rates[3]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::heuristic::Heuristic;
    use crate::bots::random::RandomBot;

    #[test]
    fn a_bot_against_itself_scores_zero_on_every_deal() {
        let bot: Arc<dyn Bot> = Arc::new(Heuristic);
        let results = run_match(&bot, &bot, Rules::default(), 200, 7, &|| {});
        // Duplicate play: the same deterministic bot in both seats of both
        // tables plays the same hands, so each deal nets exactly zero.
        let summary = summarise(&results);
        assert_eq!(summary.net_per_hand, 0.0);
        assert_eq!(summary.net_interval, 0.0);
        assert!((summary.point_share - 0.5).abs() < 1e-12);
    }

    #[test]
    fn a_match_is_the_same_for_a_seed_on_any_thread_count() {
        let a: Arc<dyn Bot> = Arc::new(Heuristic);
        let b: Arc<dyn Bot> = Arc::new(RandomBot);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            pool.install(|| summarise(&run_match(&a, &b, Rules::default(), 300, 11, &|| {})))
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_ne!(
            one,
            summarise(&run_match(&a, &b, Rules::default(), 300, 12, &|| {}))
        );
    }

    #[test]
    fn the_heuristic_beats_random_play() {
        let a: Arc<dyn Bot> = Arc::new(Heuristic);
        let b: Arc<dyn Bot> = Arc::new(RandomBot);
        let summary = summarise(&run_match(&a, &b, Rules::default(), 2000, 3, &|| {}));
        assert!(
            summary.net_per_hand - summary.net_interval > 0.0,
            "heuristic vs random: {summary:?}"
        );
    }
}
