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
//! File layout (version 2): `ECFRUND2`, the store's id (u64), the epoch
//! (u64), a CRC-32 of those 24 bytes, then fixed-size entries from byte
//! `HEADER`: page index (u64), a CRC-32 over the store id, the epoch, the
//! page index and the page's bytes (u32), and the page's bytes (4096,
//! zero-padded for the file's last page). The id ties a journal to its
//! store: another store's journal (copied in, or left behind by a
//! directory swap) names another id and is refused before anything is
//! replayed, and its entries could not pass their CRCs here either. The
//! caller also replays a journal into a private copy and checks the result
//! against the checkpoint's checksums before it replays it for real, so a
//! damaged or foreign journal changes nothing on disk.
//!
//! Threads reserve entries with an atomic counter and write them with one
//! positioned write each, with no lock. An entry torn by a kill fails its
//! CRC and is skipped: its page was never changed, because changes wait
//! for their append; entries after it are still read, since every entry
//! has the same size.
//!
//! Version 1 (`ECFRUNDO`, the epoch, CRCs over the page bytes only) is
//! still replayed for a store made before ids, whose manifest has none.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::dir::classify_write_error;
use crate::error::StoreError;

pub(crate) const PAGE: u64 = 4096;
const MAGIC: &[u8; 8] = b"ECFRUND2";
/// Version 1's magic: no store id, entry CRCs over the page bytes alone.
const MAGIC_V1: &[u8; 8] = b"ECFRUNDO";
/// Version 2's header: magic, store id, epoch, CRC-32 of the two, padding.
const HEADER: u64 = 32;
/// Version 1's header: magic and epoch.
const HEADER_V1: u64 = 16;

const ENTRY: u64 = 12 + PAGE;

/// Reads a page's bytes as they were at the last checkpoint.
pub(crate) type ReadOldPage<'a> = dyn Fn(u64, &mut [u8]) -> Result<(), StoreError> + 'a;

const CLEAN: u8 = 0;
const COPYING: u8 = 1;
const JOURNALLED: u8 = 2;

/// Which journal a replay reads: the store's id and the checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct JournalOwner {
    /// The manifest's store id; 0 for a store made before ids.
    pub(crate) store_id: u64,
    pub(crate) epoch: u64,
}

/// A journal's header, as its first bytes say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Header {
    V2 { store_id: u64, epoch: u64 },
    V1 { epoch: u64 },
}

impl Header {
    fn parse(bytes: &[u8]) -> Option<Header> {
        if bytes.len() >= HEADER as usize && &bytes[..8] == MAGIC {
            let stored = u32::from_le_bytes(word(&bytes[24..]));
            (crc32fast::hash(&bytes[..24]) == stored).then(|| Header::V2 {
                store_id: u64::from_le_bytes(word(&bytes[8..])),
                epoch: u64::from_le_bytes(word(&bytes[16..])),
            })
        } else if bytes.len() >= HEADER_V1 as usize && &bytes[..8] == MAGIC_V1 {
            Some(Header::V1 {
                epoch: u64::from_le_bytes(word(&bytes[8..])),
            })
        } else {
            None
        }
    }

    fn encode(owner: JournalOwner) -> [u8; HEADER as usize] {
        let mut header = [0u8; HEADER as usize];
        header[..8].copy_from_slice(MAGIC);
        header[8..16].copy_from_slice(&owner.store_id.to_le_bytes());
        header[16..24].copy_from_slice(&owner.epoch.to_le_bytes());
        let crc = crc32fast::hash(&header[..24]);
        header[24..28].copy_from_slice(&crc.to_le_bytes());
        header
    }
}

/// An entry's CRC: over the owner and the page index as well as the bytes,
/// so an entry is only ever valid in the journal of its own store.
fn entry_crc(owner: JournalOwner, page: u64, bytes: &[u8]) -> u32 {
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&owner.store_id.to_le_bytes());
    hasher.update(&owner.epoch.to_le_bytes());
    hasher.update(&page.to_le_bytes());
    hasher.update(bytes);
    hasher.finalize()
}

