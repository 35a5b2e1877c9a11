//! Opening a store: building a new one from its key universe, or
//! reopening one and checking it against its last checkpoint (its undo
//! journal replayed into a private copy and verified first); and switching
//! how its changes reach the file.

use std::fs::{File, OpenOptions};
use std::path::Path;
use std::sync::Mutex;

use boomphf::Mphf;
use memmap2::{Advice, MmapOptions, MmapRaw};

use crate::dir::{
    Backend, Committed, Fingerprint, MANIFEST_FILE, Manifest, StoreDir, write_atomically,
};
use crate::error::StoreError;
use crate::held_pages::{HeldPages, Writeback};
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::undo::UndoJournal;
use crate::verify::{Timer, Verification, Verify, checksum_file};

use super::files::*;
use super::universe::*;
use super::*;

/// A listed universe is hashed into the files in chunks of this many keys,
/// which threads take in turn.
const LISTED_CHUNK_KEYS: usize = 1 << 20;

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
                let universe = universe();
                let plan = BuildPlan::for_memory(universe.len());
                Self::build(dir, layout, wanted, &universe, plan, progress)
            }
        }
    }

    /// Builds a new store in the locked, empty `dir` from `universe` as
    /// `plan` says (tests give a plan whatever the memory).
    pub(super) fn build<U>(
        dir: StoreDir,
        layout: RecordLayout,
        mut manifest: Manifest,
        universe: &U,
        plan: BuildPlan,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MmapTable, StoreError>
    where
        U: KeyUniverse,
        <U::Chunk as IntoIterator>::IntoIter: ExactSizeIterator,
    {
        let count = universe.len();
        let chunks = ChunkList(universe.chunks());
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let listed = if plan.list {
            progress(&format!("listing {count} keys into memory"));
            Some(list_keys(&chunks.0, count, threads, dir.path())?)
        } else {
            None
        };
        progress(&format!("building the perfect hash over {count} keys"));
        let phf = match &listed {
            Some(keys) => Mphf::new_parallel(GAMMA, keys, None),
            None => Mphf::from_chunked_iterator_parallel(GAMMA, &chunks, None, count, threads),
        };
        progress("allocating the records file");
        let records_path = dir.file(RECORDS_FILE);
        let (map, file_bytes) = new_records_file(&dir, layout, count)?;
        let keys_path = dir.file(KEYS_FILE);
        let keys_file = allocate(&keys_path, count * KEY_BYTES)?;
        let keys_map = MmapOptions::new()
            .map_raw(&keys_file)
            .map_err(StoreError::io(&keys_path))?;
        let files = BuildFiles {
            layout,
            records: &map,
            keys: &keys_map,
        };
        let window_bytes = plan.window_bytes;
        match &listed {
            Some(keys) => {
                let parts: Vec<_> = keys
                    .chunks(LISTED_CHUNK_KEYS)
                    .map(|part| part.iter().copied())
                    .collect();
                write_key_checks_and_keys(
                    &parts,
                    &phf,
                    &files,
                    dir.path(),
                    count,
                    threads,
                    window_bytes,
                    progress,
                )?;
            }
            None => write_key_checks_and_keys(
                &chunks.0,
                &phf,
                &files,
                dir.path(),
                count,
                threads,
                window_bytes,
                progress,
            )?,
        }
        drop(listed);
        progress("saving the perfect hash");
        let phf_bytes = postcard::to_stdvec(&phf).map_err(|error| StoreError::Corrupt {
            path: dir.file(PHF_FILE),
            reason: format!("cannot serialise the perfect hash: {error}"),
        })?;
        write_atomically(&dir.file(PHF_FILE), &phf_bytes)?;
        // Queried from the bytes just saved, as every later open queries it.
        drop(phf);
        let phf = PhfQuery::from_saved(&phf_bytes).map_err(|error| StoreError::Corrupt {
            path: dir.file(PHF_FILE),
            reason: format!("the perfect hash just saved does not load ({error})"),
        })?;
        manifest.records = count;
        progress("summing the files for later checks, while they reach the disk");
        // The files reach the disk while they are summed (from the page
        // cache); the manifest that commits them is written after both.
        let (synced, checksums) = std::thread::scope(|scope| {
            let synced = scope.spawn(|| {
                keys_map.flush().map_err(StoreError::io(&keys_path))?;
                keys_file.sync_all().map_err(StoreError::io(&keys_path))?;
                map.flush().map_err(StoreError::io(&records_path))
            });
            let checksums = (|| {
                Ok::<_, StoreError>(vec![
                    records_checksum(&map),
                    checksum_file(dir.path(), KEYS_FILE)?,
                    checksum_file(dir.path(), PHF_FILE)?,
                ])
            })();
            let synced = synced
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (synced, checksums)
        });
        synced?;
        manifest.checksums = checksums?;
        dir.write_manifest(&manifest)?;
        Self::finish_build(dir, layout, manifest, phf, map, count, file_bytes)
    }

    /// The table over a store just built and committed (its manifest
    /// written), with its undo journal opened.
    pub(super) fn finish_build(
        dir: StoreDir,
        layout: RecordLayout,
        manifest: Manifest,
        phf: PhfQuery,
        map: MmapRaw,
        count: u64,
        file_bytes: u64,
    ) -> Result<MmapTable, StoreError> {
        map.advise(Advice::Random)
            .map_err(StoreError::io(&dir.file(RECORDS_FILE)))?;
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
            keys_file: std::sync::OnceLock::new(),
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
        let phf = load_phf(&dir, &manifest)?;
        let (file, map, file_bytes) = open_records(&dir, layout, &manifest, access)?;
        check_keys_length(&dir, &manifest)?;
        // The journal puts back what changed after the checkpoint, so the
        // files are checked as the checkpoint left them. A writable open
        // first replays it into a private copy and checks that against the
        // checkpoint: a foreign or damaged journal is refused with nothing
        // written.
        let owner = journal_owner(&manifest);
        let undo = match access {
            Access::ReadWrite => {
                if verify == Verify::Full && !manifest.checksums.is_empty() {
                    dry_run_journal(&dir, &file, file_bytes, owner, &manifest.checksums)?;
                }
                Some(open_undo(&dir, &map, file_bytes, owner)?.0)
            }
            Access::ReadOnly => {
                UndoJournal::replay(
                    &dir.file(UNDO_FILE),
                    file_bytes,
                    owner,
                    &mut |page, bytes| {
                        restore_page(&map, page, bytes);
                    },
                )?;
                None
            }
        };
        let verification = verify_as_asked(&dir, &map, &manifest, verify, &timer, progress)?;
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
            keys_file: std::sync::OnceLock::new(),
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
}
