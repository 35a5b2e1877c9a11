//! One seat's view of a hand in progress, as a program outside the trainer
//! describes it: the seat's own cards, the upcard and the public actions.
//!
//! Bots act on a full [`GameState`] but read only what the acting seat may
//! know, so a view is completed into *some* deal that agrees with all of
//! it. Which deal does not matter to such a bot; that the deal exists is
//! the check that the view is possible at all. Completing it therefore also
//! validates it, and every way a view can be impossible has its own error.
//!
//! The seat of each action depends on the cards played before it (a trick's
//! winner leads the next), so actions are attributed one at a time: the
//! prefix before an action is replayed on a deal built from what is known so
//! far, and whoever the rules say acts next took that action.

use thiserror::Error;

use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet, Suit};
use crate::engine::rules::Rules;
use crate::engine::seat::Seat;
use crate::engine::state::{Deal, GameState, Stage};
use crate::engine::trump::{cards_of_suit, effective_suit};

/// One seat's knowledge of a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatKnowledge {
    pub rules: Rules,
    pub dealer: Seat,
    /// Whose view this is; it must be this seat's turn.
    pub seat: Seat,
    /// The cards the seat holds now (a dealer who picked up and has not yet
    /// discarded holds six, the upcard among them).
    pub hand: CardSet,
    pub upcard: Card,
    /// Every action so far, in order. `None` is the dealer's face-down
    /// discard, which only the dealer sees; the dealer's own view names it.
    pub actions: Vec<Option<Action>>,
}

/// Why a view cannot be a moment of a real hand.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum KnowledgeError {
    #[error("action {position} ('{text}'): {reason}")]
    Action {
        /// 1-based position in the view's action list.
        position: usize,
        text: String,
        reason: String,
    },
    #[error("{seat} cannot hold {card}: {reason}")]
    CannotHold {
        seat: Seat,
        card: Card,
        reason: String,
    },
    #[error("{seat} must hold {card}: {reason}")]
    MustHold {
        seat: Seat,
        card: Card,
        reason: String,
    },
    #[error("{seat} holds {expected} cards at this point, but the view gives {given}")]
    HandSize {
        seat: Seat,
        expected: u32,
        given: u32,
    },
    #[error("the hand is over after these actions; there is no decision to make")]
    HandOver,
    #[error("after these actions it is {to_act}'s turn, not {seat}'s")]
    NotYourTurn { seat: Seat, to_act: Seat },
    #[error("no deal agrees with the view: {0}")]
    NoDeal(String),
}

impl SeatKnowledge {
    /// A full state that agrees with the view, at the seat's decision.
    pub fn complete(&self) -> Result<GameState, KnowledgeError> {
        self.complete_with_history().map(|(state, _)| state)
    }

    /// [`Self::complete`], with the seat that took each action (the face-down
    /// discard is named by the completion's choice, which only the dealer
    /// may read).
    pub fn complete_with_history(
        &self,
    ) -> Result<(GameState, Vec<(Seat, Action)>), KnowledgeError> {
        let mut known = Known::new(self);
        for position in 0..self.actions.len() {
            let (state, _) = self.replay(&known, position, false)?;
            known.attribute(self, &state, position)?;
        }
        self.check_hand(&known)?;
        let (state, history) = self.replay(&known, self.actions.len(), true)?;
        match state.to_act() {
            None => Err(KnowledgeError::HandOver),
            Some(to_act) if to_act != self.seat => Err(KnowledgeError::NotYourTurn {
                seat: self.seat,
                to_act,
            }),
            Some(_) if state.hand(self.seat) != self.hand => Err(KnowledgeError::NoDeal(format!(
                "{} would hold {}, not the view's {}",
                self.seat,
                state.hand(self.seat),
                self.hand
            ))),
            Some(_) => Ok((state, history)),
        }
    }

    fn text(&self, position: usize) -> String {
        self.actions[position].map_or_else(|| "discard".to_owned(), |action| action.to_string())
    }

    fn action_error(&self, position: usize, reason: impl Into<String>) -> KnowledgeError {
        KnowledgeError::Action {
            position: position + 1,
            text: self.text(position),
            reason: reason.into(),
        }
    }

