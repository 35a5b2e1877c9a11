//! Where a run's bids come from: trained with its card play, fixed from a
//! blueprint file, or trained by a stage of the run itself first. One enum,
//! so a state the three cannot be in cannot be written down, and the one
//! state a run passes through (a stage whose blueprint does not exist yet)
//! is a pattern the compiler makes every reader handle.

use std::fmt;

use euchre_bots::meta::{BidChoice, BlueprintSource};
use serde::{Deserialize, Serialize};

/// Where a card-play run's bids come from, when no blueprint file names
/// them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BidsName {
    /// A bidding stage trains the bids first, in `<run>/bidding`, and card
    /// play then trains under them, held fixed. Full play's default: bids
    /// learnt against the run's own weak early card play are far too bold,
    /// and an iteration that walks the card play below every bid costs
    /// about four times one that walks a single bid's.
    Staged,
    /// Bids and card play trained together, in one game tree.
    Trained,
}

impl fmt::Display for BidsName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BidsName::Staged => "staged",
            BidsName::Trained => "trained",
        })
    }
}

/// A staged run's first stage: a bidding run of `iterations` in
/// `<run>/bidding`, whose exported policy then plays every bid of the card
/// play, drawn as `choice` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BiddingStage {
    pub iterations: u64,
    pub choice: BidChoice,
}

/// The bidding stage's length unless a flag or profile says otherwise: on
/// 2 threads of this project's machine about 19 minutes, by when the
/// bidding phase's local best response is about zero
/// (`docs/experiments/full-play-fixed-bids.md`).
pub const DEFAULT_BIDDING_STAGE_ITERATIONS: u64 = 8_000_000;

impl fmt::Display for BiddingStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a bidding stage of {} iterations first, its {} bids then fixed",
            crate::format::thousands(self.iterations),
            self.choice
        )
    }
}

/// Where a run's bids come from, fixed when the run starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Bids {
    /// Trained along with card play, in one tree; every bidding-phase run.
    Trained,
    /// Played from a blueprint named when the run started.
    Fixed(BlueprintSource),
    /// Trained by the run's own bidding stage first. `blueprint` names the
    /// stage's exported policy once the stage has ended, and is `None`
    /// until then.
    Staged {
        stage: BiddingStage,
        blueprint: Option<BlueprintSource>,
    },
}

impl Bids {
    /// The blueprint card play trains under, once there is one.
    pub fn blueprint(&self) -> Option<&BlueprintSource> {
        match self {
            Bids::Trained => None,
            Bids::Fixed(source) => Some(source),
            Bids::Staged { blueprint, .. } => blueprint.as_ref(),
        }
    }

    /// The run's bidding stage, finished or not.
    pub fn stage(&self) -> Option<BiddingStage> {
        match self {
            Bids::Staged { stage, .. } => Some(*stage),
            Bids::Trained | Bids::Fixed(_) => None,
        }
    }

    /// The stage still to finish before card play can train.
    pub fn unfinished_stage(&self) -> Option<BiddingStage> {
        match self {
            Bids::Staged {
                stage,
                blueprint: None,
            } => Some(*stage),
            _ => None,
        }
    }
}

/// The two fields `settings.toml` has always held for the bids; reading and
/// writing through them keeps every run directory readable.
#[derive(Default, Serialize, Deserialize)]
pub(super) struct BidsOnDisk {
    /// Bids played from a fixed blueprint instead of trained. Runs saved
    /// before the setting existed trained their bids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) bidding_from: Option<BlueprintSource>,
    /// Bids trained by a stage of the run itself, before its card play;
    /// `bidding_from` names the stage's policy once the stage has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) bidding_stage: Option<BiddingStage>,
}

impl From<BidsOnDisk> for Bids {
    fn from(disk: BidsOnDisk) -> Bids {
        match (disk.bidding_stage, disk.bidding_from) {
            (Some(stage), blueprint) => Bids::Staged { stage, blueprint },
            (None, Some(source)) => Bids::Fixed(source),
            (None, None) => Bids::Trained,
        }
    }
}

impl From<Bids> for BidsOnDisk {
    fn from(bids: Bids) -> BidsOnDisk {
        match bids {
            Bids::Trained => BidsOnDisk::default(),
            Bids::Fixed(source) => BidsOnDisk {
                bidding_from: Some(source),
                bidding_stage: None,
            },
            Bids::Staged { stage, blueprint } => BidsOnDisk {
                bidding_from: blueprint,
                bidding_stage: Some(stage),
            },
        }
    }
}
