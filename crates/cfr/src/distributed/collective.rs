//! What the ranks can do together.

use thiserror::Error;

/// A failed collective operation. Any failure ends the run: the replicas
/// may no longer agree.
#[derive(Debug, Error)]
#[error("rank {rank} of {size}: {reason}")]
pub struct CollectiveError {
    pub rank: usize,
    pub size: usize,
    pub reason: String,
}

/// The collective operations a replicated run needs. Every rank calls the
/// same operations in the same order; each call returns only when every
/// rank has made it (a rank that dies makes the others fail or stop,
/// never go on alone).
pub trait Collective {
    fn rank(&self) -> usize;

    fn size(&self) -> usize;

    /// Every rank's bytes, in rank order, on every rank.
    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, CollectiveError>;

    /// Every rank's bytes, in rank order, on `root` alone (`None` on the
    /// others): a reduction to one rank, without every rank holding what
    /// everyone sent.
    fn gather(&self, root: usize, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, CollectiveError>;

    /// `root`'s bytes on every rank: the others' `bytes` are replaced.
    fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) -> Result<(), CollectiveError>;

    /// The elementwise sum over ranks, in place, identical on every rank.
    fn all_reduce_sum(&self, values: &mut [f32]) -> Result<(), CollectiveError>;

    /// From now on (until called with `None`) every rank is expected in the
    /// same collectives within moments of each other, as in a sync: a rank
    /// that answers nothing for `within` is taken as gone, and the
    /// transport ends this rank naming it rather than wait on it for ever.
    /// Outside such stretches (a follower waiting while rank 0 checkpoints
    /// or exports) a wait has no deadline. Transports that cannot lose a
    /// rank ignore it.
    fn expect_everyone(&self, within: Option<std::time::Duration>) {
        let _ = within;
    }

    /// Whether this rank is the one that writes files and prints.
    fn is_root(&self) -> bool {
        self.rank() == 0
    }
}

/// One process alone: every collective is the identity.
#[derive(Clone, Copy, Debug, Default)]
pub struct Solo;

impl Collective for Solo {
    fn rank(&self) -> usize {
        0
    }

    fn size(&self) -> usize {
        1
    }

    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, CollectiveError> {
        Ok(vec![mine.to_vec()])
    }

    fn gather(&self, _root: usize, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, CollectiveError> {
        Ok(Some(vec![mine.to_vec()]))
    }

    fn broadcast(&self, _root: usize, _bytes: &mut Vec<u8>) -> Result<(), CollectiveError> {
        Ok(())
    }

    fn all_reduce_sum(&self, _values: &mut [f32]) -> Result<(), CollectiveError> {
        Ok(())
    }
}
