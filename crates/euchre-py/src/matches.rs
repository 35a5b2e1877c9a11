//! Duplicate matches and duplicate games between any two sides (a spec, a
//! `Bot`, a Python callable), with the statistics of `trainer eval`: the
//! same deals for the same seed, the same intervals.
//!
//! The work runs on a pool of `threads` threads with the interpreter lock
//! released, in pieces: between pieces the caller's thread takes the lock
//! to notice Ctrl-C (`KeyboardInterrupt`) and a Python side's failure, so
//! a long match stops within a piece of either.

use std::ops::Range;
use std::sync::Arc;

use euchre_bots::arena::{DealResult, run_deals, summarise};
use euchre_bots::bot::Bot;
use euchre_bots::games::{GamePair, run_games, summarise_games};
use euchre_game::engine::rules::Rules;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rayon::ThreadPool;

use crate::bot::{Side, unseen_of};
use crate::errors::{EuchreError, raise};
use crate::rules::rules_of;

/// Pieces of this many rounds of the pool's threads.
const PIECE_ROUNDS: u64 = 4;

pub(crate) fn pool(threads: Option<usize>) -> PyResult<ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.unwrap_or(0))
        .build()
        .map_err(|error| raise::<EuchreError>(format!("threads: {error}")))
}

/// Refuses a number of hands that is not an even number of at least 2.
pub(crate) fn check_hands(hands: u64) -> PyResult<()> {
    if hands < 2 || !hands.is_multiple_of(2) {
        return Err(raise::<EuchreError>(format!(
            "hands: {hands}; an even number of at least 2, since each deal is played twice with the seats swapped"
        )));
    }
    Ok(())
}

/// Refuses no pairs of games, or a target no game is played to.
pub(crate) fn check_games(pairs: u64, target: u8) -> PyResult<()> {
    if pairs == 0 {
        return Err(raise::<EuchreError>(
            "pairs: 0; at least one sequence of deals",
        ));
    }
    if !(1..=100).contains(&target) {
        return Err(raise::<EuchreError>(format!(
            "target: {target}; a game is to 1 to 100 points"
        )));
    }
    Ok(())
}

/// The two sides, built for `rules`.
fn sides(
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    rules: Rules,
    unseen: &str,
) -> PyResult<[Side; 2]> {
    let unseen = unseen_of(unseen)?;
    Ok([Side::of(a, rules, unseen)?, Side::of(b, rules, unseen)?])
}

/// Runs `play` over `0..count` in pieces on `pool`, checking between them
/// for Ctrl-C and for a Python side's failure.
pub(crate) fn in_pieces<T: Send>(
    py: Python<'_>,
    pool: &ThreadPool,
    sides: &[Side],
    count: u64,
    play: impl Fn(Range<u64>) -> Vec<T> + Sync,
) -> PyResult<Vec<T>> {
    let piece = PIECE_ROUNDS * pool.current_num_threads() as u64;
    let mut all = Vec::with_capacity(count as usize);
    let mut start = 0;
    while start < count {
        let end = (start + piece).min(count);
        all.extend(py.detach(|| pool.install(|| play(start..end))));
        if let Some(failure) = sides.iter().find_map(Side::failure) {
            return Err(failure);
        }
        py.check_signals()?;
        start = end;
    }
    Ok(all)
}

/// A duplicate match: `hands` hands (an even number: each deal is played
/// twice with the seats swapped), the same deals as `trainer eval --hands
/// HANDS --seed SEED`. Returns A's points a hand minus B's with its 95%
/// interval, each side's points a hand, A's share, games to 10 chained
/// over each table's hands, and how often each side made trump, went
/// alone, was euchred and defended alone.
#[pyfunction]
#[pyo3(signature = (a, b, hands = 1000, seed = 1, rules = None, unseen = "uniform", threads = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn duplicate_match<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    hands: u64,
    seed: u64,
    rules: Option<&Bound<'py, PyDict>>,
    unseen: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    check_hands(hands)?;
    let rules = rules_of(rules)?;
    let sides = sides(a, b, rules, unseen)?;
    let [bot_a, bot_b] = [sides[0].bot(), sides[1].bot()];
    let pool = pool(threads)?;
    let results: Vec<DealResult> = in_pieces(py, &pool, &sides, hands / 2, |deals| {
        run_deals(&bot_a, &bot_b, rules, deals, seed, &|| {})
    })?;
    let summary = summarise(&results);
    let dict = PyDict::new(py);
    names(&dict, &bot_a, &bot_b)?;
    dict.set_item("hands", summary.hands)?;
    dict.set_item("seed", seed)?;
    dict.set_item("net_per_hand", summary.net_per_hand)?;
    dict.set_item("net_interval", summary.net_interval)?;
    dict.set_item("points_per_hand", summary.points_per_hand.to_vec())?;
    dict.set_item("point_share", summary.point_share)?;
    dict.set_item("games_won_chained", summary.games_won.to_vec())?;
    dict.set_item("made_trump", summary.made_trump.to_vec())?;
    dict.set_item("alone", summary.alone.to_vec())?;
    dict.set_item("euchred", summary.euchred.to_vec())?;
    dict.set_item("defended_alone", summary.defended_alone.to_vec())?;
    Ok(dict)
}

/// Duplicate games to `target`, every bot seeing the score: `pairs`
/// sequences of deals, each played as two games with the seats swapped,
/// the same games as `trainer eval --games PAIRS --seed SEED`. Returns
/// A's share of the games with its 95% interval (the headline), games won
/// by each side and unfinished, and points a hand beside.
#[pyfunction]
#[pyo3(signature = (a, b, pairs = 100, target = 10, seed = 1, rules = None, unseen = "uniform", threads = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn duplicate_games<'py>(
    py: Python<'py>,
    a: &Bound<'py, PyAny>,
    b: &Bound<'py, PyAny>,
    pairs: u64,
    target: u8,
    seed: u64,
    rules: Option<&Bound<'py, PyDict>>,
    unseen: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    check_games(pairs, target)?;
    let rules = rules_of(rules)?;
    let sides = sides(a, b, rules, unseen)?;
    let [bot_a, bot_b] = [sides[0].bot(), sides[1].bot()];
    let pool = pool(threads)?;
    let played: Vec<GamePair> = in_pieces(py, &pool, &sides, pairs, |games| {
        run_games(&bot_a, &bot_b, rules, target, games, seed, &|| {})
    })?;
    let summary = summarise_games(&played);
    let dict = PyDict::new(py);
    names(&dict, &bot_a, &bot_b)?;
    dict.set_item("games", summary.games)?;
    dict.set_item("target", target)?;
    dict.set_item("seed", seed)?;
    dict.set_item("a_won", summary.a_won)?;
    dict.set_item("b_won", summary.b_won)?;
    dict.set_item("unfinished", summary.unfinished)?;
    dict.set_item("share", summary.share)?;
    dict.set_item("share_interval", summary.share_interval)?;
    dict.set_item("hands", summary.hands)?;
    dict.set_item("net_per_hand", summary.net_per_hand)?;
    dict.set_item("net_interval", summary.net_interval)?;
    Ok(dict)
}

pub(crate) fn names(dict: &Bound<'_, PyDict>, a: &Arc<dyn Bot>, b: &Arc<dyn Bot>) -> PyResult<()> {
    dict.set_item("a", a.name())?;
    dict.set_item("b", b.name())?;
    let warnings: Vec<String> = a.warnings().into_iter().chain(b.warnings()).collect();
    dict.set_item("warnings", warnings)
}
