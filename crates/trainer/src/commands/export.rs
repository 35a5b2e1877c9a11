//! `trainer export`: prints the report of [`crate::training::export`].

use std::path::{Path, PathBuf};

use euchre_bots::meta::Strategy;

use crate::format::{bytes, thousands};
use crate::training::export::{ExportReport, export};

/// `trainer export`: write the run's strategy to a policy file and say
/// what it holds.
pub fn run(
    dir: &Path,
    out: Option<PathBuf>,
    strategy: Option<Strategy>,
    verify: store::Verify,
) -> anyhow::Result<()> {
    print_report(&export(dir, out, strategy, verify)?);
    Ok(())
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
