//! What the trained bids assume of the opponents' bids: nothing (an
//! equilibrium), or that they bid as the heuristic some share
//! of the time (a restricted Nash response, [`cfr::opponent_model`]).
//!
//! An equilibrium's bids hold up against anyone but take nothing extra
//! from a bidder with known habits. PIMC bids by finishing each sampled
//! world's auction with the heuristic, and against the heuristic that
//! model is exact: under the same card play, PIMC-50's bids score +0.044 a
//! hand more than the blueprint's (docs/experiments/full-play-gap.md).
//! The share says how far to lean towards the model: 1 is a best response
//! to the heuristic's bids, which anyone who bids otherwise may punish.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The opponents' bids as the bidding solver meets them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum OpponentBids {
    /// Their own current strategy, always: the equilibrium.
    #[default]
    Equilibrium,
    /// The heuristic's bids in `share` of the traverser's walks.
    Heuristic { share: f64 },
}

#[derive(Debug, Error, PartialEq)]
#[error(
    "'{given}' is not an opponent-bids setting: give equilibrium (no model), or heuristic:SHARE \
     with SHARE above 0 and at most 1, the share of walks in which the opponents bid as the \
     heuristic (heuristic:0.5; heuristic alone means heuristic:1)"
)]
pub struct UnknownOpponentBids {
    given: String,
}

impl OpponentBids {
    pub fn is_equilibrium(&self) -> bool {
        *self == OpponentBids::Equilibrium
    }
}

impl FromStr for OpponentBids {
    type Err = UnknownOpponentBids;

    fn from_str(text: &str) -> Result<OpponentBids, UnknownOpponentBids> {
        let unknown = || UnknownOpponentBids {
            given: text.to_owned(),
        };
        let share = match text.trim() {
            "equilibrium" => return Ok(OpponentBids::Equilibrium),
            "heuristic" => 1.0,
            other => other
                .strip_prefix("heuristic:")
                .and_then(|share| share.parse::<f64>().ok())
                .ok_or_else(unknown)?,
        };
        let model = cfr::OpponentModel { share };
        model.validate().map_err(|_| unknown())?;
        Ok(OpponentBids::Heuristic { share })
    }
}

impl fmt::Display for OpponentBids {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpponentBids::Equilibrium => f.write_str("equilibrium"),
            OpponentBids::Heuristic { share } => write!(f, "heuristic:{share}"),
        }
    }
}

impl TryFrom<String> for OpponentBids {
    type Error = UnknownOpponentBids;

    fn try_from(text: String) -> Result<OpponentBids, UnknownOpponentBids> {
        text.parse()
    }
}

impl From<OpponentBids> for String {
    fn from(bids: OpponentBids) -> String {
        bids.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_read_back_as_written() {
        for bids in [
            OpponentBids::Equilibrium,
            OpponentBids::Heuristic { share: 1.0 },
            OpponentBids::Heuristic { share: 0.5 },
            OpponentBids::Heuristic { share: 0.125 },
        ] {
            assert_eq!(bids.to_string().parse::<OpponentBids>(), Ok(bids));
        }
        assert_eq!(
            "heuristic".parse::<OpponentBids>(),
            Ok(OpponentBids::Heuristic { share: 1.0 })
        );
    }

    #[test]
    fn a_share_outside_zero_to_one_or_another_model_is_refused_by_name() {
        for given in [
            "heuristic:0",
            "heuristic:1.5",
            "heuristic:-1",
            "heuristic:half",
            "pimc:50",
            "",
        ] {
            let error = given.parse::<OpponentBids>().unwrap_err();
            let message = error.to_string();
            assert!(
                message.contains(&format!("'{given}'")) && message.contains("heuristic:SHARE"),
                "{message}"
            );
        }
    }
}
