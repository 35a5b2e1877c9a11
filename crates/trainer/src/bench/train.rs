//! `trainer bench train`: training speed for each phase, store and thread
//! count, as ratios against the memory store on one thread, measured in the
//! same run. Given a bidding blueprint, each card-play phase is measured a
//! second time with its bids fixed, against the same settings with bids
//! trained.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::{BidsName, RunOptions, RunProfile, SessionOptions, resolve};
use crate::format::{bytes, thousands};
use crate::meter::resident_bytes;
use crate::training::looping::Budget;
use crate::training::run_dir::Progress;
use crate::training::session::Session;
use euchre_bots::phase::Phase;
use store::Backend;

struct Row {
    phase: Phase,
    store: Backend,
    threads: usize,
    fixed_bids: bool,
    result: Result<Measurement, String>,
}

/// What one row trained in its measured segment.
struct Measurement {
    iterations: u64,
    seconds: f64,
    updates: u64,
    resident: u64,
}

impl Measurement {
    fn rate(&self) -> f64 {
        self.iterations as f64 / self.seconds
    }
}

/// How long each row warms up and is then measured: a number of
/// iterations, or a stretch of training time. Time is what shows a disk
/// store's steady state: a fresh mmap file spends its first minutes
/// faulting pages in and journalling their first changes, and a fixed
/// iteration count measures faster settings over a shorter, more
/// first-touch-bound stretch.
#[derive(Clone, Copy, Debug)]
pub enum Length {
    Iterations {
        warm_up: u64,
        measured: u64,
    },
    Time {
        warm_up: Duration,
        measured: Duration,
    },
}

impl Length {
    fn budgets(self) -> (Budget, Budget) {
        let count = |iterations| Budget {
            iterations: Some(iterations),
            ..Budget::default()
        };
        let time = |duration| Budget {
            duration: Some(duration),
            ..Budget::default()
        };
        match self {
            Length::Iterations { warm_up, measured } => (count(warm_up), count(measured)),
            Length::Time { warm_up, measured } => (time(warm_up), time(measured)),
        }
    }

    fn describe(self) -> String {
        match self {
            Length::Iterations { warm_up, measured } => format!(
                "{} iterations each after a {}-iteration warm-up",
                thousands(measured),
                thousands(warm_up)
            ),
            Length::Time { warm_up, measured } => format!(
                "{} s of training each after a {} s warm-up",
                measured.as_secs_f64(),
                warm_up.as_secs_f64()
            ),
        }
    }
}

/// Which rows to measure.
#[derive(Clone, Debug)]
pub struct Selection {
    pub phases: Vec<Phase>,
    pub stores: Vec<Backend>,
    pub threads: Vec<usize>,
}

/// One phase, store and thread count: iterations per second, record
/// updates and resident memory, measured through a training [`Session`]
/// in a fresh run directory, as `trainer train` runs it.
fn measure(
    phase: Phase,
    store: Backend,
    threads: usize,
    bidding_from: Option<PathBuf>,
    length: Length,
    dir: &Path,
) -> anyhow::Result<Measurement> {
    // The "trained" rows train their bids with card play: a staged run's
    // bidding stage would be a second, different measurement.
    let bids = (phase != Phase::Bidding && bidding_from.is_none()).then_some(BidsName::Trained);
    let flags = RunOptions {
        phase: Some(phase),
        store: Some(store),
        seed: Some(1),
        bidding_from,
        bids,
        session: SessionOptions {
            threads: Some(threads),
            ..SessionOptions::default()
        },
        ..RunOptions::default()
    };
    let resolved = resolve(RunProfile::default(), flags.into())?;
    let (identity, settings) = (resolved.identity, resolved.session);
    let run = dir.join(format!("{phase}-{store}-{threads}"));
    let _ = std::fs::remove_dir_all(&run);
    let mut session = Session::open(&run, &identity, &settings, &mut ())?;
    // One-thread runs reuse this thread: start each with no cached leaves.
    euchre_bots::leaves::clear_leaf_cache();
    // A warm-up touches the commonest infostates first, as any run does.
    let (warm_up, measured) = length.budgets();
    session.train(warm_up, &mut ())?;
    let updates_so_far = |progress: Progress| progress.regret_updates + progress.strategy_updates;
    let before = updates_so_far(session.progress());
    let summary = session.train(measured, &mut ())?;
    let updates = updates_so_far(summary.progress) - before;
    let resident = resident_bytes();
    drop(session);
    let _ = std::fs::remove_dir_all(&run);
    Ok(Measurement {
        iterations: summary.session_iterations,
        seconds: summary.train_seconds,
        updates,
        resident,
    })
}

