//! Key universes: every infostate key of a phase, listed so that a minimal
//! perfect hash can be built over them.
//!
//! - [`bidding`]: the bidding keys, streamed per starting view;
//! - [`lead`]: the opening leads' keys, streamed likewise;
//! - [`play`]: the rank-compressed play keys, streamed by shape and never
//!   held in memory.

pub mod bidding;
pub mod lead;
pub mod play;
