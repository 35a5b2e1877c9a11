//! The opening lead's key: the leader's whole view once the auction has
//! ended.
//!
//! The card-play key ([`super::play`]) drops the upcard and which seat of a
//! side made trump, and the opening lead is the card played with the least
//! else to go on: the leader has seen nothing but its hand and the auction.
//! A search's lead, decided once per view, needs a key that keeps them.
//! This key is the bidding key's view (the leader's hand, the upcard, its
//! own discard if it dealt and picked up, and the contract) with a kind of
//! its own in the top byte, and the seat of a lone defender where the rules
//! allow one. Given the round, the contract fixes every earlier bid: each
//! seat before the maker passed.
//!
//! It is canonical under the same suit renamings as the bidding key, and no
//! bidding or card-play key can equal it: their top bytes are 1 to 5.

use super::bidding::{KIND_SHIFT, PublicContract, ViewFields};
use super::symmetry::{SuitPerm, is_least, least_encoding};
use super::{Decision, InfoKey, canonical_order};
use crate::engine::card::{Card, CardSet};
use crate::engine::state::{GameState, Stage};

/// The opening lead's key's top byte.
pub const LEAD_KIND: u8 = 6;

/// 3 bits beside the view's fields: 0 when no one defends alone, else the
/// lone defender's offset from the dealer plus one.
const DEFENDER_SHIFT: u32 = 45;

/// Everything the leader knows at the opening lead, before
/// canonicalisation, with seats counted clockwise from the dealer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeadView {
    pub leader_offset: u8,
    pub hand: CardSet,
    pub upcard: Card,
    /// The leader's own discard: only a dealer who picked the upcard up.
    pub own_discard: Option<Card>,
    pub contract: PublicContract,
    pub lone_defender_offset: Option<u8>,
}

impl LeadView {
    /// The leader's view at `state`; `None` unless the first card of the
    /// hand is to be played.
    pub fn of_state(state: &GameState) -> Option<LeadView> {
        if state.stage() != Stage::Play || !state.played().is_empty() {
            return None;
        }
        let leader = state.to_act()?;
        let dealer = state.dealer();
        let contract = state.contract()?;
        Some(LeadView {
            leader_offset: leader.offset_from(dealer),
            hand: state.hand(leader),
            upcard: state.upcard(),
            own_discard: if leader == dealer {
                state.discard()
            } else {
                None
            },
            contract: PublicContract {
                maker_offset: contract.maker.offset_from(dealer),
                trump: contract.trump,
                alone: contract.alone,
            },
            lone_defender_offset: state.lone_defender().map(|seat| seat.offset_from(dealer)),
        })
    }

    fn fields(&self) -> ViewFields {
        ViewFields {
            actor_offset: self.leader_offset,
            hand: self.hand,
            upcard: self.upcard,
            own_discard: self.own_discard,
            contract: Some(self.contract),
        }
    }

    /// The view's encoding after renaming suits by `perm`.
    #[inline]
    pub fn encode(&self, perm: &SuitPerm) -> u128 {
        let defender = self.lone_defender_offset.map_or(0, |offset| offset + 1);
        self.fields().encode(perm)
            | u128::from(defender) << DEFENDER_SHIFT
            | u128::from(LEAD_KIND) << KIND_SHIFT
    }

    /// The canonical key and the renaming that produces it (the first of
    /// the group's fixed order when several tie, as for bidding keys).
    pub fn canonical(&self) -> (InfoKey, SuitPerm) {
        let (code, perm) = least_encoding(|perm| self.encode(perm));
        (InfoKey(code), perm)
    }

    /// Whether no renaming encodes this view smaller.
    pub fn is_canonical(&self) -> bool {
        is_least(|perm| self.encode(perm))
    }

    /// The view a key encodes, in the key's own suits; `None` for any key
    /// that is not an opening lead's.
    pub fn decode(key: InfoKey) -> Option<LeadView> {
        if !is_lead_key(key) {
            return None;
        }
        let fields = ViewFields::decode(key.0)?;
        let defender = ((key.0 >> DEFENDER_SHIFT) & 0b111) as u8;
        Some(LeadView {
            leader_offset: fields.actor_offset,
            hand: fields.hand,
            upcard: fields.upcard,
            own_discard: fields.own_discard,
            contract: fields.contract?,
            lone_defender_offset: defender.checked_sub(1),
        })
    }
}

/// Whether `key` is an opening lead's.
pub fn is_lead_key(key: InfoKey) -> bool {
    (key.0 >> KIND_SHIFT) as u8 == LEAD_KIND
}

/// The opening lead at `state` under its own key, with the cards in
/// canonical order; `None` anywhere else.
pub fn lead_decision(state: &GameState) -> Option<Decision> {
    let view = LeadView::of_state(state)?;
    let (key, perm) = view.canonical();
    Some(Decision {
        key,
        actions: canonical_order(state.legal_actions(), &perm),
    })
}
