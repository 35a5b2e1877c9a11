//! Errors the engine reports for bad input. Each says what is wrong in words
//! a user can act on.

use thiserror::Error;

use crate::engine::action::Action;
use crate::engine::card::Card;
use crate::engine::seat::Seat;

/// Text that is not valid card, seat or action notation.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum NotationError {
    #[error("'{0}' is not a card: write rank then suit, e.g. 9c Tc Jd Qh Ks Ac")]
    BadCard(String),
    #[error("'{0}' is not a suit: use c, d, h or s")]
    BadSuit(String),
    #[error("'{0}' is not a seat: use N, E, S or W")]
    BadSeat(String),
    #[error(
        "'{0}' is not an action: use pass, order, order alone, call <suit>, \
         call <suit> alone, defend alone, discard <card> or play <card>"
    )]
    BadAction(String),
    #[error("card {0} appears twice")]
    DuplicateCard(Card),
}

/// A deal that cannot be the start of a hand.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DealError {
    #[error("seat {seat} holds {count} cards; every hand has exactly 5")]
    WrongHandSize { seat: Seat, count: u32 },
    #[error("card {0} is dealt twice")]
    DuplicateCard(Card),
}

/// An action that the rules do not allow at this point of the hand.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IllegalAction {
    #[error("the hand is over; no more actions are allowed")]
    HandOver,
    #[error("{action} is not legal for {seat} here; legal: {legal}")]
    NotLegal {
        seat: Seat,
        action: Action,
        legal: String,
    },
}
