//! What each rank did in each epoch, gathered so that rank 0 can say which
//! rank gates the syncs and where a sync's time goes: every rank's training
//! rate, its sync split into the drain (its own encoding), the exchange
//! (waiting for the slowest rank, then the transfer) and the apply, the
//! records and bytes it sent and its resident memory. Rank 0 logs a summary
//! every [`TELEMETRY_SYNCS`] syncs and at the session's end, and writes the
//! last one to [`TELEMETRY_FILE`] in the run directory, which `trainer
//! status` prints; every epoch's figures, rank by rank, go to
//! [`EPOCHS_FILE`], the input of the cost model in `docs/cluster.md`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use cfr::distributed::{Collective, CollectiveError, SyncStats};

use crate::format::{bytes, thousands};

/// The run directory's file with the last summary.
pub const TELEMETRY_FILE: &str = "cluster.txt";

/// The run directory's file with every epoch, sync and settle, one row per
/// rank (CSV; appended across sessions).
pub const EPOCHS_FILE: &str = "cluster-epochs.csv";

/// Syncs between two summaries: about five minutes at the default
/// ten-second syncs.
pub const TELEMETRY_SYNCS: u64 = 30;

/// One rank's share of one epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RankEpoch {
    pub iterations: u64,
    pub train_seconds: f64,
    /// Time in the sync, whole: the drain, the exchange and the apply.
    pub sync_seconds: f64,
    /// Encoding this rank's changes, before it reaches the exchange.
    pub drain_seconds: f64,
    /// In the exchange: waiting for the slowest rank, then the transfer.
    pub exchange_seconds: f64,
    pub apply_seconds: f64,
    pub records_sent: u64,
    pub bytes_sent: u64,
    /// Distinct records any rank changed: what this rank applied.
    pub records_applied: u64,
    pub resident_bytes: u64,
    /// Records this rank touched in the epoch: its delta buffer's entries.
    pub entries_drained: u64,
    /// Records whose strategy sums it holds for a settle, after the sync.
    pub held_entries: u64,
    /// Its room for epochs' changes and held sums after the sync
    /// ([`super::memory`]); `u64::MAX` when its memory is unknown.
    pub room_bytes: u64,
}

const FIELDS: usize = 13;
const ENCODED: usize = FIELDS * 8;

impl RankEpoch {
    /// This rank's figures for an epoch trained in `train_seconds` and
    /// synced with `sync`.
    pub(crate) fn new(
        iterations: u64,
        train_seconds: f64,
        sync_seconds: f64,
        sync: &SyncStats,
        room_bytes: u64,
    ) -> RankEpoch {
        RankEpoch {
            iterations,
            train_seconds,
            sync_seconds,
            drain_seconds: sync.drain_seconds,
            exchange_seconds: sync.exchange_seconds,
            apply_seconds: sync.apply_seconds,
            records_sent: sync.records_sent,
            bytes_sent: sync.bytes_sent,
            records_applied: sync.records_applied,
            resident_bytes: resident_bytes(),
            entries_drained: sync.entries_drained,
            held_entries: sync.held_entries,
            room_bytes,
        }
    }

    fn fields(&self) -> [u64; FIELDS] {
        [
            self.iterations,
            self.train_seconds.to_bits(),
            self.sync_seconds.to_bits(),
            self.drain_seconds.to_bits(),
            self.exchange_seconds.to_bits(),
            self.apply_seconds.to_bits(),
            self.records_sent,
            self.bytes_sent,
            self.records_applied,
            self.resident_bytes,
            self.entries_drained,
            self.held_entries,
            self.room_bytes,
        ]
    }

