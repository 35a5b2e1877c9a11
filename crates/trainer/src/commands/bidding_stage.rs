//! The first stage of a staged card-play run: its bids, trained as a
//! bidding run of their own in `<run>/bidding` and exported, before card
//! play trains under them.
//!
//! Staging is what makes full play's iterations cheap and its card play
//! good (README, "Full play under fixed bids"): the bidding phase, valued
//! by open-hand leaves, converges in minutes to bids that hold up against a
//! side that defends well, while bids trained along with card play are
//! learnt against the run's own weak early card play and are far too bold.
//! The user still runs one command, and the same command resumes whichever
//! stage it was stopped in.

use std::path::Path;

use crate::config::{BiddingStage, EncodingName, Identity, SessionSettings, SolverSettings};
use crate::format::thousands;
use crate::training::run_dir::{POLICY_FILE, RunDir, read_settings};
use crate::training::session::{Budget, Ending, Session, Summary, Watcher};
use euchre_bots::blueprint::{BiddingBlueprint, BlueprintSource};
use euchre_bots::leaves::Leaves;
use euchre_bots::phase::Phase;
use euchre_bots::policy_file::Strategy;

/// The stage's run directory, inside the staged run's.
pub const STAGE_DIR: &str = "bidding";

/// Where a staged run's bids stand after [`ensure_bids`].
#[derive(Debug)]
pub enum StageOutcome {
    /// The bids are trained and exported: card play may train under them.
    /// `seconds` is the training time the stage took in this session.
    Ready {
        source: BlueprintSource,
        seconds: f64,
    },
    /// The session ended before the stage did: Ctrl-C, or its time ran out.
    Unfinished,
}

/// The bidding run a staged run's identity implies: the same rules, seed
/// and schedule, on the memory store (1.6 M records), valued by open-hand
/// leaves, which PIMC's and the blueprint's card play both follow.
pub fn stage_identity(run: &Identity) -> Identity {
    Identity {
        phase: Phase::Bidding,
        store: store::Backend::Memory,
        rules: run.rules,
        solver: SolverSettings {
            leaves: Leaves::OpenHand,
            ..run.solver
        },
        encoding: EncodingName::default_for(Phase::Bidding),
        seed: run.seed,
        bidding_from: None,
        bidding_stage: None,
    }
}

/// Trains, or resumes, the bidding stage of the run in `run` until it has
/// `stage.iterations`, and exports it; a stage that has ended already is
/// only looked up. The run's own settings are saved first, so that
/// `trainer resume` and `trainer status` know a staged run from its start.
pub fn ensure_bids(
    run: &RunDir,
    identity: &Identity,
    stage: BiddingStage,
    session: &SessionSettings,
    watcher: &mut dyn Watcher,
) -> anyhow::Result<StageOutcome> {
    if let Some(saved) = read_settings(run.path())?
        && saved.identity.bidding_stage == Some(stage)
        && let Some(source) = saved.identity.bidding_from
    {
        return Ok(StageOutcome::Ready {
            source,
            seconds: 0.0,
        });
    }
    run.check(identity)?;
    run.save(identity, session)?;
    let stage_dir = run.file(STAGE_DIR);
    let stage_session = SessionSettings {
        iterations: None,
        until: Some(stage.iterations),
        export: false,
        curve: None,
        pruning: None,
        ..session.clone()
    };
    tracing::info!(
        "stage 1 of 2: training the bids in {} to {} iterations; card play then trains under their {} (README: \"Full play under fixed bids\")",
        stage_dir.display(),
        thousands(stage.iterations),
        stage.choice
    );
    let mut bidding = Session::open(
        &stage_dir,
        &stage_identity(identity),
        &stage_session,
        watcher,
    )?;
    let summary = bidding.train(Budget::of(&stage_session), watcher)?;
    drop(bidding);
    super::train::print_summary(&summary);
    if !stage_complete(&summary, stage) {
        println!(
            "the bidding stage {} at iteration {} of {}; card play starts after it. Run the same command to go on.",
            match summary.ending {
                Ending::Interrupted => "stopped",
                Ending::Budget => "used this session's time",
            },
            thousands(summary.progress.iterations),
            thousands(stage.iterations)
        );
        return Ok(StageOutcome::Unfinished);
    }
    super::export::export(&stage_dir, None, Strategy::Average)?;
    let blueprint =
        BiddingBlueprint::load(&stage_dir.join(POLICY_FILE), identity.rules, stage.choice)?;
    println!(
        "stage 2 of 2: card play under the bids of {}",
        blueprint.source()
    );
    Ok(StageOutcome::Ready {
        source: blueprint.source().clone(),
        seconds: summary.train_seconds,
    })
}

fn stage_complete(summary: &Summary, stage: BiddingStage) -> bool {
    summary.progress.iterations >= stage.iterations
}

/// The stage's directory inside the run at `dir`.
pub fn stage_dir(dir: &Path) -> std::path::PathBuf {
    dir.join(STAGE_DIR)
}
