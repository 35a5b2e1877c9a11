//! A warm start for external-sampling MCCFR: an infostate's first visit
//! seeds its record with an action the game suggests
//! ([`crate::Game::suggested_action`]), typically a rule-based player's.
//!
//! A large game's infostates are mostly visited a handful of times in a
//! run, so most of them play close to uniformly, in the current strategy
//! and in the average alike. Seeding makes a fresh infostate play the
//! suggestion instead: its regret starts at `regret` for that action (so
//! regret matching plays it alone until another action earns more), and
//! its strategy sum at `strategy_weight` visits' worth of it (so the
//! average, which is what a run exports, leans on it until real visits
//! outweigh it).
//!
//! It still converges to what CFR converges to. The seed is a one-off,
//! bounded addition to the first iteration's regrets and sums: average
//! regret still vanishes, and under linear or discounted CFR the seed is
//! discounted like any early iteration. What it changes is where the
//! first few visits start from, which is all a rarely visited infostate
//! ever gets.
//!
//! A record is fresh when it has never been updated (its
//! `stamp` is 0). The seed is applied inside the record's atomic
//! update, so two threads that meet a fresh infostate together seed it
//! once.

use store::Record;

use crate::error::CfrError;

/// How much a suggestion weighs on a fresh infostate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WarmStart {
    /// The suggested action's starting regret, in payoff units (as if it
    /// had beaten the others by this much once).
    pub regret: f64,
    /// Visits' worth of the suggested action in the starting strategy sum.
    pub strategy_weight: f64,
}

impl WarmStart {
    pub fn validate(&self) -> Result<(), CfrError> {
        for (name, value) in [
            ("regret", self.regret),
            ("strategy weight", self.strategy_weight),
        ] {
            if !(value >= 0.0 && value.is_finite()) {
                return Err(CfrError::WarmStart(format!(
                    "{name} {value} must be a finite amount of at least 0"
                )));
            }
        }
        Ok(())
    }

    /// Seeds `record` with `action` if it has never been updated; returns
    /// whether it did.
    pub fn seed(&self, record: &mut Record, action: Option<usize>) -> bool {
        let Some(action) = action else {
            return false;
        };
        if record.stamp != 0 || action >= record.regrets.len() {
            return false;
        }
        record.regrets[action] += self.regret as f32;
        record.strategy_sum[action] += self.strategy_weight as f32;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_fresh_record_is_seeded() {
        let warm = WarmStart {
            regret: 2.0,
            strategy_weight: 3.0,
        };
        let mut fresh = Record::default();
        assert!(warm.seed(&mut fresh, Some(1)));
        assert_eq!(fresh.regrets[1], 2.0);
        assert_eq!(fresh.strategy_sum[1], 3.0);
        assert_eq!(fresh.regrets[0], 0.0);

        let mut visited = Record {
            stamp: 5,
            ..Record::default()
        };
        assert!(!warm.seed(&mut visited, Some(1)));
        assert_eq!(
            visited,
            Record {
                stamp: 5,
                ..Record::default()
            }
        );
        assert!(!warm.seed(&mut Record::default(), None));
    }

    #[test]
    fn bad_amounts_are_refused() {
        for (regret, strategy_weight) in [(-1.0, 0.0), (0.0, f64::NAN), (f64::INFINITY, 1.0)] {
            let warm = WarmStart {
                regret,
                strategy_weight,
            };
            assert!(warm.validate().is_err(), "{warm:?}");
        }
        assert!(
            WarmStart {
                regret: 1.0,
                strategy_weight: 0.0
            }
            .validate()
            .is_ok()
        );
    }
}
