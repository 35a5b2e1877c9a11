//! `trainer status`: where a run stands, read without disturbing a trainer
//! that may be working in it.

use std::path::Path;

use anyhow::bail;

use super::bidding_stage;
use super::export::LBR_FILE;
use crate::format::{bytes, thousands};
use crate::training::backend;
use crate::training::curve;
use crate::training::run_dir::{
    POLICY_FILE, Progress, RunDir, SETTINGS_FILE, STORE_DIR, read_settings,
};

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
