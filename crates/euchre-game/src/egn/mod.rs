//! Euchre Game Notation (EGN, "PGN for euchre";
//! NextSuit-Labs/euchre-game-notation, spec 1.0 to 1.6): real games in and
//! games played here out.
//!
//! EGN records only what a person at the table saw: the dealer, the upcard,
//! the calls, the cards in the order they fell and, sometimes, the dealer's
//! discard and the hands as dealt. Who played each card follows from the
//! rules (the winner of a trick leads the next), and so does each hand: a
//! seat's five cards are the five it played. What no one saw stays unknown:
//! the hand of a lone maker's partner, and the dealer's discard when the
//! record leaves it out. [`reconstruct()`] deals each unknown card consistently
//! with the record and, where the unknown discard changes what a player knew
//! (the dealer's own decisions), gives every candidate as a variant.
//!
//! - [`file`](mod@file): the JSON, field for field.
//! - [`read`](mod@read): a file into a [`Game`] of engine types; the ruleset into
//!   [`crate::engine::rules::Rules`], refusing variants the engine
//!   does not play by name.
//! - [`reconstruct`](mod@reconstruct): a recorded deal into full deals and action lists that
//!   the engine replays, reporting a renege by deal, trick and seat.
//! - [`write`](mod@write): a [`Game`] back into EGN, and hands played here into a game.

pub mod file;
pub mod read;
pub mod reconstruct;
mod unique_keys;
pub mod write;

use thiserror::Error;

use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet};
use crate::engine::rules::Rules;
use crate::engine::seat::Seat;

pub use read::read;
pub use reconstruct::{Reconstruction, Variant, reconstruct};
pub use write::write;

/// The hand a person counts for the record's `dealNumber`: EGN numbers
/// deals from 0 (and so does the writer here), the web table and players
/// count hands from 1. Every text for a person (`trainer analyze`'s
/// report, the analysis page) says "hand N"; the JSON keeps the record's
/// number.
pub fn hand_number(deal_number: i64) -> i64 {
    deal_number.saturating_add(1)
}

/// A game as the engine understands it.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// The spec version the file declared.
    pub version: String,
    pub metadata: file::EgnMetadata,
    /// The players' names by seat: EGN's seat 0 is North, then clockwise.
    pub names: [String; 4],
    pub rules: Rules,
    /// The score that wins, where the ruleset names one (EGN's default: 10).
    pub winning_score: Option<i64>,
    pub num_deals: Option<i64>,
    /// Every deal of the file in order; a deal that cannot be read is an
    /// error here and the others still replay.
    pub deals: Vec<Result<RecordedDeal, DealError>>,
}

/// One deal as recorded, before the unknown cards are dealt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedDeal {
    /// The record's `dealNumber`.
    pub number: i64,
    pub dealer: Seat,
    pub upcard: Card,
    /// The hands as dealt, where the record gives them (some records give
    /// only a hand that was not played, such as a lone maker's partner's).
    pub hands: [Option<CardSet>; 4],
    /// From the dealer's left: passes, then at most one order or call.
    pub calls: Vec<Action>,
    /// The defender who played alone against a lone maker, if any.
    pub lone_defender: Option<Seat>,
    /// The dealer's discard, when the record gives it.
    pub discard: Option<Card>,
    /// The cards of each trick in the order they fell.
    pub tricks: Vec<Vec<Card>>,
    pub annotations: Vec<Annotation>,
    /// Analysts' alternative lines, kept as written.
    pub alternative_lines: Vec<serde_json::Value>,
}

impl RecordedDeal {
    /// The annotators' comments inside the alternative lines, each at the
    /// decision of the main line where its line branches off (a line's
    /// `branchIndex`: the record's calls and plays counted together, the
    /// discard not). A line that does not read as EGN's is passed over:
    /// lines are kept as written, and a comment is worth showing only where
    /// it can be placed.
    pub fn alternative_comments(&self) -> Vec<AlternativeComment> {
        let mut comments = Vec::new();
        for line in &self.alternative_lines {
            let Some(branch) = line.get("branchIndex").and_then(serde_json::Value::as_u64) else {
                continue;
            };
            let phases = line.get("phases").and_then(serde_json::Value::as_array);
            for phase in phases.into_iter().flatten() {
                for key in ["callAnnotations", "playAnnotations"] {
                    let Some(map) = phase.get(key).and_then(serde_json::Value::as_object) else {
                        continue;
                    };
                    let texts = map
                        .values()
                        .filter_map(serde_json::Value::as_array)
                        .flatten()
                        .filter_map(serde_json::Value::as_str);
                    for text in texts {
                        if comments.len() == MAX_ALTERNATIVE_COMMENTS {
                            return comments;
                        }
                        let (label, rest) = Label::split(text);
                        comments.push(AlternativeComment {
                            branch: branch as usize,
                            label,
                            text: rest.to_owned(),
                        });
                    }
                }
            }
        }
        comments
    }
}

/// The most comments read from one deal's alternative lines (a deal's
/// lines are capped on reading; this caps what they say).
const MAX_ALTERNATIVE_COMMENTS: usize = 64;

