//! A run's strategy written as a policy file, read back to prove it, and
//! measured: its local best response and what its bids learned. The
//! report is typed; `trainer export` and the bidding stage print it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use euchre_bots::blueprint::BiddingBlueprint;

use euchre_bots::card_play_table::CardPlayTable;
use euchre_bots::local_best_response::{self, LocalBestResponse};
use euchre_bots::meta::BlueprintSource;
use euchre_bots::meta::{PolicyMeta, Strategy};
use euchre_bots::phase::{Phase, RECORD_WIDTH};
use euchre_bots::policy_file::{self, PolicyFile};
use store::{Manifest, Verify};

use crate::config::Identity;
use crate::format::thousands;
use crate::report::{BiddingReport, BiddingSummary, ContextSummary};
use crate::training::backend;
use crate::training::error::TrainingError;
use crate::training::run_dir::{
    POLICY_FILE, Progress, RunDir, STORE_DIR, SavedSettings, check_store_identity, read_settings,
};
use euchre_bots::meta::BidsFor;

/// Where `export` records the policy's local best response for `status`.
pub const LBR_FILE: &str = "local-best-response.txt";
const LBR_DEALS: u64 = 4000;
const LBR_WORLDS: usize = 16;
/// Card play's estimate averages sampled continuations, so it needs more
/// worlds per choice than the bids' open-handed one.
const CARD_PLAY_LBR_WORLDS: usize = 32;

/// What an export wrote and measured.
#[derive(Debug)]
pub struct ExportReport {
    pub path: PathBuf,
    pub strategy: Strategy,
    pub infostates: u64,
    pub iterations: u64,
    pub file_bytes: u64,
    pub local_best_response: LocalBestResponse,
    pub lbr_worlds: usize,
    pub lbr_seconds: f64,
    /// Full play's: one card-play decision may deviate.
    pub card_play_response: Option<TimedResponse>,
    /// The exported (average or current) policy's round-1 ordering rates.
    pub exported_bids: BiddingSummary,
    /// For bids that play for the game: round 1 by score context.
    pub by_context: Option<ContextSummary>,
    /// The current strategy's, for a run that trained its own bids; `None`
    /// when they came from a blueprint, named in `fixed_bids`.
    pub current_bids: Option<BiddingSummary>,
    pub fixed_bids: Option<BlueprintSource>,
}

/// An estimate with what it took.
#[derive(Clone, Copy, Debug)]
pub struct TimedResponse {
    pub response: LocalBestResponse,
    pub worlds: usize,
    pub seconds: f64,
}

/// Writes the strategy of the run in `dir` to `out` (by default the run's
/// `policy.bin`), reads it back, and measures it. `strategy` by default:
/// what the run keeps ([`crate::config::Identity::exported_strategy`]).
pub fn export(
    dir: &Path,
    out: Option<PathBuf>,
    strategy: Option<Strategy>,
    verify: Verify,
) -> Result<ExportReport, TrainingError> {
    let saved = read_settings(dir)?.ok_or_else(|| TrainingError::NoRun {
        dir: dir.to_path_buf(),
    })?;
    if saved.identity.bids.unfinished_stage().is_some() {
        return Err(TrainingError::BidsStillTraining {
            dir: dir.to_path_buf(),
            stage_dir: crate::training::run_dir::stage_dir(dir),
        });
    }
    let run = RunDir::lock(dir)?;
    export_locked(&run, &saved, out, strategy, verify)
}

/// [`export`] of the run in `run`, locked already, whose settings are
/// `saved`: what a training command that asked for an export calls, with
/// no second lock or read of the settings.
pub fn export_locked(
    run: &RunDir,
    saved: &SavedSettings,
    out: Option<PathBuf>,
    strategy: Option<Strategy>,
    verify: Verify,
) -> Result<ExportReport, TrainingError> {
    let dir = run.path();
    let kept = saved.identity.exported_strategy();
    let strategy = strategy.unwrap_or(kept);
    if strategy == Strategy::Average && kept != Strategy::Average {
        return Err(TrainingError::NoCardPlayAverage {
            dir: dir.to_path_buf(),
        });
    }
    if out.is_none() && !store::is_writable(dir) {
        return Err(TrainingError::ReadOnlyRunDir {
            dir: dir.to_path_buf(),
        });
    }
    if let Some(out) = &out {
        // Said before the policy is built, not after.
        store::check_writable(out)?;
    }
    let path = out.unwrap_or_else(|| run.file(POLICY_FILE));
    let written = write_policy(run, saved, &path, strategy, verify)?;
    let policy = read_back(&path, &written.meta, written.entries)?;
    let measured = measure(&policy, &saved.identity)?;
    record_measurement(dir, &measured, written.meta.iterations)?;
    let identity = &saved.identity;
    // One pass over the file's round-1 bids serves both summaries.
    let bids = BiddingReport::from_policy(&policy);
    Ok(ExportReport {
        file_bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
        path,
        strategy,
        infostates: written.entries,
        iterations: written.meta.iterations,
        local_best_response: measured.bids,
        lbr_worlds: LBR_WORLDS,
        lbr_seconds: measured.bids_seconds,
        card_play_response: measured.card_play,
        exported_bids: bids.summarise(),
        by_context: (policy.meta.recipe.bids_for == BidsFor::Game)
            .then(|| bids.summarise_by_context()),
        current_bids: identity
            .bids
            .blueprint()
            .is_none()
            .then(|| written.current_bids.summarise()),
        fixed_bids: identity.bids.blueprint().cloned(),
    })
}

