//! Replicated MCCFR on ranks that are threads of this process: the same
//! code the trainer runs over MPI, with the transport swapped.

mod common;

use std::thread;

use cfr::best_response::exploitability;
use cfr::discount::Discounter;
use cfr::distributed::{
    Collective, EpochShare, Reads, ReplicatedTable, SETTLE_ROUND_BYTES, StrategySums, SyncStats,
    ThreadGroup, replica_digest, replicate_from_root,
};
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use cfr::{Schedule, WarmStart};
use common::{Hooked, sorted_records};
use store::{MemoryTable, Table};

/// How a replicated run is laid out.
#[derive(Clone, Copy)]
struct Plan {
    ranks: usize,
    per_rank: u64,
    epochs: u64,
    reads: Reads,
    schedule: Schedule,
    seed: u64,
    sums: StrategySums,
    settle_round_bytes: u64,
    /// Whether each rank trains in place on its replica
    /// ([`ReplicatedTable::training_in_place`]) instead of into a delta
    /// buffer.
    in_place: bool,
    /// Whether every rank's table starts with the same keys at the same
    /// slots, said to the replica ([`ReplicatedTable::with_shared_layout`]),
    /// so that syncs in place name records by slot.
    shared_layout: bool,
}

/// Trains `table` (this rank's replica) for `plan.epochs` epochs starting
/// after global iteration `done`, checking after each sync that every
/// rank's replica has the same digest. Returns the global iterations done.
fn train_rank(group: &ThreadGroup, table: &MemoryTable, plan: Plan, done: u64) -> u64 {
    train_rank_counting(group, table, plan, done).0
}

/// [`train_rank`], which also returns the records this rank sent and its
/// largest settle, and settles the strategy sums every fifth epoch and at
/// the end.
fn train_rank_counting(
    group: &ThreadGroup,
    table: &MemoryTable,
    plan: Plan,
    done: u64,
) -> (u64, u64, SyncStats) {
    let mut replica =
        ReplicatedTable::new(table, Discounter::new(plan.schedule).unwrap(), plan.reads)
            .with_strategy_sums(plan.sums)
            .with_settle_round_bytes(plan.settle_round_bytes);
    if plan.in_place {
        replica = replica.training_in_place().unwrap();
    }
    if plan.shared_layout {
        replica = replica.with_shared_layout();
    }
    let solver =
        ExternalSampling::new(Leduc::new(), &replica, plan.schedule, plan.seed, 1).unwrap();
    let mut done = done;
    let mut sent = 0;
    let mut largest_settle = SyncStats::default();
    for epoch_number in 1..=plan.epochs {
        let epoch = plan.per_rank * group.size() as u64;
        let share = EpochShare::of(done + 1, epoch, group.rank(), group.size());
        solver.run_share(share).unwrap();
        done += plan.per_rank * group.size() as u64;
        sent += replica.sync(group, done).unwrap().records_sent;
        assert_same_everywhere(group, replica.digest().unwrap());
        if epoch_number % 5 == 0 || epoch_number == plan.epochs {
            let settled = replica.settle(group, done).unwrap();
            sent += settled.records_sent;
            if settled.bytes_received >= largest_settle.bytes_received {
                largest_settle = settled;
            }
            assert_eq!(replica.deferred(), 0);
            assert_same_everywhere(group, replica.digest().unwrap());
        }
    }
    (done, sent, largest_settle)
}

/// Trains `share` while the last epoch's sync runs, then puts this epoch
/// in flight (as of iteration `now`); afterwards the replica holds every
/// epoch before this one, the same on every rank.
fn train_beside_the_sync<G: cfr::Game, T: Table + ?Sized>(
    group: &ThreadGroup,
    solver: &ExternalSampling<'_, G, ReplicatedTable<'_, T>>,
    replica: &ReplicatedTable<'_, T>,
    share: EpochShare,
    now: u64,
) -> cfr::mccfr::BatchStats {
    let trained = thread::scope(|beside| {
        let training = beside.spawn(|| solver.run_share(share).unwrap());
        replica.finish_sync(group).unwrap();
        training.join().unwrap()
    });
    assert!(!replica.in_flight());
    replica.close_epoch(now).unwrap();
    trained
}

