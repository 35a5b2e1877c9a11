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

/// Replays `record` under `rules`: the bids and the contract, who sits
/// out, who played each card, the dealt hands, then one variant a
/// candidate discard, each replayed by the engine.
pub fn reconstruct(record: &RecordedDeal, rules: Rules) -> Result<Reconstruction, DealProblem> {
    let (bids, contract) = bids_and_contract(record);
    let Some(contract) = contract else {
        return passed_out(record, rules, bids);
    };
    let seating = Seating {
        contract,
        lone_defender: lone_defender(record, rules, &contract)?,
        dealer: record.dealer,
        // The dealer picks up unless it is a lone maker's partner; a dealer
        // whose partner then defends alone picks up, discards and sits out.
        picks_up: contract.round == 1
            && !(contract.alone && record.dealer == contract.maker.partner()),
    };
    let tricks = tricks_by_seat(record, rules, &seating)?;
    check_upcard(record, &seating, &tricks.played)?;
    let dealt = dealt_hands(record, &seating, &tricks.played)?;
    let unknown_discard_at = dealt.discard.is_none().then_some(bids.len());
    let variants = variants(record, rules, &seating, &bids, &dealt, &tricks.plays)?;
    let players = seating.players();
    let end = replay(&variants[0], rules, players)?;
    for variant in &variants[1..] {
        replay(variant, rules, players)?;
    }
    Ok(Reconstruction {
        variants,
        known: dealt.known,
        unknown_discard_at,
        end,
    })
}

fn inconsistent(field: &str, why: String) -> DealProblem {
    DealProblem::Inconsistent {
        field: field.to_owned(),
        why,
    }
}

/// The recorded calls, each with its seat, and the contract they made.
fn bids_and_contract(record: &RecordedDeal) -> (Vec<(Seat, Action)>, Option<Contract>) {
    let mut bids = Vec::with_capacity(record.calls.len());
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
    (bids, contract)
}

/// The recorded lone defender, refused where the contract or the rules
/// allow none.
fn lone_defender(
    record: &RecordedDeal,
    rules: Rules,
    contract: &Contract,
) -> Result<Option<Seat>, DealProblem> {
    match record.lone_defender {
        None => Ok(None),
        Some(seat)
            if contract.alone && rules.lone_defender && seat.team() != contract.maker.team() =>
        {
            Ok(Some(seat))
        }
        Some(seat) => Err(inconsistent(
            "aloneDefender",
            format!(
                "{seat} cannot defend alone here (that needs a lone maker on the other side and the ruleset's defend_alone)"
            ),
        )),
    }
}

/// Who holds the contract, who sits out, and whether the dealer picked up.
struct Seating {
    contract: Contract,
    lone_defender: Option<Seat>,
    dealer: Seat,
    picks_up: bool,
}

impl Seating {
    fn sits_out(&self, seat: Seat) -> bool {
        (self.contract.alone && seat == self.contract.maker.partner())
            || self
                .lone_defender
                .is_some_and(|defender| seat == defender.partner())
    }

    fn players(&self) -> usize {
        Seat::ALL
            .iter()
            .filter(|&&seat| !self.sits_out(seat))
            .count()
    }

    /// The seat at or after `seat`, clockwise, that plays.
    fn next_active(&self, mut seat: Seat) -> Seat {
        while self.sits_out(seat) {
            seat = seat.left();
        }
        seat
    }
}

/// The cards each seat played, and every play as an action in order.
struct Tricks {
    played: [CardSet; 4],
    plays: Vec<(Seat, Action)>,
}

/// Who played each card, trick by trick: the first lead from the contract
/// and the loner-lead rule, each later one from the winner of the trick
/// before.
fn tricks_by_seat(
    record: &RecordedDeal,
    rules: Rules,
    seating: &Seating,
) -> Result<Tricks, DealProblem> {
    let contract = &seating.contract;
    let players = seating.players();
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
        seating.dealer.left()
    };
    let mut leader = seating.next_active(first_from);
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
            seat = seating.next_active(seat.left());
        }
        leader = best.1;
    }
    Ok(Tricks { played, plays })
}

/// The upcard can only have been played by a dealer who picked it up.
fn check_upcard(
    record: &RecordedDeal,
    seating: &Seating,
    played: &[CardSet; 4],
) -> Result<(), DealProblem> {
    for seat in Seat::ALL {
        if played[seat.index()].contains(record.upcard)
            && !(seating.picks_up && seat == seating.dealer)
        {
            return Err(inconsistent(
                "tricks",
                format!(
                    "{seat} played the upcard {}, which {}",
                    record.upcard,
                    if seating.picks_up {
                        "the dealer picked up"
                    } else {
                        "stayed in the kitty"
                    }
                ),
            ));
        }
    }
    Ok(())
}

/// The dealt hands as far as the record shows them.
struct DealtHands {
    hands: [CardSet; 4],
    known: [bool; 4],
    /// `None` while unknown, `Some(None)` when the dealer picked nothing
    /// up.
    discard: Option<Option<Card>>,
}

