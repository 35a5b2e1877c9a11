//! The seal: the whole data file as a checkpoint left it, so that damage a
//! tree walk cannot see (on free pages) is refused while nothing has
//! changed the file since.
//!
//! LMDB changes the file only inside a write transaction, and a commit
//! writes its pages *before* the meta page that names it. A kill or a full
//! disk between the two leaves changed free pages under the sealed
//! transaction id: an intact store that a seal still in force would call
//! damage. So the seal is voided, durably, before the first write
//! transaction after a checkpoint begins ([`SealState::void_before_writing`]):
//! it is in force exactly while no write has begun since the checkpoint.
//! Once one has, the structural walk and the records' checksum decide.

use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::dir::{Manifest, StoreDir, sync_parent, write_atomically};
use crate::error::StoreError;
use crate::verify::crc32_of_file;

use super::file_check::LiveMeta;

/// The data file's seal: its length and CRC-32 as a checkpoint left it.
pub(super) const SEAL_FILE: &str = "lmdb-seal.json";

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Seal {
    /// The checkpoint (manifest count) it was made at.
    checkpoint: u64,
    txnid: u64,
    bytes: u64,
    crc32: u32,
}

impl Seal {
    const MAX_BYTES: u64 = 4096;

    /// The seal in `dir` if there is one that reads; a missing or
    /// unreadable seal is no seal (stores made before seals have none, and
    /// a seal damaged on disk only loses its own extra check).
    fn read(dir: &StoreDir) -> Option<Seal> {
        let text =
            crate::regular_file::read_text_bounded(&dir.file(SEAL_FILE), Self::MAX_BYTES).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Compares `data_file` with the seal of `manifest`'s checkpoint, when
    /// its live transaction is the sealed one: `Some(what differs)` if the
    /// file changed although no write had begun since the checkpoint. The
    /// caller refuses with it once the records are checked (see
    /// [`StoreError::ChangedOutsideRecords`]), so that the refusal can say
    /// whether they verify.
    pub(super) fn check(
        dir: &StoreDir,
        manifest: &Manifest,
        live: &LiveMeta,
        data_file: &Path,
    ) -> Result<Option<String>, StoreError> {
        let Some(seal) = Seal::read(dir) else {
            return Ok(None);
        };
        if seal.checkpoint != manifest.checkpoints || seal.txnid != live.txnid {
            return Ok(None);
        }
        let (bytes, crc32) = crc32_of_file(data_file)?;
        Ok(if bytes != seal.bytes {
            Some(format!(
                "it is {bytes} bytes, but checkpoint {} sealed it at {}",
                seal.checkpoint, seal.bytes
            ))
        } else if crc32 != seal.crc32 {
            Some(format!(
                "its CRC-32 is {crc32:#010x}, but checkpoint {} sealed it at {:#010x}",
                seal.checkpoint, seal.crc32
            ))
        } else {
            None
        })
    }

    /// Whether a seal of `manifest`'s checkpoint names another transaction
    /// than the live one although the undo database says nothing was
    /// committed since: the file changed behind the store's back. (A seal
    /// is voided before any write, so no commit of the trainer's own can
    /// leave one behind.)
    pub(super) fn contradicts(dir: &StoreDir, manifest: &Manifest, live: &LiveMeta) -> bool {
        Seal::read(dir)
            .is_some_and(|seal| seal.checkpoint == manifest.checkpoints && seal.txnid != live.txnid)
    }
}

/// Whether a seal may be in force on disk, and the one way to void it.
#[derive(Debug)]
pub(super) struct SealState {
    /// A seal file may exist: true from a writable open (a seal left by
    /// the last session) and after each checkpoint seals.
    in_force: AtomicBool,
    /// Serialises the void, so that every writer waits until it is durable.
    voiding: Mutex<()>,
}

impl SealState {
    pub(super) fn new(in_force: bool) -> SealState {
        SealState {
            in_force: AtomicBool::new(in_force),
            voiding: Mutex::new(()),
        }
    }

    /// Seals `data_file` as checkpoint `checkpoint` leaves it, at
    /// transaction `txnid`. Call with every write durable and none in
    /// flight: at the end of a checkpoint.
    pub(super) fn seal(
        &self,
        dir: &StoreDir,
        checkpoint: u64,
        txnid: u64,
        data_file: &Path,
    ) -> Result<(), StoreError> {
        let (bytes, crc32) = crc32_of_file(data_file)?;
        let seal = Seal {
            checkpoint,
            txnid,
            bytes,
            crc32,
        };
        let text = serde_json::to_vec(&seal).map_err(|error| StoreError::Corrupt {
            path: dir.file(SEAL_FILE),
            reason: error.to_string(),
        })?;
        write_atomically(&dir.file(SEAL_FILE), &text)?;
        self.in_force.store(true, Ordering::Release);
        Ok(())
    }

    /// Removes the seal and makes its removal durable, if one may be in
    /// force. Every write transaction calls this before it begins: LMDB
    /// writes a commit's pages before its meta page, so a seal still on
    /// disk when a commit is cut short would refuse an intact store.
    pub(super) fn void_before_writing(&self, dir: &StoreDir) -> Result<(), StoreError> {
        if !self.in_force.load(Ordering::Acquire) {
            return Ok(());
        }
        let _voiding = self
            .voiding
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !self.in_force.load(Ordering::Acquire) {
            return Ok(());
        }
        let path = dir.file(SEAL_FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => {
                sync_parent(&path)?;
                crate::power_loss::synced(&path);
                crate::power_loss::point();
            }
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(StoreError::io(&path)(source)),
        }
        self.in_force.store(false, Ordering::Release);
        Ok(())
    }
}
