//! One MCCFR run spread over many processes, each holding a full replica.
//!
//! Every process (a *rank*) trains its own share of the iterations on its
//! own replica of the table. Either it trains on the replica in place, as
//! one process trains on its table, noting each record as stored before
//! the epoch first changes it; or its updates collect in a delta buffer,
//! their additive part only, leaving the replica as it was (for syncs that
//! run beside training, and for frozen reads). At each sync
//! ([`ReplicatedTable`]) a rank that trained in place puts every record it
//! changed back, bit for bit, and finds its change; the ranks exchange
//! their changes ([`Collective`]) and every rank applies the same sums, in
//! the same order, after the same discounting, so the replicas stay
//! identical bit for bit. The strategy sums, which training itself never
//! reads, may wait on each rank until a settle before a checkpoint
//! ([`StrategySums`]). An epoch of many ranks' sampled iterations is
//! still an unbiased estimate of the regret update, which is all MCCFR
//! needs (Gibson et al. 2012); the Pluribus blueprint applied its
//! discounting at such syncs too.
//!
//! The transport is a trait, so this module is tested with ranks on
//! threads ([`ThreadGroup`]); the trainer plugs in MPI.

mod collective;
mod digest;
mod in_place;
mod replica;
mod replicate;
mod thread_group;
mod wire;

pub use collective::{Collective, CollectiveError, Solo};
pub use digest::replica_digest;
pub use replica::{
    EntryBytes, Reads, ReplicatedTable, SETTLE_ROUND_BYTES, StrategySums, SyncStats,
};
pub use replicate::{ReplicationStats, replicate_from_root};
pub use thread_group::ThreadGroup;

/// The share of an epoch one rank trains: of the `total` global iterations
/// from `first`, every `ranks`-th one from `first + rank`. The epoch is
/// covered exactly once whatever the number of ranks, so a run resumed on
/// another number of ranks continues the same numbering, and one rank's
/// share is the whole epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EpochShare {
    pub first: u64,
    pub count: u64,
    pub stride: u64,
}

impl EpochShare {
    pub fn of(first: u64, total: u64, rank: usize, ranks: usize) -> EpochShare {
        let (rank, ranks) = (rank as u64, ranks.max(1) as u64);
        EpochShare {
            first: first + rank,
            count: total.saturating_sub(rank).div_ceil(ranks),
            stride: ranks,
        }
    }

    /// The iterations, in order.
    pub fn iterations(&self) -> impl Iterator<Item = u64> + use<> {
        let EpochShare {
            first,
            count,
            stride,
        } = *self;
        (0..count).map(move |i| first + i * stride)
    }

    /// The highest iteration in the share, if any.
    pub fn last(&self) -> Option<u64> {
        self.count
            .checked_sub(1)
            .map(|i| self.first + i * self.stride)
    }
}

#[cfg(test)]
mod tests {
    use super::EpochShare;

    #[test]
    fn shares_cover_an_epoch_exactly_once() {
        for ranks in 1..=5 {
            for total in 0..=13 {
                let mut seen: Vec<u64> = (0..ranks)
                    .flat_map(|rank| EpochShare::of(101, total, rank, ranks).iterations())
                    .collect();
                seen.sort_unstable();
                assert_eq!(
                    seen,
                    (101..101 + total).collect::<Vec<_>>(),
                    "{ranks} ranks, {total}"
                );
            }
        }
    }
}
