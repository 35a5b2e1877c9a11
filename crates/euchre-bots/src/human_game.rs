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
use thiserror::Error;

use crate::bot::{ActionValue, Bot};
use crate::seen::Seen;
use crate::stop::StopCheck;

/// The person's seat.
pub const PERSON: Seat = Seat::South;

/// A move the table refuses, in words for the person who tried it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum MoveError {
    #[error("it is not your turn")]
    NotYourTurn,
    #[error("'{0}' is not a move: {1}")]
    Unreadable(String, String),
    #[error("{} is not allowed: {reason}", action.pretty())]
    Illegal { action: Action, reason: String },
    #[error("the game is over; start a new one")]
    GameOver,
    #[error("the hand is still being played")]
    HandNotOver,
    #[error(
        "this move answers position {sent}, but the game is at {now}: it has moved on (a form sent twice, or from an old page); here it is now"
    )]
    Stale { sent: Position, now: Position },
}

/// Where a game stands: hands finished and actions taken in this hand. A
/// form carries the position it was drawn at, so a move posted twice, or
/// from a page the game has since left, is refused instead of applied to
/// a position its sender never saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub hands_played: u32,
    pub actions: u32,
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.hands_played, self.actions)
    }
}

impl std::str::FromStr for Position {
    type Err = MoveError;

