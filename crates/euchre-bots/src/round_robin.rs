//! A round robin among a panel of bots on shared duplicate deals, and the
//! ratings it implies. Every pair plays the same deals (deal `i` depends
//! on the seed and `i` only, see [`crate::arena`]), so the pairs' results
//! are comparable and a resampling of deals resamples every pair at once.
//!
//! A round robin plays duplicate hands, or duplicate games to a target
//! ([`crate::games`]: game `i`'s deals likewise depend on the seed and `i`
//! only), or both; each pair keeps what it played of each.
//!
//! Ratings are a Bradley-Terry model on what is won (points, or games):
//! bot `i` takes a share `p_i / (p_i + p_j)` of it against bot `j`. They
//! are fitted by the minorise-maximise iteration (Hunter 2004), stated as
//! the share each bot would take from a bot of the panel's average
//! strength (the geometric mean of the `p`), with a 95% interval from
//! resampling deals (or games), every pair's at once.

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::arena::DealResult;
use crate::games::by_score::OutcomesByScore;
use crate::games::{GamePair, summarise_games};

/// Games added to each side of every pair before rating on games won: a
/// pair won 40-0 says the winner is stronger, not infinitely so, and an
/// unsmoothed fit would send the loser's rating to zero and everyone
/// else's to 100%. Over thousands of games a pair it moves a share by a
/// few hundredths of a point.
pub const GAMES_PRIOR: f64 = 1.0;
/// Resamplings of the deals (or games) for the ratings' intervals.
pub const REPLICATES: usize = 400;

/// The points each side took at the two tables of one deal: `[table][side]`,
/// side 0 being the pair's first bot.
pub type DealPoints = [[u8; 2]; 2];

/// What a deal's full result keeps for the round robin.
pub fn deal_points(result: &DealResult) -> DealPoints {
    [result.tables[0].points, result.tables[1].points]
}

/// The deals one pair has played, in deal order from deal 0, and the
/// duplicate games, in game order from game 0.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairRecord {
    /// Indices into the panel: `a` sat as side 0.
    pub a: usize,
    pub b: usize,
    pub deals: Vec<DealPoints>,
    /// Absent from an arena file written before games were played.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<GamePair>,
    /// How every hand of those games ended, by the score it was dealt at.
    #[serde(default, skip_serializing_if = "OutcomesByScore::is_empty")]
    pub games_by_score: OutcomesByScore,
}

impl PairRecord {
    /// The points each side took in each of the first `deals` deals.
    pub fn deal_wins(&self, deals: usize) -> PairWins {
        PairWins {
            a: self.a,
            b: self.b,
            units: self.deals[..deals.min(self.deals.len())]
                .iter()
                .map(|tables| {
                    tables.iter().fold([0.0, 0.0], |[a, b], table| {
                        [a + f64::from(table[0]), b + f64::from(table[1])]
                    })
                })
                .collect(),
        }
    }

    /// The games each side won of each of the first `games` pairs of games
    /// (an unfinished game counts half to each).
    pub fn game_wins(&self, games: usize) -> PairWins {
        PairWins {
            a: self.a,
            b: self.b,
            units: self.games[..games.min(self.games.len())]
                .iter()
                .map(|pair| {
                    let a = 2.0 * pair.a_share();
                    [a, 2.0 - a]
                })
                .collect(),
        }
    }
}

/// What each side of a pair won in each unit played (a deal's points at
/// its two tables, or a pair of games' wins), unit `i` being the same deals
/// for every pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PairWins {
    pub a: usize,
    pub b: usize,
    pub units: Vec<[f64; 2]>,
}

impl PairWins {
    /// What `a` and `b` won over the units `indices` (with repeats).
    fn total(&self, indices: impl Iterator<Item = usize>) -> [f64; 2] {
        indices
            .filter_map(|index| self.units.get(index))
            .fold([0.0, 0.0], |[a, b], unit| [a + unit[0], b + unit[1]])
    }
}

