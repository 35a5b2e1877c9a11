//! The chance of winning a game from any score and dealer.
//!
//! A hand's outcome is one side scoring 1, 2 or 4 points (or, with stick
//! the dealer off, a hand passed out, scoring nothing), and the deal passes
//! to the left, so to the other side. Given how often each outcome happens
//! to the side that deals ([`HandOutcomes`]), the chance of winning from
//! every score follows exactly by backward induction: every hand that
//! scores raises the sum of the scores, so the scores nearest the target
//! are solved first; a passed-out hand only hands the deal over, which
//! couples the two dealer states of one score in a 2 × 2 system solved in
//! closed form.
//!
//! The model takes the hands as independent of the score. Bots that play
//! for the game change how often each outcome happens near the end (that
//! is their point); the model is the common yardstick they play to, not a
//! prediction of their own games.

use crate::engine::seat::Team;
use crate::engine::state::Outcome;
use crate::game::GameScore;

/// The points one side can score in a hand: a make, a march or a euchre,
/// a loner's march or a lone defender's euchre.
pub const GAINS: [u8; 3] = [1, 2, 4];

/// How often a hand scores each way, seen from the side that deals it.
#[derive(Clone, Debug, PartialEq)]
pub struct HandOutcomes {
    /// The dealer's side scores `GAINS[i]`.
    pub dealers: [f64; 3],
    /// The other side scores `GAINS[i]`.
    pub others: [f64; 3],
    /// The hand is passed out and scores nothing.
    pub nothing: f64,
    /// How the figures were obtained (the bot, the hands, the rules).
    pub source: String,
}

/// Why outcome figures cannot make a model.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OutcomeError {
    #[error("no hand was counted; play some hands first")]
    NoHands,
    #[error("every hand was passed out: no game would ever end")]
    NothingScores,
    #[error("outcome probabilities must be finite, at least 0 and sum to 1; they sum to {0}")]
    NotADistribution(f64),
    #[error("a target of {0} points: a game is to at least 1 and at most 100")]
    Target(u8),
}

impl HandOutcomes {
    /// The figures of counted hands: `dealers[i]` hands where the dealer's
    /// side scored `GAINS[i]`, `others[i]` where the other side did,
    /// `nothing` passed out.
    pub fn from_counts(
        dealers: [u64; 3],
        others: [u64; 3],
        nothing: u64,
        source: impl Into<String>,
    ) -> Result<HandOutcomes, OutcomeError> {
        let total = dealers.iter().chain(&others).sum::<u64>() + nothing;
        if total == 0 {
            return Err(OutcomeError::NoHands);
        }
        let share = |count: u64| count as f64 / total as f64;
        HandOutcomes {
            dealers: dealers.map(share),
            others: others.map(share),
            nothing: share(nothing),
            source: source.into(),
        }
        .checked()
    }

    /// The figures, refused unless they are a distribution some hand scores in.
    pub fn checked(self) -> Result<HandOutcomes, OutcomeError> {
        let all: Vec<f64> = self
            .dealers
            .iter()
            .chain(&self.others)
            .copied()
            .chain([self.nothing])
            .collect();
        let sum: f64 = all.iter().sum();
        if all.iter().any(|p| !p.is_finite() || *p < 0.0) || (sum - 1.0).abs() > 1e-9 {
            return Err(OutcomeError::NotADistribution(sum));
        }
        if self.nothing >= 1.0 - 1e-12 {
            return Err(OutcomeError::NothingScores);
        }
        Ok(self)
    }

    /// One point a hand to either side alike, whoever deals, and a hand
    /// passed out `nothing` of the time: the problem of points, whose
    /// chances are known in closed form (a reference for tests and a model
    /// with no dealer's edge).
    pub fn even(nothing: f64) -> HandOutcomes {
        let half = (1.0 - nothing) / 2.0;
        HandOutcomes {
            dealers: [half, 0.0, 0.0],
            others: [half, 0.0, 0.0],
            nothing,
            source: "one point a hand to either side alike".into(),
        }
    }

    /// The dealer's side's expected points a hand, minus the other side's.
    pub fn dealers_edge(&self) -> f64 {
        GAINS
            .iter()
            .zip(self.dealers.iter().zip(&self.others))
            .map(|(&gain, (dealers, others))| f64::from(gain) * (dealers - others))
            .sum()
    }
}