/// Checks that every rank's replica has this rank's `(digest, records)`.
fn assert_same_everywhere(group: &ThreadGroup, (digest, records): (u64, u64)) {
    let mine = [digest.to_le_bytes(), records.to_le_bytes()].concat();
    let everyone = group.all_gather(&mine).unwrap();
    for (rank, theirs) in everyone.iter().enumerate() {
        assert_eq!(
            theirs,
            &mine,
            "rank {rank}'s replica differs from rank {}'s",
            group.rank()
        );
    }
    assert!(records > 0);
}

/// Runs `plan` on threads and returns rank 0's replica.
fn replicated_run(plan: Plan) -> MemoryTable {
    let groups = ThreadGroup::new(plan.ranks);
    let mut tables: Vec<MemoryTable> = thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let table = MemoryTable::new();
                    if plan.shared_layout {
                        for &key in &leduc_keys() {
                            table.slot(key).unwrap();
                        }
                    }
                    train_rank(&group, &table, plan, 0);
                    table
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    tables.swap_remove(0)
}

fn leduc_exploitability(table: &MemoryTable) -> f64 {
    let tree = Tree::build(&Leduc::new()).unwrap();
    exploitability(&tree, &AveragePolicy::load(table).unwrap()).unwrap()
}

fn single_process(iterations: u64, seed: u64) -> f64 {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, seed, 1).unwrap();
    solver.run(1, iterations).unwrap();
    leduc_exploitability(&table)
}

#[test]
fn replicas_stay_identical_through_discounting_and_live_reads() {
    for (ranks, reads, schedule) in [
        (3, Reads::Live, Schedule::LINEAR),
        (2, Reads::Frozen, Schedule::DCFR),
        (2, Reads::Live, Schedule::CFR_PLUS),
    ] {
        replicated_run(Plan {
            ranks,
            per_rank: 40,
            epochs: 12,
            reads,
            schedule,
            seed: 5,
            sums: StrategySums::EachSync,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: false,
            shared_layout: false,
        });
    }
}

/// One rank's replica at the end of a run, the records it sent and its
/// largest settle.
struct RankRun {
    table: MemoryTable,
    sent: u64,
    largest_settle: SyncStats,
}