/// One pair's match, from the first bot's side.
#[derive(Clone, Debug, PartialEq)]
pub struct PairSummary {
    pub a: usize,
    pub b: usize,
    pub hands: u64,
    /// Games played, where the pair played games (0 for hands).
    pub games: u64,
    /// A's points minus B's a hand, and the half-width of its 95% interval
    /// over deals (or pairs of games).
    pub net_per_hand: f64,
    pub net_interval: f64,
    /// A's share of all points (of the games won, where it played games),
    /// and the half-width of its 95% interval.
    pub share: f64,
    pub share_interval: f64,
}

/// The summary of one pair over its first `deals` deals.
pub fn summarise_pair(record: &PairRecord, deals: usize) -> PairSummary {
    let played = &record.deals[..deals.min(record.deals.len())];
    let count = played.len().max(1) as f64;
    let nets: Vec<f64> = played
        .iter()
        .map(|tables| {
            tables
                .iter()
                .map(|t| f64::from(t[0]) - f64::from(t[1]))
                .sum::<f64>()
                / 2.0
        })
        .collect();
    let mean = nets.iter().sum::<f64>() / count;
    let variance = if nets.len() > 1 {
        nets.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (count - 1.0)
    } else {
        0.0
    };
    let [a, b] = record.deal_wins(deals).total(0..played.len());
    let share = if a + b > 0.0 { a / (a + b) } else { 0.5 };
    // The share's interval by the delta method on per-deal point totals:
    // share = ΣA / Σ(A+B), so its error is that of Σ(A - share·(A+B)).
    let residuals: Vec<f64> = played
        .iter()
        .map(|tables| {
            let (mine, all) = tables.iter().fold((0.0, 0.0), |(m, t), table| {
                (
                    m + f64::from(table[0]),
                    t + f64::from(table[0]) + f64::from(table[1]),
                )
            });
            mine - share * all
        })
        .collect();
    let total_per_deal = (a + b) / count;
    let residual_variance = if residuals.len() > 1 {
        residuals.iter().map(|r| r * r).sum::<f64>() / (count - 1.0)
    } else {
        0.0
    };
    let share_interval = if total_per_deal > 0.0 {
        1.96 * (residual_variance / count).sqrt() / total_per_deal
    } else {
        0.0
    };
    PairSummary {
        a: record.a,
        b: record.b,
        hands: 2 * played.len() as u64,
        games: 0,
        net_per_hand: mean,
        net_interval: 1.96 * (variance / count).sqrt(),
        share,
        share_interval,
    }
}

/// The summary of one pair over its first `games` pairs of games: its
/// share is of the games won.
pub fn summarise_pair_games(record: &PairRecord, games: usize) -> PairSummary {
    let summary = summarise_games(&record.games[..games.min(record.games.len())]);
    PairSummary {
        a: record.a,
        b: record.b,
        hands: summary.hands,
        games: summary.games,
        net_per_hand: summary.net_per_hand,
        net_interval: summary.net_interval,
        share: summary.share,
        share_interval: summary.share_interval,
    }
}

/// A bot's rating: its expected share of the points against a bot of the
/// panel's average strength, with a 95% interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    pub bot: usize,
    pub share: f64,
    pub low: f64,
    pub high: f64,
}

/// The Bradley-Terry strengths of `bots` bots from the points matrix
/// `won[i][j]` (points `i` took from `j`), normalised to a geometric mean
/// of 1. A bot that took no points at all keeps a tiny strength rather
/// than zero, so that every share stays defined.
pub fn bradley_terry(won: &[Vec<f64>]) -> Vec<f64> {
    let bots = won.len();
    let mut strength = vec![1.0f64; bots];
    for _ in 0..10_000 {
        let mut next = vec![0.0f64; bots];
        for i in 0..bots {
            let wins: f64 = (0..bots).filter(|&j| j != i).map(|j| won[i][j]).sum();
            let denominator: f64 = (0..bots)
                .filter(|&j| j != i)
                .map(|j| (won[i][j] + won[j][i]) / (strength[i] + strength[j]))
                .sum();
            next[i] = if denominator > 0.0 {
                (wins / denominator).max(1e-9)
            } else {
                1.0
            };
        }
        let log_mean = next.iter().map(|p| p.ln()).sum::<f64>() / bots as f64;
        let scale = (-log_mean).exp();
        let change = next
            .iter()
            .zip(&strength)
            .map(|(new, old)| (new * scale / old).ln().abs())
            .fold(0.0, f64::max);
        strength = next.into_iter().map(|p| p * scale).collect();
        if change < 1e-12 {
            break;
        }
    }
    strength
}

