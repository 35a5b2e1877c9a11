//! The first stage of a staged card-play run: its bids, trained as a
//! bidding run of their own in `<run>/bidding` and exported, before card
//! play trains under them.
//!
//! Staging is what makes full play's iterations cheap and its card play
//! good (docs/training.md, "Full play under fixed bids"): the bidding phase, valued
//! by open-hand leaves, converges in minutes to bids that hold up against a
//! side that defends well, while bids trained along with card play are
//! learnt against the run's own weak early card play and are far too bold.
//! The user still runs one command, and the same command resumes whichever
//! stage it was stopped in.

use crate::config::{
    BiddingStage, Bids, CardPlayStrategy, EncodingName, Identity, SessionSettings, SolverSettings,
};
use crate::format::thousands;
use crate::training::cluster::Group;
use crate::training::error::TrainingError;
use crate::training::export::{ExportReport, export_locked};
use crate::training::looping::{Budget, Watcher};
use crate::training::run_dir::{POLICY_FILE, RunDir, stage_dir};
use crate::training::session::{Session, SessionSummary};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::meta::BlueprintSource;
use euchre_bots::meta::Leaves;
use euchre_bots::phase::Phase;
use euchre_game::keys::play::PlayAbstraction;

/// Where a staged run's bids stand after [`ensure_bids`].
#[derive(Debug)]
pub enum StageOutcome {
    /// The bids are trained and exported: card play may train under them.
    Ready {
        source: BlueprintSource,
        /// `None` when the stage had ended before this session.
        trained: Option<Box<StageTraining>>,
    },
    /// The session ended before the stage did: Ctrl-C, or its time ran out.
    Unfinished { summary: SessionSummary, of: u64 },
}

/// What this session did to finish the stage.
#[derive(Debug)]
pub struct StageTraining {
    pub summary: SessionSummary,
    pub export: ExportReport,
}

impl StageOutcome {
    /// The training time the stage took in this session.
    pub fn seconds(&self) -> f64 {
        match self {
            StageOutcome::Ready {
                trained: Some(trained),
                ..
            } => trained.summary.train_seconds,
            StageOutcome::Ready { trained: None, .. } => 0.0,
            StageOutcome::Unfinished { summary, .. } => summary.train_seconds,
        }
    }
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
            // Bidding keys are the same under every play key, so a run
            // keyed otherwise stages the very same bids.
            abstraction: PlayAbstraction::Plain,
            // The stage has no card play; its bids keep their average.
            card_play_strategy: CardPlayStrategy::Average,
            ..run.solver
        },
        encoding: EncodingName::default_for(Phase::Bidding),
        seed: run.seed,
        bids: Bids::Trained,
        card_play_from: None,
        bids_prior: run.bids_prior.clone(),
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
    group: Option<&Group>,
    watcher: &mut dyn Watcher,
) -> Result<StageOutcome, TrainingError> {
    if let Some(saved) = run.saved()?
        && let Bids::Staged {
            stage: saved_stage,
            blueprint: Some(source),
        } = saved.identity.bids
        && saved_stage == stage
    {
        return Ok(StageOutcome::Ready {
            source,
            trained: None,
        });
    }
    run.check(identity)?;
    run.save(identity, session)?;
    let stage_dir = stage_dir(run.path());
    let stage_session = SessionSettings {
        iterations: None,
        until: Some(stage.iterations),
        export: false,
        curve: None,
        pruning: None,
        // The blueprint trains as it always has: from zero, walking every
        // action.
        warm_start: None,
        traverser_sampling: None,
        best_response_to: None,
        ..session.clone()
    };
    tracing::info!(
        "stage 1 of 2: training the bids in {} to {} iterations; card play then trains under their {} (docs/training.md: \"Full play under fixed bids\")",
        stage_dir.display(),
        thousands(stage.iterations),
        stage.choice
    );
    let mut bidding = Session::open(
        &stage_dir,
        &stage_identity(identity),
        &stage_session,
        watcher,
    )?
    .on(group.cloned());
    let summary = bidding.train(Budget::of(&stage_session), watcher)?;
    let stage_run = bidding.into_run();
    if !stage_complete(&summary, stage) {
        return Ok(StageOutcome::Unfinished {
            summary,
            of: stage.iterations,
        });
    }
    let stage_saved = stage_run.saved()?.ok_or_else(|| TrainingError::NoRun {
        dir: stage_dir.clone(),
    })?;
    let export = export_locked(&stage_run, &stage_saved, None, None, session.verify)?;
    drop(stage_run);
    let blueprint =
        BiddingBlueprint::load(&stage_dir.join(POLICY_FILE), identity.rules, stage.choice)
            .map_err(TrainingError::Blueprint)?;
    Ok(StageOutcome::Ready {
        source: blueprint.source().clone(),
        trained: Some(Box::new(StageTraining { summary, export })),
    })
}

fn stage_complete(summary: &SessionSummary, stage: BiddingStage) -> bool {
    summary.progress.iterations >= stage.iterations
}
