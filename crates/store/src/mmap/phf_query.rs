//! The perfect hash's queries, answered over the arrays boomphf saved.
//!
//! boomphf builds the hash and saves it; its own query walks the levels
//! and waits at each for the bit vector's cache line (the first level alone
//! is 17 MB for full play's 46 M keys, far beyond a core's cache). Training
//! looks up several keys at a time ([`crate::Table::slots`]), and a query
//! in two steps lets all of their first lines be asked for before any is
//! waited on: [`PhfQuery::start`] hashes a key for the first level and
//! prefetches its bit vector's word and rank, [`PhfQuery::slot`] then
//! answers it.
//!
//! The saved bytes are read as boomphf writes them (levels of a bit vector
//! and its ranks, by serde through postcard), and every query hashes as
//! boomphf does (wyhash seeded by the level, reduced by multiply-shift
//! below 2^32 bits and by remainder above), so a store's file reads the
//! same whichever answers it. The tests hold the two to the same slot for
//! every key of a built hash and to the same refusal for foreign ones.

use std::hash::{Hash, Hasher};

use serde::Deserialize;

use super::prefetch::prefetch_line;
use crate::table::Key;

/// One level: a bit per position (set where a key settled), and the count
/// of set bits before every 512-bit block, counting every earlier level's
/// too (so a rank is a slot).
#[derive(Debug, Deserialize)]
struct Level {
    bits: Bits,
    ranks: Box<[u64]>,
}

#[derive(Debug, Deserialize)]
struct Bits {
    /// Positions at this level.
    capacity: u64,
    words: Box<[u64]>,
}

/// The perfect hash as saved: its levels, in the order a query tries them.
#[derive(Debug, Deserialize)]
pub(super) struct PhfQuery {
    levels: Box<[Level]>,
    /// boomphf's type marker, saved as nothing.
    _marker: (),
}

/// Where a key falls at the first level, computed once by
/// [`PhfQuery::start`] and used again by [`PhfQuery::slot_from`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Started {
    position: u64,
}

impl PhfQuery {
    /// Reads the bytes boomphf's `Mphf<Key>` was saved as (postcard).
    pub(super) fn from_saved(bytes: &[u8]) -> Result<PhfQuery, postcard::Error> {
        let query: PhfQuery = postcard::from_bytes(bytes)?;
        for level in query.levels.iter() {
            let words = level.bits.capacity.div_ceil(64);
            if level.bits.capacity == 0
                || level.bits.words.len() as u64 != words
                || level.ranks.len() as u64 != words.div_ceil(8)
            {
                return Err(postcard::Error::DeserializeBadEncoding);
            }
        }
        Ok(query)
    }

    /// The key's position at `level` of `capacity` positions, as boomphf
    /// computes it.
    #[inline]
    fn position(level: usize, key: Key, capacity: u64) -> u64 {
        let mut hasher = wyhash::WyHash::with_seed(1 << (2 * level as u64));
        key.hash(&mut hasher);
        let hash = hasher.finish();
        if capacity < 1 << 32 {
            let folded = (hash as u32) ^ ((hash >> 32) as u32);
            (u64::from(folded) * capacity) >> 32
        } else {
            hash % capacity
        }
    }

    /// Where `key` falls at the first level, and that level; `None` for a
    /// hash without levels.
    #[inline]
    fn first_position(&self, key: Key) -> Option<(&Level, Started)> {
        let first = self.levels.first()?;
        let position = Self::position(0, key, first.bits.capacity);
        Some((first, Started { position }))
    }

    /// Hashes `key` for the first level and asks for the cache lines its
    /// answer will read, without waiting for them.
    #[inline]
    pub(super) fn start(&self, key: Key) -> Started {
        let Some((first, started)) = self.first_position(key) else {
            return Started::default();
        };
        let word = (started.position / 64) as usize;
        if let (Some(word), Some(rank)) = (first.bits.words.get(word), first.ranks.get(word / 8)) {
            prefetch_line(std::ptr::from_ref(word).cast());
            prefetch_line(std::ptr::from_ref(rank).cast());
        }
        started
    }

