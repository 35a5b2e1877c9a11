//! `trainer eval`: a duplicate match between two bots, with intervals.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, ensure};
use euchre_game::engine::rules::Rules;
use indicatif::ProgressBar;

use crate::training::terminal::set_template;
use euchre_bots::arena::{bid_partings, partings, run_match, summarise};
use euchre_bots::bot::Bot;
use euchre_bots::games::{run_games_by_score, summarise_games};
use euchre_bots::spec::{LoadedPolicies, from_spec_sharing};

#[derive(Debug)]
pub struct EvalRequest {
    pub a: String,
    pub b: String,
    pub hands: u64,
    pub seed: u64,
    pub threads: usize,
    pub rules: Rules,
    pub unseen: euchre_bots::bots::policy::Unseen,
    /// Play this many duplicate games (each twice, seats swapped) to
    /// `target` instead of duplicate hands.
    pub games: Option<u64>,
    pub target: u8,
}

pub fn run(request: &EvalRequest) -> anyhow::Result<()> {
    if let Some(games) = request.games {
        return run_games_match(request, games);
    }
    ensure!(
        request.hands >= 2 && request.hands.is_multiple_of(2),
        "--hands {} must be an even number of at least 2: each deal is played twice, with the seats swapped",
        request.hands
    );
    let (a, b) = sides(request)?;
    let deals = request.hands / 2;
    let bar = ProgressBar::new(deals);
    set_template(
        &bar,
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} deals ({per_sec}, ETA {eta})",
    );
    let (threads, pool) = match_pool(request.threads)?;
    let started = Instant::now();
    let results =
        pool.install(|| run_match(&a, &b, request.rules, deals, request.seed, &|| bar.inc(1)));
    bar.finish_and_clear();
    let summary = summarise(&results);
    println!("A: {}", a.name());
    println!("B: {}", b.name());
    println!(
        "{} hands ({} deals, each played twice with the seats swapped), seed {}, {} threads, {:.1} s",
        summary.hands,
        deals,
        request.seed,
        threads,
        started.elapsed().as_secs_f64()
    );
    println!();
    println!(
        "A's points per hand minus B's: {:+.4} ± {:.4} (95% interval over deals)",
        summary.net_per_hand, summary.net_interval
    );
    println!(
        "points per hand: A {:.4}, B {:.4}; A's point share {:.1}%",
        summary.points_per_hand[0],
        summary.points_per_hand[1],
        100.0 * summary.point_share
    );
    let games = summary.games_won[0] + summary.games_won[1];
    println!(
        "games to 10 (each table's hands in order): A won {} of {} ({:.1}%)",
        summary.games_won[0],
        games,
        100.0 * summary.games_won[0] as f64 / games.max(1) as f64
    );
    println!();
    println!("{:<34} {:>8} {:>8}", "per hand", "A", "B");
    for (label, rates) in [
        ("makes trump", summary.made_trump),
        ("goes alone", summary.alone),
        ("is euchred (as makers)", summary.euchred),
        ("defends alone", summary.defended_alone),
    ] {
        println!(
            "{label:<34} {:>7.1}% {:>7.1}%",
            100.0 * rates[0],
            100.0 * rates[1]
        );
    }
    println!();
    println!("where the points come from: each deal's A − B credited to the first decision");
    println!("its two tables played differently (the rows add up to A − B a hand)");
    println!(
        "{:<30} {:>7} {:>22}",
        "first differing decision", "deals", "A − B a hand"
    );
    for row in partings(&results) {
        println!(
            "{:<30} {:>7} {:>+11.4} ± {:.4}",
            row.parting.to_string(),
            row.deals,
            row.net_per_hand,
            row.net_interval
        );
    }
    let bids = bid_partings(&results);
    if !bids.is_empty() {
        println!();
        println!(
            "the bidding rows split by what each bid where the tables parted (same seat, same state)"
        );
        println!(
            "{:<14} {:<18} {:<18} {:>7} {:>22}",
            "decision", "A bid", "B bid", "deals", "A − B a hand"
        );
        for row in bids {
            println!(
                "{:<14} {:<18} {:<18} {:>7} {:>+11.4} ± {:.4}",
                row.parting.to_string(),
                row.choices[0].to_string(),
                row.choices[1].to_string(),
                row.deals,
                row.net_per_hand,
                row.net_interval
            );
        }
    }
    for bot in [&a, &b] {
        if let Some(report) = bot.report() {
            println!();
            println!("{report}");
        }
    }
    Ok(())
}

/// Both sides' bots, with what a reader should know before trusting the
/// match printed.
fn sides(request: &EvalRequest) -> anyhow::Result<(Arc<dyn Bot>, Arc<dyn Bot>)> {
    // Two bots over one run share its files: loaded once, not once a side.
    let loaded = LoadedPolicies::default();
    let a: Arc<dyn Bot> = from_spec_sharing(&request.a, request.rules, request.unseen, &loaded)
        .context("building bot A (--a)")?;
    let b: Arc<dyn Bot> = from_spec_sharing(&request.b, request.rules, request.unseen, &loaded)
        .context("building bot B (--b)")?;
    for warning in a.warnings().iter().chain(&b.warnings()) {
        eprintln!("warning: {warning}");
    }
    Ok((a, b))
}

/// The match's threads (every core for 0) and their pool.
fn match_pool(threads: usize) -> anyhow::Result<(usize, rayon::ThreadPool)> {
    let threads = crate::config::worker_threads(threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the match's threads")?;
    Ok((threads, pool))
}

/// `eval --games`: whole duplicate games to the target, with the score in
/// every bot's view; games won is the headline, points per hand beside it.
fn run_games_match(request: &EvalRequest, games: u64) -> anyhow::Result<()> {
    ensure!(
        games >= 2,
        "--games {games} is too few for an interval: give at least 2 (each is played twice, seats swapped)"
    );
    let (a, b) = sides(request)?;
    let bar = ProgressBar::new(games);
    set_template(
        &bar,
        "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} games ({per_sec}, ETA {eta})",
    );
    let (threads, pool) = match_pool(request.threads)?;
    let started = Instant::now();
    let (pairs, outcomes) = pool.install(|| {
        run_games_by_score(
            &a,
            &b,
            request.rules,
            request.target,
            0..games,
            request.seed,
            &|| bar.inc(1),
        )
    });
    bar.finish_and_clear();
    let summary = summarise_games(&pairs);
    println!("A: {}", a.name());
    println!("B: {}", b.name());
    println!(
        "{} games to {} ({games} sequences of deals, each played twice with the seats swapped; every bot sees the score), {} hands, seed {}, {threads} threads, {:.1} s",
        summary.games,
        request.target,
        summary.hands,
        request.seed,
        started.elapsed().as_secs_f64()
    );
    println!();
    println!(
        "games won: A {} of {} ({:.1}% ± {:.1}, 95% interval over the pairs of games){}",
        summary.a_won,
        summary.games,
        100.0 * summary.share,
        100.0 * summary.share_interval,
        if summary.unfinished > 0 {
            format!(
                "; {} unfinished after {} hands, counted half",
                summary.unfinished,
                euchre_bots::games::MAX_HANDS
            )
        } else {
            String::new()
        }
    );
    println!(
        "A's points per hand minus B's over those games: {:+.4} ± {:.4}",
        summary.net_per_hand, summary.net_interval
    );
    println!();
    println!(
        "each side's hands by where its game stood when dealt: how often it made trump and went alone, and of its contracts how many marched or were euchred"
    );
    print!("{}", outcomes.table(["A", "B"]));
    Ok(())
}
