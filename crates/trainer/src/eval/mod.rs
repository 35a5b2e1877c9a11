//! Bots, what each may see, and the duplicate-match arena that measures
//! them. `trainer eval` and `trainer play` are built from these parts.

pub mod arena;
pub mod bot;
pub mod heuristic;
pub mod local_best_response;
pub mod pimc;
pub mod policy;
pub mod search;
pub mod seen;
