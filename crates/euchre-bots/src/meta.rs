//! What a trained policy is, as plain data: the phase, the rules, the
//! leaves, where fixed bids and a card-play table came from, the opponent
//! model, the strategy kept. The policy file records it ([`PolicyMeta`]),
//! the run's settings name the same sources, and bots read it to know
//! what follows them. It imports nothing else from this crate but the two
//! names it is made of ([`Phase`], [`OpponentBids`]): the code that reads
//! files (loading a blueprint, probing a table) lives with those files,
//! so describing a policy never depends on loading one.
//!
//! Who plays past a policy's horizon has five names, one a job:
//! [`Leaves`] is the run's setting (open-hand, heuristic-play,
//! pimc-calibrated, table-play); `crate::leaves::LeafValuer` is that
//! setting ready to value positions (with the table it plays, if any);
//! [`CardPlay`] is the kind of card play a bot brings, to check that a
//! policy is followed by the player its leaves assumed;
//! `crate::card_play_table::CardPlayTable` is a loaded full-play table;
//! [`CardPlaySource`] is where that table came from, as files record it.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use euchre_game::engine::rules::Rules;
use euchre_game::keys::play::PlayAbstraction;
use serde::{Deserialize, Serialize};

use crate::opponent_bids::OpponentBids;
use crate::phase::Phase;

/// What a policy file was trained as.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PolicyMeta {
    pub phase: Phase,
    pub rules: Rules,
    pub iterations: u64,
    /// What the training valued positions past the phase with; files
    /// written before the setting existed were open-hand.
    #[serde(default)]
    pub leaves: Leaves,
    /// Which of the trained strategies the file holds; files written before
    /// the choice existed hold the average.
    #[serde(default)]
    pub strategy: Strategy,
    /// Where the bids come from when the run played them from a fixed
    /// blueprint rather than training them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bidding_from: Option<BlueprintSource>,
    /// How card play was keyed; files written before the choice existed
    /// (and every plain one, byte for byte as before) were plain.
    #[serde(default, skip_serializing_if = "PlayAbstraction::is_plain")]
    pub play_abstraction: PlayAbstraction,
    /// The card-play table whose play valued the leaves, for table-play
    /// leaves: the bids are refit to that card play.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_play_from: Option<CardPlaySource>,
    /// What the bids assumed of the opponents' bids; files written before
    /// the setting existed (and every equilibrium one, byte for byte as
    /// before) were equilibrium.
    #[serde(default, skip_serializing_if = "OpponentBids::is_equilibrium")]
    pub opponent_bids: OpponentBids,
}

impl PolicyMeta {
    /// A policy of `phase` under `rules` after `iterations`, every other
    /// setting as a run makes it by default: open-hand leaves, the average
    /// strategy, the plain play key, trained bids and no card-play table.
    pub fn new(phase: Phase, rules: Rules, iterations: u64) -> PolicyMeta {
        PolicyMeta {
            phase,
            rules,
            iterations,
            leaves: Leaves::default(),
            strategy: Strategy::default(),
            bidding_from: None,
            play_abstraction: PlayAbstraction::default(),
            card_play_from: None,
            opponent_bids: OpponentBids::Equilibrium,
        }
    }
}

/// Which strategy of a table a policy file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Strategy {
    /// The average strategy: what CFR's guarantees are about.
    #[default]
    #[serde(rename = "average")]
    Average,
    /// The current strategy, regret matching on the regrets as they stand:
    /// the last iterate, which moves first and may play better or worse.
    #[serde(rename = "current")]
    Current,
}

/// The leaf evaluator of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Leaves {
    /// Both sides play the rest perfectly with every hand face up.
    #[default]
    #[serde(rename = "open-hand")]
    OpenHand,
    /// Every seat plays the rest by the heuristic's rules.
    #[serde(rename = "heuristic-play")]
    HeuristicPlay,
    /// The open-hand trick count, mapped to the points PIMC's card play
    /// scores on average from positions with that count ([`crate::leaves::calibration`]);
    /// lone contracts keep open-hand values.
    #[serde(rename = "pimc-calibrated")]
    PimcCalibrated,
    /// Every seat plays the rest by a trained full-play table's most likely
    /// card: the run names the table (`--card-play-from`).
    #[serde(rename = "table-play")]
    TablePlay,
}

