//! The one interface every player implements.

use euchre_game::engine::action::Action;
use rand::rngs::SmallRng;

use crate::meta::CardPlay;

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
    /// How many worlds (counting repeats) were valued.
    pub worlds: u32,
}

/// A running sum of one action's value over weighted worlds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Tally {
    pub(crate) total: i64,
    squares: f64,
    worlds: u32,
}

impl Tally {
    /// Adds a world's value `copies` times.
    pub(crate) fn add(&mut self, value: i64, copies: i64) {
        self.total += value * copies;
        self.squares += (value * value * copies) as f64;
        self.worlds += copies as u32;
    }

    /// The mean and spread, with each value divided by `scale` (a value
    /// that sums several estimates of the same points).
    pub(crate) fn value(&self, action: Action, scale: f64) -> ActionValue {
        let worlds = f64::from(self.worlds.max(1));
        let mean = self.total as f64 / worlds;
        let variance = (self.squares / worlds - mean * mean).max(0.0);
        ActionValue {
            action,
            value: mean / scale,
            spread: variance.sqrt() / scale,
            worlds: self.worlds,
        }
    }
}

/// The index of the largest total, the last of equals, as `max_by_key`
/// picks: every bot that chooses by totals breaks ties the same way.
pub(crate) fn best_index(tallies: &[Tally]) -> usize {
    (0..tallies.len())
        .max_by_key(|&i| tallies[i].total)
        .unwrap_or(0)
}
use crate::seen::Seen;

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
