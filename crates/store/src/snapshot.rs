//! The memory backend made durable: a checkpoint writes every record to a
//! snapshot file (atomically, with a CRC in the manifest), and opening the
//! directory loads it back into a [`MemoryTable`] with the same slot ids.

use std::path::Path;

use crate::client_state::ClientState;
use crate::dir::{Backend, Committed, Fingerprint, Manifest, StoreDir, write_atomically};
use crate::durable::DurableTable;
use crate::error::StoreError;
use crate::layout::RecordLayout;
use crate::memory::MemoryTable;
use crate::record::Record;
use crate::table::{ExactRecords, Key, SlotId, Table};
use crate::verify::{Timer, Verification};

/// The snapshot of checkpoint `checkpoint`. Each checkpoint writes a new
/// file and removes the old one only after the manifest names the new one,
/// so a process killed at any moment leaves the snapshot its manifest names.
pub(crate) fn snapshot_file(checkpoint: u64) -> String {
    format!("memory-snapshot-{checkpoint}.bin")
}

const SNAPSHOT_PREFIX: &str = "memory-snapshot-";

/// A [`MemoryTable`] that checkpoints to a directory.
#[derive(Debug)]
pub struct SnapshotTable {
    dir: StoreDir,
    layout: RecordLayout,
    manifest: Committed,
    table: MemoryTable,
    verification: Verification,
}

impl SnapshotTable {
    /// Opens the store in `path`, or creates it. Refuses a directory whose
    /// manifest does not match `layout` and `fingerprint`.
    pub fn open(
        path: &Path,
        layout: RecordLayout,
        fingerprint: Fingerprint,
    ) -> Result<SnapshotTable, StoreError> {
        let dir = StoreDir::lock(path)?;
        let wanted = Manifest::new(Backend::Memory, layout, fingerprint);
        let table = MemoryTable::with_layout(layout);
        let timer = Timer::start();
        let (manifest, checked) = match dir.read_manifest()? {
            None => (wanted, Vec::new()),
            Some(stored) => {
                stored.check_compatible(&wanted, path)?;
                let checked = load(&dir, &stored, layout, &table)?;
                (stored, checked)
            }
        };
        Ok(SnapshotTable {
            dir,
            layout,
            manifest: Committed::new(manifest),
            table,
            verification: Verification {
                checked,
                not_checked: None,
                seconds: timer.seconds(),
            },
        })
    }
}

fn entry_bytes(layout: RecordLayout) -> usize {
    16 + layout.bytes() as usize
}

/// Loads the snapshot the manifest names into `table`, after checking its
/// length and CRC; returns what it checked.
fn load(
    dir: &StoreDir,
    manifest: &Manifest,
    layout: RecordLayout,
    table: &MemoryTable,
) -> Result<Vec<String>, StoreError> {
    let path = dir.file(&snapshot_file(manifest.checkpoints));
    let file = std::fs::File::open(&path).map_err(StoreError::missing_or_io(
        &path,
        &format!(
            "the manifest lists {} records but their snapshot is gone; restore it or start a new store directory",
            manifest.records
        ),
    ))?;
    // The length is checked before anything is read, so a file that was
    // replaced (by a device, or something huge) is never read whole.
    let metadata = file.metadata().map_err(StoreError::io(&path))?;
    let expected = manifest.records.saturating_mul(entry_bytes(layout) as u64);
    if !metadata.is_file() || metadata.len() != expected {
        return Err(StoreError::Corrupt {
            path,
            reason: if metadata.is_file() {
                format!(
                    "it is {} bytes, but {} records need {expected}; it was truncated or overwritten",
                    metadata.len(),
                    manifest.records
                )
            } else {
                "it is not a regular file".to_owned()
            },
        });
    }
    let mut bytes = Vec::with_capacity(expected as usize);
    std::io::Read::read_to_end(&mut std::io::Read::take(file, expected), &mut bytes)
        .map_err(StoreError::io(&path))?;
    if bytes.len() as u64 != expected {
        return Err(StoreError::Corrupt {
            path,
            reason: format!("it ended after {} of its {expected} bytes", bytes.len()),
        });
    }
    let checksum = crc32fast::hash(&bytes);
    if manifest.checksum != Some(checksum) {
        return Err(StoreError::Corrupt {
            path,
            reason: format!(
                "its CRC-32 is {checksum:#010x}, the manifest says {}",
                manifest
                    .checksum
                    .map_or_else(|| "none".to_owned(), |sum| format!("{sum:#010x}"))
            ),
        });
    }
    let mut record = Record::default();
    for (index, entry) in bytes.chunks_exact(entry_bytes(layout)).enumerate() {
        let (key, body) = entry.split_at(16);
        let key = Key::from_le_bytes(key.try_into().expect("split at 16 bytes"));
        layout.decode(body, &mut record);
        let slot = table.slot(key)?;
        if slot != SlotId::new(index as u64) {
            return Err(StoreError::Corrupt {
                path: dir.file(&snapshot_file(manifest.checkpoints)),
                reason: format!("key {key:#x} appears twice"),
            });
        }
        table.update(slot, &mut |stored| *stored = record)?;
    }
    Ok(vec![format!(
        "{} ({} bytes)",
        snapshot_file(manifest.checkpoints),
        bytes.len()
    )])
}