/// Each seat's dealt hand, recorded or read from its plays, checked
/// against the plays and the recorded discard.
fn dealt_hands(
    record: &RecordedDeal,
    seating: &Seating,
    played: &[CardSet; 4],
) -> Result<DealtHands, DealProblem> {
    let mut dealt = DealtHands {
        hands: [CardSet::EMPTY; 4],
        known: [false; 4],
        discard: Some(None),
    };
    for seat in Seat::ALL {
        let index = seat.index();
        let dealer_picks_up = seating.picks_up && seat == seating.dealer;
        if dealer_picks_up && seating.sits_out(seat) {
            dealer_who_sat_out(record, &mut dealt, index)?;
            continue;
        }
        match record.hands[index] {
            Some(hand) => {
                let discard = recorded_hand(record, seat, hand, played[index], dealer_picks_up)?;
                if let Some(card) = discard {
                    dealt.discard = Some(Some(card));
                }
                dealt.hands[index] = hand;
                dealt.known[index] = true;
            }
            None if seating.sits_out(seat) => {}
            None if dealer_picks_up => {
                dealt.known[index] = true;
                if played[index].contains(record.upcard) {
                    dealt.hands[index] = played[index].without(record.upcard);
                    dealt.discard = record.discard.map(Some);
                } else {
                    // It played five cards without the upcard: the upcard was the discard.
                    if record.discard.is_some_and(|card| card != record.upcard) {
                        return Err(inconsistent(
                            "discard",
                            "the dealer never played the upcard, so the upcard was the discard"
                                .to_owned(),
                        ));
                    }
                    dealt.hands[index] = played[index];
                    dealt.discard = Some(Some(record.upcard));
                }
            }
            None => {
                dealt.hands[index] = played[index];
                dealt.known[index] = true;
            }
        }
    }
    Ok(dealt)
}

/// A dealer who picked up, discarded and sat out (its partner defends
/// alone): any card it held will do where the record does not say, as
/// nobody saw it.
fn dealer_who_sat_out(
    record: &RecordedDeal,
    dealt: &mut DealtHands,
    index: usize,
) -> Result<(), DealProblem> {
    let recorded = record.discard.unwrap_or(record.upcard);
    if let Some(hand) = record.hands[index] {
        dealt.hands[index] = hand;
        dealt.known[index] = true;
        let first = hand.iter().next().unwrap_or(record.upcard);
        dealt.discard = Some(Some(record.discard.unwrap_or(first)));
        if !hand.with(record.upcard).contains(recorded) {
            return Err(inconsistent(
                "discard",
                format!("{recorded} is not among the dealer's cards"),
            ));
        }
    } else {
        if recorded != record.upcard {
            dealt.hands[index] = CardSet::single(recorded);
        }
        dealt.discard = Some(Some(recorded));
    }
    Ok(())
}

/// A recorded hand checked against the cards its seat played; for a
/// dealer who picked up, the one card left over is its discard, returned.
fn recorded_hand(
    record: &RecordedDeal,
    seat: Seat,
    hand: CardSet,
    played: CardSet,
    dealer_picks_up: bool,
) -> Result<Option<Card>, DealProblem> {
    let index = seat.index();
    let held = if dealer_picks_up {
        hand.with(record.upcard)
    } else {
        hand
    };
    if !played.minus(held).is_empty() {
        return Err(inconsistent(
            &format!("initialState.playerCards[{index}]"),
            format!("{seat} played {} but was dealt {hand}", played.minus(held)),
        ));
    }
    if !dealer_picks_up {
        return Ok(None);
    }
    let extra = held.minus(played);
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
    Ok(Some(card))
}

/// One full deal a candidate discard (one, unless the discard is
/// unknown), the cards nobody saw dealt in a fixed order, with the
/// record's actions in order.
fn variants(
    record: &RecordedDeal,
    rules: Rules,
    seating: &Seating,
    bids: &[(Seat, Action)],
    dealt: &DealtHands,
    plays: &[(Seat, Action)],
) -> Result<Vec<Variant>, DealProblem> {
    let dealer = seating.dealer;
    let base_hands = dealt.hands;
    let seen: CardSet = base_hands
        .iter()
        .fold(CardSet::single(record.upcard), |all, hand| all.union(*hand));
    if let Some(Some(card)) = dealt.discard
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
    let candidates: Vec<Option<Card>> = match dealt.discard {
        Some(choice) => vec![choice],
        None => unseen.iter().map(Some).collect(),
    };
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
        let mut actions = bids.to_vec();
        if let Some(card) = candidate {
            actions.push((dealer, Action::Discard(card)));
        }
        defenders_answers(rules, seating, &mut actions);
        actions.extend(plays.iter().copied());
        variants.push(Variant { deal, actions });
    }
    Ok(variants)
}

/// After a lone contract, where the rules let a defender go alone: each
/// defender in turn passes, up to the one who defends alone.
fn defenders_answers(rules: Rules, seating: &Seating, actions: &mut Vec<(Seat, Action)>) {
    let contract = &seating.contract;
    if !(contract.alone && rules.lone_defender) {
        return;
    }
    let first = seating.dealer.left();
    let first = if first.team() == contract.maker.team() {
        first.left()
    } else {
        first
    };
    for seat in [first, first.partner()] {
        if seating.lone_defender == Some(seat) {
            actions.push((seat, Action::DefendAlone));
            break;
        }
        actions.push((seat, Action::Pass));
    }
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
