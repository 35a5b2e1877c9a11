//! A recorded deal into full deals the engine replays.
//!
//! Who played each card follows from the rules: the first lead from the
//! contract and the loner-lead rule, each later one from the winner of the
//! trick before. A seat's dealt hand is then the five cards it played (the
//! dealer's with the upcard taken out and the discard put back). The cards
//! nobody saw (the hand of a player who sat out, the kitty and an unrecorded
//! discard) are dealt from the unseen cards in a fixed order: no decision of
//! a player who could not see them depends on them. The dealer saw the
//! discard, so when the record leaves it out every unseen card is a
//! candidate and each gives a [`Variant`]; analysis weighs them alike.
//!
//! Each variant is then replayed by the engine, so a renege (a seat that did
//! not follow suit while holding a card of the suit led, which it played
//! later) is found by the same rules that play every other game here.

use crate::egn::{DealProblem, RecordedDeal};
use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet};
use crate::engine::rules::{LonerLead, Rules};
use crate::engine::seat::Seat;
use crate::engine::state::{Contract, Deal, GameState};
use crate::engine::trump::{effective_suit, trick_strength};

/// One full deal consistent with the record, and its actions in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variant {
    pub deal: Deal,
    pub actions: Vec<(Seat, Action)>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reconstruction {
    /// At least one; more only when the dealer's discard is unknown, one per
    /// candidate, identical but for that card and its discard action.
    pub variants: Vec<Variant>,
    /// Whether the record shows the seat's dealt hand (a seat that sat out
    /// never shows it).
    pub known: [bool; 4],
    /// The position of the dealer's discard in each variant's actions, when
    /// the record leaves the card out.
    pub unknown_discard_at: Option<usize>,
    /// The end of the hand as replayed (by the first variant).
    pub end: GameState,
}

