//! Regret matching: the strategy is proportional to positive regret.

/// Writes the regret-matching strategy for `regrets` into `strategy`
/// (uniform when no regret is positive).
#[inline]
pub fn regret_matching(regrets: &[f64], strategy: &mut [f64]) {
    let positive: f64 = regrets.iter().map(|r| r.max(0.0)).sum();
    if positive > 0.0 {
        for (s, r) in strategy.iter_mut().zip(regrets) {
            *s = r.max(0.0) / positive;
        }
    } else {
        let uniform = 1.0 / strategy.len() as f64;
        strategy.fill(uniform);
    }
}

/// Regret matching+: the accumulated regrets themselves are floored at zero
/// after every update, so a bad action recovers as soon as it looks good.
#[inline]
pub fn floor_regrets(regrets: &mut [f32]) {
    for r in regrets {
        *r = r.max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proportional_to_positive_regret() {
        let mut strategy = [0.0; 3];
        regret_matching(&[3.0, -5.0, 1.0], &mut strategy);
        assert_eq!(strategy, [0.75, 0.0, 0.25]);
        regret_matching(&[-1.0, 0.0, -2.0], &mut strategy);
        assert_eq!(strategy, [1.0 / 3.0; 3]);
        let mut regrets = [1.5f32, -2.0];
        floor_regrets(&mut regrets);
        assert_eq!(regrets, [1.5, 0.0]);
    }
}
