//! The one interface every player implements.

use euchre_game::engine::action::Action;
use rand::rngs::SmallRng;

use crate::meta::CardPlay;
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
