//! A store's directory: an exclusive lock, and a manifest that says what
//! the files in it are, written atomically so that a crash leaves either
//! the old manifest or the new one, never half of either.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::client_state::ClientState;
use crate::error::StoreError;
use crate::layout::{RecordEncoding, RecordLayout};
use crate::regular_file::RegularFileError;
use crate::verify::Checksum;

pub const MANIFEST_FILE: &str = "store-manifest.json";
pub(crate) const LOCK_FILE: &str = "store.lock";
const MAGIC: &str = "euchre-cfr-store";
/// Bumped whenever a file format in this crate changes incompatibly.
/// Version 2 keeps the caller's state as a JSON value, not JSON text.
/// Version 3 reads a record's stamp from 2^31 on as steps of iterations
/// ([`crate::stamp`]); earlier versions' stamps are the same below 2^31
/// (their callers refuse a run past that, which only they can count).
pub const FORMAT_VERSION: u32 = 3;
/// Versions this build opens; the next checkpoint rewrites them as current.
const READABLE_FORMATS: std::ops::RangeInclusive<u32> = 1..=FORMAT_VERSION;

/// Which backend a directory holds. The one name for a backend across the
/// workspace: manifests, run profiles, flags and benchmarks all use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// Records in RAM; a checkpoint writes a snapshot file.
    Memory,
    /// Records in LMDB, through a bounded write-back cache.
    Lmdb,
    /// A perfect hash over a fixed key universe and a memory-mapped file.
    Mmap,
}

impl Backend {
    pub const ALL: [Backend; 3] = [Backend::Memory, Backend::Lmdb, Backend::Mmap];

    pub const fn name(self) -> &'static str {
        match self {
            Backend::Memory => "memory",
            Backend::Lmdb => "lmdb",
            Backend::Mmap => "mmap",
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A store name that names no backend.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown store '{0}': use memory, lmdb or mmap")]
pub struct UnknownBackend(pub String);

impl std::str::FromStr for Backend {
    type Err = UnknownBackend;

    fn from_str(text: &str) -> Result<Backend, UnknownBackend> {
        Backend::ALL
            .into_iter()
            .find(|backend| backend.name() == text)
            .ok_or_else(|| UnknownBackend(text.to_owned()))
    }
}

/// What the caller's keys mean: a digest of the rules, phase and
/// abstraction, plus a readable description for error messages.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Fingerprint {
    pub digest: u64,
    pub description: String,
}

/// A manifest is a page of JSON; anything far larger is not one.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

/// Everything that must match for a directory to be reopened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub magic: String,
    pub format_version: u32,
    pub backend: Backend,
    pub max_actions: u8,
    pub encoding: String,
    pub record_bytes: u64,
    pub fingerprint: Fingerprint,
    /// Records in the data file(s) as of the last checkpoint.
    pub records: u64,
    /// CRC-32 of the snapshot or data file, where the backend keeps one.
    pub checksum: Option<u32>,
    /// How many checkpoints have committed; names the undo journal's epoch.
    #[serde(default)]
    pub checkpoints: u64,
    /// A random id given to the store when it is made, which its undo
    /// journal repeats, so that another store's journal is never replayed
    /// into this one. 0 in manifests written before ids; the next
    /// checkpoint gives the store one.
    #[serde(default)]
    pub store_id: u64,
    /// The caller's own progress, opaque to the store, committed in the
    /// same atomic rename as the records it describes.
    #[serde(default)]
    pub state: ClientState,
    /// What a reopen must find: the length and CRC-32 of each file (or of
    /// the records, for LMDB) as this checkpoint left them. Empty in
    /// manifests written before checksums were kept; the next checkpoint
    /// fills it.
    #[serde(default)]
    pub checksums: Vec<Checksum>,
    /// Where format-1 manifests kept `state`, as JSON text in a string;
    /// read once into `state` and never written again.
    #[serde(default, rename = "client_state", skip_serializing)]
    legacy_state: Option<String>,
}

