//! `trainer search-bids`: the strongest bot's searched bids decided once
//! per key and kept in a run's exported policy, so that one lookup plays
//! them (`euchre_bots::searched_bids`).
//!
//! The search runs on every core, a chunk of keys at a time in key order.
//! Each finished chunk is appended to `search-bids-CHECKSUM-WORLDSw.progress`
//! in the run directory with its own checksum, so a stopped or crashed run
//! resumes at the first chunk not written whole; the policy file is
//! replaced, in one atomic write, only when every key is decided. The
//! progress file is kept: the bids depend on the blueprint and the worlds
//! only, so after more training and `trainer export` the same command puts
//! them back in seconds.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, bail};
use euchre_bots::bots::policy::Unseen;
use euchre_bots::meta::{BidChoice, BlueprintSource, SearchedBids};
use euchre_bots::policy_file::{PolicyFile, most_likely};
use euchre_bots::searched_bids::{decide, unsure_keys};
use euchre_bots::spec::from_spec_sharing;
use euchre_game::keys::InfoKey;
use euchre_game::keys::bidding;
use store::Key;

use super::search_progress::{
    Decided, Header, ProgressFile, RunPolicy, decide_in_chunks, progress_bar, progress_limit,
    rebuilt,
};
use crate::format::{bytes, thousands};
use crate::training::run_dir::{POLICY_FILE, stage_dir};

/// Keys decided between two appends to the progress file.
const CHUNK: usize = 2048;
/// The progress file's name before its blueprint and worlds.
const PROGRESS_STEM: &str = "search-bids";
const MAGIC: &[u8; 16] = b"searched-bids-1\n";
/// Seeds each key's worlds (mixed with the key).
const SEED: u64 = 0x5ea7_c4ed_b1d5;

/// What `trainer search-bids` is asked.
#[derive(Debug)]
pub struct Request {
    pub run_dir: PathBuf,
    pub worlds: u32,
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
    // Full play's bids come from its bidding stage; a bidding run's are
    // its own.
    let stage = stage_dir(&request.run_dir).join(POLICY_FILE);
    let (blueprint_path, blueprint) = if stage.exists() {
        let blueprint = Arc::new(
            PolicyFile::load(&stage)
                .with_context(|| format!("reading the blueprint {}", stage.display()))?,
        );
        loaded.insert(&stage, Arc::clone(&blueprint));
        (stage, blueprint)
    } else {
        (policy_path.clone(), Arc::clone(&policy))
    };
    // What the decisions depend on. A bidding run's blueprint is its own
    // policy, whose checksum changes when searched bids are written into
    // it while the rows a search reads (the plain keys) do not: it is
    // named by the checksum it had before the first search.
    let blueprint_checksum = match &policy.meta.searched_bids {
        Some(info) if Arc::ptr_eq(&blueprint, &policy) => info.blueprint.checksum,
        _ => blueprint.checksum(),
    };
    let blueprint_path = std::path::absolute(&blueprint_path).unwrap_or(blueprint_path);
    if blueprint.meta.recipe.rules != policy.meta.recipe.rules {
        bail!(
            "{} was trained under {} but the policy under {}; export the run again",
            blueprint_path.display(),
            blueprint.meta.recipe.rules,
            policy.meta.recipe.rules
        );
    }
    let spec = format!(
        "search-bids:{}:{}",
        request.worlds,
        blueprint_path.display()
    );
    let bot = from_spec_sharing(&spec, policy.meta.recipe.rules, Unseen::Heuristic, &loaded)?;
    let keys = unsure_keys(&blueprint);
    let (mut progress_file, mut decided) =
        open_progress(request, &policy_path, &policy, blueprint_checksum, &keys)?;
    let resumed = decided.len();
    if resumed > keys.len() {
        bail!(
            "{} holds more keys than the blueprint has to decide; delete it to start over",
            progress_file.path().display()
        );
    }
    println!(
        "deciding {} bids the blueprint is unsure of ({} of its keys), {} worlds each, on {} threads{}",
        thousands(keys.len() as u64),
        thousands(blueprint.len() as u64),
        request.worlds,
        request.threads,
        if resumed > 0 {
            format!("; {} already decided", thousands(resumed as u64))
        } else {
            String::new()
        }
    );
    let bar = progress_bar(request.progress, keys.len(), resumed, "keys");
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(request.threads)
        .build()
        .context("starting the search's threads")?;
    let started = Instant::now();
    decide_in_chunks(
        &pool,
        &keys[resumed..],
        CHUNK,
        |key| decide(bot.as_ref(), &blueprint, key, SEED),
        &mut progress_file,
        &mut decided,
        &bar,
    )?;
    let seconds = started.elapsed().as_secs_f64();
    let searched = rebuilt(&decided);
    let changed = searched
        .iter()
        .filter(|&&(key, slot)| blueprint_choice(&blueprint, key) != Some(slot))
        .count() as u64;
    let info = SearchedBids {
        bot: format!(
            "search-bids:{}:{}",
            request.worlds,
            blueprint_path
                .file_name()
                .map_or_else(String::new, |name| name.to_string_lossy().into_owned())
        ),
        blueprint: BlueprintSource {
            path: blueprint_path.clone(),
            checksum: blueprint_checksum,
            iterations: blueprint.meta.iterations,
            choice: BidChoice::Argmax,
        },
        keys: searched.len() as u64,
        changed,
    };
    let before = std::fs::metadata(&policy_path).map_or(0, |m| m.len());
    policy.write_with_searched(&searched, info, &policy_path)?;
    let after = std::fs::metadata(&policy_path).map_or(0, |m| m.len());
    println!(
        "decided {} bids in {:.0} s this session ({:.0} a second); the search bids otherwise than the blueprint's most likely bid at {} of them ({:.1}%)",
        thousands((decided.len() - resumed) as u64),
        seconds,
        (decided.len() - resumed) as f64 / seconds.max(1e-9),
        thousands(changed),
        100.0 * changed as f64 / searched.len().max(1) as f64
    );
    let unrebuilt = decided.len() - searched.len();
    if unrebuilt > 0 {
        println!(
            "{} keys did not rebuild a view and keep the blueprint's bid",
            thousands(unrebuilt as u64)
        );
    }
    println!(
        "wrote {} ({} before, {} now); play it with policy-argmax:{}; the bids are kept in {}, so after another export this command puts them back in seconds",
        policy_path.display(),
        bytes(before),
        bytes(after),
        policy_path.display(),
        progress_file.path().display()
    );
    Ok(())
}

