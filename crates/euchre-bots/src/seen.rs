//! What one seat knows at its turn. Bots get only this: the true state sits
//! behind it, so no bot can read another player's cards.

use euchre_game::engine::action::{Action, ActionList};
use euchre_game::engine::card::{Card, CardSet, Suit};
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Contract, GameState, Stage, Trick};
use euchre_game::engine::trump::effective_suit;
use euchre_game::game::GameScore;
use euchre_game::keys::{Decision, decision};

use crate::policy_file::PolicyFile;

/// One hand's actions so far, in order, with who took each.
pub type History = [(Seat, Action)];

#[derive(Clone, Copy, Debug)]
pub struct Seen<'a> {
    state: &'a GameState,
    history: &'a History,
    score: Option<GameScore>,
}

impl<'a> Seen<'a> {
    /// The view of whoever is to act in `state`, with no game around the
    /// hand: a score-blind view (a single hand, a bot API request without
    /// a score).
    pub fn new(state: &'a GameState, history: &'a History) -> Seen<'a> {
        Seen {
            state,
            history,
            score: None,
        }
    }

    /// The view of a hand played within a game that stood at `score` when
    /// the hand was dealt.
    pub fn in_game(state: &'a GameState, history: &'a History, score: GameScore) -> Seen<'a> {
        Seen {
            state,
            history,
            score: Some(score),
        }
    }

    /// The game's score as this hand was dealt, if the hand is part of a
    /// game. Every seat sees it. A bot that plays for the game values
    /// outcomes by it; a score-blind bot ignores it.
    pub fn score(&self) -> Option<GameScore> {
        self.score
    }

    pub fn actor(&self) -> Seat {
        self.state.to_act().unwrap_or(Seat::North)
    }

    pub fn hand(&self) -> CardSet {
        self.state.hand(self.actor())
    }

    pub fn legal(&self) -> ActionList {
        self.state.legal_actions()
    }

    /// The infostate key and its canonical action order, as the trainer
    /// keys it (a function of the actor's knowledge only).
    pub fn decision(&self) -> Option<Decision> {
        decision(self.state)
    }

    /// The decision keyed as `policy` was trained, at this view's score
    /// where its bids play for the game.
    pub fn decision_for(&self, policy: &PolicyFile) -> Option<Decision> {
        policy.decision_at(self.state, self.score)
    }

    pub fn stage(&self) -> Stage {
        self.state.stage()
    }

    pub fn rules(&self) -> Rules {
        *self.state.rules()
    }

    pub fn dealer(&self) -> Seat {
        self.state.dealer()
    }

    pub fn upcard(&self) -> Card {
        self.state.upcard()
    }

    pub fn contract(&self) -> Option<Contract> {
        self.state.contract()
    }

    /// The defender playing alone against a lone maker, if one is.
    pub fn lone_defender(&self) -> Option<Seat> {
        self.state.lone_defender()
    }

    /// Tricks `team` has taken so far (every seat saw them fall).
    pub fn tricks_won(&self, team: Team) -> u8 {
        self.state.tricks_won(team)
    }

    pub fn sits_out(&self, seat: Seat) -> bool {
        self.state.sits_out(seat)
    }

    pub fn trick(&self) -> &Trick {
        self.state.trick()
    }

    /// Every card played to a trick so far.
    pub fn played(&self) -> CardSet {
        self.state.played()
    }

    /// The actions so far; the dealer's discard is `None` to everyone but
    /// the dealer.
    pub fn history(&self) -> impl Iterator<Item = (Seat, Option<Action>)> + '_ {
        let actor = self.actor();
        self.history
            .iter()
            .map(move |&(seat, action)| match action {
                Action::Discard(_) if seat != actor => (seat, None),
                _ => (seat, Some(action)),
            })
    }

    /// The card the actor discarded as dealer, if it did.
    pub fn own_discard(&self) -> Option<Card> {
        self.history().find_map(|(seat, action)| match action {
            Some(Action::Discard(card)) if seat == self.actor() => Some(card),
            _ => None,
        })
    }

    /// Cards each seat has played, from the public history.
    pub fn played_by(&self) -> [CardSet; 4] {
        let mut played = [CardSet::EMPTY; 4];
        for (seat, action) in self.history() {
            if let Some(Action::Play(card)) = action {
                played[seat.index()] = played[seat.index()].with(card);
            }
        }
        played
    }

    /// Suits each seat has shown out of by not following the led suit.
    pub fn voids(&self) -> [[bool; 4]; 4] {
        let mut voids = [[false; 4]; 4];
        let Some(trump) = self.contract().map(|contract| contract.trump) else {
            return voids;
        };
        let mut led: Option<Suit> = None;
        let mut in_trick = 0;
        let players = 4 - Seat::ALL
            .iter()
            .filter(|&&seat| self.sits_out(seat))
            .count();
        for (seat, action) in self.history() {
            let Some(Action::Play(card)) = action else {
                continue;
            };
            let suit = effective_suit(card, trump);
            match led {
                None => led = Some(suit),
                Some(led_suit) if suit != led_suit => voids[seat.index()][led_suit.index()] = true,
                Some(_) => {}
            }
            in_trick += 1;
            if in_trick == players {
                led = None;
                in_trick = 0;
            }
        }
        voids
    }
}
