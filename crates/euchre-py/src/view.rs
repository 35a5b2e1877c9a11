//! A seat's view as a Python dict: the bot API's request
//! ([`ActRequest`], documented in `docs/bot-api.md`), spelled in the same
//! keys, plus `"legal"`, the actions legal in it. One description of a
//! view for every surface: a researcher's bot reads what `trainer act`
//! reads.
//!
//! A dict given back to a bot may keep `"legal"`; it must then be exactly
//! the legal actions of the position the rest of the view describes (a
//! view that contradicts itself is refused, not played).

use euchre_bots::api::ActRequest;
use euchre_bots::seen::{History, Seen};
use euchre_game::engine::rules::{RuleChanges, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::GameState;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pythonize::{depythonize, pythonize};

use crate::errors::{ViewError, raise};
use crate::rules::check_switches;

/// The key that carries the legal actions.
const LEGAL: &str = "legal";

/// `seen` as a dict: the acting seat's request, with `seed` for a bot
/// that wants its choices reproducible, and the legal actions.
pub(crate) fn view_dict<'py>(
    py: Python<'py>,
    seen: &Seen<'_>,
    seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    // Every rule option named: a bot that plays other rules refuses the
    // view by name instead of misreading it.
    let request = ActRequest::of_view(seen, RuleChanges::every(seen.rules()), seed);
    let view = pythonize(py, &request)
        .map_err(raise::<ViewError>)?
        .cast_into::<PyDict>()?;
    let legal: Vec<String> = seen.legal().iter().map(ToString::to_string).collect();
    view.set_item(LEGAL, legal)?;
    Ok(view)
}

/// A position rebuilt from a view dict for a bot that plays `rules`: some
/// full state agreeing with the view, its history, and the view's seed.
pub(crate) struct Position {
    pub(crate) state: GameState,
    pub(crate) history: Vec<(Seat, euchre_game::engine::action::Action)>,
    pub(crate) request: ActRequest,
}

impl Position {
    /// The position `view` describes, for a bot that plays `rules` (a view
    /// naming other rules is refused), or under the rules the view names.
    pub(crate) fn of(view: &Bound<'_, PyDict>, rules: Option<Rules>) -> PyResult<Position> {
        check_switches(view).map_err(|error| raise::<ViewError>(error.to_string()))?;
        let view = view.copy()?;
        let legal = view.get_item(LEGAL)?;
        view.del_item(LEGAL).ok();
        let request: ActRequest = depythonize(view.as_any()).map_err(|error| {
            raise::<ViewError>(format!(
                "{error}; a view has the keys of the bot API's request \
                 (dealer, seat, hand, upcard, actions; optionally discard, \
                 score, seed, legal and rule options)"
            ))
        })?;
        let rules = rules.unwrap_or_else(|| Rules::default().with(request.rules));
        let knowledge = request.view(rules).map_err(raise::<ViewError>)?;
        let (state, history) = knowledge
            .complete_with_history()
            .map_err(raise::<ViewError>)?;
        if let Some(legal) = legal {
            let given: Vec<String> = legal.extract().map_err(|_| {
                raise::<ViewError>("legal: a list of actions as strings, such as \"pass\"")
            })?;
            let actual: Vec<String> = state
                .legal_actions()
                .iter()
                .map(ToString::to_string)
                .collect();
            if given != actual {
                return Err(raise::<ViewError>(format!(
                    "legal: the view lists {given:?}, but the position it describes allows {actual:?}"
                )));
            }
        }
        Ok(Position {
            state,
            history,
            request,
        })
    }

    /// The seen view, with the score when the request gives one.
    pub(crate) fn seen(&self) -> PyResult<Seen<'_>> {
        let history: &History = &self.history;
        Ok(match self.request.score {
            Some(score) => Seen::in_game(
                &self.state,
                history,
                score
                    .game_score(self.state.dealer())
                    .map_err(raise::<ViewError>)?,
            ),
            None => Seen::new(&self.state, history),
        })
    }
}
