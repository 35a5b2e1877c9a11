//! The players: each implements [`crate::bot::Bot`] and reads only what its
//! seat has seen ([`crate::seen::Seen`]).

pub mod heuristic;
pub mod pimc;
pub mod policy;
pub mod random;
pub mod search;
pub mod split;
pub mod timed;
