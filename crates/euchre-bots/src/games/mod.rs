//! Duplicate games: whole games to a target, in which every bot sees the
//! score, each game played twice on the same sequence of deals with the
//! sides' seats swapped. A game is the unit the field counts ("matches" of
//! its published figures); the swap takes the luck of the cards out of the
//! comparison as duplicate hands do, and since each table plays its game
//! through, each bot sees the scores its own play produced.
//!
//! Game `i`'s deals come from the seed and `i` alone (its first dealer is
//! seat `i mod 4`, the deal passing left each hand), so a table that needs
//! more hands than the other simply deals further along the same sequence,
//! and games can be played in any order, in parallel, or resumed.

pub mod by_score;

use std::sync::Arc;

use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::Deal;
use euchre_game::game::GameScore;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::arena::{mix, play_hand_at};
use crate::bot::Bot;
use by_score::OutcomesByScore;

/// Hands after which a game that has not ended (every hand passed out,
/// without stick the dealer) is called unfinished.
pub const MAX_HANDS: u32 = 500;

/// One table's game, from side A's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableGame {
    /// Whether A won; `None` for a game unfinished after [`MAX_HANDS`].
    pub a_won: Option<bool>,
    /// Points scored by A and by B (each stops at the target).
    pub points: [u32; 2],
    pub hands: u32,
}

/// Both tables of one game: A north-south, then A east-west.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GamePair {
    pub tables: [TableGame; 2],
}

impl GamePair {
    /// A's share of the pair's two games (an unfinished one counts half).
    pub fn a_share(&self) -> f64 {
        self.tables
            .iter()
            .map(|table| match table.a_won {
                Some(true) => 1.0,
                Some(false) => 0.0,
                None => 0.5,
            })
            .sum::<f64>()
            / 2.0
    }

    /// A's points minus B's over both tables, and the hands they took.
    fn net_and_hands(&self) -> (f64, f64) {
        self.tables.iter().fold((0.0, 0.0), |(net, hands), table| {
            (
                net + f64::from(table.points[0]) - f64::from(table.points[1]),
                hands + f64::from(table.hands),
            )
        })
    }
}

/// The deal of hand `hand` of game `game`.
pub fn game_deal(seed: u64, game: u64, hand: u32) -> Deal {
    let dealer = Seat::from_index(((game + u64::from(hand)) % 4) as u8);
    let mut rng = SmallRng::seed_from_u64(mix(seed, game, 1_000 + u64::from(hand)));
    Deal::random(dealer, &mut rng)
}

/// Plays game `game` once with A seated as `a_team`, counting each hand
/// in `outcomes`.
#[allow(clippy::too_many_arguments)]
fn play_game(
    a: &dyn Bot,
    b: &dyn Bot,
    a_team: Team,
    rules: Rules,
    target: u8,
    seed: u64,
    game: u64,
    outcomes: &mut OutcomesByScore,
) -> TableGame {
    let (north_south, east_west) = match a_team {
        Team::NorthSouth => (a, b),
        Team::EastWest => (b, a),
    };
    let bots = [north_south, east_west, north_south, east_west];
    let table = 1 + a_team.index() as u64;
    let mut rng = SmallRng::seed_from_u64(mix(seed, game, table));
    let first = game_deal(seed, game, 0);
    let mut score = GameScore::start(first.dealer, target);
    let mut hands = 0;
    while score.winner().is_none() && hands < MAX_HANDS {
        let deal = game_deal(seed, game, hands);
        debug_assert_eq!(deal.dealer, score.dealer);
        let (state, outcome) = play_hand_at(deal, rules, Some(score), bots, &mut rng, |_, _, _| {});
        outcomes.record(&score, &state, a_team);
        if let Some(outcome) = outcome {
            score = score.after(&outcome);
        } else {
            score.dealer = score.dealer.left();
        }
        hands += 1;
    }
    let (ours, theirs) = score.of(a_team);
    TableGame {
        a_won: score.winner().map(|winner| winner == a_team),
        points: [u32::from(ours), u32::from(theirs)],
        hands,
    }
}

