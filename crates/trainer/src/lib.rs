//! The euchre trainer as a library: everything the `trainer` binary does,
//! in parts that tests and benchmarks call directly.
//!
//! - [`solver_game`]: euchre as a [`cfr::Game`]: the engine of `euchre_game`, a
//!   training phase ([`euchre_bots::phase`]) deciding where the solver
//!   stops, and open-hand (double-dummy) values at the leaves.
//! - [`training`]: a run directory, the store behind it ([`store`]) and a
//!   [`training::session::Session`] that trains in checkpointed batches.
//! - [`config`]: run profiles in TOML and the settings a run is made with.
//! - [`bench`](mod@bench): the speed measurements behind `trainer bench` and
//!   `cargo bench`.
//! - [`commands`]: what each subcommand prints for a person.
//! - [`serve`]: the local web server to play the bots and watch runs.
//!
//! Everything that plays (bots, the policy file, matches, the bot API) is in
//! `euchre_bots`, which knows nothing of training.

pub mod bench;
pub mod commands;
pub mod config;
pub mod format;
pub mod meter;
pub mod report;
pub mod serve;
pub mod solver_game;
pub mod training;
