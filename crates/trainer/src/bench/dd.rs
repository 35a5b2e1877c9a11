//! `trainer bench dd`: full 20-card positions solved open-handed per second.

use std::hint::black_box;
use std::time::Instant;

use euchre_game::engine::double_dummy::DoubleDummy;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::format::thousands;

/// Positions at the first lead, after random bidding that made trump.
fn first_leads(count: usize, seed: u64) -> Vec<GameState> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let deal = Deal::random(Seat::North, &mut rng);
        let mut state = GameState::new(deal, Rules::default());
        while matches!(
            state.stage(),
            Stage::BiddingRound1 | Stage::BiddingRound2 | Stage::DealerDiscard
        ) {
            let legal = state.legal_actions();
            state.apply(legal[rng.random_range(0..legal.len())]);
        }
        if state.stage() == Stage::Play && state.tricks_played() == 0 {
            positions.push(state);
        }
    }
    positions
}

pub fn run(positions: usize, seed: u64) -> anyhow::Result<()> {
    anyhow::ensure!(positions > 0, "--positions must be at least 1");
    let states = first_leads(positions, seed);

    // Baseline: one random playout of each position, the cheapest possible
    // way to put a number on it.
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    for state in &states {
        let mut playout = *state;
        while !playout.is_finished() {
            let legal = playout.legal_actions();
            playout.apply(legal[rng.random_range(0..legal.len())]);
        }
        black_box(playout.outcome());
    }
    let playout_seconds = started.elapsed().as_secs_f64();

    let mut solver = DoubleDummy::new();
    let started = Instant::now();
    let mut maker_tricks = 0u64;
    for state in &states {
        let tricks = solver.solve(state).expect("positions are in play");
        let makers = state.contract().expect("trump was made").maker.team();
        maker_tricks += u64::from(tricks[makers.index()]);
    }
    let solve_seconds = started.elapsed().as_secs_f64();
    let exact_nodes = solver.nodes();

    // What training's leaves ask: only what the score depends on.
    let mut scorer = DoubleDummy::new();
    let started = Instant::now();
    for state in &states {
        black_box(scorer.solve_for_score(state));
    }
    let score_seconds = started.elapsed().as_secs_f64();

    println!(
        "single thread, {} full 20-card positions at the first lead (random bidding)",
        thousands(positions as u64)
    );
    println!(
        "{:<30} {:>14} {:>16} {:>14}",
        "workload", "positions/s", "nodes/position", "time vs base"
    );
    println!(
        "{:<30} {:>14} {:>16} {:>13.1}x",
        "random playout (baseline)",
        thousands((positions as f64 / playout_seconds) as u64),
        "-",
        1.0
    );
    println!(
        "{:<30} {:>14} {:>16} {:>13.1}x",
        "double-dummy solve",
        thousands((positions as f64 / solve_seconds) as u64),
        thousands(exact_nodes / positions as u64),
        solve_seconds / playout_seconds
    );
    println!(
        "{:<30} {:>14} {:>16} {:>13.1}x",
        "score only (training leaves)",
        thousands((positions as f64 / score_seconds) as u64),
        thousands(scorer.nodes() / positions as u64),
        score_seconds / playout_seconds
    );
    println!(
        "makers take {:.2} tricks on average with perfect open-handed play",
        maker_tricks as f64 / positions as f64
    );
    Ok(())
}
