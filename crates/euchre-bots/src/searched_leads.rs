//! Opening leads a search decides once per key, to be played with one
//! lookup.
//!
//! Against the strongest bot's card play, an export's own play loses most
//! where the two first part: the opening lead
//! (`docs/experiments/searched-bids-export.md`). The lead depends only on
//! the leader's view once the auction has ended (its hand, the upcard,
//! the contract: [`euchre_game::keys::lead`]), so a search's lead can be
//! decided once per key and kept in the policy file, as the searched bids
//! are ([`crate::policy_file::PolicyFile::write_with_searched_leads`]).
//!
//! There are about 3.3 M such keys, too many to search every one on a
//! laptop, and their weight is very uneven: a lone call or a rare auction
//! is dealt seldom. [`keys_by_mass`] deals hands, lets a bidder finish
//! each auction, and counts the leads met, so that a search can decide the
//! most common first and stop where its time runs out.

use std::collections::HashMap;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::keys::InfoKey;
use euchre_game::keys::lead::{LeadView, lead_decision};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;
use store::Key;

use crate::bot::Bot;
use crate::seen::Seen;

/// The opening lead a key stands for, as a hand at that moment in the
/// key's own suits, North dealing, with the history that led there: every
/// seat before the maker passed, the maker bid, the lone defender (if
/// any) defended alone, and a dealer who picked up discarded. The cards
/// the leader cannot see are dealt in a fixed order; a searching bot
/// resamples them from what the history reveals. `None` for any key that
/// is not an opening lead's, or whose view no hand under `rules` reaches.
pub fn lead_state(key: Key, rules: Rules) -> Option<(GameState, Vec<(Seat, Action)>)> {
    let view = LeadView::decode(InfoKey(key))?;
    let dealer = Seat::North;
    let at = |offset: u8| Seat::from_index((dealer.index() as u8 + offset) % 4);
    let (leader, maker) = (at(view.leader_offset), at(view.contract.maker_offset));
    let first_round = view.contract.trump == view.upcard.suit();
    // A dealer who leads after picking up was dealt its hand less the
    // upcard, plus the card it discarded.
    let dealt = match view.own_discard {
        Some(discard) => view.hand.with(discard).without(view.upcard),
        None => view.hand,
    };
    let mut rest = CardSet::FULL_DECK.without(view.upcard).minus(dealt).iter();
    let mut hands = [CardSet::EMPTY; 4];
    for seat in Seat::ALL {
        hands[seat.index()] = if seat == leader {
            dealt
        } else {
            rest.by_ref().take(5).collect()
        };
    }
    let mut state = GameState::new(Deal::new(dealer, hands, view.upcard).ok()?, rules);
    let mut history = Vec::new();
    while state.stage() != Stage::Play {
        let actor = state.to_act()?;
        let action = match state.stage() {
            Stage::BiddingRound1 if first_round && actor == maker => Action::Order {
                alone: view.contract.alone,
            },
            Stage::BiddingRound2 if !first_round && actor == maker => Action::Call {
                suit: view.contract.trump,
                alone: view.contract.alone,
            },
            Stage::BiddingRound1 | Stage::BiddingRound2 => Action::Pass,
            Stage::DefendAlone if view.lone_defender_offset == Some(actor.offset_from(dealer)) => {
                Action::DefendAlone
            }
            Stage::DefendAlone => Action::Pass,
            Stage::DealerDiscard => Action::Discard(
                view.own_discard
                    .filter(|_| actor == leader)
                    .or_else(|| hidden_discard(state.hand(actor), view.upcard))?,
            ),
            Stage::Play | Stage::Finished => return None,
        };
        if !state.legal_actions().contains(action) {
            return None;
        }
        history.push((actor, action));
        state.apply(action);
    }
    let rebuilt = lead_decision(&state)?;
    (state.to_act() == Some(leader) && rebuilt.key.0 == key).then_some((state, history))
}

/// A discard the leader does not see: any card but the upcard.
fn hidden_discard(hand: CardSet, upcard: Card) -> Option<Card> {
    hand.iter().find(|&card| card != upcard)
}

/// `bot`'s opening lead at `key`, as the index of the card among the
/// key's cards in canonical order (as [`lead_decision`] lists them);
/// `seed` seeds its worlds, so a key is decided the same way every time.
/// `None` for a key [`lead_state`] does not rebuild.
pub fn decide(bot: &dyn Bot, rules: Rules, key: Key, seed: u64) -> Option<usize> {
    let (state, history) = lead_state(key, rules)?;
    let decision = lead_decision(&state)?;
    let mut rng = SmallRng::seed_from_u64(seed ^ (key as u64) ^ ((key >> 64) as u64));
    let card = bot.act(&Seen::new(&state, &history), &mut rng);
    decision.actions.iter().position(|&action| action == card)
}

/// The opening leads met in `deals` hands dealt from `seed` (the dealer
/// going round), each auction finished by `bidder` at every seat, with how
/// many times each was met: most common first, ties in key order. Hands
/// passed out have no lead. The same arguments give the same list on any
/// number of threads.
pub fn keys_by_mass(bidder: &dyn Bot, rules: Rules, deals: u64, seed: u64) -> Vec<(Key, u64)> {
    /// Hands dealt by one task: enough to amortise its map.
    const BATCH: u64 = 16_384;
    let counts = (0..deals.div_ceil(BATCH))
        .into_par_iter()
        .map(|batch| {
            let mut counts: HashMap<Key, u64> = HashMap::new();
            for deal in batch * BATCH..((batch + 1) * BATCH).min(deals) {
                if let Some(key) = lead_of_auction(bidder, rules, seed, deal) {
                    *counts.entry(key).or_default() += 1;
                }
            }
            counts
        })
        .reduce(HashMap::new, |mut all, part| {
            for (key, count) in part {
                *all.entry(key).or_default() += count;
            }
            all
        });
    let mut keys: Vec<(Key, u64)> = counts.into_iter().collect();
    keys.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    keys
}

/// The opening lead's key of hand `deal` of the stream `seed`, once
/// `bidder` has finished its auction; `None` if it was passed out.
fn lead_of_auction(bidder: &dyn Bot, rules: Rules, seed: u64, deal: u64) -> Option<Key> {
    let mut rng = SmallRng::seed_from_u64(seed ^ deal.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let dealer = Seat::from_index((deal % 4) as u8);
    let mut state = GameState::new(Deal::random(dealer, &mut rng), rules);
    let mut history = Vec::new();
    while !matches!(state.stage(), Stage::Play | Stage::Finished) {
        let actor = state.to_act()?;
        let action = bidder.act(&Seen::new(&state, &history), &mut rng);
        history.push((actor, action));
        state.apply(action);
    }
    lead_decision(&state).map(|decision| decision.key.0)
}

#[cfg(test)]
mod tests;
