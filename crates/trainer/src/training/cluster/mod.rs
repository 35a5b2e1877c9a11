//! Training over many processes: rank 0 runs the command as on one
//! machine and owns the run directory; every other rank serves it, holding
//! a replica of the table in memory and training its share of each epoch
//! (see [`cfr::distributed`] for how the replicas stay identical).
//!
//! The transport is MPI (feature `mpi`, module `mpi`). Without it, or run
//! without `mpirun`, a process is alone and trains as it always did.

mod epoch;
pub mod follower;
pub mod grace;
pub mod leader;
mod memory;
#[cfg(feature = "mpi")]
pub mod mpi;
mod orders;
mod skeleton;
pub mod telemetry;
pub(crate) use orders::Probe;

use std::rc::Rc;

use cfr::distributed::Collective;

pub use crate::config::{SyncEvery, SyncOverlap, SyncReads, SyncSettings, SyncStrategySums};

/// The ranks a command leads, as their rank 0: passed from `main` to the
/// sessions that train on them (`None`: this process alone). The transport
/// is used only from the thread that runs the command.
pub type Group = Rc<dyn Collective>;

/// How a rank's training reaches its replica: in place, as one process
/// trains on its table, when its run keeps no average in card play, its
/// reads are live, its syncs wait for training, and its stores can put a
/// record back exactly (not LMDB); through the delta buffer otherwise.
/// Every rank decides alike from the run's settings. In place, a rank
/// trained 1.11-1.33× faster than through the buffer, but the sync must
/// then find each changed record, and with card play's strategy sums kept
/// about 11 records change for each one a sync sends: the sync's extra
/// work outweighed the gain. Without them in place was the faster of the
/// two (docs/experiments/cluster-in-place.md). With a shared layout (the
/// mmap store, every rank's built from rank 0's skeleton) a sync in place
/// names records by slot rather than by key.
fn replica_for<'a, T: store::Table + ?Sized>(
    replica: cfr::distributed::ReplicatedTable<'a, T>,
    identity: &crate::config::Identity,
    sync: &SyncSettings,
    skeleton: Option<&store::Skeleton>,
) -> Result<cfr::distributed::ReplicatedTable<'a, T>, cfr::CfrError> {
    let replica = match skeleton {
        Some(_) => replica.with_shared_layout(),
        None => replica,
    };
    let in_place = !identity.solver.card_play_strategy.is_average()
        && !sync.overlapped()
        && sync.reads == SyncReads::Live
        && identity.store != store::Backend::Lmdb;
    if in_place {
        replica.training_in_place()
    } else {
        Ok(replica)
    }
}

/// Tells every follower the command is over (`error`: why, if it failed),
/// so they exit too.
pub fn dismiss(
    group: &dyn Collective,
    error: Option<String>,
) -> Result<(), cfr::distributed::CollectiveError> {
    orders::send(group, &orders::Order::Quit { error })
}

/// Times one probe of `trainer bench sync` on every rank; the slowest
/// rank's time, which is what a sync waits for.
pub(crate) fn probe(
    group: &dyn Collective,
    probe: Probe,
) -> Result<f64, cfr::distributed::CollectiveError> {
    orders::send(group, &orders::Order::Probe(probe))?;
    probe.run(group)
}

/// What every rank must agree on before any trains: the same trainer build
/// (the executable's own bytes, not only its version), the same maths
/// library (DCFR's discount factors go through libm, and two glibc builds
/// may round them differently, so replicas would drift), and the same
/// command line.
pub fn agreement(arguments: &[String]) -> Vec<u8> {
    agreement_of(&build_id(), arguments)
}

fn agreement_of(build: &str, arguments: &[String]) -> Vec<u8> {
    let mut text = format!("trainer {} build {build}", env!("CARGO_PKG_VERSION"));
    for argument in arguments {
        text.push('\0');
        text.push_str(argument);
    }
    text.into_bytes()
}

/// A digest of this process's executable and of the C and maths libraries
/// it has loaded: equal on two machines only when both run the same binary
/// on the same libraries. A file that cannot be read counts as its path,
/// so the check still runs, only less strictly.
fn build_id() -> String {
    let mut digest = crc32fast::Hasher::new();
    let mut files: Vec<std::path::PathBuf> = std::env::current_exe().into_iter().collect();
    if let Ok(maps) = std::fs::read_to_string("/proc/self/maps") {
        let mut libraries: Vec<&str> = maps
            .lines()
            .filter_map(|line| line.split_whitespace().nth(5))
            .filter(|path| {
                let name = path.rsplit('/').next().unwrap_or("");
                name.starts_with("libc.so") || name.starts_with("libm.so")
            })
            .collect();
        libraries.sort_unstable();
        libraries.dedup();
        files.extend(libraries.into_iter().map(std::path::PathBuf::from));
    }
    for file in &files {
        match std::fs::read(file) {
            Ok(bytes) => digest.update(&bytes),
            Err(_) => digest.update(file.to_string_lossy().as_bytes()),
        }
    }
    format!("{:08x}", digest.finalize())
}

/// Checks that every rank sent the same [`agreement`]; the error names the
/// first rank that differs and how.
pub fn check_agreement(everyone: &[Vec<u8>]) -> Result<(), String> {
    let Some(root) = everyone.first() else {
        return Ok(());
    };
    for (rank, theirs) in everyone.iter().enumerate().skip(1) {
        if theirs != root {
            let show = |bytes: &[u8]| String::from_utf8_lossy(bytes).replace('\0', " ");
            return Err(format!(
                "rank {rank} was started differently from rank 0 (`{}` against `{}`): start every rank with the same trainer build and arguments",
                show(theirs),
                show(root)
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_build_is_named() {
        let arguments = ["train".to_owned()];
        let ours = agreement_of("0badcafe", &arguments);
        let theirs = agreement_of("12345678", &arguments);
        let error = check_agreement(&[ours, theirs]).unwrap_err();
        assert!(error.contains("build 12345678"), "{error}");
        // This process's id is stable and covers the executable.
        assert_eq!(build_id(), build_id());
        assert_eq!(build_id().len(), 8);
    }

    #[test]
    fn ranks_started_differently_are_named() {
        let same = agreement(&["train".into(), "--phase".into(), "bidding".into()]);
        let other = agreement(&["train".into(), "--phase".into(), "full-play".into()]);
        assert!(check_agreement(&[same.clone(), same.clone()]).is_ok());
        let error = check_agreement(&[same.clone(), same, other]).unwrap_err();
        assert!(error.contains("rank 2"), "{error}");
        assert!(error.contains("full-play"), "{error}");
    }
}
