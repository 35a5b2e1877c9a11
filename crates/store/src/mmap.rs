//! The mmap backend: a minimal perfect hash over a fixed key universe, and
//! a preallocated file of fixed-size records that the kernel pages in and
//! out. Resident memory is the perfect hash plus whatever pages the kernel
//! chooses to keep, so the file may be far larger than RAM.
//!
//! Files in the directory:
//! - `mmap-phf.bin`: the boomphf hash, built once and never rebuilt;
//! - `mmap-records.dat`: a 4 KiB header, then one record per key in phf order;
//! - `mmap-keys.dat`: the keys in phf order, read only to export.
//!
//! Each record starts with a 32-bit check of its key. A key outside the
//! universe hashes to some slot whose check does not match, and is refused
//! instead of silently sharing that slot.
//!
//! Concurrency: a record's key check is written once, while the store is
//! built and before any other thread can see it, and never again; lookups
//! read it with an atomic load (records are whole 4-byte words, so it is
//! aligned). The rest of a record is only read or written under its
//! stripe's lock. So no byte is ever read while another thread writes it.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};

use boomphf::Mphf;
use memmap2::{Advice, MmapOptions, MmapRaw};

use crate::client_state::ClientState;
use crate::dir::{
    Backend, Committed, Fingerprint, MANIFEST_FILE, Manifest, StoreDir, classify_write_error,
    write_atomically,
};
use crate::durable::DurableTable;
use crate::error::StoreError;
use crate::held_pages::{HeldPages, Writeback};
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::record::Record;
use crate::table::{Key, SlotId, Table};
use crate::undo::{JournalOwner, PAGE, UndoJournal};
use crate::verify::{Checksum, Timer, Verification, Verify, checksum_file, crc32_parallel, expect};

pub const PHF_FILE: &str = "mmap-phf.bin";
pub const RECORDS_FILE: &str = "mmap-records.dat";
pub const KEYS_FILE: &str = "mmap-keys.dat";
pub(crate) const UNDO_FILE: &str = "mmap-undo.dat";
const HEADER_BYTES: u64 = 4096;
/// A record's leading key check: immutable once the store is built.
const KEY_CHECK_BYTES: usize = 4;
/// Held while a record's body is read or written.
type StripeGuard<'a> = std::sync::MutexGuard<'a, ()>;
const HEADER_MAGIC: &[u8; 8] = b"ECFRMMAP";
/// Updates of slots in one stripe exclude each other; 64 Ki stripes make two
/// threads meeting on one stripe rare while costing 512 KiB.
const STRIPES: usize = 1 << 16;
/// The load factor boomphf trades size for build speed with.
const GAMMA: f64 = 1.7;

/// A fixed-universe table in a memory-mapped file.
pub struct MmapTable {
    dir: StoreDir,
    layout: RecordLayout,
    manifest: Committed,
    phf: Mphf<Key>,
    map: MmapRaw,
    records: u64,
    stripes: Box<[Mutex<()>]>,
    /// `None` when opened read-only: updates and checkpoints are refused.
    undo: Option<UndoJournal>,
    /// The changed pages when they are held until checkpoints (the map is
    /// then a copy in memory, [`Writeback::AtCheckpoint`]); `None` with a
    /// shared map.
    held: Option<HeldPages>,
    verification: Verification,
}

impl std::fmt::Debug for MmapTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MmapTable")
            .field("dir", &self.dir.path())
            .field("records", &self.records)
            .finish()
    }
}

/// A key universe the perfect hash can be built from without holding it in
/// memory: chunks that can be walked more than once and know their length.
pub trait KeyUniverse: Sync {
    type Chunk: IntoIterator<Item = Key> + Send + Sync + Clone;
    fn chunks(&self) -> Vec<Self::Chunk>;
    fn len(&self) -> u64;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<U: KeyUniverse> KeyUniverse for &U {
    type Chunk = U::Chunk;

    fn chunks(&self) -> Vec<U::Chunk> {
        (**self).chunks()
    }

    fn len(&self) -> u64 {
        (**self).len()
    }
}

/// A universe already in memory, for tests and benchmarks.
impl KeyUniverse for Vec<Vec<Key>> {
    type Chunk = Vec<Key>;

    fn chunks(&self) -> Vec<Vec<Key>> {
        self.clone()
    }

    fn len(&self) -> u64 {
        self.iter().map(|chunk| chunk.len() as u64).sum()
    }
}

/// The chunks in the form boomphf walks: each pass clones the chunks it
/// takes, so a lazy chunk should be cheap to clone.
struct ChunkList<C>(Vec<C>);

impl<'a, C: Clone> IntoIterator for &'a ChunkList<C> {
    type Item = C;
    type IntoIter = std::iter::Cloned<std::slice::Iter<'a, C>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().cloned()
    }
}