impl Manifest {
    pub fn new(backend: Backend, layout: RecordLayout, fingerprint: Fingerprint) -> Manifest {
        Manifest {
            magic: MAGIC.to_string(),
            format_version: FORMAT_VERSION,
            backend,
            max_actions: layout.max_actions() as u8,
            encoding: layout.encoding().name().to_string(),
            record_bytes: layout.bytes(),
            fingerprint,
            records: 0,
            checksum: None,
            checkpoints: 0,
            store_id: new_store_id(),
            state: ClientState::NONE,
            checksums: Vec::new(),
            legacy_state: None,
        }
    }

    /// The manifest in the store directory `dir`, read without taking the
    /// directory's lock (so a report never disturbs the process that
    /// writes it); `None` for a directory never checkpointed.
    pub fn read(dir: &Path) -> Result<Option<Manifest>, StoreError> {
        let path = dir.join(MANIFEST_FILE);
        let text = match crate::regular_file::read_text_bounded(&path, MAX_MANIFEST_BYTES) {
            Ok(text) => text,
            Err(RegularFileError::Io { source, .. })
                if source.kind() == std::io::ErrorKind::NotFound =>
            {
                return Ok(None);
            }
            Err(RegularFileError::Io { source, .. }) => {
                return Err(StoreError::Io { path, source });
            }
            Err(unfit) => {
                return Err(StoreError::Corrupt {
                    path,
                    reason: unfit.to_string(),
                });
            }
        };
        let corrupt = |error: serde_json::Error| StoreError::Corrupt {
            path: path.clone(),
            reason: format!("the manifest does not parse ({error})"),
        };
        let mut manifest: Manifest = serde_json::from_str(&text).map_err(corrupt)?;
        if let Some(legacy) = manifest.legacy_state.take()
            && manifest.state.is_none()
        {
            manifest.state = ClientState::from_legacy_text(&legacy).map_err(corrupt)?;
        }
        Ok(Some(manifest))
    }

    /// Checks that a stored manifest fits what the caller asks for, naming
    /// the first field that differs.
    pub fn check_compatible(&self, wanted: &Manifest, dir: &Path) -> Result<(), StoreError> {
        let mismatch = |field, expected: String, found: String| StoreError::Mismatch {
            dir: dir.to_path_buf(),
            field,
            expected,
            found,
        };
        if self.magic != MAGIC {
            return Err(StoreError::Corrupt {
                path: dir.join(MANIFEST_FILE),
                reason: format!("magic is '{}', not '{MAGIC}'", self.magic),
            });
        }
        if !READABLE_FORMATS.contains(&self.format_version) {
            return Err(mismatch(
                "format_version",
                wanted.format_version.to_string(),
                format!(
                    "{} (written by another version of this program)",
                    self.format_version
                ),
            ));
        }
        if self.backend != wanted.backend {
            return Err(mismatch(
                "backend",
                wanted.backend.name().into(),
                self.backend.name().into(),
            ));
        }
        if (self.max_actions, &self.encoding, self.record_bytes)
            != (wanted.max_actions, &wanted.encoding, wanted.record_bytes)
        {
            return Err(mismatch(
                "record layout",
                format!("{} actions, {}", wanted.max_actions, wanted.encoding),
                format!("{} actions, {}", self.max_actions, self.encoding),
            ));
        }
        if self.fingerprint.digest != wanted.fingerprint.digest {
            return Err(mismatch(
                "key universe",
                wanted.fingerprint.description.clone(),
                self.fingerprint.description.clone(),
            ));
        }
        Ok(())
    }

    pub fn layout(&self) -> Option<RecordLayout> {
        let encoding = RecordEncoding::ALL
            .into_iter()
            .find(|e| e.name() == self.encoding)?;
        RecordLayout::new(usize::from(self.max_actions), encoding).ok()
    }
}

