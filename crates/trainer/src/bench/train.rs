//! `trainer bench train`: training speed for each phase, store and thread
//! count, as ratios against the memory store on one thread, measured in the
//! same run. Given a bidding blueprint, each card-play phase is measured a
//! second time with its bids fixed, against the same settings with bids
//! trained.

use std::path::{Path, PathBuf};

use crate::config::{Overrides, RunProfile, resolve};
use crate::format::{bytes, thousands};
use crate::meter::resident_bytes;
use crate::phase::Phase;
use crate::training::run_dir::Progress;
use crate::training::session::{Budget, Session};
use store::Backend;

struct Row {
    phase: Phase,
    store: Backend,
    threads: usize,
    fixed_bids: bool,
    result: Result<(f64, u64, u64), String>,
}

/// One phase, store and thread count: iterations per second, record
/// updates and resident memory, measured through a training [`Session`]
/// in a fresh run directory, as `trainer train` runs it.
fn measure(
    phase: Phase,
    store: Backend,
    threads: usize,
    bidding_from: Option<PathBuf>,
    iterations: u64,
    dir: &Path,
) -> anyhow::Result<(f64, u64, u64)> {
    let flags = Overrides {
        phase: Some(phase),
        store: Some(store),
        threads: Some(threads),
        seed: Some(1),
        bidding_from,
        ..Overrides::default()
    };
    let (identity, settings, _) = resolve(RunProfile::default(), flags)?;
    let run = dir.join(format!("{phase}-{store}-{threads}"));
    let _ = std::fs::remove_dir_all(&run);
    let mut session = Session::open(&run, &identity, &settings, &mut ())?;
    // One-thread runs reuse this thread: start each with no cached leaves.
    crate::leaves::clear_leaf_cache();
    // A short warm-up touches the commonest infostates first, as any run does.
    let warm_up = Budget {
        iterations: Some(iterations / 10),
        ..Budget::default()
    };
    session.train(warm_up, &mut ())?;
    let updates_so_far = |progress: Progress| progress.regret_updates + progress.strategy_updates;
    let before = updates_so_far(session.progress());
    let measured = Budget {
        iterations: Some(iterations),
        ..Budget::default()
    };
    let summary = session.train(measured, &mut ())?;
    let updates = updates_so_far(summary.progress) - before;
    let resident = resident_bytes();
    drop(session);
    let _ = std::fs::remove_dir_all(&run);
    Ok((summary.train_seconds, updates, resident))
}

pub fn run(
    iterations: u64,
    phases: &[Phase],
    bidding_from: Option<&Path>,
    dir: &Path,
) -> anyhow::Result<()> {
    anyhow::ensure!(iterations >= 10, "--iterations must be at least 10");
    let mut rows = Vec::new();
    for &phase in phases {
        for store in Backend::ALL {
            for threads in [1, 2] {
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
                        iterations,
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
        "{} iterations each after a {}-iteration warm-up; ratios against memory, 1 thread, same phase",
        thousands(iterations),
        thousands(iterations / 10)
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
    let rate = |r: &Row| {
        r.result
            .as_ref()
            .ok()
            .map(|(s, _, _)| iterations as f64 / s)
    };
    for row in &rows {
        let bids = if row.fixed_bids { "fixed" } else { "trained" };
        let Ok((seconds, updates, resident)) = &row.result else {
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
        let own = iterations as f64 / seconds;
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
            thousands((*updates as f64 / seconds) as u64),
            ratio(find(Backend::Memory, 1, row.fixed_bids)),
            ratio(find(row.store, 1, row.fixed_bids)),
            ratio(find(row.store, row.threads, false)),
            bytes(*resident)
        );
    }
    Ok(())
}
