//! The fixed-size record each infostate occupies, and what a table of them
//! costs in each backend. Sizes are computed, never guessed, so that the
//! trainer can say before a run whether it fits on the machine.

/// How regrets and strategy sums are stored in a record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordEncoding {
    /// One `f32` per regret and per strategy sum.
    F32,
    /// One `i16` per value, with one `f32` scale for the regrets and one for
    /// the strategy sums of each record: half the page cache of `F32`.
    I16Scaled,
}

impl RecordEncoding {
    pub const ALL: [RecordEncoding; 2] = [RecordEncoding::F32, RecordEncoding::I16Scaled];

    pub const fn name(self) -> &'static str {
        match self {
            RecordEncoding::F32 => "f32",
            RecordEncoding::I16Scaled => "i16+scale",
        }
    }
}

/// A record: regrets and strategy sums padded to `max_actions`, the
/// iteration of the last update (for lazy discounting), and a 32-bit key
/// fingerprint that catches lookups of keys outside the universe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordLayout {
    pub max_actions: u8,
    pub encoding: RecordEncoding,
}

/// Bytes of a key in stores that keep keys (memory and LMDB).
pub const KEY_BYTES: u64 = 16;
/// boomphf documents 3 to 6 bits per key; estimates use the upper end.
pub const PHF_BITS_PER_KEY_MAX: u64 = 6;
/// A memory-index entry: the key, a `u32` slot id, and hash-table slack at
/// a 7/8 load factor, rounded up.
pub const MEMORY_INDEX_BYTES_PER_KEY: u64 = 24;

impl RecordLayout {
    const HEADER_BYTES: u64 = 8; // last-update iteration (u32) + key fingerprint (u32)

    pub const fn bytes(&self) -> u64 {
        let values = 2 * self.max_actions as u64;
        match self.encoding {
            RecordEncoding::F32 => Self::HEADER_BYTES + 4 * values,
            RecordEncoding::I16Scaled => Self::HEADER_BYTES + 8 + 2 * values,
        }
    }

    /// Estimated bytes for `keys` records per backend: (disk, resident).
    pub fn footprint(&self, keys: u64) -> Footprint {
        let records = keys * self.bytes();
        let phf = (keys * PHF_BITS_PER_KEY_MAX).div_ceil(8);
        Footprint {
            memory_resident: records + keys * MEMORY_INDEX_BYTES_PER_KEY,
            lmdb_disk_at_least: keys * (KEY_BYTES + self.bytes()),
            mmap_disk: records + phf,
            mmap_resident_floor: phf,
        }
    }
}

/// What a table of one layout costs, per backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// The memory backend holds everything in RAM.
    pub memory_resident: u64,
    /// LMDB stores key and value per entry, plus B-tree pages on top.
    pub lmdb_disk_at_least: u64,
    /// The mmap backend's data file plus its saved perfect hash.
    pub mmap_disk: u64,
    /// What the mmap backend must keep resident: the perfect hash. The
    /// records are paged in and out by the kernel.
    pub mmap_resident_floor: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_sizes() {
        let bidding = RecordLayout {
            max_actions: 7,
            encoding: RecordEncoding::F32,
        };
        assert_eq!(bidding.bytes(), 64);
        let play = RecordLayout {
            max_actions: 5,
            encoding: RecordEncoding::F32,
        };
        // The brief's 40 B per record is the values alone; the header adds 8.
        assert_eq!(play.bytes(), 48);
        let compact = RecordLayout {
            encoding: RecordEncoding::I16Scaled,
            ..play
        };
        assert_eq!(compact.bytes(), 36);
    }

    #[test]
    fn footprints_scale_linearly() {
        let layout = RecordLayout {
            max_actions: 7,
            encoding: RecordEncoding::F32,
        };
        let one = layout.footprint(1_000_000);
        assert_eq!(one.mmap_disk, 64_000_000 + 750_000);
        assert_eq!(one.mmap_resident_floor, 750_000);
        assert_eq!(one.memory_resident, 88_000_000);
        assert_eq!(
            layout.footprint(2_000_000).lmdb_disk_at_least,
            2 * one.lmdb_disk_at_least
        );
    }
}
