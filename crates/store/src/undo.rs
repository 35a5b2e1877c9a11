//! An undo journal for a file updated in place through a memory map, so
//! that a process killed between checkpoints (kill -9, the OOM killer, a
//! panic) reopens at its last checkpoint instead of at whatever mix of
//! older and newer records its pages held.
//!
//! Before the first change to a page since the last checkpoint, the page's
//! old bytes are appended to the journal; the change waits until the
//! append has returned, so the kernel holds the pre-image before it holds
//! the new bytes. Opening a store rolls every journalled page back, when
//! the journal belongs to the checkpoint the manifest names (its epoch).
//! A checkpoint flushes the map, commits the manifest, then empties the
//! journal under the new epoch; a crash between the two leaves a journal
//! of an older epoch, which is ignored.
//!
//! What it does not cover: a power loss, where the kernel may have written
//! a data page to disk before the journal page that protects it. Making
//! every append durable first (an fsync per page) would cost far more than
//! the checkpoints it protects.
//!
//! File layout: `ECFRUNDO`, the epoch (u64), then fixed-size entries of
//! page index (u64), CRC-32 of the page (u32) and the page's bytes (4096,
//! zero-padded for the file's last page). Threads reserve entries with an
//! atomic counter and write them with one positioned write each, with no
//! lock. An entry torn by a kill fails its CRC and is skipped: its page was
//! never changed, because changes wait for their append; entries after it
//! are still read, since every entry has the same size.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::dir::classify_write_error;
use crate::error::StoreError;

pub(crate) const PAGE: u64 = 4096;
const MAGIC: &[u8; 8] = b"ECFRUNDO";
const HEADER: u64 = 16;

const ENTRY: u64 = 12 + PAGE;

/// Reads a page's bytes as they were at the last checkpoint.
pub(crate) type ReadOldPage<'a> = dyn Fn(u64, &mut [u8]) -> Result<(), StoreError> + 'a;

const CLEAN: u8 = 0;
const COPYING: u8 = 1;
const JOURNALLED: u8 = 2;

/// The journal of one data file.
#[derive(Debug)]
pub(crate) struct UndoJournal {
    path: PathBuf,
    file: File,
    /// Bytes of the journal in use: the header and every reserved entry.
    end: AtomicU64,
    /// Per page of the data file: clean, being copied, or journalled.
    pages: Box<[AtomicU8]>,
    data_len: u64,
    /// The first failed append. Changes to unjournalled pages are refused
    /// from then on, and the next checkpoint reports it.
    failure: Mutex<Option<std::io::Error>>,
}