impl MmapTable {
    /// Opens the store in `path`. A new directory is built from `universe`:
    /// the perfect hash, then a fully allocated records file. An existing one
    /// is checked against `layout` and `fingerprint` and reopened without
    /// touching `universe`. `progress` is told of build stages.
    pub fn open<U>(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        universe: &U,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MmapTable, StoreError>
    where
        U: KeyUniverse,
        <U::Chunk as IntoIterator>::IntoIter: ExactSizeIterator,
    {
        Self::open_with(path, layout, fingerprint, || universe, progress)
    }

    /// [`Self::open`] for a universe that is costly to list: `universe` is
    /// called only when the store is new, never on resume.
    pub fn open_with<U>(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        universe: impl FnOnce() -> U,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MmapTable, StoreError>
    where
        U: KeyUniverse,
        <U::Chunk as IntoIterator>::IntoIter: ExactSizeIterator,
    {
        Self::open_verified(path, layout, fingerprint, universe, progress, Verify::Full)
    }

    /// [`Self::open_with`], checking an existing store as `verify` says:
    /// in full (every file's CRC-32: about a second a gigabyte from disk)
    /// or by lengths only. Either way nothing reads a record before the
    /// check passes.
    pub fn open_verified<U>(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        universe: impl FnOnce() -> U,
        progress: &mut dyn FnMut(&str),
        verify: Verify,
    ) -> Result<MmapTable, StoreError>
    where
        U: KeyUniverse,
        <U::Chunk as IntoIterator>::IntoIter: ExactSizeIterator,
    {
        let dir = StoreDir::lock(path)?;
        let wanted = Manifest::new(Backend::Mmap, layout, fingerprint);
        match dir.read_manifest()? {
            Some(stored) => {
                stored.check_compatible(&wanted, path)?;
                Self::reopen(dir, layout, stored, verify, progress, Access::ReadWrite)
            }
            None => {
                progress("listing the key universe");
                Self::build(dir, layout, wanted, &universe(), progress)
            }
        }
    }

    fn build<U>(
        dir: StoreDir,
        layout: RecordLayout,
        mut manifest: Manifest,
        universe: &U,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MmapTable, StoreError>
    where
        U: KeyUniverse,
        <U::Chunk as IntoIterator>::IntoIter: ExactSizeIterator,
    {
        let count = universe.len();
        let chunks = ChunkList(universe.chunks());
        progress(&format!("building the perfect hash over {count} keys"));
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let phf = Mphf::from_chunked_iterator_parallel(GAMMA, &chunks, None, count, threads);
        progress("allocating the records file");
        let records_path = dir.file(RECORDS_FILE);
        let file_bytes = HEADER_BYTES + count * layout.bytes();
        let file = allocate(&records_path, file_bytes)?;
        let map = MmapOptions::new()
            .map_raw(&file)
            .map_err(StoreError::io(&records_path))?;
        write_header(&map, layout, count);
        let keys_path = dir.file(KEYS_FILE);
        let keys_file = allocate(&keys_path, count * KEY_BYTES)?;
        write_key_checks_and_keys(
            &chunks.0, &phf, layout, &map, &keys_file, &keys_path, count, threads, progress,
        )?;
        keys_file.sync_all().map_err(StoreError::io(&keys_path))?;
        map.flush().map_err(StoreError::io(&records_path))?;
        progress("saving the perfect hash");
        let phf_bytes = postcard::to_stdvec(&phf).map_err(|error| StoreError::Corrupt {
            path: dir.file(PHF_FILE),
            reason: format!("cannot serialise the perfect hash: {error}"),
        })?;
        write_atomically(&dir.file(PHF_FILE), &phf_bytes)?;
        manifest.records = count;
        progress("summing the files for later checks");
        manifest.checksums = vec![
            records_checksum(&map),
            checksum_file(dir.path(), KEYS_FILE)?,
            checksum_file(dir.path(), PHF_FILE)?,
        ];
        dir.write_manifest(&manifest)?;
        map.advise(Advice::Random)
            .map_err(StoreError::io(&records_path))?;
        let (undo, _) = open_undo(&dir, &map, file_bytes, journal_owner(&manifest))?;
        Ok(MmapTable {
            dir,
            layout,
            manifest: Committed::new(manifest),
            phf,
            map,
            records: count,
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
            undo: Some(undo),
            held: None,
            verification: Verification::default(),
        })
    }

    /// Opens an existing store to read it only, as export and status do on
    /// a read-only directory: the records file is mapped privately, so
    /// the undo journal of a session that ended without a checkpoint is
    /// applied to this process's copy and the file is never written.
    /// Updates and checkpoints are refused.
    pub fn open_read_only(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        verify: Verify,
    ) -> Result<MmapTable, StoreError> {
        let dir = StoreDir::lock(path)?;
        let wanted = Manifest::new(Backend::Mmap, layout, fingerprint);
        let stored = dir.read_manifest()?.ok_or_else(|| StoreError::Missing {
            path: dir.file(MANIFEST_FILE),
            hint: "there is no store here to read".to_owned(),
        })?;
        stored.check_compatible(&wanted, path)?;
        Self::reopen(dir, layout, stored, verify, &mut |_| {}, Access::ReadOnly)
    }

    fn reopen(
        dir: StoreDir,
        layout: RecordLayout,
        manifest: Manifest,
        verify: Verify,
        progress: &mut dyn FnMut(&str),
        access: Access,
    ) -> Result<MmapTable, StoreError> {
        let timer = Timer::start();
        let phf_path = dir.file(PHF_FILE);
        let phf_bytes = std::fs::read(&phf_path).map_err(StoreError::missing_or_io(
            &phf_path,
            "the perfect hash is never rebuilt over existing records (slots would move); \
             restore the file or start a new store directory",
        ))?;
        let phf: Mphf<Key> =
            postcard::from_bytes(&phf_bytes).map_err(|error| StoreError::Corrupt {
                path: phf_path.clone(),
                reason: format!("the perfect hash does not load ({error})"),
            })?;
        let records_path = dir.file(RECORDS_FILE);
        let file = OpenOptions::new()
            .read(true)
            .write(access == Access::ReadWrite)
            .open(&records_path)
            .map_err(StoreError::missing_or_io(
                &records_path,
                "the records file is gone; restore it or start a new store directory",
            ))?;
        let expected = HEADER_BYTES + manifest.records * layout.bytes();
        let actual = file
            .metadata()
            .map_err(StoreError::io(&records_path))?
            .len();
        if actual != expected {
            return Err(StoreError::Corrupt {
                path: records_path,
                reason: format!(
                    "it is {actual} bytes, but {} records need {expected}; it was truncated",
                    manifest.records
                ),
            });
        }
        let map = match access {
            Access::ReadWrite => MmapOptions::new().map_raw(&file),
            // Copy-on-write: the journal's pages land in this process only.
            Access::ReadOnly => {
                // SAFETY: a private map; the directory lock keeps writers
                // of the file away while it is mapped.
                #[allow(unsafe_code)]
                let copy = unsafe { MmapOptions::new().map_copy(&file) };
                copy.map(MmapRaw::from)
            }
        }
        .map_err(StoreError::io(&records_path))?;
        check_header(&map, layout, manifest.records, &records_path)?;
        map.advise(Advice::Random)
            .map_err(StoreError::io(&records_path))?;
        let keys_path = dir.file(KEYS_FILE);
        let keys_bytes = std::fs::metadata(&keys_path)
            .map_err(StoreError::missing_or_io(
                &keys_path,
                "the keys file is gone; restore it or start a new store directory",
            ))?
            .len();
        if keys_bytes != manifest.records * KEY_BYTES {
            return Err(StoreError::Corrupt {
                path: keys_path,
                reason: format!(
                    "it is {keys_bytes} bytes, but {} keys need {}; it was truncated or overwritten",
                    manifest.records,
                    manifest.records * KEY_BYTES
                ),
            });
        }
        // The journal puts back what changed after the checkpoint, so the
        // files are checked as the checkpoint left them.
        // A writable open first replays the journal into a private copy and
        // checks that against the checkpoint: a foreign or damaged journal
        // is refused with nothing written.
        let owner = journal_owner(&manifest);
        let undo = match access {
            Access::ReadWrite => {
                if verify == Verify::Full && !manifest.checksums.is_empty() {
                    dry_run_journal(&dir, &file, expected, owner, &manifest.checksums)?;
                }
                Some(open_undo(&dir, &map, expected, owner)?.0)
            }
            Access::ReadOnly => {
                UndoJournal::replay(&dir.file(UNDO_FILE), expected, owner, &mut |page, bytes| {
                    restore_page(&map, page, bytes);
                })?;
                None
            }
        };
        let verification = match (verify, manifest.checksums.is_empty()) {
            (_, true) => Verification {
                checked: Vec::new(),
                not_checked: Some(
                    "the manifest predates checksums; the next checkpoint records them".to_owned(),
                ),
                seconds: timer.seconds(),
            },
            (Verify::LengthsOnly, false) => Verification {
                checked: Vec::new(),
                not_checked: Some("lengths only, as asked (--skip-checksums)".to_owned()),
                seconds: timer.seconds(),
            },
            (Verify::Full, false) => {
                progress("verifying the store's checksums");
                let checked = verify_files(&dir, &map, &manifest.checksums)?;
                Verification {
                    checked,
                    not_checked: None,
                    seconds: timer.seconds(),
                }
            }
        };
        Ok(MmapTable {
            dir,
            layout,
            records: manifest.records,
            manifest: Committed::new(manifest),
            phf,
            map,
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
            undo,
            held: None,
            verification,
        })
    }

    /// Switches how changes reach the records file (see [`Writeback`]);
    /// call right after opening, before any update. A store opened
    /// read-only writes nothing either way and is returned as it is.
    pub fn with_writeback(mut self, writeback: Writeback) -> Result<MmapTable, StoreError> {
        if self.undo.is_none() || writeback == self.writeback() {
            return Ok(self);
        }
        let records_path = self.dir.file(RECORDS_FILE);
        match writeback {
            Writeback::Continuous => {
                // The held changes would be lost with the copy.
                if self
                    .held
                    .as_ref()
                    .is_some_and(|held| !held.changed_pages().is_empty())
                {
                    return Err(StoreError::Io {
                        path: records_path,
                        source: std::io::Error::other(
                            "changes are held in memory; checkpoint before switching to continuous writeback",
                        ),
                    });
                }
                self.map = MmapOptions::new()
                    .map_raw(&self.open_records_file(&records_path)?)
                    .map_err(StoreError::io(&records_path))?;
                self.held = None;
            }
            Writeback::AtCheckpoint => {
                let file = self.open_records_file(&records_path)?;
                let map = held_copy(&file, &records_path)?;
                check_header(&map, self.layout, self.records, &records_path)?;
                let file_bytes = map.len() as u64;
                self.held = Some(HeldPages::new(file, &records_path, file_bytes));
                self.map = map;
                return Ok(self);
            }
        }
        self.map
            .advise(Advice::Random)
            .map_err(StoreError::io(&records_path))?;
        Ok(self)
    }

    /// How changes reach the records file now.
    pub fn writeback(&self) -> Writeback {
        if self.held.is_some() {
            Writeback::AtCheckpoint
        } else {
            Writeback::Continuous
        }
    }

    fn open_records_file(&self, path: &Path) -> Result<File, StoreError> {
        OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(StoreError::io(path))
    }

    /// The bytes of the saved perfect hash: what must stay resident.
    pub fn phf_bytes(&self) -> u64 {
        std::fs::metadata(self.dir.file(PHF_FILE)).map_or(0, |meta| meta.len())
    }

    /// Refuses a slot beyond this table's records: one made by another,
    /// larger table. Every path to `record_pointer` from the `Table` trait
    /// passes here first, which is what keeps its pointer in the mapping.
    #[inline]
    fn check_bounds(&self, slot: SlotId) -> Result<(), StoreError> {
        if slot.get() < self.records {
            Ok(())
        } else {
            Err(StoreError::NoSuchSlot {
                slot: slot.get(),
                records: self.records,
            })
        }
    }

    #[inline]
    fn record_pointer(&self, slot: SlotId) -> *mut u8 {
        debug_assert!(slot.get() < self.records);
        let offset = HEADER_BYTES + slot.get() * self.layout.bytes();
        // SAFETY: every caller has a slot below `records`: `slot` returns
        // only such ids, and `read` and `update` check theirs
        // (`check_bounds`), so the offset is within the mapping.
        #[allow(unsafe_code)]
        unsafe {
            self.map.as_mut_ptr().add(offset as usize)
        }
    }

    /// Where the perfect hash puts `key`, if within the records; a key
    /// outside the universe may land anywhere, hence [`Self::holds`].
    #[inline]
    fn hashed_slot(&self, key: Key) -> Option<SlotId> {
        self.phf
            .try_hash(&key)
            .filter(|&slot| slot < self.records)
            .map(SlotId::new)
    }

    /// Whether the record at `slot` (from [`Self::hashed_slot`]) is `key`'s.
    #[inline]
    fn holds(&self, slot: SlotId, key: Key) -> bool {
        self.key_check_of(slot) == RecordLayout::key_check(key)
    }

    /// The key check of the record at `slot`, which must be below `records`.
    #[inline]
    fn key_check_of(&self, slot: SlotId) -> u32 {
        // SAFETY: the record lies within the mapping (see `record_pointer`)
        // and starts on a 4-byte boundary: the header is 4096 bytes and
        // every layout's record a whole number of words. The check is only
        // ever written before the table is shared (`build`), so this load
        // races with no write; the mapping outlives `self`.
        #[allow(unsafe_code)]
        let check = unsafe { AtomicU32::from_ptr(self.record_pointer(slot).cast::<u32>()) };
        u32::from_le(check.load(Ordering::Relaxed))
    }

    #[inline]
    fn stripe(&self, slot: SlotId) -> StripeGuard<'_> {
        self.stripes[slot.index() % STRIPES]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Copies one record's bytes after its key check out. Only callable
    /// with the record's stripe held, which is what makes it sound.
    #[inline]
    fn load_body(&self, _stripe: &StripeGuard<'_>, slot: SlotId, out: &mut [u8]) {
        // SAFETY: bytes 4.. of the record are within the mapping (see
        // `record_pointer`; `out` is the layout's length less 4), and every
        // writer of them holds the same stripe lock as the caller.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.record_pointer(slot).add(KEY_CHECK_BYTES),
                out.as_mut_ptr(),
                out.len(),
            );
        }
    }

    #[inline]
    /// Copies one page of the records file out, for the undo journal.
    fn read_page(&self, page: u64, out: &mut [u8]) {
        read_mapped(&self.map, page * PAGE, out);
    }

    /// Writes one record's bytes after its key check, under its stripe.
    fn store_body(&self, _stripe: &StripeGuard<'_>, slot: SlotId, bytes: &[u8]) {
        // SAFETY: as for `load_body`; the stripe lock makes this the only
        // access to these bytes.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                bytes.as_ptr(),
                self.record_pointer(slot).add(KEY_CHECK_BYTES),
                bytes.len(),
            );
        }
    }
}

