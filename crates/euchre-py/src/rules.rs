//! Rule options from Python: a dict spelled as a profile's `[rules]` table
//! and the bot API's keys (`{"stick_the_dealer": False}`), applied to the
//! defaults. One spelling for every surface: [`Rules`]' own.

use euchre_game::engine::rules::Rules;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pythonize::{depythonize, pythonize};

use crate::errors::{EuchreError, raise};

/// The rules a dict names (the defaults for `None`); an unknown option or
/// a value of the wrong kind is refused by name.
pub(crate) fn rules_of(options: Option<&Bound<'_, PyDict>>) -> PyResult<Rules> {
    let Some(options) = options else {
        return Ok(Rules::default());
    };
    // Options left out keep their defaults (`serde(default)`); an unknown
    // one is refused (`deny_unknown_fields`).
    depythonize(options.as_any()).map_err(|error| {
        raise::<EuchreError>(format!(
            "rules: {error}; the options are stick_the_dealer, lone_defender, \
             dealer_may_discard_upcard, loner_lead and canadian_loners"
        ))
    })
}

/// Every option of `rules`, named, as a dict.
pub(crate) fn rules_dict<'py>(py: Python<'py>, rules: Rules) -> PyResult<Bound<'py, PyAny>> {
    pythonize(py, &rules).map_err(|error| raise::<EuchreError>(error))
}
