//! The Python package `euchre` (its native part, `euchre._native`): the
//! rules engine, the bots by spec, duplicate matches and games against a
//! researcher's Python bot, and Euchre Game Notation with its analysis.
//! See `docs/python.md`.
//!
//! - `hand`: `Hand`, one hand stepped by action words;
//! - `view`: a seat's view as a dict, the bot API's request; `asked`: a
//!   `Hand` or a view, whichever a bot is asked about;
//! - `bot`: `Bot` by spec, and a Python callable seated as a bot;
//! - `matches`: `duplicate_match` and `duplicate_games`; `arena`: a
//!   round robin with ratings;
//! - `egn`: `read_egn`, `write_egn`, `analyze`;
//! - `learning`: `encode`, `legal_mask`, `action_id`, `ACTIONS`,
//!   `FEATURE_NAMES`, for learning agents;
//! - `rules`: rule options as a dict; `errors`: the exceptions.
//!
//! Nothing here decides euchre: every rule, bot and statistic is the other
//! crates'; this crate only converts between them and Python, releasing
//! the interpreter lock for long work.

mod arena;
mod asked;
mod bot;
mod egn;
mod errors;
mod hand;
mod learning;
mod matches;
mod rules;
mod view;

use pyo3::prelude::*;

#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_class::<hand::Hand>()?;
    module.add_class::<bot::PyBot>()?;
    module.add_function(wrap_pyfunction!(matches::duplicate_match, module)?)?;
    module.add_function(wrap_pyfunction!(matches::duplicate_games, module)?)?;
    module.add_function(wrap_pyfunction!(arena::arena, module)?)?;
    module.add_function(wrap_pyfunction!(egn::read_egn, module)?)?;
    module.add_function(wrap_pyfunction!(egn::write_egn, module)?)?;
    module.add_function(wrap_pyfunction!(egn::analyze, module)?)?;
    module.add_function(wrap_pyfunction!(bot_specs, module)?)?;
    module.add_function(wrap_pyfunction!(learning::encode, module)?)?;
    module.add_function(wrap_pyfunction!(learning::legal_mask, module)?)?;
    module.add_function(wrap_pyfunction!(learning::action_id, module)?)?;
    module.add("ACTIONS", learning::action_words())?;
    module.add("FEATURE_NAMES", learning::feature_names())?;
    errors::register(module)
}

/// Every bot spec and recipe, as `trainer eval --help` lists them.
#[pyfunction]
fn bot_specs() -> String {
    euchre_bots::spec::help()
}
