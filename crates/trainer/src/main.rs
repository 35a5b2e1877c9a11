//! `trainer`: the command-line front end of the euchre CFR workspace. It
//! parses the command line and hands each subcommand to the library.
//!
//! The doc comments on the argument types below are clap's help text, read
//! in a terminal, so they are written as plain text, not rustdoc markdown.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use euchre_bots::{bots::policy::Unseen, phase, spec};
use trainer::training::cluster::Group;
use trainer::{bench, commands, config};

/// Every bot kind a spec may name, after the options of each command that
/// seats bots: the grammar's one description (`euchre_bots::spec`).
fn bots_help() -> String {
    format!("Bots: {}", spec::help())
}

/// Train and inspect euchre bots built with counterfactual regret minimisation.
///
/// With no subcommand, `trainer` means `trainer train`: for example
/// `trainer --phase full-play --store mmap` trains the laptop profile: its
/// bids first (a bidding run of about 20 minutes on 2 cores), then card
/// play under them in i16 records on disk, until Ctrl-C; running the same
/// command again resumes from the last checkpoint of either stage.
#[derive(Debug, Parser)]
#[command(
    name = "trainer",
    version,
    about,
    long_about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    train: TrainArgs,
}

/// The flags of `trainer train`: a profile, and the settings over it.
#[derive(Debug, Default, clap::Args)]
struct TrainArgs {
    /// A run profile (see configs/); flags override it.
    #[arg(long)]
    config: Option<PathBuf>,
    #[command(flatten)]
    options: config::TrainOptions,
}

fn parse_duration(text: &str) -> Result<std::time::Duration, config::DurationError> {
    config::parse_duration(text)
}

fn parse_phase(text: &str) -> Result<phase::Phase, phase::UnknownPhase> {
    text.parse()
}

fn parse_subject(text: &str) -> Result<bench::store::Subject, bench::store::UnknownSubject> {
    text.parse()
}

