//! What each rank did in each epoch, gathered so that rank 0 can say which
//! rank gates the syncs: every rank's training rate, its time in the sync
//! (which includes waiting for the slowest), the bytes it sent and its
//! resident memory. Rank 0 logs a summary every [`TELEMETRY_SYNCS`] syncs
//! and at the session's end, and writes the last one to [`TELEMETRY_FILE`]
//! in the run directory, which `trainer status` prints.

use std::fmt::Write as _;
use std::path::Path;

use cfr::distributed::{Collective, CollectiveError};

use crate::format::{bytes, thousands};

/// The run directory's file with the last summary.
pub const TELEMETRY_FILE: &str = "cluster.txt";

/// Syncs between two summaries: about five minutes at the default
/// ten-second syncs.
pub const TELEMETRY_SYNCS: u64 = 30;

/// One rank's share of one epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RankEpoch {
    pub iterations: u64,
    pub train_seconds: f64,
    /// Time in the sync: the exchange, the apply, and waiting for the
    /// slowest rank to arrive.
    pub sync_seconds: f64,
    pub bytes_sent: u64,
    pub resident_bytes: u64,
}

const ENCODED: usize = 5 * 8;

impl RankEpoch {
    fn encode(&self) -> [u8; ENCODED] {
        let mut out = [0u8; ENCODED];
        let fields = [
            self.iterations,
            self.train_seconds.to_bits(),
            self.sync_seconds.to_bits(),
            self.bytes_sent,
            self.resident_bytes,
        ];
        for (chunk, field) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&field.to_le_bytes());
        }
        out
    }

    fn decode(bytes: &[u8]) -> Option<RankEpoch> {
        if bytes.len() != ENCODED {
            return None;
        }
        let field = |i: usize| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&bytes[i * 8..i * 8 + 8]);
            u64::from_le_bytes(word)
        };
        Some(RankEpoch {
            iterations: field(0),
            train_seconds: f64::from_bits(field(1)),
            sync_seconds: f64::from_bits(field(2)),
            bytes_sent: field(3),
            resident_bytes: field(4),
        })
    }
}

/// Every rank's [`RankEpoch`], in rank order; every rank calls it together.
pub(crate) fn gather(
    group: &dyn Collective,
    mine: RankEpoch,
) -> Result<Vec<RankEpoch>, CollectiveError> {
    Ok(group
        .all_gather(&mine.encode())?
        .iter()
        .map(|bytes| RankEpoch::decode(bytes).unwrap_or_default())
        .collect())
}

/// This process's resident memory, from `/proc/self/statm`; 0 where it
/// cannot be read.
pub(crate) fn resident_bytes() -> u64 {
    const PAGE: u64 = 4096;
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|text| text.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * PAGE)
}

/// Rank 0's running sums per rank since the last summary.
#[derive(Debug, Default)]
pub(crate) struct Telemetry {
    ranks: Vec<RankEpoch>,
    syncs: u64,
    /// The largest resident memory each rank reported.
    peak_resident: Vec<u64>,
}

impl Telemetry {
    pub(crate) fn add(&mut self, epoch: &[RankEpoch]) {
        if self.ranks.len() != epoch.len() {
            self.ranks = vec![RankEpoch::default(); epoch.len()];
            self.peak_resident = vec![0; epoch.len()];
        }
        for ((sum, rank), peak) in self
            .ranks
            .iter_mut()
            .zip(epoch)
            .zip(&mut self.peak_resident)
        {
            sum.iterations += rank.iterations;
            sum.train_seconds += rank.train_seconds;
            sum.sync_seconds += rank.sync_seconds;
            sum.bytes_sent += rank.bytes_sent;
            sum.resident_bytes = rank.resident_bytes;
            *peak = (*peak).max(rank.resident_bytes);
        }
        self.syncs += 1;
    }

    pub(crate) fn due(&self) -> bool {
        self.syncs >= TELEMETRY_SYNCS
    }

    /// The summary of the syncs since the last one, or `None` if there were
    /// none; the sums start again.
    pub(crate) fn take(&mut self, through_iteration: u64) -> Option<String> {
        if self.syncs == 0 {
            return None;
        }
        let rate = |rank: &RankEpoch| rank.iterations as f64 / rank.train_seconds.max(1e-9);
        let slowest = (0..self.ranks.len())
            .min_by(|&a, &b| rate(&self.ranks[a]).total_cmp(&rate(&self.ranks[b])))
            .unwrap_or(0);
        let leader_rate = rate(&self.ranks[0]);
        let mut text = format!(
            "cluster telemetry over {} syncs to iteration {}: slowest rank {slowest} at {:.0} it/s ({:.0}% of rank 0's {:.0} it/s)\n",
            self.syncs,
            thousands(through_iteration),
            rate(&self.ranks[slowest]),
            100.0 * rate(&self.ranks[slowest]) / leader_rate.max(1e-9),
            leader_rate
        );
        for (index, (rank, peak)) in self.ranks.iter().zip(&self.peak_resident).enumerate() {
            let _ = writeln!(
                text,
                "  rank {index}: {:.0} it/s, {:.2} s in syncs ({:.3} s a sync), sent {}, resident {} (peak {})",
                rate(rank),
                rank.sync_seconds,
                rank.sync_seconds / self.syncs as f64,
                bytes(rank.bytes_sent),
                bytes(rank.resident_bytes),
                bytes(*peak)
            );
        }
        *self = Telemetry::default();
        Some(text)
    }
}

/// Writes the summary to the run directory, whole or not at all; a failure
/// is only logged, as it costs no training.
pub(crate) fn record(dir: &Path, summary: &str) {
    if let Err(error) = store::write_atomically(&dir.join(TELEMETRY_FILE), summary.as_bytes()) {
        tracing::warn!("cannot write {TELEMETRY_FILE}: {error}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rank_epoch_round_trips_and_bad_bytes_read_as_nothing() {
        let epoch = RankEpoch {
            iterations: 123,
            train_seconds: 1.5,
            sync_seconds: 0.25,
            bytes_sent: 1 << 33,
            resident_bytes: 7 << 30,
        };
        assert_eq!(RankEpoch::decode(&epoch.encode()), Some(epoch));
        assert_eq!(RankEpoch::decode(&[1, 2, 3]), None);
    }

    #[test]
    fn the_summary_names_the_slowest_rank() {
        let mut telemetry = Telemetry::default();
        let fast = RankEpoch {
            iterations: 1000,
            train_seconds: 1.0,
            sync_seconds: 0.5,
            bytes_sent: 10,
            resident_bytes: 100,
        };
        let slow = RankEpoch {
            iterations: 600,
            train_seconds: 1.0,
            sync_seconds: 0.1,
            ..fast
        };
        for _ in 0..TELEMETRY_SYNCS {
            assert!(!telemetry.due());
            telemetry.add(&[fast, slow, fast]);
        }
        assert!(telemetry.due());
        let summary = telemetry.take(99).unwrap();
        assert!(
            summary.contains("slowest rank 1 at 600 it/s (60% of rank 0's 1000 it/s)"),
            "{summary}"
        );
        assert!(summary.contains("rank 2: 1000 it/s"), "{summary}");
        assert!(telemetry.take(100).is_none(), "the sums start again");
    }

    #[test]
    fn this_process_has_resident_memory() {
        assert!(resident_bytes() > 0);
    }
}
