//! The learning-curve settings of a run: how often it measures itself,
//! against whom, over how many hands.

use std::time::Duration;

use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::rules::Rules;
use serde::{Deserialize, Serialize};

use crate::config::ConfigError;

/// What a run measures itself against, and how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSettings {
    /// Training time between points.
    pub every: Duration,
    /// The fixed opponent, as a bot spec (`pimc:20`, `heuristic`, ...).
    pub against: String,
    /// Hands per point: even, since each deal is played twice.
    pub hands: u64,
    /// The deals of every point: the same for all, so points differ only
    /// by the policy.
    pub seed: u64,
}

impl CurveSettings {
    /// Checks the settings before training starts, so that a typo fails at
    /// once rather than at the first point.
    pub fn validate(&self, rules: Rules) -> Result<(), ConfigError> {
        if self.hands < 2 || !self.hands.is_multiple_of(2) {
            return Err(ConfigError::EvalHands { hands: self.hands });
        }
        if self.every.is_zero() {
            return Err(ConfigError::EvalEvery);
        }
        from_spec(&self.against, rules, Unseen::Heuristic).map_err(|source| {
            ConfigError::EvalAgainst {
                against: self.against.clone(),
                source,
            }
        })?;
        Ok(())
    }

    /// The training time of the first point after `train_seconds`.
    pub fn next_point(&self, train_seconds: f64) -> f64 {
        let every = self.every.as_secs_f64();
        ((train_seconds / every).floor() + 1.0) * every
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_fall_on_multiples_of_the_interval() {
        let settings = CurveSettings {
            every: Duration::from_secs(60),
            against: "heuristic".into(),
            hands: 100,
            seed: 1,
        };
        assert_eq!(settings.next_point(0.0), 60.0);
        assert_eq!(settings.next_point(59.9), 60.0);
        assert_eq!(settings.next_point(60.0), 120.0);
        assert!(settings.validate(Rules::default()).is_ok());
        let odd = CurveSettings {
            hands: 3,
            ..settings.clone()
        };
        assert!(odd.validate(Rules::default()).is_err());
        let typo = CurveSettings {
            against: "pimcc:20".into(),
            ..settings
        };
        let error = typo.validate(Rules::default()).unwrap_err();
        assert!(
            matches!(error, ConfigError::EvalAgainst { .. }),
            "{error:?}"
        );
        let source = std::error::Error::source(&error).map(ToString::to_string);
        let chain = format!("{error}: {}", source.unwrap_or_default());
        assert!(
            chain.contains("pimcc") && chain.contains("unknown bot"),
            "{chain}"
        );
    }
}
