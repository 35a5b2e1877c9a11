//! What a bot, or an encoding, is asked about: a `Hand` or a view dict.
//! Kept apart from [`crate::view`], which a `Hand` itself uses to write
//! its views.

use euchre_bots::seen::Seen;
use euchre_game::engine::rules::Rules;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{ViewError, raise};
use crate::hand::Hand;
use crate::view::Position;

/// What a bot (or an encoding) is asked about: a `Hand`, its seat to act
/// read directly, or a view dict, a position rebuilt to agree with it.
pub(crate) enum Asked<'a> {
    Hand(PyRef<'a, Hand>),
    View(Box<Position>),
}

impl<'a> Asked<'a> {
    /// `asked` read for a bot playing `rules` (`None`: any rules).
    pub(crate) fn of(asked: &'a Bound<'_, PyAny>, rules: Option<Rules>) -> PyResult<Asked<'a>> {
        if let Ok(hand) = asked.cast::<Hand>() {
            let hand = hand.borrow();
            if let Some(rules) = rules
                && hand.rules_of() != rules
            {
                return Err(raise::<ViewError>(format!(
                    "the hand is played under {}, but the bot plays {rules}",
                    hand.rules_of()
                )));
            }
            if hand.is_over() {
                return Err(raise::<ViewError>(
                    "the hand is over: there is no decision to make",
                ));
            }
            return Ok(Asked::Hand(hand));
        }
        let view = asked.cast::<PyDict>().map_err(|_| {
            raise::<ViewError>(format!(
                "expected a euchre.Hand or a view dict, not {}",
                asked
                    .get_type()
                    .name()
                    .map_or_else(|_| "this".to_owned(), |n| n.to_string())
            ))
        })?;
        Ok(Asked::View(Box::new(Position::of(view, rules)?)))
    }

    /// The view's own seed, if it names one.
    pub(crate) fn seed(&self) -> Option<u64> {
        match self {
            Asked::Hand(_) => None,
            Asked::View(position) => position.request.seed,
        }
    }

    pub(crate) fn seen(&self) -> PyResult<Seen<'_>> {
        match self {
            Asked::Hand(hand) => Ok(hand.seen()),
            Asked::View(position) => position.seen(),
        }
    }
}