    /// The key's slot, or `None` if no level holds it (a key outside the
    /// universe may still get one: the caller checks the record's key).
    #[inline]
    pub(super) fn slot(&self, key: Key) -> Option<u64> {
        let (_, started) = self.first_position(key)?;
        self.slot_from(key, started)
    }

    /// [`Self::slot`], the first level's position already computed.
    #[inline]
    pub(super) fn slot_from(&self, key: Key, started: Started) -> Option<u64> {
        for (index, level) in self.levels.iter().enumerate() {
            let position = if index == 0 {
                started.position
            } else {
                Self::position(index, key, level.bits.capacity)
            };
            if level.holds(position) {
                return Some(level.rank(position));
            }
        }
        None
    }
}

impl Level {
    #[inline]
    fn holds(&self, position: u64) -> bool {
        let word = self.bits.words[(position / 64) as usize];
        word & (1 << (position % 64)) != 0
    }

    /// Set bits before `position`: the block's saved count, then the
    /// block's words before it, then the word's bits below it.
    #[inline]
    fn rank(&self, position: u64) -> u64 {
        let word = (position / 64) as usize;
        let mut rank = self.ranks[word / 8];
        for &before in &self.bits.words[word & !7..word] {
            rank += u64::from(before.count_ones());
        }
        let below = position % 64;
        if below > 0 {
            rank += u64::from((self.bits.words[word] << (64 - below)).count_ones());
        }
        rank
    }
}

#[cfg(test)]
mod tests {
    use boomphf::Mphf;

    use super::*;

    /// Keys spread over all 128 bits, as the game's are.
    fn keys(count: u128, salt: u128) -> Vec<Key> {
        (1..=count)
            .map(|k| (k ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835))
            .collect()
    }

    fn saved(phf: &Mphf<Key>) -> Vec<u8> {
        postcard::to_stdvec(phf).unwrap()
    }

    #[test]
    fn every_key_gets_boomphfs_slot_at_every_load_factor() {
        let keys = keys(60_000, 0);
        // A tight load factor sends many keys past the first level.
        for gamma in [1.1, 1.7, 3.0] {
            let phf = Mphf::new(gamma, &keys);
            let query = PhfQuery::from_saved(&saved(&phf)).unwrap();
            assert!(query.levels.len() > 1, "gamma {gamma}: one level only");
            for &key in &keys {
                let expected = phf.try_hash(&key);
                assert!(expected.is_some());
                assert_eq!(query.slot(key), expected, "gamma {gamma}, key {key:#x}");
                assert_eq!(query.slot_from(key, query.start(key)), expected);
            }
        }
    }

    #[test]
    fn foreign_keys_get_what_boomphf_gives_them() {
        let phf = Mphf::new(3.0, &keys(20_000, 0));
        let query = PhfQuery::from_saved(&saved(&phf)).unwrap();
        let mut refused = 0;
        for key in keys(100_000, 0xDEAD_BEEF << 64) {
            let expected = phf.try_hash(&key);
            refused += usize::from(expected.is_none());
            assert_eq!(query.slot(key), expected, "key {key:#x}");
            assert_eq!(query.slot_from(key, query.start(key)), expected);
        }
        assert!(refused > 0, "no foreign key fell through every level");
    }

    #[test]
    fn damaged_saved_hashes_are_refused_not_answered() {
        let phf = Mphf::new(3.0, &keys(5_000, 0));
        let bytes = saved(&phf);
        for cut in [0, 1, bytes.len() / 2, bytes.len() - 1] {
            assert!(
                PhfQuery::from_saved(&bytes[..cut]).is_err(),
                "cut at {cut} of {}",
                bytes.len()
            );
        }
        // The first level's capacity (its first byte, a varint) made
        // larger than its words cover.
        let mut damaged = bytes.clone();
        damaged[1] = damaged[1].wrapping_add(0x40);
        assert!(PhfQuery::from_saved(&damaged).is_err());
    }
}