/// An annotator's comment in an alternative line, placed at the main
/// line's decision where the line branches off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlternativeComment {
    /// The branch's index among the record's calls and plays together.
    pub branch: usize,
    pub label: Option<Label>,
    pub text: String,
}

/// Which recorded decision an annotation comments on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Annotated {
    /// The call at this index of `calls`.
    Call(usize),
    /// The card at this index of the plays, counted across tricks.
    Play(usize),
}

/// An annotator's comment, with the quality label it opens with, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Annotation {
    pub at: Annotated,
    pub label: Option<Label>,
    /// The comment after the label.
    pub text: String,
}

/// EGN's quality labels, as in chess annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    Blunder,
    Mistake,
    Dubious,
    Interesting,
    Great,
    Brilliant,
}

impl Label {
    pub const ALL: [Label; 6] = [
        Label::Blunder,
        Label::Mistake,
        Label::Dubious,
        Label::Interesting,
        Label::Great,
        Label::Brilliant,
    ];

    pub const fn tag(self) -> &'static str {
        match self {
            Label::Blunder => "[??]",
            Label::Mistake => "[?]",
            Label::Dubious => "[?!]",
            Label::Interesting => "[!?]",
            Label::Great => "[!]",
            Label::Brilliant => "[!!]",
        }
    }

    pub const fn word(self) -> &'static str {
        match self {
            Label::Blunder => "blunder",
            Label::Mistake => "mistake",
            Label::Dubious => "dubious",
            Label::Interesting => "interesting",
            Label::Great => "great",
            Label::Brilliant => "brilliant",
        }
    }

    /// Whether the annotator judged the decision a fault.
    pub const fn is_fault(self) -> bool {
        matches!(self, Label::Blunder | Label::Mistake | Label::Dubious)
    }

    /// The label an annotation opens with and the text after it. Longer tags
    /// are tried first, so `[??]` is not read as `[?]`.
    pub fn split(annotation: &str) -> (Option<Label>, &str) {
        let mut labels = Label::ALL;
        labels.sort_by_key(|label| std::cmp::Reverse(label.tag().len()));
        for label in labels {
            if let Some(rest) = annotation.strip_prefix(label.tag()) {
                return (Some(label), rest.trim_start());
            }
        }
        (None, annotation)
    }
}

/// Why a whole file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EgnError {
    #[error(
        "not JSON ({0}); an EGN file is JSON text (a binary .egnb file must first be converted to JSON with the EGN project's egn-convert)"
    )]
    NotJson(String),
    #[error(
        "this JSON is not Euchre Game Notation: its fileType is {found}, not \"Euchre Game Notation\""
    )]
    Foreign { found: String },
    #[error("{0}")]
    Shape(String),
    #[error(
        "EGN version \"{0}\" is not one this reader knows; it reads 1.0 to 1.6 (a newer file may read if its version is set to 1.6)"
    )]
    UnknownVersion(String),
    #[error("metadata.players names {0} players; euchre here is four players, seats 0 to 3")]
    Players(usize),
    #[error("ruleset option {name} = {value}: {why}")]
    UnsupportedRule {
        name: String,
        value: String,
        why: String,
    },
    #[error(
        "the key \"{key}\" appears twice in one object; a JSON reader would silently keep one of them, so the file is refused (remove the copy that is wrong)"
    )]
    DuplicateKey { key: String },
    #[error("{what}: {count}, more than the {limit} an EGN file can hold")]
    TooMany {
        what: &'static str,
        count: usize,
        limit: usize,
    },
}

/// Why one deal cannot be read or replayed: the deal's number and the
/// field or trick at fault.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("deal {number}: {problem}")]
pub struct DealError {
    /// The record's `dealNumber`, or its position in `deals` when that
    /// could not be read.
    pub number: i64,
    pub problem: DealProblem,
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DealProblem {
    #[error("{0}")]
    Field(String),
    #[error("{field}: '{text}' is not a card this reader plays ({why})")]
    Card {
        field: String,
        text: String,
        why: String,
    },
    #[error("card {card} is dealt twice ({first} and {second})")]
    DuplicateCard {
        card: Card,
        first: String,
        second: String,
    },
    #[error(
        "only {tricks} of 5 tricks are recorded; replay needs every card played, as the hands are read from the plays"
    )]
    Incomplete { tricks: usize },
    #[error("trick {trick} has {found} cards; with {players} players each trick has {players}")]
    TrickSize {
        trick: usize,
        found: usize,
        players: usize,
    },
    #[error(
        "renege in trick {trick}: {seat} played {card}; the rules allowed only {legal} (the hand as read from the plays)"
    )]
    Renege {
        trick: usize,
        seat: Seat,
        card: Card,
        legal: String,
    },
    #[error("{field}: {why}")]
    Inconsistent { field: String, why: String },
    #[error("the engine refused action {position} ({action} by {seat}): {why}")]
    Illegal {
        position: usize,
        seat: Seat,
        action: Action,
        why: String,
    },
}
