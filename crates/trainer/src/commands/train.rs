//! `trainer train` and `trainer resume`: a session of training, and the
//! bidding stage before it when the run has one.

use std::path::Path;

use super::export::print_report;
use crate::config::{
    self, Bids, CurveOptions, Identity, SessionOptions, SessionSettings, TrainOptions,
};
use crate::format::{bytes, thousands};
use crate::training::cluster::Group;
use crate::training::error::TrainingError;
use crate::training::logging;
use crate::training::looping::Ending;
use crate::training::run_dir::{self, LOG_FILE, RunDir, STORE_DIR};
use crate::training::session::SessionSummary;
use crate::training::staged::{self, RunEnd};
use crate::training::terminal::TerminalWatcher;
use euchre_bots::phase::Phase;

/// `trainer train`: start a run, or resume the one in the run directory
/// when its settings match.
pub fn train(
    config: Option<&Path>,
    flags: TrainOptions,
    group: Option<&Group>,
) -> anyhow::Result<()> {
    let profile = config::load_profile(config)?;
    let resolved = config::resolve(profile, flags)?;
    let dir = resolved
        .dir
        .clone()
        .unwrap_or_else(|| run_dir::default_path(resolved.identity.phase, resolved.identity.store));
    let run = RunDir::lock(&dir)?;
    let saved = run.saved()?;
    let resolved = resolved.as_made(saved.as_ref().map(|saved| &saved.identity));
    run_session(run, &resolved.identity, &resolved.session, group)
}

/// `trainer resume`: continue a run with the settings it was made with;
/// flags change only this session's budget, threads, checkpoints, pruning
/// and curve.
pub fn resume(
    dir: &Path,
    flags: &SessionOptions,
    curve_flags: CurveOptions,
    group: Option<&Group>,
) -> anyhow::Result<()> {
    let run = RunDir::lock(dir)?;
    let saved = run.saved()?.ok_or_else(|| TrainingError::NoRun {
        dir: dir.to_path_buf(),
    })?;
    let session = saved.session.with_flags(flags, curve_flags)?;
    if let Some(curve) = &session.curve {
        curve.validate(saved.identity.rules)?;
    }
    run_session(run, &saved.identity, &session, group)
}

fn run_session(
    run: RunDir,
    identity: &Identity,
    session: &SessionSettings,
    group: Option<&Group>,
) -> anyhow::Result<()> {
    let mut watcher = TerminalWatcher::new(session.log.progress)?;
    let log_file = session.log.file.then(|| run.file(LOG_FILE));
    logging::init(&session.log.level, watcher.bar(), log_file.as_deref())?;
    if session.iterations.is_none() && session.until.is_none() && session.duration.is_none() {
        tracing::info!(
            "no budget given: training until Ctrl-C, with a checkpoint every {} minutes and on Ctrl-C; run the same command to resume",
            session.checkpoint_every_minutes
        );
    }
    if identity.phase == Phase::FullPlay && identity.bids == Bids::Trained {
        tracing::info!(
            "bids are trained along with card play; full play plays better for the same time with its bids trained first and then fixed, which new runs do unless given --bids trained (docs/training.md: \"Full play under fixed bids\")"
        );
    }
    let end = staged::run(
        run,
        identity,
        session,
        group,
        &mut watcher,
        &mut |source, trained| {
            print_summary(&trained.summary);
            print_report(&trained.export);
            println!("stage 2 of 2: card play under the bids of {source}");
        },
    )?;
    watcher.finish();
    match end {
        RunEnd::Trained { summary, export } => {
            print_summary(&summary);
            if let Some(export) = export {
                print_report(&export);
            }
        }
        RunEnd::StageUnfinished { summary, of } => {
            print_summary(&summary);
            println!(
                "the bidding stage {} at iteration {} of {}; card play starts after it. Run the same command to go on.",
                match summary.ending {
                    Ending::Interrupted => "stopped",
                    Ending::Budget => "used this session's time",
                },
                thousands(summary.progress.iterations),
                thousands(of)
            );
        }
        RunEnd::TimeSpentOnStage => println!(
            "this session's time went to the bidding stage; card play starts when you run the same command again"
        ),
    }
    Ok(())
}

fn print_summary(summary: &SessionSummary) {
    let ended = match summary.ending {
        Ending::Budget => "finished its budget",
        Ending::Interrupted => "stopped on interrupt",
    };
    if summary.resumed_from > 0 {
        println!(
            "resumed {} at iteration {}",
            summary.run_dir.display(),
            thousands(summary.resumed_from)
        );
    }
    let rate = summary.session_iterations as f64 / summary.session_seconds.max(1e-9);
    println!(
        "session {ended}: {} iterations in {:.1} s ({} it/s); run total {} iterations",
        thousands(summary.session_iterations),
        summary.session_seconds,
        thousands(rate as u64),
        thousands(summary.progress.iterations)
    );
    let updates = summary.progress.regret_updates + summary.progress.strategy_updates;
    println!(
        "{} infostates, {} updates in all; checkpoint in {} ({} on disk)",
        thousands(summary.infostates),
        thousands(updates),
        summary.run_dir.join(STORE_DIR).display(),
        bytes(summary.disk_bytes)
    );
}
