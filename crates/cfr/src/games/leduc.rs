//! Leduc hold'em: six cards (J, Q, K in two suits), one private card each
//! and one board card, antes of 1, bets of 2 then 4, at most two raises a
//! round. The first player's equilibrium value is about -0.0856.
//!
//! Keys use the card's rank only: suits never matter, so this is a lossless
//! abstraction with the same equilibrium value and exploitability.

use crate::game::{Game, Node};

/// Actions: 0 fold (only when facing a bet), 1 check or call, 2 bet or raise.
/// The legal ones are numbered in that order, skipping fold when illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Leduc {
    /// Private cards then the board, as card indices 0..6 (rank = index / 2).
    cards: [u8; 3],
    dealt: u8,
    round: u8,
    /// Chips each player has put in.
    contributed: [u8; 2],
    raises_this_round: u8,
    moves_this_round: u8,
    to_act: u8,
    folded: Option<u8>,
    finished: bool,
    /// Betting history: 2 bits per move (0 fold, 1 call, 2 raise), both rounds.
    history: u32,
    moves: u8,
}

impl Default for Leduc {
    fn default() -> Self {
        Leduc::new()
    }
}

const FOLD: u8 = 0;
const CALL: u8 = 1;
const RAISE: u8 = 2;

impl Leduc {
    pub fn new() -> Leduc {
        Leduc {
            cards: [0; 3],
            dealt: 0,
            round: 1,
            contributed: [1, 1],
            raises_this_round: 0,
            moves_this_round: 0,
            to_act: 0,
            folded: None,
            finished: false,
            history: 0,
            moves: 0,
        }
    }

    fn facing_bet(&self) -> bool {
        self.contributed[0] != self.contributed[1]
    }

    /// The legal moves in order: fold only when facing a bet, raise only
    /// below the cap.
    fn legal(&self) -> ([u8; 3], usize) {
        let mut moves = [0; 3];
        let mut count = 0;
        for candidate in [FOLD, CALL, RAISE] {
            let allowed = match candidate {
                FOLD => self.facing_bet(),
                RAISE => self.raises_this_round < 2,
                _ => true,
            };
            if allowed {
                moves[count] = candidate;
                count += 1;
            }
        }
        (moves, count)
    }

    fn rank(card: u8) -> u8 {
        card / 2
    }

    fn remaining_card(&self, index: usize) -> u8 {
        (0..6u8)
            .filter(|card| !self.cards[..self.dealt as usize].contains(card))
            .nth(index)
            .unwrap_or(0)
    }

    fn needs_chance(&self) -> bool {
        self.dealt < 2 || (self.round == 2 && self.dealt < 3)
    }
}

impl Game for Leduc {
    fn num_players(&self) -> usize {
        2
    }

    fn node(&self) -> Node {
        if self.finished {
            Node::Terminal
        } else if self.needs_chance() {
            Node::Chance
        } else {
            Node::Decision(self.to_act as usize)
        }
    }

    fn num_actions(&self) -> usize {
        if self.needs_chance() {
            6 - self.dealt as usize
        } else {
            self.legal().1
        }
    }

    fn chance_probability(&self, _outcome: usize) -> f64 {
        1.0 / f64::from(6 - self.dealt)
    }

    fn apply(&mut self, action: usize) {
        if self.needs_chance() {
            self.cards[self.dealt as usize] = self.remaining_card(action);
            self.dealt += 1;
            return;
        }
        let (moves, _) = self.legal();
        let choice = moves[action];
        let player = self.to_act as usize;
        let other = 1 - player;
        self.history |= u32::from(choice) << (2 * self.moves);
        self.moves += 1;
        self.moves_this_round += 1;
        match choice {
            FOLD => {
                self.folded = Some(self.to_act);
                self.finished = true;
                return;
            }
            CALL => {
                let round_over = self.facing_bet() || self.moves_this_round >= 2;
                self.contributed[player] = self.contributed[other];
                if round_over {
                    if self.round == 2 {
                        self.finished = true;
                    } else {
                        self.round = 2;
                        self.raises_this_round = 0;
                        self.moves_this_round = 0;
                        self.to_act = 0;
                        return;
                    }
                    return;
                }
            }
            _ => {
                let bet = if self.round == 1 { 2 } else { 4 };
                self.contributed[player] = self.contributed[other] + bet;
                self.raises_this_round += 1;
            }
        }
        self.to_act = other as u8;
    }

    fn info_key(&self) -> u128 {
        let player = self.to_act as usize;
        let board = if self.dealt == 3 {
            u128::from(Self::rank(self.cards[2])) + 1
        } else {
            0
        };
        2u128 << 100
            | (player as u128) << 40
            | u128::from(Self::rank(self.cards[player])) << 36
            | board << 32
            | u128::from(self.moves) << 24
            | u128::from(self.history)
    }

    fn payoff(&self, player: usize) -> f64 {
        let other = 1 - player;
        if let Some(folder) = self.folded {
            return if folder as usize == player {
                -f64::from(self.contributed[player])
            } else {
                f64::from(self.contributed[other])
            };
        }
        let board = Self::rank(self.cards[2]);
        let strength = |p: usize| {
            let rank = Self::rank(self.cards[p]);
            if rank == board { 10 + rank } else { rank }
        };
        match strength(player).cmp(&strength(other)) {
            std::cmp::Ordering::Greater => f64::from(self.contributed[other]),
            std::cmp::Ordering::Less => -f64::from(self.contributed[player]),
            std::cmp::Ordering::Equal => 0.0,
        }
    }
}
