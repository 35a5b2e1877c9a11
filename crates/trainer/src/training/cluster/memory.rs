//! Each rank's memory, planned. A rank holds its replica (and the store's
//! files, which training brings into memory), the process itself and, at
//! a settle, one round of strategy sums: all known when the session
//! starts. On top of that it holds what grows with an epoch (the delta
//! buffer, the sync's gathered entries) and with the time since the last
//! settle (the strategy sums it holds back). So at the start every rank
//! works out the first part and the room it leaves of what the rank may
//! use, and a rank with too little room refuses the session before
//! anything trains. After every sync each rank reports its room and what
//! its epoch touched, and rank 0 sizes the next epoch so that every rank's
//! share fits, and settles the held sums early when they fill half a
//! rank's room. An epoch's distinct records grow more slowly than its
//! iterations, so scaling the last epoch's linearly overestimates: the
//! plan errs toward shorter epochs, never toward running out.

use cfr::distributed::{Collective, CollectiveError, EntryBytes, SETTLE_ROUND_BYTES};

use super::telemetry::RankEpoch;
use crate::format::bytes;

/// The share of a rank's usable memory that is planned; the rest is left
/// to the allocator's slack, thread stacks and the kernel's buffers.
const PLANNED_PERCENT: u64 = 90;

/// The least room a rank needs for an epoch's changes and its held sums:
/// below this it could sync only every few iterations.
pub(crate) const MINIMUM_ROOM: u64 = 256 << 20;

/// What a rank holds besides its epochs' bookkeeping, and what that
/// leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RankPlan {
    /// What the rank may use.
    pub usable: u64,
    pub usable_from: UsableFrom,
    /// The process's own memory when planned: its replica's records if in
    /// memory, the solver, the bids.
    pub resident: u64,
    /// The store's files that every lookup reads ([`skeleton_bytes`]).
    pub store_files: u64,
    /// Records still to arrive in an in-memory replica (rank 0's, copied at
    /// the start), at [`store::MemoryTable::bytes_per_record`] each.
    pub records_to_come: u64,
    /// A settle's round as this rank holds it: rank 0 decodes and sorts
    /// every rank's sums of a round, the others send theirs.
    pub settle: u64,
}

/// Where a rank's usable memory comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UsableFrom {
    Flag,
    /// An even share of the machine's memory (or its cgroup's limit)
    /// among the ranks `sharing` it.
    Machine {
        sharing: u64,
    },
}

/// How many ranks of the job run on this machine, as the MPI launcher
/// says (Open MPI's `OMPI_COMM_WORLD_LOCAL_SIZE`, MPICH's and Intel MPI's
/// `MPI_LOCALNRANKS`, Slurm's `SLURM_NTASKS_PER_NODE`); 1 when none does.
/// They share its memory.
fn ranks_on_this_machine(variable: &dyn Fn(&str) -> Option<String>) -> u64 {
    [
        "OMPI_COMM_WORLD_LOCAL_SIZE",
        "MPI_LOCALNRANKS",
        "SLURM_NTASKS_PER_NODE",
    ]
    .iter()
    .find_map(|name| variable(name)?.trim().parse::<u64>().ok())
    .filter(|&ranks| ranks > 0)
    .unwrap_or(1)
}

impl RankPlan {
    /// The plan of a rank on `usable` memory; `root` for rank 0.
    pub(crate) fn new(
        usable: u64,
        usable_from: UsableFrom,
        resident: u64,
        store_files: u64,
        records_to_come: u64,
        root: bool,
    ) -> RankPlan {
        RankPlan {
            usable,
            usable_from,
            resident,
            store_files,
            records_to_come: records_to_come * store::MemoryTable::bytes_per_record(),
            // Rank 0: the round's bytes, decoded and sorted (about three
            // times), and its keys; the others: their own round's bytes.
            settle: if root {
                4 * SETTLE_ROUND_BYTES
            } else {
                SETTLE_ROUND_BYTES
            },
        }
    }

    fn fixed(&self) -> u64 {
        self.resident + self.store_files + self.records_to_come + self.settle
    }