/// What [`write_policy`] wrote.
struct Written {
    meta: PolicyMeta,
    entries: u64,
    /// The current strategy's bids, summarised on the export's own pass.
    current_bids: BiddingReport,
}

/// Opens the run's store read-only, checks it belongs to the run, and
/// writes its `strategy` to `path` (with the run's fixed bids, if any).
fn write_policy(
    run: &RunDir,
    saved: &SavedSettings,
    path: &Path,
    strategy: Strategy,
    verify: Verify,
) -> Result<Written, TrainingError> {
    let identity = &saved.identity;
    let store_dir = run.file(STORE_DIR);
    if Manifest::read(&store_dir)?.is_none() {
        return Err(TrainingError::NoCheckpoint {
            dir: run.path().to_path_buf(),
        });
    }
    // Bids for the game from a prior train only the score contexts the
    // score changes: the plain keys' bids are the prior's.
    let fixed_from = identity.bids.blueprint().or_else(|| {
        identity
            .bids_prior
            .as_ref()
            .filter(|_| identity.solver.bids_for == BidsFor::Game)
    });
    let fixed_bids = fixed_from
        .map(|source| BiddingBlueprint::reopen(source, identity.rules))
        .transpose()
        .map_err(TrainingError::Blueprint)?;
    let table = backend::open_to_read(identity, &store_dir, verify)?;
    check_store_identity(&table.committed_state(), identity, &store_dir)?;
    let progress = Progress::committed(&table.committed_state(), run.path())?;
    let meta = identity.policy_meta(progress.iterations, strategy);
    let mut current_bids = BiddingReport::new(identity.rules);
    let entries = policy_file::export(
        table.as_ref(),
        &meta,
        RECORD_WIDTH,
        fixed_bids
            .as_ref()
            .map(BiddingBlueprint::fixed_bids)
            .as_ref(),
        path,
        &mut |key, record| current_bids.add_regrets(key, &record.regrets),
    )
    .map_err(TrainingError::WritePolicy)?;
    Ok(Written {
        meta,
        entries,
        current_bids,
    })
}

/// How exploitable an exported policy is: its bids always, its card play
/// for full play.
struct Measured {
    bids: LocalBestResponse,
    bids_seconds: f64,
    card_play: Option<TimedResponse>,
}

fn measure(policy: &PolicyFile, identity: &Identity) -> Result<Measured, TrainingError> {
    let started = Instant::now();
    let card_play = identity
        .card_play_from
        .as_ref()
        .map(|source| CardPlayTable::reopen(source, identity.rules))
        .transpose()
        .map_err(TrainingError::CardPlay)?;
    let leaves = identity.solver.leaves.valuer(card_play.as_ref())?;
    let bids =
        local_best_response::of_bids(policy, identity.rules, leaves, LBR_DEALS, LBR_WORLDS, 1);
    let bids_seconds = started.elapsed().as_secs_f64();
    let card_play = (identity.phase == Phase::FullPlay).then(|| {
        let started = Instant::now();
        let response = local_best_response::of_card_play(
            policy,
            identity.rules,
            LBR_DEALS,
            CARD_PLAY_LBR_WORLDS,
            1,
        );
        TimedResponse {
            response,
            worlds: CARD_PLAY_LBR_WORLDS,
            seconds: started.elapsed().as_secs_f64(),
        }
    });
    Ok(Measured {
        bids,
        bids_seconds,
        card_play,
    })
}

/// Writes the measurement where `trainer status` reads it; a read-only
/// run directory goes without.
fn record_measurement(
    dir: &Path,
    measured: &Measured,
    iterations: u64,
) -> Result<(), TrainingError> {
    let mut record = format!("{} at iteration {}\n", measured.bids, thousands(iterations));
    if let Some(card_play) = &measured.card_play {
        record.push_str(&format!(
            "{} at iteration {}\n",
            card_play.response,
            thousands(iterations)
        ));
    }
    if store::is_writable(dir) {
        store::write_atomically(&dir.join(LBR_FILE), record.as_bytes())?;
    }
    Ok(())
}

/// Loads the file just written and checks it holds what was written, so a
/// failing disk is found at export and not at play.
fn read_back(path: &Path, meta: &PolicyMeta, written: u64) -> Result<PolicyFile, TrainingError> {
    let policy = PolicyFile::load(path).map_err(|source| TrainingError::ReadBackPolicy {
        path: path.to_path_buf(),
        source,
    })?;
    let mut first = [0.0; RECORD_WIDTH];
    let first_reads = policy
        .entries()
        .next()
        .is_none_or(|(key, _)| policy.probabilities(key, &mut first));
    if policy.meta == *meta && policy.len() as u64 == written && first_reads {
        Ok(policy)
    } else {
        Err(TrainingError::PolicyReadsBackWrong {
            path: path.to_path_buf(),
        })
    }
}
