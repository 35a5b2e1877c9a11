//! Where a game stands, and the moves the table refuses.

use euchre_game::engine::action::Action;
use thiserror::Error;

/// A move the table refuses, in words for the person who tried it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("'{0}' is not a move: {1}")]
    Unreadable(String, String),
    #[error("{} is not allowed: {reason}", action.pretty())]
    Illegal { action: Action, reason: String },
    #[error("the game is over; start a new one")]
    GameOver,
    #[error("the hand is still being played")]
    HandNotOver,
    #[error(
        "this move answers position {sent}, but the game is at {now}: it has moved on (a form sent twice, or from an old page); here it is now"
    )]
    Stale { sent: Position, now: Position },
    #[error("{0}")]
    CannotUndo(&'static str),
    #[error("no hand of this game is finished yet: analyse it once the first hand is over")]
    NothingToAnalyse,
}

/// Where a game stands: hands finished, actions taken in this hand, and
/// moves taken back in the game. A form carries the position it was drawn
/// at, so a move posted twice, or from a page the game has since left, is
/// refused instead of applied to a position its sender never saw; counting
/// the moves taken back keeps a page from before an undo stale even where
/// the hand has come back to as many actions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub hands_played: u32,
    pub actions: u32,
    pub taken_back: u32,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.hands_played, self.actions)?;
        if self.taken_back > 0 {
            write!(f, ".{}", self.taken_back)?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Position {
    type Err = MoveError;

    fn from_str(text: &str) -> Result<Position, MoveError> {
        let unreadable = || {
            MoveError::Unreadable(
                text.to_owned(),
                "a position is written HANDS.ACTIONS or HANDS.ACTIONS.TAKEN_BACK, as the game's forms send it".to_owned(),
            )
        };
        let parts: Vec<&str> = text.split('.').collect();
        let number = |part: &str| part.parse::<u32>().map_err(|_| unreadable());
        match parts[..] {
            [hands, actions] => Ok(Position {
                hands_played: number(hands)?,
                actions: number(actions)?,
                taken_back: 0,
            }),
            [hands, actions, taken_back] => Ok(Position {
                hands_played: number(hands)?,
                actions: number(actions)?,
                taken_back: number(taken_back)?,
            }),
            _ => Err(unreadable()),
        }
    }
}
