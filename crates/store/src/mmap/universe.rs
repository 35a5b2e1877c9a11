//! The key universe a store is built from, and the build's pass over it:
//! each key's check into its record and the key into the keys file, a
//! window of the records file at a time.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::atomic::Ordering;

use boomphf::Mphf;
use memmap2::MmapRaw;

use crate::dir::classify_write_error;
use crate::error::StoreError;
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::table::Key;

use super::files::{HEADER_BYTES, write_key_check};

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
pub(super) struct ChunkList<C>(pub(super) Vec<C>);

impl<'a, C: Clone> IntoIterator for &'a ChunkList<C> {
    type Item = C;
    type IntoIter = std::iter::Cloned<std::slice::Iter<'a, C>>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().cloned()
    }
}

/// Bytes of the files one build pass writes. A pass touches only its
/// window of slots, so the page cache it dirties stays bounded however large
/// the store is, and a build under a memory cap writes back instead of
/// thrashing on random writes.
pub(super) const BUILD_WINDOW_BYTES: u64 = 256 << 20;

/// Calls `visit(slot, key)` for every key whose slot lies in `window`,
/// walking the chunks on `threads` threads.
pub(super) fn for_keys_in_window<C>(
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
pub(super) fn write_key_checks_and_keys<C>(
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
            // SAFETY: slot < count; the hash is a bijection onto the
            // slots, so each is written by one thread only, and the table
            // that will read it does not exist yet.
            #[allow(unsafe_code)]
            unsafe {
                write_key_check(map, layout, slot, key);
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
