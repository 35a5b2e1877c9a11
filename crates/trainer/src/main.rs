//! `trainer`: the command-line front end of the euchre CFR workspace.

mod commands;
mod config;
mod format;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

/// Train and inspect euchre bots built with counterfactual regret minimisation.
#[derive(Debug, Parser)]
#[command(name = "trainer", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count every infostate of a phase, and what storing them would take.
    Enumerate {
        /// Which part of the hand the key universe covers.
        #[arg(long, value_enum, default_value_t = Phase::Bidding)]
        phase: Phase,
        /// A run profile whose [rules] table sets the rule options
        /// (see configs/example.toml). Defaults apply without one.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Replay hands given as JSON lines on stdin; print one JSON line per hand.
    ///
    /// Each input line: {"dealer":"S","hands":{"N":[..5 cards..],"E":[..],"S":[..],"W":[..]},
    /// "upcard":"Jh","actions":["pass","order","discard 9c","play Ah",...]}, with optional
    /// "stick_the_dealer", "lone_defender" and "dealer_may_discard_upcard" booleans.
    Replay,
    /// Measure speed. Figures are reported against a baseline from the same run.
    Bench {
        #[command(subcommand)]
        target: BenchTarget,
    },
}

#[derive(Debug, Subcommand)]
enum BenchTarget {
    /// Random complete hands per second, single-threaded.
    Game {
        /// How many hands to play.
        #[arg(long, default_value_t = 2_000_000)]
        hands: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Store backends on the disk-backed euchre-bot workload: N random keys
    /// (action sequences of length 6 to 19 over 32 actions), each looked up
    /// and written back, in parallel. Each backend runs in a child process.
    Store {
        /// Infostates (keys) in the workload.
        #[arg(long, default_value_t = 20_000_000)]
        keys: u64,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Where the disk stores are built (removed afterwards).
        #[arg(long, default_value = "runs/bench-store")]
        dir: PathBuf,
        /// Run only this backend, in this process (used by the parent run).
        #[arg(long, value_enum, hide = true)]
        only: Option<commands::bench_store::BenchBackend>,
    },
    /// The open-hand (double-dummy) solver: full 20-card positions per second.
    Dd {
        #[arg(long, default_value_t = 20_000)]
        positions: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Solver speed and exploitability on Kuhn poker and Leduc hold'em.
    Cfr {
        /// External-sampling MCCFR iterations on Leduc.
        #[arg(long, default_value_t = 100_000)]
        iterations: u64,
        #[arg(long, default_value_t = 42)]
        seed: u64,
    },
}

/// A training phase: which decisions the solver owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Phase {
    /// Round 1 and 2 bids, the dealer's discard and defending alone, with
    /// perfect recall. Card play is valued by an evaluator.
    Bidding,
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Enumerate { phase, config } => {
            let rules = config::load_rules(config.as_deref())?;
            match phase {
                Phase::Bidding => commands::enumerate::bidding(rules),
            }
        }
        Command::Replay => commands::replay::run(std::io::stdin().lock(), std::io::stdout().lock()),
        Command::Bench { target } => match target {
            BenchTarget::Game { hands, seed } => commands::bench_game::run(hands, seed),
            BenchTarget::Dd { positions, seed } => commands::bench_dd::run(positions, seed),
            BenchTarget::Cfr { iterations, seed } => commands::bench_cfr::run(iterations, seed),
            BenchTarget::Store {
                keys,
                threads,
                dir,
                only,
            } => commands::bench_store::run(keys, threads, &dir, only),
        },
    }
}
