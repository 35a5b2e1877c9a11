//! `trainer export`: prints the report of [`crate::training::export`].

use std::path::{Path, PathBuf};

use euchre_bots::meta::Strategy;
use euchre_bots::policy_file::PolicyFile;

use crate::format::{bytes, thousands};
use crate::training::export::{ExportReport, export};
use crate::training::run_dir::{POLICY_FILE, stage_dir};

/// `trainer export`: write the run's strategy to a policy file and say
/// what it holds.
pub fn run(
    dir: &Path,
    out: Option<PathBuf>,
    strategy: Option<Strategy>,
    verify: store::Verify,
) -> anyhow::Result<()> {
    let into_run = out.is_none();
    let report = export(dir, out, strategy, verify)?;
    print_report(&report);
    if into_run {
        print_kept_searches(dir, report.iterations);
    }
    Ok(())
}

/// The export writes a plain policy, but a search decided once per key
/// (`trainer search-bids`, `search-leads`) keeps its decisions in the run
/// directory, named by what they depend on: the bids by their blueprint's
/// checksum, the leads by their table's iterations. Names each that still
/// applies to the new file, so that a user who trained further puts them
/// back in seconds rather than losing them or deciding them again.
fn print_kept_searches(dir: &Path, iterations: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let stage = stage_dir(dir).join(POLICY_FILE);
    let blueprint = if stage.exists() {
        stage
    } else {
        dir.join(POLICY_FILE)
    };
    let bids = PolicyFile::read_header(&blueprint)
        .map(|header| format!("search-bids-{:08x}-", header.checksum))
        .ok();
    let leads = format!("search-leads-{iterations}it-");
    let mut kept: Vec<(String, &str)> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".progress"))
        .filter_map(|name| {
            let command = if bids.as_ref().is_some_and(|bids| name.starts_with(bids)) {
                "search-bids"
            } else if name.starts_with(&leads) {
                "search-leads"
            } else {
                return None;
            };
            Some((name, command))
        })
        .collect();
    kept.sort();
    for (name, command) in kept {
        println!(
            "\n{name} keeps what `trainer {command}` decided for this policy: run it again, with the same --worlds, to put that back in {} in seconds",
            dir.join(POLICY_FILE).display()
        );
    }
}

pub(crate) fn print_report(report: &ExportReport) {
    println!(
        "exported the {} strategy of {} infostates (iteration {}) to {} ({})",
        report.strategy,
        thousands(report.infostates),
        thousands(report.iterations),
        report.path.display(),
        bytes(report.file_bytes)
    );
    println!(
        "local best response (round-1 bids, {} worlds each, {:.1} s): {}",
        report.lbr_worlds, report.lbr_seconds, report.local_best_response
    );
    if let Some(card_play) = &report.card_play_response {
        println!(
            "local best response (one card play, {} worlds each, the policy playing the rest, {:.1} s): {}",
            card_play.worlds, card_play.seconds, card_play.response
        );
    }
    println!("What the bot learned: the chance of ordering the upcard up in round 1, by seat.");
    println!(
        "Averages over the same random deals for every run, each hand counted as often as it is dealt."
    );
    report.exported_bids.print(&format!(
        "\nThe exported policy ({} strategy):",
        report.strategy
    ));
    match (&report.fixed_bids, &report.current_bids) {
        // The run never trained its bids: its own records are all untouched.
        (Some(source), _) => println!("\nThe bids come from the blueprint {source}, held fixed."),
        (None, Some(current)) => current.print(
            "\nThe current strategy (regret matching), which moves first; the average follows it:",
        ),
        (None, None) => {}
    }
    println!("\n{}", report.exported_bids.describe());
    if let Some(by_context) = &report.by_context {
        by_context.print(
            "\nThe bids play for the game: round 1 by the score as the hand is dealt (the first row is the plain keys', which a reader without a score plays):",
        );
    }
}
