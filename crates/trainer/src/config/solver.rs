//! What a run is made with from the `[solver]` and `[store]` tables (read
//! as [`super::SolverOptions`] and [`super::StoreOptions`]): the schedule,
//! the abstraction, the leaves and the record encoding, as a run saves them.

use std::fmt;

use cfr::Schedule;
use serde::{Deserialize, Serialize};
use store::RecordEncoding;

use euchre_bots::meta::{BidsFor, Leaves};
use euchre_bots::opponent_bids::OpponentBids;
use euchre_bots::phase::Phase;
use euchre_game::keys::play::PlayAbstraction;

/// How regrets and the average are weighted over iterations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SolverSettings {
    /// `dcfr`, `linear`, `cfr+` or `vanilla`.
    pub schedule: ScheduleName,
    /// DCFR exponents; read only with `schedule = "dcfr"`.
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    /// How positions past the phase's horizon are valued. Runs saved
    /// before the setting existed were open-hand.
    pub leaves: Leaves,
    /// How card play is keyed: `plain` (the rank-compressed key),
    /// `maker-seat` (plus which seat made trump) or `trump-voids` (plus
    /// which seats have shown a void in trump). Runs saved before the
    /// setting existed were plain.
    pub abstraction: PlayAbstraction,
    /// What the trained bids assume of the opponents' bids: `equilibrium`
    /// (nothing), or `heuristic:SHARE` (that they bid as the heuristic in
    /// that share of walks). Runs saved before the setting existed were
    /// equilibrium.
    #[serde(skip_serializing_if = "OpponentBids::is_equilibrium")]
    pub opponent_bids: OpponentBids,
    /// What card play keeps and exports: `average` (its strategy sums, as
    /// every decision keeps them) or `current` (no sums; its current
    /// strategy is exported). Read from a file, a missing key is the
    /// average: runs saved before the setting existed kept it. A new run's
    /// default is [`CardPlayStrategy::default_for`] its phase.
    #[serde(skip_serializing_if = "CardPlayStrategy::is_average")]
    pub card_play_strategy: CardPlayStrategy,
    /// What the bids are trained to win: `points` (the hand's) or `game`
    /// (the chance of winning the game, one bid a score context). Runs
    /// saved before the setting existed bid for points.
    #[serde(skip_serializing_if = "BidsFor::is_points")]
    pub bids_for: BidsFor,
}

/// What a run keeps of card play's strategy. Without sums, another
/// player's visit to a card-play decision reads its record and writes
/// nothing: a sampled run changes about a tenth as many records an
/// iteration, which is what a cluster rank pays for at each sync
/// (docs/experiments/cluster-in-place.md), and full play's current strategy
/// played as well as its average (docs/experiments/full-play-current-strategy.md).
/// The bids keep their average either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum CardPlayStrategy {
    #[default]
    Average,
    Current,
}

impl CardPlayStrategy {
    pub fn is_average(&self) -> bool {
        *self == CardPlayStrategy::Average
    }

    /// What a new run keeps when neither a flag nor a profile says. Full
    /// play keeps no card-play average: on the panel its export played as
    /// the average export of the same store did, one process trained about
    /// 7% faster, and cluster ranks train in place
    /// (docs/experiments/card-play-without-average.md). Play-N was not
    /// judged and keeps the average; the bidding phase has no card play.
    pub fn default_for(phase: Phase) -> CardPlayStrategy {
        match phase {
            Phase::FullPlay => CardPlayStrategy::Current,
            Phase::Bidding | Phase::Play(_) => CardPlayStrategy::Average,
        }
    }
}

impl fmt::Display for CardPlayStrategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CardPlayStrategy::Average => "average",
            CardPlayStrategy::Current => "current",
        })
    }
}

/// Linear CFR by default: under sampling a key waits thousands of
/// iterations between visits, and DCFR with β = 0 halves negative regrets
/// every iteration, so by the next visit they are gone and a lucky sample
/// can swing the key. On the one-hour bidding run linear CFR was ahead of
/// DCFR(1.5, 0, 2) at every point of the curve
/// (`docs/experiments/bidding-hour.md`), and
/// regret-based pruning needs the negative regrets it keeps.
impl Default for SolverSettings {
    fn default() -> SolverSettings {
        SolverSettings {
            schedule: ScheduleName::Linear,
            alpha: 1.5,
            beta: 0.0,
            gamma: 2.0,
            leaves: Leaves::OpenHand,
            abstraction: PlayAbstraction::Plain,
            opponent_bids: OpponentBids::Equilibrium,
            card_play_strategy: CardPlayStrategy::Average,
            bids_for: BidsFor::Points,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScheduleName {
    #[serde(rename = "dcfr")]
    Dcfr,
    #[serde(rename = "linear")]
    Linear,
    #[serde(rename = "cfr+")]
    CfrPlus,
    #[serde(rename = "vanilla")]
    Vanilla,
}

impl fmt::Display for SolverSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.schedule {
            ScheduleName::Dcfr => write!(
                f,
                "dcfr (alpha {}, beta {}, gamma {})",
                self.alpha, self.beta, self.gamma
            ),
            ScheduleName::Linear => f.write_str("linear"),
            ScheduleName::CfrPlus => f.write_str("cfr+"),
            ScheduleName::Vanilla => f.write_str("vanilla"),
        }
    }
}

impl SolverSettings {
    pub fn schedule(&self) -> Schedule {
        match self.schedule {
            ScheduleName::Dcfr => Schedule::dcfr(self.alpha, self.beta, self.gamma),
            ScheduleName::Linear => Schedule::LINEAR,
            ScheduleName::CfrPlus => Schedule::CFR_PLUS,
            ScheduleName::Vanilla => Schedule::VANILLA,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum EncodingName {
    F32,
    I16,
}

impl fmt::Display for EncodingName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EncodingName::F32 => "f32",
            EncodingName::I16 => "i16",
        })
    }
}

impl EncodingName {
    /// Full play is the laptop job: 46 M infostates whose pages must stay
    /// in the page cache, so it halves its records unless told otherwise.
    /// The smaller phases keep exact f32 records.
    pub fn default_for(phase: Phase) -> EncodingName {
        match phase {
            Phase::FullPlay => EncodingName::I16,
            Phase::Bidding | Phase::Play(_) => EncodingName::F32,
        }
    }

    pub fn encoding(self) -> RecordEncoding {
        match self {
            EncodingName::F32 => RecordEncoding::F32,
            EncodingName::I16 => RecordEncoding::I16Scaled,
        }
    }
}
