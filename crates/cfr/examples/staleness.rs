//! What a cluster's staleness costs CFR, on Leduc's known values: ranks on
//! threads train with live reads and sync every `epoch` iterations (over
//! all ranks), against one process at an equal total of iterations, under
//! the schedules full play and bidding use, and CFR+. A rank's increments
//! within an epoch are not discounted against each other (they are
//! discounted as of the epoch's end), DCFR's halving of negative regrets at
//! every iteration is skipped within an epoch, CFR+ floors a rank's view at
//! each update and the summed record again at the sync, and a rank sees the
//! others' updates only at a sync; this measures what that costs.
//!
//! With overlapped syncs each epoch trains while the last one's sync runs,
//! so a rank sees the others' updates one epoch later still. Training in
//! place, a rank updates its replica itself, as one process does (its own
//! increments discounted against each other, DCFR's halving and CFR+'s
//! floor at every update), and the sync finds the epoch's change from each
//! record as it is and as it was.
//!
//! One rank with live reads sees all its own updates at once, as one
//! process does: what it loses against one process is the within-epoch
//! discounting alone. Four ranks add not seeing each other's updates until
//! the sync.
//!
//! `cargo run --release -p cfr --example staleness [SEEDS [SCHEDULE]]`
//! (`linear`, `dcfr` or `cfr+`; all three unless named) prints a table:
//! exploitability (milli-chips a hand, lower is better), its mean and
//! standard error over seeds (30 unless given), and the difference from
//! one process with a 95% interval. A run's trajectory parts from one
//! process's at its first differing draw, so the seeds are independent
//! samples, not pairs: six seeds made a noise of 15% look like a cost.

use std::thread;

use cfr::Schedule;
use cfr::best_response::exploitability;
use cfr::discount::Discounter;
use cfr::distributed::{Collective, EpochShare, Reads, ReplicatedTable, StrategySums, ThreadGroup};
use cfr::games::leduc::Leduc;
use cfr::mccfr::ExternalSampling;
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use store::MemoryTable;

const TOTAL: u64 = 48_000;
const FIRST_SEED: u64 = 21;

fn exploitability_of(table: &MemoryTable, tree: &Tree) -> f64 {
    exploitability(tree, &AveragePolicy::load(table).unwrap()).unwrap()
}

fn one_process(schedule: Schedule, seed: u64, tree: &Tree) -> f64 {
    let table = MemoryTable::new();
    ExternalSampling::new(Leduc::new(), &table, schedule, seed, 1)
        .unwrap()
        .run(1, TOTAL)
        .unwrap();
    exploitability_of(&table, tree)
}

/// How a rank's syncs meet its training.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Syncs {
    /// Training waits for each sync.
    Blocking,
    /// Each epoch trains while the last one's sync runs.
    Overlapped,
    /// Training waits for each sync, and trains on the replica in place.
    InPlace,
}

