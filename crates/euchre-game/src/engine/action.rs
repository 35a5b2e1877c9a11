//! Actions and the fixed-capacity list of legal actions.

use std::fmt;
use std::str::FromStr;

use crate::engine::card::{Card, Suit};
use crate::engine::error::NotationError;

/// Everything a player can do in a hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Action {
    /// Pass in either bidding round, or decline to defend alone.
    Pass,
    /// Round 1: tell the dealer to pick up the upcard.
    Order {
        alone: bool,
    },
    /// Round 2: name a suit other than the upcard's.
    Call {
        suit: Suit,
        alone: bool,
    },
    /// A defender against a lone maker plays alone too (a rule option).
    DefendAlone,
    /// The dealer, having picked up, discards face down.
    Discard(Card),
    Play(Card),
}

impl Action {
    /// The most legal actions any decision has: round 2 with going alone is
    /// pass plus three suits, each with or without partner.
    pub const MAX_LEGAL: usize = 7;

    /// A dense id in `0..60`, stable across versions, for compact storage.
    pub const fn id(self) -> u8 {
        match self {
            Action::Pass => 0,
            Action::Order { alone } => 1 + alone as u8,
            Action::Call { suit, alone } => 3 + suit as u8 + 4 * alone as u8,
            Action::DefendAlone => 11,
            Action::Discard(card) => 12 + card.index() as u8,
            Action::Play(card) => 36 + card.index() as u8,
        }
    }

    pub fn from_id(id: u8) -> Option<Action> {
        Some(match id {
            0 => Action::Pass,
            1 | 2 => Action::Order { alone: id == 2 },
            3..=10 => Action::Call {
                suit: Suit::from_index(id - 3),
                alone: id >= 7,
            },
            11 => Action::DefendAlone,
            12..=35 => Action::Discard(Card::from_index(id - 12)?),
            36..=59 => Action::Play(Card::from_index(id - 36)?),
            _ => return None,
        })
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let alone = |alone: bool| if alone { " alone" } else { "" };
        match *self {
            Action::Pass => f.write_str("pass"),
            Action::Order { alone: a } => write!(f, "order{}", alone(a)),
            Action::Call { suit, alone: a } => write!(f, "call {suit}{}", alone(a)),
            Action::DefendAlone => f.write_str("defend alone"),
            Action::Discard(card) => write!(f, "discard {card}"),
            Action::Play(card) => write!(f, "play {card}"),
        }
    }
}

impl FromStr for Action {
    type Err = NotationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || NotationError::BadAction(text.to_owned());
        let words: Vec<String> = text
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        Ok(match words.as_slice() {
            ["pass"] => Action::Pass,
            ["order"] => Action::Order { alone: false },
            ["order", "alone"] => Action::Order { alone: true },
            ["call", suit] => Action::Call {
                suit: suit.parse().map_err(|_| bad())?,
                alone: false,
            },
            ["call", suit, "alone"] => Action::Call {
                suit: suit.parse().map_err(|_| bad())?,
                alone: true,
            },
            ["defend", "alone"] => Action::DefendAlone,
            ["discard", card] => Action::Discard(card.parse().map_err(|_| bad())?),
            ["play", card] => Action::Play(card.parse().map_err(|_| bad())?),
            _ => return Err(bad()),
        })
    }
}

/// The legal actions at one decision, inline so that generating them never
/// allocates.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct ActionList {
    len: u8,
    items: [Action; Action::MAX_LEGAL],
}

impl ActionList {
    pub const fn new() -> ActionList {
        ActionList {
            len: 0,
            items: [Action::Pass; Action::MAX_LEGAL],
        }
    }

    #[inline]
    pub fn push(&mut self, action: Action) {
        self.items[self.len as usize] = action;
        self.len += 1;
    }

    #[inline]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn as_slice(&self) -> &[Action] {
        &self.items[..self.len as usize]
    }

    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [Action] {
        &mut self.items[..self.len as usize]
    }

    pub fn contains(&self, action: Action) -> bool {
        self.as_slice().contains(&action)
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Action> {
        self.as_slice().iter()
    }
}

impl Default for ActionList {
    fn default() -> Self {
        ActionList::new()
    }
}

impl std::ops::Index<usize> for ActionList {
    type Output = Action;

    fn index(&self, index: usize) -> &Action {
        &self.as_slice()[index]
    }
}

impl fmt::Debug for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl fmt::Display for ActionList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (position, action) in self.iter().enumerate() {
            if position > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{action}")?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a ActionList {
    type Item = &'a Action;
    type IntoIter = std::slice::Iter<'a, Action>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_are_dense() {
        let mut seen = [false; 60];
        for id in 0..60u8 {
            let action = Action::from_id(id).unwrap();
            assert_eq!(action.id(), id);
            seen[id as usize] = true;
        }
        assert!(seen.iter().all(|&s| s));
        assert_eq!(Action::from_id(60), None);
    }

    #[test]
    fn notation_round_trips() {
        for text in [
            "pass",
            "order",
            "order alone",
            "call h",
            "call s alone",
            "defend alone",
            "discard 9c",
            "play Jd",
        ] {
            let action: Action = text.parse().unwrap();
            assert_eq!(action.to_string(), text);
        }
        assert_eq!("PLAY jd".parse::<Action>().unwrap().to_string(), "play Jd");
        assert!("call x".parse::<Action>().is_err());
        assert!("order together".parse::<Action>().is_err());
    }
}
