//! A run as `trainer train` and `trainer resume` run it, in one place: the
//! run directory locked once (its settings read once), the bidding stage
//! of a staged run first, then the session, then the export it asked for,
//! and the one budget shared between them. The commands only print what
//! this returns (and what [`run`] hands to `on_stage` as it happens).

use std::time::Duration;

use crate::config::{Bids, Identity, SessionSettings};
use crate::training::bidding_stage::{self, StageOutcome, StageTraining};
use crate::training::cluster::Group;
use crate::training::error::TrainingError;
use crate::training::export::{ExportReport, export_locked};
use crate::training::looping::{Budget, Watcher};
use crate::training::run_dir::RunDir;
use crate::training::session::{Session, SessionSummary};
use euchre_bots::meta::BlueprintSource;

/// How a run's session ended.
#[derive(Debug)]
pub enum RunEnd {
    /// Card play (or a run with no stage) trained; `export` when the
    /// session asked for one.
    Trained {
        summary: SessionSummary,
        export: Option<Box<ExportReport>>,
    },
    /// The bidding stage stopped (Ctrl-C, or its time ran out) before its
    /// `of` iterations; the same command goes on with it.
    StageUnfinished { summary: SessionSummary, of: u64 },
    /// The bidding stage finished and took all of this session's time.
    TimeSpentOnStage,
}

/// Trains the run in `run` as `identity` says, for this session's budget,
/// on `group` as its rank 0 if the command leads one.
/// `on_stage` hears of a bidding stage that finished in this session,
/// before card play starts.
pub fn run(
    run: RunDir,
    identity: &Identity,
    session: &SessionSettings,
    group: Option<&Group>,
    watcher: &mut dyn Watcher,
    on_stage: &mut dyn FnMut(&BlueprintSource, &StageTraining),
) -> Result<RunEnd, TrainingError> {
    let mut identity = identity.clone();
    let mut budget = Budget::of(session);
    if let Some(stage) = identity.bids.unfinished_stage() {
        let outcome = bidding_stage::ensure_bids(&run, &identity, stage, session, group, watcher)?;
        let seconds = outcome.seconds();
        match outcome {
            StageOutcome::Unfinished { summary, of } => {
                return Ok(RunEnd::StageUnfinished { summary, of });
            }
            StageOutcome::Ready { source, trained } => {
                if let Some(trained) = &trained {
                    on_stage(&source, trained);
                }
                identity.bids = Bids::Staged {
                    stage,
                    blueprint: Some(source),
                };
                // The stage's training time comes out of this session's.
                if let Some(duration) = budget.duration {
                    let left = duration.saturating_sub(Duration::from_secs_f64(seconds));
                    if left.is_zero() {
                        return Ok(RunEnd::TimeSpentOnStage);
                    }
                    budget.duration = Some(left);
                }
                watcher.next_stage();
            }
        }
    }
    let mut training = Session::open_locked(run, &identity, session, watcher)?.on(group.cloned());
    let summary = training.train(budget, watcher)?;
    // The store closes with the session; the run stays locked for the export.
    let run = training.into_run();
    let export = match (session.export, run.saved()?) {
        (true, Some(saved)) => Some(Box::new(export_locked(
            &run,
            &saved,
            None,
            None,
            session.verify,
        )?)),
        _ => None,
    };
    Ok(RunEnd::Trained { summary, export })
}
