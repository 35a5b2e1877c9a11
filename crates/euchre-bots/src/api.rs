//! The bot API: one seat's view of a hand in, the bot's move out. Other
//! programs (the play page, a card-game GUI, another framework's arena)
//! play an exported policy through it, over HTTP (`POST /api/act` of
//! `trainer serve`) or JSON lines (`trainer act`). Both speak the types
//! here, so they answer alike.

use std::io::{BufRead, Write};

use crate::json_lines::read_line;
use std::str::FromStr;
use std::sync::Arc;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::error::NotationError;
use euchre_game::engine::rules::{RuleChanges, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::seat_knowledge::{KnowledgeError, SeatKnowledge};
use euchre_game::game::GameScore;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::bot::Bot;
use crate::seen::Seen;

/// One seat's view, as JSON. Rule options left out take the bot's rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActRequest {
    pub dealer: String,
    /// The seat asking; it must be its turn.
    pub seat: String,
    /// The cards the seat holds now.
    pub hand: Vec<String>,
    pub upcard: String,
    /// The seat's own discard, when it is the dealer and has discarded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<String>,
    /// Every action so far in replay notation; the dealer's discard is
    /// written `discard` (face down) unless the seat is the dealer.
    #[serde(default)]
    pub actions: Vec<String>,
    /// The rule options the request names, each a key of its own
    /// (`"loner_lead": "left-of-loner"`). A bot that assumed another rule
    /// would misread the view (a lone hand's first lead, say, gives the
    /// cards played to other seats), so a request that names a rule the
    /// bot does not play is refused.
    #[serde(flatten)]
    pub rules: RuleChanges,
    /// Seeds the bot's random choices, for a reproducible answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The game's score as this hand was dealt. Left out, the view has no
    /// game around it: a bot that plays for the game then plays the hand
    /// for points, as every score-blind bot always does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<ScoreView>,
}

/// The game's score in a request: each side's points and the points that
/// win (10 when left out).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreView {
    pub north_south: u8,
    pub east_west: u8,
    #[serde(default = "default_target")]
    pub target: u8,
}

fn default_target() -> u8 {
    euchre_game::game::DEFAULT_TARGET
}

impl ScoreView {
    /// The score with `dealer` dealing this hand, if it is one a hand can
    /// be played at (the target 1 to 100, neither side there yet).
    pub fn game_score(self, dealer: Seat) -> Result<GameScore, ActError> {
        if !(1..=100).contains(&self.target) {
            return Err(ActError::Score(format!(
                "a target of {} points; a game is to 1 to 100",
                self.target
            )));
        }
        if self.north_south >= self.target || self.east_west >= self.target {
            return Err(ActError::Score(format!(
                "{}-{} in a game to {}: the game is over, so no hand is dealt",
                self.north_south, self.east_west, self.target
            )));
        }
        Ok(GameScore {
            points: [self.north_south, self.east_west],
            dealer,
            target: self.target,
        })
    }
}

/// The bot's move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActAnswer {
    pub seat: String,
    pub action: String,
    /// Every legal action with its probability, when the bot is a policy
    /// on a decision it trained.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probabilities: Option<Vec<ActionProbability>>,
    pub bot: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionProbability {
    pub action: String,
    pub probability: f64,
}

/// Why a request gets no move.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ActError {
    #[error("malformed request: {0}")]
    Malformed(String),
    #[error("{field}: {source}")]
    Notation {
        field: String,
        source: NotationError,
    },
    #[error("hand: {0} is named twice")]
    DuplicateCard(Card),
    #[error("discard: only the dealer ({dealer}) has a discard, and this view is {seat}'s")]
    DiscardNotDealer { dealer: Seat, seat: Seat },
    #[error("discard: the view says {field}, but its actions say 'discard {action}'")]
    DiscardDisagrees { field: Card, action: Card },
    #[error("this bot plays under {bot}, but the request asks for {request}")]
    Rules { bot: String, request: String },
    #[error("score: {0}")]
    Score(String),
    #[error(transparent)]
    Impossible(#[from] KnowledgeError),
}

impl ActError {
    /// The request was well formed but asks out of turn, or after the end.
    pub fn is_out_of_turn(&self) -> bool {
        matches!(
            self,
            ActError::Impossible(KnowledgeError::NotYourTurn { .. } | KnowledgeError::HandOver)
        )
    }

    /// The request could not even be read as a view.
    pub fn is_malformed(&self) -> bool {
        matches!(self, ActError::Malformed(_) | ActError::Notation { .. })
    }
}

fn parse<T: FromStr<Err = NotationError>>(field: &str, text: &str) -> Result<T, ActError> {
    text.parse().map_err(|source| ActError::Notation {
        field: field.to_owned(),
        source,
    })
}

