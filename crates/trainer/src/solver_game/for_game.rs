//! Bids trained for the game ([`BidsFor::Game`]): each hand is dealt at a
//! score, its bidding keys carry that score's context, and its end is
//! valued by each side's chance of winning the game from the score it
//! leaves, instead of by its points.
//!
//! The score is drawn from the deal's own seed, so a traversal stays a
//! function of its chance outcomes: the context first (the open one, both
//! sides three or more to go, half the time, as most hands of a game are
//! dealt there; each of the other eight a sixteenth), then, for a side
//! with more to go, its points uniformly from 0 to 7. North deals every
//! hand in training, so north-south is the dealer's side.
//!
//! With a prior, the open context is the prior's, fixed: every hand is
//! dealt in one of the eight others, each an eighth, and the export writes
//! the prior's bids at the plain keys. Trained for the game, the open
//! context drifted bolder than the prior and lost games
//! (docs/experiments/bids-for-the-game.md); far from the end a hand's
//! chance of winning moves with its points, so the prior's bids are what
//! that context would learn, with all of its iterations behind them.
//!
//! A score context is trained on a sixteenth of the hands, where a bid for
//! points gets them all: left cold, most of its keys are visited a
//! handful of times and play close to uniformly, ordering alone on
//! nothing. With a prior (a score-blind bidding policy), the warm start
//! seeds each fresh key with the prior's bid at the same view's plain key,
//! so a context learns where the score changes a bid and plays the prior
//! elsewhere (docs/experiments/bids-for-the-game.md).
//!
//! The payoff is `2 × chance − 1` for each side: zero-sum between the
//! sides as points are, and a hand worth a whole game at most, where a
//! hand is worth 4 points at most.
//!
//! [`BidsFor::Game`]: euchre_bots::meta::BidsFor::Game

use std::sync::OnceLock;

use euchre_game::engine::seat::{Seat, Team};
use euchre_game::game::context::{ScoreContext, ToGo};
use euchre_game::game::win::WinModel;
use euchre_game::game::{DEFAULT_TARGET, GameScore};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::game_outcomes;
use euchre_bots::leaves::position::team_payoffs;
use euchre_bots::policy_file::most_likely;
use euchre_game::keys::Decision;

/// Mixed into a deal's seed to draw its score, so the score is
/// independent of the cards.
const SCORE_SALT: u64 = 0x5C0E_C0DE_D1CE_F00D;

/// Of every sixteen hands, those dealt in the open context; each other
/// context gets one.
const OPEN_SHARE: u32 = 8;

/// The model every hand's end is valued by ([`game_outcomes::reference`]
/// to [`DEFAULT_TARGET`]), and the score-blind bids a fresh key starts
/// from, if any.
#[derive(Debug)]
pub struct ForGame {
    model: &'static WinModel,
    prior: Option<BiddingBlueprint>,
}

/// The score a hand was dealt at, and its context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DealtAt {
    pub context: ScoreContext,
    pub score: GameScore,
}

impl ForGame {
    /// Bids for the game valued by the one model training values by
    /// (solved once per process), starting from `prior`'s bids if given.
    pub fn new(prior: Option<BiddingBlueprint>) -> ForGame {
        static MODEL: OnceLock<WinModel> = OnceLock::new();
        let model = MODEL.get_or_init(|| {
            WinModel::new(DEFAULT_TARGET, &game_outcomes::reference())
                .expect("the reference outcomes solve to the default target")
        });
        ForGame { model, prior }
    }

    /// Whether fresh keys start from a prior's bids.
    pub fn has_prior(&self) -> bool {
        self.prior.is_some()
    }

    /// The prior's bid (an index into `plain`'s actions) at a bidding
    /// decision keyed without its context; `None` without a prior.
    pub fn prior_bid(&self, plain: &Decision) -> Option<usize> {
        let prior = self.prior.as_ref()?;
        let mut probabilities = [0.0; store::MAX_ACTIONS];
        let width = plain.actions.len();
        prior.probabilities(plain.key.0, &mut probabilities[..width]);
        Some(most_likely(&probabilities[..width]))
    }

    /// The score the deal of chance outcome `deal_seed` is dealt at.
    pub fn draw(&self, deal_seed: u64) -> DealtAt {
        let mut rng = SmallRng::seed_from_u64(deal_seed ^ SCORE_SALT);
        let open_share = if self.prior.is_some() { 0 } else { OPEN_SHARE };
        let slot = rng.random_range(0..open_share + 8);
        let context = if slot < open_share {
            ScoreContext::OPEN
        } else {
            ScoreContext::ALL[(slot - open_share + 1) as usize]
        };
        let target = self.model.target();
        let mut points = |to_go: ToGo| {
            let more = rng.random_range(0..=target.saturating_sub(3));
            ScoreContext::points(to_go, target, more)
        };
        let dealers = points(context.dealers);
        let others = points(context.others);
        let mut score = GameScore::start(Seat::North, target);
        score.points[Seat::North.team().index()] = dealers;
        score.points[Seat::North.team().other().index()] = others;
        DealtAt { context, score }
    }

    /// Each side's payoff, by [`Team::index`], for a hand dealt `at` whose
    /// end gave each side `points` (its points minus the other's, as
    /// leaves value a hand): whole points, since only one side scores.
    pub fn payoffs(&self, at: &DealtAt, points: [f64; 2]) -> [f64; 2] {
        let won = points.map(|payoff| payoff.max(0.0).round() as u8);
        let after = at.score.after_points(won);
        team_payoffs(|team: Team| 2.0 * self.model.chance(&after, team) - 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_context_is_drawn_and_its_points_fall_in_it() {
        let for_game = ForGame::new(None);
        let mut seen = [0u32; 9];
        for seed in 0..16_000u64 {
            let at = for_game.draw(seed);
            seen[usize::from(at.context.tag())] += 1;
            assert_eq!(ScoreContext::of(&at.score), at.context, "seed {seed}");
            assert_eq!(at.score.dealer, Seat::North);
        }
        // Half open, a sixteenth each other: 8,000 and 1,000 expected.
        assert!((7_600..8_400).contains(&seen[0]), "{seen:?}");
        for count in &seen[1..] {
            assert!((850..1_150).contains(count), "{seen:?}");
        }
    }

    #[test]
    fn a_hand_that_wins_the_game_is_worth_the_whole_game_and_the_payoffs_are_zero_sum() {
        let for_game = ForGame::new(None);
        let at = (0..)
            .map(|seed| for_game.draw(seed))
            .find(|at| at.context.dealers == ToGo::One)
            .unwrap();
        let dealers = Seat::North.team();
        // The dealer's side makes a point: it wins the game.
        let mut points = [0.0; 2];
        points[dealers.index()] = 1.0;
        points[dealers.other().index()] = -1.0;
        let payoffs = for_game.payoffs(&at, points);
        assert_eq!(payoffs[dealers.index()], 1.0);
        assert_eq!(payoffs[dealers.other().index()], -1.0);
        // A hand passed out leaves the score and hands the deal over.
        let nothing = for_game.payoffs(&at, [0.0, 0.0]);
        assert!((nothing[0] + nothing[1]).abs() < 1e-12);
        assert!(nothing[dealers.index()] > 0.0 && nothing[dealers.index()] < 1.0);
    }
}