impl UndoJournal {
    /// Opens the journal at `path` for a data file of `data_len` bytes whose
    /// manifest names checkpoint `epoch`. A journal of that epoch is first
    /// rolled back through `restore(page, bytes)`; the caller must make the
    /// restored bytes durable before the journal is emptied, so `flush` is
    /// called in between.
    pub(crate) fn open(
        path: &Path,
        data_len: u64,
        epoch: u64,
        restore: &mut dyn FnMut(u64, &[u8]),
        flush: &mut dyn FnMut() -> Result<(), StoreError>,
    ) -> Result<(UndoJournal, u64), StoreError> {
        let rolled_back = Self::replay(path, data_len, epoch, restore)?;
        if rolled_back > 0 {
            flush()?;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(StoreError::io(path))?;
        let pages = data_len.div_ceil(PAGE) as usize;
        let journal = UndoJournal {
            path: path.to_path_buf(),
            file,
            end: AtomicU64::new(HEADER),
            pages: (0..pages).map(|_| AtomicU8::new(CLEAN)).collect(),
            data_len,
            failure: Mutex::new(None),
        };
        journal.reset(epoch)?;
        Ok((journal, rolled_back))
    }

    /// Hands every page the journal at `path` saved for checkpoint `epoch`
    /// to `restore`, without changing the journal: what reopening rolls
    /// back, and what a read-only reader applies to a private copy of the
    /// map. Returns how many pages it restored.
    pub(crate) fn replay(
        path: &Path,
        data_len: u64,
        epoch: u64,
        restore: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<u64, StoreError> {
        let mut rolled_back = 0;
        // No journal is nothing to roll back; a journal that exists but
        // cannot be opened is an error, since skipping it would reopen the
        // store with changes made after its checkpoint.
        let mut file = match File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(source) => {
                return Err(StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let mut header = [0u8; HEADER as usize];
        if file.read_exact(&mut header).is_ok()
            && &header[..8] == MAGIC
            && u64::from_le_bytes(word(&header[8..])) == epoch
        {
            let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
            let mut entry = vec![0u8; ENTRY as usize];
            // Read whole entries to the end; skip torn or unused ones.
            while reader.read_exact(&mut entry).is_ok() {
                let page = u64::from_le_bytes(word(&entry[..8]));
                let crc = u32::from_le_bytes(word(&entry[8..12]));
                let length = page_length(page, data_len);
                let bytes = &entry[12..];
                if length == 0 || crc32fast::hash(bytes) != crc {
                    continue;
                }
                restore(page, &bytes[..length]);
                rolled_back += 1;
            }
        }
        Ok(rolled_back)
    }

    /// Fails if an append has failed since the journal opened: some
    /// changes were refused, so the records must not be committed. The
    /// store reopens at its last checkpoint.
    pub(crate) fn check(&self) -> Result<(), StoreError> {
        match &*self.failure.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(error) => Err(classify_write_error(
                &self.path,
                PAGE,
                std::io::Error::new(error.kind(), error.to_string()),
            )),
            None => Ok(()),
        }
    }

    /// Empties the journal under `epoch`: the pages as they are now are the
    /// new restore point. Call with no change in flight.
    pub(crate) fn reset(&self, epoch: u64) -> Result<(), StoreError> {
        let mut header = [0u8; HEADER as usize];
        header[..8].copy_from_slice(MAGIC);
        header[8..].copy_from_slice(&epoch.to_le_bytes());
        self.file.set_len(0).map_err(StoreError::io(&self.path))?;
        self.file
            .write_all_at(&header, 0)
            .map_err(|source| classify_write_error(&self.path, HEADER, source))?;
        self.file.sync_data().map_err(StoreError::io(&self.path))?;
        self.end.store(HEADER, Ordering::Release);
        for page in self.pages.iter() {
            page.store(CLEAN, Ordering::Relaxed);
        }
        Ok(())
    }

    /// Makes sure the pages under `start..start + length` of the data file
    /// are journalled, copying each one first touched through `read_page`.
    /// Fails if a page could not be journalled (a full disk): the caller
    /// must then leave it unchanged, and every later checkpoint fails too.
    pub(crate) fn protect(
        &self,
        start: u64,
        length: u64,
        read_page: &dyn Fn(u64, &mut [u8]),
    ) -> Result<(), StoreError> {
        let first = start / PAGE;
        let last = (start + length - 1) / PAGE;
        if (first..=last).all(|page| self.protect_page(page, read_page)) {
            return Ok(());
        }
        // A page is refused only after an append failed, so `check` names
        // that failure; the fallback keeps this free of panics regardless.
        self.check()?;
        Err(StoreError::Io {
            path: self.path.clone(),
            source: std::io::Error::other("the undo journal refused a page"),
        })
    }

    fn protect_page(&self, page: u64, read_page: &dyn Fn(u64, &mut [u8])) -> bool {
        let state = &self.pages[page as usize];
        loop {
            match state.compare_exchange(CLEAN, COPYING, Ordering::Acquire, Ordering::Acquire) {
                Ok(_) => {
                    let appended = self.append(page, read_page);
                    // A failed page goes back to clean, so that every later
                    // change to it is refused too.
                    state.store(if appended { JOURNALLED } else { CLEAN }, Ordering::Release);
                    return appended;
                }
                Err(JOURNALLED) => return true,
                Err(CLEAN) if self.failed() => return false,
                // Another thread is copying it: wait for its append.
                Err(_) => std::thread::yield_now(),
            }
        }
    }

    fn failed(&self) -> bool {
        self.failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Journals every page of `pages` at once, its old bytes read through
    /// `read_old`, and makes the journal durable: what a checkpoint of
    /// changes held in memory does before it writes them (see
    /// `held_pages`). Call with no change in flight.
    pub(crate) fn save(&self, pages: &[u64], read_old: &ReadOldPage<'_>) -> Result<(), StoreError> {
        const BATCH: usize = 256;
        let mut buffer = vec![0u8; BATCH * ENTRY as usize];
        for batch in pages.chunks(BATCH) {
            for (&page, entry) in batch.iter().zip(buffer.chunks_exact_mut(ENTRY as usize)) {
                let length = page_length(page, self.data_len);
                entry.fill(0);
                read_old(page, &mut entry[12..12 + length])?;
                let crc = crc32fast::hash(&entry[12..]);
                entry[..8].copy_from_slice(&page.to_le_bytes());
                entry[8..12].copy_from_slice(&crc.to_le_bytes());
            }
            let bytes = &buffer[..batch.len() * ENTRY as usize];
            let at = self.end.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            self.file
                .write_all_at(bytes, at)
                .map_err(|source| classify_write_error(&self.path, bytes.len() as u64, source))?;
        }
        self.file
            .sync_data()
            .map_err(|source| classify_write_error(&self.path, 0, source))
    }

    fn append(&self, page: u64, read_page: &dyn Fn(u64, &mut [u8])) -> bool {
        if self.failed() {
            return false;
        }
        let length = page_length(page, self.data_len);
        let mut entry = [0u8; ENTRY as usize];
        read_page(page, &mut entry[12..12 + length]);
        let crc = crc32fast::hash(&entry[12..]);
        entry[..8].copy_from_slice(&page.to_le_bytes());
        entry[8..12].copy_from_slice(&crc.to_le_bytes());
        let at = self.end.fetch_add(ENTRY, Ordering::Relaxed);
        match self.file.write_all_at(&entry, at) {
            Ok(()) => true,
            Err(error) => {
                *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
                false
            }
        }
    }
}

/// The first `N` bytes of `bytes`, which callers slice to exactly `N`.
fn word<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

/// Bytes of the data file in `page`; 0 past its end.
fn page_length(page: u64, data_len: u64) -> usize {
    data_len.saturating_sub(page * PAGE).min(PAGE) as usize
}
