//! Discount schedules (vanilla CFR, CFR+, linear CFR, DCFR) applied lazily.
//!
//! DCFR multiplies, after each iteration `j`, positive accumulated regrets by
//! `j^α / (j^α + 1)`, negative ones by `j^β / (j^β + 1)`, and strategy sums by
//! `(j / (j + 1))^γ`. Sweeping a table of a billion records every iteration
//! is out of the question, so each record remembers the iteration `L` of its
//! last update and, when next touched at iteration `t`, catches up by the
//! product of the factors for `j = L .. t-1` in O(1):
//!
//! - strategy sums: the product telescopes to `(L / t)^γ`;
//! - regrets: the product is `exp(F(L) - F(t))` with
//!   `F(n) = Σ_{j<n} ln(1 + j^-a)`, tabulated exactly for small `n` and
//!   summed beyond by Euler–Maclaurin over a series of `ln(1 + y)`, which
//!   agrees with the direct product to ~1e-12 (tested).
//!
//! A record's sign cannot change while nobody updates it, so applying the
//! positive or negative factor by the current sign is exact.

use store::{Record, stamp};

use crate::error::CfrError;

/// How regrets and the average strategy are weighted over iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Exponent for positive regrets; `None` never discounts them.
    pub alpha: Option<f64>,
    /// Exponent for negative regrets; `None` never discounts them.
    pub beta: Option<f64>,
    /// Exponent for strategy-sum weights: 0 is a plain average, 1 linear.
    pub gamma: f64,
    /// Regret matching+: floor accumulated regrets at zero after each update.
    pub floor_regrets: bool,
}

impl Schedule {
    /// Vanilla CFR: uniform weights, no discounting.
    pub const VANILLA: Schedule = Schedule {
        alpha: None,
        beta: None,
        gamma: 0.0,
        floor_regrets: false,
    };
    /// CFR+: regret matching+ with a linearly weighted average.
    pub const CFR_PLUS: Schedule = Schedule {
        alpha: None,
        beta: None,
        gamma: 1.0,
        floor_regrets: true,
    };
    /// Linear CFR: iteration `t` counts with weight `t`, for regrets and average.
    pub const LINEAR: Schedule = Schedule {
        alpha: Some(1.0),
        beta: Some(1.0),
        gamma: 1.0,
        floor_regrets: false,
    };
    /// DCFR(1.5, 0, 2), the variant Brown and Sandholm recommend.
    pub const DCFR: Schedule = Schedule {
        alpha: Some(1.5),
        beta: Some(0.0),
        gamma: 2.0,
        floor_regrets: false,
    };

    /// A DCFR schedule with the given exponents.
    pub fn dcfr(alpha: f64, beta: f64, gamma: f64) -> Schedule {
        Schedule {
            alpha: Some(alpha),
            beta: Some(beta),
            gamma,
            floor_regrets: false,
        }
    }

    pub fn validate(&self) -> Result<(), CfrError> {
        for (name, exponent) in [("alpha", self.alpha), ("beta", self.beta)] {
            if let Some(a) = exponent
                && !(a == 0.0 || (0.5..=64.0).contains(&a))
            {
                return Err(CfrError::Schedule(format!(
                    "{name} = {a}: use 0, a value from 0.5 to 64, or no discount"
                )));
            }
        }
        if !(0.0..=64.0).contains(&self.gamma) {
            return Err(CfrError::Schedule(format!(
                "gamma = {} must be from 0 to 64",
                self.gamma
            )));
        }
        Ok(())
    }
}

/// `F(n) = Σ_{j=1}^{n-1} ln(1 + j^-a)` for one exponent `a`.
#[derive(Clone, Debug)]
struct LogPrefix {
    exponent: f64,
    table: Vec<f64>,
}

const EXACT_UP_TO: usize = 4096;

impl LogPrefix {
    fn new(exponent: f64) -> LogPrefix {
        let mut table = Vec::with_capacity(EXACT_UP_TO + 1);
        table.push(0.0); // F(0), unused
        let mut sum = 0.0;
        for n in 1..=EXACT_UP_TO {
            table.push(sum); // F(n) sums j < n
            sum += Self::term(exponent, n as f64);
        }
        LogPrefix { exponent, table }
    }

    #[inline]
    fn term(exponent: f64, j: f64) -> f64 {
        (j.powf(-exponent)).ln_1p()
    }

    fn at(&self, n: u64) -> f64 {
        if self.exponent == 0.0 {
            return n.saturating_sub(1) as f64 * std::f64::consts::LN_2;
        }
        if n as usize <= EXACT_UP_TO {
            return self.table[n as usize];
        }
        self.table[EXACT_UP_TO] + self.tail(EXACT_UP_TO as f64, n as f64)
    }

