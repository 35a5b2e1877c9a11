//! A round robin among a panel (specs, `Bot`s, Python callables), every
//! pair on the same duplicate deals or games, rated as `trainer arena`
//! rates it: Bradley-Terry shares against a bot of the panel's average
//! strength with 95% intervals from resampling the deals, each pair's
//! result, and each bot's weakest pairing.

use euchre_bots::arena::run_deals;
use euchre_bots::games::run_games;
use euchre_bots::round_robin::{
    GAMES_PRIOR, PairRecord, PairSummary, PairWins, REPLICATES, deal_points, ratings,
    summarise_pair, summarise_pair_games, weakest_pairings,
};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::bot::{Side, unseen_of};
use crate::errors::{EuchreError, raise};
use crate::matches::{check_games, check_hands, in_pieces, pool};
use crate::rules::rules_of;

/// A round robin of `bots` (a dict from name to side). Each pair plays
/// `hands` duplicate hands, or, given `games`, that many pairs of
/// duplicate games to `target`; deal `i` (game `i`) is the same for every
/// pair. Returns the pairs' results, the ratings and the weakest pairings.
#[pyfunction]
#[pyo3(signature = (bots, hands = 1000, games = None, target = 10, seed = 1, rules = None, unseen = "uniform", threads = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn arena<'py>(
    py: Python<'py>,
    bots: &Bound<'py, PyDict>,
    hands: u64,
    games: Option<u64>,
    target: u8,
    seed: u64,
    rules: Option<&Bound<'py, PyDict>>,
    unseen: &str,
    threads: Option<usize>,
) -> PyResult<Bound<'py, PyDict>> {
    if bots.len() < 2 {
        return Err(raise::<EuchreError>("bots: a panel has at least two"));
    }
    match games {
        Some(pairs) => check_games(pairs, target)?,
        None => check_hands(hands)?,
    }
    let rules = rules_of(rules)?;
    let unseen = unseen_of(unseen)?;
    let mut names = Vec::with_capacity(bots.len());
    let mut sides = Vec::with_capacity(bots.len());
    for (name, side) in bots.iter() {
        names.push(name.extract::<String>().map_err(|_| {
            raise::<EuchreError>("bots: a dict from each bot's name (a string) to its side")
        })?);
        sides.push(Side::of(&side, rules, unseen)?);
    }
    let pool = pool(threads)?;
    let units = games.unwrap_or(hands / 2);
    let mut records = Vec::new();
    for a in 0..sides.len() {
        for b in a + 1..sides.len() {
            let (bot_a, bot_b) = (sides[a].bot(), sides[b].bot());
            let mut record = PairRecord {
                a,
                b,
                deals: Vec::new(),
                games: Vec::new(),
                games_by_score: Default::default(),
            };
            if games.is_some() {
                record.games = in_pieces(py, &pool, &sides, units, |range| {
                    run_games(&bot_a, &bot_b, rules, target, range, seed, &|| {})
                })?;
            } else {
                let results = in_pieces(py, &pool, &sides, units, |range| {
                    run_deals(&bot_a, &bot_b, rules, range, seed, &|| {})
                })?;
                record.deals = results.iter().map(deal_points).collect();
            }
            records.push(record);
        }
    }
    let units = units as usize;
    let (summaries, wins): (Vec<PairSummary>, Vec<PairWins>) = records
        .iter()
        .map(|pair| match games {
            None => (summarise_pair(pair, units), pair.deal_wins(units)),
            Some(_) => (summarise_pair_games(pair, units), pair.game_wins(units)),
        })
        .unzip();
    let prior = if games.is_some() { GAMES_PRIOR } else { 0.0 };
    let rated = ratings(sides.len(), &wins, units, REPLICATES, seed, prior);
    let weakest = weakest_pairings(sides.len(), &summaries);

    let dict = PyDict::new(py);
    dict.set_item("bots", names.clone())?;
    dict.set_item("unit", if games.is_some() { "games" } else { "points" })?;
    let pairs = PyList::empty(py);
    for summary in &summaries {
        let row = PyDict::new(py);
        row.set_item("a", &names[summary.a])?;
        row.set_item("b", &names[summary.b])?;
        row.set_item("hands", summary.hands)?;
        row.set_item("games", summary.games)?;
        row.set_item("net_per_hand", summary.net_per_hand)?;
        row.set_item("net_interval", summary.net_interval)?;
        row.set_item("share", summary.share)?;
        row.set_item("share_interval", summary.share_interval)?;
        pairs.append(row)?;
    }
    dict.set_item("pairs", pairs)?;
    let ratings = PyList::empty(py);
    for (rating, weakest) in rated.iter().zip(&weakest) {
        let row = PyDict::new(py);
        row.set_item("bot", &names[rating.bot])?;
        row.set_item("share", rating.share)?;
        row.set_item("low", rating.low)?;
        row.set_item("high", rating.high)?;
        if let Some((against, share)) = weakest {
            row.set_item("weakest_against", &names[*against])?;
            row.set_item("weakest_share", share)?;
        }
        ratings.append(row)?;
    }
    dict.set_item("ratings", ratings)?;
    Ok(dict)
}