fn read_mapped(map: &MmapRaw, offset: u64, out: &mut [u8]) {
    debug_assert!(offset as usize + out.len() <= map.len());
    // SAFETY: callers pass ranges within the file, which the mapping
    // covers; bytes are only copied out.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(
            map.as_ptr().add(offset as usize),
            out.as_mut_ptr(),
            out.len(),
        );
    }
}

/// The journal that belongs to the checkpoint `manifest` describes.
fn journal_owner(manifest: &Manifest) -> JournalOwner {
    JournalOwner {
        store_id: manifest.store_id,
        epoch: manifest.checkpoints,
    }
}

/// Replays the journal into a private copy of the records file and checks
/// the copy against the checkpoint's checksum of that file, so that the
/// real replay that follows writes only what verifies. Costs nothing but
/// the header read when the journal has no entries for this checkpoint.
fn dry_run_journal(
    dir: &StoreDir,
    file: &File,
    file_bytes: u64,
    owner: JournalOwner,
    recorded: &[Checksum],
) -> Result<(), StoreError> {
    let records_path = dir.file(RECORDS_FILE);
    let Some(expected) = recorded
        .iter()
        .find(|checksum| checksum.what == RECORDS_FILE)
    else {
        return Ok(());
    };
    // SAFETY: a private map; the directory lock keeps writers of the file
    // away while it is mapped, and the journal only writes this copy.
    #[allow(unsafe_code)]
    let copy = unsafe { MmapOptions::new().map_copy(file) }
        .map(MmapRaw::from)
        .map_err(StoreError::io(&records_path))?;
    let replayed = UndoJournal::replay(
        &dir.file(UNDO_FILE),
        file_bytes,
        owner,
        &mut |page, bytes| {
            restore_page(&copy, page, bytes);
        },
    )?;
    if replayed == 0 {
        return Ok(());
    }
    expect(expected, &records_checksum(&copy), &records_path).map_err(|error| match error {
        StoreError::Corrupt { reason, .. } => StoreError::Corrupt {
            path: dir.file(UNDO_FILE),
            reason: format!(
                "rolling {RECORDS_FILE} back with it would not give the checkpoint's records ({reason}); nothing was replayed or written"
            ),
        },
        other => other,
    })
}

