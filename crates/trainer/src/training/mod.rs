//! Training runs: the run directory, the store behind it, the session loop
//! with its checkpoints, and how it reports and stops.

pub(crate) mod backend;
pub(crate) mod logging;
pub(crate) mod run_dir;
pub(crate) mod session;
pub(crate) mod signals;
pub(crate) mod universe;
