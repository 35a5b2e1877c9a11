//! The mmap store's files as bytes: allocating and zeroing them, the
//! records file's header, their checksums, and the undo journal's replay
//! into a map (for real, or into a private copy first).

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;

use memmap2::{Advice, MmapOptions, MmapRaw};

use super::phf_query::PhfQuery;
use crate::dir::{Manifest, StoreDir, classify_write_error};
use crate::error::StoreError;
use crate::layout::{KEY_BYTES, RecordLayout};
use crate::table::Key;
use crate::undo::{JournalOwner, PAGE, UndoJournal};
use crate::verify::{Checksum, Timer, Verification, Verify, checksum_file, crc32_parallel, expect};

pub const PHF_FILE: &str = "mmap-phf.bin";
pub const RECORDS_FILE: &str = "mmap-records.dat";
pub const KEYS_FILE: &str = "mmap-keys.dat";
pub(crate) const UNDO_FILE: &str = "mmap-undo.dat";
pub(crate) const HEADER_BYTES: u64 = 4096;
/// A record's leading key check: immutable once the store is built.
pub(crate) const KEY_CHECK_BYTES: usize = 4;
pub(crate) const HEADER_MAGIC: &[u8; 8] = b"ECFRMMAP";

pub(super) fn read_mapped(map: &MmapRaw, offset: u64, out: &mut [u8]) {
    debug_assert!(offset as usize + out.len() <= map.len());
    // SAFETY: callers pass ranges within the file, which the mapping
    // covers; bytes are only copied out.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(
            map.as_ptr().add(offset as usize),
            out.as_mut_ptr(),
            out.len(),
        );
    }
}

/// The journal that belongs to the checkpoint `manifest` describes.
pub(super) fn journal_owner(manifest: &Manifest) -> JournalOwner {
    JournalOwner {
        store_id: manifest.store_id,
        epoch: manifest.checkpoints,
    }
}

/// Replays the journal into a private copy of the records file and checks
/// the copy against the checkpoint's checksum of that file, so that the
/// real replay that follows writes only what verifies. Costs nothing but
/// the header read when the journal has no entries for this checkpoint.
pub(super) fn dry_run_journal(
    dir: &StoreDir,
    file: &File,
    file_bytes: u64,
    owner: JournalOwner,
    recorded: &[Checksum],
) -> Result<(), StoreError> {
    let records_path = dir.file(RECORDS_FILE);
    let Some(expected) = recorded
        .iter()
        .find(|checksum| checksum.what == RECORDS_FILE)
    else {
        return Ok(());
    };
    // SAFETY: a private map; the directory lock keeps writers of the file
    // away while it is mapped, and the journal only writes this copy.
    #[allow(unsafe_code)]
    let copy = unsafe { MmapOptions::new().map_copy(file) }
        .map(MmapRaw::from)
        .map_err(StoreError::io(&records_path))?;
    let replayed = UndoJournal::replay(
        &dir.file(UNDO_FILE),
        file_bytes,
        owner,
        &mut |page, bytes| {
            restore_page(&copy, page, bytes);
        },
    )?;
    if replayed == 0 {
        return Ok(());
    }
    expect(expected, &records_checksum(&copy), &records_path).map_err(|error| match error {
        StoreError::Corrupt { reason, .. } => StoreError::Corrupt {
            path: dir.file(UNDO_FILE),
            reason: format!(
                "rolling {RECORDS_FILE} back with it would not give the checkpoint's records ({reason}); nothing was replayed or written"
            ),
        },
        other => other,
    })
}

/// Opens the records file's undo journal, first rolling the records back
/// to checkpoint `epoch` if a killed process left changes after it.
/// The checksum of the records file through its map. Call with no update
/// in flight: at a checkpoint, or before the table is shared.
pub(super) fn records_checksum(map: &MmapRaw) -> Checksum {
    // SAFETY: the map is live for the borrow, and no thread writes it while
    // it is read: callers hold the checkpoint's no-update contract or the
    // only reference to the table.
    #[allow(unsafe_code)]
    let bytes = unsafe { std::slice::from_raw_parts(map.as_ptr(), map.len()) };
    Checksum {
        what: RECORDS_FILE.to_owned(),
        bytes: bytes.len() as u64,
        crc32: crc32_parallel(bytes),
    }
}

