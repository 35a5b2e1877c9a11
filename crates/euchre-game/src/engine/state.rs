//! One hand of euchre as a small `Copy` state machine.
//!
//! The whole hand, from the first bid to the fifth trick, is one value of a
//! few dozen bytes. Solvers clone it freely instead of undoing moves, and
//! nothing on the path `legal_actions` → `apply` allocates.

use rand::Rng;
use rand::seq::SliceRandom;

use crate::engine::action::{Action, ActionList};
use crate::engine::card::{Card, CardSet, Suit};
use crate::engine::error::{DealError, IllegalAction};
use crate::engine::rules::{LonerLead, Rules};
use crate::engine::seat::{Seat, Team};
use crate::engine::trump::{cards_of_suit, effective_suit, trick_strength};

/// The cards as dealt: who dealt, five cards per seat and the upcard. The
/// three cards left in the kitty are implied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Deal {
    pub dealer: Seat,
    pub hands: [CardSet; 4],
    pub upcard: Card,
}

impl Deal {
    /// Checks that the hands hold five cards each and that no card is dealt
    /// twice.
    pub fn new(dealer: Seat, hands: [CardSet; 4], upcard: Card) -> Result<Deal, DealError> {
        let mut seen = CardSet::single(upcard);
        for seat in Seat::ALL {
            let hand = hands[seat.index()];
            if hand.len() != 5 {
                return Err(DealError::WrongHandSize {
                    seat,
                    count: hand.len(),
                });
            }
            if let Some(card) = hand.intersection(seen).iter().next() {
                return Err(DealError::DuplicateCard(card));
            }
            seen = seen.union(hand);
        }
        Ok(Deal {
            dealer,
            hands,
            upcard,
        })
    }

    /// A uniformly random deal.
    pub fn random<R: Rng + ?Sized>(dealer: Seat, rng: &mut R) -> Deal {
        let mut deck = Card::ALL;
        deck.shuffle(rng);
        let hand = |seat: usize| {
            deck[seat * 5..seat * 5 + 5]
                .iter()
                .copied()
                .collect::<CardSet>()
        };
        Deal {
            dealer,
            hands: [hand(0), hand(1), hand(2), hand(3)],
            upcard: deck[20],
        }
    }
}

/// Where the hand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Each player, from the dealer's left, passes or orders the upcard up.
    BiddingRound1,
    /// The dealer has picked up the upcard and must discard one card.
    DealerDiscard,
    /// The upcard is turned down; each player passes or names another suit.
    BiddingRound2,
    /// The maker is alone; each defender may defend alone (a rule option).
    DefendAlone,
    Play,
    Finished,
}

/// Who made trump, in which suit and round, and whether alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Contract {
    pub maker: Seat,
    pub trump: Suit,
    pub alone: bool,
    /// 1 when the upcard was ordered up, 2 when a suit was named.
    pub round: u8,
}

/// The trick in progress. Cards are indexed by seat so that a key can read
/// who played what without scanning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Trick {
    pub leader: Seat,
    /// Bit `seat` is set once that seat has played to this trick.
    pub played_mask: u8,
    pub cards: [Card; 4],
    /// The effective suit of the card led; meaningless while the trick is empty.
    pub led: Suit,
}

impl Trick {
    fn empty(leader: Seat) -> Trick {
        Trick {
            leader,
            played_mask: 0,
            cards: [Card::new(Suit::Clubs, crate::engine::card::Rank::Nine); 4],
            led: Suit::Clubs,
        }
    }

    #[inline]
    pub fn has_played(&self, seat: Seat) -> bool {
        self.played_mask & (1 << seat.index()) != 0
    }

    #[inline]
    pub fn card_count(&self) -> u32 {
        self.played_mask.count_ones()
    }

    /// The seat whose card is winning so far, `None` for an empty trick.
    pub fn winner(&self, trump: Suit) -> Option<Seat> {
        Seat::ALL
            .into_iter()
            .filter(|&seat| self.has_played(seat))
            .max_by_key(|&seat| trick_strength(self.cards[seat.index()], trump, self.led))
    }
}