/// Replays `record` under `rules`.
pub fn reconstruct(record: &RecordedDeal, rules: Rules) -> Result<Reconstruction, DealProblem> {
    let inconsistent = |field: &str, why: String| DealProblem::Inconsistent {
        field: field.to_owned(),
        why,
    };
    let mut bids: Vec<(Seat, Action)> = Vec::new();
    let mut contract = None;
    for (index, &action) in record.calls.iter().enumerate() {
        let seat = Seat::from_index(record.dealer.index() as u8 + 1 + index as u8);
        bids.push((seat, action));
        contract = match action {
            Action::Order { alone } => Some(Contract {
                maker: seat,
                trump: record.upcard.suit(),
                alone,
                round: 1,
            }),
            Action::Call { suit, alone } => Some(Contract {
                maker: seat,
                trump: suit,
                alone,
                round: 2,
            }),
            _ => contract,
        };
    }
    let Some(contract) = contract else {
        return passed_out(record, rules, bids);
    };
    let lone_defender = match record.lone_defender {
        None => None,
        Some(seat)
            if contract.alone && rules.lone_defender && seat.team() != contract.maker.team() =>
        {
            Some(seat)
        }
        Some(seat) => {
            return Err(inconsistent(
                "aloneDefender",
                format!(
                    "{seat} cannot defend alone here (that needs a lone maker on the other side and the ruleset's defend_alone)"
                ),
            ));
        }
    };
    let sits_out = |seat: Seat| {
        (contract.alone && seat == contract.maker.partner())
            || lone_defender.is_some_and(|defender| seat == defender.partner())
    };
    let dealer = record.dealer;
    // The dealer picks up unless it is a lone maker's partner; a dealer
    // whose partner then defends alone picks up, discards and sits out.
    let picks_up = contract.round == 1 && !(contract.alone && dealer == contract.maker.partner());

    // Who played each card, trick by trick.
    let players = Seat::ALL.iter().filter(|&&seat| !sits_out(seat)).count();
    if record.tricks.len() < 5 {
        return Err(DealProblem::Incomplete {
            tricks: record.tricks.len(),
        });
    }
    if record.tricks.len() > 5 {
        return Err(inconsistent(
            "tricks",
            format!("{} tricks; a hand has five", record.tricks.len()),
        ));
    }
    let first_from = if contract.alone && rules.loner_lead == LonerLead::LeftOfLoner {
        contract.maker.left()
    } else {
        dealer.left()
    };
    let mut leader = next_active(first_from, sits_out);
    let mut played = [CardSet::EMPTY; 4];
    let mut where_played: Vec<(Card, usize)> = Vec::new();
    let mut plays = Vec::with_capacity(20);
    for (index, trick) in record.tricks.iter().enumerate() {
        if trick.len() != players {
            return Err(DealProblem::TrickSize {
                trick: index + 1,
                found: trick.len(),
                players,
            });
        }
        let led = effective_suit(trick[0], contract.trump);
        let mut seat = leader;
        let mut best = (0, leader);
        for &card in trick {
            if let Some(&(_, first)) = where_played.iter().find(|(c, _)| *c == card) {
                return Err(DealProblem::DuplicateCard {
                    card,
                    first: format!("trick {first}"),
                    second: format!("trick {}", index + 1),
                });
            }
            where_played.push((card, index + 1));
            played[seat.index()] = played[seat.index()].with(card);
            plays.push((seat, Action::Play(card)));
            let strength = trick_strength(card, contract.trump, led);
            if strength > best.0 {
                best = (strength, seat);
            }
            seat = next_active(seat.left(), sits_out);
        }
        leader = best.1;
    }

    // The upcard can only have been played by a dealer who picked it up.
    for seat in Seat::ALL {
        if played[seat.index()].contains(record.upcard) && !(picks_up && seat == dealer) {
            return Err(inconsistent(
                "tricks",
                format!(
                    "{seat} played the upcard {}, which {}",
                    record.upcard,
                    if picks_up {
                        "the dealer picked up"
                    } else {
                        "stayed in the kitty"
                    }
                ),
            ));
        }
    }

    // The dealt hands: recorded, or read from the plays. `discard` is None
    // while unknown, Some(None) when the dealer picked nothing up.
    let mut hands = [CardSet::EMPTY; 4];
    let mut known = [false; 4];
    let mut discard = Some(None);
    for seat in Seat::ALL {
        let index = seat.index();
        let dealer_picks_up = picks_up && seat == dealer;
        if dealer_picks_up && sits_out(seat) {
            // It discarded before sitting out: any card it held will do
            // where the record does not say, as nobody saw it.
            let recorded = record.discard.unwrap_or(record.upcard);
            if let Some(hand) = record.hands[index] {
                hands[index] = hand;
                known[index] = true;
                let first = hand.iter().next().unwrap_or(record.upcard);
                discard = Some(Some(record.discard.unwrap_or(first)));
                if !hand.with(record.upcard).contains(recorded) {
                    return Err(inconsistent(
                        "discard",
                        format!("{recorded} is not among the dealer's cards"),
                    ));
                }
            } else {
                if recorded != record.upcard {
                    hands[index] = CardSet::single(recorded);
                }
                discard = Some(Some(recorded));
            }
            continue;
        }
        match record.hands[index] {
            Some(hand) => {
                let held = if dealer_picks_up {
                    hand.with(record.upcard)
                } else {
                    hand
                };
                if !played[index].minus(held).is_empty() {
                    return Err(inconsistent(
                        &format!("initialState.playerCards[{index}]"),
                        format!(
                            "{seat} played {} but was dealt {hand}",
                            played[index].minus(held)
                        ),
                    ));
                }
                if dealer_picks_up {
                    let extra = held.minus(played[index]);
                    let mut cards = extra.iter();
                    let (Some(card), None) = (cards.next(), cards.next()) else {
                        return Err(inconsistent(
                            &format!("initialState.playerCards[{index}]"),
                            format!(
                                "the dealer's hand and the upcard are not the cards it played and one discard ({} left over)",
                                extra.len()
                            ),
                        ));
                    };
                    if record.discard.is_some_and(|recorded| recorded != card) {
                        return Err(inconsistent(
                            "discard",
                            format!("the hands show {card} discarded"),
                        ));
                    }
                    discard = Some(Some(card));
                }
                hands[index] = hand;
                known[index] = true;
            }
            None if sits_out(seat) => {}
            None if dealer_picks_up => {
                known[index] = true;
                if played[index].contains(record.upcard) {
                    hands[index] = played[index].without(record.upcard);
                    discard = record.discard.map(Some);
                } else {
                    // It played five cards without the upcard: the upcard was the discard.
                    if record.discard.is_some_and(|card| card != record.upcard) {
                        return Err(inconsistent(
                            "discard",
                            "the dealer never played the upcard, so the upcard was the discard"
                                .to_owned(),
                        ));
                    }
                    hands[index] = played[index];
                    discard = Some(Some(record.upcard));
                }
            }
            None => {
                hands[index] = played[index];
                known[index] = true;
            }
        }
    }
    let base_hands = hands;
    let seen: CardSet = base_hands
        .iter()
        .fold(CardSet::single(record.upcard), |all, hand| all.union(*hand));
    if let Some(Some(card)) = discard
        && card != record.upcard
        && seen.contains(card)
        && !base_hands[dealer.index()].contains(card)
    {
        return Err(inconsistent(
            "discard",
            format!("{card} is recorded as the discard but another seat holds it"),
        ));
    }
    let unseen = CardSet::FULL_DECK.minus(seen);
    let candidates: Vec<Option<Card>> = match discard {
        Some(choice) => vec![choice],
        None => unseen.iter().map(Some).collect(),
    };
    let unknown_discard_at = discard.is_none().then_some(bids.len());

    let mut variants = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        let mut hands = base_hands;
        let mut pool = unseen;
        if let Some(card) = candidate
            && !hands[dealer.index()].contains(card)
            && card != record.upcard
        {
            hands[dealer.index()] = hands[dealer.index()].with(card);
            pool = pool.without(card);
        }
        // Seats that sat out take the unseen cards in order.
        let mut spare = pool.iter();
        for seat in Seat::ALL {
            while hands[seat.index()].len() < 5 {
                let Some(card) = spare.next() else {
                    return Err(inconsistent(
                        "tricks",
                        format!("too few unseen cards to deal {seat} a hand"),
                    ));
                };
                hands[seat.index()] = hands[seat.index()].with(card);
            }
        }
        let deal = Deal::new(dealer, hands, record.upcard).map_err(|error| {
            inconsistent(
                "initialState",
                format!("the hands as read are not a deal: {error}"),
            )
        })?;
        let mut actions = bids.clone();
        if let Some(card) = candidate {
            actions.push((dealer, Action::Discard(card)));
        }
        if contract.alone && rules.lone_defender {
            let first = dealer.left();
            let first = if first.team() == contract.maker.team() {
                first.left()
            } else {
                first
            };
            for seat in [first, first.partner()] {
                if lone_defender == Some(seat) {
                    actions.push((seat, Action::DefendAlone));
                    break;
                }
                actions.push((seat, Action::Pass));
            }
        }
        actions.extend(plays.iter().copied());
        variants.push(Variant { deal, actions });
    }
    let end = replay(&variants[0], rules, players)?;
    for variant in &variants[1..] {
        replay(variant, rules, players)?;
    }
    Ok(Reconstruction {
        variants,
        known,
        unknown_discard_at,
        end,
    })
}

