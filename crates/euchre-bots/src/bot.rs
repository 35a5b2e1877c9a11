//! The one interface every player implements.

use std::sync::Arc;

use euchre_game::engine::action::Action;
use euchre_game::game::GameScore;
use rand::rngs::SmallRng;

use crate::meta::CardPlay;
use crate::seen::Seen;

/// One legal action's value as a bot judged it: the mean over the worlds it
/// sampled of the points the actor's side scores after it, and how much
/// that varied from world to world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ActionValue {
    pub action: Action,
    /// Points per hand for the actor's side (its points minus the other
    /// side's).
    pub value: f64,
    /// The standard deviation of the value over the worlds.
    pub spread: f64,
    /// The standard error of how far this action falls short of the bot's
    /// best, over the same worlds (paired, so the luck both share cancels);
    /// 0 for the best itself. A shortfall within about two of these is
    /// within the sampling's noise.
    pub shortfall_error: f64,
    /// How many worlds (counting repeats) were valued.
    pub worlds: u32,
}

/// Every legal action's value in each world valued, a row a world: what a
/// valuing bot chooses from, and what says how sure the choice is.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Tallies {
    totals: Vec<i64>,
    /// (copies, each action's value) per distinct world.
    rows: Vec<(i64, Vec<i64>)>,
}

impl Tallies {
    pub(crate) fn new(width: usize) -> Tallies {
        Tallies {
            totals: vec![0; width],
            rows: Vec::new(),
        }
    }

    /// Adds one world's values (one per action, in the legal order),
    /// `copies` times.
    pub(crate) fn add(&mut self, values: Vec<i64>, copies: i64) {
        for (total, value) in self.totals.iter_mut().zip(&values) {
            *total += value * copies;
        }
        self.rows.push((copies, values));
    }

    /// Each action's total over the worlds, by their copies.
    #[cfg(test)]
    pub(crate) fn totals(&self) -> &[i64] {
        &self.totals
    }

    /// Each distinct world's copies and values, in the order added.
    #[cfg(test)]
    pub(crate) fn rows(&self) -> &[(i64, Vec<i64>)] {
        &self.rows
    }

    /// The index of the largest total, the last of equals, as `max_by_key`
    /// picks: every bot that chooses by totals breaks ties the same way.
    pub(crate) fn best_index(&self) -> usize {
        (0..self.totals.len())
            .max_by_key(|&i| self.totals[i])
            .unwrap_or(0)
    }

    /// Each action's value with its spread and its paired shortfall's
    /// error, each divided by `scale` (a value that sums several estimates
    /// of the same points).
    pub(crate) fn values(&self, legal: &[Action], scale: f64) -> Vec<ActionValue> {
        let worlds: i64 = self.rows.iter().map(|(copies, _)| copies).sum();
        let n = worlds.max(1) as f64;
        let best = self.best_index();
        // The mean and variance of `f` over the worlds, by their copies.
        let moments = |f: &dyn Fn(&[i64]) -> f64| {
            let weighted = |g: &dyn Fn(f64) -> f64| {
                self.rows
                    .iter()
                    .map(|(copies, row)| *copies as f64 * g(f(row)))
                    .sum::<f64>()
                    / n
            };
            let mean = weighted(&|x| x);
            (mean, weighted(&|x| (x - mean).powi(2)))
        };
        legal
            .iter()
            .enumerate()
            .map(|(i, &action)| {
                let (mean, variance) = moments(&|row: &[i64]| row[i] as f64);
                let (_, gap_variance) = moments(&|row: &[i64]| (row[best] - row[i]) as f64);
                ActionValue {
                    action,
                    value: mean / scale,
                    spread: variance.sqrt() / scale,
                    shortfall_error: (gap_variance / n).sqrt() / scale,
                    worlds: worlds as u32,
                }
            })
            .collect()
    }
}

/// A player. `&self` and `Sync` so that one bot serves every table of a
/// parallel match; randomness comes from the caller's generator, so a match
/// is deterministic for its seed.
pub trait Bot: Send + Sync {
    fn name(&self) -> String;

    /// One of `seen.legal()`.
    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action;

    /// The probability the bot gives each legal action here, when it plays
    /// a strategy it can state: a trained policy on a key it trained. The
    /// bot API reports them beside the chosen move.
    fn probabilities(&self, _seen: &Seen<'_>) -> Option<Vec<(Action, f64)>> {
        None
    }

    /// What each legal action is worth to the actor's side, in points per
    /// hand, for bots that choose by valuing their options (PIMC, search).
    /// Analysis of a recorded game reads a player's loss from these; a bot
    /// that chooses by rules or by a trained policy has none.
    fn values(&self, _seen: &Seen<'_>, _rng: &mut SmallRng) -> Option<Vec<ActionValue>> {
        None
    }

    /// Whether [`Bot::values`], given a view with the game's score, values
    /// each action by the actor's side's chance of winning the game (a
    /// number from 0 to 1) rather than by points. Analysis judges in the
    /// unit the bot values in.
    fn plays_for_the_game(&self) -> bool {
        false
    }

    /// The same bot valuing its options by the chance of winning the game
    /// (`for_the_game`) or by points, sharing whatever it has loaded: the
    /// analysis and the hints state a move's cost in both units, from the
    /// same judge. `None` for a bot that does not value its options.
    fn valuing(&self, _for_the_game: bool) -> Option<Arc<dyn Bot>> {
        None
    }

    /// [`Bot::values`] here and, beside them, the values this bot's twin
    /// in the other unit ([`Bot::valuing`]) gives the same decision seen
    /// with `twin_score`, on the same worlds: what the two would answer
    /// asked in turn with generators in the same state, from one set of
    /// solves where the two units share them (PIMC's worlds are solved for
    /// the hand's outcome, which each unit then prices). `None` (the
    /// default) where they cannot be shared; the caller then asks each.
    fn values_beside(
        &self,
        _seen: &Seen<'_>,
        _twin_score: Option<GameScore>,
        _rng: &mut SmallRng,
    ) -> Option<[Vec<ActionValue>; 2]> {
        None
    }

    /// Anything worth printing after a match, such as how often a policy
    /// met a key it had never trained.
    fn report(&self) -> Option<String> {
        None
    }

    /// The kind of card play this bot brings, if any: a bidding
    /// or play-N policy should be followed by a card player whose play its
    /// leaves assumed.
    fn card_play(&self) -> Option<CardPlay> {
        None
    }

    /// What a reader of a match should know before trusting its result,
    /// such as a policy followed by a card player its leaves did not assume.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// [`Bot::warnings`] when `player` plays the cards after this bot's
    /// bids, in place of whoever would follow them otherwise (`bids:A+B`).
    fn warnings_followed_by(&self, _player: &dyn Bot) -> Vec<String> {
        self.warnings()
    }
}
