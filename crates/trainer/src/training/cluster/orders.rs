//! What rank 0 tells the others, one broadcast at a time. JSON: small,
//! rare next to the table's bytes, and readable in a debugger.

use cfr::distributed::{Collective, CollectiveError};
use serde::{Deserialize, Serialize};

use super::SyncSettings;
use crate::config::{Identity, SessionSettings};

#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Order {
    /// A session starts: open a replica for this run and train with it.
    Begin(Box<Begin>),
    /// Train your share of `total` global iterations from `first`, then sync.
    Epoch { first: u64, total: u64 },
    /// Exchange the strategy sums held back since the last settle,
    /// discounted to iteration `through`.
    Settle { through: u64 },
    /// The session is over: drop the replica, wait for the next order.
    End,
    /// The command is over: exit (`error` says why, if it failed).
    Quit { error: Option<String> },
    /// `trainer bench sync`: take part in one timed collective.
    Probe(Probe),
}

/// One collective of `trainer bench sync`, the same size on every rank.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) enum Probe {
    /// An all-reduce of this many floats: a dense sync's exchange.
    Dense { floats: u64 },
    /// An all-gather of this many bytes from each rank: a sparse sync's.
    Sparse { bytes: u64 },
}

impl Probe {
    /// Takes part in the probe on every rank; returns the slowest rank's
    /// seconds, which is what a sync waits for.
    pub(crate) fn run(self, group: &dyn Collective) -> Result<f64, CollectiveError> {
        let mine = self.time(group)?;
        let everyone = group.all_gather(&mine.to_le_bytes())?;
        Ok(everyone
            .iter()
            .filter_map(|bytes| bytes.as_slice().try_into().ok().map(f64::from_le_bytes))
            .fold(mine, f64::max))
    }

    fn time(self, group: &dyn Collective) -> Result<f64, CollectiveError> {
        match self {
            Probe::Dense { floats } => {
                let mut values = vec![1.0f32; floats as usize];
                let started = std::time::Instant::now();
                group.all_reduce_sum(&mut values)?;
                Ok(started.elapsed().as_secs_f64())
            }
            Probe::Sparse { bytes } => {
                let mine = vec![7u8; bytes as usize];
                let started = std::time::Instant::now();
                group.all_gather(&mine)?;
                Ok(started.elapsed().as_secs_f64())
            }
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Begin {
    pub identity: Identity,
    pub settings: SessionSettings,
    pub sync: SyncSettings,
    /// The fixed bids' policy file, when the run plays fixed bids: sent,
    /// so that a rank on another machine needs no shared file system.
    pub blueprint: Option<Vec<u8>>,
    /// Rank 0's store skeleton, when the run is on the mmap store: its
    /// files follow the order (`super::skeleton`), and each rank makes its
    /// replica from them.
    pub skeleton: Option<store::Skeleton>,
    /// Rank 0's trained records, which it copies to every rank after the
    /// start: what a rank's memory replica will hold.
    pub records: u64,
}

pub(crate) fn send(group: &dyn Collective, order: &Order) -> Result<(), CollectiveError> {
    let mut bytes = serde_json::to_vec(order).map_err(|error| CollectiveError {
        rank: group.rank(),
        size: group.size(),
        reason: format!("cannot encode an order: {error}"),
    })?;
    group.broadcast(0, &mut bytes)
}

pub(crate) fn receive(group: &dyn Collective) -> Result<Order, CollectiveError> {
    let mut bytes = Vec::new();
    group.broadcast(0, &mut bytes)?;
    serde_json::from_slice(&bytes).map_err(|error| CollectiveError {
        rank: group.rank(),
        size: group.size(),
        reason: format!(
            "rank 0 sent an order this build cannot read ({error}): start every rank with the same trainer build"
        ),
    })
}

/// Every rank says whether it is ready (`Err`: why not); all learn
/// whether all are, and the first failure's rank and reason.
pub(crate) fn all_ready(
    group: &dyn Collective,
    mine: Result<(), String>,
) -> Result<Result<(), (usize, String)>, CollectiveError> {
    let bytes = match &mine {
        Ok(()) => Vec::new(),
        Err(reason) => reason.clone().into_bytes(),
    };
    let everyone = group.all_gather(&bytes)?;
    Ok(everyone
        .iter()
        .enumerate()
        .find(|(_, reason)| !reason.is_empty())
        .map_or(Ok(()), |(rank, reason)| {
            Err((rank, String::from_utf8_lossy(reason).into_owned()))
        }))
}

/// Sums a few counters over the ranks (exact, as integers).
pub(crate) fn sum_counters<const N: usize>(
    group: &dyn Collective,
    mine: [u64; N],
) -> Result<[u64; N], CollectiveError> {
    let bytes: Vec<u8> = mine.iter().flat_map(|v| v.to_le_bytes()).collect();
    let everyone = group.all_gather(&bytes)?;
    let mut sums = [0u64; N];
    for theirs in &everyone {
        for (sum, chunk) in sums.iter_mut().zip(theirs.chunks_exact(8)) {
            let mut word = [0; 8];
            word.copy_from_slice(chunk);
            *sum += u64::from_le_bytes(word);
        }
    }
    Ok(sums)
}
