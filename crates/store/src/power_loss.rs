//! Where the stores make data durable, and where power could be lost.
//!
//! Every store calls [`synced`] right after it makes a file's contents (or
//! a directory entry) durable (an `fsync`, an `msync`, a rename followed by
//! an `fsync` of its folder), and [`point`] wherever the machine could lose
//! power with work in flight. In a build for use both do nothing. The
//! store's own tests install a recorder ([`tests::Recorder`]) that keeps,
//! at every point, the directory as it is and as it is durable, and build
//! from each pair the states a power loss could leave: what was durable,
//! plus any subset of what was written since (page by page for the files
//! written in place, whole for the others). Each store must reopen every
//! such state at the checkpoint its manifest names, or refuse it by name;
//! never open it with other records.

use std::path::Path;

/// `path`'s contents (or its absence) as they are now are durable.
#[inline]
pub(crate) fn synced(path: &Path) {
    #[cfg(test)]
    tests::record_synced(path);
    #[cfg(not(test))]
    let _ = path;
}

/// Power could be lost here.
#[inline]
pub(crate) fn point() {
    #[cfg(test)]
    tests::record_point();
}

/// An LMDB write transaction on the data file at `path` is about to write.
#[cfg(feature = "lmdb")]
#[inline]
pub(crate) fn lmdb_commit_begun(path: &Path) {
    #[cfg(test)]
    tests::record_commit_begun(path);
    #[cfg(not(test))]
    let _ = path;
}

/// An LMDB commit on the data file at `path` returned, under
/// `MDB_NOMETASYNC`: LMDB wrote the transaction's pages, made the file
/// durable (the previous commit's meta page with it), then wrote this
/// commit's meta page without a sync. Power lost during the commit keeps
/// any subset of its pages under the old meta; power lost after it keeps
/// every page and maybe the new meta.
#[cfg(feature = "lmdb")]
#[inline]
pub(crate) fn lmdb_committed(path: &Path) {
    #[cfg(test)]
    tests::record_committed(path);
    #[cfg(not(test))]
    let _ = path;
}

#[cfg(test)]
// Only the emulation tests, which need both disk backends, read the
// recording; a build without them still records.
#[cfg_attr(not(all(feature = "lmdb", feature = "mmap")), allow(dead_code))]
pub(crate) mod tests {
    use std::cell::RefCell;
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::{Path, PathBuf};

    /// A directory's files by their path inside it.
    pub(crate) type Files = BTreeMap<PathBuf, Vec<u8>>;

    /// The files written in place, page by page, between syncs: a power
    /// loss may keep any subset of their changed pages.
    const PAGED: [&str; 3] = ["data.mdb", "mmap-records.dat", "mmap-undo.dat"];
    const PAGE: usize = 4096;

    /// One recorded instant: the files as durable and as they are.
    #[derive(Clone)]
    pub(crate) struct Instant {
        durable: BTreeMap<PathBuf, Option<Vec<u8>>>,
        current: Files,
    }

    /// Keeps the store directory at every [`super::point`] on this thread.
    pub(crate) struct Recorder {
        root: PathBuf,
        durable: BTreeMap<PathBuf, Option<Vec<u8>>>,
        instants: Vec<Instant>,
        /// LMDB's data file as a write transaction began.
        before_commit: Option<Vec<u8>>,
    }

    thread_local! {
        static RECORDER: RefCell<Option<Recorder>> = const { RefCell::new(None) };
    }

    fn is_lock(path: &Path) -> bool {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        matches!(name.as_deref(), Some("lock.mdb" | "store.lock"))
            || name.is_some_and(|name| name.ends_with(".lock"))
    }

