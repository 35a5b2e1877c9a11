//! `euchre.Bot`: any bot `trainer eval` accepts, by its spec, acting on a
//! view; and a Python callable seated as a bot in a match.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use euchre_bots::api::fresh_seed;
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::seen::Seen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::asked::Asked;
use crate::errors::{BotError, EuchreError, SpecError, raise};
use crate::hand::parse_action;
use crate::rules::{rules_dict, rules_of};
use crate::view::view_dict;

/// Who plays a policy's untrained keys, by name.
pub(crate) fn unseen_of(text: &str) -> PyResult<Unseen> {
    match text {
        "uniform" => Ok(Unseen::Uniform),
        "heuristic" => Ok(Unseen::Heuristic),
        other => Err(raise::<EuchreError>(format!(
            "unseen: '{other}'; it is 'uniform' (the default) or 'heuristic'"
        ))),
    }
}

type CacheKey = (String, Rules, bool);

/// Bots built from a spec, by spec, rules and `unseen`: a policy file is
/// read once however many `Bot`s name it, and freed with the last of them.
static BUILT: Mutex<Option<HashMap<CacheKey, Weak<dyn Bot>>>> = Mutex::new(None);

fn built(spec: &str, rules: Rules, unseen: Unseen) -> PyResult<Arc<dyn Bot>> {
    let key = (spec.to_owned(), rules, unseen == Unseen::Uniform);
    let mut cache = BUILT
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(bot) = cache.get(&key).and_then(Weak::upgrade) {
        return Ok(bot);
    }
    let bot = from_spec(spec, rules, unseen).map_err(raise::<SpecError>)?;
    cache.retain(|_, bot| bot.strong_count() > 0);
    cache.insert(key, Arc::downgrade(&bot));
    Ok(bot)
}

/// A bot by its spec (`"heuristic"`, `"pimc:50"`, `"table:RUN"`,
/// `"strongest:RUN"`, ...), for a table playing `rules`.
#[pyclass(name = "Bot", module = "euchre", frozen, skip_from_py_object)]
#[derive(Clone)]
pub(crate) struct PyBot {
    pub(crate) bot: Arc<dyn Bot>,
    pub(crate) rules: Rules,
    spec: String,
}

impl std::fmt::Debug for PyBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bot({:?})", self.spec)
    }
}

impl PyBot {
    /// What `asked` (a `Hand` or a view) describes for this bot's rules,
    /// and the seed to decide it with: `seed`, else the view's, else a
    /// fresh one.
    fn asked<'a>(
        &self,
        asked: &'a Bound<'_, PyAny>,
        seed: Option<u64>,
    ) -> PyResult<(Asked<'a>, u64)> {
        let asked = Asked::of(asked, Some(self.rules))?;
        let seed = seed.or(asked.seed()).unwrap_or_else(fresh_seed);
        Ok((asked, seed))
    }
}

#[pymethods]
impl PyBot {
    #[new]
    #[pyo3(signature = (spec, rules = None, unseen = "uniform"))]
    fn new(
        py: Python<'_>,
        spec: &str,
        rules: Option<&Bound<'_, PyDict>>,
        unseen: &str,
    ) -> PyResult<PyBot> {
        let rules = rules_of(rules)?;
        let unseen = unseen_of(unseen)?;
        // Reading a policy file takes seconds: other Python threads run.
        let bot = py.detach(|| built(spec, rules, unseen))?;
        Ok(PyBot {
            bot,
            rules,
            spec: spec.to_owned(),
        })
    }

    /// The bot's own name (what a match reports).
    #[getter]
    fn name(&self) -> String {
        self.bot.name()
    }

    #[getter]
    fn spec(&self) -> &str {
        &self.spec
    }

