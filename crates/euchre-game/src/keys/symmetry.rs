//! The game's exact suit symmetry.
//!
//! Renaming suits changes nothing about euchre *only* if the renaming keeps
//! colours paired, because the jack of trump's colour becomes the left
//! bower. The permutations that keep the pairs {clubs, spades} and
//! {diamonds, hearts} together form a group of 8: swap the pairs or not,
//! and swap within each pair or not. Canonical keys are the least encoding
//! over this group; treating any three suits as interchangeable would merge
//! hands that play differently.

use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet, Suit};
use crate::engine::state::Deal;

/// The least of `encode`'s values over the colour-preserving renamings,
/// and the first renaming (in the group's fixed order) that gives it: the
/// canonical key of a view, and the renaming its actions are ordered by.
/// When several renamings tie, the view is symmetric under their
/// difference, so any of them maps actions consistently.
pub fn least_encoding(encode: impl Fn(&SuitPerm) -> u128) -> (u128, SuitPerm) {
    let mut best = (u128::MAX, SuitPerm::IDENTITY);
    for perm in SuitPerm::COLOUR_PRESERVING {
        let code = encode(&perm);
        if code < best.0 {
            best = (code, perm);
        }
    }
    best
}

/// Whether no renaming makes `encode` smaller than the view as it is: the
/// view is its symmetry class's representative.
pub fn is_least(encode: impl Fn(&SuitPerm) -> u128) -> bool {
    let own = encode(&SuitPerm::IDENTITY);
    SuitPerm::COLOUR_PRESERVING[1..]
        .iter()
        .all(|perm| encode(perm) >= own)
}

/// A renaming of suits: suit `s` becomes `self.0[s]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SuitPerm([Suit; 4]);

impl SuitPerm {
    pub const IDENTITY: SuitPerm = SuitPerm(Suit::ALL);

    /// The 8 colour-preserving permutations, identity first.
    pub const COLOUR_PRESERVING: [SuitPerm; 8] = colour_preserving();

    #[inline]
    pub fn suit(&self, suit: Suit) -> Suit {
        self.0[suit.index()]
    }

    #[inline]
    pub fn card(&self, card: Card) -> Card {
        Card::new(self.suit(card.suit()), card.rank())
    }

    #[inline]
    pub fn cards(&self, set: CardSet) -> CardSet {
        let mut bits = 0u32;
        for suit in Suit::ALL {
            bits |= set.suit_ranks(suit) << (6 * self.suit(suit) as u32);
        }
        CardSet::from_bits(bits)
    }

    pub fn action(&self, action: Action) -> Action {
        match action {
            Action::Call { suit, alone } => Action::Call {
                suit: self.suit(suit),
                alone,
            },
            Action::Discard(card) => Action::Discard(self.card(card)),
            Action::Play(card) => Action::Play(self.card(card)),
            other => other,
        }
    }

    pub fn deal(&self, deal: &Deal) -> Deal {
        Deal {
            dealer: deal.dealer,
            hands: deal.hands.map(|hand| self.cards(hand)),
            upcard: self.card(deal.upcard),
        }
    }

    pub fn inverse(&self) -> SuitPerm {
        let mut inverse = [Suit::Clubs; 4];
        for suit in Suit::ALL {
            inverse[self.suit(suit).index()] = suit;
        }
        SuitPerm(inverse)
    }
}

const fn colour_preserving() -> [SuitPerm; 8] {
    let mut perms = [SuitPerm::IDENTITY; 8];
    let mut code = 0;
    while code < 8 {
        // Bit 0 swaps the colour pairs, bit 1 swaps within the black pair,
        // bit 2 within the red pair. Black suits sit at 0 and 3, red at 1 and 2.
        let (black, red) = if code & 1 == 0 {
            ([0u8, 3], [1u8, 2])
        } else {
            ([1, 2], [0, 3])
        };
        let black = if code & 2 == 0 {
            black
        } else {
            [black[1], black[0]]
        };
        let red = if code & 4 == 0 { red } else { [red[1], red[0]] };
        perms[code] = SuitPerm([
            Suit::from_index(black[0]),
            Suit::from_index(red[0]),
            Suit::from_index(red[1]),
            Suit::from_index(black[1]),
        ]);
        code += 1;
    }
    perms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_eight_distinct_colour_preserving_perms() {
        let perms = SuitPerm::COLOUR_PRESERVING;
        assert_eq!(perms[0], SuitPerm::IDENTITY);
        for (i, a) in perms.iter().enumerate() {
            for suit in Suit::ALL {
                assert_eq!(a.suit(suit.same_colour()), a.suit(suit).same_colour());
            }
            for b in &perms[i + 1..] {
                assert_ne!(a, b);
            }
            let round_trip = a.inverse();
            for card in Card::all() {
                assert_eq!(round_trip.card(a.card(card)), card);
            }
        }
    }

    #[test]
    fn permuting_a_set_permutes_each_card() {
        let hand: CardSet = "9c Jc Ad Th Ks".parse().unwrap();
        for perm in SuitPerm::COLOUR_PRESERVING {
            let expected: CardSet = hand.iter().map(|card| perm.card(card)).collect();
            assert_eq!(perm.cards(hand), expected);
        }
    }
}
