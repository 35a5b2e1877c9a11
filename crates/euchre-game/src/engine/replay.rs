//! Replaying a hand written in text notation: for analysis, scripting and
//! bug reports. The record and result types are serde types, so a caller
//! can read and write them as JSON lines; this module does not do I/O.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet};
use crate::engine::error::{DealError, NotationError};
use crate::engine::rules::{RuleChanges, Rules};
use crate::engine::seat::{Seat, Team};
use crate::engine::state::{Deal, GameState};

/// One hand: the deal, then the actions as words. Rule options left out
/// take their defaults.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HandRecord {
    pub dealer: String,
    /// Seat letter to five cards, e.g. `"N": ["9c", "Tc", "Jc", "Qc", "Kc"]`.
    pub hands: BTreeMap<String, Vec<String>>,
    pub upcard: String,
    #[serde(default)]
    pub actions: Vec<String>,
    /// The rule options that differ from the defaults, each a key of the
    /// record's own (`"stick_the_dealer": false`).
    #[serde(flatten)]
    pub rules: RuleChanges,
}

/// One applied action and what was legal when it was taken.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayStep {
    pub seat: String,
    pub action: String,
    pub legal: Vec<String>,
}

/// Per-team numbers keyed by team name, so the JSON reads `{"NS":1,"EW":0}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamNumbers {
    #[serde(rename = "NS")]
    pub north_south: u8,
    #[serde(rename = "EW")]
    pub east_west: u8,
}

impl TeamNumbers {
    fn from_array(values: [u8; 2]) -> TeamNumbers {
        TeamNumbers {
            north_south: values[Team::NorthSouth.index()],
            east_west: values[Team::EastWest.index()],
        }
    }
}

/// The result of replaying a valid record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayResult {
    pub steps: Vec<ReplayStep>,
    /// Points so far: final once `complete`, zero before.
    pub points: TeamNumbers,
    pub tricks: TeamNumbers,
    pub complete: bool,
    /// Who acts next when the hand is not complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_to_act: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next_legal: Vec<String>,
}

/// Why a record could not be replayed to its end.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ReplayError {
    #[error("bad notation in the deal: {0}")]
    Notation(#[from] NotationError),
    #[error("bad deal: {0}")]
    Deal(#[from] DealError),
    #[error("'hands' must name exactly the seats N, E, S and W; got {0}")]
    Seats(String),
    #[error("action {position} ('{text}'): {reason}")]
    Action {
        /// 1-based position of the action in the record's list.
        position: usize,
        text: String,
        reason: String,
        /// The steps applied before the bad action.
        steps: Vec<ReplayStep>,
    },
}

impl HandRecord {
    pub fn rules(&self) -> Rules {
        Rules::default().with(self.rules)
    }

    pub fn deal(&self) -> Result<Deal, ReplayError> {
        let dealer: Seat = self.dealer.parse()?;
        let mut hands = [None; 4];
        for (name, cards) in &self.hands {
            let seat: Seat = name.parse()?;
            let mut hand = CardSet::EMPTY;
            for text in cards {
                let card: Card = text.parse()?;
                if hand.contains(card) {
                    return Err(DealError::DuplicateCard(card).into());
                }
                hand = hand.with(card);
            }
            if hands[seat.index()].replace(hand).is_some() {
                return Err(ReplayError::Seats(format!("{seat} twice")));
            }
        }
        let names: Vec<&str> = self.hands.keys().map(String::as_str).collect();
        let [Some(n), Some(e), Some(s), Some(w)] = hands else {
            return Err(ReplayError::Seats(format!("[{}]", names.join(", "))));
        };
        Ok(Deal::new(dealer, [n, e, s, w], self.upcard.parse()?)?)
    }
}

fn legal_words(state: &GameState) -> Vec<String> {
    state
        .legal_actions()
        .iter()
        .map(Action::to_string)
        .collect()
}

/// Replays `record`, stopping at the first action that cannot be parsed or
/// is not legal.
pub fn replay(record: &HandRecord) -> Result<ReplayResult, ReplayError> {
    let mut state = GameState::new(record.deal()?, record.rules());
    let mut steps = Vec::with_capacity(record.actions.len());
    for (index, text) in record.actions.iter().enumerate() {
        let fail = |reason: String, steps: Vec<ReplayStep>| ReplayError::Action {
            position: index + 1,
            text: text.clone(),
            reason,
            steps,
        };
        let action: Action = match text.parse() {
            Ok(action) => action,
            Err(error) => return Err(fail(error.to_string(), steps)),
        };
        let seat = state.to_act();
        let legal = legal_words(&state);
        if let Err(error) = state.try_apply(action) {
            return Err(fail(error.to_string(), steps));
        }
        steps.push(ReplayStep {
            seat: seat.map(|s| s.to_string()).unwrap_or_default(),
            action: action.to_string(),
            legal,
        });
    }
    let outcome = state.outcome();
    let tricks = [
        state.tricks_won(Team::NorthSouth),
        state.tricks_won(Team::EastWest),
    ];
    Ok(ReplayResult {
        steps,
        points: TeamNumbers::from_array(outcome.map_or([0, 0], |o| o.points)),
        tricks: TeamNumbers::from_array(tricks),
        complete: outcome.is_some(),
        next_to_act: state.to_act().map(|seat| seat.to_string()),
        next_legal: legal_words(&state),
    })
}
