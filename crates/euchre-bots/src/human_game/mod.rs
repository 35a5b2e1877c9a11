//! One game to a target score between a person (South) and three bots,
//! with no HTML and no terminal in it: the web table and `trainer play`
//! both drive this model and only draw it.

use std::sync::Arc;

use euchre_game::egn;
use euchre_game::engine::action::Action;
use euchre_game::engine::card::Card;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Contract, Deal, GameState, Stage};
use euchre_game::engine::trump::effective_suit;
use euchre_game::game::GameScore;
use rand::SeedableRng;
use rand::rngs::SmallRng;

use crate::analysis::LossUnit;
use crate::bot::Bot;
use crate::seen::Seen;
use crate::stop::StopCheck;

mod hint;
mod position;

pub use hint::{Hint, value_words};
pub use position::{MoveError, Position};

/// The person's seat.
pub const PERSON: Seat = Seat::South;

/// What a finished hand came to, kept for the summary after it.
#[derive(Clone, Debug)]
pub struct HandSummary {
    pub deal: Deal,
    pub contract: Option<Contract>,
    pub discard: Option<Card>,
    pub tricks: [u8; 2],
    pub points: [u8; 2],
}

pub struct HumanGame {
    /// The bot at each seat; `None` at the person's.
    bots: [Option<Arc<dyn Bot>>; 4],
    /// What each bot is called in the saved game and on the page: its own
    /// name, unless the host named it (a server names bots by the labels
    /// it offers, never by a file's path).
    bot_names: [Option<String>; 4],
    pub target: u32,
    pub score: [u32; 2],
    pub hands_played: u32,
    deal: Deal,
    state: GameState,
    history: Vec<(Seat, Action)>,
    /// This hand's tricks so far, the one in play last.
    tricks: Vec<PlayedTrick>,
    summary: Option<HandSummary>,
    /// Every finished hand of the game, for saving it.
    finished: Vec<(Deal, Vec<(Seat, Action)>)>,
    /// Whether the table shows hints for the person's moves.
    pub show_hints: bool,
    /// Whether the person's card is played for them when it is their only
    /// legal one.
    pub auto_play_forced: bool,
    /// Whether the person may take moves back ([`HumanGame::undo`]).
    practice: bool,
    /// The game before each of the person's choices in this hand, newest
    /// last.
    undo: Vec<Snapshot>,
    /// How many moves the person took back in the whole game.
    taken_back: u32,
    rng: SmallRng,
}

/// One trick of the hand: who led it, what each seat played, and who won
/// it once it is complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayedTrick {
    pub leader: Seat,
    pub cards: [Option<Card>; 4],
    pub winner: Option<Seat>,
}

/// The game as it stood before one of the person's choices: everything a
/// move changes, the bots' random numbers included, so a move taken back
/// and made again meets the same replies.
#[derive(Clone, Debug)]
struct Snapshot {
    state: GameState,
    history: usize,
    tricks: Vec<PlayedTrick>,
    summary: Option<HandSummary>,
    score: [u32; 2],
    hands_played: u32,
    finished: usize,
    rng: SmallRng,
}

