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
#[cfg(feature = "mpi")]
pub mod mpi;
mod orders;
pub(crate) use orders::Probe;

use std::rc::Rc;

use cfr::distributed::Collective;

pub use crate::config::{SyncEvery, SyncReads, SyncSettings, SyncStrategySums};

/// The ranks a command leads, as their rank 0: passed from `main` to the
/// sessions that train on them (`None`: this process alone). The transport
/// is used only from the thread that runs the command.
pub type Group = Rc<dyn Collective>;

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
/// and the same command line.
pub fn agreement(arguments: &[String]) -> Vec<u8> {
    let mut text = format!("trainer {}", env!("CARGO_PKG_VERSION"));
    for argument in arguments {
        text.push('\0');
        text.push_str(argument);
    }
    text.into_bytes()
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
    fn ranks_started_differently_are_named() {
        let same = agreement(&["train".into(), "--phase".into(), "bidding".into()]);
        let other = agreement(&["train".into(), "--phase".into(), "full-play".into()]);
        assert!(check_agreement(&[same.clone(), same.clone()]).is_ok());
        let error = check_agreement(&[same.clone(), same, other]).unwrap_err();
        assert!(error.contains("rank 2"), "{error}");
        assert!(error.contains("full-play"), "{error}");
    }
}
