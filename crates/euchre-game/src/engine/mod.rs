//! The rules engine: cards, seats, a hand's state and its legal moves, the
//! replay notation, and the open-hand (double-dummy) solver that values a
//! position with every card known.

pub mod action;
pub mod card;
pub mod double_dummy;
pub mod error;
pub mod move_effect;
pub mod replay;
pub mod rules;
pub mod seat;
pub mod seat_knowledge;
pub mod state;
pub mod trump;
pub mod words;
