//! `euchre.Hand`: one hand of euchre under the engine's rules, stepped by
//! action words (`"pass"`, `"order alone"`, `"call h"`, `"play Js"`), the
//! replay notation of `trainer replay` and the bot API.

use std::collections::BTreeMap;

use euchre_bots::api::ScoreView;
use euchre_bots::seen::Seen;
use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::replay::HandRecord;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::game::GameScore;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pythonize::depythonize;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::errors::{EuchreError, IllegalActionError, raise};
use crate::rules::{rules_dict, rules_of};
use crate::view::view_dict;

/// One hand: the deal, every action so far, and the game's score when the
/// hand is part of a game (every seat sees it).
#[pyclass(module = "euchre", from_py_object)]
#[derive(Clone, Debug)]
pub(crate) struct Hand {
    deal: Deal,
    state: GameState,
    history: Vec<(Seat, Action)>,
    score: Option<GameScore>,
}

pub(crate) fn seat_of(text: &str) -> PyResult<Seat> {
    text.parse()
        .map_err(|error| raise::<EuchreError>(format!("seat: {error}; a seat is N, E, S or W")))
}

fn card_of(field: &str, text: &str) -> PyResult<Card> {
    text.parse()
        .map_err(|error| raise::<EuchreError>(format!("{field}: {error}")))
}

fn words(cards: CardSet) -> Vec<String> {
    cards.iter().map(|card| card.to_string()).collect()
}

fn by_seat(values: impl Fn(Seat) -> Vec<String>) -> BTreeMap<String, Vec<String>> {
    Seat::ALL
        .iter()
        .map(|&seat| (seat.to_string(), values(seat)))
        .collect()
}

fn by_team(values: impl Fn(Team) -> u8) -> BTreeMap<&'static str, u8> {
    BTreeMap::from([
        ("north_south", values(Team::NorthSouth)),
        ("east_west", values(Team::EastWest)),
    ])
}

/// The score a dict names for a hand `dealer` deals.
fn score_of(score: Option<&Bound<'_, PyDict>>, dealer: Seat) -> PyResult<Option<GameScore>> {
    score
        .map(|score| {
            let view: ScoreView = depythonize(score.as_any()).map_err(|error| {
                raise::<EuchreError>(format!(
                    "score: {error}; a score is {{\"north_south\": 4, \"east_west\": 7, \"target\": 10}} (target optional)"
                ))
            })?;
            view.game_score(dealer).map_err(raise::<EuchreError>)
        })
        .transpose()
}

impl Hand {
    pub(crate) fn of(deal: Deal, state: GameState, score: Option<GameScore>) -> Hand {
        Hand {
            deal,
            state,
            history: Vec::with_capacity(32),
            score,
        }
    }

    /// The deal and the actions taken, in order, with who took each.
    pub(crate) fn record(&self) -> (Deal, Vec<(Seat, Action)>) {
        (self.deal, self.history.clone())
    }

    pub(crate) fn seen(&self) -> Seen<'_> {
        match self.score {
            Some(score) => Seen::in_game(&self.state, &self.history, score),
            None => Seen::new(&self.state, &self.history),
        }
    }

    pub(crate) fn rules_of(&self) -> euchre_game::engine::rules::Rules {
        *self.state.rules()
    }

    /// Takes `action` for the seat to act.
    pub(crate) fn apply_action(&mut self, action: Action) -> PyResult<()> {
        let seat = self.state.to_act();
        // The engine's error names the seat and the legal actions.
        self.state
            .try_apply(action)
            .map_err(raise::<IllegalActionError>)?;
        if let Some(seat) = seat {
            self.history.push((seat, action));
        }
        Ok(())
    }
}

