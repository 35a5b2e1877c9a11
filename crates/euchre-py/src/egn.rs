//! Euchre Game Notation from Python: a record read into hands, hands
//! written as a record, and a record analysed by a bot, as `trainer
//! analyze --json` reports it.

use euchre_bots::analysis::analyse;
use euchre_game::egn::{self, reconstruct};
use euchre_game::engine::state::GameState;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use pythonize::pythonize;

use crate::bot::{Side, unseen_of};
use crate::errors::{EgnError, EuchreError, raise};
use crate::hand::Hand;
use crate::matches::pool;
use crate::rules::rules_dict;

fn read(text: &str) -> PyResult<egn::Game> {
    egn::read(text).map_err(raise::<EgnError>)
}

/// Reads the text of an `.egn` file. Each deal is rebuilt and replayed by
/// the engine: `{"number", "hand"}` (a `Hand` at its end; cards no one saw
/// dealt consistently with the record, `"known"` saying whose hands the
/// record shows), or `{"number", "error"}` for a deal that cannot be
/// replayed, while the others still are.
#[pyfunction]
pub(crate) fn read_egn<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyDict>> {
    let game = read(text)?;
    let dict = PyDict::new(py);
    dict.set_item("version", &game.version)?;
    dict.set_item("names", game.names.to_vec())?;
    dict.set_item("rules", rules_dict(py, game.rules)?)?;
    dict.set_item("winning_score", game.winning_score)?;
    let deals = PyList::empty(py);
    for (index, deal) in game.deals.iter().enumerate() {
        let entry = PyDict::new(py);
        match deal {
            Err(error) => {
                entry.set_item("number", index)?;
                entry.set_item("error", error.to_string())?;
            }
            Ok(record) => {
                entry.set_item("number", record.number)?;
                match reconstruct(record, game.rules) {
                    Err(problem) => entry.set_item("error", problem.to_string())?,
                    Ok(rebuilt) => {
                        let variant = &rebuilt.variants[0];
                        let mut hand =
                            Hand::of(variant.deal, GameState::new(variant.deal, game.rules), None);
                        for &(_, action) in &variant.actions {
                            hand.apply_action(action)?;
                        }
                        entry.set_item("hand", hand)?;
                        let known: Vec<bool> = rebuilt.known.to_vec();
                        entry.set_item("known", known)?;
                        entry.set_item("discard_known", rebuilt.unknown_discard_at.is_none())?;
                    }
                }
            }
        }
        deals.append(entry)?;
    }
    dict.set_item("deals", deals)?;
    Ok(dict)
}

/// Hands played here as the text of an `.egn` file, deals numbered from 0;
/// `names` are the players, North first.
#[pyfunction]
#[pyo3(signature = (hands, names = None))]
pub(crate) fn write_egn(hands: Vec<Hand>, names: Option<[String; 4]>) -> PyResult<String> {
    let Some(first) = hands.first() else {
        return Err(raise::<EuchreError>(
            "hands: none given; a record holds at least one hand",
        ));
    };
    let rules = first.rules_of();
    if let Some(other) = hands.iter().find(|hand| hand.rules_of() != rules) {
        return Err(raise::<EuchreError>(format!(
            "hands: one is played under {}, another under {rules}; a record has one set of rules",
            other.rules_of()
        )));
    }
    let names = names.unwrap_or_else(|| ["North", "East", "South", "West"].map(str::to_owned));
    let records: Vec<_> = hands.iter().map(Hand::record).collect();
    Ok(egn::write(&egn::Game::of_hands(names, rules, &records)))
}

/// Every decision of a recorded game judged by `judge` (any spec), as
/// `trainer analyze --json` reports it: each decision's options with
/// their values, the loss of the move made with its error and mark, each
/// player's totals, the largest losses, and the annotators' labels beside
/// the judge's marks. Losses are in chances of winning the game where the
/// judge plays for the game and the record gives the score. The judge is
/// a spec, a `Bot` or a Python callable (which has no values to judge
/// by); `None` is `pimc:50`.
#[pyfunction]
#[pyo3(signature = (text, judge = None, seed = 1, unseen = "uniform", threads = None))]
pub(crate) fn analyze<'py>(
    py: Python<'py>,
    text: &str,
    judge: Option<Bound<'py, PyAny>>,
    seed: u64,
    unseen: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let game = read(text)?;
    let judge = judge.unwrap_or_else(|| PyString::new(py, "pimc:50").into_any());
    let side = Side::of(&judge, game.rules, unseen_of(unseen)?)?;
    let bot = side.bot();
    let pool = pool(threads)?;
    let analysis = py.detach(|| pool.install(|| analyse(&game, bot.as_ref(), seed)));
    if let Some(failure) = side.failure() {
        return Err(failure);
    }
    pythonize(py, &analysis).map_err(raise::<EuchreError>)
}
