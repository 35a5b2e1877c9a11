//! A phase's whole key universe, as the mmap store's perfect hash reads it:
//! chunks that regenerate their keys on every pass instead of holding them.
//!
//! The bidding keys (1.6 M, 25 MB) are kept in memory. The play keys
//! (tens of millions) are regenerated from their shapes: a chunk is a run of
//! shapes and the number of keys they yield, counted once up front.

use std::sync::Arc;

use euchre_game::engine::rules::Rules;
use euchre_game::keys::play::PlayAbstraction;
use euchre_game::universe::bidding::bidding_keys;
use euchre_game::universe::play::{PlayKeyFilter, PlayShape, play_shapes};
use rayon::prelude::*;
use store::{Key, KeyUniverse};

use euchre_bots::phase::Phase;

/// Keys per chunk: enough chunks to keep every thread busy, few enough that
/// each is worth a task.
const CHUNK_KEYS: u64 = 1 << 18;

#[derive(Debug)]
struct Source {
    bidding: Vec<Key>,
    shapes: Vec<PlayShape>,
    filter: PlayKeyFilter,
}

/// A phase's key universe: bidding keys, then the play keys the phase stores.
#[derive(Debug)]
pub struct PhaseUniverse {
    chunks: Vec<UniverseChunk>,
}

/// A slice of the universe that lists its keys again each time it is walked.
#[derive(Clone, Debug)]
pub struct UniverseChunk {
    source: Arc<Source>,
    part: Part,
    len: usize,
}

#[derive(Clone, Copy, Debug)]
enum Part {
    Bidding { start: usize, end: usize },
    Play { start: usize, end: usize },
}

impl PhaseUniverse {
    /// Counts the universe (in parallel) and splits it into chunks.
    pub fn new(rules: Rules, phase: Phase, abstraction: PlayAbstraction) -> PhaseUniverse {
        let bidding: Vec<Key> = bidding_keys(rules).map(|(_, key)| key.0).collect();
        // Bidding's horizon of 0 cards leaves no play shapes.
        let filter = PlayKeyFilter {
            abstraction,
            ..PlayKeyFilter::stored(phase.horizon())
        };
        let shapes = play_shapes(rules, filter);
        let counts: Vec<u64> = shapes.par_iter().map(|shape| shape.count(filter)).collect();
        let bidding_len = bidding.len();
        let source = Arc::new(Source {
            bidding,
            shapes,
            filter,
        });
        let mut chunks = Vec::new();
        for start in (0..bidding_len).step_by(CHUNK_KEYS as usize) {
            let end = (start + CHUNK_KEYS as usize).min(bidding_len);
            chunks.push(UniverseChunk {
                source: Arc::clone(&source),
                part: Part::Bidding { start, end },
                len: end - start,
            });
        }
        let mut start = 0;
        let mut pending = 0u64;
        for (index, &count) in counts.iter().enumerate() {
            pending += count;
            if pending >= CHUNK_KEYS || index + 1 == counts.len() {
                chunks.push(UniverseChunk {
                    source: Arc::clone(&source),
                    part: Part::Play {
                        start,
                        end: index + 1,
                    },
                    len: pending as usize,
                });
                start = index + 1;
                pending = 0;
            }
        }
        PhaseUniverse { chunks }
    }
}

impl KeyUniverse for PhaseUniverse {
    type Chunk = UniverseChunk;

    fn chunks(&self) -> Vec<UniverseChunk> {
        self.chunks.clone()
    }

    fn len(&self) -> u64 {
        self.chunks.iter().map(|chunk| chunk.len as u64).sum()
    }
}

/// A chunk's keys, with the count known in advance as boomphf requires.
pub struct ChunkKeys {
    keys: Box<dyn Iterator<Item = Key> + Send>,
    remaining: usize,
}

impl std::fmt::Debug for ChunkKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChunkKeys")
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

impl Iterator for ChunkKeys {
    type Item = Key;

    fn next(&mut self) -> Option<Key> {
        let key = self.keys.next()?;
        self.remaining -= 1;
        Some(key)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for ChunkKeys {}

impl IntoIterator for UniverseChunk {
    type Item = Key;
    type IntoIter = ChunkKeys;

    fn into_iter(self) -> ChunkKeys {
        let keys: Box<dyn Iterator<Item = Key> + Send> = match self.part {
            Part::Bidding { start, end } => {
                let source = self.source;
                Box::new((start..end).map(move |index| source.bidding[index]))
            }
            Part::Play { start, end } => {
                let filter = self.source.filter;
                let shapes = self.source.shapes[start..end].to_vec();
                Box::new(
                    shapes
                        .into_iter()
                        .flat_map(move |shape| shape.keys(filter).map(|key| key.0)),
                )
            }
        };
        ChunkKeys {
            keys,
            remaining: self.len,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use euchre_game::universe::play::contains;

    use super::*;

    #[test]
    fn chunks_list_each_key_of_a_short_phase_once_and_say_how_many() {
        let rules = Rules::default();
        let universe = PhaseUniverse::new(rules, Phase::Play(2), PlayAbstraction::Plain);
        let mut seen = HashSet::new();
        for chunk in universe.chunks() {
            let keys = chunk.clone().into_iter();
            assert_eq!(keys.len(), chunk.len);
            for key in keys {
                assert!(seen.insert(key), "{key:#x} listed twice");
            }
        }
        assert_eq!(seen.len() as u64, universe.len());
        let play_keys: Vec<&Key> = seen.iter().filter(|&&key| key >> 120 == 5).collect();
        assert!(!play_keys.is_empty());
        let filter = PlayKeyFilter::stored(Some(2));
        assert!(play_keys.iter().all(|&&key| contains(
            euchre_game::keys::InfoKey(key),
            rules,
            filter
        )));
    }
}
