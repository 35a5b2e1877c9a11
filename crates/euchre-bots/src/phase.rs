//! Which decisions the solver owns, and what values the rest.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A training phase. Spelled `bidding`, `play-N` (N from 1 to 19) or
/// `full-play` on the command line and in profiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Bidding with perfect recall; card play valued open-handed.
    Bidding,
    /// Bidding plus the first N cards of play; the rest valued open-handed.
    Play(u8),
    /// Every decision through the twentieth card.
    FullPlay,
}

/// Actions per stored record, in every phase: euchre's widest decision
/// (round 2 with going alone). One constant governs the width end to end:
/// the engine sizes its legal-action lists by it, every store is opened
/// with records of this width (which must fit a [`store::Record`], checked
/// when this compiles), and the solver refuses any decision wider than the
/// table's records.
pub const RECORD_WIDTH: usize = euchre_game::engine::action::Action::MAX_LEGAL;
const _: () = assert!(
    RECORD_WIDTH <= store::MAX_ACTIONS,
    "euchre's widest decision must fit a store record"
);

impl Phase {
    /// Cards the solver plays before the open-hand evaluator takes over;
    /// `None` means it plays to the end.
    pub fn horizon(self) -> Option<u32> {
        match self {
            Phase::Bidding => Some(0),
            Phase::Play(cards) => Some(u32::from(cards)),
            Phase::FullPlay => None,
        }
    }
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Phase::Bidding => f.write_str("bidding"),
            Phase::Play(cards) => write!(f, "play-{cards}"),
            Phase::FullPlay => f.write_str("full-play"),
        }
    }
}

/// A phase name that names no phase.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown phase '{0}': use bidding, play-N with N from 1 to 19 (cards of play the solver owns), or full-play"
)]
pub struct UnknownPhase(pub String);

impl FromStr for Phase {
    type Err = UnknownPhase;

    fn from_str(text: &str) -> Result<Phase, UnknownPhase> {
        match text {
            "bidding" => Ok(Phase::Bidding),
            "full-play" => Ok(Phase::FullPlay),
            _ => {
                let cards = text
                    .strip_prefix("play-")
                    .and_then(|n| n.parse::<u8>().ok())
                    .filter(|n| (1..=19).contains(n));
                cards
                    .map(Phase::Play)
                    .ok_or_else(|| UnknownPhase(text.to_owned()))
            }
        }
    }
}

impl Serialize for Phase {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Phase {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Phase, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_round_trip_and_bad_ones_say_why() {
        for phase in [
            Phase::Bidding,
            Phase::Play(1),
            Phase::Play(19),
            Phase::FullPlay,
        ] {
            assert_eq!(phase.to_string().parse::<Phase>(), Ok(phase));
        }
        for bad in ["play-0", "play-20", "play-x", "full", ""] {
            let error = bad.parse::<Phase>().unwrap_err();
            assert!(error.to_string().contains("play-N"), "{error}");
        }
    }
}