    #[getter]
    fn rules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        rules_dict(py, self.rules)
    }

    /// Whether the bot values outcomes by the chance of winning the game
    /// when its view has a score.
    #[getter]
    fn plays_for_the_game(&self) -> bool {
        self.bot.plays_for_the_game()
    }

    /// What a reader of a match with this bot should know first.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.bot.warnings()
    }

    /// The bot's move for the seat to act in `asked`: a `Hand` (read
    /// directly, the fastest), or a view (a dict as `Hand.view()` returns,
    /// or the bot API's request; a deal agreeing with it is rebuilt, which
    /// also checks it). `seed` (or the view's) makes it reproducible.
    #[pyo3(signature = (asked, seed = None))]
    fn act(&self, py: Python<'_>, asked: &Bound<'_, PyAny>, seed: Option<u64>) -> PyResult<String> {
        let (asked, seed) = self.asked(asked, seed)?;
        let seen = asked.seen()?;
        let bot = &self.bot;
        let action = py.detach(|| bot.act(&seen, &mut SmallRng::seed_from_u64(seed)));
        Ok(action.to_string())
    }

    /// The move with what the bot can say about it: `probabilities` (a
    /// trained policy on a key it trained) and `values` (bots that value
    /// their options: each legal action's points a hand, or chance of
    /// winning the game, with its spread over the worlds), each `None`
    /// where the bot has none. Valuing searches again, so this takes about
    /// twice `act`'s time for a searching bot.
    #[pyo3(signature = (asked, seed = None))]
    fn decide<'py>(
        &self,
        py: Python<'py>,
        asked: &Bound<'py, PyAny>,
        seed: Option<u64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (asked, seed) = self.asked(asked, seed)?;
        let seen = asked.seen()?;
        let bot = &self.bot;
        let (action, probabilities, values) = py.detach(|| {
            let action = bot.act(&seen, &mut SmallRng::seed_from_u64(seed));
            let probabilities = bot.probabilities(&seen);
            let values = bot.values(&seen, &mut SmallRng::seed_from_u64(seed));
            (action, probabilities, values)
        });
        let answer = PyDict::new(py);
        answer.set_item("action", action.to_string())?;
        let probabilities = probabilities.map(|pairs| {
            pairs
                .into_iter()
                .map(|(action, p)| (action.to_string(), p))
                .collect::<Vec<_>>()
        });
        answer.set_item(
            "probabilities",
            probabilities
                .map(|pairs| pairs.into_py_dict_pairs(py))
                .transpose()?,
        )?;
        let values = values
            .map(|values| {
                values
                    .iter()
                    .map(|value| {
                        let row = PyDict::new(py);
                        row.set_item("action", value.action.to_string())?;
                        row.set_item("value", value.value)?;
                        row.set_item("spread", value.spread)?;
                        row.set_item("shortfall_error", value.shortfall_error)?;
                        row.set_item("worlds", value.worlds)?;
                        Ok(row)
                    })
                    .collect::<PyResult<Vec<_>>>()
            })
            .transpose()?;
        answer.set_item("values", values)?;
        answer.set_item(
            "unit",
            if bot.plays_for_the_game() && seen.score().is_some() {
                "chance of winning the game"
            } else {
                "points a hand"
            },
        )?;
        Ok(answer)
    }

    /// What the bot has to report after use, such as how often a policy
    /// met a key it never trained.
    fn report(&self) -> Option<String> {
        self.bot.report()
    }

    fn __repr__(&self) -> String {
        format!("Bot({:?})", self.spec)
    }
}

trait IntoPyDictPairs {
    fn into_py_dict_pairs(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>>;
}

impl IntoPyDictPairs for Vec<(String, f64)> {
    fn into_py_dict_pairs(self, py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
        let dict = PyDict::new(py);
        for (key, value) in self {
            dict.set_item(key, value)?;
        }
        Ok(dict)
    }
}

/// A Python callable seated as a bot: given each view (a dict as
/// `Hand.view()` returns, with a seed from the match), it answers an
/// action string. The first exception it raises, or the first answer that
/// is not a legal action, is kept and raised when the match stops; until
/// then the bot plays the first legal action without calling again.
pub(crate) struct CallableBot {
    callable: Py<PyAny>,
    name: String,
    failure: Mutex<Option<PyErr>>,
}

impl CallableBot {
    pub(crate) fn new(callable: &Bound<'_, PyAny>) -> CallableBot {
        let name = callable
            .getattr("__name__")
            .or_else(|_| callable.get_type().getattr("__name__"))
            .and_then(|name| name.extract::<String>())
            .unwrap_or_else(|_| "python".to_owned());
        CallableBot {
            callable: callable.clone().unbind(),
            name,
            failure: Mutex::new(None),
        }
    }

