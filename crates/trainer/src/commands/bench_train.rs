//! `trainer bench train`: training speed for each phase, store and thread
//! count, as ratios against the memory store on one thread, measured in the
//! same run.

use std::path::Path;
use std::time::Instant;

use cfr::mccfr::ExternalSampling;
use euchre_game::rules::Rules;

use crate::config::{EncodingName, Identity, SolverSettings, StoreKind};
use crate::format::{bytes, thousands};
use crate::game::EuchreGame;
use crate::meter::resident_bytes;
use crate::phase::Phase;
use crate::training::backend;

struct Row {
    phase: Phase,
    store: StoreKind,
    threads: usize,
    result: Result<(f64, u64, u64), String>,
}

fn measure(
    phase: Phase,
    store: StoreKind,
    threads: usize,
    iterations: u64,
    dir: &Path,
) -> Result<(f64, u64, u64), String> {
    let identity = Identity {
        phase,
        store,
        rules: Rules::default(),
        solver: SolverSettings::default(),
        encoding: EncodingName::F32,
        seed: 1,
    };
    let run = dir.join(format!("{phase}-{store}-{threads}"));
    std::fs::remove_dir_all(&run).ok();
    let table =
        backend::open(&identity, &run, 1 << 20, &mut |_| {}).map_err(|e| format!("{e:#}"))?;
    // One-thread runs reuse this thread: start each with no cached leaves.
    crate::game::clear_leaf_cache();
    let root = EuchreGame::root(identity.rules, phase);
    let solver =
        ExternalSampling::new(root, table.as_ref(), identity.solver.schedule(), 1, threads)
            .map_err(|e| e.to_string())?;
    // A short warm-up touches the commonest infostates first, as any run does.
    solver.run(1, iterations / 10).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let stats = solver
        .run(iterations / 10 + 1, iterations)
        .map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let resident = resident_bytes();
    drop(solver);
    drop(table);
    std::fs::remove_dir_all(&run).ok();
    Ok((seconds, stats.updates(), resident))
}

pub(crate) fn run(iterations: u64, phases: &[Phase], dir: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(iterations >= 10, "--iterations must be at least 10");
    let mut rows = Vec::new();
    for &phase in phases {
        for store in [StoreKind::Memory, StoreKind::Lmdb, StoreKind::Mmap] {
            for threads in [1, 2] {
                eprintln!("measuring {phase} on {store} with {threads} thread(s)...");
                let result = measure(phase, store, threads, iterations, dir);
                rows.push(Row {
                    phase,
                    store,
                    threads,
                    result,
                });
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
        "{:<10} {:<7} {:>7} {:>10} {:>13} {:>12} {:>14} {:>12}",
        "phase", "store", "threads", "it/s", "updates/s", "vs memory-1", "vs own 1-thr", "resident"
    );
    for row in &rows {
        let Ok((seconds, updates, resident)) = &row.result else {
            let reason = row.result.as_ref().err().cloned().unwrap_or_default();
            let reason: String = reason.chars().take(70).collect();
            println!(
                "{:<10} {:<7} {:>7}   n/a: {reason}",
                row.phase.to_string(),
                row.store.to_string(),
                row.threads
            );
            continue;
        };
        let rate = |r: &Row| {
            r.result
                .as_ref()
                .ok()
                .map(|(s, _, _)| iterations as f64 / s)
        };
        let own = iterations as f64 / seconds;
        let baseline = rows
            .iter()
            .find(|r| r.phase == row.phase && r.store == StoreKind::Memory && r.threads == 1)
            .and_then(rate);
        let one_thread = rows
            .iter()
            .find(|r| r.phase == row.phase && r.store == row.store && r.threads == 1)
            .and_then(rate);
        let ratio = |base: Option<f64>| base.map_or("-".into(), |b| format!("{:.2}x", own / b));
        println!(
            "{:<10} {:<7} {:>7} {:>10} {:>13} {:>12} {:>14} {:>12}",
            row.phase.to_string(),
            row.store.to_string(),
            row.threads,
            thousands(own as u64),
            thousands((*updates as f64 / seconds) as u64),
            ratio(baseline),
            ratio(one_thread),
            bytes(*resident)
        );
    }
    Ok(())
}