/// Runs `plan` on threads; returns every rank's replica and counts, rank 0
/// first.
fn replicated_run_ranks(plan: Plan) -> Vec<RankRun> {
    let groups = ThreadGroup::new(plan.ranks);
    thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let table = MemoryTable::new();
                    let (_, sent, largest_settle) = train_rank_counting(&group, &table, plan, 0);
                    RankRun {
                        table,
                        sent,
                        largest_settle,
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

/// Runs `plan` on threads; returns rank 0's replica and the records all
/// the ranks sent.
fn replicated_run_counting(plan: Plan) -> (MemoryTable, u64) {
    let mut ranks = replicated_run_ranks(plan);
    let sent = ranks.iter().map(|rank| rank.sent).sum();
    (ranks.swap_remove(0).table, sent)
}

/// Deferred strategy sums: only the regrets travel at each sync, and each
/// rank holds its sums, discounted as they wait, until a settle (here every
/// fifth epoch and at the end). Training never reads the sums, so it walks
/// the same paths; after the settle the replicas are identical and hold
/// what replicas that sent everything at every sync hold, up to the
/// rounding of discounting once instead of at every sync, while fewer
/// records travelled.
#[test]
fn deferred_strategy_sums_settle_to_what_each_sync_would_have_held() {
    for (ranks, reads, schedule) in [
        (1, Reads::Live, Schedule::VANILLA),
        (1, Reads::Live, Schedule::LINEAR),
        (3, Reads::Frozen, Schedule::VANILLA),
        (3, Reads::Live, Schedule::LINEAR),
        (3, Reads::Frozen, Schedule::DCFR),
    ] {
        let plan = Plan {
            ranks,
            per_rank: 40,
            epochs: 12,
            reads,
            schedule,
            seed: 5,
            sums: StrategySums::EachSync,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: false,
            shared_layout: false,
        };
        let (each_sync, sent_each_sync) = replicated_run_counting(plan);
        let (deferred, sent_deferred) = replicated_run_counting(Plan {
            sums: StrategySums::Deferred,
            ..plan
        });
        let (each_sync, deferred) = (sorted_records(&each_sync), sorted_records(&deferred));
        assert_eq!(each_sync.len(), deferred.len());
        // A record the settle caught up and one it did not hold the same
        // values in other units: compare them as of the run's end.
        let discounter = Discounter::new(schedule).unwrap();
        let end = plan.per_rank * ranks as u64 * plan.epochs;
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0);
        for ((key, a), (other_key, b)) in each_sync.iter().zip(&deferred) {
            assert_eq!(key, other_key);
            let (mut a, mut b) = (*a, *b);
            discounter.catch_up(&mut a, end);
            discounter.catch_up(&mut b, end);
            for (x, y) in a.regrets.iter().zip(&b.regrets) {
                assert!(
                    close(*x, *y),
                    "{reads:?} key {key}: regrets {a:?} and {b:?}"
                );
            }
            for (x, y) in a.strategy_sum.iter().zip(&b.strategy_sum) {
                assert!(close(*x, *y), "{reads:?} key {key}: sums {a:?} and {b:?}");
            }
        }
        assert!(
            sent_deferred < sent_each_sync,
            "{reads:?}: {sent_deferred} records sent deferred, {sent_each_sync} each sync"
        );
    }
}

/// Frozen reads make an epoch one sampled iteration over every rank's
/// deals: the ranks change only who computes it. So N ranks with epochs of
/// `p` iterations each match one rank with epochs of `N * p`: bit for bit
/// on most seeds, and apart only where the order of float additions flips
/// a sampled action and the run takes another (equally good) path, so the
/// means over seeds must agree within their noise (10%). Against plain
/// MCCFR at an equal total, the strategy moves once per epoch instead of
/// once per iteration, which costs a little (16-iteration epochs: 0.065
/// over eight seeds where one process reaches 0.061 over four), while
/// single-process seeds alone spread from 0.054 to 0.068 at 48,000
/// iterations. The bound, 25% above one process's mean, allows that
/// spread and that cost and nothing more.
#[test]
fn frozen_epochs_reach_one_process_exploitability_at_equal_iterations() {
    const TOTAL: u64 = 48_000;
    const EPOCH: u64 = 12;
    let seeds = [11, 12, 13, 14];
    let mean = |values: &[f64]| values.iter().sum::<f64>() / values.len() as f64;
    let single: Vec<f64> = seeds.iter().map(|&s| single_process(TOTAL, s)).collect();
    let frozen = |ranks: usize, seed: u64| {
        let per_rank = EPOCH / ranks as u64;
        leduc_exploitability(&replicated_run(Plan {
            ranks,
            per_rank,
            epochs: TOTAL / EPOCH,
            reads: Reads::Frozen,
            schedule: Schedule::VANILLA,
            seed,
            sums: StrategySums::EachSync,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: false,
            shared_layout: false,
        }))
    };
    let one_rank: Vec<f64> = seeds.iter().map(|&seed| frozen(1, seed)).collect();
    for ranks in [2, 3] {
        let replicated: Vec<f64> = seeds.iter().map(|&seed| frozen(ranks, seed)).collect();
        eprintln!(
            "{ranks} ranks: {replicated:.4?}; one rank, same epochs: {one_rank:.4?}; one process: {single:.4?}"
        );
        assert!(
            (mean(&replicated) - mean(&one_rank)).abs() <= 0.1 * mean(&one_rank),
            "{ranks} ranks reach {:.4}, one rank with the same epochs {:.4}",
            mean(&replicated),
            mean(&one_rank)
        );
        assert!(
            mean(&replicated) <= 1.25 * mean(&single),
            "{ranks} ranks reach {:.4} on average; one process {:.4}",
            mean(&replicated),
            mean(&single)
        );
    }
}

/// With one rank and live reads, a replicated run is plain MCCFR with its
/// updates applied in batches: it must reach what one process reaches.
#[test]
fn one_live_rank_is_plain_mccfr() {
    for seed in [11, 12] {
        let table = replicated_run(Plan {
            ranks: 1,
            per_rank: 16,
            epochs: 20_000 / 16,
            reads: Reads::Live,
            schedule: Schedule::VANILLA,
            seed,
            sums: StrategySums::EachSync,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: false,
            shared_layout: false,
        });
        let replicated = leduc_exploitability(&table);
        let single = single_process(20_000, seed);
        assert!(
            (replicated - single).abs() <= 1e-3 * single,
            "seed {seed}: {replicated} against {single}"
        );
    }
}

#[test]
fn a_run_resumes_on_another_number_of_ranks() {
    let plan = Plan {
        ranks: 2,
        per_rank: 50,
        epochs: 10,
        reads: Reads::Live,
        schedule: Schedule::LINEAR,
        seed: 9,
        sums: StrategySums::Deferred,
        settle_round_bytes: SETTLE_ROUND_BYTES,
        in_place: false,
        shared_layout: false,
    };
    let checkpoint = replicated_run(plan);
    let done = plan.per_rank * plan.ranks as u64 * plan.epochs;
    let before = leduc_exploitability(&checkpoint);
    let resumed = Plan { ranks: 3, ..plan };
    let groups = ThreadGroup::new(resumed.ranks);
    let checkpoint = &checkpoint;
    let tables: Vec<MemoryTable> = thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let table = MemoryTable::new();
                    if group.is_root() {
                        checkpoint
                            .for_each(&mut |key, record| {
                                let slot = table.slot(key).unwrap();
                                table.update(slot, &mut |r| *r = *record).unwrap();
                            })
                            .unwrap();
                    }
                    replicate_from_root(&table, &group).unwrap();
                    assert_same_everywhere(&group, replica_digest(&table).unwrap());
                    train_rank(&group, &table, resumed, done);
                    table
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let after = leduc_exploitability(&tables[0]);
    assert!(
        after < before,
        "training on 3 ranks after 2 lowered nothing: {before:.4} then {after:.4}"
    );
}

/// The settle gathers the strategy sums onto rank 0 alone, a slice of the
/// keys at a time. Split into many rounds, it leaves rank 0 exactly the
/// bits one round leaves (a record's sums meet in the same rank order
/// either way); rank 0 never receives much more than a round's budget
/// however many ranks send, so its memory does not grow with the ranks;
/// and the other ranks receive only the settled keys, to catch the same
/// records up, so every replica's regrets and stamps stay identical (each
/// settle in the run is followed by a digest check).
#[test]
fn the_settle_gathers_onto_rank_0_in_rounds_of_bounded_size() {
    const BUDGET: u64 = 2_000;
    for ranks in [2, 4] {
        let plan = Plan {
            ranks,
            per_rank: 60 / ranks as u64,
            epochs: 10,
            reads: Reads::Live,
            schedule: Schedule::DCFR,
            seed: 3,
            sums: StrategySums::Deferred,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: false,
            shared_layout: false,
        };
        let one_round = replicated_run_ranks(plan);
        let in_rounds = replicated_run_ranks(Plan {
            settle_round_bytes: BUDGET,
            ..plan
        });
        assert_eq!(one_round[0].largest_settle.rounds, 1);
        let root = &in_rounds[0].largest_settle;
        assert!(root.rounds > 3, "{ranks} ranks: {root:?}");
        assert_eq!(
            sorted_records(&one_round[0].table),
            sorted_records(&in_rounds[0].table),
            "{ranks} ranks: rank 0's records after a settle in rounds"
        );
        // Every rank's sums reach rank 0, and a round holds about the
        // budget (the keys split by a hash, so a round may hold a little
        // more than the mean).
        let everyone_sent: u64 = in_rounds
            .iter()
            .map(|rank| rank.largest_settle.bytes_sent)
            .sum();
        assert!(everyone_sent > 2 * BUDGET, "{ranks} ranks: {everyone_sent}");
        assert!(
            root.largest_round_bytes <= 2 * BUDGET,
            "{ranks} ranks: rank 0 received {} bytes in one round of a {BUDGET}-byte budget",
            root.largest_round_bytes
        );
        for (rank, run) in in_rounds.iter().enumerate().skip(1) {
            let settle = &run.largest_settle;
            assert_eq!(
                settle.bytes_received % 16,
                0,
                "rank {rank} received more than keys"
            );
            assert!(
                settle.bytes_received <= 16 * settle.records_applied,
                "rank {rank}: {settle:?}"
            );
        }
    }
}

/// How a test's ranks train and sync.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Syncs {
    /// Into a delta buffer, synced after each epoch.
    After,
    /// Into a delta buffer, each epoch beside the last one's sync.
    Beside,
    /// In place on the replica, synced after each epoch.
    InPlace,
}

