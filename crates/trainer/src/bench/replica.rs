//! `trainer bench replica`: what one rank's share of a sync costs, the
//! drain (finding each record the epoch changed in place, putting it back
//! and encoding its change) and the apply (summing every rank's changes
//! per record and writing them), on the code a cluster runs, at each
//! thread count.
//!
//! Under `mpirun` the ranks of this machine share its two cores, so a
//! rank's 2 threads drain and apply beside the other rank's and no
//! speed-up shows. Here one process has the machine: the replica trains in
//! place on an mmap store of i16 records, as full play's ranks do, names
//! records by slot (a shared layout), and its updates move regrets alone
//! (card play keeps no average by default); the other ranks are stood in for by an exchange
//! that hands back this rank's changes once for every rank, so the apply
//! sums as many entries a record as a sync of that many ranks whose epochs
//! changed the same records (the most an apply can have to sum).

use std::path::Path;
use std::time::Instant;

use anyhow::Context;
use cfr::Schedule;
use cfr::discount::Discounter;
use cfr::distributed::{Collective, CollectiveError, Reads, ReplicatedTable, StrategySums};
use rayon::prelude::*;
use store::{MmapTable, Record, RecordEncoding, RecordLayout, Table};

use super::store::{BenchUniverse, fingerprint, key_of};
use crate::format::thousands;

/// What a run measures.
#[derive(Clone, Debug)]
pub struct Workload {
    /// Records in the table.
    pub records: u64,
    /// The share of them an epoch changes, in percent.
    pub touched_percent: f64,
    /// Ranks whose changes the apply sums.
    pub ranks: usize,
    /// Thread counts, each timed `tries` times, alternating.
    pub threads: Vec<usize>,
    pub tries: usize,
}

impl Workload {
    /// Refuses a workload the bench cannot run, naming the flag to fix.
    fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            (1..=u64::from(u32::MAX)).contains(&self.records),
            "--records must be from 1 to {} (the bench's keys are numbered in 32 bits)",
            u32::MAX
        );
        anyhow::ensure!(
            self.touched_percent > 0.0 && self.touched_percent <= 100.0,
            "--touched is a percentage of the records, above 0 and at most 100"
        );
        anyhow::ensure!(self.ranks >= 1, "--ranks must be at least 1");
        anyhow::ensure!(
            !self.threads.is_empty() && self.threads.iter().all(|&t| t >= 1),
            "--threads lists thread counts of at least 1, for example 1,2"
        );
        Ok(())
    }
}

/// Full play's records: five cards at most, in i16.
const LAYOUT: RecordLayout = match RecordLayout::new(5, RecordEncoding::I16Scaled) {
    Ok(layout) => layout,
    Err(_) => panic!("five actions fit a record"),
};

/// A stand-in for `ranks` ranks whose epochs changed what this one did:
/// every gather hands back this rank's bytes once a rank.
struct Echo {
    ranks: usize,
}

impl Collective for Echo {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        self.ranks
    }

    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, CollectiveError> {
        Ok(vec![mine.to_vec(); self.ranks])
    }

    fn gather(&self, _root: usize, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, CollectiveError> {
        Ok(Some(vec![mine.to_vec(); self.ranks]))
    }

    fn broadcast(&self, _root: usize, _bytes: &mut Vec<u8>) -> Result<(), CollectiveError> {
        Ok(())
    }

    fn all_reduce_sum(&self, values: &mut [f32]) -> Result<(), CollectiveError> {
        let ranks = self.ranks as f32;
        values.iter_mut().for_each(|value| *value *= ranks);
        Ok(())
    }
}

/// One sync's figures.
#[derive(Clone, Copy, Debug, Default)]
struct Timing {
    drain: f64,
    apply: f64,
    sent: u64,
    applied: u64,
}

pub fn run(workload: &Workload, dir: &Path) -> anyhow::Result<()> {
    workload.check()?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("creating {} for the bench's store", dir.display()))?;
    let store_dir = dir.join("replica");
    let built = Instant::now();
    let table = MmapTable::open(
        &store_dir,
        LAYOUT,
        fingerprint(workload.records),
        &BenchUniverse(workload.records),
        &mut |_| {},
    )?;
    let touched = ((workload.records as f64) * workload.touched_percent / 100.0).ceil() as u64;
    println!(
        "one rank's sync in place on an mmap store of {} i16 records (built in {:.1} s): an epoch \
         changes {} of them ({}%), the apply sums {} rank(s)' changes a record; median of {} tries",
        thousands(workload.records),
        built.elapsed().as_secs_f64(),
        thousands(touched),
        workload.touched_percent,
        workload.ranks,
        workload.tries,
    );
    let mut timings = vec![Vec::new(); workload.threads.len()];
    let mut epoch = 0;
    for _ in 0..workload.tries.max(1) {
        for (row, &threads) in workload.threads.iter().enumerate() {
            epoch += 1;
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .context("starting the bench's threads")?;
            let timing = pool.install(|| one_sync(&table, workload, touched, epoch))?;
            timings[row].push(timing);
        }
    }
    drop(table);
    std::fs::remove_dir_all(&store_dir)
        .with_context(|| format!("removing the bench's store {}", store_dir.display()))?;
    print_table(workload, &timings);
    Ok(())
}