/// The points a finished hand scores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Points won by each team, indexed by [`Team::index`]; at most one is non-zero.
    pub points: [u8; 2],
    /// Tricks taken by each team.
    pub tricks: [u8; 2],
}

impl Outcome {
    /// The zero-sum payoff for `team`: its points minus the other team's.
    pub fn payoff(&self, team: Team) -> i32 {
        i32::from(self.points[team.index()]) - i32::from(self.points[team.other().index()])
    }
}

/// The points for a hand that ended with `tricks` taken by each team: the
/// makers score 1 for three or four tricks and 2 for all five (4 alone);
/// euchred makers give the defenders 2 (4 against a lone defender). A hand
/// passed out scores nothing.
pub fn score(contract: Option<Contract>, lone_defender: bool, tricks: [u8; 2]) -> Outcome {
    let mut points = [0u8; 2];
    if let Some(contract) = contract {
        let makers = contract.maker.team();
        let maker_tricks = tricks[makers.index()];
        if maker_tricks == 5 {
            points[makers.index()] = if contract.alone { 4 } else { 2 };
        } else if maker_tricks >= 3 {
            points[makers.index()] = 1;
        } else {
            points[makers.other().index()] = if lone_defender { 4 } else { 2 };
        }
    }
    Outcome { points, tricks }
}

/// A hand in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameState {
    rules: Rules,
    dealer: Seat,
    upcard: Card,
    hands: [CardSet; 4],
    stage: Stage,
    to_act: Seat,
    /// Passes so far in the current bidding round or defend-alone turn.
    passes: u8,
    contract: Option<Contract>,
    lone_defender: Option<Seat>,
    discard: Option<Card>,
    trick: Trick,
    tricks_won: [u8; 2],
    tricks_played: u8,
    /// Every card played to a trick so far, including the current one.
    played: CardSet,
    /// Bit `seat` is set once that seat has failed to follow a trump lead:
    /// public, and kept here so that a key can read it without replaying
    /// the hand.
    trump_voids: u8,
}

