//! One training session: open the run, iterate in batches, checkpoint on
//! schedule and on interrupt, and say where the run stands.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use cfr::mccfr::{BatchStats, ExternalSampling};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use store::DurableTable;
use tracing::info;

use crate::config::{Identity, SessionSettings};
use crate::format::{bytes, thousands};
use crate::game::EuchreGame;
use crate::meter::{anonymous_bytes, resident_bytes};
use crate::training::backend;
use crate::training::run_dir::{LOG_FILE, Progress, RunDir, STORE_DIR};
use crate::training::signals;

/// Why a session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ending {
    Budget,
    Interrupted,
}

/// What a session did, for the caller to report.
#[derive(Debug)]
pub(crate) struct Summary {
    pub(crate) run_dir: PathBuf,
    pub(crate) resumed_from: u64,
    pub(crate) progress: Progress,
    pub(crate) session_iterations: u64,
    pub(crate) session_seconds: f64,
    pub(crate) infostates: u64,
    pub(crate) disk_bytes: u64,
    pub(crate) ending: Ending,
}

/// A session's budget: whichever limit comes first ends it.
struct Budget {
    iterations: Option<u64>,
    until: Option<u64>,
    deadline: Option<Instant>,
}

impl Budget {
    /// Iterations still allowed after `done` this session at run total `total`.
    fn remaining(&self, done: u64, total: u64) -> u64 {
        let by_count = self.iterations.map_or(u64::MAX, |n| n.saturating_sub(done));
        let by_total = self.until.map_or(u64::MAX, |n| n.saturating_sub(total));
        let by_time = match self.deadline {
            Some(deadline) if Instant::now() >= deadline => 0,
            _ => u64::MAX,
        };
        by_count.min(by_total).min(by_time)
    }