/// The chance of winning from every score short of the target, for the
/// side whose points come first, when it deals next and when it does not.
#[derive(Clone, Debug, PartialEq)]
pub struct WinModel {
    target: u8,
    /// Indexed by [`Self::index`].
    chances: Vec<f64>,
    source: String,
}

impl WinModel {
    /// Solves the game to `target` under `outcomes`.
    pub fn new(target: u8, outcomes: &HandOutcomes) -> Result<WinModel, OutcomeError> {
        if !(1..=100).contains(&target) {
            return Err(OutcomeError::Target(target));
        }
        let outcomes = outcomes.clone().checked()?;
        let t = usize::from(target);
        let mut model = WinModel {
            target,
            chances: vec![0.0; t * t * 2],
            source: outcomes.source.clone(),
        };
        // The chance for "us" after a hand from (us, them) that gave us
        // `ours` and them `theirs`, with `we_deal_next` dealing next.
        let after = |model: &WinModel, us: usize, them: usize, we_deal_next: bool| -> f64 {
            if us >= t {
                1.0
            } else if them >= t {
                0.0
            } else {
                model.chances[Self::index(t, us, them, we_deal_next)]
            }
        };
        for total in (0..=2 * (t - 1)).rev() {
            for us in total.saturating_sub(t - 1)..=total.min(t - 1) {
                let them = total - us;
                // What a hand that scores is worth, for each dealer.
                let scoring = |we_deal: bool| -> f64 {
                    let (ours, theirs) = if we_deal {
                        (&outcomes.dealers, &outcomes.others)
                    } else {
                        (&outcomes.others, &outcomes.dealers)
                    };
                    GAINS
                        .iter()
                        .enumerate()
                        .map(|(i, &gain)| {
                            let gain = usize::from(gain);
                            ours[i] * after(&model, us + gain, them, !we_deal)
                                + theirs[i] * after(&model, us, them + gain, !we_deal)
                        })
                        .sum()
                };
                let (when_we_deal, when_they_deal) = (scoring(true), scoring(false));
                // A passed-out hand hands the deal over at the same score:
                // x = a + p y, y = b + p x.
                let p = outcomes.nothing;
                let denominator = 1.0 - p * p;
                model.chances[Self::index(t, us, them, true)] =
                    (when_we_deal + p * when_they_deal) / denominator;
                model.chances[Self::index(t, us, them, false)] =
                    (when_they_deal + p * when_we_deal) / denominator;
            }
        }
        Ok(model)
    }

    fn index(target: usize, us: usize, them: usize, we_deal: bool) -> usize {
        (us * target + them) * 2 + usize::from(!we_deal)
    }

    pub fn target(&self) -> u8 {
        self.target
    }

    /// How the hand outcomes behind the model were obtained.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The chance that the side with `us` points wins against `them`
    /// points, dealing next or not.
    pub fn chance_at(&self, us: u8, them: u8, we_deal: bool) -> f64 {
        let t = self.target;
        if us >= t {
            1.0
        } else if them >= t {
            0.0
        } else {
            self.chances[Self::index(usize::from(t), usize::from(us), usize::from(them), we_deal)]
        }
    }

    /// The chance that `team` wins from `score` (its target must be the
    /// model's).
    pub fn chance(&self, score: &GameScore, team: Team) -> f64 {
        debug_assert_eq!(score.target, self.target, "a model of another target");
        let (us, them) = score.of(team);
        self.chance_at(us, them, score.dealer.team() == team)
    }

