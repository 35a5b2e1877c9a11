//! `trainer search-leads`: the strongest bot's opening leads decided once
//! per key and kept in a run's exported policy, so that one lookup plays
//! them (`euchre_bots::searched_leads`).
//!
//! There are about 3.3 M lead keys and a lead's search takes about 12 ms of
//! a core at 100 worlds, so the command weighs the keys first: it deals
//! hands, lets the policy's own bids finish each auction, counts the leads
//! met, and decides the most common `--keys` of them, most common first.
//! Progress is saved a chunk at a time (`search-leads-ITERATIONSit-WORLDSw.progress`)
//! and kept after the policy is written, so that asking for more keys
//! later, or writing the leads into the same table exported again, goes on
//! from there; a table trained further starts a file of its own.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, bail};
use euchre_bots::bots::policy::Unseen;
use euchre_bots::meta::SearchedLeads;
use euchre_bots::phase::Phase;
use euchre_bots::policy_file::{PolicyFile, most_likely};
use euchre_bots::searched_leads::{decide, keys_by_mass, lead_state};
use euchre_bots::spec::from_spec_sharing;
use euchre_game::engine::rules::Rules;
use euchre_game::keys::lead::lead_decision;
use rayon::prelude::*;
use store::Key;

use super::search_progress::{
    Header, ProgressFile, RunPolicy, decide_in_chunks, progress_bar, progress_limit, rebuilt,
};
use crate::format::{bytes, thousands};
use crate::training::run_dir::POLICY_FILE;

/// Keys decided between two appends to the progress file.
const CHUNK: usize = 1024;
/// The progress file's name before its table's iterations and worlds.
const PROGRESS_STEM: &str = "search-leads";
const MAGIC: &[u8; 16] = b"searched-lead-1\n";
/// Seeds each key's worlds (mixed with the key).
const SEED: u64 = 0x1ead_5ea7_c4ed;
/// Seeds the hands dealt to weigh the keys.
const DEALS_SEED: u64 = 0xdea1_5eed;
/// The most lead keys any rules give (3.3 M under the default rules; the
/// rule options add lone defenders and the dealer's own discard): a bound
/// on the progress file's size.
const MOST_KEYS: usize = 16_000_000;

/// What `trainer search-leads` is asked.
#[derive(Debug)]
pub struct Request {
    pub run_dir: PathBuf,
    pub worlds: u32,
    /// Hands dealt to weigh the keys.
    pub deals: u64,
    /// How many of the most common keys to decide.
    pub keys: usize,
    pub threads: usize,
    pub progress: bool,
}

