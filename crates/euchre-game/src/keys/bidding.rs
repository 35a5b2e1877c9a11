//! Infostate keys: what the acting player knows, canonical under the exact
//! suit symmetry, packed into a fixed-size `u128`.
//!
//! The bidding key has perfect recall. Every public bidding action before a
//! decision is implied by the fields kept: in round 1 and round 2 all
//! earlier bids were passes, so the actor's seat relative to the dealer says
//! how many; the maker's seat, the trump suit and the alone flag say how
//! bidding ended; and the second defender's turn implies the first passed.
//! The dealer's own discard is kept, because only the dealer knows it.

use super::symmetry::{SuitPerm, is_least, least_encoding};
use super::{Decision, InfoKey, canonical_order};
use crate::engine::card::{Card, CardSet, Suit};
use crate::engine::state::{GameState, Stage};
use crate::game::context::ScoreContext;

impl InfoKey {
    /// Which decision a key belongs to, from its top byte.
    pub fn decision_kind(self) -> Option<BiddingDecision> {
        BiddingDecision::from_tag((self.0 >> KIND_SHIFT) as u8)
    }
}

/// The kinds of decision in the bidding phase. The discriminant is the
/// key's top byte, so that keys of different kinds can never collide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum BiddingDecision {
    Round1 = 1,
    DealerDiscard = 2,
    Round2 = 3,
    DefendAlone = 4,
}

impl BiddingDecision {
    pub const ALL: [BiddingDecision; 4] = [
        BiddingDecision::Round1,
        BiddingDecision::DealerDiscard,
        BiddingDecision::Round2,
        BiddingDecision::DefendAlone,
    ];

    fn from_tag(tag: u8) -> Option<BiddingDecision> {
        BiddingDecision::ALL
            .into_iter()
            .find(|kind| *kind as u8 == tag)
    }

    fn of_stage(stage: Stage) -> Option<BiddingDecision> {
        match stage {
            Stage::BiddingRound1 => Some(BiddingDecision::Round1),
            Stage::DealerDiscard => Some(BiddingDecision::DealerDiscard),
            Stage::BiddingRound2 => Some(BiddingDecision::Round2),
            Stage::DefendAlone => Some(BiddingDecision::DefendAlone),
            Stage::Play | Stage::Finished => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BiddingDecision::Round1 => "round 1 bid",
            BiddingDecision::DealerDiscard => "dealer discard",
            BiddingDecision::Round2 => "round 2 bid",
            BiddingDecision::DefendAlone => "defend alone",
        }
    }
}

/// How bidding ended, as the actor sees it, with seats relative to the dealer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PublicContract {
    pub maker_offset: u8,
    pub trump: Suit,
    pub alone: bool,
}

/// Everything a player knows at a bidding decision, before canonicalisation.
/// The enumerator builds these directly; live states convert with
/// [`BiddingKeyParts::of_state`]. Both go through one encoder, so a key seen in
/// play is by construction a key the enumerator can produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BiddingKeyParts {
    pub decision: BiddingDecision,
    /// The actor's seat, counted clockwise from the dealer (0 = dealer).
    pub actor_offset: u8,
    pub hand: CardSet,
    pub upcard: Card,
    /// The dealer's own discard, present only when the dealer is the actor.
    pub own_discard: Option<Card>,
    pub contract: Option<PublicContract>,
}

// Bit layout, least significant first. Suit-bearing fields are ordered so
// that the upcard dominates the comparison: the least encoding always names
// the upcard's suit clubs, which lets the enumerator skip other upcards.
const HAND_SHIFT: u32 = 0; // 24 bits
const DISCARD_SHIFT: u32 = 24; // 5 bits: 0 none, else card + 1
const TRUMP_SHIFT: u32 = 29; // 3 bits: 0 none, else suit + 1
const UPCARD_SHIFT: u32 = 32; // 5 bits
const ACTOR_SHIFT: u32 = 40; // 2 bits
const MAKER_SHIFT: u32 = 42; // 2 bits
const ALONE_SHIFT: u32 = 44; // 1 bit
const CONTEXT_SHIFT: u32 = 112; // 4 bits: a score-aware policy's context
const SEARCHED_SHIFT: u32 = 116; // 1 bit: a searched bid kept beside the blueprint's
pub(super) const KIND_SHIFT: u32 = 120; // top byte

impl BiddingKeyParts {
    /// The actor's view at a bidding decision; `None` during play or after.
    pub fn of_state(state: &GameState) -> Option<BiddingKeyParts> {
        let decision = BiddingDecision::of_stage(state.stage())?;
        let actor = state.to_act()?;
        let dealer = state.dealer();
        Some(BiddingKeyParts {
            decision,
            actor_offset: actor.offset_from(dealer),
            hand: state.hand(actor),
            upcard: state.upcard(),
            own_discard: if actor == dealer {
                state.discard()
            } else {
                None
            },
            contract: state.contract().map(|contract| PublicContract {
                maker_offset: contract.maker.offset_from(dealer),
                trump: contract.trump,
                alone: contract.alone,
            }),
        })
    }

    /// The view's encoding after renaming suits by `perm`.
    #[inline]
    pub fn encode(&self, perm: &SuitPerm) -> u128 {
        ViewFields::of_parts(self).encode(perm) | (self.decision as u128) << KIND_SHIFT
    }

    /// The canonical key and the renaming that produces it. When several
    /// renamings tie, the view is symmetric under their difference, so any
    /// of them maps actions consistently; the first in the group's fixed
    /// order is taken.
    pub fn canonical(&self) -> (InfoKey, SuitPerm) {
        let (code, perm) = least_encoding(|perm| self.encode(perm));
        (InfoKey(code), perm)
    }