/// Checks every file the manifest lists against what is on disk now.
pub(super) fn verify_files(
    dir: &StoreDir,
    map: &MmapRaw,
    recorded: &[Checksum],
) -> Result<Vec<String>, StoreError> {
    let mut checked = Vec::new();
    for expected in recorded {
        let found = if expected.what == RECORDS_FILE {
            records_checksum(map)
        } else {
            checksum_file(dir.path(), &expected.what)?
        };
        expect(expected, &found, &dir.file(&expected.what))?;
        checked.push(format!("{} ({} bytes)", expected.what, expected.bytes));
    }
    Ok(checked)
}

/// Whether a store may be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Access {
    ReadWrite,
    ReadOnly,
}

/// Puts one journalled page back into the map.
pub(super) fn restore_page(map: &MmapRaw, page: u64, bytes: &[u8]) {
    // SAFETY: the journal only holds pages within the file, and no other
    // thread has the table yet.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(
            bytes.as_ptr(),
            map.as_mut_ptr().add((page * PAGE) as usize),
            bytes.len(),
        );
    }
}

pub(super) fn open_undo(
    dir: &StoreDir,
    map: &MmapRaw,
    file_bytes: u64,
    owner: JournalOwner,
) -> Result<(UndoJournal, u64), StoreError> {
    let records_path = dir.file(RECORDS_FILE);
    UndoJournal::open(
        &dir.file(UNDO_FILE),
        file_bytes,
        owner,
        &mut |page, bytes| restore_page(map, page, bytes),
        &mut || map.flush().map_err(StoreError::io(&records_path)),
    )
}

pub(super) fn allocate(path: &Path, bytes: u64) -> Result<File, StoreError> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
        .map_err(StoreError::io(path))?;
    // Allocate every block now: a sparse file on a full disk would turn a
    // later page write into SIGBUS instead of an error here.
    match rustix::fs::fallocate(&file, rustix::fs::FallocateFlags::empty(), 0, bytes) {
        Ok(()) => {}
        Err(rustix::io::Errno::OPNOTSUPP) => write_zeros(&file, path, bytes)?,
        Err(errno) => {
            drop(file);
            // The allocation's own error is the one to report; a file left
            // behind is truncated by the next attempt.
            let _ = std::fs::remove_file(path);
            return Err(classify_write_error(path, bytes, errno.into()));
        }
    }
    Ok(file)
}

/// The fallback for filesystems without `fallocate`: write real zeros.
pub(super) fn write_zeros(file: &File, path: &Path, bytes: u64) -> Result<(), StoreError> {
    let mut writer = BufWriter::with_capacity(1 << 20, file);
    let block = vec![0u8; 1 << 20];
    let mut left = bytes;
    while left > 0 {
        let step = left.min(block.len() as u64) as usize;
        writer
            .write_all(&block[..step])
            .map_err(|source| classify_write_error(path, bytes, source))?;
        left -= step as u64;
    }
    writer
        .flush()
        .map_err(|source| classify_write_error(path, bytes, source))
}

/// A new records file for `count` records, allocated and mapped, its header
/// written; returns the map and the file's length.
pub(super) fn new_records_file(
    dir: &StoreDir,
    layout: RecordLayout,
    count: u64,
) -> Result<(MmapRaw, u64), StoreError> {
    let records_path = dir.file(RECORDS_FILE);
    let file_bytes = HEADER_BYTES + count * layout.bytes();
    let file = allocate(&records_path, file_bytes)?;
    let map = MmapOptions::new()
        .map_raw(&file)
        .map_err(StoreError::io(&records_path))?;
    write_header(&map, layout, count);
    Ok((map, file_bytes))
}