/// A deal nobody bid: the calls are all there is.
fn passed_out(
    record: &RecordedDeal,
    rules: Rules,
    bids: Vec<(Seat, Action)>,
) -> Result<Reconstruction, DealProblem> {
    if !record.tricks.is_empty() {
        return Err(DealProblem::Inconsistent {
            field: "tricks".to_owned(),
            why: "cards were played, but nobody made trump".to_owned(),
        });
    }
    let [Some(n), Some(e), Some(s), Some(w)] = record.hands else {
        return Err(DealProblem::Incomplete { tricks: 0 });
    };
    let hands = [n, e, s, w];
    let deal = Deal::new(record.dealer, hands, record.upcard).map_err(|error| {
        DealProblem::Inconsistent {
            field: "initialState.playerCards".to_owned(),
            why: error.to_string(),
        }
    })?;
    let variant = Variant {
        deal,
        actions: bids,
    };
    let end = replay(&variant, rules, 4)?;
    Ok(Reconstruction {
        variants: vec![variant],
        known: [true; 4],
        unknown_discard_at: None,
        end,
    })
}

fn next_active(mut seat: Seat, sits_out: impl Fn(Seat) -> bool) -> Seat {
    while sits_out(seat) {
        seat = seat.left();
    }
    seat
}

/// Applies `variant`'s actions with the engine's checks.
fn replay(variant: &Variant, rules: Rules, players: usize) -> Result<GameState, DealProblem> {
    let mut state = GameState::new(variant.deal, rules);
    let mut cards_played = 0;
    for (position, &(seat, action)) in variant.actions.iter().enumerate() {
        let illegal = |why: String| DealProblem::Illegal {
            position: position + 1,
            seat,
            action,
            why,
        };
        if state.to_act() != Some(seat) {
            let turn = state
                .to_act()
                .map_or("nobody".to_owned(), |s| s.to_string());
            return Err(illegal(format!("it was {turn}'s turn")));
        }
        if let Action::Play(card) = action
            && !state.legal_actions().contains(action)
        {
            return Err(DealProblem::Renege {
                trick: cards_played / players + 1,
                seat,
                card,
                legal: state.playable_cards().to_string(),
            });
        }
        state
            .try_apply(action)
            .map_err(|error| illegal(error.to_string()))?;
        if matches!(action, Action::Play(_)) {
            cards_played += 1;
        }
    }
    if !state.is_finished() {
        return Err(DealProblem::Inconsistent {
            field: "calls".to_owned(),
            why: "the record ends before the hand does".to_owned(),
        });
    }
    Ok(state)
}
