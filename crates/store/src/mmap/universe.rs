//! The key universe a store is built from, and the build's pass over it:
//! each key hashed once, the key written into the keys file and its check
//! into its record, a window of slots at a time.

mod window;

use std::path::Path;
use std::sync::atomic::Ordering;

use boomphf::Mphf;

use crate::error::StoreError;
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::table::Key;

use super::spill::{SPILL_DIR, SPILL_ENTRY_BYTES, Spill, spilled_entries};
pub(super) use window::BuildFiles;
use window::Window;

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

/// How a store is built: whether its universe is listed into memory first,
/// and the bytes of a window of its files.
#[derive(Clone, Copy, Debug)]
pub(super) struct BuildPlan {
    pub(super) list: bool,
    pub(super) window_bytes: u64,
}

impl BuildPlan {
    /// The plan for `count` keys in the memory this process may use.
    pub(super) fn for_memory(count: u64) -> BuildPlan {
        BuildPlan {
            list: lists_keys(count),
            window_bytes: build_window_bytes(),
        }
    }
}

/// Whether a universe of `count` keys is listed into memory before the
/// build: when the keys, and the copy of those the perfect hash's first
/// level leaves over, fit in a build window. Listed once, the universe is
/// enumerated once; walked in chunks, it is enumerated twice by each level
/// of the hash's build (about a dozen walks), which for euchre's play
/// universe costs far more than the hashing.
fn lists_keys(count: u64) -> bool {
    count.saturating_mul(2 * KEY_BYTES) <= build_window_bytes()
}

/// The whole universe in memory, each chunk written into its own stretch of
/// one vector by `threads` threads taking chunks in turn. A universe whose
/// chunks do not hold `count` keys is refused, naming `dir`.
pub(super) fn list_keys<C>(
    chunks: &[C],
    count: u64,
    threads: usize,
    dir: &Path,
) -> Result<Vec<Key>, StoreError>
where
    C: IntoIterator<Item = Key> + Clone + Send + Sync,
    C::IntoIter: ExactSizeIterator,
{
    let wrong_count = |listed: u64| StoreError::Corrupt {
        path: dir.to_path_buf(),
        reason: format!(
            "the key universe says it holds {count} keys but its chunks hold {listed}: a bug in the universe, not in the files"
        ),
    };
    let listed: u64 = chunks
        .iter()
        .map(|chunk| chunk.clone().into_iter().len() as u64)
        .sum();
    if listed != count {
        return Err(wrong_count(listed));
    }
    let mut keys: Vec<Key> = vec![0; count as usize];
    let mut rest = keys.as_mut_slice();
    let mut work = Vec::with_capacity(chunks.len());
    for chunk in chunks {
        let (stretch, tail) = rest.split_at_mut(chunk.clone().into_iter().len());
        work.push((chunk, stretch));
        rest = tail;
    }
    let work = std::sync::Mutex::new(work);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| {
                loop {
                    let next = work
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .pop();
                    let Some((chunk, stretch)) = next else {
                        break;
                    };
                    for (place, key) in stretch.iter_mut().zip(chunk.clone()) {
                        *place = key;
                    }
                }
            });
        }
    });
    Ok(keys)
}

/// The least a window of the build may write. A window touches only its
/// slots, so the page cache it dirties stays bounded however large the
/// store is, and a build under a memory cap writes back instead of
/// thrashing on random writes.
pub(super) const MIN_WINDOW_BYTES: u64 = 256 << 20;

/// The bytes a build's window may hold: an eighth of the memory this
/// process may use, and at least [`MIN_WINDOW_BYTES`]. A store whose files
/// fit is built in one window, with nothing spilled.
pub(super) fn build_window_bytes() -> u64 {
    crate::usable_memory().map_or(MIN_WINDOW_BYTES, |memory| {
        (memory / 8).max(MIN_WINDOW_BYTES)
    })
}

/// Bytes of one slot in a window: its record and its key in the page
/// cache, and its spilled entry while the spill is read.
pub(super) fn window_slot_bytes(layout: RecordLayout) -> u64 {
    layout.bytes() + KEY_BYTES + SPILL_ENTRY_BYTES
}