impl GameState {
    pub fn new(deal: Deal, rules: Rules) -> GameState {
        let first = deal.dealer.left();
        GameState {
            rules,
            dealer: deal.dealer,
            upcard: deal.upcard,
            hands: deal.hands,
            stage: Stage::BiddingRound1,
            to_act: first,
            passes: 0,
            contract: None,
            lone_defender: None,
            discard: None,
            trick: Trick::empty(first),
            tricks_won: [0; 2],
            tricks_played: 0,
            played: CardSet::EMPTY,
            trump_voids: 0,
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn dealer(&self) -> Seat {
        self.dealer
    }

    pub fn upcard(&self) -> Card {
        self.upcard
    }

    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// The seat to act, or `None` once the hand is over.
    pub fn to_act(&self) -> Option<Seat> {
        (self.stage != Stage::Finished).then_some(self.to_act)
    }

    /// The cards `seat` holds now (including a picked-up upcard).
    pub fn hand(&self, seat: Seat) -> CardSet {
        self.hands[seat.index()]
    }

    pub fn contract(&self) -> Option<Contract> {
        self.contract
    }

    pub fn lone_defender(&self) -> Option<Seat> {
        self.lone_defender
    }

    /// The dealer's discard; only the dealer may see it.
    pub fn discard(&self) -> Option<Card> {
        self.discard
    }

    /// Passes so far in the current bidding round or defend-alone turn.
    pub fn passes(&self) -> u8 {
        self.passes
    }

    pub fn trick(&self) -> &Trick {
        &self.trick
    }

    pub fn tricks_won(&self, team: Team) -> u8 {
        self.tricks_won[team.index()]
    }

    pub fn tricks_played(&self) -> u8 {
        self.tricks_played
    }

    /// Every card played to a trick so far.
    pub fn played(&self) -> CardSet {
        self.played
    }

    /// Whether `seat` has shown a void in trump: it did not follow a
    /// trump lead.
    pub fn shown_trump_void(&self, seat: Seat) -> bool {
        self.trump_voids & (1 << seat.index()) != 0
    }

    pub fn is_finished(&self) -> bool {
        self.stage == Stage::Finished
    }

    /// Whether `seat` sits out because its partner, the maker or a lone
    /// defender, plays alone.
    #[inline]
    pub fn sits_out(&self, seat: Seat) -> bool {
        let out_for_maker =
            matches!(self.contract, Some(c) if c.alone && c.maker.partner() == seat);
        let out_for_defender = matches!(self.lone_defender, Some(d) if d.partner() == seat);
        out_for_maker || out_for_defender
    }

    fn active_players(&self) -> u32 {
        Seat::ALL
            .into_iter()
            .filter(|&seat| !self.sits_out(seat))
            .count() as u32
    }

    /// `from` itself if it plays, else the next seat clockwise that does.
    fn first_active_from(&self, from: Seat) -> Seat {
        let mut seat = from;
        while self.sits_out(seat) {
            seat = seat.left();
        }
        seat
    }

    /// The legal actions for the player to act; empty once the hand is over.
    pub fn legal_actions(&self) -> ActionList {
        let mut actions = ActionList::new();
        match self.stage {
            Stage::BiddingRound1 => {
                let offset = (self.to_act.index() + 4 - self.dealer.index()) as u8;
                for &bid in self.rules.round1_bids(offset) {
                    actions.push(bid);
                }
            }
            Stage::BiddingRound2 => {
                if !(self.rules.stick_the_dealer && self.to_act == self.dealer) {
                    actions.push(Action::Pass);
                }
                for suit in Suit::ALL {
                    if suit != self.upcard.suit() {
                        actions.push(Action::Call { suit, alone: false });
                        actions.push(Action::Call { suit, alone: true });
                    }
                }
            }
            Stage::DealerDiscard => {
                for card in self.hands[self.dealer.index()].iter() {
                    if card != self.upcard || self.rules.dealer_may_discard_upcard {
                        actions.push(Action::Discard(card));
                    }
                }
            }
            Stage::DefendAlone => {
                actions.push(Action::Pass);
                actions.push(Action::DefendAlone);
            }
            Stage::Play => {
                for card in self.playable_cards().iter() {
                    actions.push(Action::Play(card));
                }
            }
            Stage::Finished => {}
        }
        actions
    }

    /// The cards the player to act may play: the led suit (bowers counted
    /// as trump) if they hold any, otherwise anything. This is what makes a
    /// renege impossible.
    #[inline]
    pub fn playable_cards(&self) -> CardSet {
        let hand = self.hands[self.to_act.index()];
        let Some(contract) = self.contract else {
            return CardSet::EMPTY;
        };
        if self.trick.played_mask == 0 {
            return hand;
        }
        let follow = hand.intersection(cards_of_suit(self.trick.led, contract.trump));
        if follow.is_empty() { hand } else { follow }
    }

    /// Applies `action` after checking that it is legal.
    pub fn try_apply(&mut self, action: Action) -> Result<(), IllegalAction> {
        if self.stage == Stage::Finished {
            return Err(IllegalAction::HandOver);
        }
        let legal = self.legal_actions();
        if !legal.contains(action) {
            return Err(IllegalAction::NotLegal {
                seat: self.to_act,
                action,
                legal: legal.to_string(),
            });
        }
        self.apply(action);
        Ok(())
    }

    /// Applies an action known to be legal (one from [`Self::legal_actions`]).
    /// The hot path: no checks beyond debug assertions.
    pub fn apply(&mut self, action: Action) {
        debug_assert!(
            self.legal_actions().contains(action),
            "{action} is illegal in {self:?}"
        );
        match action {
            Action::Pass => self.apply_pass(),
            Action::Order { alone } => {
                let maker = self.to_act;
                self.contract = Some(Contract {
                    maker,
                    trump: self.upcard.suit(),
                    alone,
                    round: 1,
                });
                if alone && maker.partner() == self.dealer {
                    // The dealer sits out, so nobody picks the upcard up.
                    self.after_contract();
                } else {
                    let dealer = self.dealer.index();
                    self.hands[dealer] = self.hands[dealer].with(self.upcard);
                    self.stage = Stage::DealerDiscard;
                    self.to_act = self.dealer;
                }
            }
            Action::Discard(card) => {
                let dealer = self.dealer.index();
                self.hands[dealer] = self.hands[dealer].without(card);
                self.discard = Some(card);
                self.after_contract();
            }
            Action::Call { suit, alone } => {
                self.contract = Some(Contract {
                    maker: self.to_act,
                    trump: suit,
                    alone,
                    round: 2,
                });
                self.after_contract();
            }
            Action::DefendAlone => {
                self.lone_defender = Some(self.to_act);
                self.start_play();
            }
            Action::Play(card) => self.apply_play(card),
        }
    }

    fn apply_pass(&mut self) {
        self.passes += 1;
        match self.stage {
            Stage::BiddingRound1 if self.passes == 4 => {
                self.stage = Stage::BiddingRound2;
                self.passes = 0;
                self.to_act = self.dealer.left();
            }
            Stage::BiddingRound2 if self.passes == 4 => self.stage = Stage::Finished,
            // The two defenders sit opposite each other.
            Stage::DefendAlone if self.passes == 2 => self.start_play(),
            Stage::DefendAlone => self.to_act = self.to_act.partner(),
            _ => self.to_act = self.to_act.left(),
        }
    }

    fn after_contract(&mut self) {
        let Some(contract) = self.contract else {
            unreachable!("after_contract without a contract")
        };
        if contract.alone && self.rules.lone_defender {
            self.stage = Stage::DefendAlone;
            self.passes = 0;
            let first = self.dealer.left();
            self.to_act = if first.team() == contract.maker.team() {
                first.left()
            } else {
                first
            };
        } else {
            self.start_play();
        }
    }

    fn start_play(&mut self) {
        self.stage = Stage::Play;
        let first = match self.contract {
            Some(contract) if contract.alone && self.rules.loner_lead == LonerLead::LeftOfLoner => {
                contract.maker.left()
            }
            _ => self.dealer.left(),
        };
        let leader = self.first_active_from(first);
        self.trick = Trick::empty(leader);
        self.to_act = leader;
    }

    fn apply_play(&mut self, card: Card) {
        let Some(contract) = self.contract else {
            unreachable!("play without a contract")
        };
        let seat = self.to_act;
        self.hands[seat.index()] = self.hands[seat.index()].without(card);
        self.played = self.played.with(card);
        if self.trick.played_mask == 0 {
            self.trick.leader = seat;
            self.trick.led = effective_suit(card, contract.trump);
        } else if self.trick.led == contract.trump
            && effective_suit(card, contract.trump) != contract.trump
        {
            self.trump_voids |= 1 << seat.index();
        }
        self.trick.cards[seat.index()] = card;
        self.trick.played_mask |= 1 << seat.index();
        if self.trick.card_count() < self.active_players() {
            self.to_act = self.first_active_from(seat.left());
            return;
        }
        let winner = self.trick.winner(contract.trump).unwrap_or(seat);
        self.tricks_won[winner.team().index()] += 1;
        self.tricks_played += 1;
        if self.tricks_played == 5 {
            self.stage = Stage::Finished;
        } else {
            self.trick = Trick::empty(winner);
            self.to_act = winner;
        }
    }

    /// The score, once the hand is over.
    pub fn outcome(&self) -> Option<Outcome> {
        if self.stage != Stage::Finished {
            return None;
        }
        Some(score(
            self.contract,
            self.lone_defender.is_some(),
            self.tricks_won,
        ))
    }
}
