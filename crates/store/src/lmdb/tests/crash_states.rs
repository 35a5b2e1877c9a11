//! Every state a kill or a full disk can leave a commit in, built
//! directly instead of timed: the store's directory as it stood when a
//! write transaction began (observed through [`super::hooks`]), with the
//! data file part way to the next committed one.
//!
//! LMDB commits by writing the transaction's dirty pages in ascending
//! order (`mdb_page_flush`) and then the meta page that names the new
//! transaction (`mdb_env_write_meta`). A process killed in between leaves
//! any prefix of those page writes under the old meta page; a full disk
//! leaves such a prefix with the file grown, and possibly a page cut
//! short. Each such store is intact: it must open, writable and
//! read-only, with exactly the checkpoint's records.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::*;

/// LMDB's page size on this platform (the OS page size).
const PAGE: usize = 4096;

/// A directory's regular files by their path inside it.
type Files = BTreeMap<PathBuf, Vec<u8>>;

fn read_files(root: &Path) -> Files {
    fn walk(root: &Path, dir: &Path, files: &mut Files) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, files);
            } else {
                let name = path.strip_prefix(root).unwrap().to_path_buf();
                files.insert(name, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut files = Files::new();
    walk(root, root, &mut files);
    files
}

fn write_files(root: &Path, files: &Files) {
    let _ = std::fs::remove_dir_all(root);
    for (name, bytes) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

fn data_file() -> PathBuf {
    Path::new(LMDB_DIR).join(DATA_FILE)
}

const STORE_LAYOUT: RecordLayout = LAYOUT;

fn key(i: u128) -> Key {
    i.wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835) | 1
}

/// A store with `count` records, checkpointed; its records as the
/// checkpoint left them, in key order.
fn checkpointed_store(dir: &Path, count: u128) -> (LmdbTable, Vec<(Key, Record)>) {
    // A cache of 64 records (one a shard) flushes often: many commits.
    let table = LmdbTable::open(dir, STORE_LAYOUT, fingerprint(), 64).unwrap();
    for i in 0..count {
        let slot = table.slot(key(i)).unwrap();
        table
            .update(slot, &mut |record| record.regrets[0] = i as f32)
            .unwrap();
    }
    table.checkpoint(&ClientState::NONE).unwrap();
    let mut records = Vec::new();
    table
        .for_each(&mut |key, record| records.push((key, *record)))
        .unwrap();
    records.sort_by_key(|(key, _)| *key);
    (table, records)
}

/// The store's directory each time a write transaction began, on the
/// first `commits + 1` of them after a checkpoint, while `train` changes
/// every record and creates new ones.
fn directories_as_writes_began(table: &LmdbTable, count: u128, commits: usize) -> Vec<Files> {
    let seen: Rc<RefCell<Vec<Files>>> = Rc::default();
    let observed = Rc::clone(&seen);
    let _hook = hooks::on_write_begun(move |dir| observed.borrow_mut().push(read_files(dir)));
    let mut i = 0u128;
    while seen.borrow().len() <= commits {
        // Old records changed and new ones made, as training does.
        let slot = table.slot(key(i % (2 * count))).unwrap();
        table
            .update(slot, &mut |record| record.regrets[1] += 1.0)
            .unwrap();
        i += 1;
    }
    seen.take()
}

/// Page numbers (not meta pages) whose bytes differ between `before` and
/// `after`, ascending: the pages a commit wrote, in LMDB's write order.
fn written_pages(before: &[u8], after: &[u8]) -> Vec<usize> {
    assert_eq!(before.len() % PAGE, 0);
    assert_eq!(after.len() % PAGE, 0);
    (2..after.len() / PAGE)
        .filter(|&page| {
            let range = page * PAGE..(page + 1) * PAGE;
            before.get(range.clone()) != Some(&after[range])
        })
        .collect()
}

/// `before` with `pages` of `after` written over it, as `pwrite` would
/// leave it (a page past the end grows the file; the gap reads as zeros),
/// then cut to `cut` bytes past its end if given (a write the full disk
/// cut short).
fn part_written(before: &[u8], after: &[u8], pages: &[usize], cut: Option<usize>) -> Vec<u8> {
    let mut bytes = before.to_vec();
    for &page in pages {
        let range = page * PAGE..(page + 1) * PAGE;
        if bytes.len() < range.end {
            bytes.resize(range.end, 0);
        }
        bytes[range.clone()].copy_from_slice(&after[range]);
    }
    if let Some(cut) = cut {
        bytes.truncate(bytes.len() - PAGE + cut);
    }
    bytes
}

fn assert_opens_at_checkpoint(dir: &Path, expected: &[(Key, Record)], what: &str) {
    {
        let reader = LmdbTable::open_read_only(dir, STORE_LAYOUT, fingerprint())
            .unwrap_or_else(|error| panic!("{what}: read-only open refused: {error}"));
        assert_eq!(reader.len(), expected.len() as u64, "{what}");
        for (key, record) in expected {
            let slot = reader.find(*key).unwrap();
            assert_eq!(&reader.read(slot).unwrap(), record, "{what}");
        }
    }
    let writer = LmdbTable::open(dir, STORE_LAYOUT, fingerprint(), 64)
        .unwrap_or_else(|error| panic!("{what}: open refused: {error}"));
    assert_eq!(writer.len(), expected.len() as u64, "{what}");
    for (key, record) in expected {
        let slot = writer.find(*key).unwrap();
        assert_eq!(&writer.read(slot).unwrap(), record, "{what}");
    }
}

/// The defect this pins (found 2026-11-28): the seal of the whole data
/// file was still on disk while the first commit after a checkpoint wrote
/// its pages, so a kill between those pages and the meta page left an
/// intact store the seal refused. Every prefix of the page writes of the
/// first three commits after a checkpoint, and the same states cut short
/// by a full disk, must open at the checkpoint.
#[test]
fn a_commit_cut_short_at_any_page_leaves_a_store_that_opens_at_its_checkpoint() {
    let source = TempDir::new("crash-source");
    let (table, expected) = checkpointed_store(&source.0, 400);
    let seal_file = Path::new(seal::SEAL_FILE);
    assert!(
        read_files(&source.0).contains_key(seal_file),
        "a checkpoint seals the data file"
    );
    let began = directories_as_writes_began(&table, 400, 3);
    drop(table);
    assert!(
        !began[0].contains_key(seal_file),
        "the seal is void before the first write after a checkpoint begins"
    );
    let state = TempDir::new("crash-state");
    let mut tried = 0;
    for (commit, pair) in began.windows(2).enumerate() {
        let (before, after) = (&pair[0], &pair[1]);
        let old = &before[&data_file()];
        let new = &after[&data_file()];
        let pages = written_pages(old, new);
        assert!(!pages.is_empty(), "commit {commit} wrote pages");
        for written in 0..=pages.len() {
            let mut cuts = vec![None];
            // A full disk: the next page past the end written in part.
            if let Some(&next) = pages.get(written)
                && (next + 1) * PAGE > old.len()
            {
                cuts = vec![None, Some(1), Some(PAGE / 2)];
            }
            for cut in cuts {
                let prefix: Vec<usize> = pages[..written]
                    .iter()
                    .copied()
                    .chain(cut.and(pages.get(written).copied()))
                    .collect();
                let mut files = before.clone();
                files.insert(data_file(), part_written(old, new, &prefix, cut));
                write_files(&state.0, &files);
                assert_opens_at_checkpoint(
                    &state.0,
                    &expected,
                    &format!(
                        "commit {commit}, {written} of {} pages written, cut {cut:?}",
                        pages.len()
                    ),
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 10, "{tried} states");
    eprintln!("{tried} crash states opened at their checkpoint");
}

/// While no write has begun since the checkpoint, the seal still guards
/// the whole file: a change on a page no tree reaches is refused by name,
/// and the refusal says that the records verify (so no restore is
/// needed) and how to accept the file.
#[test]
fn a_change_under_the_seal_is_refused_without_advising_a_restore_when_the_records_verify() {
    let dir = TempDir::new("sealed-change");
    let (table, _) = checkpointed_store(&dir.0, 400);
    drop(table);
    let path = dir.0.join(data_file());
    let mut bytes = std::fs::read(&path).unwrap();
    // Past the end of every tree: the file's last page is free or in
    // use, so flip a byte in each page in turn until one is refused by
    // the seal alone (the walk and the records pass).
    let pages = bytes.len() / PAGE;
    let mut seal_only = None;
    for page in 2..pages {
        let at = page * PAGE + PAGE - 1;
        bytes[at] ^= 0x5A;
        std::fs::write(&path, &bytes).unwrap();
        let refused = LmdbTable::open_read_only(&dir.0, STORE_LAYOUT, fingerprint());
        bytes[at] ^= 0x5A;
        if let Err(error @ StoreError::ChangedOutsideRecords { .. }) = refused {
            seal_only = Some(error);
            break;
        }
    }
    std::fs::write(&path, &bytes).unwrap();
    let error = seal_only.expect("some page is on no tree's path (a free page)");
    let text = error.to_string();
    assert!(text.contains("data.mdb"), "{text}");
    assert!(text.contains("records verify"), "{text}");
    assert!(text.contains(seal::SEAL_FILE), "{text}");
    assert!(!text.contains("backup"), "{text}");
}
