//! Speed measurements, each printed as a table of ratios against a baseline
//! measured in the same run (these machines are shared and noisy). The
//! `trainer bench …` subcommands and `cargo bench` (the targets in
//! `benches/`) run the same functions.

pub mod cfr;
pub mod dd;
pub mod game;
#[cfg(feature = "bench-peers")]
pub mod peers;
pub mod prune;
pub mod replica;
pub mod store;
pub mod sync;
pub mod train;