#[pymethods]
impl Hand {
    /// A hand from the cards as dealt: `hands` maps each seat (N, E, S, W)
    /// to five cards (`"Js"`, `"Th"`, `"9c"`).
    #[new]
    #[pyo3(signature = (dealer, hands, upcard, rules = None, score = None))]
    fn new(
        dealer: &str,
        hands: BTreeMap<String, Vec<String>>,
        upcard: &str,
        rules: Option<&Bound<'_, PyDict>>,
        score: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Hand> {
        let dealer = seat_of(dealer)?;
        let mut dealt = [CardSet::EMPTY; 4];
        for (seat, cards) in &hands {
            let seat = seat_of(seat)?;
            for card in cards {
                dealt[seat.index()] = dealt[seat.index()].with(card_of("hands", card)?);
            }
        }
        if hands.len() != 4 {
            return Err(raise::<EuchreError>(format!(
                "hands: {} seats given; every seat (N, E, S, W) needs its five cards",
                hands.len()
            )));
        }
        let deal = Deal::new(dealer, dealt, card_of("upcard", upcard)?)
            .map_err(|error| raise::<EuchreError>(format!("hands: {error}")))?;
        let rules = rules_of(rules)?;
        Ok(Hand::of(
            deal,
            GameState::new(deal, rules),
            score_of(score, dealer)?,
        ))
    }

    /// A random deal from `seed` (the same seed, the same cards).
    #[staticmethod]
    #[pyo3(signature = (seed, dealer = "N", rules = None, score = None))]
    fn deal(
        seed: u64,
        dealer: &str,
        rules: Option<&Bound<'_, PyDict>>,
        score: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Hand> {
        let dealer = seat_of(dealer)?;
        let deal = Deal::random(dealer, &mut SmallRng::seed_from_u64(seed));
        Ok(Hand::of(
            deal,
            GameState::new(deal, rules_of(rules)?),
            score_of(score, dealer)?,
        ))
    }

    /// A hand rebuilt from a replay record (`trainer replay`'s format:
    /// dealer, hands, upcard, actions and rule options), every action
    /// applied.
    #[staticmethod]
    fn replay(record: &Bound<'_, PyDict>) -> PyResult<Hand> {
        let record: HandRecord = depythonize(record.as_any()).map_err(|error| {
            raise::<EuchreError>(format!(
                "record: {error}; a record has dealer, hands, upcard and actions"
            ))
        })?;
        let deal = record
            .deal()
            .map_err(|error| raise::<EuchreError>(format!("record: {error}")))?;
        let mut hand = Hand::of(deal, GameState::new(deal, record.rules()), None);
        for (index, text) in record.actions.iter().enumerate() {
            let action = parse_action(text).map_err(|error| {
                raise::<IllegalActionError>(format!("actions[{index}]: {error}"))
            })?;
            hand.apply_action(action).map_err(|error| {
                raise::<IllegalActionError>(format!("actions[{index}]: {error}"))
            })?;
        }
        Ok(hand)
    }

    /// The seat to act, or `None` once the hand is over.
    #[getter]
    fn to_act(&self) -> Option<String> {
        self.state.to_act().map(|seat| seat.to_string())
    }

    #[getter]
    fn dealer(&self) -> String {
        self.deal.dealer.to_string()
    }

    #[getter]
    fn upcard(&self) -> String {
        self.deal.upcard.to_string()
    }

    /// Every rule option this hand is played under.
    #[getter]
    fn rules<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        rules_dict(py, *self.state.rules())
    }

    /// `bidding1`, `discard`, `bidding2`, `defend_alone`, `play` or
    /// `finished`.
    #[getter]
    fn stage(&self) -> &'static str {
        match self.state.stage() {
            Stage::BiddingRound1 => "bidding1",
            Stage::DealerDiscard => "discard",
            Stage::BiddingRound2 => "bidding2",
            Stage::DefendAlone => "defend_alone",
            Stage::Play => "play",
            Stage::Finished => "finished",
        }
    }

    /// The cards each seat holds now.
    #[getter]
    fn hands(&self) -> BTreeMap<String, Vec<String>> {
        by_seat(|seat| words(self.state.hand(seat)))
    }

    /// The cards each seat was dealt.
    #[getter]
    fn dealt(&self) -> BTreeMap<String, Vec<String>> {
        by_seat(|seat| words(self.deal.hands[seat.index()]))
    }

    /// Every action so far as `(seat, action)`.
    #[getter]
    fn actions(&self) -> Vec<(String, String)> {
        self.history
            .iter()
            .map(|(seat, action)| (seat.to_string(), action.to_string()))
            .collect()
    }

    /// The maker, trump and whether alone, once someone has made trump.
    #[getter]
    fn contract<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(contract) = self.state.contract() else {
            return Ok(None);
        };
        let dict = PyDict::new(py);
        dict.set_item("maker", contract.maker.to_string())?;
        dict.set_item("trump", contract.trump.to_string())?;
        dict.set_item("alone", contract.alone)?;
        Ok(Some(dict))
    }

    #[getter]
    pub(crate) fn is_over(&self) -> bool {
        self.state.is_finished()
    }

    /// Tricks won by each side so far.
    #[getter]
    fn tricks(&self) -> BTreeMap<&'static str, u8> {
        by_team(|team| self.state.tricks_won(team))
    }

    /// Points each side scored: zero until the hand is over.
    #[getter]
    fn points(&self) -> BTreeMap<&'static str, u8> {
        let outcome = self.state.outcome();
        by_team(|team| outcome.map_or(0, |outcome| outcome.points[team.index()]))
    }

    /// The game's score as this hand was dealt, when it is part of a game.
    #[getter]
    fn score(&self) -> Option<BTreeMap<&'static str, u8>> {
        self.score.map(|score| {
            BTreeMap::from([
                ("north_south", score.points[0]),
                ("east_west", score.points[1]),
                ("target", score.target),
            ])
        })
    }

    /// The actions legal now, in the engine's order.
    fn legal_actions(&self) -> Vec<String> {
        self.state
            .legal_actions()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    /// Takes `action` for the seat to act.
    fn apply(&mut self, action: &str) -> PyResult<()> {
        let action = parse_action(action).map_err(raise::<IllegalActionError>)?;
        self.apply_action(action)
    }

    /// What the seat to act sees, as the bot API's request (with `legal`):
    /// what a bot is given, and what `Bot.act` takes.
    #[pyo3(signature = (seed = None))]
    fn view<'py>(&self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyDict>> {
        if self.state.to_act().is_none() {
            return Err(raise::<EuchreError>(
                "the hand is over: no seat is to act, so there is no view",
            ));
        }
        view_dict(py, &self.seen(), seed)
    }

    /// An independent copy, to try actions on.
    fn copy(&self) -> Hand {
        self.clone()
    }

    fn __copy__(&self) -> Hand {
        self.clone()
    }

    fn __repr__(&self) -> String {
        let to_act = self
            .state
            .to_act()
            .map_or_else(|| "over".to_owned(), |seat| format!("{seat} to act"));
        format!(
            "Hand(dealer={}, upcard={}, {} actions, {to_act})",
            self.deal.dealer,
            self.deal.upcard,
            self.history.len()
        )
    }
}

/// An action word; the engine's error says how actions are written.
pub(crate) fn parse_action(text: &str) -> Result<Action, String> {
    text.parse::<Action>().map_err(|error| error.to_string())
}
