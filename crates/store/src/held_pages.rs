//! Changes held in this process's memory until a checkpoint writes them,
//! for the mmap store's [`Writeback::AtCheckpoint`].
//!
//! Through a shared map, the kernel writes a changed page back to disk
//! whenever its dirty-page limits say so (on Linux, once dirty pages pass
//! a tenth of memory, or after 30 seconds), and a page written back is
//! write-protected again, so the next update faults and dirties it anew.
//! A training run rewrites the same hot pages thousands of times between
//! checkpoints, so the kernel writes the whole records file over and over:
//! measured on full play, hundreds of megabytes a second of disk writes
//! and a third of the CPU in page faults and writeback, for bytes nobody
//! needs until the next checkpoint.
//!
//! Here the records file is copied into this process's memory at open
//! (anonymous memory, on huge pages where the kernel grants them: see
//! `held_copy` in the mmap module): an update changes the copy only, and
//! sets its page's bit. A checkpoint then, with no update in flight:
//! 1. copies the old bytes of every changed page from the file (which no
//!    update has touched) into the undo journal, and makes it durable;
//! 2. writes the changed pages to the file, runs of adjacent pages at a
//!    time, and makes the file durable;
//! 3. lets the caller commit the manifest and empty the journal.
//!
//! A crash before step 3 reopens through the journal at the previous
//! checkpoint, as it does after a crash between checkpoints with a shared
//! map; a crash between checkpoints finds the file exactly as the last
//! checkpoint left it. The price is memory: the whole records file stays
//! resident in this process, so it must fit in RAM.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use memmap2::MmapRaw;

use crate::dir::classify_write_error;
use crate::error::StoreError;
use crate::undo::{PAGE, UndoJournal};

/// How the mmap store's changed records reach its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writeback {
    /// A shared map: the kernel writes changed pages back as it likes, and
    /// each page's first change after a checkpoint is journalled first. The
    /// records file may be far larger than RAM; the disk is written
    /// continuously.
    Continuous,
    /// A copy in memory: changes stay there and a checkpoint writes them
    /// (see the module documentation). No disk writes between checkpoints;
    /// the whole records file stays resident.
    AtCheckpoint,
}

impl std::fmt::Display for Writeback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Writeback::Continuous => "continuous",
            Writeback::AtCheckpoint => "at-checkpoint",
        })
    }
}

/// The pages changed since the last checkpoint, and the file they go to.
#[derive(Debug)]
pub(crate) struct HeldPages {
    pub(crate) file: File,
    pub(crate) path: PathBuf,
    pub(crate) file_bytes: u64,
    /// One bit per page of the file.
    changed: Box<[AtomicU64]>,
    /// Set when a write-out failed part way: the file may then hold some
    /// new pages, so no later checkpoint may take its old bytes from it.
    broken: AtomicBool,
}

impl HeldPages {
    pub(crate) fn new(file: File, path: &Path, file_bytes: u64) -> HeldPages {
        let pages = file_bytes.div_ceil(PAGE);
        HeldPages {
            file,
            path: path.to_path_buf(),
            file_bytes,
            changed: (0..pages.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
            broken: AtomicBool::new(false),
        }
    }

    /// Notes that the bytes `start..start + length` of the file are about
    /// to change.
    #[inline]
    pub(crate) fn mark(&self, start: u64, length: u64) {
        for page in start / PAGE..=(start + length - 1) / PAGE {
            let word = &self.changed[(page / 64) as usize];
            let bit = 1u64 << (page % 64);
            // Reading first keeps the common case (already marked) from
            // taking the cache line for writing.
            if word.load(Ordering::Relaxed) & bit == 0 {
                word.fetch_or(bit, Ordering::Relaxed);
            }
        }
    }

    /// The changed pages, in file order.
    pub(crate) fn changed_pages(&self) -> Vec<u64> {
        let mut pages = Vec::new();
        for (index, word) in self.changed.iter().enumerate() {
            let mut bits = word.load(Ordering::Acquire);
            while bits != 0 {
                pages.push(index as u64 * 64 + u64::from(bits.trailing_zeros()));
                bits &= bits - 1;
            }
        }
        pages
    }

    /// Steps 1 and 2 of a checkpoint (see the module documentation): the
    /// changed pages' old bytes into `undo`, then their new bytes from
    /// `map` into the file, each made durable. Returns the pages written.
    /// Call with no update in flight.
    pub(crate) fn write_out(&self, map: &MmapRaw, undo: &UndoJournal) -> Result<u64, StoreError> {
        if self.broken.load(Ordering::Acquire) {
            return Err(StoreError::Io {
                path: self.path.clone(),
                source: std::io::Error::other(
                    "an earlier checkpoint failed part way; reopen the store, which rolls it back to its last checkpoint",
                ),
            });
        }
        let pages = self.changed_pages();
        let written = self.save_and_write(&pages, map, undo);
        if written.is_err() {
            self.broken.store(true, Ordering::Release);
        }
        written
    }

    fn save_and_write(
        &self,
        pages: &[u64],
        map: &MmapRaw,
        undo: &UndoJournal,
    ) -> Result<u64, StoreError> {
        undo.save(pages, &|page, out| {
            self.file
                .read_exact_at(out, page * PAGE)
                .map_err(StoreError::io(&self.path))
        })?;
        crate::power_loss::point();
        let mut at = 0;
        while at < pages.len() {
            let mut end = at + 1;
            while end < pages.len() && pages[end] == pages[end - 1] + 1 {
                end += 1;
            }
            let start = pages[at] * PAGE;
            let stop = ((pages[end - 1] + 1) * PAGE).min(self.file_bytes);
            // SAFETY: the range lies within the file, which the map covers,
            // and no thread writes the map during a checkpoint.
            #[allow(unsafe_code)]
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    map.as_ptr().add(start as usize),
                    (stop - start) as usize,
                )
            };
            self.file
                .write_all_at(bytes, start)
                .map_err(|source| classify_write_error(&self.path, stop - start, source))?;
            at = end;
        }
        crate::power_loss::point();
        self.file
            .sync_data()
            .map_err(|source| classify_write_error(&self.path, 0, source))?;
        crate::power_loss::synced(&self.path);
        crate::power_loss::point();
        Ok(pages.len() as u64)
    }

    /// Forgets the changes: the checkpoint holding them is committed.
    pub(crate) fn clear(&self) {
        for word in self.changed.iter() {
            word.store(0, Ordering::Release);
        }
    }
}
