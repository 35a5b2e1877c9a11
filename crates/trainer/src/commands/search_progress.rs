//! What the searches decided once per key (`search-bids`, `search-leads`)
//! share: the run's policy opened under the run's lock, the progress bar,
//! and the progress file, to which each finished chunk of decided keys is
//! appended with its own checksum, so a stopped or crashed search resumes
//! at the first chunk not written whole; the policy file itself is
//! replaced, in one atomic write, only by the command.
//!
//! A progress file is named by what its decisions depend on and is kept
//! once the policy holds them: `trainer export` writes a plain policy, and
//! the search run again afterwards puts its decisions back in seconds
//! rather than deciding every key again (for the bids, about 40 minutes
//! of both cores).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};
use euchre_bots::policy_file::PolicyFile;
use euchre_bots::spec::LoadedPolicies;
use indicatif::{ProgressBar, ProgressDrawTarget};
use store::Key;

use crate::training::run_dir::{POLICY_FILE, RunDir};
use crate::training::terminal::set_template;

/// A run's exported policy, opened for a search that will rewrite it: the
/// run's lock (held while it lives: an export or a second search would
/// rewrite the policy or the progress file under this one), the policy's
/// path and the policy, shared with the bots built over it through
/// `loaded` (a full-play policy is a gigabyte: loaded once, not once a
/// bot).
pub(super) struct RunPolicy {
    pub _lock: RunDir,
    pub path: PathBuf,
    pub policy: Arc<PolicyFile>,
    pub loaded: LoadedPolicies,
}

impl RunPolicy {
    pub(super) fn open(run_dir: &Path) -> anyhow::Result<RunPolicy> {
        let lock = RunDir::lock(run_dir)?;
        let path = run_dir.join(POLICY_FILE);
        let policy = Arc::new(PolicyFile::load(&path).with_context(|| {
            format!(
                "reading the run's policy; export it first (trainer export --run-dir {})",
                run_dir.display()
            )
        })?);
        let loaded = LoadedPolicies::default();
        loaded.insert(&path, Arc::clone(&policy));
        Ok(RunPolicy {
            _lock: lock,
            path,
            policy,
            loaded,
        })
    }
}

/// A bar of `total` keys (`what`: "keys", "leads"), `done` of them already
/// decided; hidden without `progress`.
pub(super) fn progress_bar(progress: bool, total: usize, done: usize, what: &str) -> ProgressBar {
    let target = if progress {
        ProgressDrawTarget::stderr_with_hz(4)
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(Some(total as u64), target);
    set_template(
        &bar,
        &format!(
            "{{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} {what}, {{per_sec}}, eta {{eta}}"
        ),
    );
    bar.set_position(done as u64);
    bar
}

/// One decided key: the key and the index of its decision among the key's
/// actions (`u8::MAX`: the key did not rebuild a view).
pub(super) type Decided = (Key, u8);

/// Bytes a decided key takes in the file.
const ROW: usize = 17;

/// What a progress file was started for: resuming it for another search
/// (another blueprint, table or number of worlds) would mix two searches.
/// `magic` names the kind of search, `values` what its decisions depend on.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub magic: &'static [u8; 16],
    pub values: Vec<u32>,
}

impl Header {
    fn bytes(&self) -> Vec<u8> {
        let mut bytes = self.magic.to_vec();
        for value in &self.values {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }
}

/// A progress file open to append, and the keys it already holds.
pub(super) struct ProgressFile {
    file: File,
    path: PathBuf,
}

impl ProgressFile {
    /// The progress file of the search `stem` ("search-bids") in `run_dir`
    /// for the decisions `header` names, called `STEM-DEPENDS.progress`
    /// (`depends`: what they depend on, readable, like "1c168608-100w"),
    /// so that another blueprint, table or number of worlds keeps a file
    /// of its own instead of being refused. An older binary's single
    /// `STEM.partial` holding these decisions is taken over.
    pub(super) fn open_in(
        run_dir: &Path,
        stem: &str,
        depends: &str,
        header: &Header,
        limit: u64,
    ) -> anyhow::Result<(ProgressFile, Vec<Decided>)> {
        let path = run_dir.join(format!("{stem}-{depends}.progress"));
        let legacy = run_dir.join(format!("{stem}.partial"));
        if !path.exists() && matches!(read_partial(&legacy, header, limit), Ok(Some(_))) {
            std::fs::rename(&legacy, &path)
                .with_context(|| format!("renaming {} to {}", legacy.display(), path.display()))?;
        }
        Self::open(&path, header, limit)
    }