    /// The chance that `team` wins once a hand from `score` has ended with
    /// `outcome`: what a search values an outcome by when it plays for the
    /// game.
    pub fn chance_after(&self, score: &GameScore, team: Team, outcome: &Outcome) -> f64 {
        self.chance(&score.after(outcome), team)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::seat::Seat;

    fn coin(nothing: f64) -> HandOutcomes {
        HandOutcomes::even(nothing)
    }

    /// The problem of points: the chance of `needed` heads before `their`
    /// tails with a fair coin.
    fn problem_of_points(needed: u32, their: u32) -> f64 {
        let flips = needed + their - 1;
        let choose = |n: u32, k: u32| -> f64 {
            (0..k).fold(1.0, |acc, i| acc * f64::from(n - i) / f64::from(i + 1))
        };
        (needed..=flips)
            .map(|heads| choose(flips, heads))
            .sum::<f64>()
            / 2f64.powi(flips as i32)
    }

    #[test]
    fn a_fair_coin_gives_the_problem_of_points_exactly() {
        let model = WinModel::new(10, &coin(0.0)).unwrap();
        for (us, them) in [(0, 0), (9, 8), (5, 7), (9, 0), (0, 9), (3, 3)] {
            let expected = problem_of_points(10 - u32::from(us), 10 - u32::from(them));
            for deal in [true, false] {
                let found = model.chance_at(us, them, deal);
                assert!(
                    (found - expected).abs() < 1e-12,
                    "{us}-{them}: {found} against {expected}"
                );
            }
        }
        assert!((model.chance_at(9, 8, true) - 0.75).abs() < 1e-12);
        assert!((model.chance_at(0, 0, false) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn passed_out_hands_only_delay_a_game_that_is_fair_either_way() {
        let plain = WinModel::new(10, &coin(0.0)).unwrap();
        let passing = WinModel::new(10, &coin(0.5)).unwrap();
        for us in 0..10 {
            for them in 0..10 {
                for deal in [true, false] {
                    let (a, b) = (
                        plain.chance_at(us, them, deal),
                        passing.chance_at(us, them, deal),
                    );
                    assert!((a - b).abs() < 1e-12, "{us}-{them}: {a} {b}");
                }
            }
        }
    }

    fn dealer_favoured() -> HandOutcomes {
        HandOutcomes::from_counts([50, 12, 3], [25, 8, 1], 1, "made up, dealer favoured").unwrap()
    }

    #[test]
    fn the_two_sides_chances_add_to_one_and_rise_with_their_own_points() {
        let model = WinModel::new(10, &dealer_favoured()).unwrap();
        for us in 0..10 {
            for them in 0..10 {
                for deal in [true, false] {
                    let ours = model.chance_at(us, them, deal);
                    let theirs = model.chance_at(them, us, !deal);
                    assert!((ours + theirs - 1.0).abs() < 1e-12, "{us}-{them}");
                    assert!((0.0..=1.0).contains(&ours));
                    if us < 9 {
                        assert!(model.chance_at(us + 1, them, deal) > ours, "{us}-{them}");
                    }
                    if them < 9 {
                        assert!(model.chance_at(us, them + 1, deal) < ours, "{us}-{them}");
                    }
                }
            }
        }
        assert!(
            model.chance_at(0, 0, true) > 0.5,
            "the dealer's side is favoured"
        );
        assert!(dealer_favoured().dealers_edge() > 0.0);
        assert_eq!(model.chance_at(10, 3, false), 1.0);
        assert_eq!(model.chance_at(3, 10, true), 0.0);
    }

    #[test]
    fn at_nine_a_make_wins_as_surely_as_a_march() {
        let model = WinModel::new(10, &dealer_favoured()).unwrap();
        let score = GameScore {
            points: [9, 6],
            dealer: Seat::East,
            target: 10,
        };
        let made = Outcome {
            points: [1, 0],
            tricks: [3, 2],
        };
        let marched = Outcome {
            points: [2, 0],
            tricks: [5, 0],
        };
        let euchred = Outcome {
            points: [0, 2],
            tricks: [2, 3],
        };
        let team = Team::NorthSouth;
        assert_eq!(model.chance_after(&score, team, &made), 1.0);
        assert_eq!(model.chance_after(&score, team, &marched), 1.0);
        let after_euchre = model.chance_after(&score, team, &euchred);
        assert!(after_euchre < model.chance(&score, team));
        assert!((after_euchre - model.chance_at(9, 8, true)).abs() < 1e-12);
    }

    #[test]
    fn figures_that_are_not_a_distribution_are_refused() {
        assert_eq!(
            HandOutcomes::from_counts([0; 3], [0; 3], 0, "x"),
            Err(OutcomeError::NoHands)
        );
        assert_eq!(
            HandOutcomes::from_counts([0; 3], [0; 3], 5, "x"),
            Err(OutcomeError::NothingScores)
        );
        let mut bad = coin(0.0);
        bad.dealers[0] = 0.9;
        assert!(matches!(
            WinModel::new(10, &bad),
            Err(OutcomeError::NotADistribution(_))
        ));
        assert_eq!(WinModel::new(0, &coin(0.0)), Err(OutcomeError::Target(0)));
    }
}