/// `ranks` ranks with live reads, syncing every `epoch` iterations over all
/// ranks; rank 0's table after a final settle.
fn replicated(
    schedule: Schedule,
    (ranks, epoch, sums, syncs): (usize, u64, StrategySums, Syncs),
    seed: u64,
    tree: &Tree,
) -> f64 {
    let groups = ThreadGroup::new(ranks);
    let mut tables: Vec<MemoryTable> = thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|group| {
                scope.spawn(move || {
                    let table = MemoryTable::new();
                    let mut replica = ReplicatedTable::new(
                        &table,
                        Discounter::new(schedule).unwrap(),
                        Reads::Live,
                    )
                    .with_strategy_sums(sums);
                    if syncs == Syncs::InPlace {
                        replica = replica.training_in_place().unwrap();
                    }
                    let solver =
                        ExternalSampling::new(Leduc::new(), &replica, schedule, seed, 1).unwrap();
                    let mut done = 0;
                    while done < TOTAL {
                        let this = epoch.min(TOTAL - done);
                        let share = EpochShare::of(done + 1, this, group.rank(), ranks);
                        match syncs {
                            Syncs::Blocking | Syncs::InPlace => {
                                solver.run_share(share).unwrap();
                                replica.sync(&group, done + this).unwrap();
                            }
                            Syncs::Overlapped => {
                                thread::scope(|beside| {
                                    let training = beside.spawn(|| solver.run_share(share));
                                    replica.finish_sync(&group).unwrap();
                                    training.join().unwrap().unwrap();
                                });
                                replica.close_epoch(done + this).unwrap();
                            }
                        }
                        done += this;
                    }
                    replica.finish_sync(&group).unwrap();
                    replica.settle(&group, done).unwrap();
                    table
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    exploitability_of(&tables.swap_remove(0), tree)
}

/// Mean and standard error, in milli-chips.
fn mean_and_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let spread = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    (1000.0 * mean, 1000.0 * spread / n.sqrt())
}

fn main() {
    let seeds: u64 = match std::env::args().nth(1) {
        None => 30,
        Some(text) => match text.parse() {
            Ok(seeds) if seeds >= 2 => seeds,
            _ => {
                eprintln!("`{text}`: give the number of seeds, 2 or more");
                std::process::exit(2);
            }
        },
    };
    let only = std::env::args().nth(2);
    let seeds: Vec<u64> = (FIRST_SEED..FIRST_SEED + seeds).collect();
    let tree = Tree::build(&Leduc::new()).unwrap();
    println!(
        "Leduc, {TOTAL} iterations, {} seeds: exploitability in milli-chips a hand \
         (mean ± standard error), and the difference from one process (95% interval)",
        seeds.len()
    );
    println!(
        "{:<8} {:<32} {:>16} {:>7} {:>18}",
        "schedule", "run", "exploitability", "vs one", "difference"
    );
    for (name, schedule) in [
        ("linear", Schedule::LINEAR),
        ("dcfr", Schedule::DCFR),
        ("cfr+", Schedule::CFR_PLUS),
    ] {
        if only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let single: Vec<f64> = seeds
            .iter()
            .map(|&seed| one_process(schedule, seed, &tree))
            .collect();
        let (single_mean, single_error) = mean_and_error(&single);
        println!(
            "{name:<8} {:<32} {:>7.2} ± {:>5.2} {:>7}",
            "one process", single_mean, single_error, "1.00"
        );
        let (blocking, overlapped, in_place) = (Syncs::Blocking, Syncs::Overlapped, Syncs::InPlace);
        let deferred = StrategySums::Deferred;
        for (ranks, epoch, sums, syncs) in [
            (1, 64, deferred, blocking),
            (1, 1024, deferred, blocking),
            (4, 16, deferred, blocking),
            (4, 64, deferred, blocking),
            (4, 256, deferred, blocking),
            (4, 1024, deferred, blocking),
            (4, 64, StrategySums::EachSync, blocking),
            (4, 8, deferred, overlapped),
            (4, 16, deferred, overlapped),
            (4, 32, deferred, overlapped),
            (4, 64, deferred, overlapped),
            (4, 256, deferred, overlapped),
            (1, 1024, deferred, in_place),
            (4, 16, deferred, in_place),
            (4, 64, deferred, in_place),
            (4, 256, deferred, in_place),
        ] {
            let plan = (ranks, epoch, sums, syncs);
            let values: Vec<f64> = seeds
                .iter()
                .map(|&seed| replicated(schedule, plan, seed, &tree))
                .collect();
            let (mean, error) = mean_and_error(&values);
            let margin = 1.96 * (error.powi(2) + single_error.powi(2)).sqrt();
            println!(
                "{name:<8} {:<32} {:>7.2} ± {:>5.2} {:>7.2} {:>+8.2} ± {:>5.2}",
                format!(
                    "{ranks} ranks, epoch {epoch}, {sums}{}",
                    match syncs {
                        Syncs::Blocking => "",
                        Syncs::Overlapped => ", overlap",
                        Syncs::InPlace => ", in place",
                    }
                ),
                mean,
                error,
                mean / single_mean,
                mean - single_mean,
                margin
            );
        }
    }
}
