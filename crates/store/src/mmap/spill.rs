//! The build's keys sorted by window on disk: the one pass that hashes the
//! universe appends each key beyond the first window to its window's file,
//! and each later window reads its file back instead of hashing the whole
//! universe again. Hashing is the build's dominant cost (about 120 ns a key
//! a thread at 20 M keys), so a build of W windows hashes every key once
//! instead of W times, while its memory stays bounded by one window.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use crate::dir::classify_write_error;
use crate::error::StoreError;
use crate::layout::KEY_BYTES;
use crate::table::Key;

/// The spill's directory inside the store's: removed when the build ends,
/// and at the start of a build a killed one left behind.
pub(super) const SPILL_DIR: &str = "mmap-build-spill";

/// One spilled key: its slot's offset in its window, then the key.
pub(super) const SPILL_ENTRY_BYTES: u64 = 4 + KEY_BYTES;

/// A thread's buffer for one window is appended when it reaches this size,
/// so the files are written in large sequential pieces.
const BUFFER_BYTES: usize = 128 << 10;

/// The files of windows 1 and up (window 0 is written as it is hashed).
pub(super) struct Spill {
    dir: PathBuf,
    files: Vec<Mutex<File>>,
}

impl Spill {
    /// Empty files for `windows` windows in `store_dir`'s spill directory,
    /// replacing whatever a killed build left there.
    pub(super) fn create(store_dir: &Path, windows: usize) -> Result<Spill, StoreError> {
        let dir = store_dir.join(SPILL_DIR);
        remove_dir(&dir)?;
        std::fs::create_dir(&dir).map_err(StoreError::io(&dir))?;
        let files = (0..windows)
            .map(|window| {
                let path = window_path(&dir, window);
                OpenOptions::new()
                    .read(true)
                    .append(true)
                    .create_new(true)
                    .open(&path)
                    .map(Mutex::new)
                    .map_err(StoreError::io(&path))
            })
            .collect::<Result<_, _>>()?;
        Ok(Spill { dir, files })
    }

    /// A buffer per window for one hashing thread.
    pub(super) fn buffers(&self) -> SpillBuffers<'_> {
        SpillBuffers {
            spill: self,
            buffers: vec![Vec::new(); self.files.len()],
        }
    }

    fn append(&self, window: usize, bytes: &[u8]) -> Result<(), StoreError> {
        let mut file = self.files[window]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        file.write_all(bytes)
            .map_err(|source| classify_write_error(&self.path(window), bytes.len() as u64, source))
    }

    /// Window `window`'s entries (read with [`spilled_entries`]) in the
    /// order they were appended; its file is emptied once read, so the
    /// spill's disk shrinks as the build goes.
    pub(super) fn take(&self, window: usize) -> Result<Vec<u8>, StoreError> {
        let path = self.path(window);
        let mut bytes = Vec::new();
        {
            let mut file = self.files[window]
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            std::io::Seek::rewind(&mut *file).map_err(StoreError::io(&path))?;
            file.read_to_end(&mut bytes)
                .map_err(StoreError::io(&path))?;
            // Truncating frees the blocks now; the directory goes at the end.
            file.set_len(0).map_err(StoreError::io(&path))?;
        }
        let entry = SPILL_ENTRY_BYTES as usize;
        if bytes.len() % entry != 0 {
            return Err(StoreError::Corrupt {
                path,
                reason: format!(
                    "{} bytes is not a whole number of {entry}-byte entries",
                    bytes.len()
                ),
            });
        }
        Ok(bytes)
    }

    /// Removes the spill's directory; the build calls it when it ends.
    pub(super) fn remove(self) -> Result<(), StoreError> {
        let dir = self.dir.clone();
        drop(self.files);
        remove_dir(&dir)
    }

    fn path(&self, window: usize) -> PathBuf {
        window_path(&self.dir, window)
    }
}

/// The (offset, key) entries of a spill file's bytes, or of a whole number
/// of them.
pub(super) fn spilled_entries(bytes: &[u8]) -> impl Iterator<Item = (u32, Key)> + '_ {
    bytes.chunks_exact(SPILL_ENTRY_BYTES as usize).map(|entry| {
        let (offset, key) = entry.split_at(4);
        (
            u32::from_le_bytes(offset.try_into().expect("4 bytes")),
            Key::from_le_bytes(key.try_into().expect("16 bytes")),
        )
    })
}

fn window_path(dir: &Path, window: usize) -> PathBuf {
    dir.join(format!("window-{window}.bin"))
}

fn remove_dir(dir: &Path) -> Result<(), StoreError> {
    match std::fs::remove_dir_all(dir) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
            Err(StoreError::io(dir)(error))
        }
        _ => Ok(()),
    }
}

/// One hashing thread's buffers, a window each.
pub(super) struct SpillBuffers<'a> {
    spill: &'a Spill,
    buffers: Vec<Vec<u8>>,
}

impl SpillBuffers<'_> {
    /// Adds `key` at `offset` of spilled window `window`, appending the
    /// window's buffer to its file when full.
    pub(super) fn push(&mut self, window: usize, offset: u32, key: Key) -> Result<(), StoreError> {
        let buffer = &mut self.buffers[window];
        if buffer.capacity() == 0 {
            buffer.reserve_exact(BUFFER_BYTES);
        }
        buffer.extend_from_slice(&offset.to_le_bytes());
        buffer.extend_from_slice(&key.to_le_bytes());
        if buffer.len() + SPILL_ENTRY_BYTES as usize > BUFFER_BYTES {
            self.spill.append(window, buffer)?;
            buffer.clear();
        }
        Ok(())
    }

    /// Appends what every buffer still holds.
    pub(super) fn finish(mut self) -> Result<(), StoreError> {
        for (window, buffer) in self.buffers.iter_mut().enumerate() {
            if !buffer.is_empty() {
                self.spill.append(window, buffer)?;
                buffer.clear();
            }
        }
        Ok(())
    }
}
