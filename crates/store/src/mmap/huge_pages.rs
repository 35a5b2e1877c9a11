//! Anonymous memory advised for 2 MiB pages: where the store keeps what
//! training reads at random (the held records, the perfect hash's arrays).
//!
//! With 4 KiB pages nearly every random read of a large array costs a TLB
//! miss and a page-table walk on top of its own cache miss (two walks
//! under a hypervisor). A file map gets small pages unless the file system
//! hands out huge folios; an anonymous region advised as huge gets 2 MiB
//! ones where the kernel's transparent huge pages allow it ("madvise" or
//! "always"), and their page table fits in cache. The advice is only
//! advice: without transparent huge pages the same memory works at 4 KiB.

use std::io;
use std::ops::Deref;

use memmap2::{Advice, MmapMut, MmapOptions};

/// `bytes` of zeroed anonymous memory, advised huge.
pub(super) fn anonymous_huge(bytes: usize) -> io::Result<MmapMut> {
    let map = MmapOptions::new().len(bytes).map_anon()?;
    // A kernel without transparent huge pages refuses the advice; the map
    // is then the same on small pages.
    let _ = map.advise(Advice::HugePage);
    Ok(map)
}

/// Words read at random by every lookup, moved onto huge pages where the
/// kernel grants an anonymous map, kept where they were otherwise. Either
/// way they read the same.
#[derive(Debug)]
pub(super) struct HugeWords(Place);

#[derive(Debug)]
enum Place {
    Huge { map: MmapMut, len: usize },
    Heap(Box<[u64]>),
}

impl HugeWords {
    /// `words`, copied onto huge pages if a map can be had (a failed map
    /// keeps them on the heap: the pages are a speed-up, not a need).
    pub(super) fn new(words: Box<[u64]>) -> HugeWords {
        let bytes = words.len() * size_of::<u64>();
        match anonymous_huge(bytes.max(1)) {
            Ok(mut map) => {
                for (to, word) in map.chunks_exact_mut(size_of::<u64>()).zip(words.iter()) {
                    to.copy_from_slice(&word.to_ne_bytes());
                }
                HugeWords(Place::Huge {
                    map,
                    len: words.len(),
                })
            }
            Err(_) => HugeWords(Place::Heap(words)),
        }
    }

    /// Whether the words live in the anonymous map (for tests).
    #[cfg(test)]
    pub(super) fn is_mapped(&self) -> bool {
        matches!(self.0, Place::Huge { .. })
    }
}

impl Deref for HugeWords {
    type Target = [u64];

    #[inline]
    fn deref(&self) -> &[u64] {
        match &self.0 {
            Place::Huge { map, len } => {
                // SAFETY: the map is page-aligned (so aligned for u64), at
                // least `len` words long, initialised by `new`, and only
                // ever read through this shared borrow.
                #[allow(unsafe_code)]
                unsafe {
                    std::slice::from_raw_parts(map.as_ptr().cast::<u64>(), *len)
                }
            }
            Place::Heap(words) => words,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back_as_given_on_huge_pages_or_not() {
        for len in [0usize, 1, 7, 8, 1 << 20] {
            let words: Box<[u64]> = (0..len as u64)
                .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
                .collect();
            let huge = HugeWords::new(words.clone());
            assert!(huge.is_mapped(), "len {len}: the anonymous map failed");
            assert_eq!(&*huge, &*words, "len {len}");
        }
    }
}