/// Writes each key into the keys file at its slot and its check into its
/// record, one window of slots at a time. The universe is walked and
/// hashed once: the first window's keys are written as they are hashed,
/// and every other key goes to its window's spill file, which that
/// window's turn reads back; each window's checks are then written from
/// its keys. `window_bytes` is [`build_window_bytes`] but
/// in tests.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_key_checks_and_keys<C>(
    chunks: &[C],
    phf: &Mphf<Key>,
    files: &BuildFiles<'_>,
    store_dir: &Path,
    count: u64,
    threads: usize,
    window_bytes: u64,
    progress: &mut dyn FnMut(&str),
) -> Result<(), StoreError>
where
    C: IntoIterator<Item = Key> + Clone + Send + Sync,
{
    let window_slots = (window_bytes / window_slot_bytes(files.layout))
        .clamp(1, u64::from(u32::MAX))
        .min(count.max(1));
    let windows = count.div_ceil(window_slots).max(1) as usize;
    let spill = Spill::create(store_dir, windows - 1)?;
    let written = (|| {
        progress(&if windows == 1 {
            "hashing every key into the records and keys files".to_owned()
        } else {
            format!("hashing every key: window 1 of {windows} written, the others sorted to disk")
        });
        let first = Window::open(files, 0..window_slots.min(count), threads);
        hash_every_key(chunks, phf, threads, &spill, &first)?;
        first.finish(threads);
        for window in 1..windows {
            progress(&format!(
                "writing window {} of {windows} of the key checks and the keys file",
                window + 1
            ));
            let start = window as u64 * window_slots;
            let later = Window::open(files, start..(start + window_slots).min(count), threads);
            scatter(&spill.take(window - 1)?, &later, threads).map_err(|reason| {
                StoreError::Corrupt {
                    path: store_dir.join(SPILL_DIR),
                    reason,
                }
            })?;
            later.finish(threads);
        }
        Ok(())
    })();
    let removed = spill.remove();
    written.and(removed)
}

/// The pass that hashes the universe, on `threads` threads taking chunks in
/// turn: window 0's keys are gathered, the others' spilled.
fn hash_every_key<C>(
    chunks: &[C],
    phf: &Mphf<Key>,
    threads: usize,
    spill: &Spill,
    first: &Window<'_>,
) -> Result<(), StoreError>
where
    C: IntoIterator<Item = Key> + Clone + Send + Sync,
{
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<(), StoreError> {
                    let mut buffers = spill.buffers();
                    while let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) {
                        for key in chunk.clone() {
                            let slot = phf.hash(&key);
                            // The first window is full unless it is the
                            // only one, and then every slot lies in it.
                            let window_slots = first.width();
                            let (window, offset) = (slot / window_slots, slot % window_slots);
                            if window == 0 {
                                first.put(offset, key);
                            } else {
                                buffers.push(window as usize - 1, offset as u32, key)?;
                            }
                        }
                    }
                    buffers.finish()
                })
            })
            .collect();
        workers.into_iter().try_for_each(|worker| {
            worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
    })
}

/// Keeps the keys of `window` from its spill file's bytes, split over
/// `threads` threads. An offset outside the window means the spill file is
/// not what this build wrote: refused (the reason returned) before any key
/// is kept.
fn scatter(spilled: &[u8], window: &Window<'_>, threads: usize) -> Result<(), String> {
    let width = window.width();
    if let Some((offset, _)) =
        spilled_entries(spilled).find(|&(offset, _)| u64::from(offset) >= width)
    {
        return Err(format!(
            "a spilled key's offset {offset} lies outside its window of {width} slots"
        ));
    }
    let entry = SPILL_ENTRY_BYTES as usize;
    let per_thread = (spilled.len() / entry).div_ceil(threads.max(1)).max(1) * entry;
    std::thread::scope(|scope| {
        for part in spilled.chunks(per_thread) {
            scope.spawn(move || {
                for (offset, key) in spilled_entries(part) {
                    window.put(u64::from(offset), key);
                }
            });
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests;