    fn encode(&self) -> [u8; ENCODED] {
        let mut out = [0u8; ENCODED];
        for (chunk, field) in out.chunks_exact_mut(8).zip(self.fields()) {
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
        let seconds = |i: usize| f64::from_bits(field(i));
        Some(RankEpoch {
            iterations: field(0),
            train_seconds: seconds(1),
            sync_seconds: seconds(2),
            drain_seconds: seconds(3),
            exchange_seconds: seconds(4),
            apply_seconds: seconds(5),
            records_sent: field(6),
            bytes_sent: field(7),
            records_applied: field(8),
            resident_bytes: field(9),
            entries_drained: field(10),
            held_entries: field(11),
            room_bytes: field(12),
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
            sum.drain_seconds += rank.drain_seconds;
            sum.exchange_seconds += rank.exchange_seconds;
            sum.apply_seconds += rank.apply_seconds;
            sum.records_sent += rank.records_sent;
            sum.records_applied += rank.records_applied;
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
        let syncs = self.syncs as f64;
        for (index, (rank, peak)) in self.ranks.iter().zip(&self.peak_resident).enumerate() {
            let _ = writeln!(
                text,
                "  rank {index}: {:.0} it/s, {:.2} s in syncs ({:.3} s a sync: drain {:.3}, waiting and exchange {:.3}, apply {:.3}), sent {}, resident {} (peak {})",
                rate(rank),
                rank.sync_seconds,
                rank.sync_seconds / syncs,
                rank.drain_seconds / syncs,
                rank.exchange_seconds / syncs,
                rank.apply_seconds / syncs,
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

/// Rank 0's log of every epoch in [`EPOCHS_FILE`]: what the cost model
/// in `docs/cluster.md` is fitted to and checked against. A failure to
/// write is logged once and costs no training.
pub(crate) struct EpochLog {
    path: PathBuf,
    failed: bool,
}

/// What a row of [`EPOCHS_FILE`] records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// An epoch: the ranks' training and the sync after it.
    Sync,
    /// The strategy sums held back, gathered onto rank 0.
    Settle,
    /// Rank 0's records copied to every rank at the session's start.
    Replicate,
}

impl Event {
    fn name(self) -> &'static str {
        match self {
            Event::Sync => "sync",
            Event::Settle => "settle",
            Event::Replicate => "replicate",
        }
    }
}

const EPOCHS_HEADER: &str = "event,through_iteration,ranks,rank,wall_seconds,iterations,train_seconds,sync_seconds,drain_seconds,exchange_seconds,apply_seconds,records_sent,bytes_sent,records_applied,resident_bytes\n";

impl EpochLog {
    pub(crate) fn new(dir: &Path) -> EpochLog {
        EpochLog {
            path: dir.join(EPOCHS_FILE),
            failed: false,
        }
    }

    /// Appends one row per rank: `wall_seconds` is rank 0's whole time for
    /// the event (an epoch's training, sync and bookkeeping).
    pub(crate) fn append(
        &mut self,
        event: Event,
        through_iteration: u64,
        wall_seconds: f64,
        ranks: &[RankEpoch],
    ) {
        if self.failed {
            return;
        }
        let mut text = String::new();
        for (rank, epoch) in ranks.iter().enumerate() {
            let _ = writeln!(
                text,
                "{},{through_iteration},{},{rank},{wall_seconds:.6},{},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{},{}",
                event.name(),
                ranks.len(),
                epoch.iterations,
                epoch.train_seconds,
                epoch.sync_seconds,
                epoch.drain_seconds,
                epoch.exchange_seconds,
                epoch.apply_seconds,
                epoch.records_sent,
                epoch.bytes_sent,
                epoch.records_applied,
                epoch.resident_bytes,
            );
        }
        if let Err(error) = self.write(&text) {
            tracing::warn!(
                "cannot append to {}: {error}; the epochs of this session go unrecorded",
                self.path.display()
            );
            self.failed = true;
        }
    }

    fn write(&self, rows: &str) -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        if file.metadata()?.len() == 0 {
            file.write_all(EPOCHS_HEADER.as_bytes())?;
        }
        file.write_all(rows.as_bytes())
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
            drain_seconds: 0.125,
            exchange_seconds: 0.0625,
            apply_seconds: 0.03125,
            records_sent: 77,
            bytes_sent: 1 << 33,
            records_applied: 99,
            resident_bytes: 7 << 30,
            entries_drained: 400,
            held_entries: 300,
            room_bytes: u64::MAX,
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
            drain_seconds: 0.1,
            exchange_seconds: 0.3,
            apply_seconds: 0.1,
            bytes_sent: 10,
            resident_bytes: 100,
            ..RankEpoch::default()
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
        assert!(
            summary.contains(
                "rank 2: 1000 it/s, 15.00 s in syncs (0.500 s a sync: drain 0.100, waiting and exchange 0.300, apply 0.100)"
            ),
            "{summary}"
        );
        assert!(telemetry.take(100).is_none(), "the sums start again");
    }

    /// A directory of this test's own, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let path = std::env::temp_dir()
                .join(format!("trainer-telemetry-{name}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&path);
            std::fs::create_dir_all(&path).unwrap();
            Scratch(path)
        }

        fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn the_epoch_log_keeps_one_header_and_a_row_per_rank_across_sessions() {
        let dir = Scratch::new("rows");
        let rank = RankEpoch {
            iterations: 10,
            train_seconds: 2.0,
            records_applied: 5,
            ..RankEpoch::default()
        };
        EpochLog::new(dir.path()).append(Event::Sync, 19, 2.5, &[rank, rank]);
        EpochLog::new(dir.path()).append(Event::Settle, 19, 0.75, &[rank]);
        let text = std::fs::read_to_string(dir.path().join(EPOCHS_FILE)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("event,through_iteration,ranks,rank,"));
        assert_eq!(lines[0].split(',').count(), lines[1].split(',').count());
        assert!(
            lines[1].starts_with("sync,19,2,0,2.500000,10,2.000000,"),
            "{text}"
        );
        assert!(lines[2].starts_with("sync,19,2,1,"), "{text}");
        assert!(lines[3].starts_with("settle,19,1,0,0.750000,"), "{text}");
    }

    #[test]
    fn an_epoch_log_that_cannot_be_written_stops_trying() {
        let dir = Scratch::new("unwritable");
        let mut log = EpochLog::new(&dir.path().join("no-such-directory"));
        log.append(Event::Sync, 1, 1.0, &[RankEpoch::default()]);
        assert!(log.failed);
    }

    #[test]
    fn this_process_has_resident_memory() {
        assert!(resident_bytes() > 0);
    }
}
