//! `trainer bench prune`: what regret-based pruning does to training speed
//! once regrets mean something.
//!
//! Pruning skips actions with deeply negative regret, so a fresh table has
//! nothing to skip; the benchmark first trains a run for `warm` iterations.
//! It then alternates segments of `iterations` without pruning and with
//! each threshold on that same table, so all see the same regrets, and
//! reports each setting's iterations per second against the first row,
//! measured in the same run. A second run with the default
//! schedule (DCFR with β = 0) shows why pruning needs regrets that stay
//! negative.

use std::path::Path;

use crate::config::{
    PruningSettings, RunOptions, RunProfile, ScheduleName, SessionOptions, resolve,
};
use crate::format::thousands;
use crate::training::looping::Budget;
use crate::training::session::Session;
use euchre_bots::phase::Phase;
use store::Backend;

/// Alternating segments of each setting.
const ROUNDS: usize = 2;

struct Measured {
    label: String,
    iterations: u64,
    seconds: f64,
    pruned: u64,
}

/// Trains one run `warm` iterations, then `ROUNDS` segments of each
/// setting in turn: no pruning, then each of `prunings`.
fn measure_schedule(
    phase: Phase,
    schedule: ScheduleName,
    threads: usize,
    warm: u64,
    iterations: u64,
    prunings: &[PruningSettings],
    dir: &Path,
) -> anyhow::Result<Vec<Measured>> {
    let flags = RunOptions {
        phase: Some(phase),
        store: Some(Backend::Memory),
        seed: Some(1),
        session: SessionOptions {
            threads: Some(threads),
            ..SessionOptions::default()
        },
        ..RunOptions::default()
    };
    let mut profile = RunProfile::default();
    profile.solver.schedule = Some(schedule);
    let resolved = resolve(profile, flags.into())?;
    let (identity, settings) = (resolved.identity, resolved.session);
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
    let settings: Vec<Option<PruningSettings>> = std::iter::once(None)
        .chain(prunings.iter().map(|&pruning| Some(pruning)))
        .collect();
    let mut results: Vec<Measured> = settings
        .iter()
        .map(|pruning| Measured {
            label: format!(
                "{}, {}",
                identity.solver,
                pruning.map_or("no pruning".to_owned(), |pruning| format!(
                    "pruning below -{}",
                    pruning.below
                ))
            ),
            iterations: 0,
            seconds: 0.0,
            pruned: 0,
        })
        .collect();
    for _ in 0..ROUNDS {
        for (pruning, result) in settings.iter().zip(results.iter_mut()) {
            session.set_pruning(*pruning);
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
    thresholds: &[f64],
    threads: usize,
    dir: &Path,
) -> anyhow::Result<()> {
    anyhow::ensure!(iterations >= 10, "--iterations must be at least 10");
    let mut prunings = Vec::new();
    for &below in thresholds {
        prunings.extend(PruningSettings::from_flags(below, None)?);
    }
    anyhow::ensure!(
        !prunings.is_empty(),
        "--prune 0 measures nothing: give one or more regrets, as --prune 20,200"
    );
    let mut rows = Vec::new();
    for schedule in [ScheduleName::Dcfr, ScheduleName::Linear] {
        rows.extend(measure_schedule(
            phase, schedule, threads, warm, iterations, &prunings, dir,
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
