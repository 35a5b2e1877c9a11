//! Sampling the traverser's own actions deep in the tree: external
//! sampling near the root, outcome sampling below.
//!
//! External sampling walks every action of the traverser, so a walk's cost
//! multiplies by the width of each of its decisions on the way down: in
//! euchre's card play, up to 5 × 4 × 3 × 2 paths per walk. A large game's
//! infostates are mostly visited a handful of times, so a walk that visits
//! more deals per second may learn more than one that is exact about fewer.
//!
//! With this set, the traverser explores all of its actions at its first
//! `explored_decisions` branching decisions on a path, and past them it
//! samples one action `a` from `q = exploration · uniform + (1 −
//! exploration) · σ` (σ: its current strategy) and weighs the sampled value
//! by `1 / q(a)`, as outcome sampling does (Lanctot et al. 2009). Each
//! action's sampled value `1[b = a] · v(a) / q(a)` is an unbiased estimate
//! of its counterfactual value, so regrets stay unbiased and the solver
//! converges to what CFR converges to; the price is variance, larger the
//! smaller `q(a)`. The `exploration` floor keeps `q` away from zero so
//! that no action goes unvisited for long and the weights stay at most
//! `width / exploration`.
//!
//! The draws come from a stream of their own, so a run without this set
//! draws exactly what it drew before.

use crate::error::CfrError;

/// Where the traverser stops exploring and starts sampling.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraverserSampling {
    /// Branching decisions of the traverser, counted from the root of its
    /// walk, at which it still explores every action.
    pub explored_decisions: u32,
    /// The uniform share of the sampling distribution, in `(0, 1]`.
    pub exploration: f64,
}

/// Keeps the traverser's draws apart from the iteration's other streams.
pub(crate) const TRAVERSER_STREAM: u64 = 0x5452_4156_4552_5345;

impl TraverserSampling {
    pub fn validate(&self) -> Result<(), CfrError> {
        if !(self.exploration > 0.0 && self.exploration <= 1.0) {
            return Err(CfrError::TraverserSampling(format!(
                "exploration {} must be above 0 and at most 1: an action the traverser \
                 never samples never learns its regret",
                self.exploration
            )));
        }
        Ok(())
    }

    /// Whether the traverser samples at a decision below `explored` of its
    /// own branching decisions.
    pub(crate) fn samples_at(&self, explored: u32) -> bool {
        explored >= self.explored_decisions
    }

    /// The sampling distribution `q` for the current strategy `strategy`.
    pub(crate) fn distribution(&self, strategy: &[f64], q: &mut [f64]) {
        let uniform = self.exploration / strategy.len() as f64;
        for (q, probability) in q.iter_mut().zip(strategy) {
            *q = uniform + (1.0 - self.exploration) * probability;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_distribution_mixes_uniform_and_strategy_and_sums_to_one() {
        let sampling = TraverserSampling {
            explored_decisions: 1,
            exploration: 0.5,
        };
        let mut q = [0.0; 4];
        sampling.distribution(&[1.0, 0.0, 0.0, 0.0], &mut q);
        assert_eq!(q, [0.625, 0.125, 0.125, 0.125]);
        assert!(!sampling.samples_at(0));
        assert!(sampling.samples_at(1));
    }

    #[test]
    fn an_exploration_that_could_starve_an_action_is_refused() {
        for exploration in [0.0, -0.1, 1.5, f64::NAN] {
            let sampling = TraverserSampling {
                explored_decisions: 0,
                exploration,
            };
            let error = sampling.validate().unwrap_err().to_string();
            assert!(error.contains("must be above 0"), "{error}");
        }
    }
}
