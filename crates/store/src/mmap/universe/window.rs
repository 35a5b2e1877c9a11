//! One window of a build's slots: its keys written straight into the mapped
//! keys file as they are hashed (or read back from the spill), then its
//! checks into the records, in slot order on every thread.
//!
//! Why this shape, measured at 20 M keys on the project's machine (its
//! fresh memory costs about a second a gigabyte when the host has taken it
//! back): the keys file's page cache is the window's buffer, so no
//! anonymous copy of the window is made and then written with one call on
//! one thread; and the checks are written in slot order, a piece of the
//! records faulted in at a time, rather than at random as each key is
//! hashed (a cache miss and a TLB miss a key on a file mapping's small
//! pages).

use std::ops::Range;

use memmap2::{Advice, MmapRaw};

use crate::layout::{KEY_BYTES, RecordLayout};
use crate::mmap::files::{HEADER_BYTES, write_key_check};
use crate::table::Key;

/// The two files a build writes, both mapped: the records and the keys in
/// slot order (so export can list the records).
pub(in crate::mmap) struct BuildFiles<'a> {
    pub(in crate::mmap) layout: RecordLayout,
    pub(in crate::mmap) records: &'a MmapRaw,
    pub(in crate::mmap) keys: &'a MmapRaw,
}

/// The records a thread faults in at once before writing their checks:
/// small enough that the fresh pages are still in cache when the checks
/// are written, large enough that a fault costs a fraction of one a page.
const PIECE_BYTES: u64 = 2 << 20;

/// Slots `slots` of the two files being built.
pub(super) struct Window<'a> {
    files: &'a BuildFiles<'a>,
    slots: Range<u64>,
}

impl<'a> Window<'a> {
    /// The window over `slots`, its stretch of the keys file faulted in
    /// writable on `threads` threads (advice only: a kernel without it
    /// faults the pages in as the keys are written).
    ///
    /// # Panics
    /// If either file's mapping is too short for the window's slots: the
    /// writes below rely on it.
    pub(super) fn open(files: &'a BuildFiles<'a>, slots: Range<u64>, threads: usize) -> Self {
        assert!(
            files.keys.len() as u64 >= slots.end * KEY_BYTES
                && files.records.len() as u64 >= HEADER_BYTES + slots.end * files.layout.bytes(),
            "a window of slots {slots:?} beyond its files"
        );
        let window = Window { files, slots };
        window.on_threads(threads, KEY_BYTES, |piece| {
            let (offset, len) = window.keys_range(&piece);
            let _ = files.keys.advise_range(Advice::PopulateWrite, offset, len);
        });
        window
    }

    /// The number of slots in the window.
    pub(super) fn width(&self) -> u64 {
        self.slots.end - self.slots.start
    }

    /// Writes `key` into the keys file at the window's slot `offset`.
    pub(super) fn put(&self, offset: u64, key: Key) {
        assert!(offset < self.width(), "offset {offset} outside the window");
        let (at, _) = self.keys_range(&(offset..offset + 1));
        // SAFETY: the slot lies in the window (checked above), and the
        // window within the keys file's mapping (checked at `open`);
        // the hash is a bijection onto the slots, so each is written by one
        // thread only; the file is read only once every writer is joined.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                key.to_le_bytes().as_ptr(),
                self.files.keys.as_mut_ptr().add(at),
                KEY_BYTES as usize,
            );
        }
    }

    /// The key written at the window's slot `offset` (zero before one is).
    pub(super) fn key_at(&self, offset: u64) -> Key {
        assert!(offset < self.width(), "offset {offset} outside the window");
        let (at, _) = self.keys_range(&(offset..offset + 1));
        let mut bytes = [0u8; KEY_BYTES as usize];
        // SAFETY: within the keys file (as in `put`); callers read once the
        // window's writers are joined.
        #[allow(unsafe_code)]
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.files.keys.as_ptr().add(at),
                bytes.as_mut_ptr(),
                bytes.len(),
            );
        }
        Key::from_le_bytes(bytes)
    }

    /// Writes the check of every key the window holds into its record, in
    /// slot order on `threads` threads, each faulting its records in a
    /// piece at a time. Call once every key of the window has been put.
    pub(super) fn finish(&self, threads: usize) {
        self.on_threads(threads, self.files.layout.bytes(), |piece| {
            let (offset, len) = self.records_range(&piece);
            let _ = self
                .files
                .records
                .advise_range(Advice::PopulateWrite, offset, len);
            for slot in piece {
                // SAFETY: the slot lies in the window, within the records'
                // mapping (checked at `open`); each piece belongs to one
                // thread; no table reads
                // the records yet.
                #[allow(unsafe_code)]
                unsafe {
                    write_key_check(
                        self.files.records,
                        self.files.layout,
                        self.slots.start + slot,
                        self.key_at(slot),
                    );
                }
            }
        });
    }

    /// Runs `work` over the window's slots (as offsets) in pieces of about
    /// [`PIECE_BYTES`] at `slot_bytes` a slot, one contiguous stretch of
    /// them a thread.
    fn on_threads(&self, threads: usize, slot_bytes: u64, work: impl Fn(Range<u64>) + Sync) {
        let width = self.width();
        let per_thread = width.div_ceil(threads.max(1) as u64).max(1);
        let piece_slots = (PIECE_BYTES / slot_bytes).max(1);
        let work = &work;
        std::thread::scope(|scope| {
            for first in (0..width).step_by(per_thread as usize) {
                let stretch = first..(first + per_thread).min(width);
                scope.spawn(move || {
                    for start in stretch.clone().step_by(piece_slots as usize) {
                        work(start..(start + piece_slots).min(stretch.end));
                    }
                });
            }
        });
    }

    /// The byte range in the records' mapping of the window's `offsets`.
    fn records_range(&self, offsets: &Range<u64>) -> (usize, usize) {
        let bytes = self.files.layout.bytes();
        (
            (HEADER_BYTES + (self.slots.start + offsets.start) * bytes) as usize,
            ((offsets.end - offsets.start) * bytes) as usize,
        )
    }

    /// The byte range in the keys file's mapping of the window's `offsets`.
    fn keys_range(&self, offsets: &Range<u64>) -> (usize, usize) {
        (
            ((self.slots.start + offsets.start) * KEY_BYTES) as usize,
            ((offsets.end - offsets.start) * KEY_BYTES) as usize,
        )
    }
}
