//! Copying rank 0's table to the other ranks when a run starts or resumes,
//! so a run can resume on any number of ranks.

use std::time::Instant;

use store::Table;

use super::collective::{Collective, CollectiveError};
use super::wire;
use crate::error::CfrError;

/// Bytes per broadcast: far below MPI's `int` counts, large enough that
/// per-message latency does not matter.
const CHUNK_BYTES: usize = 32 << 20;

/// What a replication moved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ReplicationStats {
    pub records: u64,
    pub bytes: u64,
    pub seconds: f64,
}

/// Makes every rank's `table` hold rank 0's trained records (those ever
/// updated). The other ranks' tables must be empty (or hold nothing that
/// rank 0 lacks): their records are overwritten, never cleared.
pub fn replicate_from_root(
    table: &dyn Table,
    group: &dyn Collective,
) -> Result<ReplicationStats, CfrError> {
    let started = Instant::now();
    let width = table.max_actions();
    let mut stats = ReplicationStats::default();
    if group.is_root() {
        let mut chunk = Vec::with_capacity(CHUNK_BYTES + wire::record_bytes(width));
        let mut failed: Option<CollectiveError> = None;
        table.for_each(&mut |key, record| {
            if record.stamp == 0 || failed.is_some() {
                return;
            }
            wire::put_record(&mut chunk, key, record, width);
            stats.records += 1;
            if chunk.len() >= CHUNK_BYTES {
                stats.bytes += chunk.len() as u64;
                if let Err(error) = group.broadcast(0, &mut chunk) {
                    failed = Some(error);
                }
                chunk.clear();
            }
        })?;
        if let Some(error) = failed {
            return Err(error.into());
        }
        stats.bytes += chunk.len() as u64;
        if !chunk.is_empty() {
            group.broadcast(0, &mut chunk)?;
        }
        // An empty chunk says there are no more.
        group.broadcast(0, &mut Vec::new())?;
    } else {
        let mut chunk = Vec::new();
        loop {
            group.broadcast(0, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            stats.bytes += chunk.len() as u64;
            let records = wire::records(&chunk, width).ok_or_else(|| {
                CfrError::Replica(format!(
                    "rank 0 sent {} bytes of records, not a whole number of {}-byte entries: \
                     is every rank running the same trainer?",
                    chunk.len(),
                    wire::record_bytes(width)
                ))
            })?;
            for (key, record) in records {
                let slot = table.slot(key)?;
                table.update(slot, &mut |stored| *stored = record)?;
                stats.records += 1;
            }
        }
    }
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(stats)
}
