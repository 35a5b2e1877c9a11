//! Rank 0's store skeleton (the keys file and the perfect hash) sent to the
//! other ranks when a session on the mmap store starts, so that each makes
//! its replica in seconds instead of listing the key universe and building
//! the hash again: full play's 46 M keys took a follower 7 minutes on 2
//! idle cores and over 20 on a busy one, at every session's start. The
//! files travel in broadcasts of [`CHUNK_BYTES`]; an empty one ends a file.
//! Every rank takes part in every broadcast whatever goes wrong on it, and
//! says what went wrong afterwards, so that no rank waits forever.

use std::io::{Read, Write};
use std::path::Path;

use cfr::distributed::{Collective, CollectiveError};
use store::Skeleton;

/// Bytes per broadcast, as the replication of records sends them.
const CHUNK_BYTES: usize = 32 << 20;

/// Rank 0: sends the skeleton's files from its store directory. `Err` says
/// which file could not be read (the others then receive a short file
/// and refuse it).
pub(crate) fn send(
    group: &dyn Collective,
    store_dir: &Path,
    skeleton: &Skeleton,
) -> Result<Result<(), String>, CollectiveError> {
    let mut outcome = Ok(());
    for file in skeleton.files() {
        let path = store_dir.join(&file.what);
        let mut reader = match std::fs::File::open(&path) {
            Ok(reader) => Some(reader),
            Err(error) => {
                outcome = Err(format!("cannot read {}: {error}", path.display()));
                None
            }
        };
        let mut chunk = vec![0u8; CHUNK_BYTES];
        while let Some(open) = reader.as_mut() {
            match read_full(open, &mut chunk) {
                Ok(0) => break,
                Ok(read) => {
                    let mut piece = chunk[..read].to_vec();
                    group.broadcast(0, &mut piece)?;
                }
                Err(error) => {
                    outcome = Err(format!("cannot read {}: {error}", path.display()));
                    break;
                }
            }
        }
        group.broadcast(0, &mut Vec::new())?;
    }
    Ok(outcome)
}

/// Another rank: writes the skeleton's files into `dir` as they arrive.
/// `Err` says why this rank cannot use them (the caller names `dir`); it
/// has still received every broadcast.
pub(crate) fn receive(
    group: &dyn Collective,
    dir: &Path,
    skeleton: &Skeleton,
) -> Result<Result<(), String>, CollectiveError> {
    let mut outcome =
        std::fs::create_dir_all(dir).map_err(|error| format!("cannot make the directory: {error}"));
    for file in skeleton.files() {
        let path = dir.join(&file.what);
        let mut writer = match &outcome {
            Ok(()) => match std::fs::File::create(&path) {
                Ok(writer) => Some(writer),
                Err(error) => {
                    outcome = Err(format!("cannot write {}: {error}", file.what));
                    None
                }
            },
            Err(_) => None,
        };
        loop {
            let mut chunk = Vec::new();
            group.broadcast(0, &mut chunk)?;
            if chunk.is_empty() {
                break;
            }
            if let Some(open) = writer.as_mut()
                && let Err(error) = open.write_all(&chunk)
            {
                outcome = Err(format!("cannot write {}: {error}", file.what));
                writer = None;
            }
        }
        if let Some(open) = writer
            && let Err(error) = open.sync_all()
        {
            outcome = Err(format!("cannot write {}: {error}", file.what));
        }
    }
    Ok(outcome)
}

/// Reads until `buffer` is full or the file ends; the bytes read.
fn read_full(reader: &mut impl Read, buffer: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(read) => filled += read,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use cfr::distributed::ThreadGroup;

    /// Runs `each` on every rank of a group of `size` threads; their results
    /// in rank order.
    fn on_ranks<T: Send>(size: usize, each: impl Fn(&ThreadGroup) -> T + Sync) -> Vec<T> {
        std::thread::scope(|scope| {
            let workers: Vec<_> = ThreadGroup::new(size)
                .into_iter()
                .map(|group| {
                    let each = &each;
                    scope.spawn(move || each(&group))
                })
                .collect();
            workers
                .into_iter()
                .map(|worker| worker.join().unwrap())
                .collect()
        })
    }

    /// Rank 0 sends `skeleton` from `root/rank0`, the others receive it
    /// into `root/rankN`; every rank's outcome, in rank order.
    fn transfer(ranks: usize, root: &Path, skeleton: &Skeleton) -> Vec<Result<(), String>> {
        on_ranks(ranks, |group| {
            let mine = root.join(format!("rank{}", group.rank()));
            if group.is_root() {
                send(group, &mine, skeleton).unwrap()
            } else {
                receive(group, &mine, skeleton).unwrap()
            }
        })
    }

    fn checksum(what: &str, bytes: &[u8]) -> store::Checksum {
        store::Checksum {
            what: what.to_owned(),
            bytes: bytes.len() as u64,
            crc32: 0,
        }
    }

    #[test]
    fn every_rank_receives_the_files_byte_for_byte_across_chunks() {
        let root = std::env::temp_dir().join(format!("skeleton-send-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("rank0")).unwrap();
        let keys: Vec<u8> = (0..CHUNK_BYTES + 12_345).map(|i| (i % 251) as u8).collect();
        let phf = b"a perfect hash".to_vec();
        std::fs::write(root.join("rank0").join(store::KEYS_FILE), &keys).unwrap();
        std::fs::write(root.join("rank0").join(store::PHF_FILE), &phf).unwrap();
        let skeleton = Skeleton {
            keys: checksum(store::KEYS_FILE, &keys),
            phf: checksum(store::PHF_FILE, &phf),
        };
        let outcomes = transfer(3, &root, &skeleton);
        assert!(outcomes.iter().all(Result::is_ok), "{outcomes:?}");
        for rank in 1..3 {
            let dir = root.join(format!("rank{rank}"));
            assert_eq!(std::fs::read(dir.join(store::KEYS_FILE)).unwrap(), keys);
            assert_eq!(std::fs::read(dir.join(store::PHF_FILE)).unwrap(), phf);
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_rank_that_cannot_write_or_read_says_so_and_the_others_finish() {
        let root = std::env::temp_dir().join(format!("skeleton-fail-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("rank0")).unwrap();
        std::fs::write(root.join("rank0").join(store::KEYS_FILE), b"keys").unwrap();
        // No perfect hash on rank 0; rank 1's directory is a file.
        std::fs::write(root.join("rank1"), b"not a directory").unwrap();
        let skeleton = Skeleton {
            keys: checksum(store::KEYS_FILE, b"keys"),
            phf: checksum(store::PHF_FILE, b"hash"),
        };
        let outcomes = transfer(3, &root, &skeleton);
        assert!(
            outcomes[0].as_ref().unwrap_err().contains(store::PHF_FILE),
            "{outcomes:?}"
        );
        assert!(
            outcomes[1].as_ref().unwrap_err().contains("cannot make"),
            "{outcomes:?}"
        );
        assert!(
            outcomes[2].is_ok(),
            "rank 2 got what rank 0 sent: {outcomes:?}"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