    /// The state after the first `count` actions, on a deal built from
    /// `known`. While attributing, the seat's own hand is left out: it
    /// cannot change whose turn it is, and it is checked on its own later.
    fn replay(
        &self,
        known: &Known,
        count: usize,
        with_hand: bool,
    ) -> Result<(GameState, Vec<(Seat, Action)>), KnowledgeError> {
        let (deal, hidden_discard) = known.deal(self, with_hand)?;
        let mut state = GameState::new(deal, self.rules);
        let mut history = Vec::with_capacity(count);
        for position in 0..count {
            let action = match self.actions[position] {
                Some(action) => action,
                None => Action::Discard(hidden_discard.ok_or_else(|| {
                    self.action_error(position, "there is no discard to make here")
                })?),
            };
            let seat = state.to_act();
            state
                .try_apply(action)
                .map_err(|error| self.action_error(position, error.to_string()))?;
            history.extend(seat.map(|seat| (seat, action)));
        }
        Ok((state, history))
    }

    /// The seat's own cards against what the actions reveal.
    fn check_hand(&self, known: &Known) -> Result<(), KnowledgeError> {
        let seat = self.seat;
        let dealer_picked_up = seat == self.dealer && known.picked_up;
        for card in self.hand.iter() {
            let cannot = |reason: String| KnowledgeError::CannotHold { seat, card, reason };
            if card == self.upcard && !dealer_picked_up {
                let why = if known.picked_up {
                    format!(
                        "it is the upcard, which the dealer {} picked up",
                        self.dealer
                    )
                } else {
                    "it is the upcard, which lies on the table or was turned down".to_owned()
                };
                return Err(cannot(why));
            }
            if known.own_discard == Some(card) {
                return Err(cannot("it is the seat's own discard".to_owned()));
            }
            if let Some(position) = known.void_position(seat, card) {
                return Err(cannot(format!(
                    "{seat} did not follow {} at action {position}",
                    suit_name(known.effective(card))
                )));
            }
        }
        let played = known.played_by[seat.index()];
        if dealer_picked_up
            && !played.contains(self.upcard)
            && known.own_discard != Some(self.upcard)
            && !self.hand.contains(self.upcard)
        {
            return Err(KnowledgeError::MustHold {
                seat,
                card: self.upcard,
                reason: "the dealer picked up the upcard and has neither discarded nor played it"
                    .to_owned(),
            });
        }
        let expected =
            5 + u32::from(dealer_picked_up) - u32::from(known.own_discard.is_some()) - played.len();
        if self.hand.len() != expected {
            return Err(KnowledgeError::HandSize {
                seat,
                expected,
                given: self.hand.len(),
            });
        }
        Ok(())
    }
}

/// What the actions attributed so far reveal.
#[derive(Debug)]
struct Known {
    played_by: [CardSet; 4],
    /// 1-based position of the action at which each seat showed out of
    /// each effective suit.
    void_at: [[Option<usize>; 4]; 4],
    trump: Option<Suit>,
    picked_up: bool,
    /// The hidden discard has been attributed.
    discarded: bool,
    own_discard: Option<Card>,
    /// Cards named anywhere in the view: never handed out as filler, since
    /// each already has its owner.
    named: CardSet,
}

impl Known {
    fn new(view: &SeatKnowledge) -> Known {
        let mut named = view.hand.with(view.upcard);
        for action in view.actions.iter().flatten() {
            if let Action::Play(card) | Action::Discard(card) = *action {
                named = named.with(card);
            }
        }
        Known {
            played_by: [CardSet::EMPTY; 4],
            void_at: [[None; 4]; 4],
            trump: None,
            picked_up: false,
            discarded: false,
            own_discard: None,
            named,
        }
    }

    fn effective(&self, card: Card) -> Suit {
        self.trump
            .map_or(card.suit(), |trump| effective_suit(card, trump))
    }

    fn void_position(&self, seat: Seat, card: Card) -> Option<usize> {
        self.trump?;
        self.void_at[seat.index()][self.effective(card).index()]
    }

    /// The cards `seat` may still hold: none of a suit it has shown out of.
    fn may_hold(&self, seat: Seat) -> CardSet {
        let Some(trump) = self.trump else {
            return CardSet::FULL_DECK;
        };
        Suit::ALL
            .into_iter()
            .filter(|suit| self.void_at[seat.index()][suit.index()].is_some())
            .fold(CardSet::FULL_DECK, |cards, suit| {
                cards.minus(cards_of_suit(suit, trump))
            })
    }