/// Writes `key`'s check at the start of `slot`'s record, as a store is
/// built.
///
/// # Safety
/// `slot` is below the map's record count, no other thread writes this
/// slot's check at the same time, and no table reads the map yet.
#[allow(unsafe_code)]
pub(super) unsafe fn write_key_check(map: &MmapRaw, layout: RecordLayout, slot: u64, key: Key) {
    let offset = (HEADER_BYTES + slot * layout.bytes()) as usize;
    // SAFETY: `offset + 4` is within the mapping (the caller's `slot`).
    unsafe {
        std::ptr::copy_nonoverlapping(
            RecordLayout::key_check(key).to_le_bytes().as_ptr(),
            map.as_mut_ptr().add(offset),
            KEY_CHECK_BYTES,
        );
    }
}

pub(super) fn write_header(map: &MmapRaw, layout: RecordLayout, count: u64) {
    let mut header = [0u8; 32];
    header[..8].copy_from_slice(HEADER_MAGIC);
    header[8..12].copy_from_slice(&crate::dir::FORMAT_VERSION.to_le_bytes());
    header[12..20].copy_from_slice(&layout.bytes().to_le_bytes());
    header[20..28].copy_from_slice(&count.to_le_bytes());
    // SAFETY: the mapping is at least HEADER_BYTES long, and not yet shared.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(header.as_ptr(), map.as_mut_ptr(), header.len());
    }
}

/// The records file copied into anonymous memory backed by huge pages
/// where the kernel grants them, for held changes.
///
/// Training reads and updates records at random all over the file, so with
/// 4 KiB pages nearly every record costs a TLB miss and a page-table walk
/// on top of its own cache miss (two walks under a hypervisor). A file map
/// only ever gets small pages; an anonymous region advised as huge gets
/// 2 MiB ones, whose page table fits in cache. The copy is the whole file,
/// read once at open: full play touches nearly every page within minutes
/// anyway, and `Writeback::AtCheckpoint` is chosen only when the file fits
/// in memory. Without transparent huge pages the copy still works, at 4 KiB.
pub(super) fn held_copy(file: &File, path: &Path) -> Result<MmapRaw, StoreError> {
    let bytes = file.metadata().map_err(StoreError::io(path))?.len();
    let mut map = MmapOptions::new()
        .len(bytes as usize)
        .map_anon()
        .map_err(StoreError::io(path))?;
    // Advice only: a kernel without transparent huge pages refuses it, and
    // the copy is then the same on small pages.
    let _ = map.advise(Advice::HugePage);
    const CHUNK: usize = 64 << 20;
    for (index, chunk) in map.chunks_mut(CHUNK).enumerate() {
        file.read_exact_at(chunk, (index * CHUNK) as u64)
            .map_err(StoreError::io(path))?;
    }
    Ok(MmapRaw::from(map))
}

pub(super) fn check_header(
    map: &MmapRaw,
    layout: RecordLayout,
    count: u64,
    path: &Path,
) -> Result<(), StoreError> {
    let mut header = [0u8; 32];
    // SAFETY: the mapping is at least HEADER_BYTES long (size checked above).
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(map.as_mut_ptr(), header.as_mut_ptr(), header.len());
    }
    let word = |range: std::ops::Range<usize>| {
        let mut bytes = [0u8; 8];
        bytes[..range.len()].copy_from_slice(&header[range]);
        u64::from_le_bytes(bytes)
    };
    if &header[..8] != HEADER_MAGIC || word(12..20) != layout.bytes() || word(20..28) != count {
        return Err(StoreError::Corrupt {
            path: path.to_path_buf(),
            reason: "its header does not match the manifest".into(),
        });
    }
    Ok(())
}

/// The perfect hash, read no larger than the checkpoint recorded it (or a
/// gigabyte, for a store made before checksums).
pub(super) fn load_phf(dir: &StoreDir, manifest: &Manifest) -> Result<PhfQuery, StoreError> {
    let path = dir.file(PHF_FILE);
    let limit = manifest
        .checksums
        .iter()
        .find(|checksum| checksum.what == PHF_FILE)
        .map_or(1 << 30, |checksum| checksum.bytes);
    let bytes = crate::regular_file::read_bounded(&path, limit).map_err(|error| match error {
        crate::RegularFileError::Io { source, .. }
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            StoreError::Missing {
                path: path.clone(),
                hint:
                    "the perfect hash is never rebuilt over existing records (slots would move); \
                       restore the file or start a new store directory"
                        .to_owned(),
            }
        }
        crate::RegularFileError::Io { source, .. } => StoreError::Io {
            path: path.clone(),
            source,
        },
        other => StoreError::Corrupt {
            path: path.clone(),
            reason: other.to_string(),
        },
    })?;
    PhfQuery::from_saved(&bytes).map_err(|error| StoreError::Corrupt {
        path,
        reason: format!("the perfect hash does not load ({error})"),
    })
}

