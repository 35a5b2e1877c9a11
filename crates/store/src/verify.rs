//! What a checkpoint records so that a reopen can tell its files are the
//! ones it wrote: each file's (or, for LMDB, the records') length and
//! CRC-32. A reopen checks them before anything reads a record, so damaged
//! data is refused with the file named, never trained on or exported.

#[cfg(any(feature = "lmdb", feature = "mmap"))]
use std::path::Path;
use std::time::Instant;

use serde::{Deserialize, Serialize};

#[cfg(any(feature = "lmdb", feature = "mmap"))]
use crate::error::StoreError;

/// One checked thing: a file of the store, or the records of a database.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Checksum {
    /// The file's name in the store directory, or what else was summed.
    pub what: String,
    pub bytes: u64,
    pub crc32: u32,
}

/// How much a reopen checks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Verify {
    /// Lengths and checksums of everything the manifest lists.
    #[default]
    Full,
    /// Lengths only: for a store too large to read whole at every open.
    /// Damage that keeps a file's length goes unseen until a full check.
    LengthsOnly,
}

/// What a reopen checked, and how long it took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verification {
    /// What was checked in full, as "file (bytes)".
    pub checked: Vec<String>,
    /// Why some or all of the store was not checked in full, if it was not.
    pub not_checked: Option<String>,
    pub seconds: f64,
}

impl std::fmt::Display for Verification {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.checked.is_empty() {
            write!(
                f,
                "verified ({} by CRC-32) in {:.2} s",
                self.checked.join(", "),
                self.seconds
            )?;
        }
        match (&self.not_checked, self.checked.is_empty()) {
            (Some(reason), true) => write!(f, "not verified in full: {reason}"),
            (Some(reason), false) => write!(f, "; not in full: {reason}"),
            (None, true) => write!(f, "nothing to verify yet (no checkpoint)"),
            (None, false) => Ok(()),
        }
    }
}

/// Bytes per piece when a large region is summed on several threads; the
/// pieces' CRCs combine into the whole's.
#[cfg(feature = "mmap")]
const PIECE_BYTES: usize = 64 << 20;

/// The CRC-32 of `bytes`, summed in pieces on every core.
#[cfg(feature = "mmap")]
pub(crate) fn crc32_parallel(bytes: &[u8]) -> u32 {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Mutex, PoisonError};
    let pieces: Vec<&[u8]> = bytes.chunks(PIECE_BYTES).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(pieces.len().max(1));
    let next = AtomicUsize::new(0);
    let sums: Vec<Mutex<u32>> = pieces.iter().map(|_| Mutex::new(0)).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(piece) = pieces.get(index) else {
                        break;
                    };
                    *sums[index].lock().unwrap_or_else(PoisonError::into_inner) =
                        crc32fast::hash(piece);
                }
            });
        }
    });
    let mut whole = crc32fast::Hasher::new();
    for (piece, sum) in pieces.iter().zip(sums) {
        let crc = sum.into_inner().unwrap_or_else(PoisonError::into_inner);
        whole.combine(&crc32fast::Hasher::new_with_initial_len(
            crc,
            piece.len() as u64,
        ));
    }
    whole.finalize()
}

/// The length and CRC-32 of the file at `path`, read with plain reads (a
/// file that shrinks while it is read is an error, never a fault).
#[cfg(feature = "lmdb")]
pub(crate) fn crc32_of_file(path: &Path) -> Result<(u64, u32), StoreError> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).map_err(StoreError::io(path))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buffer = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let read = file.read(&mut buffer).map_err(StoreError::io(path))?;
        if read == 0 {
            return Ok((bytes, hasher.finalize()));
        }
        hasher.update(&buffer[..read]);
        bytes += read as u64;
    }
}

/// The checksum of the file `name` in `dir`, read through a private map.
#[cfg(feature = "mmap")]
pub(crate) fn checksum_file(dir: &Path, name: &str) -> Result<Checksum, StoreError> {
    let path = dir.join(name);
    let file = std::fs::File::open(&path).map_err(StoreError::io(&path))?;
    let bytes = file.metadata().map_err(StoreError::io(&path))?.len();
    let crc32 = if bytes == 0 {
        crc32fast::hash(&[])
    } else {
        // SAFETY: a read-only private map of a file this process holds the
        // store lock over; nothing else writes it while it is summed.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(StoreError::io(&path))?;
        crc32_parallel(&map)
    };
    Ok(Checksum {
        what: name.to_owned(),
        bytes,
        crc32,
    })
}

/// Checks `found` against the checksum a checkpoint recorded, naming the
/// file at `path` and what to do when they differ.
#[cfg(any(feature = "lmdb", feature = "mmap"))]
pub(crate) fn expect(recorded: &Checksum, found: &Checksum, path: &Path) -> Result<(), StoreError> {
    let path = path.to_path_buf();
    if found.bytes != recorded.bytes {
        return Err(StoreError::Corrupt {
            path,
            reason: format!(
                "it is {} bytes, but the last checkpoint wrote {}; it was truncated or overwritten",
                found.bytes, recorded.bytes
            ),
        });
    }
    if found.crc32 != recorded.crc32 {
        return Err(StoreError::Corrupt {
            path,
            reason: format!(
                "its CRC-32 is {:#010x}, but the last checkpoint recorded {:#010x}: its bytes changed on disk",
                found.crc32, recorded.crc32
            ),
        });
    }
    Ok(())
}

/// Times a verification.
pub(crate) struct Timer(Instant);

impl Timer {
    pub(crate) fn start() -> Timer {
        Timer(Instant::now())
    }

    pub(crate) fn seconds(&self) -> f64 {
        self.0.elapsed().as_secs_f64()
    }
}

#[cfg(all(test, feature = "mmap"))]
mod tests {
    use super::*;

    #[test]
    fn the_parallel_crc_is_the_crc() {
        let bytes: Vec<u8> = (0..(3 * PIECE_BYTES + 12_345))
            .map(|i| (i * 7 % 251) as u8)
            .collect();
        assert_eq!(crc32_parallel(&bytes), crc32fast::hash(&bytes));
        assert_eq!(crc32_parallel(&bytes[..10]), crc32fast::hash(&bytes[..10]));
        assert_eq!(crc32_parallel(&[]), crc32fast::hash(&[]));
    }
}
