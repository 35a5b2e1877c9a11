//! Moves in the words players use (`order up alone`, `call ♥`, `play
//! 10♠`), written once for every surface that shows a move to a person:
//! the terminal, the web table, the analysis board and error messages.
//! Each surface draws cards and suits its own way ([`Glyphs`]: symbols,
//! letters, or HTML with coloured suits); the words around them are
//! these. The notation (`order alone`, `call h`, `play Ts`), which
//! records and the bot API read, is [`Action`]'s `Display`.

use super::action::Action;
use super::card::{Card, CardSet, Suit};
use super::state::GameState;
use super::trump::{effective_suit, trump_order};

/// How a surface draws a card and a suit.
pub trait Glyphs {
    fn card(&self, card: Card) -> String;
    fn suit(&self, suit: Suit) -> String;
}

/// Cards as players write them, `10♠`, and suits as symbols.
#[derive(Clone, Copy, Debug, Default)]
pub struct Symbols;

impl Glyphs for Symbols {
    fn card(&self, card: Card) -> String {
        card.pretty()
    }

    fn suit(&self, suit: Suit) -> String {
        suit.symbol().to_string()
    }
}

/// Cards and suits in the notation's letters (`Ts`, `h`), for a terminal
/// without the suit symbols; the words stay the same.
#[derive(Clone, Copy, Debug, Default)]
pub struct Letters;

impl Glyphs for Letters {
    fn card(&self, card: Card) -> String {
        card.to_string()
    }

    fn suit(&self, suit: Suit) -> String {
        suit.letter().to_string()
    }
}

/// `action` in a player's words, its cards and suits drawn by `glyphs`.
pub fn action_words(action: Action, glyphs: &dyn Glyphs) -> String {
    let alone = |alone: bool| if alone { " alone" } else { "" };
    match action {
        Action::Pass => "pass".to_owned(),
        Action::Order { alone: a } => format!("order up{}", alone(a)),
        Action::Call { suit, alone: a } => format!("call {}{}", glyphs.suit(suit), alone(a)),
        Action::DefendAlone => "defend alone".to_owned(),
        Action::Discard(card) => format!("discard {}", glyphs.card(card)),
        Action::Play(card) => format!("play {}", glyphs.card(card)),
    }
}

/// The suit a hand is arranged by: trump once made, the upcard's suit
/// before.
pub fn shown_trump(state: &GameState) -> Suit {
    state.contract().map_or(state.upcard().suit(), |c| c.trump)
}

/// Where `card` sits in a hand as a player arranges it: trump first (the
/// bowers, then down), then each other suit from its highest card.
pub fn shown_order(card: Card, trump: Suit) -> (bool, usize, std::cmp::Reverse<u8>) {
    let suit = effective_suit(card, trump);
    let strength = if suit == trump {
        trump_order(card, trump) + 10
    } else {
        card.rank() as u8
    };
    (suit != trump, suit.index(), std::cmp::Reverse(strength))
}

/// `cards` as a player arranges them ([`shown_order`]), so that every
/// surface shows a hand, and numbers its moves, in one order.
pub fn arranged(cards: CardSet, trump: Suit) -> Vec<Card> {
    let mut cards: Vec<Card> = cards.iter().collect();
    cards.sort_by_key(|&card| shown_order(card, trump));
    cards
}

impl Action {
    /// This move in a player's words, with suit symbols: `order up
    /// alone`, `call ♥`, `play 10♠`.
    pub fn pretty(self) -> String {
        action_words(self, &Symbols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::card::Rank;

    #[test]
    fn a_hand_is_arranged_trump_first_from_the_right_bower() {
        let hand: CardSet = ["Ah", "Jd", "9s", "Jh", "Ks"]
            .iter()
            .map(|card| card.parse::<Card>().unwrap())
            .collect();
        let shown: Vec<String> = arranged(hand, Suit::Hearts)
            .into_iter()
            .map(|card| card.pretty())
            .collect();
        assert_eq!(shown, ["J♥", "J♦", "A♥", "K♠", "9♠"]);
    }

    #[test]
    fn moves_read_as_players_say_them() {
        let ten = Card::new(Suit::Spades, Rank::Ten);
        let cases = [
            (Action::Pass, "pass", "pass"),
            (Action::Order { alone: false }, "order up", "order up"),
            (
                Action::Order { alone: true },
                "order up alone",
                "order up alone",
            ),
            (
                Action::Call {
                    suit: Suit::Hearts,
                    alone: true,
                },
                "call ♥ alone",
                "call h alone",
            ),
            (Action::DefendAlone, "defend alone", "defend alone"),
            (Action::Discard(ten), "discard 10♠", "discard Ts"),
            (Action::Play(ten), "play 10♠", "play Ts"),
        ];
        for (action, symbols, letters) in cases {
            assert_eq!(action.pretty(), symbols);
            assert_eq!(action_words(action, &Letters), letters);
        }
        // The notation is unchanged: records and the bot API read it.
        assert_eq!(Action::Play(ten).to_string(), "play Ts");
        assert_eq!(Action::Order { alone: true }.to_string(), "order alone");
    }

    #[test]
    fn every_rank_has_a_word_and_the_ten_is_10() {
        assert_eq!(Card::new(Suit::Diamonds, Rank::Ten).pretty(), "10♦");
        assert_eq!(Card::new(Suit::Clubs, Rank::Jack).pretty(), "J♣");
        for rank in Rank::ALL {
            assert!(!rank.word().is_empty());
        }
    }
}