/// The records file, of the length the manifest implies, mapped (shared,
/// or privately for a read-only open) with its header checked. Returns the
/// file, its map and its length.
pub(super) fn open_records(
    dir: &StoreDir,
    layout: RecordLayout,
    manifest: &Manifest,
    access: Access,
) -> Result<(File, MmapRaw, u64), StoreError> {
    let records_path = dir.file(RECORDS_FILE);
    let file = OpenOptions::new()
        .read(true)
        .write(access == Access::ReadWrite)
        .open(&records_path)
        .map_err(StoreError::missing_or_io(
            &records_path,
            "the records file is gone; restore it or start a new store directory",
        ))?;
    let expected = HEADER_BYTES + manifest.records * layout.bytes();
    let actual = file
        .metadata()
        .map_err(StoreError::io(&records_path))?
        .len();
    if actual != expected {
        return Err(StoreError::Corrupt {
            path: records_path,
            reason: format!(
                "it is {actual} bytes, but {} records need {expected}; it was truncated",
                manifest.records
            ),
        });
    }
    let map = match access {
        Access::ReadWrite => MmapOptions::new().map_raw(&file),
        // Copy-on-write: the journal's pages land in this process only.
        Access::ReadOnly => {
            // SAFETY: a private map; the directory lock keeps writers of
            // the file away while it is mapped.
            #[allow(unsafe_code)]
            let copy = unsafe { MmapOptions::new().map_copy(&file) };
            copy.map(MmapRaw::from)
        }
    }
    .map_err(StoreError::io(&records_path))?;
    check_header(&map, layout, manifest.records, &records_path)?;
    map.advise(Advice::Random)
        .map_err(StoreError::io(&records_path))?;
    Ok((file, map, expected))
}

/// The keys file must be as long as the manifest's records need.
pub(super) fn check_keys_length(dir: &StoreDir, manifest: &Manifest) -> Result<(), StoreError> {
    let keys_path = dir.file(KEYS_FILE);
    let keys_bytes = std::fs::metadata(&keys_path)
        .map_err(StoreError::missing_or_io(
            &keys_path,
            "the keys file is gone; restore it or start a new store directory",
        ))?
        .len();
    if keys_bytes != manifest.records * KEY_BYTES {
        return Err(StoreError::Corrupt {
            path: keys_path,
            reason: format!(
                "it is {keys_bytes} bytes, but {} keys need {}; it was truncated or overwritten",
                manifest.records,
                manifest.records * KEY_BYTES
            ),
        });
    }
    Ok(())
}

/// Checks the files as `verify` asks, once the journal has put the
/// checkpoint's bytes back, and says what was checked.
pub(super) fn verify_as_asked(
    dir: &StoreDir,
    map: &MmapRaw,
    manifest: &Manifest,
    verify: Verify,
    timer: &Timer,
    progress: &mut dyn FnMut(&str),
) -> Result<Verification, StoreError> {
    Ok(match (verify, manifest.checksums.is_empty()) {
        (_, true) => Verification {
            checked: Vec::new(),
            not_checked: Some(
                "the manifest predates checksums; the next checkpoint records them".to_owned(),
            ),
            seconds: timer.seconds(),
        },
        (Verify::LengthsOnly, false) => Verification {
            checked: Vec::new(),
            not_checked: Some("lengths only, as asked (--skip-checksums)".to_owned()),
            seconds: timer.seconds(),
        },
        (Verify::Full, false) => {
            progress("verifying the store's checksums");
            Verification {
                checked: verify_files(dir, map, &manifest.checksums)?,
                not_checked: None,
                seconds: timer.seconds(),
            }
        }
    })
}
