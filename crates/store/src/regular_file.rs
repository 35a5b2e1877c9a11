//! Files an operator names (a policy, a profile) and files this program
//! writes over (an export's `--out`): only regular files are read or
//! replaced, and reads are bounded. A device such as `/dev/zero` would be
//! read without end, a FIFO would block the open forever, and a rename
//! over a device node, a symlink or a FIFO would replace it with a file.

use std::fs::{File, Metadata, OpenOptions};
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why an operator-named file was not read.
#[derive(Debug, Error)]
pub enum RegularFileError {
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is {kind}, not a regular file; name a regular file", path.display())]
    NotRegular { path: PathBuf, kind: &'static str },
    #[error(
        "{} is {bytes} bytes, more than the {limit} such a file can be; is it the file you meant?",
        path.display()
    )]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    #[error("{} is not UTF-8 text", path.display())]
    NotText { path: PathBuf },
}

/// What a file that is not a regular one is, in words.
pub fn kind_of(metadata: &Metadata) -> &'static str {
    let kind = metadata.file_type();
    if kind.is_dir() {
        "a directory"
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

/// Opens the regular file at `path` for reading, never blocking on a FIFO
/// (the open does not wait for a writer) and refusing anything else that
/// is not a regular file. Returns the file and its length.
pub fn open_regular(path: &Path) -> Result<(File, u64), RegularFileError> {
    let io = |source| RegularFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    // O_NONBLOCK: an open of a FIFO returns at once instead of waiting
    // for a writer; it changes nothing for a regular file.
    const O_NONBLOCK: i32 = 0o4000;
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(O_NONBLOCK)
        .open(path)
        .map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return Err(RegularFileError::NotRegular {
            path: path.to_path_buf(),
            kind: kind_of(&metadata),
        });
    }
    Ok((file, metadata.len()))
}

/// Reads the regular file at `path` whole, refusing one over `limit`
/// bytes before reading it.
pub fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, RegularFileError> {
    let (file, length) = open_regular(path)?;
    if length > limit {
        return Err(RegularFileError::TooLarge {
            path: path.to_path_buf(),
            bytes: length,
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(length as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| RegularFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
    if bytes.len() as u64 > limit {
        return Err(RegularFileError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit,
        });
    }
    Ok(bytes)
}

/// [`read_bounded`], as UTF-8 text.
pub fn read_text_bounded(path: &Path, limit: u64) -> Result<String, RegularFileError> {
    String::from_utf8(read_bounded(path, limit)?).map_err(|_| RegularFileError::NotText {
        path: path.to_path_buf(),
    })
}

/// Refuses to replace what is at `path` unless it is a regular file (or
/// nothing): a rename over a device, a FIFO, a directory or a symbolic
/// link would replace it, not write into it.
pub(crate) fn check_replaceable(path: &Path) -> Result<(), crate::StoreError> {
    match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.is_file() => Ok(()),
        Ok(metadata) => Err(crate::StoreError::NotRegularFile {
            path: path.to_path_buf(),
            kind: kind_of(&metadata),
            action: "it would be replaced, not written to; write to a new path or to a regular file",
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(crate::StoreError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}
