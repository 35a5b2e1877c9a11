//! `trainer export`: a run's strategy written as a policy file, read back,
//! and summarised: its local best response and what its bids learned.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use store::dir::MANIFEST_FILE;

use super::bidding_stage;
use crate::format::{bytes, thousands};
use crate::report::BiddingReport;
use crate::training::backend;
use crate::training::run_dir::{
    POLICY_FILE, Progress, RunDir, SETTINGS_FILE, STORE_DIR, read_settings,
};
use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::local_best_response;
use euchre_bots::phase::RECORD_WIDTH;
use euchre_bots::policy_file::{self, PolicyFile, PolicyMeta, Strategy};

/// Where `export` records the policy's local best response for `status`.
pub(crate) const LBR_FILE: &str = "local-best-response.txt";
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
