//! `trainer search-bids`: the strongest bot's searched bids decided once
//! per key and kept in a run's exported policy, so that one lookup plays
//! them (`euchre_bots::searched_bids`).
//!
//! The search runs on every core, a chunk of keys at a time in key order.
//! Each finished chunk is appended to `search-bids.partial` in the run
//! directory with its own checksum, so a stopped or crashed run resumes at
//! the first chunk not written whole; the policy file is replaced, in one
//! atomic write, only when every key is decided.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, bail};
use euchre_bots::bots::policy::Unseen;
use euchre_bots::meta::{BidChoice, BlueprintSource, SearchedBids};
use euchre_bots::policy_file::PolicyFile;
use euchre_bots::searched_bids::{decide, unsure_keys};
use euchre_bots::spec::from_spec;
use indicatif::{ProgressBar, ProgressDrawTarget};
use rayon::prelude::*;
use store::Key;

use crate::format::{bytes, thousands};
use crate::training::run_dir::{POLICY_FILE, RunDir, stage_dir};
use crate::training::terminal::set_template;

/// Keys decided between two appends to the progress file.
const CHUNK: usize = 2048;
const PARTIAL_FILE: &str = "search-bids.partial";
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
    // Held to the end: an export or a second search would rewrite the
    // policy or the progress file under this one.
    let _lock = RunDir::lock(&request.run_dir)?;
    let policy_path = request.run_dir.join(POLICY_FILE);
    let policy = PolicyFile::load(&policy_path).with_context(|| {
        format!(
            "reading the run's policy; export it first (trainer export --run-dir {})",
            request.run_dir.display()
        )
    })?;
    // Full play's bids come from its bidding stage; a bidding run's are
    // its own.
    let stage = stage_dir(&request.run_dir).join(POLICY_FILE);
    let blueprint_path = if stage.exists() {
        stage
    } else {
        policy_path.clone()
    };
    let blueprint = PolicyFile::load(&blueprint_path)
        .with_context(|| format!("reading the blueprint {}", blueprint_path.display()))?;
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
    let bot = from_spec(&spec, policy.meta.recipe.rules, Unseen::Heuristic)?;
    let keys = unsure_keys(&blueprint);
    let header = Header {
        blueprint: blueprint.checksum(),
        worlds: request.worlds,
    };
    let partial_path = request.run_dir.join(PARTIAL_FILE);
    let progress = read_partial(&partial_path, &header, partial_limit(keys.len()))?;
    let mut partial = open_partial(&partial_path, &header, progress.as_ref())?;
    let mut decided = progress
        .map(|progress| progress.decided)
        .unwrap_or_default();
    let resumed = decided.len();
    if resumed > keys.len() {
        bail!(
            "{} holds more keys than the blueprint has to decide; delete it to start over",
            partial_path.display()
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
    let bar = progress_bar(request.progress, keys.len(), resumed);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(request.threads)
        .build()
        .context("starting the search's threads")?;
    let started = Instant::now();
    for chunk in keys[resumed..].chunks(CHUNK) {
        let rows: Vec<(Key, u8)> = pool.install(|| {
            chunk
                .par_iter()
                .map(|&key| {
                    let slot = decide(bot.as_ref(), &blueprint, key, SEED).unwrap_or(usize::MAX);
                    (key, u8::try_from(slot).unwrap_or(u8::MAX))
                })
                .collect()
        });
        append_chunk(&mut partial, &rows)
            .with_context(|| format!("saving progress to {}", partial_path.display()))?;
        decided.extend(rows);
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    let searched: Vec<(Key, usize)> = decided
        .iter()
        .filter(|&&(_, slot)| slot != u8::MAX)
        .map(|&(key, slot)| (key, usize::from(slot)))
        .collect();
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
            checksum: blueprint.checksum(),
            iterations: blueprint.meta.iterations,
            choice: BidChoice::Argmax,
        },
        keys: searched.len() as u64,
        changed,
    };
    let before = std::fs::metadata(&policy_path).map_or(0, |m| m.len());
    policy.write_with_searched(&searched, info, &policy_path)?;
    let after = std::fs::metadata(&policy_path).map_or(0, |m| m.len());
    std::fs::remove_file(&partial_path).ok();
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
        "wrote {} ({} before, {} now); play it with policy-argmax:{}",
        policy_path.display(),
        bytes(before),
        bytes(after),
        policy_path.display()
    );
    Ok(())
}

/// The blueprint's most likely bid at `key`, as an index among its actions.
/// Padding slots past a key's actions hold zero, so the row's argmax is
/// the key's.
fn blueprint_choice(blueprint: &PolicyFile, key: Key) -> Option<usize> {
    let mut row = [0.0; store::MAX_ACTIONS];
    blueprint
        .probabilities(key, &mut row)
        .then(|| euchre_bots::policy_file::most_likely(&row))
}

fn progress_bar(progress: bool, total: usize, done: usize) -> ProgressBar {
    let target = if progress {
        ProgressDrawTarget::stderr_with_hz(4)
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total as u64), target);
    set_template(
        &bar,
        "{elapsed_precise} [{bar:30}] {pos}/{len} keys, {per_sec}, eta {eta}",
    );
    bar.set_position(done as u64);
    bar
}

/// What a progress file was started for: resuming it for another
/// blueprint or number of worlds would mix two searches. The decisions
/// depend on nothing else (the policy they are written into is read only
/// at the end), so a policy exported again keeps the progress.
#[derive(Debug, PartialEq, Eq)]
struct Header {
    blueprint: u32,
    worlds: u32,
}

