//! Regret-based pruning for external-sampling MCCFR, as in Pluribus (Brown
//! and Sandholm 2019).
//!
//! The traverser explores every one of its actions, but an action whose
//! accumulated regret is deeply negative has no weight in the current
//! strategy: walking its subtree only pushes the regret further down. After
//! a warm-up, most iterations skip such actions, and the rest still explore
//! them all, so an action that becomes good again is found. An iteration
//! prunes with probability `share`; there, an action is skipped when its
//! current strategy probability is zero and its regret (caught up to now) is
//! below `threshold`. Skipped actions get no regret update that iteration.
//! A game can keep decisions unpruned ([`crate::Game::prunable`]), as
//! Pluribus never prunes its last betting round.
//!
//! The threshold is the price. Skipped actions climb back only in the
//! iterations that explore everything, 20 times slower at a share of 0.95,
//! so an action a mixed equilibrium still needs must never fall below it:
//! on Leduc, a threshold of −100 chips left the strategy several times more
//! exploitable after 100,000 iterations, and −10,000 cost nothing
//! measurable (`tests/pruning.rs`). Regrets are sums over visits, so a
//! deep threshold prunes only the frequently visited infostates.
//!
//! Pruning needs regrets that stay negative between visits: a schedule that
//! discounts negative regrets fast (DCFR with β = 0 halves them every
//! iteration) leaves nothing below the threshold in a large game, where a
//! key waits thousands of iterations between visits. Use it with linear or
//! vanilla CFR.
//!
//! Whether an iteration prunes is drawn from its own stream, keyed by the
//! seed and the iteration, so a run with pruning stays reproducible on one
//! thread and a run without it draws exactly what it drew before.

use rand::RngExt;

use crate::error::CfrError;
use crate::rng::iteration_rng;

/// When and how hard to prune.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pruning {
    /// Iterations `1..=after` never prune: regrets need visits to mean
    /// anything.
    pub after: u64,
    /// The share of later iterations that prune (Pluribus: 0.95).
    pub share: f64,
    /// Actions with regret below this (negative, in payoff units summed
    /// over visits) may be skipped.
    pub threshold: f64,
}

/// Keeps the pruning draw apart from the iteration's other streams.
const PRUNING_STREAM: u64 = 0x5052_554E_494E_4721;

impl Pruning {
    pub fn validate(&self) -> Result<(), CfrError> {
        if !(0.0..=1.0).contains(&self.share) {
            return Err(CfrError::Pruning(format!(
                "share {} must be from 0 to 1",
                self.share
            )));
        }
        if !(self.threshold < 0.0 && self.threshold.is_finite()) {
            return Err(CfrError::Pruning(format!(
                "threshold {} must be a negative regret: an action that is merely not the best must still be explored",
                self.threshold
            )));
        }
        Ok(())
    }

    /// The regret below which iteration `iteration` skips actions, or
    /// `None` when it explores everything.
    pub fn threshold_at(&self, seed: u64, iteration: u64) -> Option<f64> {
        if iteration <= self.after {
            return None;
        }
        let draw = iteration_rng(seed ^ PRUNING_STREAM, iteration).random::<f64>();
        (draw < self.share).then_some(self.threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterations_prune_after_the_warm_up_at_about_the_share() {
        let pruning = Pruning {
            after: 100,
            share: 0.95,
            threshold: -5.0,
        };
        assert!((1..=100).all(|t| pruning.threshold_at(7, t).is_none()));
        let pruned = (101..=10_100)
            .filter(|&t| pruning.threshold_at(7, t) == Some(-5.0))
            .count();
        assert!((9_300..=9_700).contains(&pruned), "{pruned}");
        // The draw depends on the seed and the iteration only.
        assert_eq!(pruning.threshold_at(7, 5000), pruning.threshold_at(7, 5000));
    }

    #[test]
    fn bad_settings_are_refused() {
        for (share, threshold) in [(1.5, -1.0), (-0.1, -1.0), (0.9, 0.0), (0.9, 3.0)] {
            let pruning = Pruning {
                after: 0,
                share,
                threshold,
            };
            assert!(pruning.validate().is_err(), "{pruning:?}");
        }
    }
}
