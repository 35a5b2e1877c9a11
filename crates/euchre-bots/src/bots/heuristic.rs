//! The rules a club player follows. Each rule is one line of the table
//! below, so its effect can be read and argued with.
//!
//! | when | rule |
//! |---|---|
//! | round 1 | order if the hand's strength in the upcard's suit, counting the upcard for the dealer's side, is at least [`CALL`] |
//! | round 2 | name the strongest other suit if it reaches [`CALL`]; a stuck dealer names it anyway |
//! | either round | go alone with the right bower, four trumps and strength [`ALONE`] |
//! | dealer's discard | keep trump; discard a singleton non-ace to make a void, else the lowest non-ace, else the lowest card |
//! | defending alone | never |
//! | leading, our side made it | lead the right bower, then the best trump while holding two or more |
//! | leading | cash an off-suit ace; else lead the lowest off-suit card (trump only if nothing else) |
//! | following, partner winning | play the lowest legal card: never overtake or trump partner's winner |
//! | following, opponent winning | win as cheaply as possible; if no card wins, throw the lowest |
//!
//! Strength: right bower 3, left bower 2.5, trump ace 2, king 1.5, queen
//! 1.2, ten and nine 1; each off-suit ace 1; each void 0.5 with two or more
//! trumps.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet, Rank, Suit};
use euchre_game::engine::state::Stage;
use euchre_game::engine::trump::{effective_suit, trick_strength, trump_order};
use rand::rngs::SmallRng;

use crate::meta::CardPlay;

use crate::bot::Bot;
use crate::seen::Seen;

/// Strength at which a hand makes trump.
pub const CALL: f32 = 6.0;
/// Strength at which a hand with the right bower and four trumps goes alone.
pub const ALONE: f32 = 10.0;

#[derive(Debug)]
pub struct Heuristic;

impl Bot for Heuristic {
    fn name(&self) -> String {
        "heuristic".to_owned()
    }

    fn card_play(&self) -> Option<CardPlay> {
        Some(CardPlay::Heuristic)
    }

    fn act(&self, seen: &Seen<'_>, _rng: &mut SmallRng) -> Action {
        choose(seen)
    }
}

/// The heuristic's action at any decision: deterministic, and a function
/// of what the seat sees now (it reads no history), so training can ask
/// for it at a bare game state to warm-start a fresh infostate.
pub fn choose(seen: &Seen<'_>) -> Action {
    let legal = seen.legal();
    let chosen = match seen.stage() {
        Stage::BiddingRound1 => round1(seen),
        Stage::BiddingRound2 => round2(seen),
        Stage::DealerDiscard => {
            let trump = seen.upcard().suit();
            Action::Discard(discard(seen.hand(), trump))
        }
        Stage::DefendAlone => Action::Pass,
        Stage::Play | Stage::Finished => Action::Play(play(seen)),
    };
    if legal.contains(chosen) {
        chosen
    } else {
        legal[0]
    }
}

/// How good `hand` is with `trump` as trump.
pub fn strength(hand: CardSet, trump: Suit) -> f32 {
    let mut total = 0.0;
    let mut trumps = 0;
    let mut suits_held = [false; 4];
    for card in hand.iter() {
        let suit = effective_suit(card, trump);
        suits_held[suit.index()] = true;
        if suit == trump {
            trumps += 1;
            total += match trump_order(card, trump) {
                6 => 3.0,
                5 => 2.5,
                4 => 2.0,
                3 => 1.5,
                2 => 1.2,
                _ => 1.0,
            };
        } else if card.rank() == Rank::Ace {
            total += 1.0;
        }
    }
    if trumps >= 2 {
        let voids = Suit::ALL
            .iter()
            .filter(|&&suit| suit != trump && !suits_held[suit.index()])
            .count();
        total += 0.5 * voids as f32;
    }
    total
}

fn goes_alone(hand: CardSet, trump: Suit) -> bool {
    let trumps = hand
        .iter()
        .filter(|&card| effective_suit(card, trump) == trump)
        .count();
    hand.contains(Card::new(trump, Rank::Jack)) && trumps >= 4 && strength(hand, trump) >= ALONE
}

