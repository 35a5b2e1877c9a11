//! The learning-curve settings of a run: how often it measures itself,
//! against whom, over how many hands.

use std::time::Duration;

use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::rules::Rules;
use serde::{Deserialize, Serialize};

use crate::config::ConfigError;

use super::*;
use euchre_bots::phase::Phase;

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

/// Hands per learning-curve point unless a flag or profile says otherwise.
pub const DEFAULT_EVAL_HANDS: u64 = 2000;
/// The learning curve's opponent unless a flag or profile says otherwise.
pub(super) const DEFAULT_EVAL_AGAINST: &str = "pimc:20";
/// A full-play run's curve unless told otherwise: a point every half hour
/// against the heuristic, which costs seconds where PIMC would cost
/// minutes, so `trainer status` and the runs page show every long run's
/// strength without taking its training time.
pub(super) const FULL_PLAY_EVAL_EVERY: Duration = Duration::from_secs(30 * 60);
pub(super) const FULL_PLAY_EVAL_AGAINST: &str = "heuristic";
pub(super) const FULL_PLAY_EVAL_HANDS: u64 = 4000;

impl CurveOptions {
    /// The curve these options ask for: one exists when they give an
    /// interval other than `off`, and defaults fill the rest.
    pub fn settings(self) -> Option<CurveSettings> {
        self.settings_with(DEFAULT_EVAL_AGAINST, DEFAULT_EVAL_HANDS)
    }

    /// The curve of a new run of `phase`: full play measures one unless
    /// the options turn it off (`--eval-every off`). A resumed run keeps
    /// what it was started with ([`CurveOptions::settings`]).
    pub fn settings_for_new_run(mut self, phase: Phase) -> Option<CurveSettings> {
        if phase != Phase::FullPlay {
            return self.settings();
        }
        self.every.get_or_insert(FULL_PLAY_EVAL_EVERY);
        self.settings_with(FULL_PLAY_EVAL_AGAINST, FULL_PLAY_EVAL_HANDS)
    }

    fn settings_with(self, against: &str, hands: u64) -> Option<CurveSettings> {
        let every = self.every.filter(|every| !every.is_zero())?;
        Some(CurveSettings {
            every,
            against: self.against.unwrap_or_else(|| against.to_owned()),
            hands: self.hands.unwrap_or(hands),
            seed: self.seed.unwrap_or(1),
        })
    }
}

impl From<Option<CurveSettings>> for CurveOptions {
    /// The options a saved curve was made with, for a resumed run's flags
    /// to lay themselves over.
    fn from(saved: Option<CurveSettings>) -> CurveOptions {
        saved.map_or_else(CurveOptions::default, |curve| CurveOptions {
            every: Some(curve.every),
            against: Some(curve.against),
            hands: Some(curve.hands),
            seed: Some(curve.seed),
        })
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
