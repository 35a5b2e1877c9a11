//! Strategies as the solver reads them out of a table.

use store::{Record, Table};

/// A strategy for every infostate: the probabilities of its actions.
pub trait Policy {
    /// Fills `out` (one entry per action) for the infostate `key`.
    fn probabilities(&self, key: u128, out: &mut [f64]);
}

/// The average strategy: strategy sums normalised. An infostate never
/// reached (all sums zero, or no record) plays uniformly.
pub fn average_strategy(record: &Record, out: &mut [f64]) {
    let sums = &record.strategy_sum[..out.len()];
    let total: f64 = sums.iter().map(|&s| f64::from(s.max(0.0))).sum();
    if total > 0.0 {
        for (p, &s) in out.iter_mut().zip(sums) {
            *p = f64::from(s.max(0.0)) / total;
        }
    } else {
        out.fill(1.0 / out.len() as f64);
    }
}

/// The average strategy stored in a table, read whole into memory, so
/// that best-response walks never meet a storage error halfway.
#[derive(Debug)]
pub struct AveragePolicy {
    records: std::collections::HashMap<u128, Record>,
}

impl AveragePolicy {
    pub fn load<T: Table + ?Sized>(table: &T) -> Result<AveragePolicy, store::StoreError> {
        let mut records = std::collections::HashMap::with_capacity(table.len() as usize);
        table.for_each(&mut |key, record| {
            records.insert(key, *record);
        })?;
        Ok(AveragePolicy { records })
    }
}

impl Policy for AveragePolicy {
    fn probabilities(&self, key: u128, out: &mut [f64]) {
        match self.records.get(&key) {
            Some(record) => average_strategy(record, out),
            None => out.fill(1.0 / out.len() as f64),
        }
    }
}

/// A policy given by a function, for injecting known strategies in tests.
pub struct FnPolicy<F: Fn(u128, &mut [f64])>(pub F);

impl<F: Fn(u128, &mut [f64])> Policy for FnPolicy<F> {
    fn probabilities(&self, key: u128, out: &mut [f64]) {
        (self.0)(key, out);
    }
}

impl<F: Fn(u128, &mut [f64])> std::fmt::Debug for FnPolicy<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnPolicy")
    }
}