    /// The view a key encodes (in the key's own, canonical suits); `None`
    /// for a key that is not a bidding key.
    pub fn decode(key: InfoKey) -> Option<BiddingKeyParts> {
        let decision = key.decision_kind()?;
        let fields = ViewFields::decode(key.0)?;
        Some(BiddingKeyParts {
            decision,
            actor_offset: fields.actor_offset,
            hand: fields.hand,
            upcard: fields.upcard,
            own_discard: fields.own_discard,
            contract: fields.contract,
        })
    }

    /// Whether this view is the representative of its symmetry class, i.e.
    /// no renaming encodes smaller.
    pub fn is_canonical(&self) -> bool {
        is_least(|perm| self.encode(perm))
    }
}

/// What a seat knows before the first card, without the kind of
/// decision: the fields a bidding key and the opening lead's key
/// ([`super::lead`]) share, in the same bits, so that both are canonical
/// under the same renamings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ViewFields {
    pub(super) actor_offset: u8,
    pub(super) hand: CardSet,
    pub(super) upcard: Card,
    pub(super) own_discard: Option<Card>,
    pub(super) contract: Option<PublicContract>,
}

impl ViewFields {
    fn of_parts(parts: &BiddingKeyParts) -> ViewFields {
        ViewFields {
            actor_offset: parts.actor_offset,
            hand: parts.hand,
            upcard: parts.upcard,
            own_discard: parts.own_discard,
            contract: parts.contract,
        }
    }

    /// The fields' bits after renaming suits by `perm`; the top byte (the
    /// kind) and the bits of [`in_context`] and [`searched`] left clear.
    #[inline]
    pub(super) fn encode(&self, perm: &SuitPerm) -> u128 {
        let discard = self
            .own_discard
            .map_or(0, |card| perm.card(card).index() as u128 + 1);
        let (trump, maker, alone) = self.contract.map_or((0, 0, 0), |contract| {
            (
                perm.suit(contract.trump) as u128 + 1,
                u128::from(contract.maker_offset),
                u128::from(contract.alone),
            )
        });
        u128::from(perm.cards(self.hand).bits()) << HAND_SHIFT
            | discard << DISCARD_SHIFT
            | trump << TRUMP_SHIFT
            | (perm.card(self.upcard).index() as u128) << UPCARD_SHIFT
            | u128::from(self.actor_offset) << ACTOR_SHIFT
            | maker << MAKER_SHIFT
            | alone << ALONE_SHIFT
    }

    /// The fields `code` holds; `None` if a card's bits name no card.
    pub(super) fn decode(code: u128) -> Option<ViewFields> {
        let field = |shift: u32, bits: u32| ((code >> shift) & ((1 << bits) - 1)) as u8;
        let card = |index: u8| Card::from_index(index);
        let own_discard = match field(DISCARD_SHIFT, 5) {
            0 => None,
            index => Some(card(index - 1)?),
        };
        let contract = match field(TRUMP_SHIFT, 3) {
            0 => None,
            suit => Some(PublicContract {
                maker_offset: field(MAKER_SHIFT, 2),
                trump: Suit::from_index(suit - 1),
                alone: field(ALONE_SHIFT, 1) == 1,
            }),
        };
        Some(ViewFields {
            actor_offset: field(ACTOR_SHIFT, 2),
            hand: CardSet::from_bits((code >> HAND_SHIFT) as u32 & 0xFF_FFFF),
            upcard: card(field(UPCARD_SHIFT, 5))?,
            own_discard,
            contract,
        })
    }
}

/// `key`, a bidding key, as a score-aware policy keys it in `context`:
/// the context's tag in bits the view never uses, so that the same view
/// has one key a context, and [`ScoreContext::OPEN`] (tag 0) leaves the
/// key as it was. A card-play key is returned unchanged.
pub fn in_context(key: InfoKey, context: ScoreContext) -> InfoKey {
    if key.decision_kind().is_none() {
        return key;
    }
    let cleared = key.0 & !(0xF << CONTEXT_SHIFT);
    InfoKey(cleared | u128::from(context.tag()) << CONTEXT_SHIFT)
}

/// The score context a bidding key carries ([`ScoreContext::OPEN`] for a
/// plain key); `None` for a card-play key or an unknown tag.
pub fn context_of(key: InfoKey) -> Option<ScoreContext> {
    key.decision_kind()?;
    ScoreContext::from_tag(((key.0 >> CONTEXT_SHIFT) & 0xF) as u8)
}

/// `key`, a bidding key, as a policy file keys the bid a search decided
/// there, beside the blueprint's row at `key` itself: a bit the view never
/// uses. A card-play key is returned unchanged.
pub fn searched(key: InfoKey) -> InfoKey {
    if key.decision_kind().is_none() {
        return key;
    }
    InfoKey(key.0 | 1 << SEARCHED_SHIFT)
}

/// Whether `key` holds a searched bid ([`searched`]).
pub fn is_searched(key: InfoKey) -> bool {
    key.decision_kind().is_some() && key.0 >> SEARCHED_SHIFT & 1 == 1
}

/// The bidding decision at `state`, or `None` once play has begun.
pub fn bidding_decision(state: &GameState) -> Option<Decision> {
    let view = BiddingKeyParts::of_state(state)?;
    let (key, perm) = view.canonical();
    Some(Decision {
        key,
        actions: canonical_order(state.legal_actions(), &perm),
    })
}
