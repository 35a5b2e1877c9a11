//! `trainer bench sync` (under `mpirun`): what one sync's exchange costs
//! for a table of a given size, dense against sparse. A dense sync
//! all-reduces a delta for every record (two floats per action) whether
//! touched or not; a sparse one all-gathers a key and a delta for each
//! touched record only. Each row is the slowest rank's time, the median of
//! a few tries.

use anyhow::Context;
use cfr::distributed::Collective;

use crate::format::{bytes, thousands};
use crate::training::cluster::{self, Probe};

/// Bytes of one touched record in a sparse sync of `width` actions: the
/// key and the two deltas per action (see `cfr::distributed`).
pub fn sparse_record_bytes(width: usize) -> u64 {
    16 + 8 * width as u64
}

pub fn run(
    group: Option<&dyn Collective>,
    records: &[u64],
    touched_percent: f64,
    width: usize,
    tries: usize,
) -> anyhow::Result<()> {
    let group = group.filter(|group| group.size() > 1).context(
        "bench sync times MPI collectives: build with --features mpi and run it under mpirun -np 2 or more",
    )?;
    anyhow::ensure!(
        touched_percent > 0.0 && touched_percent <= 100.0,
        "--touched is a percentage of the records, above 0 and at most 100"
    );
    println!(
        "one sync's exchange over {} ranks, {width} actions per record; sparse sends the {touched_percent}% of records touched since the last sync",
        group.size()
    );
    println!(
        "{:>12} {:>11} {:>9} {:>9} {:>11} {:>9} {:>9} {:>8}",
        "records", "dense/rank", "dense s", "GB/s", "sparse/rank", "sparse s", "GB/s", "ratio"
    );
    for &count in records {
        let floats = count * 2 * width as u64;
        let touched = ((count as f64) * touched_percent / 100.0).ceil() as u64;
        let sparse_bytes = touched * sparse_record_bytes(width);
        let dense = median(group, Probe::Dense { floats }, tries)?;
        let sparse = median(
            group,
            Probe::Sparse {
                bytes: sparse_bytes,
            },
            tries,
        )?;
        let dense_bytes = floats * 4;
        println!(
            "{:>12} {:>11} {:>9.3} {:>9.2} {:>11} {:>9.3} {:>9.2} {:>7.1}×",
            thousands(count),
            bytes(dense_bytes),
            dense,
            dense_bytes as f64 / dense / 1e9,
            bytes(sparse_bytes),
            sparse,
            sparse_bytes as f64 * (group.size() - 1) as f64 / sparse / 1e9,
            dense / sparse
        );
    }
    Ok(())
}

fn median(group: &dyn Collective, probe: Probe, tries: usize) -> anyhow::Result<f64> {
    let mut times = (0..tries.max(1))
        .map(|_| cluster::probe(group, probe))
        .collect::<Result<Vec<f64>, _>>()?;
    times.sort_by(f64::total_cmp);
    Ok(times[times.len() / 2])
}
