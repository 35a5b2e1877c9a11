//! Streams every reachable bidding infostate key exactly once, without a
//! set: each raw view is yielded only if it is its symmetry class's
//! representative. A perfect hash is built from this stream, so it must
//! never repeat a key nor miss one.

use crate::engine::card::{Card, CardSet, Rank, Suit, subsets};
use crate::engine::rules::Rules;
use crate::keys::InfoKey;
use crate::keys::bidding::{BiddingDecision, BiddingKeyParts, PublicContract};

/// One decision context: everything in a view except the cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Context {
    decision: BiddingDecision,
    actor_offset: u8,
    maker_offset: u8,
    alone: bool,
    /// For contracts: `None` for round 1 (trump is the upcard's suit),
    /// `Some(k)` for the k-th of the three other suits in round 2.
    named_suit: Option<u8>,
}

/// Every bidding decision context the rules allow, in a fixed order.
fn contexts(rules: &Rules) -> Vec<Context> {
    let mut contexts = Vec::new();
    let bid = |decision, actor_offset| Context {
        decision,
        actor_offset,
        maker_offset: 0,
        alone: false,
        named_suit: None,
    };
    contexts.extend((0..4).map(|actor| bid(BiddingDecision::Round1, actor)));
    for maker_offset in 0..4 {
        for alone in [false, true] {
            // A lone maker opposite the dealer leaves the dealer out: no pickup.
            if !(alone && maker_offset == 2) {
                contexts.push(Context {
                    decision: BiddingDecision::DealerDiscard,
                    actor_offset: 0,
                    maker_offset,
                    alone,
                    named_suit: None,
                });
            }
        }
    }
    contexts.extend((0..4).map(|actor| bid(BiddingDecision::Round2, actor)));
    if rules.lone_defender {
        for maker_offset in 0..4u8 {
            for defender_offset in [(maker_offset + 1) % 4, (maker_offset + 3) % 4] {
                for named_suit in [None, Some(0), Some(1), Some(2)] {
                    contexts.push(Context {
                        decision: BiddingDecision::DefendAlone,
                        actor_offset: defender_offset,
                        maker_offset,
                        alone: true,
                        named_suit,
                    });
                }
            }
        }
    }
    contexts
}

/// The three suits other than `upcard_suit`, in ascending order.
fn other_suit(upcard_suit: Suit, k: u8) -> Suit {
    Suit::ALL
        .into_iter()
        .filter(|&suit| suit != upcard_suit)
        .nth(k as usize)
        .unwrap_or(upcard_suit)
}

/// Every raw view of one context with one upcard, canonical or not.
fn raw_views(
    context: Context,
    upcard: Card,
    rules: Rules,
) -> impl Iterator<Item = BiddingKeyParts> {
    let rest = CardSet::FULL_DECK.without(upcard);
    let contract = match context.decision {
        BiddingDecision::Round1 | BiddingDecision::Round2 => None,
        BiddingDecision::DealerDiscard | BiddingDecision::DefendAlone => Some(PublicContract {
            maker_offset: context.maker_offset,
            trump: context
                .named_suit
                .map_or(upcard.suit(), |k| other_suit(upcard.suit(), k)),
            alone: context.alone,
        }),
    };
    let base = BiddingKeyParts {
        decision: context.decision,
        actor_offset: context.actor_offset,
        hand: CardSet::EMPTY,
        upcard,
        own_discard: None,
        contract,
    };
    // The dealer holds the upcard when discarding, and when defending alone
    // against a round-1 order (it was picked up and one card discarded).
    let dealer_picked_up = context.actor_offset == 0 && context.named_suit.is_none();
    let discards_before = context.decision == BiddingDecision::DefendAlone && dealer_picked_up;
    let holds_upcard = context.decision == BiddingDecision::DealerDiscard;
    subsets(rest, 5).flat_map(move |dealt| {
        let picked_up = dealt.with(upcard);
        let discards: CardSet = if discards_before {
            if rules.dealer_may_discard_upcard {
                picked_up
            } else {
                dealt
            }
        } else {
            CardSet::EMPTY
        };
        let plain = (!discards_before).then_some(BiddingKeyParts {
            hand: if holds_upcard { picked_up } else { dealt },
            ..base
        });
        plain
            .into_iter()
            .chain(discards.iter().map(move |discard| BiddingKeyParts {
                hand: picked_up.without(discard),
                own_discard: Some(discard),
                ..base
            }))
    })
}

/// Every reachable bidding infostate key under `rules`, each exactly once.
///
/// Only upcards of clubs are walked: the key layout makes the least
/// encoding of any view name the upcard's suit clubs, so views with another
/// upcard suit are never representatives.
pub fn bidding_keys(rules: Rules) -> impl Iterator<Item = (BiddingKeyParts, InfoKey)> {
    let upcards = Rank::ALL.map(|rank| Card::new(Suit::Clubs, rank));
    contexts(&rules).into_iter().flat_map(move |context| {
        upcards.into_iter().flat_map(move |upcard| {
            raw_views(context, upcard, rules)
                .filter(BiddingKeyParts::is_canonical)
                .map(|view| {
                    (
                        view,
                        InfoKey(view.encode(&crate::keys::symmetry::SuitPerm::IDENTITY)),
                    )
                })
        })
    })
}

/// Every raw bidding view under `rules`, with all 24 upcards: the brute-force
/// universe that tests canonicalise and de-duplicate independently.
pub fn raw_bidding_views(rules: Rules) -> impl Iterator<Item = BiddingKeyParts> {
    contexts(&rules).into_iter().flat_map(move |context| {
        Card::all().flat_map(move |upcard| raw_views(context, upcard, rules))
    })
}

/// Key counts per decision kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BiddingCounts {
    pub per_decision: [u64; 4],
}

impl BiddingCounts {
    pub fn total(&self) -> u64 {
        self.per_decision.iter().sum()
    }

    pub fn of(&self, decision: BiddingDecision) -> u64 {
        self.per_decision[decision as usize - 1]
    }
}

/// Counts the bidding universe by streaming it.
pub fn count_bidding_keys(rules: Rules) -> BiddingCounts {
    let mut counts = BiddingCounts::default();
    for (view, _) in bidding_keys(rules) {
        counts.per_decision[view.decision as usize - 1] += 1;
    }
    counts
}
