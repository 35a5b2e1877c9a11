//! Where a run stands, read without disturbing a trainer that may be
//! working in it: the report behind `trainer status` and the runs page of
//! `trainer serve`, which both print its [`Display`](std::fmt::Display).

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use euchre_bots::meta::{BidsFor, Leaves};
use store::{DurableTable, Manifest, Record, Verification, Verify};

use crate::config::{Bids, Identity};
use crate::format::{bytes, thousands};
use crate::training::backend;
use crate::training::cluster::telemetry::TELEMETRY_FILE;
use crate::training::curve::{self, CurvePoint};
use crate::training::error::TrainingError;
use crate::training::export::LBR_FILE;
use crate::training::run_dir::{POLICY_FILE, Progress, RunDir, STORE_DIR, read_settings};

/// The most a run directory's small text files (the local best
/// response's summary, the cluster telemetry's) may hold.
const SMALL_FILE_BYTES: u64 = 1 << 20;

/// Everything `trainer status` reports about one run directory.
#[derive(Debug)]
pub struct RunStatus {
    pub dir: PathBuf,
    pub identity: Identity,
    pub bids: BidsStatus,
    /// `None` before the store's manifest is first written.
    pub checkpoint: Option<CheckpointStatus>,
    pub checkpoint_every_minutes: f64,
    /// The policy the run trains a best response to, if it does.
    pub best_response_to: Option<PathBuf>,
    /// The last point of the run's learning curve.
    pub curve: Option<CurvePoint>,
    /// The local best response the last export measured, as it recorded it.
    pub local_best_response: Option<String>,
    /// The exported policy and its size in bytes.
    pub policy: Option<(PathBuf, u64)>,
    /// Why the run's lock could not be taken (a trainer holds it), or `None`
    /// when no trainer is running.
    pub trainer: Option<String>,
    /// Records trained and their digest, when asked for.
    pub digest: Option<DigestOutcome>,
    /// Whether the store's files are the ones its last checkpoint wrote.
    pub store_check: StoreCheck,
    /// The last per-rank summary of a session over MPI, if one ran.
    pub cluster: Option<String>,
}

/// What checking the store against its last checkpoint found.
#[derive(Debug)]
pub enum StoreCheck {
    /// Not asked for (the runs page, which refreshes every 30 seconds).
    NotAsked,
    /// No checkpoint to check against yet.
    NothingYet,
    /// A trainer holds the run; it checked the store when it opened it.
    Busy,
    Verified(Verification),
    /// The store would not open: the whole error, causes included.
    Damaged(String),
}

/// Where a run's bids come from, and for a staged run how far its stage is.
#[derive(Debug)]
pub enum BidsStatus {
    /// Trained with card play in one tree (and every bidding-phase run).
    Trained,
    /// The run's own bidding stage has `done` of its `of` iterations.
    Staging {
        stage_dir: PathBuf,
        done: u64,
        of: u64,
    },
    /// Trained in the run's bidding stage, then fixed.
    Staged { source: String },
    /// Fixed from a blueprint named when the run started.
    Fixed { source: String },
}

/// What the store's manifest says of the run's checkpoints.
#[derive(Debug)]
pub struct CheckpointStatus {
    pub progress: Progress,
    /// Zero for a store just built, before training's first checkpoint.
    pub checkpoints: u64,
    pub age_seconds: u64,
    pub records: u64,
    pub disk_bytes: u64,
}

/// What `--digest` got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DigestOutcome {
    Read(RecordsDigest),
    /// A trainer held the run, so its records were not read.
    Skipped,
}

/// A digest of every trained record, in key order: equal for two runs
/// exactly when they trained the same values, whatever their backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordsDigest {
    pub records: u64,
    pub crc: u32,
}

