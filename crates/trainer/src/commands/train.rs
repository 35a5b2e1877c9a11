//! `trainer train`, `trainer resume`, `trainer status` and `trainer export`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use store::dir::MANIFEST_FILE;

use super::bidding_stage::{self, StageOutcome};
use crate::blueprint::BiddingBlueprint;
use crate::config::{self, Identity, Overrides, SessionSettings};
use crate::eval::local_best_response;
use crate::format::{bytes, thousands};
use crate::phase::{Phase, RECORD_WIDTH};
use crate::policy_file::{self, PolicyFile, PolicyMeta, Strategy};
use crate::report::BiddingReport;
use crate::training::backend;
use crate::training::curve;
use crate::training::logging;
use crate::training::run_dir::LOG_FILE;
use crate::training::run_dir::{
    self, POLICY_FILE, Progress, RunDir, SETTINGS_FILE, STORE_DIR, read_settings,
};
use crate::training::session::{Budget, Ending, Session, Summary};
use crate::training::terminal::TerminalWatcher;

/// `trainer train`: start a run, or resume the one in the run directory
/// when its settings match.
pub fn train(
    config: Option<&Path>,
    run_dir: Option<PathBuf>,
    flags: Overrides,
) -> anyhow::Result<()> {
    let profile = config::load_profile(config)?;
    let chooses_bids = config::chooses_bids(&profile, &flags);
    let (mut identity, session, profile_dir) = config::resolve(profile, flags)?;
    let dir = run_dir
        .or(profile_dir)
        .unwrap_or_else(|| run_dir::default_path(identity.phase, identity.store));
    // A run made before staged bids were full play's default goes on as it
    // was made when the command does not say where its bids come from.
    if !chooses_bids
        && let Some(saved) = read_settings(&dir)?
        && saved.identity.phase == identity.phase
    {
        identity.bidding_stage = saved.identity.bidding_stage;
        identity.bidding_from = saved.identity.bidding_from;
    }
    run_session(&dir, &identity, &session)
}

/// `trainer resume`: continue a run with the settings it was made with;
/// flags change only this session's budget and threads.
pub fn resume(dir: &Path, flags: Overrides) -> anyhow::Result<()> {
    let Some(saved) = read_settings(dir)? else {
        bail!(
            "{} holds no run (no {SETTINGS_FILE}); start one with `trainer train --run-dir {}`",
            dir.display(),
            dir.display()
        );
    };
    let mut session = saved.session;
    if let Some(threads) = flags.threads {
        session.threads = threads;
    }
    if flags.iterations.is_some() || flags.until.is_some() || flags.duration.is_some() {
        session.iterations = flags.iterations;
        session.until = flags.until;
        session.duration = flags.duration;
    }
    if let Some(every) = flags.checkpoint_every_iterations {
        session.checkpoint_every_iterations = every.max(1);
    }
    session.export |= flags.export;
    if let Some(regret) = flags.prune {
        session.pruning = config::PruningSettings::from_flags(regret, flags.prune_after)?;
    }
    session.curve = config::curve_with_flags(session.curve.take().into(), &flags);
    if let Some(curve) = &session.curve {
        curve.validate(saved.identity.rules)?;
    }
    run_session(dir, &saved.identity, &session)
}

fn run_session(dir: &Path, identity: &Identity, session: &SessionSettings) -> anyhow::Result<()> {
    let mut watcher = TerminalWatcher::new(session.log.progress)?;
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the run directory {}", dir.display()))?;
    let log_file = session.log.file.then(|| dir.join(LOG_FILE));
    logging::init(&session.log.level, watcher.bar(), log_file.as_deref())?;
    if session.iterations.is_none() && session.until.is_none() && session.duration.is_none() {
        tracing::info!(
            "no budget given: training until Ctrl-C, with a checkpoint every {} minutes and on Ctrl-C; run the same command to resume",
            session.checkpoint_every_minutes
        );
    }
    if identity.phase == Phase::FullPlay
        && identity.bidding_from.is_none()
        && identity.bidding_stage.is_none()
    {
        tracing::info!(
            "bids are trained along with card play; full play plays better for the same time with its bids trained first and then fixed, which new runs do unless given --bids trained (README: \"Full play under fixed bids\")"
        );
    }
    let mut identity = identity.clone();
    let mut budget = Budget::of(session);
    let run = RunDir::lock(dir)?;
    if let Some(stage) = identity.bidding_stage
        && identity.bidding_from.is_none()
    {
        match bidding_stage::ensure_bids(&run, &identity, stage, session, &mut watcher)? {
            StageOutcome::Ready { source, seconds } => {
                identity.bidding_from = Some(source);
                if let Some(duration) = budget.duration {
                    let left = duration.saturating_sub(Duration::from_secs_f64(seconds));
                    if left.is_zero() {
                        watcher.finish();
                        println!(
                            "this session's time went to the bidding stage; card play starts when you run the same command again"
                        );
                        return Ok(());
                    }
                    budget.duration = Some(left);
                }
                watcher.restart();
            }
            StageOutcome::Unfinished => {
                watcher.finish();
                return Ok(());
            }
        }
    }
    let mut training = Session::open_locked(run, &identity, session, &mut watcher)?;
    let summary = training.train(budget, &mut watcher)?;
    drop(training);
    watcher.finish();
    print_summary(&summary);
    if session.export {
        export(dir, None, Strategy::Average)?;
    }
    Ok(())
}