/// Opens the records file's undo journal, first rolling the records back
/// to checkpoint `epoch` if a killed process left changes after it.
/// The checksum of the records file through its map. Call with no update
/// in flight: at a checkpoint, or before the table is shared.
fn records_checksum(map: &MmapRaw) -> Checksum {
    // SAFETY: the map is live for the borrow, and no thread writes it while
    // it is read: callers hold the checkpoint's no-update contract or the
    // only reference to the table.
    #[allow(unsafe_code)]
    let bytes = unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) };
    Checksum {
        what: RECORDS_FILE.to_owned(),
        bytes: bytes.len() as u64,
        crc32: crc32_parallel(bytes),
    }
}

/// Checks every file the manifest lists against what is on disk now.
fn verify_files(
    dir: &StoreDir,
    map: &MmapRaw,
    recorded: &[Checksum],
) -> Result<Vec<String>, StoreError> {
    let mut checked = Vec::new();
    for expected in recorded {
        let found = if expected.what == RECORDS_FILE {
            records_checksum(map)
        } else {
            checksum_file(dir.path(), &expected.what)?
        };
        expect(expected, &found, &dir.file(&expected.what))?;
        checked.push(format!("{} ({} bytes)", expected.what, expected.bytes));
    }
    Ok(checked)
}