    fn length(&self, start_total: u64) -> Option<u64> {
        let by_count = self.iterations;
        let by_total = self.until.map(|n| n.saturating_sub(start_total));
        match (by_count, by_total) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// A spinner until the session's length is known, then (with
/// [`show_length`]) a bar with an ETA.
fn progress_bar(enabled: bool) -> ProgressBar {
    let target = if enabled {
        ProgressDrawTarget::stderr_with_hz(4)
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(None, target);
    set_template(
        &bar,
        "{elapsed_precise} {spinner} {pos} it, {per_sec} | {msg}",
    );
    bar
}

fn show_length(bar: &ProgressBar, length: u64) {
    bar.set_length(length);
    set_template(
        bar,
        "{elapsed_precise} [{bar:30}] {pos}/{len} it, {per_sec}, eta {eta} | {msg}",
    );
}

/// Styles `bar` with an indicatif template; a bad template keeps the default.
pub(crate) fn set_template(bar: &ProgressBar, template: &str) {
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
}

/// Runs one session in `run_dir`. `identity` is checked against the run's
/// saved settings, and saved for a new run.
pub(crate) fn run(
    run_dir: &Path,
    identity: &Identity,
    session: &SessionSettings,
) -> anyhow::Result<Summary> {
    let dir = RunDir::lock(run_dir)?;
    dir.check(identity)?;

    let bar = progress_bar(session.log.progress);
    let log_file = session.log.file.then(|| dir.file(LOG_FILE));
    crate::training::logging::init(&session.log.level, &bar, log_file.as_deref())?;
    signals::install()?;

    info!(
        "run {}: phase {}, store {}, seed {}, {:?}",
        run_dir.display(),
        identity.phase,
        identity.store,
        identity.seed,
        identity.solver.schedule()
    );
    let opened = Instant::now();
    // Building an mmap store's perfect hash takes minutes at full scale:
    // a spinner names each stage while it runs.
    bar.enable_steady_tick(Duration::from_millis(200));
    let table = backend::open(
        identity,
        &dir.file(STORE_DIR),
        session.lmdb_cache_records,
        &mut |stage| {
            info!("store: {stage}");
            bar.set_message(format!("store: {stage}"));
        },
    )
    .with_context(|| {
        format!(
            "opening the {} store in {}",
            identity.store,
            run_dir.display()
        )
    })?;
    dir.save(identity, session)?;
    let mut progress = Progress::committed(&table.committed_state(), run_dir)?;
    let resumed_from = progress.iterations;
    if resumed_from > 0 {
        info!(
            "resuming from the checkpoint at iteration {} ({} infostates, opened in {:.1} s)",
            thousands(resumed_from),
            thousands(table.len()),
            opened.elapsed().as_secs_f64()
        );
    } else {
        info!("starting a new run");
    }

    let threads = crate::config::worker_threads(session.threads);
    let root = EuchreGame::root(identity.rules, identity.phase);
    let solver = ExternalSampling::new(
        root,
        table.as_ref(),
        identity.solver.schedule(),
        identity.seed,
        threads,
    )?;
    bar.disable_steady_tick();
    // A time budget counts training only: building a new store comes first.
    let budget = Budget {
        iterations: session.iterations,
        until: session.until,
        deadline: session.duration.map(|d| Instant::now() + d),
    };
    if let Some(length) = budget.length(resumed_from) {
        show_length(&bar, length);
    }

    let started = Instant::now();
    let mut last_checkpoint = (Instant::now(), progress.iterations);
    let checkpoint_every = Duration::from_secs_f64(session.checkpoint_every_minutes * 60.0);
    let mut batch = 1u64;
    let mut done = 0u64;
    let mut ending = Ending::Budget;
    loop {
        if signals::stop_requested() {
            ending = Ending::Interrupted;
            break;
        }
        let remaining = budget.remaining(done, progress.iterations);
        if remaining == 0 {
            break;
        }
        // Never cross a checkpoint boundary inside a batch, so checkpoints
        // land on the same iterations however the batches fall.
        let to_checkpoint = session.checkpoint_every_iterations
            - (progress.iterations - last_checkpoint.1) % session.checkpoint_every_iterations;
        let count = batch.min(remaining).min(to_checkpoint).min(session.batch);
        let batch_started = Instant::now();
        let stats: BatchStats = solver.run(progress.iterations + 1, count)?;
        let took = batch_started.elapsed();
        // Aim for about half a second per batch: responsive to Ctrl-C and
        // cheap to account for.
        if took < Duration::from_millis(250) {
            batch = (batch * 2).min(session.batch);
        } else if took > Duration::from_secs(1) && batch > 1 {
            batch /= 2;
        }
        done += count;
        progress.iterations += count;
        progress.regret_updates += stats.regret_updates;
        progress.strategy_updates += stats.strategy_updates;
        progress.train_seconds += took.as_secs_f64();
        bar.set_position(done);
        bar.set_message(format!(
            "{} infostates, disk {}, resident {} (anon {})",
            thousands(table.len()),
            bytes(table.disk_bytes()),
            bytes(resident_bytes()),
            bytes(anonymous_bytes()),
        ));
        let due = progress.iterations - last_checkpoint.1 >= session.checkpoint_every_iterations
            || last_checkpoint.0.elapsed() >= checkpoint_every;
        if due {
            checkpoint(table.as_ref(), &mut progress)?;
            last_checkpoint = (Instant::now(), progress.iterations);
        }
    }
    // A new run always gets a first checkpoint, so that it can be resumed
    // and exported even if it was stopped before its first iteration.
    if progress.iterations != last_checkpoint.1 || table.committed_state().is_none() {
        checkpoint(table.as_ref(), &mut progress)?;
    }
    bar.finish_and_clear();
    let summary = Summary {
        run_dir: run_dir.to_path_buf(),
        resumed_from,
        progress,
        session_iterations: done,
        session_seconds: started.elapsed().as_secs_f64(),
        infostates: table.len(),
        disk_bytes: table.disk_bytes(),
        ending,
    };
    info!(
        "{} at iteration {}: {} this session in {:.1} s, {} infostates, store {} on disk",
        match ending {
            Ending::Budget => "checkpointed",
            Ending::Interrupted => "interrupted and checkpointed",
        },
        thousands(summary.progress.iterations),
        thousands(done),
        summary.session_seconds,
        thousands(summary.infostates),
        bytes(summary.disk_bytes)
    );
    Ok(summary)
}

fn checkpoint(table: &dyn DurableTable, progress: &mut Progress) -> anyhow::Result<()> {
    let started = Instant::now();
    progress.checkpoint_unix = unix_now();
    table
        .checkpoint(&progress.to_state()?)
        .context("writing a checkpoint")?;
    info!(
        "checkpoint at iteration {} written in {:.2} s",
        thousands(progress.iterations),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
