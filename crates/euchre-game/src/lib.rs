//! Euchre for a CFR solver: the rules, canonical infostate keys, and the
//! universes of keys that fixed-size stores are built over.
//!
//! - [`engine`]: cards, seats, rules options, a hand's state with its legal
//!   actions, the replay notation, and the open-hand solver that values
//!   positions at the solver's leaves.
//! - [`egn`]: Euchre Game Notation, real games in and games played here
//!   out, each deal rebuilt from the record and replayed by the engine.
//! - [`keys`]: what the acting player knows, as a `u128` canonical under
//!   the exact suit symmetry (only colour-preserving permutations, because
//!   the jack of trump's colour is the left bower): perfect recall through
//!   bidding, a rank-compressed key in card play.
//! - [`universe`]: every key of a phase, enumerated exactly once (bidding)
//!   or as a tested superset (play), for building a perfect hash.
//!
//! The crate knows nothing of solvers or storage: keys are plain data.

pub mod egn;
pub mod engine;
pub mod game;
pub mod keys;
pub mod universe;
