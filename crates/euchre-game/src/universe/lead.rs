//! Streams every opening lead's key ([`crate::keys::lead`]) exactly once,
//! as the bidding universe does: each raw view is yielded only if it is
//! its symmetry class's representative. A search that decides the lead
//! once per key walks this stream.

use crate::engine::card::{Card, CardSet, Rank, Suit, subsets};
use crate::engine::rules::{LonerLead, Rules};
use crate::keys::InfoKey;
use crate::keys::bidding::PublicContract;
use crate::keys::lead::LeadView;
use crate::keys::symmetry::SuitPerm;

/// How an auction ended, with seats counted from the dealer; the upcard
/// fixes trump in round 1, `named_suit` picks one of the three others in
/// round 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Auction {
    maker_offset: u8,
    alone: bool,
    named_suit: Option<u8>,
    lone_defender_offset: Option<u8>,
}

impl Auction {
    fn sits_out(&self, offset: u8) -> bool {
        (self.alone && offset == (self.maker_offset + 2) % 4)
            || self
                .lone_defender_offset
                .is_some_and(|defender| offset == (defender + 2) % 4)
    }

    /// Who plays the first card, as the engine seats it.
    fn leader_offset(&self, rules: &Rules) -> u8 {
        let mut seat = if self.alone && rules.loner_lead == LonerLead::LeftOfLoner {
            (self.maker_offset + 1) % 4
        } else {
            1
        };
        while self.sits_out(seat) {
            seat = (seat + 1) % 4;
        }
        seat
    }

    fn trump(&self, upcard: Card) -> Suit {
        self.named_suit.map_or(upcard.suit(), |k| {
            Suit::ALL
                .into_iter()
                .filter(|&suit| suit != upcard.suit())
                .nth(usize::from(k))
                .unwrap_or(upcard.suit())
        })
    }

    /// Whether the dealer took the upcard into its hand: in round 1,
    /// unless its partner went alone and left it out.
    fn dealer_picked_up(&self) -> bool {
        self.named_suit.is_none() && !(self.alone && self.maker_offset == 2)
    }
}

/// Every way an auction can end under `rules`, in a fixed order.
fn auctions(rules: &Rules) -> Vec<Auction> {
    let mut auctions = Vec::new();
    for named_suit in [None, Some(0), Some(1), Some(2)] {
        for maker_offset in 0..4u8 {
            for alone in [false, true] {
                let defenders: Vec<Option<u8>> = if alone && rules.lone_defender {
                    vec![
                        None,
                        Some((maker_offset + 1) % 4),
                        Some((maker_offset + 3) % 4),
                    ]
                } else {
                    vec![None]
                };
                auctions.extend(defenders.into_iter().map(|lone_defender_offset| Auction {
                    maker_offset,
                    alone,
                    named_suit,
                    lone_defender_offset,
                }));
            }
        }
    }
    auctions
}

/// Every raw view of the leader after `auction` with `upcard` turned,
/// canonical or not.
fn raw_views(auction: Auction, upcard: Card, rules: Rules) -> impl Iterator<Item = LeadView> {
    let leader_offset = auction.leader_offset(&rules);
    let base = LeadView {
        leader_offset,
        hand: CardSet::EMPTY,
        upcard,
        own_discard: None,
        contract: PublicContract {
            maker_offset: auction.maker_offset,
            trump: auction.trump(upcard),
            alone: auction.alone,
        },
        lone_defender_offset: auction.lone_defender_offset,
    };
    // A dealer who leads after picking the upcard up holds it or has
    // discarded it, and knows which card went.
    let discarded = leader_offset == 0 && auction.dealer_picked_up();
    subsets(CardSet::FULL_DECK.without(upcard), 5).flat_map(move |dealt| {
        let picked_up = dealt.with(upcard);
        let discards = if !discarded {
            CardSet::EMPTY
        } else if rules.dealer_may_discard_upcard {
            picked_up
        } else {
            dealt
        };
        (!discarded)
            .then_some(LeadView {
                hand: dealt,
                ..base
            })
            .into_iter()
            .chain(discards.iter().map(move |discard| LeadView {
                hand: picked_up.without(discard),
                own_discard: Some(discard),
                ..base
            }))
    })
}

/// Every reachable opening lead's key under `rules`, each exactly once.
/// Only upcards of clubs are walked: as for bidding keys, the least
/// encoding of a view names the upcard's suit clubs.
pub fn lead_keys(rules: Rules) -> impl Iterator<Item = (LeadView, InfoKey)> {
    let upcards = Rank::ALL.map(|rank| Card::new(Suit::Clubs, rank));
    auctions(&rules).into_iter().flat_map(move |auction| {
        upcards.into_iter().flat_map(move |upcard| {
            raw_views(auction, upcard, rules)
                .filter(LeadView::is_canonical)
                .map(|view| (view, InfoKey(view.encode(&SuitPerm::IDENTITY))))
        })
    })
}

/// Opening leads' keys by the round trump was made in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeadCounts {
    pub round_1: u64,
    pub round_2: u64,
}

/// Counts the opening leads' universe by streaming it.
pub fn count_lead_keys(rules: Rules) -> LeadCounts {
    let mut counts = LeadCounts::default();
    for (view, _) in lead_keys(rules) {
        if view.contract.trump == view.upcard.suit() {
            counts.round_1 += 1;
        } else {
            counts.round_2 += 1;
        }
    }
    counts
}
