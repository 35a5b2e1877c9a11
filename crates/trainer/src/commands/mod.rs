//! What each subcommand does, written for a person at a terminal: each
//! takes plain values (the binary has parsed the flags) and prints its
//! report to stdout.

pub mod analyze;
pub mod arena;
pub mod enumerate;
pub mod eval;
pub mod exploit;
pub mod export;
pub mod play;
pub mod replay;
pub mod search_bids;
pub mod search_leads;
mod search_progress;
pub mod status;
pub mod train;
pub mod win_model;
