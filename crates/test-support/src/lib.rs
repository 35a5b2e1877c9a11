//! What the workspace's tests share, written once: a scratch directory per
//! test, removed when the test ends (passed or panicked).
//!
//! A dev-dependency only; it depends on nothing of the workspace, so any
//! crate's tests may use it without bending the crates' order.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A scratch directory named after its test, unique to the process and the
/// call, and removed with everything in it when dropped.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

/// Tell apart two directories of one name in one process (tests run on
/// several threads).
static MADE: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    /// An empty directory, made.
    pub fn new(name: &str) -> TempDir {
        let dir = TempDir::unmade(name);
        std::fs::create_dir_all(&dir.0)
            .unwrap_or_else(|error| panic!("making {}: {error}", dir.0.display()));
        dir
    }

    /// A path where nothing is yet, for what is under test to make (a store
    /// that creates its own directory, a run directory); removed when
    /// dropped like any other.
    pub fn unmade(name: &str) -> TempDir {
        let call = MADE.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("euchre-test-{name}-{}-{call}", std::process::id()));
        // A directory left by a killed run of the same process id.
        std::fs::remove_dir_all(&path).ok();
        TempDir(path)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `name` inside the directory.
    pub fn join(&self, name: impl AsRef<Path>) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_made_empty_and_removed_with_its_contents_when_dropped() {
        let dir = TempDir::new("support");
        assert!(dir.path().is_dir());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        std::fs::create_dir(dir.join("inner")).unwrap();
        std::fs::write(dir.join("inner/file"), b"x").unwrap();
        let path = dir.path().to_path_buf();
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn two_directories_of_one_name_are_apart_and_an_unmade_one_is_not_there() {
        let (one, two) = (TempDir::new("same"), TempDir::new("same"));
        assert_ne!(one.path(), two.path());
        let unmade = TempDir::unmade("same");
        assert!(!unmade.path().exists());
        std::fs::create_dir_all(unmade.join("a/b")).unwrap();
        let path = unmade.path().to_path_buf();
        drop(unmade);
        assert!(!path.exists());
    }
}