/// Plays the duplicate games `games` (by index) between `a` and `b`, to
/// `target` points.
pub fn run_games(
    a: &Arc<dyn Bot>,
    b: &Arc<dyn Bot>,
    rules: Rules,
    target: u8,
    games: std::ops::Range<u64>,
    seed: u64,
    on_game: &(dyn Fn() + Sync),
) -> Vec<GamePair> {
    run_games_by_score(a, b, rules, target, games, seed, on_game).0
}

/// [`run_games`], with how every hand of those games ended by the score
/// it was dealt at.
pub fn run_games_by_score(
    a: &Arc<dyn Bot>,
    b: &Arc<dyn Bot>,
    rules: Rules,
    target: u8,
    games: std::ops::Range<u64>,
    seed: u64,
    on_game: &(dyn Fn() + Sync),
) -> (Vec<GamePair>, OutcomesByScore) {
    let played: Vec<(GamePair, OutcomesByScore)> = games
        .into_par_iter()
        .map(|game| {
            let mut outcomes = OutcomesByScore::default();
            let tables = [Team::NorthSouth, Team::EastWest].map(|a_team| {
                play_game(
                    a.as_ref(),
                    b.as_ref(),
                    a_team,
                    rules,
                    target,
                    seed,
                    game,
                    &mut outcomes,
                )
            });
            on_game();
            (GamePair { tables }, outcomes)
        })
        .collect();
    let outcomes = played
        .iter()
        .fold(OutcomesByScore::default(), |all, (_, game)| all.merge(game));
    (played.into_iter().map(|(pair, _)| pair).collect(), outcomes)
}

/// What duplicate games show, from A's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct GamesSummary {
    /// Games played (two a pair).
    pub games: u64,
    pub a_won: u64,
    pub b_won: u64,
    pub unfinished: u64,
    /// A's share of the games and the half-width of its 95% interval, from
    /// the per-pair shares (so the duplicate pairing counts).
    pub share: f64,
    pub share_interval: f64,
    pub hands: u64,
    /// A's points minus B's, a hand, over every hand of every game, and
    /// the half-width of its 95% interval over the pairs of games.
    pub net_per_hand: f64,
    pub net_interval: f64,
}

