//! The exceptions the module raises. Every one is a `ValueError` (a bad
//! argument), under one base class a caller can catch as a whole; each
//! message names the problem and, where there is one, the fix.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

create_exception!(
    euchre,
    EuchreError,
    PyValueError,
    "Anything this package refuses: the base of its exceptions."
);
create_exception!(
    euchre,
    IllegalActionError,
    EuchreError,
    "An action that is not legal here, or not an action at all."
);
create_exception!(
    euchre,
    ViewError,
    EuchreError,
    "A seat's view that no real hand agrees with, or that is malformed."
);
create_exception!(
    euchre,
    SpecError,
    EuchreError,
    "A bot spec that names no bot, or whose files cannot be played."
);
create_exception!(
    euchre,
    EgnError,
    EuchreError,
    "A Euchre Game Notation record that cannot be read."
);
create_exception!(
    euchre,
    BotError,
    EuchreError,
    "A Python bot that answered with something other than a legal action."
);

/// `error` as `Exception`, its message the error's words.
pub(crate) fn raise<E: pyo3::type_object::PyTypeInfo>(error: impl std::fmt::Display) -> PyErr {
    PyErr::new::<E, _>(error.to_string())
}

/// Adds every exception class to the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("EuchreError", py.get_type::<EuchreError>())?;
    module.add("IllegalActionError", py.get_type::<IllegalActionError>())?;
    module.add("ViewError", py.get_type::<ViewError>())?;
    module.add("SpecError", py.get_type::<SpecError>())?;
    module.add("EgnError", py.get_type::<EgnError>())?;
    module.add("BotError", py.get_type::<BotError>())?;
    Ok(())
}