fn parse_store(text: &str) -> Result<store::Backend, store::UnknownBackend> {
    text.parse()
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Train, or resume the run in the run directory if its settings match.
    Train(Box<TrainArgs>),
    /// Continue a run with the settings it was made with.
    Resume {
        #[arg(long)]
        run_dir: PathBuf,
        #[command(flatten)]
        session: config::SessionOptions,
        #[command(flatten)]
        curve: config::CurveOptions,
    },
    /// Write a run's strategy to a compact policy file: the average, or
    /// for a run whose card play keeps none (full play's default) the bids'
    /// average beside card play's current strategy.
    Export {
        #[arg(long)]
        run_dir: PathBuf,
        /// Where to write it (default RUN_DIR/policy.bin).
        #[arg(long)]
        out: Option<PathBuf>,
        /// average (CFR's guarantees are about it), current (regret
        /// matching on the regrets as they stand, the last iterate) or
        /// current-card-play (the bids' average, card play's current).
        /// Default: what the run keeps (the average, or current-card-play
        /// for a run started with --card-play-strategy current).
        #[arg(long, value_enum)]
        strategy: Option<euchre_bots::meta::Strategy>,
        /// Check only the store files' lengths, not their checksums.
        #[arg(long)]
        skip_checksums: bool,
    },
    /// After `export`: decide the strongest bot's searched bids once for
    /// every round-1 and round-2 key the bidding blueprint is unsure of
    /// (search-bids:WORLDS over the run's bidding stage, or its own bids),
    /// and keep them in RUN_DIR/policy.bin beside the blueprint, so that
    /// policy-argmax: plays them with one lookup. On every core, with
    /// progress; stopped, it resumes where it was. The bids depend on the
    /// blueprint only and stay in RUN_DIR: exported again after more
    /// training, the file is plain, and this command puts them back in
    /// seconds.
    SearchBids {
        #[arg(long)]
        run_dir: PathBuf,
        /// Worlds a key's search deals. 100 by default: decided once per
        /// key, 200 (the strongest bot's at play time) played level with
        /// 100 over 20,000 hands, in twice the time
        /// (docs/experiments/searched-bids-export.md).
        #[arg(long, default_value_t = 100)]
        worlds: u32,
        /// Worker threads (default: every core).
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
        threads: usize,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// After `export` (and `search-bids`, if used): decide the strongest
    /// bot's opening lead once for the most common lead keys (the leader's
    /// hand, the upcard and the contract), searched over the run's table,
    /// and keep them in RUN_DIR/policy.bin, so that policy-argmax: plays
    /// them with one lookup. The keys are weighed by dealing hands and
    /// letting the policy's own bids finish each auction; the most common
    /// are decided first. On every core, with progress; stopped, it
    /// resumes, and a larger --keys goes on from the keys decided. Worth
    /// +0.003 a hand on a 14 M-iteration table, not resolved
    /// (docs/experiments/searched-bids-export.md).
    SearchLeads(SearchLeadsArgs),
    /// Where a run stands: iterations, checkpoints, store size.
    Status {
        #[arg(long)]
        run_dir: PathBuf,
        /// Also read every record and print a digest of the trained values
        /// (equal across backends for equal training).
        #[arg(long)]
        digest: bool,
        /// Check only the store files' lengths, not their checksums.
        #[arg(long)]
        skip_checksums: bool,
    },
    /// Count every infostate of a phase, and what storing them would take.
    Enumerate {
        /// Which part of the hand the key universe covers.
        #[arg(long, value_parser = parse_phase, default_value = "bidding")]
        phase: phase::Phase,
        /// The play key: plain (rank-compressed), maker-seat (plus the
        /// maker's seat, not only its side) or trump-voids (plus which
        /// seats have shown a void in trump). Training takes the same choice
        /// (`train --abstraction`).
        #[arg(long, value_enum, default_value = "plain")]
        abstraction: AbstractionArg,
        /// A run profile whose [rules] table sets the rule options
        /// (see configs/example.toml). Defaults apply without one.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Play a duplicate match between two bots: every deal twice, seats
    /// swapped. Prints A's points per hand with a 95% interval, point share,
    /// games to 10 and how often each side makes trump, goes alone and is
    /// euchred. The same seed gives the same result on any thread count.
    #[command(after_help = bots_help())]
    Eval {
        /// Side A, for example policy:runs/quick/policy.bin.
        #[arg(long)]
        a: String,
        /// Side B, for example pimc:50.
        #[arg(long)]
        b: String,
        /// Hands to play (even: each deal is played twice).
        #[arg(long, default_value_t = 20_000)]
        hands: u64,
        #[command(flatten)]
        games: GamesArgs,
        /// Worker threads (default: every core).
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A run profile whose [rules] table sets the rule options.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Who plays a key a policy never trained: the heuristic, or a
        /// uniform random choice (the policy alone, with no outside help).
        #[arg(long, value_enum, default_value = "heuristic")]
        unseen: Unseen,
    },
    /// A round robin among named bots on shared duplicate deals: every
    /// pair's match with 95% intervals, Bradley-Terry ratings with
    /// intervals, each bot's weakest pairing and its time per decision.
    /// Results are saved as it goes: the same command resumes, and adding a
    /// bot plays only its pairs. Writes arena.json, arena.md and
    /// ratings.svg in --dir.
    #[command(after_help = bots_help())]
    Arena {
        /// A bot of the panel, NAME=SPEC (pimc50=pimc:50) or a spec alone
        /// (named by its spec, paths cut to file names); at least two.
        #[arg(long = "bot", value_name = "NAME=SPEC", required = true)]
        bots: Vec<String>,
        /// Hands each pair plays (even: each deal is played twice).
        #[arg(long, default_value_t = 4_000)]
        hands: u64,
        #[command(flatten)]
        games: GamesArgs,
        /// The deals' seed, shared by every pair.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Where the arena's results live.
        #[arg(long, default_value = "runs/arena")]
        dir: PathBuf,
        /// Worker threads (default: every core).
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
        threads: usize,
        /// A run profile whose [rules] table sets the rule options.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Who plays a key a policy never trained (as for eval).
        #[arg(long, value_enum, default_value = "heuristic")]
        unseen: Unseen,
    },
    /// How exploitable a policy file is, with no opponent: what a player
    /// who knows the policy wins by deviating at one decision (a sampled
    /// local best response), at round-1 bids and, for full play, at one
    /// card play. About zero at an equilibrium; it falls as training
    /// converges. The same seed gives the same figures on any thread count.
    Exploit {
        /// The exported policy, for example runs/full-play-mmap/policy.bin.
        #[arg(long)]
        policy: PathBuf,
        /// Deals to sample, one deviation each.
        #[arg(long, default_value_t = 4000)]
        deals: u64,
        /// Samples of the hidden cards behind each choice.
        #[arg(long, default_value_t = 32)]
        worlds: usize,
        /// Worker threads (default: every core).
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// The chance of winning a game from every score and dealer, solved
    /// exactly (backward induction over the scores) from how often a bot's
    /// hands score each way when it plays all four seats.
    #[command(after_help = bots_help())]
    WinModel {
        /// The bot whose self-play outcomes feed the model.
        #[arg(long, default_value = "heuristic")]
        bot: String,
        /// Hands of self-play.
        #[arg(long, default_value_t = 100_000)]
        hands: u64,
        /// The points that win a game.
        #[arg(long, default_value_t = euchre_game::game::DEFAULT_TARGET,
              value_parser = clap::value_parser!(u8).range(1..=100))]
        target: u8,
        /// Worker threads (default: every core).
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
        threads: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// A run profile whose [rules] table sets the rule options.
        #[arg(long)]
        config: Option<PathBuf>,
        /// Who plays a key a policy never trained.
        #[arg(long, value_enum, default_value = "heuristic")]
        unseen: Unseen,
    },
    /// Play south in the terminal against three bots, to 10 points.
    #[command(after_help = bots_help())]
    Play(PlayArgs),
    /// Replay hands given as JSON lines on stdin; print one JSON line per hand.
    ///
    /// Each input line: {"dealer":"S","hands":{"N":[..5 cards..],"E":[..],"S":[..],"W":[..]},
    /// "upcard":"Jh","actions":["pass","order","discard 9c","play Ah",...]}, with the
    /// optional rule options of a profile's [rules] table: "stick_the_dealer",
    /// "lone_defender", "dealer_may_discard_upcard" and "canadian_loners" booleans and
    /// "loner_lead" ("left-of-dealer" or "left-of-loner").
    Replay,
    /// Analyse recorded games (Euchre Game Notation, .egn): every decision
    /// with a choice judged by a bot from the mover's seat, with each legal
    /// move's value, the loss of the move made, a summary per player and
    /// team, and the annotators' labels beside the bot's marks.
    #[command(after_help = bots_help())]
    Analyze {
        /// One or more .egn files.
        #[arg(required = true, value_name = "GAME.egn")]
        files: Vec<PathBuf>,
        /// The judging bot: pimc:N and the search bots value every move; a
        /// policy gives probabilities; the heuristic only its choice.
        #[arg(long, default_value = "pimc:50")]
        bot: String,
        /// Print the analysis as JSON instead of a report.
        #[arg(long)]
        json: bool,
        /// List every decision, not only those the bot would play otherwise.
        #[arg(long)]
        all: bool,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Worker threads (default: every core).
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
        threads: usize,
        #[arg(long, value_enum, default_value = "heuristic")]
        unseen: Unseen,
    },
    /// Answer bot requests given as JSON lines on stdin, one JSON line each.
    ///
    /// Each line is one seat's view: {"dealer":"N","seat":"E","hand":["9c",..],
    /// "upcard":"Jh","actions":["pass","order","discard","play Ah",..]}, with
    /// "discard" (the seat's own, when it is the dealer), the rule booleans
    /// and "seed" optional. The answer: {"seat","action","probabilities","bot"}.
    #[command(after_help = bots_help())]
    Act {
        /// The bot that answers (any spec eval accepts).
        #[arg(long)]
        bot: String,
        /// A run profile whose [rules] table sets the rule options.
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long, value_enum, default_value = "heuristic")]
        unseen: Unseen,
    },
    /// Serve a local web page to play the bots, watch runs, and the bot API
    /// (POST /api/act).
    #[command(after_help = bots_help())]
    Serve(ServeArgs),
    /// Measure speed. Figures are reported against a baseline from the same run.
    Bench {
        #[command(subcommand)]
        target: BenchTarget,
    },
}