impl Header {
    fn bytes(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        for value in [self.blueprint, self.worlds] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }
}

/// What a progress file holds: the keys decided in every chunk written
/// whole, and where the last of those chunks ends (a torn chunk after it,
/// from a crash mid-append, is cut off and decided again).
#[derive(Debug, Default)]
struct Progress {
    decided: Vec<(Key, u8)>,
    whole: u64,
}

/// The progress file's bytes when all `keys` are decided, one chunk each
/// `CHUNK` of them: a larger file is not one this command wrote.
fn partial_limit(keys: usize) -> u64 {
    (MAGIC.len() + 8 + keys * 17 + keys.div_ceil(CHUNK) * 8) as u64
}

/// The progress at `path`, read once through the hardened reader (a FIFO,
/// a device or an oversized file is refused, never waited on); `None`
/// when there is no progress file.
fn read_partial(path: &Path, header: &Header, limit: u64) -> anyhow::Result<Option<Progress>> {
    match std::fs::symlink_metadata(path) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => {}
    }
    let bytes = store::read_bounded_with(path, limit, store::Links::Refuse)
        .context("reading the progress file; delete it to start over")?;
    let expected = header.bytes();
    if !bytes.starts_with(&expected) {
        bail!(
            "{} was started for another blueprint or number of worlds (or is not a progress file); delete it to start over",
            path.display()
        );
    }
    let mut progress = Progress::default();
    let mut at = expected.len();
    while let Some(rows) = chunk_at(&bytes, &mut at) {
        progress.decided.extend(rows);
    }
    progress.whole = at as u64;
    Ok(Some(progress))
}

/// The chunk at `at` if it is whole and its checksum holds; moves `at`
/// past it.
fn chunk_at(bytes: &[u8], at: &mut usize) -> Option<Vec<(Key, u8)>> {
    let count = u32::from_le_bytes(bytes.get(*at..*at + 4)?.try_into().ok()?) as usize;
    let body = bytes.get(*at..*at + 4 + count * 17)?;
    let end = *at + 4 + count * 17;
    let crc = u32::from_le_bytes(bytes.get(end..end + 4)?.try_into().ok()?);
    if crc32fast::hash(body) != crc {
        return None;
    }
    let rows = body[4..]
        .chunks_exact(17)
        .map(|row| {
            let key = u128::from_le_bytes(row[..16].try_into().expect("16 bytes"));
            (key, row[16])
        })
        .collect();
    *at = end + 4;
    Some(rows)
}

/// The progress file opened to append after its last whole chunk, or
/// created with its header when there is none.
fn open_partial(path: &Path, header: &Header, progress: Option<&Progress>) -> anyhow::Result<File> {
    let context = || format!("opening {}", path.display());
    let whole = match progress {
        Some(progress) => progress.whole,
        None => {
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .with_context(context)?;
            file.write_all(&header.bytes()).with_context(context)?;
            file.sync_data().with_context(context)?;
            header.bytes().len() as u64
        }
    };
    let file = OpenOptions::new()
        .append(true)
        .open(path)
        .with_context(context)?;
    file.set_len(whole).with_context(context)?;
    Ok(file)
}

fn append_chunk(file: &mut File, rows: &[(Key, u8)]) -> std::io::Result<()> {
    let mut body = Vec::with_capacity(4 + rows.len() * 17 + 4);
    body.extend_from_slice(&(rows.len() as u32).to_le_bytes());
    for (key, slot) in rows {
        body.extend_from_slice(&key.to_le_bytes());
        body.push(*slot);
    }
    let crc = crc32fast::hash(&body);
    body.extend_from_slice(&crc.to_le_bytes());
    file.write_all(&body)?;
    file.sync_data()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chunk torn by a crash is dropped, the whole ones before it kept,
    /// and the next append follows the last whole chunk.
    #[test]
    fn a_torn_chunk_is_dropped_and_the_whole_ones_resume() {
        let dir = std::env::temp_dir().join(format!("search-bids-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(PARTIAL_FILE);
        std::fs::remove_file(&path).ok();
        let header = Header {
            blueprint: 1,
            worlds: 3,
        };
        let limit = partial_limit(100);
        let mut file = open_partial(&path, &header, None).unwrap();
        append_chunk(&mut file, &[(5, 0), (9, 2)]).unwrap();
        append_chunk(&mut file, &[(12, 1)]).unwrap();
        drop(file);
        let length = std::fs::metadata(&path).unwrap().len();
        // Tear the last chunk's checksum.
        OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(length - 2)
            .unwrap();
        let torn = read_partial(&path, &header, limit).unwrap().unwrap();
        assert_eq!(torn.decided, [(5, 0), (9, 2)]);
        let mut file = open_partial(&path, &header, Some(&torn)).unwrap();
        append_chunk(&mut file, &[(12, 2)]).unwrap();
        drop(file);
        let resumed = read_partial(&path, &header, limit).unwrap().unwrap();
        assert_eq!(resumed.decided, [(5, 0), (9, 2), (12, 2)]);
        let other = Header {
            worlds: 4,
            ..header
        };
        let refused = read_partial(&path, &other, limit).unwrap_err().to_string();
        assert!(refused.contains("delete it to start over"), "{refused}");
        let oversized = read_partial(&path, &header, 10).unwrap_err();
        assert!(
            format!("{oversized:#}").contains("delete it"),
            "{oversized:#}"
        );
        std::fs::remove_file(&path).unwrap();
        assert!(read_partial(&path, &header, limit).unwrap().is_none());
        std::fs::remove_dir_all(&dir).ok();
    }
}