/// A store id unlike any other store's: the clock, the process and a
/// counter, mixed. Never 0, which means "made before ids".
fn new_store_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64);
    let mut mixed = nanos
        ^ u64::from(std::process::id()).rotate_left(32)
        ^ COUNTER
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed = (mixed ^ (mixed >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    mixed = (mixed ^ (mixed >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (mixed ^ (mixed >> 31)).max(1)
}

/// An open, locked store directory. The lock is an OS lock (`flock`) on
/// the directory itself, held through an open descriptor: it goes with the
/// process however that ends, so a killed process leaves no stale lock, and
/// no file in the directory can be deleted to defeat it. A small file beside
/// it names the holder's pid, for the message a second process gets.
#[derive(Debug)]
pub struct StoreDir {
    path: PathBuf,
    _lock: File,
}

impl StoreDir {
    /// Creates `path` if needed and takes its lock.
    pub fn lock(path: &Path) -> Result<StoreDir, StoreError> {
        StoreDir::lock_with(path, LOCK_FILE)
    }

    /// As [`Self::lock`], naming the holder's pid in `pid_file`: lets a
    /// directory that holds a store directory carry its own lock.
    pub fn lock_with(path: &Path, pid_file: &str) -> Result<StoreDir, StoreError> {
        std::fs::create_dir_all(path).map_err(StoreError::io(path))?;
        let lock = File::open(path).map_err(StoreError::io(path))?;
        let pid_path = path.join(pid_file);
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                // The holder's pid only improves the message; an unreadable
                // one is reported as unknown.
                let pid = std::fs::read_to_string(&pid_path).unwrap_or_default();
                let pid = if pid.trim().is_empty() {
                    "unknown".into()
                } else {
                    pid.trim().to_string()
                };
                return Err(StoreError::Locked {
                    path: path.to_path_buf(),
                    pid,
                });
            }
            Err(TryLockError::Error(source)) => {
                return Err(StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        }
        // Only the message uses the pid: a read-only directory, which the
        // reading commands may open, simply goes without it.
        let _ = std::fs::write(&pid_path, std::process::id().to_string());
        Ok(StoreDir {
            path: path.to_path_buf(),
            _lock: lock,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// The manifest, or `None` for a directory never checkpointed.
    pub fn read_manifest(&self) -> Result<Option<Manifest>, StoreError> {
        Manifest::read(&self.path)
    }

    pub fn write_manifest(&self, manifest: &Manifest) -> Result<(), StoreError> {
        let text = serde_json::to_vec_pretty(manifest).map_err(|error| StoreError::Corrupt {
            path: self.file(MANIFEST_FILE),
            reason: error.to_string(),
        })?;
        write_atomically(&self.file(MANIFEST_FILE), &text)
    }
}

/// Whether files can be created in `dir`: false on a read-only mount or a
/// directory this process may not write, where the reading commands open
/// stores read-only. Found by creating and removing a probe file, which
/// (unlike permission bits) also sees read-only mounts.
pub fn is_writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    match OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(_) => false,
    }
}

/// Checks, before any work is done, that [`write_atomically`] can
/// write `path`: what is there is a regular file or nothing, and its
/// folder exists and takes new files. A program that writes its result at
/// the end (a saved game, an export) says so at the start instead.
pub fn check_writable(path: &Path) -> Result<(), StoreError> {
    crate::regular_file::check_replaceable(path)?;
    let folder = match path.parent() {
        Some(parent) if parent.as_os_str().is_empty() => Path::new("."),
        Some(parent) => parent,
        None => Path::new("."),
    };
    match std::fs::metadata(folder) {
        Ok(metadata) if metadata.is_dir() => {}
        Ok(metadata) => {
            return Err(StoreError::NotRegularFile {
                path: folder.to_path_buf(),
                kind: crate::regular_file::kind_of(&metadata),
                action: "a file cannot be written inside it; name a path in an existing folder",
            });
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Err(StoreError::Missing {
                path: folder.to_path_buf(),
                hint: "the folder to write into does not exist; create it first".to_owned(),
            });
        }
        Err(source) => {
            return Err(StoreError::Io {
                path: folder.to_path_buf(),
                source,
            });
        }
    }
    if !is_writable(folder) {
        return Err(StoreError::FolderNotWritable {
            path: folder.to_path_buf(),
        });
    }
    Ok(())
}

/// Writes `bytes` to `path` so that readers see the old file or the new
/// one: write a temporary file, fsync it, rename it over, fsync the folder.
///
/// Only a regular file (or nothing) at `path` is replaced: anything else is
/// refused (a rename would replace a device, a FIFO or a link, not write
/// into it). The temporary file is made anew,
/// never opened through a symbolic link left in its place.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    crate::regular_file::check_replaceable(path)?;
    let temporary = path.with_extension("tmp");
    match std::fs::remove_file(&temporary) {
        Ok(()) => {}
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(source) => return Err(StoreError::io(&temporary)(source)),
    }
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&temporary)
        .map_err(StoreError::io(&temporary))?;
    file.write_all(bytes)
        .map_err(|source| classify_write_error(&temporary, bytes.len() as u64, source))?;
    file.sync_all().map_err(StoreError::io(&temporary))?;
    drop(file);
    crate::power_loss::synced(&temporary);
    crate::power_loss::point();
    std::fs::rename(&temporary, path).map_err(StoreError::io(path))?;
    crate::power_loss::point();
    sync_parent(path)?;
    crate::power_loss::synced(path);
    crate::power_loss::synced(&temporary);
    crate::power_loss::point();
    Ok(())
}

pub(crate) fn sync_parent(path: &Path) -> Result<(), StoreError> {
    if let Some(parent) = directory_of(path) {
        File::open(parent)
            .and_then(|dir| dir.sync_all())
            .map_err(StoreError::io(parent))?;
    }
    Ok(())
}

/// The directory whose entry for `path` a rename changes. A bare file name
/// (`--out policy.bin`) has the empty path as its parent, which cannot be
/// opened: it means the current directory.
fn directory_of(path: &Path) -> Option<&Path> {
    match path.parent() {
        Some(parent) if parent.as_os_str().is_empty() => Some(Path::new(".")),
        parent => parent,
    }
}

/// Maps a failed write to [`StoreError::DiskFull`] when the disk is full.
pub fn classify_write_error(path: &Path, needed: u64, source: std::io::Error) -> StoreError {
    if source.raw_os_error() == Some(28) || source.kind() == std::io::ErrorKind::StorageFull {
        StoreError::DiskFull {
            path: path.to_path_buf(),
            needed,
            source,
        }
    } else {
        StoreError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// The manifest as last committed. Checkpoints replace it whole, so the
/// records and the caller's state they describe commit in one rename.
#[derive(Debug)]
pub(crate) struct Committed(Mutex<Manifest>);

impl Committed {
    pub(crate) fn new(manifest: Manifest) -> Committed {
        Committed(Mutex::new(manifest))
    }

    pub(crate) fn get(&self) -> Manifest {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Writes the next manifest: `change` fills in backend fields, and the
    /// checkpoint count and the caller's state advance with it.
    pub(crate) fn commit(
        &self,
        dir: &StoreDir,
        state: &ClientState,
        change: impl FnOnce(&mut Manifest),
    ) -> Result<(), StoreError> {
        let mut current = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = current.clone();
        change(&mut next);
        next.checkpoints += 1;
        next.format_version = FORMAT_VERSION;
        if next.store_id == 0 {
            next.store_id = new_store_id();
        }
        next.state = state.clone();
        dir.write_manifest(&next)?;
        *current = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_file_name_lives_in_the_current_directory() {
        assert_eq!(directory_of(Path::new("policy.bin")), Some(Path::new(".")));
        assert_eq!(
            directory_of(Path::new("runs/policy.bin")),
            Some(Path::new("runs"))
        );
        assert_eq!(directory_of(Path::new("/policy.bin")), Some(Path::new("/")));
        assert_eq!(directory_of(Path::new("/")), None);
    }
}