/// Whole games instead of hands, for `eval` and `arena`.
#[derive(Debug, clap::Args)]
struct GamesArgs {
    /// Play this many duplicate games to --target instead of hands: each
    /// game's sequence of deals is played twice with the seats swapped
    /// (twice this many games), every bot sees the score, and games won
    /// (with a 95% interval) is the headline, points per hand beside it.
    #[arg(long, conflicts_with = "hands")]
    games: Option<u64>,
    /// The points that win a game (with --games).
    #[arg(long, default_value_t = euchre_game::game::DEFAULT_TARGET,
          value_parser = clap::value_parser!(u8).range(1..=100))]
    target: u8,
}

#[derive(Debug, clap::Args)]
struct ServeArgs {
    /// An exported policy file to offer (repeatable). The first bot offered,
    /// policy or not, is the default of new games and the bot of the API.
    #[arg(long)]
    policy: Vec<PathBuf>,
    /// The `--policy` and `--bot` offers as specs, in the order the command
    /// line gave them ([`offers_in_order`]).
    #[arg(skip)]
    offered: Vec<String>,
    /// A bot spec to offer (repeatable; default heuristic). Clients choose
    /// among these and random, heuristic and pimc:N (N up to 200); they
    /// never name a file.
    #[arg(long)]
    bot: Vec<String>,
    /// A run directory to show on the runs page (repeatable).
    #[arg(long = "run-dir", value_name = "DIR")]
    run_dirs: Vec<PathBuf>,
    /// The port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on; the default keeps it to this machine.
    #[arg(long, default_value = "127.0.0.1")]
    host: std::net::IpAddr,
    #[arg(long)]
    config: Option<PathBuf>,
    #[arg(long, value_enum, default_value = "heuristic")]
    unseen: Unseen,
    /// Fix the deals of the games, in the order they start (default: random).
    #[arg(long)]
    seed: Option<u64>,
    /// A name clients may reach the server by besides its IP addresses and
    /// localhost, such as this machine's name on a LAN (repeatable).
    /// Requests naming any other host are refused, so a page on another
    /// site cannot reach the server by resolving its own name to it.
    #[arg(long = "allow-host", value_name = "NAME")]
    allowed_hosts: Vec<String>,
    /// A directory of .egn games the analysis page offers to pick (besides
    /// uploads). Clients see and pick file names only.
    #[arg(long = "games", value_name = "DIR")]
    games_dir: Option<PathBuf>,
    /// The bot whose judgement the play page shows when a person turns
    /// hints on.
    #[arg(long = "hints", value_name = "BOT", default_value = "pimc:50")]
    hint_bot: String,
}

