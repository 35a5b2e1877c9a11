//! What can go wrong with a store, in words that say how to fix it.

use std::path::PathBuf;

use thiserror::Error;

use crate::layout::WidthError;

#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    #[error(
        "slot {slot} is beyond this table's {records} records: it came from another table, which is a bug in the caller"
    )]
    NoSuchSlot { slot: u64, records: u64 },
    #[error(
        "the store in {} was opened to read only (its directory is read-only); it takes no updates or checkpoints",
        path.display()
    )]
    ReadOnly { path: PathBuf },
    #[error(
        "cannot write into {}: the folder does not take new files (read-only, or not yours); choose another folder",
        path.display()
    )]
    FolderNotWritable { path: PathBuf },
    #[error(
        "the table is full: it holds {capacity} records; raise the capacity or use a backend that grows"
    )]
    Full { capacity: u64 },
    #[error(
        "key {key:#034x} is not in this table's key universe (the perfect hash was built for another set of keys)"
    )]
    UnknownKey { key: u128 },
    #[error(transparent)]
    Width(#[from] WidthError),
    #[error("the caller's checkpoint state cannot be {action}: {reason}")]
    ClientState {
        action: &'static str,
        reason: String,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{path} is in use by another process (pid {pid}); stop that process first, or use another directory"
    )]
    Locked { path: PathBuf, pid: String },
    #[error(
        "the store in {dir} was made with {field} = {found}, but this run asks for {expected}; \
         use a new directory, or open it with the settings the store was made with"
    )]
    Mismatch {
        dir: PathBuf,
        field: &'static str,
        expected: String,
        found: String,
    },
    #[error("{path} is corrupt: {reason}. Restore it from a backup or start a new store directory")]
    Corrupt { path: PathBuf, reason: String },
    /// An LMDB data file changed since its checkpoint while no write had
    /// begun (its seal), on pages no record is read from: the records
    /// verify, so nothing trained is lost, but something other than the
    /// trainer wrote the file.
    #[error(
        "{path} changed since its last checkpoint although the trainer wrote nothing to it: \
         {reason}. The records verify against the checkpoint, so only pages no record is read \
         from changed and nothing trained is lost; check the disk, then remove {seal} to accept \
         the file as it is"
    )]
    ChangedOutsideRecords {
        path: PathBuf,
        reason: String,
        seal: PathBuf,
    },
    #[error("{path} is missing: {hint}")]
    Missing { path: PathBuf, hint: String },
    #[error("{path} is {kind}, not a regular file: {action}")]
    NotRegularFile {
        path: PathBuf,
        kind: &'static str,
        action: &'static str,
    },
    #[error(
        "not enough disk space for {path}{} ({source}); free some space or choose a \
         directory on a larger disk",
        needs(*needed)
    )]
    DiskFull {
        path: PathBuf,
        needed: u64,
        #[source]
        source: std::io::Error,
    },
}

/// How much more room a write needed, when it is known.
fn needs(bytes: u64) -> String {
    if bytes == 0 {
        String::new()
    } else {
        format!(": it needs {bytes} bytes")
    }
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }

    /// As [`Self::io`], except that a missing file is [`StoreError::Missing`]
    /// with `hint` saying what to do about it.
    pub(crate) fn missing_or_io(
        path: impl Into<PathBuf>,
        hint: &str,
    ) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        let hint = hint.to_string();
        move |source| match source.kind() {
            std::io::ErrorKind::NotFound => StoreError::Missing { path, hint },
            _ => StoreError::Io { path, source },
        }
    }
}
