//! Training runs: the run directory, the store behind it, the session loop
//! with its checkpoints, and how it reports and stops.

pub mod backend;
pub mod bidding_stage;
pub mod cluster;
pub mod curve;
pub mod error;
pub mod export;
pub mod fingerprint;
pub mod logging;
pub mod looping;
pub mod run_dir;
pub mod session;
pub mod signals;
pub mod staged;
pub mod status;
pub mod terminal;
pub mod universe;