#[derive(Debug, clap::Args)]
struct PlayArgs {
    /// An exported policy file: your partner and both opponents play it
    /// unless --partner or --opponents say otherwise.
    #[arg(long)]
    policy: Option<PathBuf>,
    /// Your partner's bot (same forms as eval's --a).
    #[arg(long)]
    partner: Option<String>,
    /// The opponents' bot.
    #[arg(long)]
    opponents: Option<String>,
    /// Cards as letters (Ah, Jd) instead of suit symbols.
    #[arg(long)]
    ascii: bool,
    /// Fix the deals (default: random).
    #[arg(long)]
    seed: Option<u64>,
    /// Points that win a game.
    #[arg(long, default_value_t = 10)]
    target: u32,
    #[arg(long)]
    config: Option<PathBuf>,
    /// Save each game as Euchre Game Notation after every hand (read it
    /// back with `trainer analyze`).
    #[arg(long, value_name = "FILE.egn")]
    save: Option<PathBuf>,
    /// Show a bot's judgement of each of your moves before you choose:
    /// values in points per hand (PIMC, search), probabilities (a policy)
    /// or a star on its choice. Off unless given; `--hints` alone uses
    /// pimc:50.
    #[arg(long, value_name = "BOT", num_args = 0..=1, default_missing_value = "pimc:50")]
    hints: Option<String>,
    /// A practice game: type u to take back your last move in the hand
    /// (and the bots' replies).
    #[arg(long)]
    practice: bool,
    /// Play your card for you when it is your only legal one.
    #[arg(long)]
    play_forced: bool,
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
        #[arg(long, value_parser = trainer::config::parse_threads)]
        threads: Option<usize>,
        /// Where the disk stores are built (removed afterwards).
        #[arg(long, default_value = "runs/bench-store")]
        dir: PathBuf,
        /// Run only this backend, in this process (used by the parent run).
        #[arg(long, value_parser = parse_subject, hide = true)]
        only: Option<bench::store::Subject>,
        /// After the steps, read every record back (and check it): the
        /// posts' second workload, writing then reading a set of records.
        #[arg(long)]
        read_back: bool,
    },
    /// Under mpirun (a trainer built --features mpi): one sync's exchange,
    /// dense (every record's delta all-reduced) against sparse (only the
    /// touched records' keys and deltas gathered), for tables of N records.
    Sync {
        /// Table sizes in records, comma-separated.
        #[arg(
            long,
            value_delimiter = ',',
            default_value = "1000000,4000000,16000000"
        )]
        records: Vec<u64>,
        /// The share of records a sparse sync sends, in percent.
        #[arg(long, default_value_t = 5.0)]
        touched: f64,
        /// Actions per record (the trainer's records hold 7).
        #[arg(long, default_value_t = 7)]
        width: usize,
        /// Tries per row; the median is shown.
        #[arg(long, default_value_t = 3)]
        tries: usize,
    },
    /// One rank's share of a sync in place (the drain and the apply of the
    /// code a cluster runs) on an mmap store of full play's i16 records, at
    /// each thread count, in one process that has the machine: the speed-up
    /// a rank's threads give it, which ranks sharing this machine's cores
    /// under mpirun cannot show.
    Replica {
        /// Records in the table.
        #[arg(long, default_value_t = 4_000_000)]
        records: u64,
        /// The share of records an epoch changes, in percent.
        #[arg(long, default_value_t = 10.0)]
        touched: f64,
        /// Ranks whose changes the apply sums (each stood in for by this
        /// rank's own changes: the most an apply can have to sum).
        #[arg(long, default_value_t = 2)]
        ranks: usize,
        /// Thread counts, comma-separated; speed-ups are against the first.
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        threads: Vec<usize>,
        /// Syncs timed per thread count, alternating; the median is shown.
        #[arg(long, default_value_t = 5)]
        tries: usize,
        /// Where the store is built (removed afterwards).
        #[arg(long, default_value = "runs/bench-replica")]
        dir: PathBuf,
    },
    /// The open-hand (double-dummy) solver: full 20-card positions per second.
    Dd {
        #[arg(long, default_value_t = 20_000)]
        positions: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Training speed: iterations/s and updates/s for each phase and store,
    /// on 1 and 2 threads.
    Train {
        /// Iterations measured per row, after a warm-up of a tenth as many.
        #[arg(long, default_value_t = 4000, conflicts_with = "measure_for")]
        iterations: u64,
        /// Measure each row for this much training time instead (for
        /// example 5m): a disk store's steady state, past the first minutes
        /// of page faults that a short count on a fresh file measures.
        #[arg(long = "for", value_name = "DURATION", value_parser = parse_duration)]
        measure_for: Option<std::time::Duration>,
        /// Training time before each row's measured stretch, with --for
        /// (default: a tenth of it).
        #[arg(long, value_name = "DURATION", value_parser = parse_duration, requires = "measure_for")]
        warm_up: Option<std::time::Duration>,
        /// Phases to measure, comma-separated.
        #[arg(long, value_delimiter = ',', value_parser = parse_phase, default_value = "bidding,play-2,full-play")]
        phases: Vec<phase::Phase>,
        /// Stores to measure, comma-separated.
        #[arg(long, value_delimiter = ',', value_parser = parse_store, default_value = "memory,lmdb,mmap")]
        stores: Vec<store::Backend>,
        /// Thread counts to measure, comma-separated.
        #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u16).range(1..), default_value = "1,2")]
        threads: Vec<u16>,
        /// Also measure each card-play phase with its bids fixed from this
        /// bidding policy file (see `train --bidding-from`).
        #[arg(long, value_name = "POLICY")]
        bidding_from: Option<PathBuf>,
        /// Where the disk stores are built (removed afterwards).
        #[arg(long, default_value = "runs/bench-train")]
        dir: PathBuf,
    },
    /// Regret-based pruning: iterations/s with and without it on one warm
    /// run, for DCFR (the default) and linear CFR.
    Prune {
        #[arg(long, value_parser = parse_phase, default_value = "full-play")]
        phase: phase::Phase,
        /// Iterations trained before measuring, so regrets mean something.
        #[arg(long, default_value_t = 200_000)]
        warm: u64,
        /// Iterations per measured segment (two segments per setting).
        #[arg(long, default_value_t = 20_000)]
        iterations: u64,
        /// Skip actions with regret below -REGRET; several, comma-separated,
        /// are measured in turn.
        #[arg(
            long,
            value_name = "REGRET",
            value_delimiter = ',',
            default_value = "20,200"
        )]
        prune: Vec<f64>,
        #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 2)]
        threads: usize,
        /// Where the runs are made (removed afterwards).
        #[arg(long, default_value = "runs/bench-prune")]
        dir: PathBuf,
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