    /// Records who took action `position`, given the state just before it.
    fn attribute(
        &mut self,
        view: &SeatKnowledge,
        state: &GameState,
        position: usize,
    ) -> Result<(), KnowledgeError> {
        let fail = |reason: String| Err(view.action_error(position, reason));
        let Some(actor) = state.to_act() else {
            return fail("the hand is already over".to_owned());
        };
        match view.actions[position] {
            Some(Action::Order { alone }) if state.stage() == Stage::BiddingRound1 => {
                self.trump = Some(view.upcard.suit());
                self.picked_up = !(alone && actor.partner() == view.dealer);
            }
            Some(Action::Call { suit, .. }) => self.trump = Some(suit),
            Some(Action::Discard(card)) if actor == view.dealer => {
                if actor != view.seat {
                    return fail(format!(
                        "only the dealer sees the discard; {} writes this step as 'discard'",
                        view.seat
                    ));
                }
                self.own_discard = Some(card);
            }
            None if state.stage() == Stage::DealerDiscard => {
                if actor == view.seat {
                    return fail(
                        "this seat is the dealer, so its view names the card it discarded"
                            .to_owned(),
                    );
                }
                self.discarded = true;
            }
            Some(Action::Play(card)) if state.stage() == Stage::Play => {
                self.attribute_play(view, state, actor, card, position + 1)
                    .or_else(fail)?;
            }
            _ => {}
        }
        Ok(())
    }

    fn attribute_play(
        &mut self,
        view: &SeatKnowledge,
        state: &GameState,
        actor: Seat,
        card: Card,
        position: usize,
    ) -> Result<(), String> {
        if let Some(owner) = Seat::ALL
            .into_iter()
            .find(|seat| self.played_by[seat.index()].contains(card))
        {
            return Err(format!("{owner} already played {card}"));
        }
        if card == view.upcard && !(actor == view.dealer && self.picked_up) {
            return Err(format!(
                "{card} is the upcard, and {actor} did not pick it up"
            ));
        }
        if actor != view.seat && view.hand.contains(card) {
            return Err(format!(
                "{actor} cannot play {card}: the view puts it in {}'s hand",
                view.seat
            ));
        }
        if actor == view.seat && view.hand.contains(card) {
            return Err(format!(
                "{actor} played {card}, but the view still has it in {actor}'s hand"
            ));
        }
        if actor != view.seat && self.own_discard == Some(card) {
            return Err(format!("{card} is {}'s discard", view.seat));
        }
        if let Some(earlier) = self.void_position(actor, card) {
            return Err(format!(
                "{actor} showed out of {} at action {earlier}, so it cannot hold {card}",
                suit_name(self.effective(card))
            ));
        }
        let trick = state.trick();
        if trick.card_count() > 0 && self.effective(card) != trick.led {
            let void = &mut self.void_at[actor.index()][trick.led.index()];
            void.get_or_insert(position);
        }
        self.played_by[actor.index()] = self.played_by[actor.index()].with(card);
        Ok(())
    }

