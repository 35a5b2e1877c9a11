//! Opens the store a run asks for, behind the one [`DurableTable`] trait.

use std::path::Path;

use store::{
    DurableTable, LmdbTable, MmapTable, RecordLayout, Skeleton, SnapshotTable, StoreError, Verify,
    Writeback,
};

use crate::config::{Identity, MmapWriteback};
use crate::training::universe::PhaseUniverse;
use euchre_bots::phase::RECORD_WIDTH;

use crate::training::fingerprint::store_fingerprint;
use store::Backend;

/// Opens an existing store only to read it, as export and status do:
/// read-only whatever the directory allows, so that a command that only
/// reads leaves every byte of the store as it was (a session that ended
/// without a checkpoint is read as its checkpoint left it, and rolled back
/// for good only by the next training session).
pub fn open_to_read(
    identity: &Identity,
    dir: &Path,
    verify: Verify,
) -> Result<Box<dyn DurableTable>, StoreError> {
    let layout = layout(identity)?;
    let fingerprint = fingerprint(identity);
    Ok(match identity.store {
        Backend::Memory => Box::new(SnapshotTable::open(dir, layout, fingerprint)?),
        Backend::Lmdb => Box::new(LmdbTable::open_read_only(dir, layout, fingerprint)?),
        Backend::Mmap => Box::new(MmapTable::open_read_only(dir, layout, fingerprint, verify)?),
    })
}

/// What the run's keys mean, so that a store keyed otherwise never opens.
fn fingerprint(identity: &Identity) -> store::Fingerprint {
    store_fingerprint(identity.phase, identity.rules, identity.solver.abstraction)
}

/// Store settings of one session, that change nothing it computes.
#[derive(Clone, Copy, Debug)]
pub struct StoreTuning {
    /// LMDB: dirty records held before a batched write transaction.
    pub lmdb_cache_records: usize,
    /// mmap: how changes reach the records file.
    pub mmap_writeback: MmapWriteback,
}

/// The record layout every phase uses: seven actions, in the run's encoding.
pub fn layout(identity: &Identity) -> Result<RecordLayout, StoreError> {
    Ok(RecordLayout::new(
        RECORD_WIDTH,
        identity.encoding.encoding(),
    )?)
}

/// Opens or creates the store in `dir`. `progress` hears of slow steps,
/// such as building a perfect hash. An existing store is checked against
/// its last checkpoint's lengths and checksums as `verify` says (the
/// memory and LMDB stores always check in full: they read every record
/// to load anyway).
pub fn open(
    identity: &Identity,
    dir: &Path,
    tuning: StoreTuning,
    progress: &mut dyn FnMut(&str),
    verify: Verify,
) -> Result<Box<dyn DurableTable>, StoreError> {
    let layout = layout(identity)?;
    let fingerprint = fingerprint(identity);
    Ok(match identity.store {
        Backend::Memory => Box::new(SnapshotTable::open(dir, layout, fingerprint)?),
        Backend::Lmdb => Box::new(LmdbTable::open(
            dir,
            layout,
            fingerprint,
            tuning.lmdb_cache_records,
        )?),
        Backend::Mmap => {
            let (rules, phase, abstraction) =
                (identity.rules, identity.phase, identity.solver.abstraction);
            let table = MmapTable::open_verified(
                dir,
                layout,
                fingerprint,
                || PhaseUniverse::new(rules, phase, abstraction),
                progress,
                verify,
            )?;
            Box::new(with_writeback(table, layout, tuning, progress)?)
        }
    })
}

/// Makes a new mmap store in `dir` from a copy of another's skeleton (its
/// keys file and perfect hash, already in `dir`), as a cluster's follower
/// does from rank 0's, and sets its writeback as [`open`] would.
pub fn open_from_skeleton(
    identity: &Identity,
    dir: &Path,
    tuning: StoreTuning,
    skeleton: &Skeleton,
    threads: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Box<dyn DurableTable>, StoreError> {
    let layout = layout(identity)?;
    let table = MmapTable::build_from_skeleton(
        dir,
        layout,
        fingerprint(identity),
        skeleton,
        threads,
        progress,
    )?;
    Ok(Box::new(with_writeback(table, layout, tuning, progress)?))
}

/// `table` with its changes held to checkpoints or written back, as the
/// session's tuning and the machine's memory say; `progress` hears which.
fn with_writeback(
    table: MmapTable,
    layout: RecordLayout,
    tuning: StoreTuning,
    progress: &mut dyn FnMut(&str),
) -> Result<MmapTable, StoreError> {
    let file_bytes = store::Table::len(&table) * layout.bytes();
    let (writeback, why) = tuning.mmap_writeback.resolve(file_bytes);
    progress(&match writeback {
        Writeback::AtCheckpoint => {
            format!("changes are held in memory and written at checkpoints ({why})")
        }
        Writeback::Continuous => {
            format!("changes are written back continuously by the kernel ({why})")
        }
    });
    table.with_writeback(writeback)
}
