//! One bot's bids with another's card play (`bids:BOT+BOT`).
//!
//! The mirror of a bidding policy followed by a card player
//! (`policy:FILE+pimc:50`): here any bot bids and any bot plays the cards,
//! so a match can hold one side of a bot constant and change the other.
//! That is how a gap between two bots is split into bidding and card play,
//! for example PIMC's bids with a trained table's card play.

use std::sync::Arc;

use euchre_game::engine::action::Action;
use euchre_game::engine::state::Stage;
use euchre_game::game::GameScore;
use rand::rngs::SmallRng;

use crate::bot::{ActionValue, Bot};
use crate::meta::CardPlay;
use crate::seen::Seen;

/// `bidder` takes every decision before the first card (both bidding
/// rounds, the dealer's discard, defending alone); `player` plays the
/// cards. The same split as a policy's `bidding` horizon.
pub struct SplitBot {
    bidder: Arc<dyn Bot>,
    player: Arc<dyn Bot>,
}

impl SplitBot {
    pub fn new(bidder: Arc<dyn Bot>, player: Arc<dyn Bot>) -> SplitBot {
        SplitBot { bidder, player }
    }

    fn owner(&self, seen: &Seen<'_>) -> &dyn Bot {
        if seen.stage() == Stage::Play {
            self.player.as_ref()
        } else {
            self.bidder.as_ref()
        }
    }
}

impl std::fmt::Debug for SplitBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitBot")
            .field("bidder", &self.bidder.name())
            .field("player", &self.player.name())
            .finish()
    }
}

impl Bot for SplitBot {
    fn name(&self) -> String {
        format!("bids:{}+{}", self.bidder.name(), self.player.name())
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        self.owner(seen).act(seen, rng)
    }

    fn values(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Option<Vec<ActionValue>> {
        self.owner(seen).values(seen, rng)
    }

    fn probabilities(&self, seen: &Seen<'_>) -> Option<Vec<(Action, f64)>> {
        self.owner(seen).probabilities(seen)
    }

    /// The half that owns the decision, whose twin is this bot's twin's
    /// half there ([`Self::valuing`]).
    fn values_beside(
        &self,
        seen: &Seen<'_>,
        twin_score: Option<GameScore>,
        rng: &mut SmallRng,
    ) -> Option<[Vec<ActionValue>; 2]> {
        self.owner(seen).values_beside(seen, twin_score, rng)
    }

    /// Both parts must: a view with a score would otherwise be valued in
    /// chances at some decisions and in points at others.
    fn plays_for_the_game(&self) -> bool {
        self.bidder.plays_for_the_game() && self.player.plays_for_the_game()
    }

    /// Each half that values its options, in the unit asked; a half that
    /// does not is kept as it is.
    fn valuing(&self, for_the_game: bool) -> Option<Arc<dyn Bot>> {
        let (bidder, player) = (
            self.bidder.valuing(for_the_game),
            self.player.valuing(for_the_game),
        );
        if bidder.is_none() && player.is_none() {
            return None;
        }
        Some(Arc::new(SplitBot::new(
            bidder.unwrap_or_else(|| Arc::clone(&self.bidder)),
            player.unwrap_or_else(|| Arc::clone(&self.player)),
        )))
    }

    fn report(&self) -> Option<String> {
        let reports: Vec<String> = [&self.bidder, &self.player]
            .into_iter()
            .filter_map(|bot| bot.report())
            .collect();
        (!reports.is_empty()).then(|| reports.join("\n"))
    }

    fn card_play(&self) -> Option<CardPlay> {
        self.player.card_play()
    }

    fn warnings(&self) -> Vec<String> {
        let mut warnings = self.bidder.warnings_followed_by(self.player.as_ref());
        warnings.extend(self.player.warnings());
        warnings
    }
}

#[cfg(test)]
mod tests {
    use euchre_game::engine::rules::Rules;
    use euchre_game::engine::seat::Seat;
    use euchre_game::engine::state::{Deal, GameState};
    use rand::SeedableRng;

    use super::*;

    /// Always the first legal action, or always the last: two bots that
    /// differ at every decision with a choice.
    struct Fixed {
        last: bool,
    }

    impl Bot for Fixed {
        fn name(&self) -> String {
            if self.last { "last" } else { "first" }.to_owned()
        }

        fn act(&self, seen: &Seen<'_>, _rng: &mut SmallRng) -> Action {
            let legal = seen.legal();
            legal[if self.last { legal.len() - 1 } else { 0 }]
        }
    }

    #[test]
    fn the_bidder_takes_every_decision_before_the_first_card_and_the_player_the_cards() {
        let split = SplitBot::new(
            Arc::new(Fixed { last: false }),
            Arc::new(Fixed { last: true }),
        );
        assert_eq!(split.name(), "bids:first+last");
        let mut rng = SmallRng::seed_from_u64(5);
        let (mut bids, mut cards) = (0, 0);
        for _ in 0..200 {
            let mut state = GameState::new(Deal::random(Seat::North, &mut rng), Rules::default());
            let mut history = Vec::new();
            while let Some(seat) = state.to_act() {
                let legal = state.legal_actions();
                let action = split.act(&Seen::new(&state, &history), &mut rng);
                if legal.len() > 1 {
                    if state.stage() == Stage::Play {
                        assert_eq!(action, legal[legal.len() - 1]);
                        cards += 1;
                    } else {
                        assert_eq!(action, legal[0]);
                        bids += 1;
                    }
                }
                state.apply(action);
                history.push((seat, action));
            }
        }
        assert!(bids > 200 && cards > 200, "{bids} bids, {cards} cards");
    }
}
