//! A store's skeleton: its keys file and its perfect hash, which depend only
//! on the key universe. With a copy of them another process (a cluster
//! rank on another machine) makes the same store, slot for slot, in
//! seconds, instead of listing the universe and building the hash again
//! (full play: 46 M keys, about 7 minutes on 2 cores).

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::dir::{Backend, Fingerprint, Manifest, StoreDir};
use crate::error::StoreError;
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::table::Key;
use crate::verify::{Checksum, checksum_file, expect};

use super::MmapTable;
use super::files::*;
use super::phf_query::PhfQuery;
use super::universe::MIN_WINDOW_BYTES;

/// The skeleton's two files as a store's manifest records them: what a copy
/// must match, byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Skeleton {
    pub keys: Checksum,
    pub phf: Checksum,
}

impl Skeleton {
    /// The skeleton of the mmap store in `dir`, from its manifest (not read
    /// from the files: the store checked those against it when it opened).
    pub fn of(dir: &Path) -> Result<Skeleton, StoreError> {
        let manifest = Manifest::read(dir)?.ok_or_else(|| StoreError::Missing {
            path: dir.to_path_buf(),
            hint: "no store has been checkpointed here".to_owned(),
        })?;
        let recorded = |name: &str| {
            manifest
                .checksums
                .iter()
                .find(|checksum| checksum.what == name)
                .cloned()
                .ok_or_else(|| StoreError::Corrupt {
                    path: dir.to_path_buf(),
                    reason: format!(
                        "its manifest records no checksum of {name} (a store from before checksums: one \
                         checkpoint records them, for example a short session on one process)"
                    ),
                })
        };
        Ok(Skeleton {
            keys: recorded(KEYS_FILE)?,
            phf: recorded(PHF_FILE)?,
        })
    }

    /// The files, by name in a store directory, in the order a copy sends
    /// them.
    pub fn files(&self) -> [&Checksum; 2] {
        [&self.keys, &self.phf]
    }
}

impl MmapTable {
    /// Makes a new store in `path` from a copy of another store's skeleton
    /// that the caller has put there (the keys file and the perfect hash,
    /// under their usual names): each is checked against `expected` first,
    /// then the records file is allocated and every slot's key check
    /// written from the keys file, one window at a time on `threads`
    /// threads. The result is the store [`MmapTable::open`] would have
    /// built from the key universe, with no record trained.
    pub fn build_from_skeleton(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
        expected: &Skeleton,
        threads: usize,
        progress: &mut dyn FnMut(&str),
    ) -> Result<MmapTable, StoreError> {
        let dir = StoreDir::lock(path)?;
        if dir.read_manifest()?.is_some() {
            return Err(StoreError::Corrupt {
                path: path.to_path_buf(),
                reason: "it already holds a store; a skeleton makes a new one only".to_owned(),
            });
        }
        progress("checking the copied keys file and perfect hash");
        for recorded in expected.files() {
            let found = checksum_file(dir.path(), &recorded.what)?;
            expect(recorded, &found, &dir.file(&recorded.what))?;
        }
        if !expected.keys.bytes.is_multiple_of(KEY_BYTES) {
            return Err(StoreError::Corrupt {
                path: dir.file(KEYS_FILE),
                reason: format!(
                    "it is {} bytes, not a whole number of {KEY_BYTES}-byte keys",
                    expected.keys.bytes
                ),
            });
        }
        let count = expected.keys.bytes / KEY_BYTES;
        let mut manifest = Manifest::new(Backend::Mmap, layout, fingerprint);
        manifest.records = count;
        manifest.checksums = vec![expected.keys.clone(), expected.phf.clone()];
        let phf = load_phf(&dir, &manifest)?;
        progress("allocating the records file");
        let records_path = dir.file(RECORDS_FILE);
        let (map, file_bytes) = new_records_file(&dir, layout, count)?;
        let keys_path = dir.file(KEYS_FILE);
        let keys = File::open(&keys_path).map_err(StoreError::io(&keys_path))?;
        progress("writing key checks from the keys file");
        write_key_checks_from_keys(&phf, layout, &map, &keys, &keys_path, count, threads)?;
        map.flush().map_err(StoreError::io(&records_path))?;
        progress("summing the records file for later checks");
        manifest.checksums = vec![
            records_checksum(&map),
            expected.keys.clone(),
            expected.phf.clone(),
        ];
        dir.write_manifest(&manifest)?;
        Self::finish_build(dir, layout, manifest, phf, map, count, file_bytes)
    }
}

/// Writes each slot's key check into its record from the keys file (the
/// keys in slot order), a window at a time, the window's slots split over
/// `threads` threads. A key the hash does not send to its own slot means
/// the keys file and the hash are not one store's: refused.
fn write_key_checks_from_keys(
    phf: &PhfQuery,
    layout: RecordLayout,
    map: &memmap2::MmapRaw,
    keys: &File,
    keys_path: &Path,
    count: u64,
    threads: usize,
) -> Result<(), StoreError> {
    let window_slots = (MIN_WINDOW_BYTES / (layout.bytes() + KEY_BYTES)).max(1);
    let mut bytes = Vec::new();
    for start in (0..count).step_by(window_slots as usize) {
        let end = (start + window_slots).min(count);
        bytes.resize(((end - start) * KEY_BYTES) as usize, 0);
        keys.read_exact_at(&mut bytes, start * KEY_BYTES)
            .map_err(StoreError::io(keys_path))?;
        let per_thread = (end - start).div_ceil(threads.max(1) as u64).max(1);
        let misplaced = std::thread::scope(|scope| {
            let workers: Vec<_> = (start..end)
                .step_by(per_thread as usize)
                .map(|from| {
                    let to = (from + per_thread).min(end);
                    let bytes = &bytes;
                    scope.spawn(move || {
                        for slot in from..to {
                            let at = ((slot - start) * KEY_BYTES) as usize;
                            let mut key = [0u8; KEY_BYTES as usize];
                            key.copy_from_slice(&bytes[at..at + KEY_BYTES as usize]);
                            let key = Key::from_le_bytes(key);
                            if phf.slot(key) != Some(slot) {
                                return Some(slot);
                            }
                            // SAFETY: slot < count; each slot is written by
                            // one thread only, and no table reads the map yet.
                            #[allow(unsafe_code)]
                            unsafe {
                                write_key_check(map, layout, slot, key);
                            }
                        }
                        None
                    })
                })
                .collect();
            workers
                .into_iter()
                .filter_map(|worker| {
                    worker
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                })
                .next()
        });
        if let Some(slot) = misplaced {
            return Err(StoreError::Corrupt {
                path: keys_path.to_path_buf(),
                reason: format!(
                    "the key at slot {slot} does not hash to it: the keys file and the perfect hash are not one store's"
                ),
            });
        }
        let offset = (HEADER_BYTES + start * layout.bytes()) as usize;
        let _ = map.flush_async_range(offset, ((end - start) * layout.bytes()) as usize);
    }
    Ok(())
}
