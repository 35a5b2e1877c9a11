//! The undo database: each record's bytes as the checkpoint left them,
//! saved by the first write after it, and rolled back on a writable open.

use crate::error::StoreError;

use super::file_check::{CREATED_PREFIX, EPOCH_KEY, LiveMeta};
use super::seal::Seal;
use super::{DATA_FILE, LMDB_DIR, LmdbTable, lmdb_error};

/// How the undo database stands against the manifest's checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum UndoState {
    /// Tagged with the checkpoint, holding nothing: the records are the
    /// checkpoint's.
    Clean,
    /// Tagged with the checkpoint and holding saved bytes: the last
    /// session ended without a checkpoint.
    Pending,
    /// Tagged otherwise (a crash between the manifest and the undo reset,
    /// or a new store): its contents describe no checkpoint of this
    /// manifest and are ignored.
    Stale,
}

impl LmdbTable {
    /// Where the undo database stands; `live` is the data file's live meta
    /// as checked before LMDB opened it.
    pub(super) fn undo_state(&self, live: Option<&LiveMeta>) -> Result<UndoState, StoreError> {
        let state = self.undo_tag_state()?;
        let manifest = self.manifest.get();
        if state == UndoState::Clean
            && live.is_some_and(|live| Seal::contradicts(&self.dir, &manifest, live))
        {
            return Err(StoreError::Corrupt {
                path: self.dir.file(LMDB_DIR).join(DATA_FILE),
                reason: "its last transaction is not the one its checkpoint sealed, yet it records no change since: it was changed behind the store's back".to_owned(),
            });
        }
        Ok(state)
    }

    pub(super) fn undo_tag_state(&self) -> Result<UndoState, StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
        let epoch = self.manifest.get().checkpoints.to_le_bytes();
        let tag = self
            .undo
            .get(&transaction, EPOCH_KEY)
            .map_err(lmdb_error(&env_path))?;
        if tag != Some(&epoch[..]) {
            return Ok(UndoState::Stale);
        }
        let saved = self.undo.len(&transaction).map_err(lmdb_error(&env_path))?;
        Ok(if saved > 1 {
            UndoState::Pending
        } else {
            UndoState::Clean
        })
    }

    /// Makes reads see the checkpoint's view through the undo database
    /// (when `on`), loading the keys created since the checkpoint.
    pub(super) fn through_undo(self, on: bool) -> Result<LmdbTable, StoreError> {
        if !on {
            return Ok(self);
        }
        let env_path = self.dir.file(LMDB_DIR);
        let mut created = std::collections::HashSet::default();
        {
            let transaction = self.env.read_txn().map_err(lmdb_error(&env_path))?;
            let prefix = [CREATED_PREFIX];
            for entry in self
                .undo
                .prefix_iter(&transaction, &prefix[..])
                .map_err(lmdb_error(&env_path))?
            {
                let (key, list) = entry.map_err(lmdb_error(&env_path))?;
                if key.len() == 9 {
                    created.extend(list.chunks_exact(16).map(|key| {
                        let mut bytes = [0u8; 16];
                        bytes.copy_from_slice(key);
                        bytes
                    }));
                }
            }
        }
        Ok(LmdbTable {
            through_undo: true,
            created,
            ..self
        })
    }

    /// Puts back the records saved since the checkpoint (when `state` is
    /// pending) and empties the undo database under the checkpoint's tag.
    /// Called only after the records, read through the saved bytes, were
    /// verified.
    pub(super) fn roll_back(&self, state: UndoState) -> Result<(), StoreError> {
        let env_path = self.dir.file(LMDB_DIR);
        let epoch = self.manifest.get().checkpoints;
        let mut transaction = self.write_transaction()?;
        (|| -> Result<(), heed::Error> {
            if state == UndoState::Pending {
                let mut saved: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
                for entry in self.undo.iter(&transaction)? {
                    let (key, value) = entry?;
                    if key.len() == 16 {
                        saved.push((key.to_vec(), value.to_vec()));
                    } else if key.len() == 9 && key[0] == CREATED_PREFIX {
                        saved.extend(value.chunks_exact(16).map(|key| (key.to_vec(), Vec::new())));
                    }
                }
                for (key, old) in saved {
                    if old.is_empty() {
                        self.db.delete(&mut transaction, &key)?;
                    } else {
                        self.db.put(&mut transaction, &key, &old)?;
                    }
                }
            }
            self.undo.clear(&mut transaction)?;
            self.undo
                .put(&mut transaction, EPOCH_KEY, &epoch.to_le_bytes())
        })()
        .map_err(lmdb_error(&env_path))?;
        transaction.commit().map_err(lmdb_error(&env_path))?;
        crate::power_loss::lmdb_committed(&env_path.join(DATA_FILE));
        Ok(())
    }
}
