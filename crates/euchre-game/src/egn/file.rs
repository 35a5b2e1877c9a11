//! The JSON of an EGN file, field for field, so that reading and writing are
//! serde and the rest of the module works on engine types.
//!
//! Fields EGN may add in later minor versions are ignored on read rather
//! than refused: a newer file still replays, and what this version does not
//! know cannot change the rules, because the ruleset is checked key by key
//! (see [`super::read()`]).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The value of `fileType` in every EGN file.
pub const FILE_TYPE: &str = "Euchre Game Notation";

/// The version this module writes: the newest one whose examples it was
/// checked against.
pub const WRITTEN_VERSION: &str = "1.4";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgnFile {
    pub file_type: String,
    pub version: String,
    pub metadata: EgnMetadata,
    /// Read one by one, so that a bad deal is reported by number and the
    /// others still replay.
    pub deals: Vec<Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgnMetadata {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// A name, or an object with a `name` and the player's ids elsewhere;
    /// kept as written so that ids survive a round trip.
    pub players: Vec<Value>,
    pub initial_score: Vec<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_score: Option<Vec<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ruleset: Option<Map<String, Value>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgnDeal {
    pub deal_number: i64,
    pub initial_state: EgnInitialState,
    pub phases: Vec<EgnPhase>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternative_lines: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgnInitialState {
    pub dealer: i64,
    pub up_card: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player_cards: Option<Vec<Vec<String>>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum EgnPhase {
    #[serde(rename = "EUCHRE_BIDDING")]
    Bidding(EgnBidding),
    #[serde(rename = "TRICK_PLAY")]
    TrickPlay(EgnTrickPlay),
}

/// Decision (or play) index to the annotators' comments on it.
pub type EgnAnnotations = BTreeMap<String, Vec<String>>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgnBidding {
    pub phase_number: i64,
    pub calls: Vec<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_alone: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alone_defender: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discard: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_exchanges: Option<Value>,
    #[serde(default, skip_serializing_if = "EgnAnnotations::is_empty")]
    pub call_annotations: EgnAnnotations,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EgnTrickPlay {
    pub phase_number: i64,
    pub tricks: Vec<Vec<String>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_alone: bool,
    #[serde(default, skip_serializing_if = "EgnAnnotations::is_empty")]
    pub play_annotations: EgnAnnotations,
}