    /// `Σ_{j=from}^{to-1} ln(1 + j^-a)` by Euler–Maclaurin, with the integral
    /// of `ln(1 + x^-a) = Σ_m (-1)^{m+1} x^{-am} / m` taken term by term.
    /// For `x >= 4096` and `a >= 0.5`, `x^-a <= 1/64`, so eight terms leave
    /// an error far below f64 resolution of the result.
    fn tail(&self, from: f64, to: f64) -> f64 {
        let a = self.exponent;
        let mut integral = 0.0;
        for m in 1..=8 {
            let power = a * f64::from(m);
            let piece = if (power - 1.0).abs() < 1e-12 {
                (to / from).ln()
            } else {
                (to.powf(1.0 - power) - from.powf(1.0 - power)) / (1.0 - power)
            };
            let sign = if m % 2 == 1 { 1.0 } else { -1.0 };
            integral += sign * piece / f64::from(m);
        }
        let f = |x: f64| Self::term(a, x);
        let derivative = |x: f64| -a * x.powf(-a - 1.0) / (1.0 + x.powf(-a));
        integral + (f(from) - f(to)) / 2.0 + (derivative(to) - derivative(from)) / 12.0
    }

    /// `Π_{j=from}^{to-1} j^a / (j^a + 1)`. For `a = 1` (linear CFR) the
    /// product telescopes to `from / to`: exact, and far cheaper than the
    /// series, which every record read and update would otherwise pay.
    fn factor(&self, from: u64, to: u64) -> f64 {
        if self.exponent == 1.0 {
            return from as f64 / to as f64;
        }
        (self.at(from) - self.at(to)).exp()
    }
}

/// A schedule ready to catch records up.
#[derive(Clone, Debug)]
pub struct Discounter {
    schedule: Schedule,
    positive: Option<LogPrefix>,
    negative: Option<LogPrefix>,
}

impl Discounter {
    pub fn new(schedule: Schedule) -> Result<Discounter, CfrError> {
        schedule.validate()?;
        Ok(Discounter {
            schedule,
            positive: schedule.alpha.map(LogPrefix::new),
            negative: schedule.beta.map(LogPrefix::new),
        })
    }

    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The multipliers that bring a record last updated at `last` up to the
    /// start of iteration `now`: (positive regrets, negative regrets, sums).
    #[inline]
    pub fn factors(&self, last: u64, now: u64) -> (f64, f64, f64) {
        if last == 0 || now <= last {
            return (1.0, 1.0, 1.0);
        }
        let positive = self.positive.as_ref().map_or(1.0, |p| p.factor(last, now));
        let negative = self.negative.as_ref().map_or(1.0, |p| p.factor(last, now));
        let sums = if self.schedule.gamma == 0.0 {
            1.0
        } else if self.schedule.gamma == 1.0 {
            last as f64 / now as f64
        } else {
            (last as f64 / now as f64).powf(self.schedule.gamma)
        };
        (positive, negative, sums)
    }

    /// The factors from a record's stamp to iteration `now`, as of the
    /// iterations the stamps stand for (`store::stamp`).
    #[inline]
    fn factors_from(&self, record: &Record, now: u64) -> (f64, f64, f64) {
        self.factors(stamp::decode(record.stamp), stamp::discounted_as_of(now))
    }

    /// The record's regrets as of iteration `now`, without changing it.
    #[inline]
    pub fn current_regrets(&self, record: &Record, now: u64, out: &mut [f64]) {
        let (positive, negative, _) = self.factors_from(record, now);
        for (value, &regret) in out.iter_mut().zip(&record.regrets) {
            let regret = f64::from(regret);
            *value = regret * if regret > 0.0 { positive } else { negative };
        }
    }