/// Ratings of a panel of `bots` from what its pairs won in their first
/// `units` units, with intervals from `replicates` resamplings of the units
/// (shared by every pair, seeded by `seed`). `prior` is added to what each
/// side of every pair won (0 for none).
pub fn ratings(
    bots: usize,
    pairs: &[PairWins],
    units: usize,
    replicates: usize,
    seed: u64,
    prior: f64,
) -> Vec<Rating> {
    let fit = |indices: &[usize]| -> Vec<f64> {
        let mut won = vec![vec![0.0f64; bots]; bots];
        for pair in pairs {
            let [a, b] = pair.total(indices.iter().copied());
            won[pair.a][pair.b] += a + prior;
            won[pair.b][pair.a] += b + prior;
        }
        bradley_terry(&won)
            .into_iter()
            .map(|p| p / (p + 1.0))
            .collect()
    };
    let all: Vec<usize> = (0..units).collect();
    let point = fit(&all);
    let mut rng = SmallRng::seed_from_u64(seed ^ 0xB007_57A9);
    let mut draws: Vec<Vec<f64>> = vec![Vec::with_capacity(replicates); bots];
    for _ in 0..replicates {
        let sample: Vec<usize> = (0..units).map(|_| rng.random_range(0..units)).collect();
        for (bot, share) in fit(&sample).into_iter().enumerate() {
            draws[bot].push(share);
        }
    }
    (0..bots)
        .map(|bot| {
            let mut shares = draws[bot].clone();
            shares.sort_by(f64::total_cmp);
            let at = |q: f64| {
                shares
                    .get(((shares.len() as f64 - 1.0) * q).round() as usize)
                    .copied()
                    .unwrap_or(point[bot])
            };
            Rating {
                bot,
                share: point[bot],
                low: at(0.025),
                high: at(0.975),
            }
        })
        .collect()
}

