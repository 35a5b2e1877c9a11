//! Rule options from Python: a dict spelled as a profile's `[rules]` table
//! and the bot API's keys (`{"stick_the_dealer": False}`), applied to the
//! defaults. One spelling for every surface: [`Rules`]' own.

use euchre_game::engine::rules::{RuleChanges, Rules};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use pythonize::{depythonize, pythonize};

use crate::errors::{EuchreError, raise};

/// The rules a dict names (the defaults for `None`); an unknown option or
/// a value of the wrong kind is refused by name.
pub(crate) fn rules_of(options: Option<&Bound<'_, PyDict>>) -> PyResult<Rules> {
    let Some(options) = options else {
        return Ok(Rules::default());
    };
    check_switches(options)?;
    // Options left out keep their defaults (`serde(default)`); an unknown
    // one is refused (`deny_unknown_fields`).
    depythonize(options.as_any()).map_err(|error| {
        raise::<EuchreError>(format!(
            "rules: {error}; the options are stick_the_dealer, lone_defender, \
             dealer_may_discard_upcard, loner_lead and canadian_loners"
        ))
    })
}

/// Every option of `rules`, named, as a dict (two rule sets are equal
/// exactly when their dicts are).
pub(crate) fn rules_dict<'py>(py: Python<'py>, rules: Rules) -> PyResult<Bound<'py, PyAny>> {
    pythonize(py, &RuleChanges::every(rules)).map_err(raise::<EuchreError>)
}

/// The rule options that are switches.
const SWITCHES: [&str; 4] = [
    "stick_the_dealer",
    "lone_defender",
    "dealer_may_discard_upcard",
    "canadian_loners",
];

/// Refuses a switch given as anything but `True` or `False`: the dict
/// reader takes any value's truth, so `"no"` would read as on.
pub(crate) fn check_switches(options: &Bound<'_, PyDict>) -> PyResult<()> {
    for name in SWITCHES {
        if let Some(value) = options.get_item(name)?
            && !value.is_instance_of::<PyBool>()
        {
            return Err(raise::<EuchreError>(format!(
                "rules: {name} is {}; it is True or False",
                value.repr()?
            )));
        }
    }
    Ok(())
}