/// The kind of card play a bot brings, as far as leaves are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardPlay {
    /// Open-hand solves of sampled worlds (PIMC and the search bot).
    OpenHandSearch,
    /// The heuristic's card rules.
    Heuristic,
    /// A trained full-play table.
    Table,
}

impl Leaves {
    pub const ALL: [Leaves; 4] = [
        Leaves::OpenHand,
        Leaves::HeuristicPlay,
        Leaves::PimcCalibrated,
        Leaves::TablePlay,
    ];

    /// The card play these leaves assume follows the policy.
    pub fn assumed_play(self) -> CardPlay {
        match self {
            Leaves::OpenHand | Leaves::PimcCalibrated => CardPlay::OpenHandSearch,
            Leaves::HeuristicPlay => CardPlay::Heuristic,
            Leaves::TablePlay => CardPlay::Table,
        }
    }

    /// The bot spec whose card play matches these leaves.
    pub fn matching_player(self) -> &'static str {
        match self.assumed_play() {
            CardPlay::OpenHandSearch => "pimc:N",
            CardPlay::Heuristic => "heuristic",
            CardPlay::Table => "policy-argmax:CARD-PLAY-FILE",
        }
    }
}

impl fmt::Display for Leaves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Leaves::OpenHand => "open-hand",
            Leaves::HeuristicPlay => "heuristic-play",
            Leaves::PimcCalibrated => "pimc-calibrated",
            Leaves::TablePlay => "table-play",
        })
    }
}

/// A leaves name that names no evaluator.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown leaves '{0}': use open-hand, heuristic-play, pimc-calibrated or table-play")]
pub struct UnknownLeaves(pub String);

impl FromStr for Leaves {
    type Err = UnknownLeaves;

    fn from_str(text: &str) -> Result<Leaves, UnknownLeaves> {
        Leaves::ALL
            .into_iter()
            .find(|leaves| leaves.to_string() == text)
            .ok_or_else(|| UnknownLeaves(text.to_owned()))
    }
}

/// Which file a run's bids come from, as the run's settings and its policy
/// file record it: enough to find the file again and to notice that it was
/// replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlueprintSource {
    /// Absolute, so that a run resumed from another directory finds it.
    pub path: PathBuf,
    /// The policy file's own CRC-32.
    pub checksum: u32,
    /// The iterations the blueprint was trained for.
    pub iterations: u64,
    /// How a bid is drawn from the blueprint's average strategy. Runs saved
    /// before the choice existed drew from the average.
    #[serde(default = "BidChoice::before_the_choice")]
    pub choice: BidChoice,
}

/// How a run draws its fixed bids from the blueprint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum BidChoice {
    /// The blueprint's most likely bid at every key: what `policy-argmax:`
    /// plays. The bidding runs measured in `docs/experiments/` take about 3 points
    /// of share more with it than with the sampled average, against
    /// PIMC-50, PIMC-200 and the heuristic alike.
    #[default]
    Argmax,
    /// A draw from the blueprint's average strategy: what `policy:` plays.
    Average,
}

impl BidChoice {
    /// What a run saved before the choice existed did.
    pub(crate) fn before_the_choice() -> BidChoice {
        BidChoice::Average
    }
}

impl fmt::Display for BidChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BidChoice::Argmax => "argmax",
            BidChoice::Average => "average",
        })
    }
}

impl fmt::Display for BlueprintSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} bids; checksum {:08x}, {} iterations)",
            self.path.display(),
            self.choice,
            self.checksum,
            self.iterations
        )
    }
}

/// Which card-play table a run's leaves come from, as the run's settings
/// and its exported policy record it: enough to find the file again and to
/// notice that it was replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardPlaySource {
    /// Absolute, so that a run resumed from another directory finds it.
    pub path: PathBuf,
    /// The policy file's own CRC-32.
    pub checksum: u32,
    /// The iterations the table was trained for.
    pub iterations: u64,
}

impl fmt::Display for CardPlaySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (checksum {:08x}, {} iterations)",
            self.path.display(),
            self.checksum,
            self.iterations
        )
    }
}