pub fn run(request: &Request) -> anyhow::Result<()> {
    let RunPolicy {
        _lock,
        path: policy_path,
        policy,
        loaded,
    } = RunPolicy::open(&request.run_dir)?;
    if policy.meta.recipe.phase != Phase::FullPlay {
        bail!(
            "{} is a {} policy: the opening lead is searched on a full-play table (trainer --phase full-play)",
            policy_path.display(),
            policy.meta.recipe.phase
        );
    }
    let rules = policy.meta.recipe.rules;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(request.threads)
        .build()
        .context("starting the search's threads")?;
    let table = from_spec_sharing(
        &format!("policy-argmax:{}", policy_path.display()),
        rules,
        Unseen::Heuristic,
        &loaded,
    )?;
    let started = Instant::now();
    let weighed = pool.install(|| keys_by_mass(table.as_ref(), rules, request.deals, DEALS_SEED));
    let leads: u64 = weighed.iter().map(|(_, count)| count).sum();
    println!(
        "weighed the opening leads of {} hands dealt (the policy's own bids finishing each auction) in {:.0} s: {} distinct keys",
        thousands(request.deals),
        started.elapsed().as_secs_f64(),
        thousands(weighed.len() as u64)
    );
    print_coverage(&weighed, leads);
    let wanted = &weighed[..request.keys.min(weighed.len())];
    let header = Header {
        magic: MAGIC,
        values: vec![
            policy.meta.iterations as u32,
            (policy.meta.iterations >> 32) as u32,
            request.worlds,
        ],
    };
    let (mut progress_file, mut decided) = ProgressFile::open_in(
        &request.run_dir,
        PROGRESS_STEM,
        &format!("{}it-{}w", policy.meta.iterations, request.worlds),
        &header,
        progress_limit(&header, MOST_KEYS, CHUNK),
    )?;
    let done: std::collections::HashSet<Key> = decided.iter().map(|&(key, _)| key).collect();
    let todo: Vec<Key> = wanted
        .iter()
        .map(|&(key, _)| key)
        .filter(|key| !done.contains(key))
        .collect();
    let spec = format!(
        "search:{},blend,trust=50:{}",
        request.worlds,
        policy_path.display()
    );
    let bot = from_spec_sharing(&spec, rules, Unseen::Heuristic, &loaded)?;
    println!(
        "deciding the {} most common leads ({} already decided), {} worlds each, on {} threads",
        thousands(wanted.len() as u64),
        thousands((wanted.len() - todo.len()) as u64),
        request.worlds,
        request.threads
    );
    let bar = progress_bar(
        request.progress,
        wanted.len(),
        wanted.len() - todo.len(),
        "leads",
    );
    let searching = Instant::now();
    decide_in_chunks(
        &pool,
        &todo,
        CHUNK,
        |key| decide(bot.as_ref(), rules, key, SEED),
        &mut progress_file,
        &mut decided,
        &bar,
    )?;
    let seconds = searching.elapsed().as_secs_f64();
    let searched = rebuilt(&decided);
    let changed = pool.install(|| {
        searched
            .par_iter()
            .filter(|&&(key, slot)| table_lead(&policy, rules, key) != Some(slot))
            .count() as u64
    });
    let counts: std::collections::HashMap<Key, u64> = weighed.iter().copied().collect();
    let covered: u64 = searched.iter().filter_map(|(key, _)| counts.get(key)).sum();
    let mass = covered as f64 / leads.max(1) as f64;
    let info = SearchedLeads {
        bot: format!("search:{},blend,trust=50:{POLICY_FILE}", request.worlds),
        keys: searched.len() as u64,
        changed,
        deals: request.deals,
        mass,
    };
    let before = std::fs::metadata(&policy_path).map_or(0, |m| m.len());
    policy.write_with_searched_leads(&searched, info, &policy_path)?;
    let after = std::fs::metadata(&policy_path).map_or(0, |m| m.len());
    println!(
        "decided {} leads in {:.0} s this session ({:.0} a second); they cover {:.1}% of the leads dealt; the search leads another card than the table's at {} of them ({:.1}%)",
        thousands(todo.len() as u64),
        seconds,
        todo.len() as f64 / seconds.max(1e-9),
        100.0 * mass,
        thousands(changed),
        100.0 * changed as f64 / searched.len().max(1) as f64
    );
    let unrebuilt = decided.len() - searched.len();
    if unrebuilt > 0 {
        println!(
            "{} keys did not rebuild a hand and keep the table's lead",
            thousands(unrebuilt as u64)
        );
    }
    println!(
        "wrote {} ({} before, {} now); play it with policy-argmax:{}; ask for more keys with a larger --keys (progress is kept in {})",
        policy_path.display(),
        bytes(before),
        bytes(after),
        policy_path.display(),
        progress_file.path().display()
    );
    Ok(())
}

/// How much of the dealt leads the most common keys cover, at a few
/// counts of keys: what a larger `--keys` buys.
fn print_coverage(weighed: &[(Key, u64)], leads: u64) {
    let mut line = String::from("the most common keys cover");
    let mut covered = 0u64;
    let mut marks = [10_000usize, 30_000, 100_000, 300_000, 1_000_000, 3_000_000]
        .into_iter()
        .peekable();
    for (rank, (_, count)) in weighed.iter().enumerate() {
        covered += count;
        if marks.peek() == Some(&(rank + 1)) {
            line.push_str(&format!(
                " {}: {:.1}%,",
                thousands((rank + 1) as u64),
                100.0 * covered as f64 / leads.max(1) as f64
            ));
            marks.next();
        }
    }
    line.push_str(&format!(
        " all {}: 100% of the leads dealt",
        thousands(weighed.len() as u64)
    ));
    println!("{line}");
}

/// The table's own lead at `key` (its most likely card under the plain
/// play key, whatever leads the file already holds), as an index among
/// the key's cards.
fn table_lead(policy: &PolicyFile, rules: Rules, key: Key) -> Option<usize> {
    let (state, _) = lead_state(key, rules)?;
    let lead = lead_decision(&state)?;
    let plain = policy.decision(&state)?;
    let width = plain.actions.len();
    let mut row = [0.0; store::MAX_ACTIONS];
    if !policy.probabilities(plain.key.0, &mut row[..width]) {
        return None;
    }
    let card = plain.actions[most_likely(&row[..width])];
    lead.actions.iter().position(|&action| action == card)
}