impl RunStatus {
    /// Reads the status of the run in `dir`. With `check`, a run no trainer
    /// holds has its store opened and checked (as `check` says), and with
    /// `digest` every record is read too; both need the run's lock.
    pub fn read(
        dir: &Path,
        digest: bool,
        check: Option<Verify>,
    ) -> Result<RunStatus, TrainingError> {
        let saved = read_settings(dir)?.ok_or_else(|| TrainingError::NoRun {
            dir: dir.to_path_buf(),
        })?;
        let identity = saved.identity;
        let bids = match &identity.bids {
            Bids::Staged {
                stage,
                blueprint: None,
            } => {
                let stage_dir = crate::training::run_dir::stage_dir(dir);
                let done = match Manifest::read(&stage_dir.join(STORE_DIR))? {
                    Some(manifest) => Progress::committed(&manifest.state, &stage_dir)?.iterations,
                    None => 0,
                };
                BidsStatus::Staging {
                    stage_dir,
                    done,
                    of: stage.iterations,
                }
            }
            Bids::Staged {
                blueprint: Some(source),
                ..
            } => BidsStatus::Staged {
                source: source.to_string(),
            },
            Bids::Fixed(source) => BidsStatus::Fixed {
                source: source.to_string(),
            },
            Bids::Trained => BidsStatus::Trained,
        };
        let checkpoint = match Manifest::read(&dir.join(STORE_DIR))? {
            Some(manifest) => {
                let progress = Progress::committed(&manifest.state, dir)?;
                let now = SystemTime::now()
                    .duration_since(SystemTime::UNIX_EPOCH)
                    .map_or(0, |now| now.as_secs());
                Some(CheckpointStatus {
                    progress,
                    checkpoints: manifest.checkpoints,
                    age_seconds: now.saturating_sub(progress.checkpoint_unix),
                    records: manifest.records,
                    disk_bytes: dir_bytes(&dir.join(STORE_DIR)),
                })
            }
            None => None,
        };
        let policy_path = dir.join(POLICY_FILE);
        let policy = std::fs::metadata(&policy_path)
            .ok()
            .map(|meta| (policy_path, meta.len()));
        let (trainer, store_check, digest) = match RunDir::lock(dir) {
            Err(error) if digest => (
                Some(error.to_string()),
                StoreCheck::Busy,
                Some(DigestOutcome::Skipped),
            ),
            Err(error) => (Some(error.to_string()), StoreCheck::Busy, None),
            Ok(_) if checkpoint.is_none() => (None, StoreCheck::NothingYet, None),
            Ok(run) => match (check, digest) {
                (None, false) => (None, StoreCheck::NotAsked, None),
                (check, digest) => {
                    let opened = backend::open_to_read(
                        &identity,
                        &run.file(STORE_DIR),
                        check.unwrap_or_default(),
                    );
                    match opened {
                        Ok(table) => {
                            let digest = if digest {
                                Some(DigestOutcome::Read(records_digest(table.as_ref())?))
                            } else {
                                None
                            };
                            (None, StoreCheck::Verified(table.verification()), digest)
                        }
                        Err(error) if digest => return Err(error.into()),
                        Err(error) => (None, StoreCheck::Damaged(error_chain(&error)), None),
                    }
                }
            },
        };
        Ok(RunStatus {
            dir: dir.to_path_buf(),
            identity,
            bids,
            checkpoint,
            checkpoint_every_minutes: saved.session.checkpoint_every_minutes,
            best_response_to: saved
                .session
                .best_response_to
                .map(|best_response| best_response.policy),
            curve: curve::read(dir)?.pop(),
            local_best_response: store::read_text_bounded(&dir.join(LBR_FILE), SMALL_FILE_BYTES)
                .ok()
                .map(|text| text.trim().to_owned()),
            policy,
            trainer,
            digest,
            store_check,
            cluster: store::read_text_bounded(&dir.join(TELEMETRY_FILE), SMALL_FILE_BYTES)
                .ok()
                .map(|text| text.trim_end().to_owned()),
        })
    }
}

/// Untouched records (all zero, as an mmap store preallocates them) are
/// skipped, so backends that only hold touched keys compare equal.
fn records_digest(table: &dyn DurableTable) -> Result<RecordsDigest, TrainingError> {
    let mut records = Vec::new();
    table.for_each(&mut |key, record| {
        if *record != Record::default() {
            records.push((key, *record));
        }
    })?;
    records.sort_unstable_by_key(|(key, _)| *key);
    let mut hasher = crc32fast::Hasher::new();
    for (key, record) in &records {
        hasher.update(&key.to_le_bytes());
        for value in record.regrets.iter().chain(&record.strategy_sum) {
            hasher.update(&value.to_bits().to_le_bytes());
        }
        hasher.update(&record.stamp.to_le_bytes());
    }
    Ok(RecordsDigest {
        records: records.len() as u64,
        crc: hasher.finalize(),
    })
}