    /// A deal agreeing with everything known, and the card a face-down
    /// discard stands for. Cards not fixed by the view go to the seats that
    /// may hold them, by bipartite matching, so a deal is found whenever one
    /// exists.
    fn deal(
        &self,
        view: &SeatKnowledge,
        with_hand: bool,
    ) -> Result<(Deal, Option<Card>), KnowledgeError> {
        let dealer = view.dealer;
        let mut fixed = self.played_by;
        if let Some(card) = self.own_discard {
            fixed[view.seat.index()] = fixed[view.seat.index()].with(card);
        }
        if with_hand {
            fixed[view.seat.index()] = fixed[view.seat.index()].union(view.hand);
        }
        if self.picked_up {
            fixed[dealer.index()] = fixed[dealer.index()].without(view.upcard);
        }

        // A dealer who picked up and then showed out of trump without
        // playing the upcard must have discarded it.
        let mut hidden_discard = None;
        let mut discard_slot = false;
        if self.picked_up && self.discarded {
            let keeps_upcard = !self.played_by[dealer.index()].contains(view.upcard);
            if keeps_upcard && self.void_position(dealer, view.upcard).is_some() {
                if !view.rules.dealer_may_discard_upcard {
                    return Err(KnowledgeError::NoDeal(format!(
                        "the dealer {dealer} picked up {} and later showed out of trump, \
                         but these rules forbid discarding the upcard",
                        view.upcard
                    )));
                }
                hidden_discard = Some(view.upcard);
            } else {
                discard_slot = true;
            }
        }

        let mut slots: Vec<(Option<Seat>, CardSet)> = Vec::with_capacity(24);
        for seat in Seat::ALL {
            let held = fixed[seat.index()].len();
            if held > 5 {
                return Err(KnowledgeError::NoDeal(format!(
                    "{seat} would have been dealt {held} cards"
                )));
            }
            let mut open = 5 - held as usize;
            if seat == dealer && discard_slot {
                if open > 0 {
                    slots.push((Some(seat), CardSet::FULL_DECK));
                    open -= 1;
                } else {
                    // All five dealt cards were played: the upcard went.
                    hidden_discard = Some(view.upcard);
                    discard_slot = false;
                }
            }
            let allowed = self.may_hold(seat);
            slots.extend(std::iter::repeat_n((Some(seat), allowed), open));
        }
        let mut pool: Vec<Card> = CardSet::FULL_DECK
            .minus(self.named)
            .minus(
                fixed
                    .iter()
                    .fold(CardSet::EMPTY, |all, hand| all.union(*hand)),
            )
            .iter()
            .collect();
        // Cards the view names but nobody holds yet (another seat's future
        // plays while attributing, or the seat's own hand) still need a seat.
        if !with_hand {
            let unplaced = self.named.minus(
                fixed
                    .iter()
                    .fold(CardSet::single(view.upcard), |all, hand| all.union(*hand)),
            );
            pool.extend(unplaced.iter());
        }
        let kitty = pool.len().checked_sub(slots.len()).ok_or_else(|| {
            KnowledgeError::NoDeal("more cards are accounted for than the deck holds".to_owned())
        })?;
        slots.extend(std::iter::repeat_n((None, CardSet::FULL_DECK), kitty));

        let allowed: Vec<CardSet> = slots.iter().map(|&(_, allowed)| allowed).collect();
        let owners = match_cards(&pool, &allowed).ok_or_else(|| {
            KnowledgeError::NoDeal(
                "the remaining cards cannot be shared out without someone holding a suit \
                 it showed out of"
                    .to_owned(),
            )
        })?;
        let mut hands = fixed;
        for (slot, card) in owners.into_iter().enumerate() {
            if let (Some(seat), Some(card)) = (slots[slot].0, card.map(|index| pool[index])) {
                hands[seat.index()] = hands[seat.index()].with(card);
                if discard_slot && seat == dealer && slots[slot].1 == CardSet::FULL_DECK {
                    hidden_discard.get_or_insert(card);
                }
            }
        }
        let deal = Deal::new(dealer, hands, view.upcard)
            .map_err(|error| KnowledgeError::NoDeal(error.to_string()))?;
        Ok((deal, hidden_discard))
    }
}

/// Gives each card a slot that allows it (Kuhn's augmenting paths);
/// `owners[slot]` is the index of the card in it. `None` when no complete
/// assignment exists.
fn match_cards(cards: &[Card], slots: &[CardSet]) -> Option<Vec<Option<usize>>> {
    fn place(
        card: usize,
        cards: &[Card],
        slots: &[CardSet],
        owners: &mut [Option<usize>],
        visited: &mut [bool],
    ) -> bool {
        for slot in 0..slots.len() {
            if visited[slot] || !slots[slot].contains(cards[card]) {
                continue;
            }
            visited[slot] = true;
            let free = match owners[slot] {
                None => true,
                Some(other) => place(other, cards, slots, owners, visited),
            };
            if free {
                owners[slot] = Some(card);
                return true;
            }
        }
        false
    }
    let mut owners = vec![None; slots.len()];
    for card in 0..cards.len() {
        let mut visited = vec![false; slots.len()];
        if !place(card, cards, slots, &mut owners, &mut visited) {
            return None;
        }
    }
    Some(owners)
}

fn suit_name(suit: Suit) -> &'static str {
    match suit {
        Suit::Clubs => "clubs",
        Suit::Diamonds => "diamonds",
        Suit::Hearts => "hearts",
        Suit::Spades => "spades",
    }
}