pub fn summarise_games(pairs: &[GamePair]) -> GamesSummary {
    let shares: Vec<f64> = pairs.iter().map(GamePair::a_share).collect();
    let n = shares.len().max(1) as f64;
    let share = shares.iter().sum::<f64>() / n;
    let variance = if shares.len() > 1 {
        shares.iter().map(|s| (s - share).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let tables = pairs.iter().flat_map(|pair| &pair.tables);
    let count = |won: Option<bool>| tables.clone().filter(|t| t.a_won == won).count() as u64;
    let hands: u64 = tables.clone().map(|t| u64::from(t.hands)).sum();
    let net: i64 = tables
        .clone()
        .map(|t| i64::from(t.points[0]) - i64::from(t.points[1]))
        .sum();
    let net_per_hand = net as f64 / hands.max(1) as f64;
    // A ratio of sums over pairs (points over hands): its interval by the
    // delta method, from each pair's residual net − rate × hands.
    let residual_variance = if pairs.len() > 1 {
        pairs
            .iter()
            .map(|pair| {
                let (net, hands) = pair.net_and_hands();
                (net - net_per_hand * hands).powi(2)
            })
            .sum::<f64>()
            / (n - 1.0)
    } else {
        0.0
    };
    let hands_per_pair = hands as f64 / n;
    let net_interval = if hands_per_pair > 0.0 {
        1.96 * (residual_variance / n).sqrt() / hands_per_pair
    } else {
        0.0
    };
    GamesSummary {
        games: 2 * pairs.len() as u64,
        a_won: count(Some(true)),
        b_won: count(Some(false)),
        unfinished: count(None),
        share,
        share_interval: 1.96 * (variance / n).sqrt(),
        hands,
        net_per_hand,
        net_interval,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::heuristic::Heuristic;
    use crate::bots::random::RandomBot;

    #[test]
    fn a_deterministic_bot_against_itself_wins_exactly_half_of_duplicate_games() {
        let bot: Arc<dyn Bot> = Arc::new(Heuristic);
        let pairs = run_games(&bot, &bot, Rules::default(), 10, 0..60, 3, &|| {});
        let summary = summarise_games(&pairs);
        assert_eq!(summary.games, 120);
        assert_eq!(summary.a_won, 60);
        assert_eq!(summary.share, 0.5);
        assert_eq!(
            summary.share_interval, 0.0,
            "each pair splits its two games"
        );
        assert_eq!(summary.net_per_hand, 0.0);
        assert_eq!(summary.net_interval, 0.0);
    }

    #[test]
    fn the_points_interval_is_over_pairs_of_games_weighted_by_their_hands() {
        let table = |a_won, points: [u32; 2], hands| TableGame {
            a_won: Some(a_won),
            points,
            hands,
        };
        // Every pair alike: no spread, whatever the rate.
        let same = GamePair {
            tables: [table(true, [10, 4], 6), table(false, [6, 10], 10)],
        };
        let summary = summarise_games(&[same; 8]);
        assert_eq!(summary.net_per_hand, 2.0 / 16.0);
        assert_eq!(summary.net_interval, 0.0);
        // Two kinds of pair: rate 12/16 and −8/16 over 16 hands each, so
        // the rate is 1/8 and the residuals ±10 points.
        let good = GamePair {
            tables: [table(true, [10, 2], 8), table(true, [10, 6], 8)],
        };
        let bad = GamePair {
            tables: [table(false, [4, 10], 8), table(false, [8, 10], 8)],
        };
        let summary = summarise_games(&[good, bad, good, bad]);
        assert!((summary.net_per_hand - 0.125).abs() < 1e-12);
        // Residuals ±10, variance 400/3 over 4 pairs of 16 hands.
        let expected = 1.96 * (400.0f64 / 3.0 / 4.0).sqrt() / 16.0;
        assert!(
            (summary.net_interval - expected).abs() < 1e-12,
            "{summary:?}"
        );
        assert_eq!(summary.share, 0.5);
    }

    #[test]
    fn every_game_ends_at_the_target_and_the_heuristic_beats_random() {
        let heuristic: Arc<dyn Bot> = Arc::new(Heuristic);
        let random: Arc<dyn Bot> = Arc::new(RandomBot);
        let pairs = run_games(&heuristic, &random, Rules::default(), 10, 0..100, 5, &|| {});
        for table in pairs.iter().flat_map(|pair| &pair.tables) {
            let won = table.a_won.expect("stick the dealer: every game ends");
            let (winner, loser) = if won {
                (table.points[0], table.points[1])
            } else {
                (table.points[1], table.points[0])
            };
            assert_eq!(winner, 10);
            assert!(loser < 10);
            assert!(table.hands >= 3, "at most 4 points a hand");
        }
        let summary = summarise_games(&pairs);
        assert!(summary.share > 0.9, "{summary:?}");
        // Every hand of every game is counted once for each side.
        let (_, outcomes) =
            run_games_by_score(&heuristic, &random, Rules::default(), 10, 0..100, 5, &|| {});
        for side in 0..2 {
            let hands: u64 = by_score::ScoreBand::ALL
                .iter()
                .map(|&band| outcomes.get(band, side).hands)
                .sum();
            assert_eq!(hands, summary.hands);
        }
        let euchred = |side| {
            by_score::ScoreBand::ALL
                .iter()
                .map(|&band| outcomes.get(band, side).euchred)
                .sum::<u64>()
        };
        assert!(
            euchred(1) > 10 * euchred(0),
            "random orders on any hand and is euchred: {outcomes:?}"
        );
        assert!(summary.net_per_hand > 0.5, "{summary:?}");
        // The same seed plays the same games, in any order.
        let again = run_games(&heuristic, &random, Rules::default(), 10, 40..50, 5, &|| {});
        assert_eq!(&again[..], &pairs[40..50]);
    }

    #[test]
    fn the_deals_of_a_game_follow_the_dealer_round_the_table() {
        for game in 0..8 {
            for hand in 0..6 {
                let deal = game_deal(9, game, hand);
                assert_eq!(deal.dealer.index() as u64, (game + u64::from(hand)) % 4);
                assert_eq!(deal, game_deal(9, game, hand));
            }
        }
        assert_ne!(game_deal(9, 0, 1), game_deal(9, 1, 0));
    }
}