/// How a journal's entries are checksummed, by its version.
#[derive(Clone, Copy, Debug)]
enum EntryCrc {
    V2(JournalOwner),
    /// Over the page bytes alone.
    V1,
}

impl EntryCrc {
    fn of(self, page: u64, bytes: &[u8]) -> u32 {
        match self {
            EntryCrc::V2(owner) => entry_crc(owner, page, bytes),
            EntryCrc::V1 => crc32fast::hash(bytes),
        }
    }
}

/// A journal that must not be replayed, and why.
fn refuse(path: &Path, reason: &str) -> StoreError {
    StoreError::Corrupt {
        path: path.to_path_buf(),
        reason: format!(
            "{reason}; nothing was replayed or written. If this store's last session was killed, its own journal is gone and the store cannot be rolled back to its checkpoint: restore the store from a backup. Otherwise remove this file"
        ),
    }
}

/// The journal of one data file.
#[derive(Debug)]
pub(crate) struct UndoJournal {
    path: PathBuf,
    file: File,
    /// Whose journal this is, as written in its header at each reset.
    owner: Mutex<JournalOwner>,
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
    /// manifest names `owner`. A journal of that owner is first rolled back
    /// through `restore(page, bytes)`; the caller must make the restored
    /// bytes durable before the journal is emptied, so `flush` is called in
    /// between. The caller should have checked the replay on a private
    /// copy first ([`Self::replay`]).
    pub(crate) fn open(
        path: &Path,
        data_len: u64,
        owner: JournalOwner,
        restore: &mut dyn FnMut(u64, &[u8]),
        flush: &mut dyn FnMut() -> Result<(), StoreError>,
    ) -> Result<(UndoJournal, u64), StoreError> {
        let rolled_back = Self::replay(path, data_len, owner, restore)?;
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
            owner: Mutex::new(owner),
            end: AtomicU64::new(HEADER),
            pages: (0..pages).map(|_| AtomicU8::new(CLEAN)).collect(),
            data_len,
            failure: Mutex::new(None),
        };
        journal.reset(owner)?;
        Ok((journal, rolled_back))
    }

    /// Hands every page the journal at `path` saved for `owner` to
    /// `restore`, without changing the journal: what reopening rolls back,
    /// what a read-only reader applies to a private copy of the map, and
    /// what a writable open checks on such a copy first. Returns how many
    /// pages it restored.
    ///
    /// A journal of an older epoch of this store is stale (a crash between
    /// a checkpoint's manifest and its journal reset) and restores nothing.
    /// A journal that is not a regular file, names another store, has a
    /// damaged header, or does not fit the data file is refused.
    pub(crate) fn replay(
        path: &Path,
        data_len: u64,
        owner: JournalOwner,
        restore: &mut dyn FnMut(u64, &[u8]),
    ) -> Result<u64, StoreError> {
        // No journal is nothing to roll back; a journal that exists but
        // cannot be opened is an error, since skipping it would reopen the
        // store with changes made after its checkpoint.
        let file = match File::open(path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(source) => {
                return Err(StoreError::Io {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
        let metadata = file.metadata().map_err(StoreError::io(path))?;
        if !metadata.is_file() {
            return Err(refuse(path, "the undo journal is not a regular file"));
        }
        let length = metadata.len();
        let mut head = [0u8; HEADER as usize];
        let read = read_up_to(&file, &mut head).map_err(StoreError::io(path))?;
        if read == 0 {
            // Created, never reset: a kill right after the store was made.
            return Ok(0);
        }
        let (header_bytes, entries_of) = match Header::parse(&head[..read]) {
            Some(Header::V2 { store_id, epoch }) => {
                if store_id != owner.store_id {
                    return Err(refuse(
                        path,
                        &format!(
                            "the undo journal belongs to another store (id {store_id:#018x}; this store is {:#018x})",
                            owner.store_id
                        ),
                    ));
                }
                if epoch != owner.epoch {
                    return Ok(0);
                }
                (HEADER, EntryCrc::V2(owner))
            }
            Some(Header::V1 { epoch }) if owner.store_id == 0 => {
                if epoch != owner.epoch {
                    return Ok(0);
                }
                (HEADER_V1, EntryCrc::V1)
            }
            Some(Header::V1 { .. }) => {
                return Err(refuse(
                    path,
                    "the undo journal is an old one without a store id, but this store has an id: it belongs to another store",
                ));
            }
            None => {
                return Err(refuse(
                    path,
                    "the undo journal's header is damaged or it is not an undo journal",
                ));
            }
        };
        let entries = (length.saturating_sub(header_bytes)) / ENTRY;
        let most = data_len.div_ceil(PAGE);
        if entries > most.saturating_mul(4).saturating_add(1024) {
            return Err(refuse(
                path,
                &format!(
                    "the undo journal holds {entries} entries, more than a data file of {most} pages could need"
                ),
            ));
        }
        let mut rolled_back = 0;
        let mut entry = vec![0u8; ENTRY as usize];
        for index in 0..entries {
            let at = header_bytes + index * ENTRY;
            if file.read_exact_at(&mut entry, at).is_err() {
                break;
            }
            let page = u64::from_le_bytes(word(&entry[..8]));
            let crc = u32::from_le_bytes(word(&entry[8..12]));
            let length = page_length(page, data_len);
            let bytes = &entry[12..];
            // Torn or unused entries are skipped (see the module docs).
            if length == 0 || entries_of.of(page, bytes) != crc {
                continue;
            }
            restore(page, &bytes[..length]);
            rolled_back += 1;
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
    pub(crate) fn reset(&self, owner: JournalOwner) -> Result<(), StoreError> {
        let header = Header::encode(owner);
        *self.owner.lock().unwrap_or_else(PoisonError::into_inner) = owner;
        self.file.set_len(0).map_err(StoreError::io(&self.path))?;
        self.file
            .write_all_at(&header, 0)
            .map_err(|source| classify_write_error(&self.path, HEADER, source))?;
        self.file.sync_data().map_err(StoreError::io(&self.path))?;
        crate::power_loss::synced(&self.path);
        crate::power_loss::point();
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

    fn owner(&self) -> JournalOwner {
        *self.owner.lock().unwrap_or_else(PoisonError::into_inner)
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
                let crc = entry_crc(self.owner(), page, &entry[12..]);
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
            .map_err(|source| classify_write_error(&self.path, 0, source))?;
        crate::power_loss::synced(&self.path);
        Ok(())
    }

    fn append(&self, page: u64, read_page: &dyn Fn(u64, &mut [u8])) -> bool {
        if self.failed() {
            return false;
        }
        let length = page_length(page, self.data_len);
        let mut entry = [0u8; ENTRY as usize];
        read_page(page, &mut entry[12..12 + length]);
        let crc = entry_crc(self.owner(), page, &entry[12..]);
        entry[..8].copy_from_slice(&page.to_le_bytes());
        entry[8..12].copy_from_slice(&crc.to_le_bytes());
        let at = self.end.fetch_add(ENTRY, Ordering::Relaxed);
        match self.file.write_all_at(&entry, at) {
            Ok(()) => {
                crate::power_loss::point();
                true
            }
            Err(error) => {
                *self.failure.lock().unwrap_or_else(PoisonError::into_inner) = Some(error);
                false
            }
        }
    }
}

/// Reads as much of `out` as the file holds from its start.
fn read_up_to(file: &File, out: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < out.len() {
        match file.read_at(&mut out[filled..], filled as u64)? {
            0 => break,
            read => filled += read,
        }
    }
    Ok(filled)
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
