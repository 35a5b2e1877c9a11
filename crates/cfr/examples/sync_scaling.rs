//! How a sync's local work scales with a rank's threads: the drain (taking
//! the epoch's changes out of the delta buffer, deferring the strategy
//! sums), the apply (sorting and applying the gathered entries) and the
//! settle (discounting and adding the held sums), on one rank (no
//! transport), for an epoch that touched `RECORDS` records, on 1 and then
//! 2 threads, alternating. The cost model of the cluster
//! (docs/experiments/cluster-model.md) fits these costs on one core; this
//! says how much of them a machine's cores take off.
//!
//! cargo run --release -p cfr --example sync_scaling [RECORDS] [ROUNDS]
//!
//! This is the delta buffer's sync. Full play's ranks train in place; that
//! sync's drain and apply, on an mmap store, are `trainer bench replica`.

use std::time::Instant;

use cfr::Schedule;
use cfr::discount::Discounter;
use cfr::distributed::{Reads, ReplicatedTable, Solo, StrategySums};
use store::{MemoryTable, Table};

/// One epoch's local sync work on a pool of `threads`: seconds of drain,
/// apply and settle.
fn one_round(records: u64, threads: usize) -> (f64, f64, f64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool");
    pool.install(|| {
        let table = MemoryTable::new();
        let replica = ReplicatedTable::new(
            &table,
            Discounter::new(Schedule::LINEAR).unwrap(),
            Reads::Live,
        )
        .with_strategy_sums(StrategySums::Deferred);
        // Two epochs: the first trains every record once (so the second
        // finds none fresh), the second is the one measured.
        let mut measured = (0.0, 0.0);
        for epoch in 1..=2u64 {
            for index in 0..records {
                let key = u128::from(index.wrapping_mul(0x9e37_79b9_7f4a_7c15)) << 8 | 3;
                let slot = replica.slot(key).unwrap();
                let iteration = epoch * 10;
                replica
                    .update(slot, &mut |record| {
                        record.stamp = store::stamp::encode(iteration);
                        record.regrets[index as usize % 3] += 1.0;
                        record.strategy_sum[1] += 0.5;
                    })
                    .unwrap();
            }
            let stats = replica.sync(&Solo, epoch * 10).unwrap();
            measured = (stats.drain_seconds, stats.apply_seconds);
        }
        let started = Instant::now();
        replica.settle(&Solo, 20).unwrap();
        (measured.0, measured.1, started.elapsed().as_secs_f64())
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let records: u64 = args.next().map_or(2_000_000, |text| text.parse().unwrap());
    let rounds: usize = args.next().map_or(3, |text| text.parse().unwrap());
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    println!(
        "one rank's sync work for an epoch touching {records} records (regrets and sums), {rounds} rounds, {cores} cores"
    );
    println!(
        "{:>7} {:>9} {:>9} {:>9}",
        "threads", "drain s", "apply s", "settle s"
    );
    let mut best = [[f64::INFINITY; 3]; 2];
    for _ in 0..rounds {
        for (column, threads) in [1, 2].into_iter().enumerate() {
            let (drain, apply, settle) = one_round(records, threads);
            println!("{threads:>7} {drain:>9.3} {apply:>9.3} {settle:>9.3}");
            for (slot, value) in best[column].iter_mut().zip([drain, apply, settle]) {
                *slot = slot.min(value);
            }
        }
    }
    println!(
        "speed-up on 2 threads (best of the rounds): drain {:.2}x, apply {:.2}x, settle {:.2}x",
        best[0][0] / best[1][0],
        best[0][1] / best[1][1],
        best[0][2] / best[1][2]
    );
}