/// Whether a store may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Access {
    ReadWrite,
    ReadOnly,
}

/// Puts one journalled page back into the map.
fn restore_page(map: &MmapRaw, page: u64, bytes: &[u8]) {
    // SAFETY: the journal only holds pages within the file, and no other
    // thread has the table yet.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            map.as_mut_ptr().add((page * PAGE) as usize),
            bytes.len(),
        );
    }
}

fn open_undo(
    dir: &StoreDir,
    map: &MmapRaw,
    file_bytes: u64,
    owner: JournalOwner,
) -> Result<(UndoJournal, u64), StoreError> {
    let records_path = dir.file(RECORDS_FILE);
    UndoJournal::open(
        &dir.file(UNDO_FILE),
        file_bytes,
        owner,
        &mut |page, bytes| restore_page(map, page, bytes),
        &mut || map.flush().map_err(StoreError::io(&records_path)),
    )
}

fn allocate(path: &Path, bytes: u64) -> Result<File, StoreError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(StoreError::io(path))?;
    // Allocate every block now: a sparse file on a full disk would turn a
    // later page write into SIGBUS instead of an error here.
    match rustix::fs::fallocate(&file, rustix::fs::FallocateFlags::empty(), 0, bytes) {
        Ok(()) => {}
        Err(rustix::io::Errno::OPNOTSUPP) => write_zeros(&file, path, bytes)?,
        Err(errno) => {
            drop(file);
            // The allocation's own error is the one to report; a file left
            // behind is truncated by the next attempt.
            let _ = std::fs::remove_file(path);
            return Err(classify_write_error(path, bytes, errno.into()));
        }
    }
    Ok(file)
}

/// The fallback for filesystems without `fallocate`: write real zeros.
fn write_zeros(file: &File, path: &Path, bytes: u64) -> Result<(), StoreError> {
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let block = vec![0u8; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        let step = left.min(block.len() as u64) as usize;
        writer
            .write_all(&block[..step])
            .map_err(|source| classify_write_error(path, bytes, source))?;
        left -= step as u64;
    }
    writer
        .flush()
        .map_err(|source| classify_write_error(path, bytes, source))
}