/// The play-key abstractions `enumerate` can count.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum AbstractionArg {
    Plain,
    MakerSeat,
    TrumpVoids,
}

impl From<AbstractionArg> for euchre_game::keys::play::PlayAbstraction {
    fn from(arg: AbstractionArg) -> Self {
        match arg {
            AbstractionArg::Plain => Self::Plain,
            AbstractionArg::MakerSeat => Self::MakerSeat,
            AbstractionArg::TrumpVoids => Self::TrumpVoids,
        }
    }
}

/// Rust's runtime ignores SIGPIPE, so `println!` into a closed pipe
/// (`trainer status | head -1`) panics. A Unix tool stops quietly there
/// instead, with the status a SIGPIPE would give (128 + 13).
fn stop_quietly_on_a_closed_stdout() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default_hook(info);
    }));
}

fn main() -> anyhow::Result<()> {
    stop_quietly_on_a_closed_stdout();
    let matches = Cli::command().get_matches();
    let mut cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    if let (Some(Command::Serve(args)), Some(("serve", serve))) =
        (&mut cli.command, matches.subcommand())
    {
        args.offered = offers_in_order(&args.policy, &args.bot, serve);
    }
    #[cfg(feature = "mpi")]
    let result = run_under_mpi(cli);
    #[cfg(not(feature = "mpi"))]
    let result = run(cli, None);
    match result {
        Err(error) if is_closed_stdout(&error) => std::process::exit(141),
        result => result,
    }
}