    /// The room left for an epoch's bookkeeping and the held sums, when a
    /// memory replica has grown by `grown` records since the plan.
    pub(crate) fn room(&self, grown: u64) -> u64 {
        (self.usable / 100 * PLANNED_PERCENT)
            .saturating_sub(self.fixed())
            .saturating_sub(grown * store::MemoryTable::bytes_per_record())
    }

    /// `Err` with why and what to do when the room is too small.
    pub(crate) fn check(&self) -> Result<(), String> {
        let room = self.room(0);
        if room >= MINIMUM_ROOM {
            return Ok(());
        }
        Err(format!(
            "it may use {usable} ({from}), and {this} leave {room} of the {planned}% of it that is planned, \
             less than the {minimum} it needs for an epoch's changes and the strategy sums it holds: \
             give each rank more memory (fewer ranks a machine, or a larger --rank-memory), or train on one machine",
            usable = bytes(self.usable),
            from = self.usable_from.describe(),
            this = self.describe_fixed(),
            room = bytes(room),
            planned = PLANNED_PERCENT,
            minimum = bytes(MINIMUM_ROOM),
        ))
    }

    fn describe_fixed(&self) -> String {
        let mut parts = vec![format!("the process {}", bytes(self.resident))];
        if self.store_files > 0 {
            parts.push(format!("the store's files {}", bytes(self.store_files)));
        }
        if self.records_to_come > 0 {
            parts.push(format!(
                "rank 0's records still to copy {}",
                bytes(self.records_to_come)
            ));
        }
        parts.push(format!("a settle's round {}", bytes(self.settle)));
        parts.join(", ")
    }

    /// One line for the log.
    pub(crate) fn describe(&self) -> String {
        format!(
            "may use {} ({}): {}; {} left for epochs' changes and held strategy sums",
            bytes(self.usable),
            self.usable_from.describe(),
            self.describe_fixed(),
            bytes(self.room(0))
        )
    }

    /// The plan as words for the ranks' exchange at the start.
    pub(crate) fn encode(&self) -> [u8; 48] {
        let mut out = [0u8; 48];
        let fields = [
            self.usable,
            match self.usable_from {
                UsableFrom::Flag => 0,
                UsableFrom::Machine { sharing } => sharing,
            },
            self.resident,
            self.store_files,
            self.records_to_come,
            self.settle,
        ];
        for (chunk, field) in out.chunks_exact_mut(8).zip(fields) {
            chunk.copy_from_slice(&field.to_le_bytes());
        }
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Option<RankPlan> {
        if bytes.len() != 48 {
            return None;
        }
        let field =
            |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap_or_default());
        Some(RankPlan {
            usable: field(0),
            usable_from: match field(1) {
                0 => UsableFrom::Flag,
                sharing => UsableFrom::Machine { sharing },
            },
            resident: field(2),
            store_files: field(3),
            records_to_come: field(4),
            settle: field(5),
        })
    }
}

impl UsableFrom {
    fn describe(self) -> String {
        match self {
            UsableFrom::Flag => "--rank-memory".to_owned(),
            UsableFrom::Machine { sharing: 1 } => "its machine's memory or cgroup limit".to_owned(),
            UsableFrom::Machine { sharing } => {
                format!("its machine's memory or cgroup limit shared by {sharing} ranks")
            }
        }
    }
}

/// A rank's plan, if its memory is known, and the replica's records when
/// it was made, so that a memory replica's growth counts against the room.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RankMemory {
    pub plan: Option<RankPlan>,
    pub records_at_plan: u64,
}

impl RankMemory {
    /// The room with the replica at `records_now` records; unbounded when
    /// the rank's memory is unknown.
    pub(crate) fn room(&self, records_now: u64) -> u64 {
        self.plan.map_or(u64::MAX, |plan| {
            plan.room(records_now.saturating_sub(self.records_at_plan))
        })
    }
}

/// This rank's plan: `usable` memory if given (`--rank-memory`), else its
/// share of its machine's (see [`ranks_on_this_machine`]); `store_files`
/// the bytes of the files its replica maps; `records_to_come` those rank 0
/// will copy into a memory replica.
pub(crate) fn plan_this_rank(
    usable: Option<u64>,
    store_files: u64,
    records_to_come: u64,
    root: bool,
) -> Option<RankPlan> {
    let (usable, from) = match usable {
        Some(usable) => (usable, UsableFrom::Flag),
        None => {
            let sharing = ranks_on_this_machine(&|name| std::env::var(name).ok());
            (
                store::usable_memory()? / sharing,
                UsableFrom::Machine { sharing },
            )
        }
    };
    Some(RankPlan::new(
        usable,
        from,
        anonymous_resident_bytes(),
        store_files,
        records_to_come,
        root,
    ))
}