fn write_header(map: &MmapRaw, layout: RecordLayout, count: u64) {
    let mut header = [0u8; 32];
    header[..8].copy_from_slice(HEADER_MAGIC);
    header[8..12].copy_from_slice(&crate::dir::FORMAT_VERSION.to_le_bytes());
    header[12..20].copy_from_slice(&layout.bytes().to_le_bytes());
    header[20..28].copy_from_slice(&count.to_le_bytes());
    // SAFETY: the mapping is at least HEADER_BYTES long, and not yet shared.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(header.as_ptr(), map.as_mut_ptr(), header.len());
    }
}

/// The records file copied into anonymous memory backed by huge pages
/// where the kernel grants them, for held changes.
///
/// Training reads and updates records at random all over the file, so with
/// 4 KiB pages nearly every record costs a TLB miss and a page-table walk
/// on top of its own cache miss (two walks under a hypervisor). A file map
/// only ever gets small pages; an anonymous region advised as huge gets
/// 2 MiB ones, whose page table fits in cache. The copy is the whole file,
/// read once at open: full play touches nearly every page within minutes
/// anyway, and `Writeback::AtCheckpoint` is chosen only when the file fits
/// in memory. Without transparent huge pages the copy still works, at 4 KiB.
fn held_copy(file: &File, path: &Path) -> Result<MmapRaw, StoreError> {
    let bytes = file.metadata().map_err(StoreError::io(path))?.len();
    let mut map = MmapOptions::new()
        .len(bytes as usize)
        .map_anon()
        .map_err(StoreError::io(path))?;
    // Advice only: a kernel without transparent huge pages refuses it, and
    // the copy is then the same on small pages.
    let _ = map.advise(Advice::HugePage);
    const CHUNK: usize = 64 << 20;
    for (index, chunk) in map.chunks_mut(CHUNK).enumerate() {
        file.read_exact_at(chunk, (index * CHUNK) as u64)
            .map_err(StoreError::io(path))?;
    }
    Ok(MmapRaw::from(map))
}

fn check_header(
    map: &MmapRaw,
    layout: RecordLayout,
    count: u64,
    path: &Path,
) -> Result<(), StoreError> {
    let mut header = [0u8; 32];
    // SAFETY: the mapping is at least HEADER_BYTES long (size checked above).
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(map.as_mut_ptr(), header.as_mut_ptr(), header.len());
    }
    let word = |range: std::ops::Range<usize>| {
        let mut bytes = [0u8; 8];
        bytes[..range.len()].copy_from_slice(&header[range]);
        u64::from_le_bytes(bytes)
    };
    if &header[..8] != HEADER_MAGIC || word(12..20) != layout.bytes() || word(20..28) != count {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: "its header does not match the manifest".into(),
        });
    }
    Ok(())
}

/// Bytes of the files one build pass writes. A pass touches only its
/// window of slots, so the page cache it dirties stays bounded however large
/// the store is, and a build under a memory cap writes back instead of
/// thrashing on random writes.
const BUILD_WINDOW_BYTES: u64 = 256 << 20;

/// Calls `visit(slot, key)` for every key whose slot lies in `window`,
/// walking the chunks on `threads` threads.
fn for_keys_in_window<C>(
    chunks: &[C],
    phf: &Mphf<Key>,
    window: std::ops::Range<u64>,
    threads: usize,
    visit: &(dyn Fn(u64, Key) + Sync),
) where
    C: IntoIterator<Item = Key> + Clone + Send + Sync,
{
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(chunk) = chunks.get(index) else {
                        break;
                    };
                    for key in chunk.clone() {
                        let slot = phf.hash(&key);
                        if window.contains(&slot) {
                            visit(slot, key);
                        }
                    }
                }
            });
        }
    });
}

