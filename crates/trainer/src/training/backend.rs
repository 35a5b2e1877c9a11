//! Opens the store a run asks for, behind the one [`DurableTable`] trait.

use std::path::Path;

use anyhow::bail;
use euchre_game::enumerate::bidding_keys;
use euchre_game::rules::Rules;
use store::{DurableTable, Key, KeyUniverse, LmdbTable, MmapTable, RecordLayout, SnapshotTable};

use crate::config::{Identity, StoreKind};
use crate::phase::Phase;

/// The record layout every phase uses: seven actions, in the run's encoding.
pub(crate) fn layout(identity: &Identity) -> RecordLayout {
    RecordLayout {
        max_actions: Phase::MAX_ACTIONS,
        encoding: identity.encoding.encoding(),
    }
}

/// Opens or creates the store in `dir`. `progress` hears of slow steps,
/// such as building a perfect hash.
pub(crate) fn open(
    identity: &Identity,
    dir: &Path,
    lmdb_cache_records: usize,
    progress: &mut dyn FnMut(&str),
) -> anyhow::Result<Box<dyn DurableTable>> {
    let layout = layout(identity);
    let fingerprint = identity.phase.fingerprint(identity.rules);
    Ok(match identity.store {
        StoreKind::Memory => Box::new(SnapshotTable::open(dir, layout, fingerprint)?),
        StoreKind::Lmdb => Box::new(LmdbTable::open(
            dir,
            layout,
            fingerprint,
            lmdb_cache_records,
        )?),
        StoreKind::Mmap => match identity.phase {
            Phase::Bidding => {
                let universe = BiddingUniverse::new(identity.rules);
                Box::new(MmapTable::open(
                    dir,
                    layout,
                    fingerprint,
                    &universe,
                    progress,
                )?)
            }
            phase => bail!(
                "the mmap store needs the whole key universe of phase {phase} up front, and only the bidding universe can be enumerated so far; use --store memory or --store lmdb for {phase}"
            ),
        },
    })
}

/// The bidding key universe in chunks for the perfect hash. The 1.6 M keys
/// (25 MB) are collected once; the play universe streams instead.
struct BiddingUniverse {
    chunks: Vec<Vec<Key>>,
}

impl BiddingUniverse {
    fn new(rules: Rules) -> BiddingUniverse {
        let keys: Vec<Key> = bidding_keys(rules).map(|(_, key)| key.0).collect();
        BiddingUniverse {
            chunks: keys.chunks(1 << 16).map(<[Key]>::to_vec).collect(),
        }
    }
}

impl KeyUniverse for BiddingUniverse {
    type Chunk = Vec<Key>;

    fn chunks(&self) -> Vec<Vec<Key>> {
        self.chunks.clone()
    }

    fn len(&self) -> u64 {
        self.chunks.iter().map(|chunk| chunk.len() as u64).sum()
    }
}