/// An epoch that changes `touched` records spread over the table, then its
/// sync, timed by the replica's own clocks.
fn one_sync(
    table: &MmapTable,
    workload: &Workload,
    touched: u64,
    epoch: u64,
) -> anyhow::Result<Timing> {
    let replica = ReplicatedTable::new(table, Discounter::new(Schedule::LINEAR)?, Reads::Live)
        .with_shared_layout()
        .with_strategy_sums(StrategySums::Deferred)
        .training_in_place()?;
    // Every epoch the same records, a stride apart, so that no try finds
    // the others' pages warmer than its own first.
    let stride = (workload.records / touched).max(1);
    let now = epoch * 1_000;
    (0..touched).into_par_iter().try_for_each(|index| {
        let slot = replica.slot(key_of(index * stride))?;
        replica.update(slot, &mut |record| change(record, index, now))
    })?;
    let stats = replica.sync(
        &Echo {
            ranks: workload.ranks,
        },
        now,
    )?;
    Ok(Timing {
        drain: stats.drain_seconds,
        apply: stats.apply_seconds,
        sent: stats.records_sent,
        applied: stats.records_applied,
    })
}

/// An update as full play's card play makes one by default: its regrets
/// moved, the record stamped with the iteration, and no strategy sum (card
/// play keeps no average, so a sync in place holds none for the settle).
fn change(record: &mut Record, index: u64, now: u64) {
    for action in 0..LAYOUT.max_actions() {
        record.regrets[action] += ((index + action as u64) % 7) as f32 - 3.0;
    }
    record.stamp = store::stamp::encode(now);
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn print_table(workload: &Workload, timings: &[Vec<Timing>]) {
    println!(
        "{:>8} {:>11} {:>9} {:>13} {:>9} {:>11} {:>9} {:>13} {:>9}",
        "threads",
        "sent",
        "drain s",
        "µs a record",
        "speed-up",
        "applied",
        "apply s",
        "µs a record",
        "speed-up"
    );
    let medians: Vec<(f64, f64)> = timings
        .iter()
        .map(|row| {
            (
                median(row.iter().map(|t| t.drain).collect()),
                median(row.iter().map(|t| t.apply).collect()),
            )
        })
        .collect();
    let (drain_base, apply_base) = medians[0];
    for ((threads, row), (drain, apply)) in workload.threads.iter().zip(timings).zip(&medians) {
        let last = row.last().copied().unwrap_or_default();
        println!(
            "{:>8} {:>11} {:>9.3} {:>13.2} {:>8.2}× {:>11} {:>9.3} {:>13.2} {:>8.2}×",
            threads,
            thousands(last.sent),
            drain,
            drain * 1e6 / last.sent.max(1) as f64,
            drain_base / drain,
            thousands(last.applied),
            apply,
            apply * 1e6 / last.applied.max(1) as f64,
            apply_base / apply,
        );
    }
    println!("speed-ups against the first row's thread count, medians of the same run");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bench's figures come from a real sync: every record the epoch
    /// changed is sent (its regrets moved), and every one is applied.
    #[test]
    fn a_benched_sync_sends_and_applies_every_record_the_epoch_changed() {
        let dir = test_support::TempDir::new("bench-replica");
        let workload = Workload {
            records: 20_000,
            touched_percent: 10.0,
            ranks: 2,
            threads: vec![1],
            tries: 1,
        };
        let table = MmapTable::open(
            &dir.join("replica"),
            LAYOUT,
            fingerprint(workload.records),
            &BenchUniverse(workload.records),
            &mut |_| {},
        )
        .unwrap();
        let timing = one_sync(&table, &workload, 2_000, 1).unwrap();
        assert_eq!(timing.sent, 2_000);
        assert_eq!(timing.applied, 2_000);
    }

    #[test]
    fn a_workload_it_cannot_run_is_refused_by_the_flag_to_fix() {
        let good = Workload {
            records: 10,
            touched_percent: 10.0,
            ranks: 2,
            threads: vec![1, 2],
            tries: 1,
        };
        assert!(good.check().is_ok());
        for (bad, flag) in [
            (
                Workload {
                    records: 0,
                    ..good.clone()
                },
                "--records",
            ),
            (
                Workload {
                    records: 1 << 33,
                    ..good.clone()
                },
                "--records",
            ),
            (
                Workload {
                    touched_percent: 0.0,
                    ..good.clone()
                },
                "--touched",
            ),
            (
                Workload {
                    touched_percent: 101.0,
                    ..good.clone()
                },
                "--touched",
            ),
            (
                Workload {
                    ranks: 0,
                    ..good.clone()
                },
                "--ranks",
            ),
            (
                Workload {
                    threads: vec![],
                    ..good.clone()
                },
                "--threads",
            ),
            (
                Workload {
                    threads: vec![1, 0],
                    ..good.clone()
                },
                "--threads",
            ),
        ] {
            let error = bad.check().unwrap_err().to_string();
            assert!(error.contains(flag), "{error}");
        }
    }

    #[test]
    fn an_echo_of_three_ranks_hands_back_three_copies_and_triples_a_sum() {
        let echo = Echo { ranks: 3 };
        assert_eq!(echo.all_gather(b"ab").unwrap(), vec![b"ab".to_vec(); 3]);
        let mut values = [1.0, -2.0];
        echo.all_reduce_sum(&mut values).unwrap();
        assert_eq!(values, [3.0, -6.0]);
    }
}
