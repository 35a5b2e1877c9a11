//! `trainer bench prune`: what regret-based pruning does to training speed
//! once regrets mean something.
//!
//! Pruning skips actions with deeply negative regret, so a fresh table has
//! nothing to skip; the benchmark first trains a run for `warm` iterations.
//! It then alternates segments of `iterations` with and without pruning on
//! that same table, so both see the same regrets, and reports each
//! setting's iterations per second against the schedule run without
//! pruning, measured in the same run. A second run with the default
//! schedule (DCFR with β = 0) shows why pruning needs regrets that stay
//! negative.

use std::path::Path;

use crate::config::{Overrides, PruningSettings, RunProfile, ScheduleName, resolve};
use crate::format::thousands;
use crate::phase::Phase;
use crate::training::session::{Budget, Session};
use store::Backend;

/// Alternating segments of each setting.
const ROUNDS: usize = 2;

struct Measured {
    label: String,
    iterations: u64,
    seconds: f64,
    pruned: u64,
}

/// Trains one run `warm` iterations, then `ROUNDS` segments each without
/// and with pruning.
fn measure_schedule(
    phase: Phase,
    schedule: ScheduleName,
    threads: usize,
    warm: u64,
    iterations: u64,
    pruning: PruningSettings,
    dir: &Path,
) -> anyhow::Result<[Measured; 2]> {
    let flags = Overrides {
        phase: Some(phase),
        store: Some(Backend::Memory),
        threads: Some(threads),
        seed: Some(1),
        ..Overrides::default()
    };
    let mut profile = RunProfile::default();
    profile.solver.schedule = schedule;
    let (identity, settings, _) = resolve(profile, flags)?;
    let run = dir.join(format!("{phase}-{schedule:?}"));
    let _ = std::fs::remove_dir_all(&run);
    let mut session = Session::open(&run, &identity, &settings, &mut ())?;
    eprintln!(
        "warming {phase} with {} for {} iterations...",
        identity.solver,
        thousands(warm)
    );
    session.train(
        Budget {
            iterations: Some(warm),
            ..Budget::default()
        },
        &mut (),
    )?;
    let mut results = [false, true].map(|prunes| Measured {
        label: format!(
            "{}, {}",
            identity.solver,
            if prunes {
                format!("pruning below -{}", pruning.below)
            } else {
                "no pruning".to_owned()
            }
        ),
        iterations: 0,
        seconds: 0.0,
        pruned: 0,
    });
    for _ in 0..ROUNDS {
        for (prunes, result) in [false, true].into_iter().zip(results.iter_mut()) {
            session.set_pruning(prunes.then_some(PruningSettings {
                after: 0,
                ..pruning
            }));
            let summary = session.train(
                Budget {
                    iterations: Some(iterations),
                    ..Budget::default()
                },
                &mut (),
            )?;
            result.iterations += summary.session_iterations;
            result.seconds += summary.train_seconds;
            result.pruned += summary.pruned_actions;
        }
    }
    drop(session);
    let _ = std::fs::remove_dir_all(&run);
    Ok(results)
}

pub fn run(
    phase: Phase,
    warm: u64,
    iterations: u64,
    below: f64,
    threads: usize,
    dir: &Path,
) -> anyhow::Result<()> {
    anyhow::ensure!(iterations >= 10, "--iterations must be at least 10");
    let pruning = PruningSettings::from_flags(below, None)?.ok_or_else(|| {
        anyhow::anyhow!("--prune 0 measures nothing: give a regret, as --prune 20")
    })?;
    let mut rows = Vec::new();
    for schedule in [ScheduleName::Dcfr, ScheduleName::Linear] {
        rows.extend(measure_schedule(
            phase, schedule, threads, warm, iterations, pruning, dir,
        )?);
    }
    std::fs::remove_dir_all(dir).ok();
    let baseline = rows[0].iterations as f64 / rows[0].seconds;
    println!(
        "{phase}, memory store, {threads} thread(s): {} warm-up iterations, then {ROUNDS} alternating segments of {} per setting; ratios against the first row, same run",
        thousands(warm),
        thousands(iterations)
    );
    println!(
        "{:<58} {:>10} {:>9} {:>16}",
        "schedule and pruning", "it/s", "vs first", "pruned per it"
    );
    for row in &rows {
        let rate = row.iterations as f64 / row.seconds;
        println!(
            "{:<58} {:>10} {:>8.2}x {:>16.1}",
            row.label,
            thousands(rate as u64),
            rate / baseline,
            row.pruned as f64 / row.iterations.max(1) as f64
        );
    }
    Ok(())
}