/// A warm start seeds a record the first time it is trained, once, as in
/// one process, however many ranks meet it fresh in the same epoch. Under
/// vanilla CFR nothing is discounted, so the strategy sums over the whole
/// table are exactly the strategy updates made plus one seed's weight per
/// trained record (up to float rounding); a seed counted once per rank
/// that met the record would add up to `ranks - 1` more each.
#[test]
fn a_warm_start_seeds_each_record_once_over_all_ranks() {
    const WEIGHT: f64 = 100.0;
    let warm = WarmStart {
        regret: 1.0,
        strategy_weight: WEIGHT,
    };
    for (ranks, reads, sums, syncs) in [
        (1, Reads::Live, StrategySums::EachSync, Syncs::After),
        (3, Reads::Live, StrategySums::EachSync, Syncs::After),
        (3, Reads::Frozen, StrategySums::EachSync, Syncs::After),
        (3, Reads::Live, StrategySums::Deferred, Syncs::After),
        (3, Reads::Live, StrategySums::EachSync, Syncs::Beside),
        (3, Reads::Live, StrategySums::Deferred, Syncs::Beside),
        (1, Reads::Live, StrategySums::EachSync, Syncs::InPlace),
        (3, Reads::Live, StrategySums::EachSync, Syncs::InPlace),
        (3, Reads::Live, StrategySums::Deferred, Syncs::InPlace),
    ] {
        let beside = syncs == Syncs::Beside;
        let groups = ThreadGroup::new(ranks);
        let runs: Vec<(MemoryTable, u64)> = thread::scope(|scope| {
            let handles: Vec<_> = groups
                .into_iter()
                .map(|group| {
                    scope.spawn(move || {
                        let table = MemoryTable::new();
                        let mut replica = ReplicatedTable::new(
                            &table,
                            Discounter::new(Schedule::VANILLA).unwrap(),
                            reads,
                        )
                        .with_strategy_sums(sums);
                        if syncs == Syncs::InPlace {
                            replica = replica.training_in_place().unwrap();
                        }
                        let game = Hooked {
                            suggested: |_| Some(0),
                            ..Hooked::new(Leduc::new())
                        };
                        let solver = ExternalSampling::new(game, &replica, Schedule::VANILLA, 7, 1)
                            .unwrap()
                            .with_warm_start(Some(warm))
                            .unwrap();
                        let (mut done, mut updates) = (0u64, 0u64);
                        for _ in 0..8 {
                            let epoch = 30;
                            let share = EpochShare::of(done + 1, epoch, group.rank(), ranks);
                            let trained = if beside {
                                train_beside_the_sync(
                                    &group,
                                    &solver,
                                    &replica,
                                    share,
                                    done + epoch,
                                )
                            } else {
                                let trained = solver.run_share(share).unwrap();
                                replica.sync(&group, done + epoch).unwrap();
                                trained
                            };
                            updates += trained.strategy_updates;
                            // Beside the syncs, the first epoch's sync runs
                            // beside the second.
                            if !beside || done > 0 {
                                assert_same_everywhere(&group, replica.digest().unwrap());
                            }
                            done += epoch;
                        }
                        replica.finish_sync(&group).unwrap();
                        replica.settle(&group, done).unwrap();
                        (table, updates)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let updates: u64 = runs.iter().map(|(_, updates)| updates).sum();
        let (mut mass, mut trained) = (0.0f64, 0u64);
        runs[0]
            .0
            .for_each(&mut |_, record| {
                if record.stamp != 0 {
                    trained += 1;
                    mass += record
                        .strategy_sum
                        .iter()
                        .map(|&s| f64::from(s))
                        .sum::<f64>();
                }
            })
            .unwrap();
        let expected = updates as f64 + WEIGHT * trained as f64;
        assert!(
            (mass - expected).abs() <= 1e-5 * expected,
            "{ranks} ranks, {reads:?}, {sums:?}, {syncs:?}: strategy sums {mass}, expected {updates} updates \
             and {trained} seeds of {WEIGHT} = {expected}"
        );
    }
}

/// What a rank's memory is planned from: the entries a sync drains and the
/// sums it holds afterwards are counted as they are, and an entry's
/// planned cost covers its structures.
#[test]
fn a_sync_counts_the_entries_it_drains_and_the_sums_it_holds() {
    for in_place in [false, true] {
        a_sync_counts_what_it_drains(in_place);
    }
}

fn a_sync_counts_what_it_drains(in_place: bool) {
    let groups = ThreadGroup::new(2);
    thread::scope(|scope| {
        for group in groups {
            scope.spawn(move || {
                let table = MemoryTable::new();
                let mut replica = ReplicatedTable::new(
                    &table,
                    Discounter::new(Schedule::LINEAR).unwrap(),
                    Reads::Live,
                )
                .with_strategy_sums(StrategySums::Deferred);
                if in_place {
                    replica = replica.training_in_place().unwrap();
                }
                let solver =
                    ExternalSampling::new(Leduc::new(), &replica, Schedule::LINEAR, 4, 1).unwrap();
                let mut done = 0;
                for _ in 0..3 {
                    let share = EpochShare::of(done + 1, 40, group.rank(), group.size());
                    solver.run_share(share).unwrap();
                    done += 40;
                    let pending = replica.pending();
                    let held_before = replica.deferred();
                    let synced = replica.sync(&group, done).unwrap();
                    assert!(pending > 0);
                    assert_eq!(synced.entries_drained, pending);
                    assert_eq!(replica.pending(), 0);
                    assert_eq!(synced.held_entries, replica.deferred());
                    assert!(synced.held_entries >= held_before);
                    assert!(synced.records_sent <= synced.entries_drained);
                }
                let costs = replica.entry_bytes();
                // A delta-buffer entry holds a key, two records and a stamp;
                // a held one its slot, the sums and a stamp.
                assert!(costs.pending >= 16 + 2 * 68 + 8, "{costs:?}");
                assert!(costs.held >= 8 + 32 + 8, "{costs:?}");
                assert!(costs.gathered > costs.sent / 2, "{costs:?}");
            });
        }
    });
}

/// Training in place keeps the replicas identical bit for bit after every
/// sync and settle (`train_rank_counting` compares their digests), under
/// every discounting and both ways of sending the strategy sums.
#[test]
fn replicas_trained_in_place_stay_identical() {
    for (ranks, schedule, sums) in [
        (3, Schedule::LINEAR, StrategySums::EachSync),
        (2, Schedule::CFR_PLUS, StrategySums::EachSync),
        (3, Schedule::DCFR, StrategySums::Deferred),
        (2, Schedule::VANILLA, StrategySums::Deferred),
    ] {
        replicated_run(Plan {
            ranks,
            per_rank: 40,
            epochs: 12,
            reads: Reads::Live,
            schedule,
            seed: 5,
            sums,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: true,
            shared_layout: false,
        });
    }
}

/// Every Leduc infostate's key, sorted: what a store built from one
/// skeleton holds at the same slots on every rank.
fn leduc_keys() -> Vec<store::Key> {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 3, 1).unwrap();
    solver.run(1, 5_000).unwrap();
    sorted_records(&table)
        .into_iter()
        .map(|(key, _)| key)
        .collect()
}

/// Ranks whose tables share one layout name the records a sync in place
/// sends by slot: the replicas stay identical, and rank 0's ends bit for
/// bit as when the same ranks name them by key.
#[test]
fn a_sync_in_place_on_a_shared_layout_names_records_by_slot() {
    for (schedule, sums) in [
        (Schedule::LINEAR, StrategySums::EachSync),
        (Schedule::DCFR, StrategySums::Deferred),
    ] {
        let plan = Plan {
            ranks: 3,
            per_rank: 40,
            epochs: 12,
            reads: Reads::Live,
            schedule,
            seed: 9,
            sums,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: true,
            shared_layout: true,
        };
        let by_slot = replicated_run(plan);
        let by_key = replicated_run(Plan {
            shared_layout: false,
            ..plan
        });
        assert_eq!(
            by_slot.len(),
            leduc_keys().len() as u64,
            "no key outside the layout"
        );
        assert_eq!(sorted_records(&by_slot), sorted_records(&by_key));
    }
}

/// One rank training in place is one process with a sync now and then:
/// the sync puts each record back and adds its change, which in floats
/// is the record again up to rounding.
#[test]
fn one_rank_training_in_place_is_plain_mccfr() {
    for seed in [11, 12] {
        let table = replicated_run(Plan {
            ranks: 1,
            per_rank: 16,
            epochs: 20_000 / 16,
            reads: Reads::Live,
            schedule: Schedule::VANILLA,
            seed,
            sums: StrategySums::EachSync,
            settle_round_bytes: SETTLE_ROUND_BYTES,
            in_place: true,
            shared_layout: false,
        });
        let replicated = leduc_exploitability(&table);
        let single = single_process(20_000, seed);
        assert!(
            (replicated - single).abs() <= 1e-3 * single,
            "seed {seed}: {replicated} against {single}"
        );
    }
}

/// Frozen reads must not see an epoch's own changes, and a sync beside
/// training would apply sums to records the next epoch is changing in
/// place: a replica training in place refuses both, with a reason.
#[test]
fn training_in_place_refuses_frozen_reads_and_syncs_beside_training() {
    let table = MemoryTable::new();
    let discounter = || Discounter::new(Schedule::LINEAR).unwrap();
    let frozen = ReplicatedTable::new(&table, discounter(), Reads::Frozen).training_in_place();
    assert!(
        frozen
            .unwrap_err()
            .to_string()
            .contains("frozen reads cannot train in place")
    );
    let live = ReplicatedTable::new(&table, discounter(), Reads::Live)
        .training_in_place()
        .unwrap();
    assert!(live.trains_in_place());
    assert!(
        live.close_epoch(10)
            .unwrap_err()
            .to_string()
            .contains("syncs between epochs, not beside them")
    );
}

/// Ranks training in place where no decision keeps an average, on a
/// layout that rounds (i16), after training that did keep one: a record
/// rewritten under a discount comes back with its sums re-quantised, a
/// rounding apart from the stored sums caught up, which is no training.
/// None of it is held for the settle, and the settle moves nothing;
/// keeping the average, the same ranks hold sums (the check can fail).
#[test]
fn ranks_keeping_no_average_on_a_rounding_layout_hold_no_sums_for_the_settle() {
    const WARMED: u64 = 2_000;
    const EPOCH: u64 = 60;
    let layout = store::RecordLayout::new(3, store::RecordEncoding::I16Scaled).unwrap();
    for keeps_average in [false, true] {
        let groups = ThreadGroup::new(3);
        let held: Vec<u64> = thread::scope(|scope| {
            let handles: Vec<_> = groups
                .into_iter()
                .map(|group| {
                    scope.spawn(move || {
                        // The same single-process start on every rank.
                        let table = MemoryTable::with_layout(layout);
                        ExternalSampling::new(Leduc::new(), &table, Schedule::LINEAR, 3, 1)
                            .unwrap()
                            .run(1, WARMED)
                            .unwrap();
                        let replica = ReplicatedTable::new(
                            &table,
                            Discounter::new(Schedule::LINEAR).unwrap(),
                            Reads::Live,
                        )
                        .with_strategy_sums(StrategySums::Deferred)
                        .training_in_place()
                        .unwrap();
                        let game = Hooked {
                            keeps_average: if keeps_average { |_| true } else { |_| false },
                            ..Hooked::new(Leduc::new())
                        };
                        let solver =
                            ExternalSampling::new(game, &replica, Schedule::LINEAR, 8, 1).unwrap();
                        let (mut done, mut held) = (WARMED, 0);
                        for _ in 0..6 {
                            let share = EpochShare::of(done + 1, EPOCH, group.rank(), group.size());
                            solver.run_share(share).unwrap();
                            done += EPOCH;
                            let synced = replica.sync(&group, done).unwrap();
                            assert!(synced.entries_drained > 0);
                            assert_same_everywhere(&group, replica.digest().unwrap());
                            held = held.max(synced.held_entries);
                        }
                        let settled = replica.settle(&group, done).unwrap();
                        assert_same_everywhere(&group, replica.digest().unwrap());
                        if !keeps_average {
                            assert_eq!(settled.records_sent, 0, "{settled:?}");
                            assert_eq!(replica.deferred(), 0);
                        }
                        held
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        if keeps_average {
            assert!(held.iter().all(|&held| held > 0), "{held:?}");
        } else {
            assert_eq!(held, [0, 0, 0], "sums held for the settle");
        }
    }
}