fn round1(seen: &Seen<'_>) -> Action {
    let trump = seen.upcard().suit();
    let actor = seen.actor();
    let hand = seen.hand();
    let dealer = seen.dealer();
    let (hand_if_made, upcard_bonus) = if dealer == actor {
        let with_upcard = hand.with(seen.upcard());
        (with_upcard.without(discard(with_upcard, trump)), 0.0)
    } else {
        let value = strength(CardSet::single(seen.upcard()), trump) * 0.5;
        let sign = if dealer.team() == actor.team() {
            1.0
        } else {
            -1.0
        };
        (hand, sign * value)
    };
    let score = strength(hand_if_made, trump) + upcard_bonus;
    if score < CALL {
        return Action::Pass;
    }
    let order = Action::Order {
        alone: goes_alone(hand_if_made, trump),
    };
    // Under Canadian loners the dealer's partner may order only alone: a
    // hand short of a loner passes, as a club player's would.
    if seen.legal().contains(order) {
        order
    } else {
        Action::Pass
    }
}

fn round2(seen: &Seen<'_>) -> Action {
    let hand = seen.hand();
    let best = Suit::ALL
        .into_iter()
        .filter(|&suit| suit != seen.upcard().suit())
        .max_by(|&a, &b| strength(hand, a).total_cmp(&strength(hand, b)))
        .unwrap_or(Suit::Clubs);
    let stuck = seen.rules().stick_the_dealer && seen.actor() == seen.dealer();
    if strength(hand, best) < CALL && !stuck {
        return Action::Pass;
    }
    Action::Call {
        suit: best,
        alone: goes_alone(hand, best),
    }
}

/// The dealer's discard from six cards.
pub fn discard(hand: CardSet, trump: Suit) -> Card {
    let off: Vec<Card> = hand
        .iter()
        .filter(|&card| effective_suit(card, trump) != trump)
        .collect();
    let count_in = |suit: Suit| {
        off.iter()
            .filter(|&&card| effective_suit(card, trump) == suit)
            .count()
    };
    let singleton = lowest(
        off.iter()
            .copied()
            .filter(|&card| card.rank() != Rank::Ace && count_in(effective_suit(card, trump)) == 1),
        trump,
    );
    let low_non_ace = lowest(
        off.iter().copied().filter(|&card| card.rank() != Rank::Ace),
        trump,
    );
    // With no off-suit card left, `lowest` over the whole hand is the
    // lowest trump.
    singleton
        .or(low_non_ace)
        .or_else(|| lowest(hand.iter(), trump))
        .unwrap_or(Card::new(trump, Rank::Nine))
}

/// The cheapest card to give up: non-trump before trump, low before high.
fn lowest(cards: impl Iterator<Item = Card>, trump: Suit) -> Option<Card> {
    cards.min_by_key(|&card| {
        if effective_suit(card, trump) == trump {
            (1, trump_order(card, trump))
        } else {
            (0, card.rank() as u8)
        }
    })
}

/// The heuristic's card: deterministic, from what the seat sees of the
/// trick, its hand and the contract (training's heuristic-play leaves rely
/// on that).
pub fn play(seen: &Seen<'_>) -> Card {
    let Some(contract) = seen.contract() else {
        return seen.hand().iter().next().unwrap_or(Card::ALL[0]);
    };
    let trump = contract.trump;
    let actor = seen.actor();
    let playable: CardSet = seen
        .legal()
        .iter()
        .filter_map(|action| match action {
            Action::Play(card) => Some(*card),
            _ => None,
        })
        .collect();
    let trick = seen.trick();
    let fallback = lowest(playable.iter(), trump).unwrap_or(Card::ALL[0]);
    if trick.played_mask == 0 {
        let our_contract = contract.maker.team() == actor.team();
        let trumps: Vec<Card> = playable
            .iter()
            .filter(|&card| effective_suit(card, trump) == trump)
            .collect();
        let best_trump = trumps
            .iter()
            .copied()
            .max_by_key(|&card| trump_order(card, trump));
        let right = Card::new(trump, Rank::Jack);
        if our_contract && playable.contains(right) {
            return right;
        }
        if our_contract && trumps.len() >= 2 {
            return best_trump.unwrap_or(fallback);
        }
        if let Some(ace) = playable
            .iter()
            .find(|&card| card.rank() == Rank::Ace && effective_suit(card, trump) != trump)
        {
            return ace;
        }
        return fallback;
    }
    let Some(winner) = trick.winner(trump) else {
        return fallback;
    };
    if winner == actor.partner() {
        return fallback;
    }
    let to_beat = trick_strength(trick.cards[winner.index()], trump, trick.led);
    playable
        .iter()
        .filter(|&card| trick_strength(card, trump, trick.led) > to_beat)
        .min_by_key(|&card| trick_strength(card, trump, trick.led))
        .unwrap_or(fallback)
}