    /// The failure that stopped the bot calling Python, taken.
    pub(crate) fn take_failure(&self) -> Option<PyErr> {
        self.failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take()
    }

    fn has_failed(&self) -> bool {
        self.failure
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .is_some()
    }

    fn ask(&self, py: Python<'_>, seen: &Seen<'_>, seed: u64) -> PyResult<Action> {
        let view = view_dict(py, seen, Some(seed))?;
        let answer = self.callable.bind(py).call1((view,))?;
        let text: String = answer.extract().map_err(|_| {
            raise::<BotError>(format!(
                "{} answered {}, not an action string such as \"pass\" or \"play Js\"",
                self.name,
                answer
                    .repr()
                    .map_or_else(|_| "?".to_owned(), |r| r.to_string())
            ))
        })?;
        let action = parse_action(&text).map_err(|error| {
            raise::<BotError>(format!("{} answered {text:?}: {error}", self.name))
        })?;
        if !seen.legal().contains(action) {
            let legal: Vec<String> = seen.legal().iter().map(ToString::to_string).collect();
            return Err(raise::<BotError>(format!(
                "{} answered {text:?}, which is not legal here; legal: {legal:?}",
                self.name
            )));
        }
        Ok(action)
    }
}

impl Bot for CallableBot {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let fallback = seen.legal()[0];
        if self.has_failed() {
            return fallback;
        }
        let seed = seed_for(seen, rng);
        Python::attach(|py| {
            self.ask(py, seen, seed).unwrap_or_else(|error| {
                self.failure
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .get_or_insert(error);
                fallback
            })
        })
    }
}

/// The seed a Python bot is given: drawn from a copy of the table's
/// generator, so the other bots at the table draw exactly what they would
/// against a bot that uses no randomness (a Python bot that plays as the
/// heuristic meets every opponent on the heuristic's very cards and
/// draws), and spread by the decision's place in the hand, so successive
/// decisions get different seeds.
fn seed_for(seen: &Seen<'_>, rng: &SmallRng) -> u64 {
    let peeked: u64 = rng.clone().random();
    let mut z = peeked ^ (seen.history().count() as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One side of a match: a spec, a `Bot`, or a Python callable.
pub(crate) enum Side {
    Built(Arc<dyn Bot>),
    Python(Arc<CallableBot>),
}

impl Side {
    pub(crate) fn of(value: &Bound<'_, PyAny>, rules: Rules, unseen: Unseen) -> PyResult<Side> {
        if let Ok(bot) = value.cast::<PyBot>() {
            let bot = bot.get();
            if bot.rules != rules {
                return Err(raise::<SpecError>(format!(
                    "{} was built for {}, but the match plays {}; build it with the match's rules",
                    bot.spec, bot.rules, rules
                )));
            }
            return Ok(Side::Built(bot.bot.clone()));
        }
        if let Ok(spec) = value.extract::<String>() {
            let py = value.py();
            return Ok(Side::Built(py.detach(|| built(&spec, rules, unseen))?));
        }
        if value.is_callable() {
            return Ok(Side::Python(Arc::new(CallableBot::new(value))));
        }
        Err(raise::<EuchreError>(format!(
            "a side of a match is a spec string, a euchre.Bot or a callable taking a view; got {}",
            value.get_type().name()?
        )))
    }

    pub(crate) fn bot(&self) -> Arc<dyn Bot> {
        match self {
            Side::Built(bot) => bot.clone(),
            Side::Python(bot) => bot.clone(),
        }
    }

    /// The first failure of a Python side, taken.
    pub(crate) fn failure(&self) -> Option<PyErr> {
        match self {
            Side::Built(_) => None,
            Side::Python(bot) => bot.take_failure(),
        }
    }
}