/// Under `mpirun` with more than one process, rank 0 runs the command and
/// the others serve it (see `trainer::training::cluster`); alone, the command runs
/// as without the feature.
#[cfg(feature = "mpi")]
fn run_under_mpi(cli: Cli) -> anyhow::Result<()> {
    use cfr::distributed::Collective;
    use trainer::training::cluster;

    let Some((_universe, group)) = cluster::mpi::join() else {
        anyhow::bail!("MPI did not start; run under mpirun, or build without --features mpi");
    };
    if group.size() == 1 {
        return run(cli, None);
    }
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let everyone = group.all_gather(&cluster::agreement(&arguments))?;
    if let Err(reason) = cluster::check_agreement(&everyone) {
        // Every rank says it: the first to exit ends the job.
        anyhow::bail!(reason);
    }
    if group.is_root() {
        let group: Group = std::rc::Rc::new(group);
        let result = run(cli, Some(&group));
        cluster::dismiss(
            group.as_ref(),
            result.as_ref().err().map(|error| format!("{error:#}")),
        )?;
        return result;
    }
    // Only rank 0 decides when to stop, and checkpoints first: a follower
    // that died on a signal would take the job down before the checkpoint.
    trainer::training::signals::ignore()?;
    let rank = group.rank();
    match cluster::follower::serve(&group) {
        // Rank 0 reports its own failure and ends the job with it; a
        // follower that failed first would cut that report short.
        Ok(_) => Ok(()),
        Err(error) => Err(anyhow::Error::new(error).context(format!("rank {rank}"))),
    }
}