    /// Brings `record` up to the start of iteration `now` in place, and
    /// stamps it updated at `now`. Called inside every update.
    #[inline]
    pub fn catch_up(&self, record: &mut Record, now: u64) {
        let (positive, negative, sums) = self.factors_from(record, now);
        if (positive, negative, sums) != (1.0, 1.0, 1.0) {
            for regret in &mut record.regrets {
                let factor = if *regret > 0.0 { positive } else { negative };
                *regret = (f64::from(*regret) * factor) as f32;
            }
            for sum in &mut record.strategy_sum {
                *sum = (f64::from(*sum) * sums) as f32;
            }
        }
        // Parallel iterations may finish out of order; never move backwards.
        record.stamp = record.stamp.max(stamp::encode(now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct_product(a: f64, from: u64, to: u64) -> f64 {
        (from..to)
            .map(|j| (j as f64).powf(a) / ((j as f64).powf(a) + 1.0))
            .product()
    }

    #[test]
    fn lazy_factors_match_the_direct_product() {
        for a in [0.0, 0.5, 1.0, 1.5, 2.0, 3.0] {
            let prefix = LogPrefix::new(a);
            for (from, to) in [
                (1, 2),
                (1, 100),
                (7, 4096),
                (100, 5000),
                (4000, 9000),
                (5000, 300_000),
                (1, 1_000_000),
            ] {
                let expected = direct_product(a, from, to);
                let lazy = prefix.factor(from, to);
                let error = (lazy - expected).abs() / expected.max(1e-300);
                assert!(
                    error < 1e-9 || (expected < 1e-200 && lazy < 1e-200),
                    "a={a} {from}..{to}: {lazy} vs {expected}"
                );
            }
        }
    }

    #[test]
    fn linear_cfr_weights_iteration_t_by_t() {
        // Regret r added at iterations 1..=T, caught up each time, must equal
        // Σ t·r / T (the discount form of linear weighting) for a positive r.
        let discounter = Discounter::new(Schedule::LINEAR).unwrap();
        let mut record = Record::default();
        let horizon = 50u64;
        for t in 1..=horizon {
            discounter.catch_up(&mut record, t);
            record.regrets[0] += 1.0;
            record.strategy_sum[0] += 1.0;
        }
        discounter.catch_up(&mut record, horizon + 1);
        let expected: f64 = (1..=horizon).map(|t| t as f64).sum::<f64>() / (horizon + 1) as f64;
        assert!(
            (f64::from(record.regrets[0]) - expected).abs() < 1e-4,
            "{}",
            record.regrets[0]
        );
        assert!((f64::from(record.strategy_sum[0]) - expected).abs() < 1e-4);
    }

    /// Past 2^31 a stamp counts steps of 1,024 iterations. A record touched
    /// at every iteration there is discounted as one caught up once over
    /// the whole stretch: no part of a step is discounted twice (which
    /// would compound over the steps) or skipped.
    #[test]
    fn coarse_stamps_discount_a_record_touched_every_iteration_exactly_once() {
        let discounter = Discounter::new(Schedule::LINEAR).unwrap();
        for start in [3_000_000_000u64, 3_000_000_500, (1 << 31) - 10] {
            let end = start + 100 * 1024 + 17;
            let mut every = Record::default();
            let mut once = Record::default();
            for record in [&mut every, &mut once] {
                discounter.catch_up(record, start);
                record.regrets[0] = 1.0;
                record.strategy_sum[0] = 1.0;
            }
            for t in start + 1..=end {
                discounter.catch_up(&mut every, t);
            }
            discounter.catch_up(&mut once, end);
            // The exact linear discount, start to end, is 3.4e-5 below 1.
            // The coarse steps move it by at most a step's worth at either
            // end (7e-7), and rounding to f32 at each of the 100 steps by up
            // to 6e-8 each; discounting a step twice would take 3.4e-5 more,
            // skipping the steps would leave 1.
            let exact = start as f64 / end as f64;
            for (how, record) in [("every iteration", &every), ("once", &once)] {
                let value = f64::from(record.regrets[0]);
                assert!(
                    (value - exact).abs() <= 1e-5,
                    "{start}, caught up {how}: {value} against {exact}"
                );
            }
            assert_eq!(every.stamp, once.stamp);
        }
    }

    #[test]
    fn skipping_iterations_equals_touching_every_one() {
        let discounter = Discounter::new(Schedule::DCFR).unwrap();
        let mut lazy = Record::default();
        let mut eager = Record::default();
        for record in [&mut lazy, &mut eager] {
            discounter.catch_up(record, 3);
            record.regrets[0] = 5.0;
            record.regrets[1] = -5.0;
            record.strategy_sum[0] = 2.0;
        }
        for t in 4..=1000 {
            discounter.catch_up(&mut eager, t);
        }
        discounter.catch_up(&mut lazy, 1000);
        for (a, b) in lazy.regrets.iter().zip(&eager.regrets) {
            assert!((a - b).abs() <= 1e-5 * b.abs().max(1e-30), "{a} vs {b}");
        }
        assert!((lazy.strategy_sum[0] - eager.strategy_sum[0]).abs() < 1e-6);
    }

    #[test]
    fn bad_schedules_are_refused() {
        assert!(Discounter::new(Schedule::dcfr(0.2, 0.0, 2.0)).is_err());
        assert!(Discounter::new(Schedule::dcfr(1.5, 0.0, -1.0)).is_err());
        assert!(Discounter::new(Schedule::DCFR).is_ok());
    }
}
