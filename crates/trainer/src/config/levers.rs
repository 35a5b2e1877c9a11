//! The solver's optional levers (pruning, the warm start, traverser
//! sampling), resolved from their flags with the phase's defaults.

use std::fmt;

use serde::{Deserialize, Serialize};

use euchre_bots::phase::Phase;

use super::*;

/// Regret-based pruning as a run keeps it between sessions (see
/// [`cfr::pruning`]). It speeds training up and changes what it computes,
/// like the thread count, so a session may turn it on or off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PruningSettings {
    /// Actions with regret below `-below` may be skipped.
    pub below: f64,
    /// The run's iteration from which iterations may prune.
    pub after: u64,
    /// The share of those iterations that prune.
    pub share: f64,
}

/// Pluribus prunes in 95% of its iterations after the warm-up.
pub const PRUNING_SHARE: f64 = 0.95;

impl PruningSettings {
    /// `--prune REGRET` (and `--prune-after`): 0 turns pruning off.
    pub fn from_flags(
        regret: f64,
        after: Option<u64>,
    ) -> Result<Option<PruningSettings>, ConfigError> {
        if regret == 0.0 {
            return Ok(None);
        }
        if !(regret > 0.0 && regret.is_finite()) {
            return Err(ConfigError::Prune { regret });
        }
        Ok(Some(PruningSettings {
            below: regret,
            after: after.unwrap_or(0),
            share: PRUNING_SHARE,
        }))
    }

    pub fn solver(&self) -> cfr::Pruning {
        cfr::Pruning {
            after: self.after,
            share: self.share,
            threshold: -self.below,
        }
    }
}

impl fmt::Display for PruningSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.0}% of iterations after iteration {} skip actions with regret below -{}",
            100.0 * self.share,
            self.after,
            self.below
        )
    }
}

/// A warm start as a run keeps it between sessions (see
/// [`cfr::warm_start`]): each infostate's first visit is seeded with the
/// heuristic's move, worth `weight` (that much regret, in points, and that
/// many visits in the average strategy). Like pruning, it changes what is
/// computed but not what is stored, so a session may turn it on or off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmStartSettings {
    pub weight: f64,
}

/// Full play's warm start unless told otherwise: one visit's worth. Its
/// curve at equal wall time is far ahead of the cold start's
/// (docs/experiments/full-play-warm-start.md).
pub const FULL_PLAY_WARM_START: f64 = 1.0;

impl WarmStartSettings {
    /// A new run's warm start when no flag or profile sets one: full play
    /// starts from the heuristic; bidding and play-N, whose tables are
    /// small enough to visit every key often, start from zero.
    pub fn default_for(phase: Phase) -> Option<WarmStartSettings> {
        (phase == Phase::FullPlay).then_some(WarmStartSettings {
            weight: FULL_PLAY_WARM_START,
        })
    }

    /// `--warm-start WEIGHT`: 0 turns it off.
    pub fn from_flag(weight: f64) -> Result<Option<WarmStartSettings>, ConfigError> {
        if weight == 0.0 {
            return Ok(None);
        }
        if !(weight > 0.0 && weight.is_finite()) {
            return Err(ConfigError::WarmStart { weight });
        }
        Ok(Some(WarmStartSettings { weight }))
    }

    pub fn solver(&self) -> cfr::WarmStart {
        cfr::WarmStart {
            regret: self.weight,
            strategy_weight: self.weight,
        }
    }
}

impl fmt::Display for WarmStartSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "each fresh infostate starts from the heuristic's move, worth {} (regret in points, and visits in the average)",
            self.weight
        )
    }
}

/// Traverser sampling as a run keeps it between sessions (see
/// [`cfr::traverser_sampling`]): past its first `explored_decisions`
/// branching decisions of a walk, the traverser samples one action instead
/// of walking all of them. It changes what is computed but not what is
/// stored, so a session may turn it on or off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraverserSamplingSettings {
    pub explored_decisions: u32,
    /// The uniform share of the sampling distribution.
    pub exploration: f64,
}

/// Outcome sampling's usual uniform share (Lanctot et al. 2009).
pub const TRAVERSER_EXPLORATION: f64 = 0.6;

impl TraverserSamplingSettings {
    /// `--sample-own-after N`: `off` explores every decision.
    pub fn from_flag(given: &str) -> Result<Option<TraverserSamplingSettings>, ConfigError> {
        if given == "off" {
            return Ok(None);
        }
        let explored_decisions = given.parse().map_err(|_| ConfigError::SampleOwnAfter {
            given: given.to_string(),
        })?;
        Ok(Some(TraverserSamplingSettings {
            explored_decisions,
            exploration: TRAVERSER_EXPLORATION,
        }))
    }

    pub fn solver(&self) -> cfr::TraverserSampling {
        cfr::TraverserSampling {
            explored_decisions: self.explored_decisions,
            exploration: self.exploration,
        }
    }
}

impl fmt::Display for TraverserSamplingSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the traverser explores its first {} branching decisions of a walk and samples the rest ({:.0}% uniform)",
            self.explored_decisions,
            100.0 * self.exploration
        )
    }
}

/// A learned best response as a run keeps it between sessions (see
/// [`cfr::opponent_model`] with a share of 1): in every walk the
/// traverser's opponents play the exported policy in `policy`, its most
/// likely action at every decision it has (the heuristic's where it never
/// trained the key), as `policy-argmax:FILE --unseen heuristic` plays it.
/// The table then learns to beat that policy, not an equilibrium, so it
/// is meant for a copy of a run: how much the copy's export wins from
/// the policy is a lower bound on the policy's exploitability that, unlike
/// the local best response, deviates everywhere at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BestResponseSettings {
    pub policy: std::path::PathBuf,
}

impl BestResponseSettings {
    /// `--best-response-to FILE`: `off` trains as usual again.
    pub fn from_flag(given: &str) -> Result<Option<BestResponseSettings>, ConfigError> {
        match given.trim() {
            "off" => Ok(None),
            "" => Err(ConfigError::BestResponseTo {
                given: given.to_owned(),
            }),
            path => Ok(Some(BestResponseSettings {
                policy: std::path::absolute(path).map_err(|_| ConfigError::BestResponseTo {
                    given: given.to_owned(),
                })?,
            })),
        }
    }
}

impl fmt::Display for BestResponseSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a best response to {}: the traverser's opponents play its most likely action in every walk",
            self.policy.display()
        )
    }
}