impl Table for SnapshotTable {
    fn max_actions(&self) -> usize {
        self.table.max_actions()
    }

    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.table.slot(key)
    }

    fn find(&self, key: Key) -> Option<SlotId> {
        self.table.find(key)
    }

    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        self.table.read(slot)
    }

    fn key(&self, slot: SlotId) -> Result<Key, StoreError> {
        self.table.key(slot)
    }

    fn exact_records(&self) -> Option<&dyn ExactRecords> {
        self.table.exact_records()
    }

    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        self.table.update(slot, change)
    }

    fn len(&self) -> u64 {
        self.table.len()
    }

    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        self.table.for_each(visit)
    }
}

impl DurableTable for SnapshotTable {
    /// Call between batches: records updated while this runs may be
    /// written before or after their update.
    fn checkpoint(&self, state: &ClientState) -> Result<(), StoreError> {
        let entry = entry_bytes(self.layout);
        let mut bytes = Vec::with_capacity(self.table.len() as usize * entry);
        let mut encoded = vec![0u8; self.layout.bytes() as usize];
        self.table.for_each(&mut |key, record| {
            bytes.extend_from_slice(&key.to_le_bytes());
            self.layout
                .encode(RecordLayout::key_check(key), record, &mut encoded);
            bytes.extend_from_slice(&encoded);
        })?;
        let next = self.manifest.get().checkpoints + 1;
        write_atomically(&self.dir.file(&snapshot_file(next)), &bytes)?;
        self.manifest.commit(&self.dir, state, |manifest| {
            manifest.records = (bytes.len() / entry) as u64;
            manifest.checksum = Some(crc32fast::hash(&bytes));
        })?;
        // Older snapshots, and any a killed process wrote but never
        // committed, are no longer named by the manifest. Removing them is
        // housekeeping only: the checkpoint has committed, and a file left
        // behind is removed by the next one, so failures here are ignored
        // on purpose.
        let current = snapshot_file(next);
        if let Ok(entries) = std::fs::read_dir(self.dir.path()) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let name = name.to_string_lossy();
                if name.starts_with(SNAPSHOT_PREFIX) && name != current.as_str() {
                    let _ = std::fs::remove_file(entry.path());
                }
            }
        }
        crate::power_loss::point();
        Ok(())
    }

    fn committed_state(&self) -> ClientState {
        self.manifest.get().state
    }

    fn verification(&self) -> Verification {
        self.verification.clone()
    }

    fn disk_bytes(&self) -> u64 {
        let current = snapshot_file(self.manifest.get().checkpoints);
        std::fs::metadata(self.dir.file(&current)).map_or(0, |meta| meta.len())
    }
}