/// A write to stdout that failed because its reader went away (`trainer
/// play | head`): the same quiet stop as a panicking `println!`.
fn is_closed_stdout(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `trainer search-leads`'s flags.
#[derive(clap::Args, Debug)]
struct SearchLeadsArgs {
    #[arg(long)]
    run_dir: PathBuf,
    /// Worlds a lead's search deals (the strongest bot searches its
    /// card play over 400 at play time).
    #[arg(long, default_value_t = 100)]
    worlds: u32,
    /// Hands dealt to weigh the keys.
    #[arg(long, default_value_t = 4_000_000)]
    deals: u64,
    /// How many of the most common keys to decide (about 12 ms of a
    /// core each at 100 worlds); the command prints how much of the
    /// leads dealt each count covers.
    #[arg(long, default_value_t = 300_000)]
    keys: usize,
    /// Worker threads (default: every core).
    #[arg(long, value_parser = trainer::config::parse_threads, default_value_t = 0)]
    threads: usize,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

impl SearchLeadsArgs {
    fn request(self) -> commands::search_leads::Request {
        commands::search_leads::Request {
            run_dir: self.run_dir,
            worlds: self.worlds,
            deals: self.deals,
            keys: self.keys,
            threads: config::worker_threads(self.threads),
            progress: !self.quiet,
        }
    }
}

/// Runs the command; `group`: the ranks it leads under `mpirun`, as their
/// rank 0 (`None`: this process alone).
fn run(cli: Cli, group: Option<&Group>) -> anyhow::Result<()> {
    let Some(command) = cli.command else {
        let TrainArgs { config, options } = cli.train;
        return commands::train::train(config.as_deref(), options, group);
    };
    match command {
        Command::Train(args) => {
            let TrainArgs { config, options } = *args;
            commands::train::train(config.as_deref(), options, group)
        }
        Command::Resume {
            run_dir,
            session,
            curve,
        } => commands::train::resume(&run_dir, &session, curve, group),
        Command::Export {
            run_dir,
            out,
            strategy,
            skip_checksums,
        } => commands::export::run(&run_dir, out, strategy, verify(skip_checksums)),
        Command::SearchBids {
            run_dir,
            worlds,
            threads,
            quiet,
        } => commands::search_bids::run(&commands::search_bids::Request {
            run_dir,
            worlds,
            threads: config::worker_threads(threads),
            progress: !quiet,
        }),
        Command::SearchLeads(args) => commands::search_leads::run(&args.request()),
        Command::Status {
            run_dir,
            digest,
            skip_checksums,
        } => commands::status::run(&run_dir, digest, verify(skip_checksums)),
        Command::Enumerate {
            phase,
            abstraction,
            config,
        } => {
            let rules = config::load_rules(config.as_deref())?;
            match phase {
                phase::Phase::Bidding => commands::enumerate::bidding(rules),
                play => commands::enumerate::play(rules, play, abstraction.into()),
            }
        }
        Command::Eval {
            a,
            b,
            hands,
            games: GamesArgs { games, target },
            threads,
            seed,
            config,
            unseen,
        } => commands::eval::run(&commands::eval::EvalRequest {
            a,
            b,
            hands,
            seed,
            threads,
            rules: config::load_rules(config.as_deref())?,
            unseen,
            games,
            target,
        }),
        Command::Arena {
            bots,
            hands,
            games: GamesArgs { games, target },
            seed,
            dir,
            threads,
            config,
            unseen,
        } => commands::arena::run(&commands::arena::ArenaRequest {
            bots,
            play: match games {
                Some(games) => commands::arena::Play::Games { games, target },
                None => commands::arena::Play::Hands(hands),
            },
            seed,
            dir,
            threads,
            rules: config::load_rules(config.as_deref())?,
            unseen,
        }),
        Command::Exploit {
            policy,
            deals,
            worlds,
            threads,
            seed,
        } => commands::exploit::run(&commands::exploit::ExploitRequest {
            policy: &policy,
            deals,
            worlds,
            seed,
            threads,
        }),
        Command::Act {
            bot,
            config,
            unseen,
        } => act(&bot, config.as_deref(), unseen),
        Command::WinModel {
            bot,
            hands,
            target,
            threads,
            seed,
            config,
            unseen,
        } => commands::win_model::run(&commands::win_model::WinModelRequest {
            bot,
            hands,
            seed,
            target,
            threads,
            rules: config::load_rules(config.as_deref())?,
            unseen,
        }),
        Command::Serve(args) => serve_command(args),
        Command::Play(args) => play_command(args),
        Command::Replay => commands::replay::run(std::io::stdin().lock(), std::io::stdout().lock()),
        Command::Analyze {
            files,
            bot,
            json,
            all,
            seed,
            threads,
            unseen,
        } => commands::analyze::run(&commands::analyze::AnalyzeRequest {
            files,
            bot,
            unseen,
            seed,
            threads,
            json,
            all_decisions: all,
        }),
        Command::Bench { target } => bench_command(target, group),
    }
}

fn verify(skip_checksums: bool) -> store::Verify {
    if skip_checksums {
        store::Verify::LengthsOnly
    } else {
        store::Verify::Full
    }
}

fn act(bot: &str, config: Option<&std::path::Path>, unseen: Unseen) -> anyhow::Result<()> {
    let rules = config::load_rules(config)?;
    let bot = spec::from_spec(bot, rules, unseen)?;
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    euchre_bots::api::run_lines(&bot, rules, stdin, stdout)?;
    Ok(())
}

/// The bot a `--policy FILE` or `--bot SPEC` pair names, the heuristic
/// when neither is given.
fn default_bot(policy: Option<PathBuf>, bot: Option<String>) -> String {
    match (policy, bot) {
        (Some(policy), _) => format!("policy:{}", policy.display()),
        (None, Some(bot)) => bot,
        (None, None) => "heuristic".to_owned(),
    }
}

/// `serve`'s `--policy FILE` and `--bot SPEC` offers as specs, in the
/// order they were written: the first is the default of new games, as
/// `--help` says, whichever flag gave it.
fn offers_in_order(policy: &[PathBuf], bot: &[String], matches: &clap::ArgMatches) -> Vec<String> {
    let at = |id: &str| -> Vec<usize> {
        matches
            .indices_of(id)
            .map(|indices| indices.collect())
            .unwrap_or_default()
    };
    let mut offers: Vec<(usize, String)> = at("policy")
        .into_iter()
        .zip(policy)
        .map(|(index, path)| (index, format!("policy:{}", path.display())))
        .chain(at("bot").into_iter().zip(bot.iter().cloned()))
        .collect();
    offers.sort_by_key(|(index, _)| *index);
    offers.into_iter().map(|(_, spec)| spec).collect()
}

fn serve_command(args: ServeArgs) -> anyhow::Result<()> {
    let ServeArgs {
        offered: bots,
        policy: _,
        bot: _,
        run_dirs,
        port,
        host,
        config,
        unseen,
        seed,
        allowed_hosts,
        games_dir,
        hint_bot,
    } = args;
    let options = trainer::serve::ServeOptions {
        bots,
        run_dirs,
        rules: config::load_rules(config.as_deref())?,
        unseen,
        address: std::net::SocketAddr::new(host, port),
        seed,
        allowed_hosts,
        games_dir,
        hint_bot,
    };
    trainer::serve::serve(&options, |address| {
        if let Some(warning) = trainer::serve::exposure_warning(address, &options) {
            eprintln!("{warning}");
        }
        println!("serving on http://{address}/ (Ctrl-C stops)");
    })?;
    Ok(())
}

fn play_command(args: PlayArgs) -> anyhow::Result<()> {
    let PlayArgs {
        policy,
        partner,
        opponents,
        ascii,
        seed,
        target,
        config,
        save,
        hints,
        practice,
        play_forced,
    } = args;
    let default_bot = default_bot(policy, None);
    let request = commands::play::PlayRequest {
        partner: partner.unwrap_or_else(|| default_bot.clone()),
        opponents: opponents.unwrap_or(default_bot),
        ascii,
        seed,
        target,
        rules: config::load_rules(config.as_deref())?,
        unseen: Unseen::Heuristic,
        save,
        hints,
        practice,
        play_forced,
    };
    commands::play::run(
        &request,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
    )
}

fn bench_command(target: BenchTarget, group: Option<&Group>) -> anyhow::Result<()> {
    match target {
        BenchTarget::Game { hands, seed } => bench::game::run(hands, seed),
        BenchTarget::Train {
            iterations,
            measure_for,
            warm_up,
            phases,
            stores,
            threads,
            bidding_from,
            dir,
        } => {
            let length = match measure_for {
                Some(measured) => bench::train::Length::Time {
                    warm_up: warm_up.unwrap_or(measured / 10),
                    measured,
                },
                None => bench::train::Length::Iterations {
                    warm_up: iterations / 10,
                    measured: iterations,
                },
            };
            let selection = bench::train::Selection {
                phases,
                stores,
                threads: threads.into_iter().map(usize::from).collect(),
            };
            bench::train::run(length, &selection, bidding_from.as_deref(), &dir)
        }
        BenchTarget::Dd { positions, seed } => bench::dd::run(positions, seed),
        BenchTarget::Sync {
            records,
            touched,
            width,
            tries,
        } => bench::sync::run(
            group.map(|group| group.as_ref()),
            &records,
            touched,
            width,
            tries,
        ),
        BenchTarget::Replica {
            records,
            touched,
            ranks,
            threads,
            tries,
            dir,
        } => bench::replica::run(
            &bench::replica::Workload {
                records,
                touched_percent: touched,
                ranks,
                threads,
                tries,
            },
            &dir,
        ),
        BenchTarget::Prune {
            phase,
            warm,
            iterations,
            prune,
            threads,
            dir,
        } => bench::prune::run(phase, warm, iterations, &prune, threads, &dir),
        BenchTarget::Cfr { iterations, seed } => bench::cfr::run(iterations, seed),
        BenchTarget::Store {
            keys,
            threads,
            dir,
            only,
            read_back,
        } => {
            let trainer = std::env::current_exe()?;
            bench::store::run(keys, threads, &dir, only, read_back, &trainer)
        }
    }
}