/// The files of an mmap store that a rank maps and reads at every lookup
/// (its keys and perfect hash), which stay in memory as page cache. Its
/// records are not among them: changes held to checkpoints keep them in
/// the process's own memory (counted as resident), and with continuous
/// writeback the kernel pages them as it likes (the store's way to exceed
/// memory). An LMDB store's file is paged by the kernel too.
pub(crate) fn skeleton_bytes(skeleton: &store::Skeleton) -> u64 {
    skeleton.keys.bytes + skeleton.phf.bytes
}

/// Every rank's plan, in rank order (`None` where a rank's memory is
/// unknown); every rank calls it together.
pub(crate) fn gather_plans(
    group: &dyn Collective,
    mine: Option<RankPlan>,
) -> Result<Vec<Option<RankPlan>>, CollectiveError> {
    let bytes = mine.map_or_else(Vec::new, |plan| plan.encode().to_vec());
    Ok(group
        .all_gather(&bytes)?
        .iter()
        .map(|bytes| RankPlan::decode(bytes))
        .collect())
}

/// This process's anonymous resident memory (its heap, not the files it
/// maps), from `/proc/self/status`; 0 where it cannot be read.
pub(crate) fn anonymous_resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| rss_anon(&status))
        .unwrap_or(0)
}

fn rss_anon(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("RssAnon:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// What rank 0 decides from the ranks' last epoch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fit {
    /// The most iterations (over all ranks) the next epoch may have so
    /// that every rank's share fits its room; `None` when no rank touched
    /// anything to measure by.
    pub largest_epoch: Option<u64>,
    /// A rank whose held strategy sums fill half its room or more: settle
    /// them before the next epoch.
    pub settle: Option<usize>,
}

/// From every rank's last epoch (each a share of `epoch` iterations, with
/// its room after the sync and the held sums it had before it, `held_before`),
/// the largest next epoch that fits every rank, and whether to settle
/// first.
pub(crate) fn fit(ranks: &[RankEpoch], held_before: &[u64], costs: EntryBytes) -> Fit {
    let count = ranks.len().max(1) as f64;
    // Every rank holds every rank's sent records in a sync.
    let gathered_per_iteration: f64 = ranks
        .iter()
        .filter(|rank| rank.iterations > 0)
        .map(|rank| rank.records_sent as f64 / rank.iterations as f64 / count)
        .sum();
    let mut largest: Option<f64> = None;
    let mut settle = None;
    for (index, rank) in ranks.iter().enumerate() {
        let held = rank.held_entries * costs.held;
        if settle.is_none() && held > 0 && 2 * held >= rank.room_bytes {
            settle = Some(index);
        }
        if rank.iterations == 0 {
            continue;
        }
        // Per iteration of the whole epoch: this rank does 1/ranks of it.
        let share = 1.0 / rank.iterations as f64 / count;
        let grown = rank
            .held_entries
            .saturating_sub(held_before.get(index).copied().unwrap_or(0));
        let per_iteration = share
            * (rank.entries_drained as f64 * costs.pending as f64
                + rank.records_sent as f64 * costs.sent as f64
                + grown as f64 * costs.held as f64)
            + gathered_per_iteration * costs.gathered as f64;
        if per_iteration <= 0.0 {
            continue;
        }
        let room = rank.room_bytes.saturating_sub(held) as f64;
        let fits = room / per_iteration;
        largest = Some(largest.map_or(fits, |so_far: f64| so_far.min(fits)));
    }
    Fit {
        largest_epoch: largest.map(|iterations| iterations.max(0.0) as u64),
        settle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COSTS: EntryBytes = EntryBytes {
        pending: 400,
        held: 160,
        sent: 80,
        gathered: 220,
    };

    fn rank(iterations: u64, entries: u64, sent: u64, held: u64, room: u64) -> RankEpoch {
        RankEpoch {
            iterations,
            entries_drained: entries,
            records_sent: sent,
            held_entries: held,
            room_bytes: room,
            ..RankEpoch::default()
        }
    }

    #[test]
    fn the_next_epoch_fits_the_tightest_rank() {
        // Two ranks, 1,000 iterations each; rank 1 has half the room.
        let ranks = [
            rank(1_000, 10_000, 2_500, 7_500, 8 << 30),
            rank(1_000, 10_000, 2_500, 7_500, 4 << 30),
        ];
        let fit = fit(&ranks, &[0, 0], COSTS);
        assert_eq!(fit.settle, None);
        // Rank 1 per iteration of the epoch: half of (10 entries × 400 +
        // 2.5 sent × 80 + 7.5 new held × 160) = 2,700 B, and every rank's
        // sent records gathered, 2.5 × 220 = 550 B: 3,250 B. Its room is
        // what its held sums leave.
        let room = (4u64 << 30) - 7_500 * 160;
        let expected = room as f64 / 3_250.0;
        let largest = fit.largest_epoch.unwrap() as f64;
        assert!(
            (largest - expected).abs() <= 1.0,
            "{largest} against {expected}"
        );
    }

    #[test]
    fn held_sums_filling_half_a_room_call_for_a_settle() {
        let ranks = [
            rank(1_000, 10_000, 2_500, 1_000, 1 << 30),
            rank(1_000, 10_000, 2_500, (1 << 30) / 2 / 160 + 1, 1 << 30),
        ];
        assert_eq!(fit(&ranks, &[0, 0], COSTS).settle, Some(1));
    }

    #[test]
    fn nothing_touched_is_nothing_to_size_by() {
        let fit = fit(&[rank(0, 0, 0, 0, 1 << 30)], &[0], COSTS);
        assert_eq!(fit.largest_epoch, None);
        assert_eq!(fit.settle, None);
    }

    #[test]
    fn a_rank_whose_replica_leaves_too_little_refuses_and_says_what_to_do() {
        let gib = 1u64 << 30;
        let roomy = RankPlan::new(
            24 * gib,
            UsableFrom::Machine { sharing: 1 },
            3 * gib,
            3 * gib,
            0,
            true,
        );
        assert!(roomy.check().is_ok());
        assert_eq!(
            roomy.room(0),
            24 * gib / 100 * 90 - 6 * gib - 4 * SETTLE_ROUND_BYTES
        );
        let tight = RankPlan::new(5 * gib, UsableFrom::Flag, 3 * gib, 2 * gib, 0, false);
        let error = tight.check().unwrap_err();
        assert!(error.contains("--rank-memory"), "{error}");
        assert!(error.contains("the store's files 2.0 GiB"), "{error}");
        assert!(error.contains("give each rank more memory"), "{error}");
        // An in-memory replica counts the records rank 0 is still to send.
        let memory = RankPlan::new(
            8 * gib,
            UsableFrom::Machine { sharing: 3 },
            gib,
            0,
            50_000_000,
            false,
        );
        assert!(memory.records_to_come >= 50_000_000 * 100);
        assert_eq!(RankPlan::decode(&memory.encode()), Some(memory));
    }

    #[test]
    fn ranks_on_one_machine_share_its_memory() {
        let launched_by = |name: &'static str, value: &'static str| {
            move |asked: &str| (asked == name).then(|| value.to_owned())
        };
        assert_eq!(
            ranks_on_this_machine(&launched_by("OMPI_COMM_WORLD_LOCAL_SIZE", "3")),
            3
        );
        assert_eq!(
            ranks_on_this_machine(&launched_by("MPI_LOCALNRANKS", "8")),
            8
        );
        assert_eq!(
            ranks_on_this_machine(&launched_by("SLURM_NTASKS_PER_NODE", "0")),
            1
        );
        assert_eq!(ranks_on_this_machine(&|_: &str| None), 1);
    }

    #[test]
    fn anonymous_memory_is_read_from_the_status_file() {
        let status = "Name:\ttrainer\nRssAnon:\t  123456 kB\nRssFile:\t 10 kB\n";
        assert_eq!(rss_anon(status), Some(123_456 * 1024));
        assert_eq!(rss_anon("Name: x\n"), None);
        assert!(anonymous_resident_bytes() > 0);
    }
}
