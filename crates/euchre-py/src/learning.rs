//! What a learning agent needs beside the view: the view as a fixed-length
//! vector (`euchre_bots::features`), and the 60 actions by their dense ids
//! (`Action::id`), with the legal ones as a mask.

use euchre_bots::features;
use euchre_game::engine::action::Action;
use pyo3::prelude::*;

use crate::asked::Asked;
use crate::errors::{EuchreError, raise};
use crate::hand::parse_action;

/// How many actions there are, by id.
const ACTIONS: u8 = 60;

/// The seat to act's view (a `Hand` or a view dict) as a list of
/// `len(FEATURE_NAMES)` floats.
#[pyfunction]
pub(crate) fn encode(asked: &Bound<'_, PyAny>) -> PyResult<Vec<f32>> {
    let asked = Asked::of(asked, None)?;
    Ok(features::encode(&asked.seen()?))
}

/// The legal actions of a `Hand` or view as a mask over `ACTIONS`.
#[pyfunction]
pub(crate) fn legal_mask(asked: &Bound<'_, PyAny>) -> PyResult<Vec<bool>> {
    let asked = Asked::of(asked, None)?;
    let legal = asked.seen()?.legal();
    Ok((0..ACTIONS)
        .map(|id| Action::from_id(id).is_some_and(|action| legal.contains(action)))
        .collect())
}

/// An action word's id, its index in `ACTIONS`.
#[pyfunction]
pub(crate) fn action_id(action: &str) -> PyResult<u8> {
    parse_action(action)
        .map(Action::id)
        .map_err(raise::<EuchreError>)
}

/// Every action word, by id.
pub(crate) fn action_words() -> Vec<String> {
    (0..ACTIONS)
        .filter_map(Action::from_id)
        .map(|action| action.to_string())
        .collect()
}

/// What each number of `encode` is.
pub(crate) fn feature_names() -> Vec<String> {
    features::names()
}
