//! Counterfactual regret minimisation, generic over the game and the storage.
//!
//! A game implements [`Game`]: index-based actions, chance nodes, a 128-bit
//! infostate key and per-player payoffs. Regrets and strategy sums live in a
//! [`store::Table`], one fixed-size record per infostate, so the same solver
//! runs on memory, LMDB or an mmap file.
//!
//! - [`exact`]: full-tree CFR, CFR+ and DCFR for small games, with exact best
//!   response and exploitability in [`best_response`].
//! - [`mccfr`]: external-sampling Monte Carlo CFR, parallel over rayon with no
//!   global lock, reproducible with one thread and resumable mid-stream.
//!   A [`WarmStart`] seeds each infostate's first visit with the game's
//!   suggested action; a [`TraverserSampling`] samples the traverser's own
//!   actions below its first decisions instead of walking them all; an
//!   [`OpponentModel`] makes the traverser's opponents play a model of
//!   them in a share of its walks (a restricted Nash response).
//! - [`distributed`]: one MCCFR run over many processes, each with a full
//!   replica, kept identical by summing their regret deltas at each sync.
//! - [`games`]: Kuhn poker and Leduc hold'em, the games with known values that
//!   the tests hold the solvers to.

pub mod best_response;
pub mod discount;
pub mod distributed;
pub mod error;
pub mod exact;
pub mod game;
pub mod games;
pub mod mccfr;
pub mod opponent_model;
pub mod policy;
pub mod pruning;
pub mod regret;
pub mod rng;
pub mod traverser_sampling;
pub mod tree;
pub mod warm_start;

pub use discount::Schedule;
pub use error::CfrError;
pub use game::{Game, Node};
pub use opponent_model::OpponentModel;
pub use pruning::Pruning;
pub use traverser_sampling::TraverserSampling;
pub use warm_start::WarmStart;