    /// Where the file is.
    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// The progress file at `path` for `header`, created if there is none,
    /// with every key decided in its whole chunks (a torn chunk after
    /// them, from a crash mid-append, is cut off and decided again). A
    /// file larger than `limit` bytes, or started for another search, is
    /// refused with the fix named.
    fn open(
        path: &Path,
        header: &Header,
        limit: u64,
    ) -> anyhow::Result<(ProgressFile, Vec<Decided>)> {
        let progress = read_partial(path, header, limit)?;
        let file = open_partial(path, header, progress.as_ref())?;
        let decided = progress.map(|p| p.decided).unwrap_or_default();
        Ok((
            ProgressFile {
                file,
                path: path.to_owned(),
            },
            decided,
        ))
    }

    /// Appends one chunk of decided keys, synced before it returns.
    pub(super) fn append(&mut self, rows: &[Decided]) -> anyhow::Result<()> {
        append_chunk(&mut self.file, rows)
            .with_context(|| format!("saving progress to {}", self.path.display()))
    }
}

/// Decides `keys` `chunk` at a time on `pool` (`decide`: a key's action
/// index, `None` for a key that did not rebuild), appending each chunk to
/// the progress file before it joins `decided`, and moving `bar` along.
pub(super) fn decide_in_chunks(
    pool: &rayon::ThreadPool,
    keys: &[Key],
    chunk: usize,
    decide: impl Fn(Key) -> Option<usize> + Sync,
    progress_file: &mut ProgressFile,
    decided: &mut Vec<Decided>,
    bar: &ProgressBar,
) -> anyhow::Result<()> {
    use rayon::prelude::*;
    for keys in keys.chunks(chunk) {
        let rows: Vec<Decided> = pool.install(|| {
            keys.par_iter()
                .map(|&key| {
                    let slot = decide(key).and_then(|slot| u8::try_from(slot).ok());
                    (key, slot.unwrap_or(u8::MAX))
                })
                .collect()
        });
        progress_file.append(&rows)?;
        decided.extend(rows);
        bar.inc(keys.len() as u64);
    }
    bar.finish_and_clear();
    Ok(())
}

/// The decided keys that rebuilt, each with its action index.
pub(super) fn rebuilt(decided: &[Decided]) -> Vec<(Key, usize)> {
    decided
        .iter()
        .filter(|&&(_, slot)| slot != u8::MAX)
        .map(|&(key, slot)| (key, usize::from(slot)))
        .collect()
}

/// The progress file's bytes when `keys` keys are decided in chunks of
/// `chunk`: a larger file is not one a search wrote.
pub(super) fn progress_limit(header: &Header, keys: usize, chunk: usize) -> u64 {
    (header.bytes().len() + keys * ROW + keys.div_ceil(chunk) * 8) as u64
}

/// What a progress file holds: the keys decided in every chunk written
/// whole, and where the last of those chunks ends.
#[derive(Debug, Default)]
struct Progress {
    decided: Vec<Decided>,
    whole: u64,
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
            "{} was not written by this search (it names another blueprint, table or number of worlds, or is not a progress file); delete it to start over",
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
fn chunk_at(bytes: &[u8], at: &mut usize) -> Option<Vec<Decided>> {
    let count = u32::from_le_bytes(bytes.get(*at..*at + 4)?.try_into().ok()?) as usize;
    let body = bytes.get(*at..*at + 4 + count * ROW)?;
    let end = *at + 4 + count * ROW;
    let crc = u32::from_le_bytes(bytes.get(end..end + 4)?.try_into().ok()?);
    if crc32fast::hash(body) != crc {
        return None;
    }
    let rows = body[4..]
        .chunks_exact(ROW)
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

fn append_chunk(file: &mut File, rows: &[Decided]) -> std::io::Result<()> {
    let mut body = Vec::with_capacity(4 + rows.len() * ROW + 4);
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
    /// and the next append follows the last whole chunk; a file started
    /// for another search, or larger than any search writes, is refused.
    #[test]
    fn a_torn_chunk_is_dropped_and_the_whole_ones_resume() {
        let dir = std::env::temp_dir().join(format!("search-progress-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("search.partial");
        std::fs::remove_file(&path).ok();
        let header = Header {
            magic: b"search-test-001\n",
            values: vec![1, 3],
        };
        let limit = progress_limit(&header, 100, 2);
        let (mut file, decided) = ProgressFile::open(&path, &header, limit).unwrap();
        assert!(decided.is_empty());
        file.append(&[(5, 0), (9, 2)]).unwrap();
        file.append(&[(12, 1)]).unwrap();
        drop(file);
        let length = std::fs::metadata(&path).unwrap().len();
        // Tear the last chunk's checksum.
        OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(length - 2)
            .unwrap();
        let (mut file, torn) = ProgressFile::open(&path, &header, limit).unwrap();
        assert_eq!(torn, [(5, 0), (9, 2)]);
        file.append(&[(12, 2)]).unwrap();
        drop(file);
        let (file, resumed) = ProgressFile::open(&path, &header, limit).unwrap();
        assert_eq!(resumed, [(5, 0), (9, 2), (12, 2)]);
        drop(file);
        let other = Header {
            values: vec![1, 4],
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

    /// Each set of decisions keeps a file named by what they depend on, so
    /// a second blueprint or number of worlds starts a file of its own and
    /// the first is still there to resume; an older binary's single
    /// `.partial` file is taken over when it holds these decisions and left
    /// alone when it holds another search's.
    #[test]
    fn decisions_keep_a_file_of_their_own_and_an_older_file_is_taken_over() {
        let dir = std::env::temp_dir().join(format!("search-named-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        std::fs::create_dir_all(&dir).unwrap();
        let header = |worlds| Header {
            magic: b"search-test-002\n",
            values: vec![7, worlds],
        };
        let limit = progress_limit(&header(100), 100, 2);
        let (mut first, _) =
            ProgressFile::open_in(&dir, "search-x", "7-100w", &header(100), limit).unwrap();
        assert_eq!(first.path(), dir.join("search-x-7-100w.progress"));
        first.append(&[(1, 0)]).unwrap();
        drop(first);
        let (second, decided) =
            ProgressFile::open_in(&dir, "search-x", "7-200w", &header(200), limit).unwrap();
        assert!(decided.is_empty());
        drop(second);
        let (_, kept) =
            ProgressFile::open_in(&dir, "search-x", "7-100w", &header(100), limit).unwrap();
        assert_eq!(kept, [(1, 0)]);

        // An older binary's file of another search's decisions is left
        // where it is; one of these decisions is renamed and resumed.
        let legacy = dir.join("search-x.partial");
        let (mut old, _) = ProgressFile::open(&legacy, &header(300), limit).unwrap();
        old.append(&[(4, 1)]).unwrap();
        drop(old);
        let (_, decided) =
            ProgressFile::open_in(&dir, "search-x", "7-400w", &header(400), limit).unwrap();
        assert!(decided.is_empty());
        assert!(legacy.exists());
        let (taken, resumed) =
            ProgressFile::open_in(&dir, "search-x", "7-300w", &header(300), limit).unwrap();
        assert_eq!(resumed, [(4, 1)]);
        assert_eq!(taken.path(), dir.join("search-x-7-300w.progress"));
        assert!(!legacy.exists());
        std::fs::remove_dir_all(&dir).ok();
    }
}