/// For each bot, the opponent it fares worst against (the lowest share)
/// and that share, among the pairs given.
pub fn weakest_pairings(bots: usize, summaries: &[PairSummary]) -> Vec<Option<(usize, f64)>> {
    (0..bots)
        .map(|bot| {
            summaries
                .iter()
                .filter_map(|s| {
                    if s.a == bot {
                        Some((s.b, s.share))
                    } else if s.b == bot {
                        Some((s.a, 1.0 - s.share))
                    } else {
                        None
                    }
                })
                .min_by(|x, y| x.1.total_cmp(&y.1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bradley_terry_recovers_known_strengths() {
        // Strengths 4 : 2 : 1, ten thousand points a pair, split exactly.
        let truth = [4.0, 2.0, 1.0];
        let mut won = vec![vec![0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                if i != j {
                    won[i][j] = 10_000.0 * truth[i] / (truth[i] + truth[j]);
                }
            }
        }
        let fitted = bradley_terry(&won);
        let mean = (truth.iter().map(|t: &f64| t.ln()).sum::<f64>() / 3.0).exp();
        for (fit, true_strength) in fitted.iter().zip(truth) {
            assert!((fit - true_strength / mean).abs() < 1e-6, "{fitted:?}");
        }
    }

    fn pair(a: usize, b: usize, deals: Vec<DealPoints>) -> PairRecord {
        PairRecord {
            a,
            b,
            deals,
            games: Vec::new(),
            games_by_score: OutcomesByScore::default(),
        }
    }

    #[test]
    fn a_pair_summary_and_the_ratings_agree_with_the_points() {
        // A takes 3 of every 4 points from B, every deal alike.
        let record = pair(0, 1, vec![[[3, 1], [3, 1]]; 100]);
        let summary = summarise_pair(&record, 100);
        assert_eq!(summary.hands, 200);
        assert!((summary.share - 0.75).abs() < 1e-12);
        assert!((summary.net_per_hand - 2.0).abs() < 1e-12);
        assert_eq!(summary.net_interval, 0.0, "no spread over deals");
        let rated = ratings(2, &[record.deal_wins(100)], 100, 50, 1, 0.0);
        // Strengths 3 : 1 about a geometric mean of √3: shares √3/(√3+1)
        // and 1/(√3+1) against the average bot.
        let root = 3f64.sqrt();
        assert!(
            (rated[0].share - root / (root + 1.0)).abs() < 1e-6,
            "{rated:?}"
        );
        assert!(
            (rated[1].share - 1.0 / (root + 1.0)).abs() < 1e-6,
            "{rated:?}"
        );
        assert!(rated[0].low <= rated[0].share && rated[0].share <= rated[0].high);
    }

    #[test]
    fn in_games_the_summary_and_the_ratings_count_games_won() {
        use crate::games::TableGame;
        let table = |a_won, points: [u32; 2]| TableGame {
            a_won: Some(a_won),
            points,
            hands: 8,
        };
        // A wins both games of three pairs in four and splits the fourth.
        let sweep = GamePair {
            tables: [table(true, [10, 5]), table(true, [10, 7])],
        };
        let split = GamePair {
            tables: [table(true, [10, 9]), table(false, [8, 10])],
        };
        let mut record = pair(0, 1, Vec::new());
        record.games = [sweep, sweep, sweep, split].repeat(25);
        let summary = summarise_pair_games(&record, 100);
        assert_eq!((summary.games, summary.hands), (200, 1600));
        assert!((summary.share - 0.875).abs() < 1e-12, "{summary:?}");
        let wins = record.game_wins(100);
        assert_eq!(wins.units[3], [1.0, 1.0]);
        let rated = ratings(2, std::slice::from_ref(&wins), 100, 50, 1, 0.0);
        // Strengths 7 : 1 about their geometric mean √7.
        let root = 7f64.sqrt();
        assert!(
            (rated[0].share - root / (root + 1.0)).abs() < 1e-6,
            "{rated:?}"
        );
        // A game each way: 176 : 26.
        let smoothed = ratings(2, &[wins], 100, 50, 1, 1.0);
        let root = (176.0f64 / 26.0).sqrt();
        assert!((smoothed[0].share - root / (root + 1.0)).abs() < 1e-6);
        // A pair that one side swept still rates both.
        let mut swept = pair(0, 1, Vec::new());
        swept.games = vec![sweep; 10];
        let rated = ratings(2, &[swept.game_wins(10)], 10, 50, 1, 1.0);
        assert!(rated[1].share > 0.1 && rated[0].share < 0.9, "{rated:?}");
    }

    #[test]
    fn the_weakest_pairing_is_the_lowest_share_from_either_side() {
        let summaries = vec![
            summarise_pair(&pair(0, 1, vec![[[2, 2], [3, 1]]; 10]), 10),
            summarise_pair(&pair(2, 0, vec![[[3, 1], [2, 2]]; 10]), 10),
        ];
        let weakest = weakest_pairings(3, &summaries);
        assert_eq!(weakest[0].map(|w| w.0), Some(2), "{weakest:?}");
        assert!((weakest[0].unwrap().1 - 3.0 / 8.0).abs() < 1e-12);
        assert_eq!(weakest[1].map(|w| w.0), Some(0));
        assert_eq!(weakest[2].map(|w| w.0), Some(0));
    }
}
