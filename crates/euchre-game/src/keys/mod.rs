//! Infostate keys: what the acting player knows, canonical under the
//! game's exact suit symmetry, packed into a fixed-size `u128`.
//!
//! - [`bidding`]: the perfect-recall bidding key;
//! - [`lead`]: the opening lead's key, the leader's whole view once the
//!   auction has ended (for a lead decided once per view);
//! - [`play`]: the rank-compressed card-play key;
//! - [`symmetry`]: the colour-preserving suit permutations all three are
//!   canonical under.
//!
//! This module ties them together: [`decision`] asks bidding first and play
//! after, so neither key module depends on the other.

pub mod bidding;
pub mod lead;
pub mod play;
pub mod symmetry;

use crate::engine::action::{Action, ActionList};
use crate::engine::state::GameState;
use symmetry::SuitPerm;

/// A canonical infostate key. Plain data: copy it, hash it, store its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InfoKey(pub u128);

impl InfoKey {
    pub const fn to_le_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    pub const fn from_le_bytes(bytes: [u8; 16]) -> InfoKey {
        InfoKey(u128::from_le_bytes(bytes))
    }
}

/// A decision point as a solver sees it: the canonical key, and the legal
/// actions in canonical order. Action `i` means the same thing at every
/// state with this key, whichever suits the deal actually used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decision {
    pub key: InfoKey,
    pub actions: ActionList,
}

/// Sorts actions by their id after renaming suits by `perm`.
pub fn canonical_order(mut actions: ActionList, perm: &SuitPerm) -> ActionList {
    actions
        .as_mut_slice()
        .sort_unstable_by_key(|&action: &Action| perm.action(action).id());
    actions
}

/// The decision at `state` under the full key: perfect recall through
/// bidding, the rank-compressed key for card play. `None` once the hand is
/// over.
pub fn decision(state: &GameState) -> Option<Decision> {
    decision_with(state, play::PlayAbstraction::Plain)
}

/// [`decision`] with card play keyed under `abstraction`.
pub fn decision_with(state: &GameState, abstraction: play::PlayAbstraction) -> Option<Decision> {
    bidding::bidding_decision(state).or_else(|| play::play_decision_with(state, abstraction))
}
