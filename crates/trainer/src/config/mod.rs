//! Run profiles in TOML, and the settings a run is made with.
//!
//! A profile (see `configs/`) may set any field; flags on the command line
//! override it; defaults fill the rest. Unknown keys are errors that name
//! the key, so a typo never silently falls back to a default.

mod bids;
mod curve;
mod durations;
mod errors;
mod identity;
mod levers;
mod options;
mod profile;
mod resolve;
mod session;
mod sizes;
mod solver;
mod sync;
mod writeback;

pub use bids::{BiddingStage, Bids, BidsName, DEFAULT_BIDDING_STAGE_ITERATIONS};
pub use options::{
    ClusterOptions, CurveOptions, RunOptions, SessionOptions, SolverOptions, StoreOptions,
    TrainOptions,
};
pub use sync::{
    DEFAULT_SYNC_EVERY, SyncEvery, SyncOverlap, SyncReads, SyncSettings, SyncStrategySums,
};
pub use writeback::MmapWriteback;

pub use curve::{CurveSettings, DEFAULT_EVAL_HANDS};
pub use durations::{DurationError, parse_duration};
pub use errors::ConfigError;
pub use identity::Identity;
pub use levers::{
    BestResponseSettings, FULL_PLAY_WARM_START, PRUNING_SHARE, PruningSettings,
    TRAVERSER_EXPLORATION, TraverserSamplingSettings, WarmStartSettings,
};
pub use profile::{
    LogSettings, MAX_PROFILE_BYTES, RunProfile, load_profile, load_rules, parse_profile,
};
pub use resolve::{
    DEFAULT_ITERATIONS, DEFAULT_LMDB_CACHE_RECORDS, Resolved, default_bids, default_iterations,
    resolve,
};
pub use session::{
    MAX_THREADS_PER_CORE, SessionSettings, bound_cores_warning, check_threads, parse_threads,
    worker_threads,
};
pub use sizes::{SizeError, parse_size};
pub use solver::{CardPlayStrategy, EncodingName, ScheduleName, SolverSettings};

#[cfg(test)]
mod tests;