    pub(crate) fn read_files(root: &Path) -> Files {
        fn walk(root: &Path, dir: &Path, files: &mut Files) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(root, &path, files);
                } else if !is_lock(&path)
                    && let Ok(bytes) = std::fs::read(&path)
                {
                    files.insert(path.strip_prefix(root).unwrap().to_path_buf(), bytes);
                }
            }
        }
        let mut files = Files::new();
        walk(root, root, &mut files);
        files
    }

    pub(crate) fn write_files(root: &Path, files: &Files) {
        let _ = std::fs::remove_dir_all(root);
        std::fs::create_dir_all(root).unwrap();
        for (name, bytes) in files {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
    }

    /// Starts recording the store in `root`, taking everything in it now
    /// as durable (call right after a checkpoint).
    pub(crate) fn start(root: &Path) {
        let durable = read_files(root)
            .into_iter()
            .map(|(path, bytes)| (path, Some(bytes)))
            .collect();
        RECORDER.with_borrow_mut(|recorder| {
            *recorder = Some(Recorder {
                root: root.to_path_buf(),
                durable,
                instants: Vec::new(),
                before_commit: None,
            });
        });
    }

    /// Stops recording and returns every instant recorded.
    pub(crate) fn stop() -> Vec<Instant> {
        RECORDER
            .with_borrow_mut(Option::take)
            .map_or_else(Vec::new, |recorder| recorder.instants)
    }

    pub(super) fn record_synced(path: &Path) {
        RECORDER.with_borrow_mut(|recorder| {
            let Some(recorder) = recorder else { return };
            let Ok(relative) = path.strip_prefix(&recorder.root) else {
                return;
            };
            recorder
                .durable
                .insert(relative.to_path_buf(), std::fs::read(path).ok());
        });
    }

    pub(super) fn record_commit_begun(path: &Path) {
        RECORDER.with_borrow_mut(|recorder| {
            if let Some(recorder) = recorder {
                recorder.before_commit = std::fs::read(path).ok();
            }
        });
        record_point();
    }

    pub(super) fn record_committed(path: &Path) {
        RECORDER.with_borrow_mut(|recorder| {
            let Some(recorder) = recorder else { return };
            let Ok(relative) = path.strip_prefix(&recorder.root).map(Path::to_path_buf) else {
                return;
            };
            let mut current = read_files(&recorder.root);
            let Some(now) = current.get(&relative).cloned() else {
                return;
            };
            let before = recorder.before_commit.take().unwrap_or_default();
            // This commit's meta page (one of the first two) back as it was.
            let mut without_meta = now.clone();
            for page in 0..2 {
                let range = page * PAGE..(page + 1) * PAGE;
                if let Some(old) = before.get(range.clone()) {
                    without_meta[range].copy_from_slice(old);
                }
            }
            current.insert(relative.clone(), without_meta.clone());
            recorder.instants.push(Instant {
                durable: recorder.durable.clone(),
                current,
            });
            recorder.durable.insert(relative, Some(without_meta));
        });
        record_point();
    }

    pub(super) fn record_point() {
        RECORDER.with_borrow_mut(|recorder| {
            let Some(recorder) = recorder else { return };
            let current = read_files(&recorder.root);
            recorder.instants.push(Instant {
                durable: recorder.durable.clone(),
                current,
            });
        });
    }

    /// One part of what was written since the last sync that a power loss
    /// may keep or lose on its own.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
    enum Unit {
        Page(usize),
        Whole,
    }

    impl Instant {
        /// The files that differ between durable and current, each with
        /// the units a power loss keeps or loses independently.
        fn units(&self) -> Vec<(PathBuf, Unit)> {
            let paths: BTreeSet<&PathBuf> =
                self.durable.keys().chain(self.current.keys()).collect();
            let mut units = Vec::new();
            for path in paths {
                let durable = self.durable.get(path).cloned().flatten();
                let current = self.current.get(path);
                if durable.as_ref() == current {
                    continue;
                }
                let paged = path
                    .file_name()
                    .is_some_and(|name| PAGED.iter().any(|p| name == *p));
                match (durable, current) {
                    (Some(old), Some(new)) if paged && new.len() >= old.len() => {
                        for page in 0..new.len().div_ceil(PAGE) {
                            let range = page * PAGE..((page + 1) * PAGE).min(new.len());
                            if old.get(range.clone()) != Some(&new[range]) {
                                units.push((path.clone(), Unit::Page(page)));
                            }
                        }
                    }
                    _ => units.push((path.clone(), Unit::Whole)),
                }
            }
            units
        }

        /// The files as durable with `kept` of the units applied.
        fn with(&self, units: &[(PathBuf, Unit)], kept: &[bool]) -> Files {
            let mut files: Files = self
                .durable
                .iter()
                .filter_map(|(path, bytes)| Some((path.clone(), bytes.clone()?)))
                .collect();
            for ((path, unit), _) in units.iter().zip(kept).filter(|(_, kept)| **kept) {
                let current = self.current.get(path);
                match unit {
                    Unit::Whole => match current {
                        Some(bytes) => {
                            files.insert(path.clone(), bytes.clone());
                        }
                        None => {
                            files.remove(path);
                        }
                    },
                    Unit::Page(page) => {
                        let new = current.expect("a paged unit's file exists");
                        let range = page * PAGE..((page + 1) * PAGE).min(new.len());
                        let file = files.entry(path.clone()).or_default();
                        if file.len() < range.end {
                            file.resize(range.end, 0);
                        }
                        file[range.clone()].copy_from_slice(&new[range]);
                    }
                }
            }
            files
        }

        /// The states a power loss at this instant could leave: every
        /// subset of the units when there are few, otherwise none and all,
        /// each unit alone and each one left out, and `sampled` random
        /// subsets.
        pub(crate) fn power_loss_states(&self, sampled: usize, seed: u64) -> Vec<Files> {
            let units = self.units();
            let n = units.len();
            let mut subsets: Vec<Vec<bool>> = Vec::new();
            if n <= 8 {
                for mask in 0..1u32 << n {
                    subsets.push((0..n).map(|i| mask >> i & 1 == 1).collect());
                }
            } else {
                subsets.push(vec![false; n]);
                subsets.push(vec![true; n]);
                for i in 0..n {
                    subsets.push((0..n).map(|j| j == i).collect());
                    subsets.push((0..n).map(|j| j != i).collect());
                }
                // splitmix64: a fixed sequence of subsets per instant.
                let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
                let mut coin = move || {
                    state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
                    let mut z = state;
                    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                    (z ^ (z >> 31)) & 1 == 1
                };
                for _ in 0..sampled {
                    subsets.push((0..n).map(|_| coin()).collect());
                }
            }
            subsets.iter().map(|kept| self.with(&units, kept)).collect()
        }
    }

    /// Every distinct power-loss state of `instants`.
    pub(crate) fn distinct_states(instants: &[Instant], sampled: usize) -> Vec<Files> {
        let mut seen = BTreeSet::new();
        let mut states = Vec::new();
        for (index, instant) in instants.iter().enumerate() {
            for state in instant.power_loss_states(sampled, index as u64) {
                let digest: Vec<(PathBuf, u32)> = state
                    .iter()
                    .map(|(path, bytes)| (path.clone(), crc32fast::hash(bytes)))
                    .collect();
                if seen.insert(digest) {
                    states.push(state);
                }
            }
        }
        states
    }
}
