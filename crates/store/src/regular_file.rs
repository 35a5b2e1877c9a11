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

/// Whether an open follows a symbolic link at the path's last component.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Links {
    /// Follow it: an operator may name a link to their own file.
    Follow,
    /// Refuse it: a file found by listing a directory that clients browse
    /// must be the regular file listed, not whatever a link points at.
    Refuse,
}

/// Opens the regular file at `path` for reading, never blocking on a FIFO
/// (the open does not wait for a writer) and refusing anything else that
/// is not a regular file. Returns the file and its length.
pub fn open_regular(path: &Path) -> Result<(File, u64), RegularFileError> {
    open_regular_with(path, Links::Follow)
}

/// [`open_regular`], following a link at `path` or refusing it.
pub fn open_regular_with(path: &Path, links: Links) -> Result<(File, u64), RegularFileError> {
    let io = |source| RegularFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    // O_NONBLOCK: an open of a FIFO returns at once instead of waiting
    // for a writer; it changes nothing for a regular file. O_NOFOLLOW: an
    // open of a link fails (ELOOP) instead of following it.
    const O_NONBLOCK: i32 = 0o4000;
    const O_NOFOLLOW: i32 = 0o400000;
    const ELOOP: i32 = 40;
    let flags = match links {
        Links::Follow => O_NONBLOCK,
        Links::Refuse => O_NONBLOCK | O_NOFOLLOW,
    };
    let file = match OpenOptions::new().read(true).custom_flags(flags).open(path) {
        Ok(file) => file,
        Err(error) if links == Links::Refuse && error.raw_os_error() == Some(ELOOP) => {
            return Err(RegularFileError::NotRegular {
                path: path.to_path_buf(),
                kind: "a symbolic link",
            });
        }
        Err(error) => return Err(io(error)),
    };
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
    read_bounded_with(path, limit, Links::Follow)
}

/// [`read_bounded`], following a link at `path` or refusing it.
pub fn read_bounded_with(
    path: &Path,
    limit: u64,
    links: Links,
) -> Result<Vec<u8>, RegularFileError> {
    let (file, length) = open_regular_with(path, links)?;
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
    read_text_bounded_with(path, limit, Links::Follow)
}

/// [`read_text_bounded`], following a link at `path` or refusing it.
pub fn read_text_bounded_with(
    path: &Path,
    limit: u64,
    links: Links,
) -> Result<String, RegularFileError> {
    String::from_utf8(read_bounded_with(path, limit, links)?).map_err(|_| {
        RegularFileError::NotText {
            path: path.to_path_buf(),
        }
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