pub fn run(
    length: Length,
    selection: &Selection,
    bidding_from: Option<&Path>,
    dir: &Path,
) -> anyhow::Result<()> {
    if let Length::Iterations { measured, .. } = length {
        anyhow::ensure!(measured >= 10, "--iterations must be at least 10");
    }
    let mut rows = Vec::new();
    for &phase in &selection.phases {
        for &store in &selection.stores {
            for &threads in &selection.threads {
                let blueprint = bidding_from.filter(|_| phase != Phase::Bidding);
                for fixed in std::iter::once(None).chain(blueprint.map(Some)) {
                    let bids = if fixed.is_some() { "fixed" } else { "trained" };
                    eprintln!(
                        "measuring {phase} on {store} with {threads} thread(s), bids {bids}..."
                    );
                    let result = measure(
                        phase,
                        store,
                        threads,
                        fixed.map(Path::to_path_buf),
                        length,
                        dir,
                    )
                    .map_err(|e| format!("{e:#}"));
                    rows.push(Row {
                        phase,
                        store,
                        threads,
                        fixed_bids: fixed.is_some(),
                        result,
                    });
                }
            }
        }
    }
    std::fs::remove_dir_all(dir).ok();
    println!(
        "{}; ratios against memory, 1 thread, same phase",
        length.describe()
    );
    println!(
        "{:<10} {:<7} {:>7} {:<7} {:>10} {:>13} {:>12} {:>14} {:>14} {:>12}",
        "phase",
        "store",
        "threads",
        "bids",
        "it/s",
        "updates/s",
        "vs memory-1",
        "vs own 1-thr",
        "vs bids trained",
        "resident"
    );
    let rate = |r: &Row| r.result.as_ref().ok().map(Measurement::rate);
    for row in &rows {
        let bids = if row.fixed_bids { "fixed" } else { "trained" };
        let Ok(measurement) = &row.result else {
            let reason = row.result.as_ref().err().cloned().unwrap_or_default();
            let reason: String = reason.chars().take(70).collect();
            println!(
                "{:<10} {:<7} {:>7} {:<7}   n/a: {reason}",
                row.phase.to_string(),
                row.store.to_string(),
                row.threads,
                bids
            );
            continue;
        };
        let own = measurement.rate();
        let find = |store: Backend, threads: usize, fixed_bids: bool| {
            rows.iter()
                .find(|r| {
                    r.phase == row.phase
                        && r.store == store
                        && r.threads == threads
                        && r.fixed_bids == fixed_bids
                })
                .and_then(rate)
        };
        let ratio = |base: Option<f64>| base.map_or("-".into(), |b| format!("{:.2}x", own / b));
        println!(
            "{:<10} {:<7} {:>7} {:<7} {:>10} {:>13} {:>12} {:>14} {:>14} {:>12}",
            row.phase.to_string(),
            row.store.to_string(),
            row.threads,
            bids,
            thousands(own as u64),
            thousands((measurement.updates as f64 / measurement.seconds) as u64),
            ratio(find(Backend::Memory, 1, row.fixed_bids)),
            ratio(find(row.store, 1, row.fixed_bids)),
            ratio(find(row.store, row.threads, false)),
            bytes(measurement.resident)
        );
    }
    Ok(())
}