/// Writes each key's check into its record and each key into the keys file
/// at its slot (so export can list the records), one window of slots at a
/// time: every pass walks the universe once and fills both files' window.
#[allow(clippy::too_many_arguments)]
fn write_key_checks_and_keys<C>(
    chunks: &[C],
    phf: &Mphf<Key>,
    layout: RecordLayout,
    map: &MmapRaw,
    keys_file: &File,
    keys_path: &Path,
    count: u64,
    threads: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<(), StoreError>
where
    C: IntoIterator<Item = Key> + Clone + Send + Sync,
{
    use std::sync::atomic::AtomicU64;
    let window_slots = (BUILD_WINDOW_BYTES / (layout.bytes() + 2 * KEY_BYTES)).max(1);
    let passes = count.div_ceil(window_slots);
    for (pass, start) in (0..count).step_by(window_slots as usize).enumerate() {
        progress(&format!(
            "writing key checks and the keys file, pass {} of {passes}",
            pass + 1
        ));
        let window = start..(start + window_slots).min(count);
        let halves: Vec<AtomicU64> = (0..2 * (window.end - window.start))
            .map(|_| AtomicU64::new(0))
            .collect();
        for_keys_in_window(chunks, phf, window.clone(), threads, &|slot, key| {
            let offset = (HEADER_BYTES + slot * layout.bytes()) as usize;
            // SAFETY: `offset + 4` is within the mapping (slot < count); the
            // hash is a bijection onto the slots, so each is written by one
            // thread only, and the table that will read it does not exist yet.
            #[allow(unsafe_code)]
            unsafe {
                std::ptr::copy_nonoverlapping(
                    RecordLayout::key_check(key).to_le_bytes().as_ptr(),
                    map.as_mut_ptr().add(offset),
                    KEY_CHECK_BYTES,
                );
            }
            let at = 2 * (slot - window.start) as usize;
            halves[at].store(key as u64, Ordering::Relaxed);
            halves[at + 1].store((key >> 64) as u64, Ordering::Relaxed);
        });
        let offset = (HEADER_BYTES + window.start * layout.bytes()) as usize;
        let len = ((window.end - window.start) * layout.bytes()) as usize;
        // Start writing the window back now; the final flush waits for it.
        let _ = map.flush_async_range(offset, len);
        let mut bytes = Vec::with_capacity(halves.len() * 8);
        for pair in halves.chunks_exact(2) {
            let key = u128::from(pair[0].load(Ordering::Relaxed))
                | u128::from(pair[1].load(Ordering::Relaxed)) << 64;
            bytes.extend_from_slice(&key.to_le_bytes());
        }
        keys_file
            .write_all_at(&bytes, window.start * KEY_BYTES)
            .map_err(|source| classify_write_error(keys_path, bytes.len() as u64, source))?;
    }
    Ok(())
}

/// Asks the CPU to start loading the cache line holding `address`. A
/// prefetch never faults and reads nothing the program sees, so any
/// address is sound; on targets without a stable prefetch it does nothing.
#[inline(always)]
fn prefetch_line(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetcht0` is a hint: it neither dereferences the pointer
    // architecturally nor faults, whatever the address.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

impl Table for MmapTable {
    fn max_actions(&self) -> usize {
        self.layout.max_actions()
    }

    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.hashed_slot(key)
            .filter(|&slot| self.holds(slot, key))
            .ok_or(StoreError::UnknownKey { key })
    }

    /// Every error of `slot` means the key has no record here.
    fn find(&self, key: Key) -> Option<SlotId> {
        self.slot(key).ok()
    }

    /// Two passes: the perfect hash of every key (independent loads the
    /// CPU overlaps), asking for each record's lines and its stripe's lock
    /// without waiting for them; then the key checks, which find the
    /// records in cache or on their way.
    fn slots(&self, keys: &[Key], slots: &mut [Option<SlotId>]) -> Result<(), StoreError> {
        for (&key, slot) in keys.iter().zip(slots.iter_mut()) {
            *slot = self.hashed_slot(key);
            if let Some(slot) = *slot {
                let first = self.record_pointer(slot);
                prefetch_line(first);
                prefetch_line(first.wrapping_add(self.layout.bytes() as usize - 1));
                prefetch_line(std::ptr::from_ref(&self.stripes[slot.index() % STRIPES]).cast());
            }
        }
        for (&key, slot) in keys.iter().zip(slots.iter()) {
            if !slot.is_some_and(|slot| self.holds(slot, key)) {
                return Err(StoreError::UnknownKey { key });
            }
        }
        Ok(())
    }

    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        self.check_bounds(slot)?;
        let mut bytes = [0u8; RecordLayout::MAX_BYTES];
        let record_bytes = &mut bytes[..self.layout.bytes() as usize];
        {
            let stripe = self.stripe(slot);
            self.load_body(&stripe, slot, &mut record_bytes[KEY_CHECK_BYTES..]);
        }
        let mut record = Record::default();
        self.layout.decode(record_bytes, &mut record);
        Ok(record)
    }

    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        self.check_bounds(slot)?;
        let mut bytes = [0u8; RecordLayout::MAX_BYTES];
        let length = self.layout.bytes();
        let record_bytes = &mut bytes[..length as usize];
        let offset = HEADER_BYTES + slot.get() * length;
        // The page's old bytes go to the journal before it changes. When the
        // journal cannot take them (a full disk) the change is refused, and
        // every later checkpoint fails, so the store reopens at its last
        // checkpoint instead of committing a run with holes in it.
        let undo = self.undo.as_ref().ok_or_else(|| StoreError::ReadOnly {
            path: self.dir.path().to_path_buf(),
        })?;
        match &self.held {
            Some(held) => held.mark(offset, length),
            None => undo.protect(offset, length, &|page, out| {
                self.read_page(page, out);
            })?,
        }
        let stripe = self.stripe(slot);
        self.load_body(&stripe, slot, &mut record_bytes[KEY_CHECK_BYTES..]);
        let mut record = Record::default();
        self.layout.decode(record_bytes, &mut record);
        change(&mut record);
        // The check encoded here is not stored: only the body is written.
        self.layout.encode(0, &record, record_bytes);
        self.store_body(&stripe, slot, &record_bytes[KEY_CHECK_BYTES..]);
        Ok(())
    }

    fn len(&self) -> u64 {
        self.records
    }

    /// Streams the keys file in blocks, so that exporting never holds the
    /// key universe in memory.
    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        use std::io::Read;
        let path = self.dir.file(KEYS_FILE);
        let file = File::open(&path).map_err(StoreError::missing_or_io(
            &path,
            "the keys file is needed to export; restore it or start a new store directory",
        ))?;
        let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
        let mut entry = [0u8; 16];
        for slot in 0..self.records {
            reader
                .read_exact(&mut entry)
                .map_err(|source| StoreError::Corrupt {
                    path: path.clone(),
                    reason: format!("it ends after {slot} of {} keys ({source})", self.records),
                })?;
            visit(Key::from_le_bytes(entry), &self.read(SlotId::new(slot))?);
        }
        Ok(())
    }
}

impl DurableTable for MmapTable {
    /// Call between batches, with no update in flight.
    fn checkpoint(&self, state: &ClientState) -> Result<(), StoreError> {
        let undo = self.undo.as_ref().ok_or_else(|| StoreError::ReadOnly {
            path: self.dir.path().to_path_buf(),
        })?;
        undo.check()?;
        match &self.held {
            Some(held) => {
                held.write_out(&self.map, undo)?;
            }
            None => self
                .map
                .flush()
                .map_err(StoreError::io(self.dir.file(RECORDS_FILE)))?,
        }
        let records = records_checksum(&self.map);
        self.manifest.commit(&self.dir, state, |manifest| {
            match manifest
                .checksums
                .iter_mut()
                .find(|checksum| checksum.what == RECORDS_FILE)
            {
                Some(stored) => *stored = records,
                None => manifest.checksums.push(records),
            }
        })?;
        undo.reset(journal_owner(&self.manifest.get()))?;
        if let Some(held) = &self.held {
            held.clear();
        }
        Ok(())
    }

    fn committed_state(&self) -> ClientState {
        self.manifest.get().state
    }

    fn verification(&self) -> Verification {
        self.verification.clone()
    }

    fn disk_bytes(&self) -> u64 {
        [RECORDS_FILE, PHF_FILE, KEYS_FILE, UNDO_FILE]
            .iter()
            .map(|name| std::fs::metadata(self.dir.file(name)).map_or(0, |meta| meta.len()))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::RecordEncoding;

    struct TempDir(std::path::PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            std::fs::remove_dir_all(&self.0).ok();
        }
    }

    fn open(dir: &Path, chunks: &Vec<Vec<Key>>) -> MmapTable {
        let layout = RecordLayout::new(7, RecordEncoding::I16Scaled).unwrap();
        let fingerprint = Fingerprint {
            digest: 3,
            description: "test universe 3".into(),
        };
        MmapTable::open(dir, layout, fingerprint, chunks, &mut |_| {})
            .unwrap()
            .with_writeback(Writeback::AtCheckpoint)
            .unwrap()
    }

    fn bump(table: &MmapTable, keys: &[Key], by: f32) {
        for &key in keys {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.regrets[(key % 7) as usize] += by;
                    record.strategy_sum[0] += by;
                    record.last_iteration += 1;
                })
                .unwrap();
        }
    }

    fn records(table: &MmapTable, keys: &[Key]) -> Vec<Record> {
        keys.iter()
            .map(|&key| table.read(table.slot(key).unwrap()).unwrap())
            .collect()
    }

    #[test]
    fn a_crash_while_a_checkpoint_writes_held_pages_rolls_back() {
        let dir = TempDir(std::env::temp_dir().join(format!("mmap-held-{}", std::process::id())));
        std::fs::remove_dir_all(&dir.0).ok();
        let keys: Vec<Key> = (1..=20_000u128)
            .map(|k| k * 0x9E37_79B9_7F4A_7C15)
            .collect();
        let chunks: Vec<Vec<Key>> = keys.chunks(1000).map(<[Key]>::to_vec).collect();
        let at_checkpoint = {
            let table = open(&dir.0, &chunks);
            bump(&table, &keys, 1.0);
            table
                .checkpoint(&ClientState::encode(&"one").unwrap())
                .unwrap();
            let at_checkpoint = records(&table, &keys);
            bump(&table, &keys, 2.0);
            // A checkpoint's first steps, then a crash: every changed page
            // journalled, half of them written, no manifest.
            let held = table.held.as_ref().unwrap();
            let pages = held.changed_pages();
            assert!(pages.len() > 10, "{} pages changed", pages.len());
            let undo = table.undo.as_ref().unwrap();
            undo.save(&pages, &|page, out| {
                held.file
                    .read_exact_at(out, page * PAGE)
                    .map_err(StoreError::io(&held.path))
            })
            .unwrap();
            for &page in &pages[..pages.len() / 2] {
                let mut bytes = vec![0u8; PAGE as usize];
                let length = (held.file_bytes - page * PAGE).min(PAGE) as usize;
                read_mapped(&table.map, page * PAGE, &mut bytes[..length]);
                held.file
                    .write_all_at(&bytes[..length], page * PAGE)
                    .unwrap();
            }
            at_checkpoint
        };
        let reopened = open(&dir.0, &chunks);
        assert_eq!(
            reopened
                .committed_state()
                .decode::<String>()
                .unwrap()
                .as_deref(),
            Some("one")
        );
        assert_eq!(records(&reopened, &keys), at_checkpoint);
    }
}