pub(crate) fn print_summary(summary: &Summary) {
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

/// Where `export` records the policy's local best response for `status`.
const LBR_FILE: &str = "local-best-response.txt";
const LBR_DEALS: u64 = 4000;
const LBR_WORLDS: usize = 16;

/// `trainer export`: write the average strategy to a policy file.
pub fn export(dir: &Path, out: Option<PathBuf>, strategy: Strategy) -> anyhow::Result<()> {
    let Some(saved) = read_settings(dir)? else {
        bail!(
            "{} holds no run (no {SETTINGS_FILE}); train one first with `trainer train`",
            dir.display()
        );
    };
    if saved.identity.bidding_stage.is_some() && saved.identity.bidding_from.is_none() {
        bail!(
            "{} has not started card play: its bids are still training in {} (export that run for the bids alone, or train on until card play has a checkpoint)",
            dir.display(),
            bidding_stage::stage_dir(dir).display()
        );
    }
    let run = RunDir::lock(dir)?;
    let store_dir = run.file(STORE_DIR);
    if !store_dir.join(MANIFEST_FILE).exists() {
        bail!(
            "{} has no checkpoint yet; train until one is written, then export",
            dir.display()
        );
    }
    let fixed_bids = saved
        .identity
        .bidding_from
        .as_ref()
        .map(|source| BiddingBlueprint::reopen(source, saved.identity.rules))
        .transpose()?;
    let table = backend::open(&saved.identity, &store_dir, 1 << 16, &mut |_| {})?;
    let progress = Progress::committed(&table.committed_state(), dir)?;
    let meta = PolicyMeta {
        phase: saved.identity.phase,
        rules: saved.identity.rules,
        iterations: progress.iterations,
        leaves: saved.identity.solver.leaves,
        strategy,
        bidding_from: saved.identity.bidding_from.clone(),
    };
    let path = out.unwrap_or_else(|| run.file(POLICY_FILE));
    // The current strategy is summarised on the export's own pass.
    let mut current = BiddingReport::default();
    let mut strategy = [0.0; 3];
    let written = policy_file::export(
        table.as_ref(),
        &meta,
        RECORD_WIDTH,
        fixed_bids.as_ref(),
        &path,
        &mut |key, record| {
            let regrets = [0, 1, 2].map(|action| f64::from(record.regrets[action]));
            cfr::regret::regret_matching(&regrets, &mut strategy);
            current.add(key, &strategy);
        },
    )?;
    drop(table);
    let size = std::fs::metadata(&path).map_or(0, |m| m.len());
    println!(
        "exported the {} strategy of {} infostates (iteration {}) to {} ({})",
        match meta.strategy {
            Strategy::Average => "average",
            Strategy::Current => "current",
        },
        thousands(written),
        thousands(progress.iterations),
        path.display(),
        bytes(size)
    );
    let policy = PolicyFile::load(&path).context("reading back the exported policy")?;
    let mut first = [0.0; RECORD_WIDTH];
    let first_reads = policy
        .entries()
        .next()
        .is_none_or(|(key, _)| policy.probabilities(key, &mut first));
    anyhow::ensure!(
        policy.meta == meta && policy.len() as u64 == written && first_reads,
        "{} does not read back as written; the disk may be failing",
        path.display()
    );
    let started = std::time::Instant::now();
    let response =
        local_best_response::estimate(&policy, saved.identity.rules, LBR_DEALS, LBR_WORLDS, 1);
    println!(
        "local best response (round-1 bids, {LBR_WORLDS} worlds each, {:.1} s): {response}",
        started.elapsed().as_secs_f64()
    );
    let record = format!(
        "{} at iteration {}\n",
        response,
        thousands(progress.iterations)
    );
    store::dir::write_atomically(&dir.join(LBR_FILE), record.as_bytes())?;
    println!("What the bot learned: the chance of ordering the upcard up in round 1, by seat.");
    println!(
        "Averages over the same random deals for every run, each hand counted as often as it is dealt."
    );
    let average = BiddingReport::from_policy(&policy).summarise();
    average.print("\nThe exported policy (average strategy):");
    match &saved.identity.bidding_from {
        // The run never trained its bids: its own records are all untouched.
        Some(source) => println!("\nThe bids come from the blueprint {source}, held fixed."),
        None => current.summarise().print(
            "\nThe current strategy (regret matching), which moves first; the average follows it:",
        ),
    }
    println!("\n{}", average.describe());
    Ok(())
}

/// A digest of every trained record, in key order: equal for two runs
/// exactly when they trained the same values, whatever their backend.
/// Untouched records (all zero, as an mmap store preallocates them) are
/// skipped, so backends that only hold touched keys compare equal.
fn records_digest(dir: &Path) -> anyhow::Result<(u64, u32)> {
    let Some(saved) = read_settings(dir)? else {
        bail!("{} holds no run (no {SETTINGS_FILE})", dir.display());
    };
    let run = RunDir::lock(dir)?;
    let table = backend::open(&saved.identity, &run.file(STORE_DIR), 1 << 16, &mut |_| {})?;
    let mut records = Vec::new();
    table.for_each(&mut |key, record| {
        if *record != store::Record::default() {
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
        hasher.update(&record.last_iteration.to_le_bytes());
    }
    Ok((records.len() as u64, hasher.finalize()))
}

/// `trainer status`: where a run stands, without disturbing a trainer
/// that may be working in it. `digest` also reads every record (this
/// needs the run's lock) and prints a digest of them.
pub fn status(dir: &Path, digest: bool) -> anyhow::Result<()> {
    print!("{}", status_report(dir, digest)?);
    Ok(())
}

/// What `trainer status` prints, as text: the runs page of `trainer serve`
/// shows the same lines.
pub fn status_report(dir: &Path, digest: bool) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let Some(saved) = read_settings(dir)? else {
        bail!("{} holds no run (no {SETTINGS_FILE})", dir.display());
    };
    let identity = &saved.identity;
    writeln!(out, "run        {}", dir.display())?;
    writeln!(
        out,
        "settings   phase {}, store {}, seed {}, solver {}, {} records",
        identity.phase, identity.store, identity.seed, identity.solver, identity.encoding
    )?;
    match (&identity.bidding_stage, &identity.bidding_from) {
        (Some(stage), None) => {
            let stage_dir = bidding_stage::stage_dir(dir);
            let done = match store::Manifest::read(&stage_dir.join(STORE_DIR))? {
                Some(manifest) => Progress::committed(&manifest.state, &stage_dir)?.iterations,
                None => 0,
            };
            writeln!(
                out,
                "bids       stage 1 of 2: the bidding stage in {} has {} of its {} iterations checkpointed; card play starts after it",
                stage_dir.display(),
                thousands(done),
                thousands(stage.iterations)
            )?;
        }
        (Some(_), Some(source)) => writeln!(
            out,
            "bids       trained in the run's bidding stage, then fixed: {source}"
        )?,
        (None, Some(source)) => writeln!(out, "bids       fixed, from the blueprint {source}")?,
        (None, None) => {}
    }
    match store::Manifest::read(&dir.join(STORE_DIR))? {
        Some(manifest) => {
            let progress = Progress::committed(&manifest.state, dir)?;
            let age = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |now| now.as_secs())
                .saturating_sub(progress.checkpoint_unix);
            if manifest.checkpoints == 0 {
                // A store just built: its manifest exists, but training has
                // not reached its first checkpoint.
                writeln!(
                    out,
                    "checkpoint none yet (the store is built; the first comes within {} minutes of training)",
                    saved.session.checkpoint_every_minutes
                )?;
            } else {
                writeln!(
                    out,
                    "checkpoint iteration {} ({} checkpoints, the last {} ago)",
                    thousands(progress.iterations),
                    manifest.checkpoints,
                    human_age(age)
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
                thousands(manifest.records),
                bytes(dir_bytes(&dir.join(STORE_DIR)))
            )?;
        }
        None => writeln!(out, "checkpoint none yet")?,
    }
    if let Some(point) = curve::read(dir)?.last() {
        writeln!(out, "curve      {point}")?;
        writeln!(
            out,
            "           ({} and {} in the run directory)",
            curve::CURVE_FILE,
            curve::CURVE_PLOT
        )?;
    }
    if let Ok(text) = std::fs::read_to_string(dir.join(LBR_FILE)) {
        writeln!(out, "local best response {}", text.trim())?;
    }
    let policy = dir.join(POLICY_FILE);
    if let Ok(meta) = std::fs::metadata(&policy) {
        writeln!(
            out,
            "policy     {} ({})",
            policy.display(),
            bytes(meta.len())
        )?;
    }
    match RunDir::lock(dir) {
        Ok(_) => writeln!(out, "trainer    none running")?,
        Err(error) => writeln!(out, "trainer    {error:#}")?,
    }
    if digest {
        let (count, crc) = records_digest(dir)?;
        writeln!(
            out,
            "records    {} trained, digest {crc:08x}",
            thousands(count)
        )?;
    }
    Ok(out)
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