impl fmt::Display for RunStatus {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let identity = &self.identity;
        writeln!(out, "run        {}", self.dir.display())?;
        writeln!(
            out,
            "settings   phase {}, store {}, seed {}, solver {}, {} records",
            identity.phase, identity.store, identity.seed, identity.solver, identity.encoding
        )?;
        if !identity.solver.abstraction.is_plain() {
            writeln!(
                out,
                "play key   {} (not the plain rank-compressed key)",
                identity.solver.abstraction
            )?;
        }
        match (&identity.card_play_from, identity.solver.leaves) {
            (Some(table), _) => writeln!(
                out,
                "leaves     {}: every seat plays the rest by the card-play table {table}",
                identity.solver.leaves
            )?,
            (None, Leaves::OpenHand) => {}
            (None, leaves) => writeln!(out, "leaves     {leaves} (not open-hand)")?,
        }
        if !identity.solver.card_play_strategy.is_average() {
            writeln!(
                out,
                "card play  keeps no average: exports its current strategy (the bids their average)"
            )?;
        }
        if !identity.solver.opponent_bids.is_equilibrium() {
            writeln!(
                out,
                "opponents  bids trained against {} (the opponents bid as the heuristic in that share of walks; not an equilibrium)",
                identity.solver.opponent_bids
            )?;
        }
        if let Some(policy) = &self.best_response_to {
            writeln!(
                out,
                "opponents  a best response to {}: every opponent decision plays its most likely action (not an equilibrium)",
                policy.display()
            )?;
        }
        if identity.solver.bids_for == BidsFor::Game {
            match &identity.bids_prior {
                Some(prior) => writeln!(
                    out,
                    "bids for  the game: one bid a score context near the end, the open context's from {prior}"
                )?,
                None => writeln!(out, "bids for  the game: one bid a score context")?,
            }
        }
        match &self.bids {
            BidsStatus::Staging {
                stage_dir,
                done,
                of,
            } => writeln!(
                out,
                "bids       stage 1 of 2: the bidding stage in {} has {} of its {} iterations checkpointed; card play starts after it",
                stage_dir.display(),
                thousands(*done),
                thousands(*of)
            )?,
            BidsStatus::Staged { source } => writeln!(
                out,
                "bids       trained in the run's bidding stage, then fixed: {source}"
            )?,
            BidsStatus::Fixed { source } => {
                writeln!(out, "bids       fixed, from the blueprint {source}")?;
            }
            BidsStatus::Trained => {}
        }
        match &self.checkpoint {
            None => writeln!(out, "checkpoint none yet")?,
            Some(checkpoint) => checkpoint.write(out, self.checkpoint_every_minutes)?,
        }
        if let Some(point) = &self.curve {
            writeln!(out, "curve      {point}")?;
            writeln!(
                out,
                "           ({} and {} in the run directory)",
                curve::CURVE_FILE,
                curve::CURVE_PLOT
            )?;
        }
        if let Some(responses) = &self.local_best_response {
            for response in responses.lines() {
                writeln!(out, "local best response {response}")?;
            }
        }
        if let Some((path, size)) = &self.policy {
            writeln!(out, "policy     {} ({})", path.display(), bytes(*size))?;
        }
        if let Some(summary) = &self.cluster {
            for line in summary.lines() {
                writeln!(out, "cluster    {}", line.trim_start())?;
            }
        }
        match &self.trainer {
            None => writeln!(out, "trainer    none running")?,
            Some(holder) => writeln!(out, "trainer    {holder}")?,
        }
        match &self.store_check {
            StoreCheck::NotAsked | StoreCheck::NothingYet => {}
            StoreCheck::Busy => writeln!(
                out,
                "check      not now: the trainer holds the store (it checked it when it opened it)"
            )?,
            StoreCheck::Verified(verification) => writeln!(out, "check      {verification}")?,
            StoreCheck::Damaged(error) => writeln!(out, "check      DAMAGED: {error}")?,
        }
        match &self.digest {
            Some(DigestOutcome::Read(digest)) => writeln!(
                out,
                "records    {} trained, digest {:08x}",
                thousands(digest.records),
                digest.crc
            )?,
            Some(DigestOutcome::Skipped) => writeln!(
                out,
                "records    no digest: the trainer holds the store; ask again once it stops"
            )?,
            None => {}
        }
        Ok(())
    }
}

impl CheckpointStatus {
    fn write(&self, out: &mut fmt::Formatter<'_>, every_minutes: f64) -> fmt::Result {
        let progress = &self.progress;
        if self.checkpoints == 0 {
            writeln!(
                out,
                "checkpoint none yet (the store is built; the first comes within {every_minutes} minutes of training)"
            )?;
        } else {
            writeln!(
                out,
                "checkpoint iteration {} ({} checkpoints, the last {} ago)",
                thousands(progress.iterations),
                self.checkpoints,
                human_age(self.age_seconds)
            )?;
        }
        let rate = progress.iterations as f64 / progress.train_seconds.max(1e-9);
        writeln!(
            out,
            "training   {:.0} s in all, {} it/s on average, {} record updates",
            progress.train_seconds,
            thousands(rate as u64),
            thousands(progress.regret_updates + progress.strategy_updates)
        )?;
        writeln!(
            out,
            "store      {} records in {} on disk",
            thousands(self.records),
            bytes(self.disk_bytes)
        )
    }
}

/// An error and every cause under it, on one line.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

fn human_age(seconds: u64) -> String {
    match seconds {
        0..120 => format!("{seconds} s"),
        120..7200 => format!("{} min", seconds / 60),
        7200..172_800 => format!("{} h", seconds / 3600),
        _ => format!("{} days", seconds / 86_400),
    }
}

fn dir_bytes(path: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(path) else {
        return 0;
    };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => dir_bytes(&entry.path()),
            Ok(meta) => meta.len(),
            Err(_) => 0,
        })
        .sum()
}