impl ActRequest {
    /// The request the acting seat of `seen` would send, naming the rule
    /// options `rules` names (those left out take the bot's): what a
    /// program outside the trainer (a Python bot, a subprocess) is shown.
    /// The other seats' discard is written `discard`, face down.
    pub fn of_view(seen: &Seen<'_>, rules: RuleChanges, seed: Option<u64>) -> ActRequest {
        let seat = seen.actor();
        let actions = seen
            .history()
            .map(|(_, action)| action.map_or_else(|| "discard".to_owned(), |a| a.to_string()))
            .collect();
        ActRequest {
            dealer: seen.dealer().to_string(),
            seat: seat.to_string(),
            hand: seen.hand().iter().map(|card| card.to_string()).collect(),
            upcard: seen.upcard().to_string(),
            discard: seen.own_discard().map(|card| card.to_string()),
            actions,
            rules,
            seed,
            score: seen.score().map(|score| ScoreView {
                north_south: score.points[0],
                east_west: score.points[1],
                target: score.target,
            }),
        }
    }

    /// The view the request describes, for a bot that plays `rules`.
    pub fn view(&self, rules: Rules) -> Result<SeatKnowledge, ActError> {
        let requested = rules.with(self.rules);
        if requested != rules {
            return Err(ActError::Rules {
                bot: rules.to_string(),
                request: requested.to_string(),
            });
        }
        let dealer: Seat = parse("dealer", &self.dealer)?;
        let seat: Seat = parse("seat", &self.seat)?;
        let mut hand = CardSet::EMPTY;
        for text in &self.hand {
            let card: Card = parse("hand", text)?;
            if hand.contains(card) {
                return Err(ActError::DuplicateCard(card));
            }
            hand = hand.with(card);
        }
        let discard: Option<Card> = self
            .discard
            .as_deref()
            .map(|text| parse("discard", text))
            .transpose()?;
        if discard.is_some() && seat != dealer {
            return Err(ActError::DiscardNotDealer { dealer, seat });
        }
        let mut actions = Vec::with_capacity(self.actions.len());
        for (index, text) in self.actions.iter().enumerate() {
            let field = format!("actions[{index}]");
            let action = match text.trim() {
                "discard" | "discard ?" => discard.map(Action::Discard),
                text => {
                    let action: Action = parse(&field, text)?;
                    if let (Action::Discard(named), Some(field)) = (action, discard)
                        && named != field
                    {
                        return Err(ActError::DiscardDisagrees {
                            field,
                            action: named,
                        });
                    }
                    Some(action)
                }
            };
            actions.push(action);
        }
        Ok(SeatKnowledge {
            rules,
            dealer,
            seat,
            hand,
            upcard: parse("upcard", &self.upcard)?,
            actions,
        })
    }
}

/// The move `bot` makes in the view `request` describes, for a table
/// playing `rules`.
pub fn act(bot: &dyn Bot, rules: Rules, request: &ActRequest) -> Result<ActAnswer, ActError> {
    let view = request.view(rules)?;
    let score = request
        .score
        .map(|score| score.game_score(view.dealer))
        .transpose()?;
    let (state, history) = view.complete_with_history()?;
    let seen = match score {
        Some(score) => Seen::in_game(&state, &history, score),
        None => Seen::new(&state, &history),
    };
    let mut rng = SmallRng::seed_from_u64(request.seed.unwrap_or_else(fresh_seed));
    let action = bot.act(&seen, &mut rng);
    let probabilities = bot.probabilities(&seen).map(|pairs| {
        pairs
            .into_iter()
            .map(|(action, probability)| ActionProbability {
                action: action.to_string(),
                probability,
            })
            .collect()
    });
    Ok(ActAnswer {
        seat: view.seat.to_string(),
        action: action.to_string(),
        probabilities,
        bot: bot.name(),
    })
}

/// A seed that differs between requests, for a request that names none.
pub fn fresh_seed() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_nanos() as u64);
    nanos
        ^ COUNTER
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The longest request line `trainer act` reads: a view is a few hundred
/// bytes, so a longer line is refused unread rather than buffered.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// `trainer act`: one request per input line, one answer per output line.
/// A bad line (empty, not JSON, not UTF-8, longer than [`MAX_LINE_BYTES`],
/// or an impossible view) gets `{"line": N, "error": ...}` and the next line is
/// still read, as `trainer replay` does.
pub fn run_lines(
    bot: &Arc<dyn Bot>,
    rules: Rules,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut number = 0;
    while let Some(line) = read_line(&mut input, MAX_LINE_BYTES)? {
        number += 1;
        let answer = match line.into_request(MAX_LINE_BYTES) {
            Ok(text) => serde_json::from_str::<ActRequest>(&text)
                .map_err(|error| ActError::Malformed(error.to_string()))
                .and_then(|request| act(bot.as_ref(), rules, &request)),
            Err(problem) => Err(ActError::Malformed(problem)),
        };
        let value = match answer {
            Ok(answer) => serde_json::to_value(answer).unwrap_or_default(),
            Err(error) => serde_json::json!({ "line": number, "error": error.to_string() }),
        };
        writeln!(output, "{value}")?;
        output.flush()?;
    }
    Ok(())
}
