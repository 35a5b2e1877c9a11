//! Bots, what each may see, and the duplicate-match arena that measures
//! them. `trainer eval` and `trainer play` are built from these parts.

pub(crate) mod arena;
pub(crate) mod bot;
pub(crate) mod heuristic;
pub(crate) mod pimc;
pub(crate) mod policy;
pub(crate) mod seen;
