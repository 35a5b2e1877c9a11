//! The euchre trainer as a library: everything the `trainer` binary does,
//! in parts that tests and benchmarks call directly.
//!
//! - [`game`]: euchre as a [`cfr::Game`]: the engine of `euchre_game`, a
//!   training [`phase`] deciding where the solver stops, and open-hand
//!   (double-dummy) values at the leaves.
//! - [`training`]: a run directory, the store behind it ([`store`]) and a
//!   [`training::session::Session`] that trains in checkpointed batches.
//! - [`policy_file`]: the exported average strategy, the only thing that
//!   [`eval`] (bots and the duplicate-match arena) and play ever read.
//! - [`blueprint`]: a fixed bidding policy that card-play runs may train
//!   under instead of training their own bids.
//! - [`config`]: run profiles in TOML and the settings a run is made with.
//! - [`bench`](mod@bench): the speed measurements behind `trainer bench` and
//!   `cargo bench`.
//! - [`commands`]: what each subcommand prints for a person.
//! - [`act`] and [`serve`]: the bot API (JSON lines and HTTP) and the local
//!   web server to play the bots and watch runs.

pub mod act;
pub mod bench;
pub mod blueprint;
pub mod commands;
pub mod config;
pub mod eval;
pub mod format;
pub mod game;
pub mod leaves;
pub mod meter;
pub mod phase;
pub mod policy_file;
pub mod report;
pub mod serve;
pub mod training;