impl std::fmt::Debug for HumanGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HumanGame")
            .field("score", &self.score)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl HumanGame {
    /// A new game: the partner sits North, the opponents East and West.
    /// The bots have not moved yet: [`HumanGame::run_bots`] plays them to
    /// the person's turn.
    pub fn new(
        partner: Arc<dyn Bot>,
        opponents: Arc<dyn Bot>,
        rules: Rules,
        target: u32,
        seed: u64,
    ) -> HumanGame {
        let mut rng = SmallRng::seed_from_u64(seed);
        let dealer = Seat::West;
        let deal = Deal::random(dealer, &mut rng);
        let (partner_name, opponents_name) = (partner.name(), opponents.name());
        HumanGame {
            bot_names: [
                Some(partner_name),
                Some(opponents_name.clone()),
                None,
                Some(opponents_name),
            ],
            bots: [
                Some(partner),
                Some(Arc::clone(&opponents)),
                None,
                Some(opponents),
            ],
            target,
            score: [0, 0],
            hands_played: 0,
            deal,
            state: GameState::new(deal, rules),
            history: Vec::new(),
            tricks: Vec::new(),
            summary: None,
            finished: Vec::new(),
            show_hints: false,
            auto_play_forced: false,
            practice: false,
            undo: Vec::new(),
            taken_back: 0,
            rng,
        }
    }

    /// The current hand's deal.
    pub fn deal(&self) -> Deal {
        self.deal
    }

    pub fn state(&self) -> &GameState {
        &self.state
    }

    pub fn history(&self) -> &[(Seat, Action)] {
        &self.history
    }

    /// The last complete trick, shown until the next one completes so that
    /// the person sees what was played after their card.
    pub fn last_trick(&self) -> Option<&PlayedTrick> {
        self.tricks
            .iter()
            .rev()
            .find(|trick| trick.winner.is_some())
    }

    /// This hand's tricks so far, in order; the last may be in play.
    pub fn tricks(&self) -> &[PlayedTrick] {
        &self.tricks
    }

    /// A practice game: the person may take moves back.
    pub fn with_practice(mut self, practice: bool) -> HumanGame {
        self.practice = practice;
        self
    }

    pub fn practice(&self) -> bool {
        self.practice
    }

    /// How many moves the person took back in this game.
    pub fn taken_back(&self) -> u32 {
        self.taken_back
    }

    /// Whether [`HumanGame::undo`] has a move to take back.
    pub fn can_undo(&self) -> bool {
        self.practice && !self.undo.is_empty()
    }

    /// Takes back the person's last choice in this hand and the bots'
    /// replies to it: the table is as it was when the person chose, and
    /// the same move made again meets the same replies. Only in a practice
    /// game, and not past the deal of this hand.
    pub fn undo(&mut self) -> Result<(), MoveError> {
        if !self.practice {
            return Err(MoveError::CannotUndo(
                "this is not a practice game: start one with practice on to take moves back",
            ));
        }
        let Some(snapshot) = self.undo.pop() else {
            return Err(MoveError::CannotUndo(
                "there is no move of yours to take back in this hand",
            ));
        };
        self.state = snapshot.state;
        self.history.truncate(snapshot.history);
        self.tricks = snapshot.tricks;
        self.summary = snapshot.summary;
        self.score = snapshot.score;
        self.hands_played = snapshot.hands_played;
        self.finished.truncate(snapshot.finished);
        self.rng = snapshot.rng;
        self.taken_back += 1;
        Ok(())
    }

    fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.state,
            history: self.history.len(),
            tricks: self.tricks.clone(),
            summary: self.summary.clone(),
            score: self.score,
            hands_played: self.hands_played,
            finished: self.finished.len(),
            rng: self.rng.clone(),
        }
    }

    /// The finished hand, while the table waits for the next deal.
    pub fn summary(&self) -> Option<&HandSummary> {
        self.summary.as_ref()
    }

    pub fn bot_name(&self, seat: Seat) -> Option<String> {
        self.bot_names[seat.index()].clone()
    }

    /// Names the partner and the opponents as the host offers them (for
    /// example by a label that names no file), in the saved game and on
    /// the page.
    pub fn with_bot_names(mut self, partner: &str, opponents: &str) -> HumanGame {
        self.bot_names = [
            Some(partner.to_owned()),
            Some(opponents.to_owned()),
            None,
            Some(opponents.to_owned()),
        ];
        self
    }

    /// The team that reached the target, once one has.
    pub fn winner(&self) -> Option<Team> {
        [Team::NorthSouth, Team::EastWest]
            .into_iter()
            .filter(|team| self.score[team.index()] >= self.target)
            .max_by_key(|team| self.score[team.index()])
    }

    /// The game's score as this hand was dealt, which every bot at the
    /// table sees (a bot that plays for the game plays to it). `None` for
    /// a target past 100, which no model covers: the bots then play the
    /// hand for points.
    pub fn game_score(&self) -> Option<GameScore> {
        let target = u8::try_from(self.target)
            .ok()
            .filter(|t| (1..=100).contains(t))?;
        let points = self.score.map(|points| points.min(u32::from(target)) as u8);
        Some(GameScore {
            points,
            dealer: self.deal.dealer,
            target,
        })
    }

    /// The view of the seat to act, with the game's score.
    fn seen(&self) -> Seen<'_> {
        match self.game_score() {
            Some(score) => Seen::in_game(&self.state, &self.history, score),
            None => Seen::new(&self.state, &self.history),
        }
    }

    pub fn persons_turn(&self) -> bool {
        self.state.to_act() == Some(PERSON)
    }

    /// Why the person may not play `card` now, or `None` if they may.
    pub fn why_not(&self, action: Action) -> Option<String> {
        if !self.persons_turn() {
            return Some("it is not your turn".to_owned());
        }
        let legal = self.state.legal_actions();
        if legal.contains(action) {
            return None;
        }
        Some(match (self.state.stage(), action) {
            (Stage::Play, Action::Play(card)) => {
                if !self.state.hand(PERSON).contains(card) {
                    format!("you do not hold {}", card.pretty())
                } else {
                    let trump = self.state.contract().map(|contract| contract.trump);
                    let led = self.state.trick().led;
                    let played = trump.map_or(card.suit(), |trump| effective_suit(card, trump));
                    format!(
                        "{} counts as {}, and you must follow the suit led ({}{})",
                        card.pretty(),
                        played.symbol(),
                        led.symbol(),
                        if trump == Some(led) { ", trump" } else { "" }
                    )
                }
            }
            (Stage::DealerDiscard, Action::Discard(card)) if card == self.state.upcard() => {
                "these rules do not let the dealer discard the upcard".to_owned()
            }
            (Stage::BiddingRound1 | Stage::BiddingRound2, Action::Play(_)) => {
                "the bidding is not over: choose a bid".to_owned()
            }
            (Stage::DealerDiscard, Action::Play(_)) => {
                "you picked up the upcard: choose a card to discard first".to_owned()
            }
            _ => format!("the legal moves are {legal}"),
        })
    }

    /// Where the game stands now, for a form to carry.
    pub fn position(&self) -> Position {
        Position {
            hands_played: self.hands_played,
            actions: self.history.len() as u32,
            taken_back: self.taken_back,
        }
    }

    /// Refuses a move made at another position than this one.
    pub fn check_position(&self, sent: Position) -> Result<(), MoveError> {
        let now = self.position();
        if sent == now {
            Ok(())
        } else {
            Err(MoveError::Stale { sent, now })
        }
    }

    /// The person's move, then the bots' until it is the person's turn
    /// again, the hand is over, or `stop` says to leave the rest for later.
    pub fn person_moves(&mut self, action: Action, stop: &StopCheck) -> Result<(), MoveError> {
        if self.winner().is_some() {
            return Err(MoveError::GameOver);
        }
        if !self.persons_turn() {
            return Err(MoveError::NotYourTurn);
        }
        if let Some(reason) = self.why_not(action) {
            return Err(MoveError::Illegal { action, reason });
        }
        if self.practice {
            self.undo.push(self.snapshot());
        }
        self.apply(action);
        self.run_bots(stop);
        Ok(())
    }

    /// Deals the next hand, the deal passing to the left, and lets the
    /// bots play to the person's turn unless `stop` says to leave it.
    pub fn next_hand(&mut self, stop: &StopCheck) -> Result<(), MoveError> {
        if self.winner().is_some() {
            return Err(MoveError::GameOver);
        }
        if self.summary.is_none() {
            return Err(MoveError::HandNotOver);
        }
        let dealer = self.deal.dealer.left();
        self.deal = Deal::random(dealer, &mut self.rng);
        self.state = GameState::new(self.deal, *self.state.rules());
        self.history.clear();
        self.tricks.clear();
        self.summary = None;
        self.undo.clear();
        self.run_bots(stop);
        Ok(())
    }

    fn apply(&mut self, action: Action) {
        let Some(seat) = self.state.to_act() else {
            return;
        };
        let tricks_before = self.state.tricks_played();
        if let Action::Play(card) = action {
            if self.state.trick().card_count() == 0 {
                self.tricks.push(PlayedTrick {
                    leader: seat,
                    cards: [None; 4],
                    winner: None,
                });
            }
            if let Some(trick) = self.tricks.last_mut() {
                trick.cards[seat.index()] = Some(card);
            }
        }
        self.state.apply(action);
        self.history.push((seat, action));
        if self.state.tricks_played() > tricks_before {
            // The winner leads the next trick, or the hand is over.
            let winner = match (self.state.to_act(), self.state.contract()) {
                (Some(leader), _) => leader,
                (None, Some(contract)) => self.state.trick().winner(contract.trump).unwrap_or(seat),
                (None, None) => seat,
            };
            if let Some(trick) = self.tricks.last_mut() {
                trick.winner = Some(winner);
            }
        }
        if self.state.is_finished() && self.summary.is_none() {
            self.finish_hand();
        }
    }

    fn finish_hand(&mut self) {
        let outcome = self.state.outcome();
        let points = outcome.map_or([0, 0], |outcome| outcome.points);
        for team in [Team::NorthSouth, Team::EastWest] {
            self.score[team.index()] += u32::from(points[team.index()]);
        }
        self.hands_played += 1;
        self.finished.push((self.deal, self.history.clone()));
        self.summary = Some(HandSummary {
            deal: self.deal,
            contract: self.state.contract(),
            discard: self.state.discard(),
            tricks: [
                self.state.tricks_won(Team::NorthSouth),
                self.state.tricks_won(Team::EastWest),
            ],
            points,
        });
    }

    /// The game's finished hands as Euchre Game Notation: the dealt hands,
    /// the calls, the discard and every trick, so that another program (or
    /// `trainer analyze`) replays it exactly.
    pub fn egn(&self) -> String {
        let names = Seat::ALL.map(|seat| match &self.bot_names[seat.index()] {
            Some(name) => format!("{name} ({})", seat_name(seat)),
            None => "You".to_owned(),
        });
        let mut game = egn::Game::of_hands(names, *self.state.rules(), &self.finished);
        game.winning_score = Some(i64::from(self.target));
        game.metadata.title = Some(match (self.practice, self.taken_back) {
            (false, _) => "A game at the euchre-cfr table".to_owned(),
            (true, 0) => "A practice game at the euchre-cfr table".to_owned(),
            (true, 1) => "A practice game at the euchre-cfr table (1 move taken back)".to_owned(),
            (true, n) => format!("A practice game at the euchre-cfr table ({n} moves taken back)"),
        });
        game.metadata.final_score = Some(self.score.iter().map(|&s| i64::from(s)).collect());
        egn::write(&game)
    }

    /// The hint for the person's move: each legal move's value for their
    /// side, or the bot's probability for it, or only the move the bot
    /// would make, from what the person sees and nothing more.
    pub fn hint(&self, bot: &dyn Bot) -> Option<Hint> {
        if !self.persons_turn() {
            return None;
        }
        let seen = self.seen();
        let mut rng = self.rng.clone();
        // A bot that plays for the game values by the chance of winning it
        // wherever the person's view shows the score; its twin states the
        // other unit beside, from the same worlds, wherever the score is
        // shown (the chance of winning needs it).
        let unit = if bot.plays_for_the_game() && seen.score().is_some() {
            LossUnit::Chance
        } else {
            LossUnit::Points
        };
        if seen.score().is_some()
            && let Some([values, beside]) = bot.values_beside(&seen, seen.score(), &mut rng)
        {
            return Some(Hint::Values {
                unit,
                values,
                beside: Some(beside),
            });
        }
        if let Some(values) = bot.values(&seen, &mut rng) {
            let beside = seen
                .score()
                .and_then(|_| bot.valuing(unit == LossUnit::Points))
                .and_then(|twin| twin.values(&seen, &mut self.rng.clone()));
            return Some(Hint::Values {
                unit,
                values,
                beside,
            });
        }
        if let Some(probabilities) = bot.probabilities(&seen) {
            return Some(Hint::Probabilities(probabilities));
        }
        Some(Hint::Choice(bot.act(&seen, &mut rng)))
    }

    /// Whether a bot is to move (after [`HumanGame::new`], or when `stop`
    /// cut the bots' turns short), or the person's only card is to be
    /// played for them.
    pub fn bots_to_move(&self) -> bool {
        self.state
            .to_act()
            .is_some_and(|seat| self.bots[seat.index()].is_some())
            || self.forced_card().is_some()
    }

    /// The person's card when it is their only legal move and they asked
    /// for such cards to be played for them. Bids and the dealer's discard
    /// always have a choice, so only cards are forced.
    fn forced_card(&self) -> Option<Action> {
        if !self.auto_play_forced || !self.persons_turn() || self.state.stage() != Stage::Play {
            return None;
        }
        let legal = self.state.legal_actions();
        (legal.len() == 1).then(|| legal[0])
    }

    /// Lets the bots move until the person is to act or the hand ends.
    /// `stop` is asked before each bot's decision: a server whose client has
    /// gone stops here, and the bots resume at the next call.
    pub fn run_bots(&mut self, stop: &StopCheck) {
        while let Some(seat) = self.state.to_act() {
            let Some(bot) = self.bots[seat.index()].clone() else {
                match self.forced_card() {
                    Some(card) => {
                        self.apply(card);
                        continue;
                    }
                    None => return,
                }
            };
            if stop() {
                return;
            }
            // A decision cut short answers with what it had; that move is
            // not played, and the decision is made again in full next time.
            let mut rng = self.rng.clone();
            let action = {
                let seen = self.seen();
                crate::stop::with_stop(Arc::clone(stop), || bot.act(&seen, &mut rng))
            };
            if stop() {
                return;
            }
            self.rng = rng;
            self.apply(action);
        }
    }
}

/// How a seat is named to the person at South, who is "You".
pub fn seat_name(seat: Seat) -> &'static str {
    match seat {
        Seat::North => "North",
        Seat::East => "East",
        Seat::South => "You",
        Seat::West => "West",
    }
}

#[cfg(test)]
mod tests;