    fn from_str(text: &str) -> Result<Position, MoveError> {
        let unreadable = || {
            MoveError::Unreadable(
                text.to_owned(),
                "a position is written HANDS.ACTIONS, as the game's forms send it".to_owned(),
            )
        };
        let (hands, actions) = text.split_once('.').ok_or_else(unreadable)?;
        Ok(Position {
            hands_played: hands.parse().map_err(|_| unreadable())?,
            actions: actions.parse().map_err(|_| unreadable())?,
        })
    }
}

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
    /// The last complete trick, shown until the next one completes so that
    /// the person sees what was played after their card.
    last_trick: Option<([Option<Card>; 4], Seat)>,
    summary: Option<HandSummary>,
    /// Every finished hand of the game, for saving it.
    finished: Vec<(Deal, Vec<(Seat, Action)>)>,
    /// Whether the table shows hints for the person's moves.
    pub show_hints: bool,
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
            last_trick: None,
            summary: None,
            finished: Vec::new(),
            show_hints: false,
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

    pub fn last_trick(&self) -> Option<&([Option<Card>; 4], Seat)> {
        self.last_trick.as_ref()
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
        self.last_trick = None;
        self.summary = None;
        self.run_bots(stop);
        Ok(())
    }

    fn apply(&mut self, action: Action) {
        let Some(seat) = self.state.to_act() else {
            return;
        };
        let tricks_before = self.state.tricks_played();
        let mut trick_cards = [None; 4];
        if let Action::Play(card) = action {
            let trick = self.state.trick();
            for other in Seat::ALL {
                if trick.has_played(other) {
                    trick_cards[other.index()] = Some(trick.cards[other.index()]);
                }
            }
            trick_cards[seat.index()] = Some(card);
        }
        self.state.apply(action);
        self.history.push((seat, action));
        if self.state.tricks_played() > tricks_before {
            // The winner leads the next trick; the last trick stays in place.
            let winner = match (self.state.to_act(), self.state.contract()) {
                (Some(leader), _) => leader,
                (None, Some(contract)) => self.state.trick().winner(contract.trump).unwrap_or(seat),
                (None, None) => seat,
            };
            self.last_trick = Some((trick_cards, winner));
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
        game.metadata.title = Some("A game at the euchre-cfr table".to_owned());
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
        if let Some(values) = bot.values(&seen, &mut rng) {
            // A bot that plays for the game values by the chance of winning
            // it wherever the person's view shows the score.
            return Some(if bot.plays_for_the_game() && seen.score().is_some() {
                Hint::Chances(values)
            } else {
                Hint::Values(values)
            });
        }
        if let Some(probabilities) = bot.probabilities(&seen) {
            return Some(Hint::Probabilities(probabilities));
        }
        Some(Hint::Choice(bot.act(&seen, &mut rng)))
    }

    /// Whether a bot is to move: after [`HumanGame::new`], or when `stop`
    /// cut the bots' turns short.
    pub fn bots_to_move(&self) -> bool {
        self.state
            .to_act()
            .is_some_and(|seat| self.bots[seat.index()].is_some())
    }

    /// Lets the bots move until the person is to act or the hand ends.
    /// `stop` is asked before each bot's decision: a server whose client has
    /// gone stops here, and the bots resume at the next call.
    pub fn run_bots(&mut self, stop: &StopCheck) {
        while let Some(seat) = self.state.to_act() {
            let Some(bot) = self.bots[seat.index()].clone() else {
                return;
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

/// What a bot makes of the person's options (see [`HumanGame::hint`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// Each move's value in points per hand for the person's side.
    Values(Vec<ActionValue>),
    /// Each move's chance of winning the game for the person's side, from
    /// the score: the hint bot plays for the game.
    Chances(Vec<ActionValue>),
    Probabilities(Vec<(Action, f64)>),
    Choice(Action),
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
mod tests {
    use super::*;
    use crate::bots::heuristic::Heuristic;

    fn game() -> HumanGame {
        HumanGame::new(
            Arc::new(Heuristic),
            Arc::new(Heuristic),
            Rules::default(),
            10,
            3,
        )
    }

    /// A stopped turn of the bots leaves the game where they stopped, and
    /// the next call goes on from there to the person's turn.
    #[test]
    fn bots_stopped_early_resume_where_they_stopped() {
        let mut game = game();
        let fresh = game.position();
        game.run_bots(&(Arc::new(|| true) as StopCheck));
        assert_eq!(game.position(), fresh, "a stop before any decision");
        game.run_bots(&crate::stop::never());
        assert!(game.persons_turn() || game.summary().is_some());
        assert!(!game.bots_to_move());
    }

    /// A saved game reads back as EGN and replays hand for hand.
    #[test]
    fn a_finished_game_saves_as_egn_that_replays() {
        let mut game = game();
        let never = crate::stop::never();
        game.run_bots(&never);
        let mut hands = 0;
        while game.winner().is_none() && hands < 40 {
            while game.persons_turn() {
                let action = game.state().legal_actions()[0];
                game.person_moves(action, &never).unwrap();
            }
            if game.summary().is_some() {
                hands += 1;
                if game.winner().is_none() {
                    game.next_hand(&never).unwrap();
                }
            }
        }
        let read = egn::read(&game.egn()).unwrap();
        assert_eq!(read.deals.len(), hands);
        assert_eq!(read.names[2], "You");
        assert_eq!(read.winning_score, Some(10));
        let mut points = [0u32; 2];
        for deal in &read.deals {
            let rebuilt = egn::reconstruct(deal.as_ref().unwrap(), read.rules).unwrap();
            let outcome = rebuilt.end.outcome().unwrap();
            points[0] += u32::from(outcome.points[0]);
            points[1] += u32::from(outcome.points[1]);
        }
        assert_eq!(points, game.score);
    }

    /// Every bot at the table sees the game's score as each hand was
    /// dealt, and the dealer of that hand.
    #[test]
    fn the_bots_see_the_games_score_as_each_hand_was_dealt() {
        let mut game = game();
        let never = crate::stop::never();
        assert_eq!(
            game.game_score(),
            Some(GameScore {
                points: [0, 0],
                dealer: game.deal().dealer,
                target: 10
            })
        );
        game.run_bots(&never);
        while game.summary().is_none() {
            let action = game.state().legal_actions()[0];
            game.person_moves(action, &never).unwrap();
        }
        let after = game.score;
        game.next_hand(&never).unwrap();
        let seen = game.game_score().unwrap();
        assert_eq!(seen.points, after.map(|p| p as u8));
        assert_eq!(seen.dealer, game.deal().dealer);
        let endless = HumanGame::new(
            Arc::new(Heuristic),
            Arc::new(Heuristic),
            Rules::default(),
            500,
            3,
        );
        assert_eq!(endless.game_score(), None, "no model past 100 points");
    }

    #[test]
    fn hints_are_for_the_persons_turn_only() {
        let mut game = game();
        game.run_bots(&crate::stop::never());
        assert!(game.persons_turn());
        let pimc = crate::bots::pimc::Pimc::new(8);
        let Some(Hint::Values(values)) = game.hint(&pimc) else {
            panic!("PIMC values every legal move");
        };
        let legal = game.state().legal_actions();
        assert_eq!(values.len(), legal.len());
        assert!(values.iter().all(|value| legal.contains(value.action)));
        assert!(matches!(game.hint(&Heuristic), Some(Hint::Choice(_))));
        let for_game = crate::bots::pimc::Pimc::for_game(8, crate::game_outcomes::reference());
        let Some(Hint::Chances(chances)) = game.hint(&for_game) else {
            panic!("a bot that plays for the game hints in chances of winning it");
        };
        assert!(
            chances.iter().all(|c| (0.0..=1.0).contains(&c.value)),
            "{chances:?}"
        );
        game.person_moves(legal[0], &crate::stop::never()).unwrap();
        if !game.persons_turn() {
            assert_eq!(game.hint(&pimc), None);
        }
    }

    #[test]
    fn positions_read_back_and_a_stale_one_is_refused() {
        let mut game = game();
        game.run_bots(&crate::stop::never());
        let at = game.position();
        assert_eq!(at.to_string().parse::<Position>().unwrap(), at);
        assert!(game.check_position(at).is_ok());
        let action = game.state().legal_actions()[0];
        game.person_moves(action, &crate::stop::never()).unwrap();
        assert!(matches!(
            game.check_position(at),
            Err(MoveError::Stale { .. })
        ));
        assert!("3".parse::<Position>().is_err());
        assert!("a.b".parse::<Position>().is_err());
    }
}
