//! Kuhn poker: three cards (J, Q, K), one each, ante 1, one bet of 1.
//! The first player's equilibrium value is -1/18.

use crate::game::{Game, Node};

/// Action 0 is pass (check or fold), action 1 is bet (bet or call).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Kuhn {
    cards: [u8; 2],
    dealt: u8,
    history: [u8; 3],
    moves: u8,
}

impl Default for Kuhn {
    fn default() -> Self {
        Kuhn::new()
    }
}

impl Kuhn {
    pub const JACK: u8 = 0;
    pub const QUEEN: u8 = 1;
    pub const KING: u8 = 2;

    pub fn new() -> Kuhn {
        Kuhn {
            cards: [0; 2],
            dealt: 0,
            history: [0; 3],
            moves: 0,
        }
    }

    fn history(&self) -> &[u8] {
        &self.history[..self.moves as usize]
    }

    /// The key of `player` holding `card` after `history` (0 pass, 1 bet).
    pub fn key(card: u8, history: &[u8]) -> u128 {
        let mut key = 1u128 << 100 | u128::from(card) << 8 | (history.len() as u128) << 4;
        for (index, &action) in history.iter().enumerate() {
            key |= u128::from(action) << index;
        }
        key
    }
}

impl Game for Kuhn {
    fn num_players(&self) -> usize {
        2
    }

    fn node(&self) -> Node {
        if self.dealt < 2 {
            return Node::Chance;
        }
        match self.history() {
            [0, 0] | [1, _] | [0, 1, _] => Node::Terminal,
            history => Node::Decision(history.len() % 2),
        }
    }

    fn num_actions(&self) -> usize {
        if self.dealt < 2 {
            3 - self.dealt as usize
        } else {
            2
        }
    }

    fn chance_probability(&self, _outcome: usize) -> f64 {
        1.0 / self.num_actions() as f64
    }

    fn apply(&mut self, action: usize) {
        if self.dealt < 2 {
            let remaining = (0..3u8).filter(|card| self.dealt == 0 || *card != self.cards[0]);
            self.cards[self.dealt as usize] = remaining.clone().nth(action).unwrap_or(0);
            self.dealt += 1;
        } else {
            self.history[self.moves as usize] = action as u8;
            self.moves += 1;
        }
    }

    fn info_key(&self) -> u128 {
        let player = self.history().len() % 2;
        Kuhn::key(self.cards[player], self.history())
    }

    fn payoff(&self, player: usize) -> f64 {
        let first_wins = self.cards[0] > self.cards[1];
        let showdown = |stake: f64| if first_wins { stake } else { -stake };
        let first = match self.history() {
            [0, 0] => showdown(1.0),
            [1, 1] | [0, 1, 1] => showdown(2.0),
            [1, 0] => 1.0,
            [0, 1, 0] => -1.0,
            _ => 0.0,
        };
        if player == 0 { first } else { -first }
    }
}

/// The analytic equilibrium family, for `alpha` in [0, 1/3]: the first
/// player bets a jack with probability `alpha`, a king `3 alpha`, and calls
/// with a queen `alpha + 1/3`; the second player calls with a queen and
/// bluffs a jack `1/3` of the time.
pub fn equilibrium(alpha: f64, key: u128, out: &mut [f64]) {
    let card = ((key >> 8) & 0xff) as u8;
    let length = ((key >> 4) & 0xf) as usize;
    let history: Vec<u8> = (0..length)
        .map(|index| ((key >> index) & 1) as u8)
        .collect();
    let bet = match (history.as_slice(), card) {
        ([], Kuhn::JACK) => alpha,
        ([], Kuhn::QUEEN) => 0.0,
        ([], _) => 3.0 * alpha,
        ([0, 1], Kuhn::JACK) => 0.0,
        ([0, 1], Kuhn::QUEEN) => alpha + 1.0 / 3.0,
        ([0, 1], _) => 1.0,
        ([1], Kuhn::JACK) => 0.0,
        ([1], Kuhn::QUEEN) => 1.0 / 3.0,
        ([1], _) => 1.0,
        ([0], Kuhn::JACK) => 1.0 / 3.0,
        ([0], Kuhn::QUEEN) => 0.0,
        ([0], _) => 1.0,
        _ => 0.5,
    };
    out[0] = 1.0 - bet;
    out[1] = bet;
}