/// The progress file of the bids over this blueprint and these worlds,
/// and the keys already decided: those the file holds or, where it holds
/// none, those an older binary left in the policy ([`held_by_policy`]),
/// written into the file. The decisions depend on the blueprint and the
/// worlds only (the policy they go into is read only at the end), so a
/// policy exported again keeps them.
fn open_progress(
    request: &Request,
    policy_path: &std::path::Path,
    policy: &PolicyFile,
    blueprint_checksum: u32,
    keys: &[Key],
) -> anyhow::Result<(ProgressFile, Vec<Decided>)> {
    let header = Header {
        magic: MAGIC,
        values: vec![blueprint_checksum, request.worlds],
    };
    let (mut progress_file, decided) = ProgressFile::open_in(
        &request.run_dir,
        PROGRESS_STEM,
        &format!("{blueprint_checksum:08x}-{}w", request.worlds),
        &header,
        progress_limit(&header, keys.len(), CHUNK),
    )?;
    if !decided.is_empty() {
        return Ok((progress_file, decided));
    }
    let held = held_by_policy(policy, blueprint_checksum, request.worlds, keys);
    if !held.is_empty() {
        for chunk in held.chunks(CHUNK) {
            progress_file.append(chunk)?;
        }
        println!(
            "took the {} bids {} already holds for this blueprint and these worlds into {}",
            thousands(held.len() as u64),
            policy_path.display(),
            progress_file.path().display()
        );
    }
    Ok((progress_file, held))
}

/// The decisions an earlier search left in the policy itself, for a run
/// whose progress file is gone (binaries before 2026-12-01 deleted it once
/// the policy held the bids): the policy's searched bid at each of `keys`,
/// when it says it holds bids searched over this blueprint and these
/// worlds, in the keys' order; empty otherwise. A key without a searched
/// row did not rebuild a view when it was decided.
fn held_by_policy(
    policy: &PolicyFile,
    blueprint_checksum: u32,
    worlds: u32,
    keys: &[Key],
) -> Vec<Decided> {
    let Some(info) = &policy.meta.searched_bids else {
        return Vec::new();
    };
    if info.blueprint.checksum != blueprint_checksum
        || !info.bot.starts_with(&format!("search-bids:{worlds}:"))
    {
        return Vec::new();
    }
    let mut row = [0.0; store::MAX_ACTIONS];
    keys.iter()
        .map(|&key| {
            let tagged = bidding::searched(InfoKey(key)).0;
            let slot = policy
                .probabilities(tagged, &mut row)
                .then(|| most_likely(&row) as u8);
            (key, slot.unwrap_or(u8::MAX))
        })
        .collect()
}

/// The blueprint's most likely bid at `key`, as an index among its actions.
/// Padding slots past a key's actions hold zero, so the row's argmax is
/// the key's.
fn blueprint_choice(blueprint: &PolicyFile, key: Key) -> Option<usize> {
    let mut row = [0.0; store::MAX_ACTIONS];
    blueprint
        .probabilities(key, &mut row)
        .then(|| most_likely(&row))
}
