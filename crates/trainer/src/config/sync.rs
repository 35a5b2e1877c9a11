//! When the ranks sync and what their reads see: settings of one session
//! (a run may resume on one machine or on many), given as flags.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// What a rank's reads see between syncs (see [`cfr::distributed::Reads`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SyncReads {
    /// Its own updates at once, the others' at each sync.
    #[default]
    Live,
    /// Only the table as of the last sync: an epoch is one exact iteration.
    Frozen,
}

impl From<SyncReads> for cfr::distributed::Reads {
    fn from(reads: SyncReads) -> Self {
        match reads {
            SyncReads::Live => cfr::distributed::Reads::Live,
            SyncReads::Frozen => cfr::distributed::Reads::Frozen,
        }
    }
}

/// When the strategy sums travel between ranks (see
/// [`cfr::distributed::StrategySums`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SyncStrategySums {
    /// With the regrets, at every sync.
    EachSync,
    /// Held by each rank and exchanged before a checkpoint, a curve point
    /// and the session's end: training never reads them in between.
    #[default]
    AtCheckpoint,
}

impl From<SyncStrategySums> for cfr::distributed::StrategySums {
    fn from(sums: SyncStrategySums) -> Self {
        match sums {
            SyncStrategySums::EachSync => cfr::distributed::StrategySums::EachSync,
            SyncStrategySums::AtCheckpoint => cfr::distributed::StrategySums::Deferred,
        }
    }
}

/// Whether an epoch trains while the last one's sync runs. Off unless
/// asked: on Leduc under linear CFR the extra epoch of staleness cost more
/// than the same epochs synced blocking (docs/experiments/cluster-overlap.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum SyncOverlap {
    /// Each epoch trains beside the last one's sync, which then costs the
    /// cores it uses, not the wall time it takes; the other ranks' updates
    /// arrive one epoch later (live reads only).
    On,
    /// Training waits for every sync.
    #[default]
    Off,
}

/// How long an epoch between two syncs is.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SyncEvery {
    /// About this much wall time: the epoch's iterations adapt to it.
    Time(Duration),
    /// Exactly this many iterations over all the ranks: reproducible.
    Iterations(u64),
}

/// The cluster settings of a session.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncSettings {
    pub every: SyncEvery,
    pub reads: SyncReads,
    pub strategy_sums: SyncStrategySums,
    /// After every sync, compare every rank's replica digest (reads every
    /// record: for tests and for doubt, not for speed).
    pub check: bool,
    /// The memory each rank may use, in bytes; `None`: its machine's, or
    /// its cgroup's limit if lower.
    pub rank_memory: Option<u64>,
    /// Whether epochs train beside the syncs; always off with frozen reads,
    /// whose epochs must not see the replica move.
    pub overlap: SyncOverlap,
    /// How long a rank may give no answer in a sync before the others take
    /// it as gone, name it and end (at least this epoch's training time,
    /// so that a slow epoch is not taken for a lost rank).
    #[serde(default = "default_rank_timeout")]
    pub rank_timeout: Duration,
}

/// A rank silent this long in a sync is gone: a minute, well beyond a
/// sync's spread between ranks at the default 10-second period, and well
/// short of TCP's 15 minutes.
const DEFAULT_RANK_TIMEOUT: Duration = Duration::from_secs(60);

fn default_rank_timeout() -> Duration {
    DEFAULT_RANK_TIMEOUT
}

impl SyncSettings {
    /// Whether epochs train beside the syncs, as they can with these reads.
    pub fn overlapped(&self) -> bool {
        self.overlap == SyncOverlap::On && self.reads == SyncReads::Live
    }
}

/// The sync period unless told otherwise: long enough that a sync's cost
/// is small beside the epoch, short enough that the ranks' strategies do
/// not drift apart for long.
pub const DEFAULT_SYNC_EVERY: Duration = Duration::from_secs(10);

impl Default for SyncSettings {
    fn default() -> Self {
        SyncSettings {
            every: SyncEvery::Time(DEFAULT_SYNC_EVERY),
            reads: SyncReads::Live,
            strategy_sums: SyncStrategySums::AtCheckpoint,
            check: false,
            rank_memory: None,
            overlap: SyncOverlap::Off,
            rank_timeout: DEFAULT_RANK_TIMEOUT,
        }
    }
}

impl std::fmt::Display for SyncSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.every {
            SyncEvery::Time(every) => write!(f, "sync every {:.1} s", every.as_secs_f64())?,
            SyncEvery::Iterations(n) => write!(f, "sync every {n} iterations")?,
        }
        write!(
            f,
            ", {} reads, strategy sums {}{}{}",
            match self.reads {
                SyncReads::Live => "live",
                SyncReads::Frozen => "frozen",
            },
            match self.strategy_sums {
                SyncStrategySums::EachSync => "at each sync",
                SyncStrategySums::AtCheckpoint => "at checkpoints",
            },
            if self.overlapped() {
                ", epochs training beside the syncs"
            } else {
                ""
            },
            if self.check {
                ", replicas compared after each sync"
            } else {
                ""
            }
        )
    }
}
