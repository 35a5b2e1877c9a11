//! An exact open-hand ("double-dummy") solver: with every hand face up, how
//! many tricks does each side take when both play perfectly?
//!
//! It values the leaves of the depth-limited phases and is the engine of the
//! PIMC bot, so training speed is mostly its speed. Maximising tricks also
//! maximises points: the score is a non-decreasing function of the makers'
//! tricks, and in a perfect-information game minimax commutes with a
//! monotone transform of the payoff, so one trick count serves every
//! scoring question.
//!
//! The search runs on its own compact position, not on [`GameState`]: once
//! trump is known, each card becomes one bit of a `u32` in which every
//! effective suit owns a byte and a higher bit is a stronger card, with
//! trump in the top byte. Following suit is one mask, a trick's winner is
//! its highest qualifying bit, and the move list needs no sorting.
//!
//! It is alpha-beta over the makers' trick count with:
//! - a transposition table keyed at trick boundaries by the cards still out
//!   and the leader (who holds which card is fixed for one solve), holding
//!   lower and upper bounds relative to the tricks already taken, so a
//!   position reached by different orders of play is searched once, and a
//!   second search of the same deal starts from what the first learned;
//! - rank equivalence: two cards of one hand with no live card of their
//!   suit between them (in a hand that plays, or in the trick) play
//!   identically, so only one of them is tried;
//! - winners first when following, the highest card first when leading;
//! - a last trick that is played out, not searched.
//!
//! [`DoubleDummy::solve_for_score`] asks only what the score depends on
//! (at least three tricks? all five?) with two null-window searches, which
//! prune far more than the exact count needs.

use rustc_hash::FxHashMap;

use crate::engine::action::Action;
use crate::engine::card::{Card, Suit};
use crate::engine::seat::{Seat, Team};
use crate::engine::state::{GameState, Stage};
use crate::engine::trump::{effective_suit, trump_order};

/// Bounds on the makers' tricks still to come from a trick boundary.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lower: u8,
    upper: u8,
}

/// A reusable solver. Its transposition table is cleared per position but
/// its memory is kept, so solving many positions allocates once.
#[derive(Debug, Default)]
pub struct DoubleDummy {
    table: FxHashMap<u64, Bounds>,
    nodes: u64,
}

/// Tricks taken by each team by the end of the hand, indexed by
/// [`Team::index`], including tricks already won.
pub type TrickSplit = [u8; 2];

/// The byte of the trump suit in the compact encoding.
const TRUMP_BYTE: u32 = 3;
const NO_CARD: u8 = u8::MAX;

/// The cards of the byte that holds `bit`.
#[inline]
fn suit_mask_of(bit: u8) -> u32 {
    0xFF << (bit & !7)
}

/// How strongly the card at `bit` contends for a trick led in `led_byte`:
/// 0 if it cannot win it. Trumps sit in the top byte, so they beat all.
#[inline]
fn contention(bit: u8, led_byte: u8) -> u8 {
    if u32::from(bit >> 3) == TRUMP_BYTE || bit >> 3 == led_byte {
        bit + 1
    } else {
        0
    }
}

/// The hand as the search sees it, for one deal and one trump suit.
#[derive(Clone, Copy, Debug)]
struct Position {
    /// Each seat's cards in the compact encoding; empty for a seat that
    /// sits out, whose cards never play.
    hands: [u32; 4],
    /// The compact bit each seat played to this trick, or [`NO_CARD`].
    trick: [u8; 4],
    led_byte: u8,
    leader: u8,
    to_act: u8,
    /// Seats that play, as a bit mask.
    active: u8,
    cards_in_trick: u8,
    makers: u8,
    maker_tricks: u8,
    tricks_played: u8,
}

impl Position {
    /// The compact form of `state`, with the table from card index to bit.
    fn of_state(state: &GameState) -> Option<(Position, [u8; 24])> {
        let contract = state.contract()?;
        if !matches!(state.stage(), Stage::Play | Stage::Finished) {
            return None;
        }
        let encoding = encoding(contract.trump);
        let encode = |card: Card| encoding[card.index()];
        let mut position = Position {
            hands: [0; 4],
            trick: [NO_CARD; 4],
            led_byte: 0,
            leader: state.trick().leader.index() as u8,
            to_act: state.to_act().map_or(0, |seat| seat.index() as u8),
            active: 0,
            cards_in_trick: 0,
            makers: contract.maker.team().index() as u8,
            maker_tricks: state.tricks_won(contract.maker.team()),
            tricks_played: state.tricks_played(),
        };
        for seat in Seat::ALL {
            if state.sits_out(seat) {
                continue;
            }
            position.active |= 1 << seat.index();
            position.hands[seat.index()] = state
                .hand(seat)
                .iter()
                .fold(0, |hand, card| hand | 1 << encode(card));
            if state.trick().has_played(seat) {
                let bit = encode(state.trick().cards[seat.index()]);
                position.trick[seat.index()] = bit;
                position.cards_in_trick += 1;
            }
        }
        if position.cards_in_trick > 0 {
            position.led_byte = encode(state.trick().cards[state.trick().leader.index()]) >> 3;
        }
        Some((position, encoding))
    }

    fn is_finished(&self) -> bool {
        self.tricks_played == 5
    }

    fn players(&self) -> u8 {
        self.active.count_ones() as u8
    }

    fn next_active(&self, seat: u8) -> u8 {
        let mut next = (seat + 1) & 3;
        while self.active & (1 << next) == 0 {
            next = (next + 1) & 3;
        }
        next
    }

    /// The cards still to be played, with the leader: at a trick boundary
    /// this is the whole position, since who holds which card is fixed.
    fn boundary_key(&self) -> u64 {
        let remaining = self.hands.iter().fold(0u32, |all, &hand| all | hand);
        u64::from(remaining) << 2 | u64::from(self.leader)
    }

    fn playable(&self) -> u32 {
        let hand = self.hands[self.to_act as usize];
        if self.cards_in_trick == 0 {
            return hand;
        }
        let follow = hand & (0xFF << (self.led_byte * 8));
        if follow == 0 { hand } else { follow }
    }

    fn play(&mut self, bit: u8) {
        let seat = self.to_act;
        self.hands[seat as usize] &= !(1 << bit);
        if self.cards_in_trick == 0 {
            self.leader = seat;
            self.led_byte = bit >> 3;
        }
        self.trick[seat as usize] = bit;
        self.cards_in_trick += 1;
        if self.cards_in_trick < self.players() {
            self.to_act = self.next_active(seat);
            return;
        }
        let winner = self.trick_winner();
        if winner & 1 == self.makers {
            self.maker_tricks += 1;
        }
        self.tricks_played += 1;
        self.trick = [NO_CARD; 4];
        self.cards_in_trick = 0;
        self.leader = winner;
        self.to_act = winner;
    }

    fn trick_winner(&self) -> u8 {
        let mut best = (0, self.leader);
        for seat in 0..4u8 {
            let bit = self.trick[seat as usize];
            if bit != NO_CARD {
                let strength = contention(bit, self.led_byte);
                if strength > best.0 {
                    best = (strength, seat);
                }
            }
        }
        best.1
    }

    /// The strongest contention in the trick so far (0 for an empty trick).
    fn best_in_trick(&self) -> u8 {
        self.trick
            .iter()
            .filter(|&&bit| bit != NO_CARD)
            .map(|&bit| contention(bit, self.led_byte))
            .max()
            .unwrap_or(0)
    }

    /// Plays out the fifth trick, where every card is forced.
    fn finish_last_trick(&mut self) {
        while !self.is_finished() {
            let bit = self.hands[self.to_act as usize].trailing_zeros() as u8;
            self.play(bit);
        }
    }

    /// The moves worth trying, best guess first, with rank-equivalent cards
    /// reduced to one. Returns how many were written to `out`.
    fn candidate_moves(&self, out: &mut [u8; 8]) -> usize {
        let hand = self.hands[self.to_act as usize];
        let playable = self.playable();
        let mut live = self.hands.iter().fold(0u32, |all, &hand| all | hand);
        for &bit in &self.trick {
            if bit != NO_CARD {
                live |= 1 << bit;
            }
        }
        // A card is worth trying unless the next live card above it in its
        // suit is also ours: then the two are interchangeable.
        let mut candidates = 0u32;
        let mut rest = playable;
        while rest != 0 {
            let bit = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            let above = live & suit_mask_of(bit) & !((2u32 << bit) - 1);
            if above == 0 || hand & (1 << above.trailing_zeros()) == 0 {
                candidates |= 1 << bit;
            }
        }
        let mut count = 0;
        if self.cards_in_trick == 0 {
            // Leading: strongest first (trumps, then the other suits).
            while candidates != 0 {
                let bit = 31 - candidates.leading_zeros() as u8;
                candidates &= !(1 << bit);
                out[count] = bit;
                count += 1;
            }
            return count;
        }
        // Following: the cheapest card that takes the trick so far first,
        // then the others from the cheapest up.
        let best = self.best_in_trick();
        let mut losers = [0u8; 8];
        let mut loser_count = 0;
        while candidates != 0 {
            let bit = candidates.trailing_zeros() as u8;
            candidates &= candidates - 1;
            if contention(bit, self.led_byte) > best {
                out[count] = bit;
                count += 1;
            } else {
                losers[loser_count] = bit;
                loser_count += 1;
            }
        }
        out[count..count + loser_count].copy_from_slice(&losers[..loser_count]);
        count + loser_count
    }
}

/// Card index to compact bit for one trump suit: trump in the top byte
/// (nine at bit 0 of it up to the right bower at bit 6), the other suits in
/// bytes 0 to 2 by rank (nine at bit 0 up to the ace at bit 5).
fn encoding(trump: Suit) -> [u8; 24] {
    let mut table = [0u8; 24];
    let mut byte = 0u8;
    let mut byte_of_suit = [0u8; 4];
    for suit in Suit::ALL {
        if suit == trump {
            byte_of_suit[suit.index()] = TRUMP_BYTE as u8;
        } else {
            byte_of_suit[suit.index()] = byte;
            byte += 1;
        }
    }
    for card in Card::ALL {
        let suit = effective_suit(card, trump);
        let within = if suit == trump {
            trump_order(card, trump)
        } else {
            card.rank() as u8
        };
        table[card.index()] = byte_of_suit[suit.index()] * 8 + within;
    }
    table
}

impl DoubleDummy {
    pub fn new() -> DoubleDummy {
        DoubleDummy::default()
    }

    /// Search nodes visited since the solver was made: a cost measure for
    /// benchmarks that does not depend on the machine.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The tricks each team takes from `state` with best play by both
    /// sides. `None` unless the hand is in play or finished with a contract.
    pub fn solve(&mut self, state: &GameState) -> Option<TrickSplit> {
        let (position, _) = Position::of_state(state)?;
        self.table.clear();
        let maker_tricks = self.search(&position, 0, 5);
        Some(split(position.makers, maker_tricks))
    }

    /// A trick split that scores exactly as the one [`DoubleDummy::solve`]
    /// returns, found by asking only what the score depends on: do the
    /// makers take at least three tricks, and if so all five? The makers'
    /// count in it is 2 for any euchre, 3 for three or four tricks and 5 for
    /// a march; the score cannot tell those apart, and the two null-window
    /// searches are several times cheaper than the exact count.
    pub fn solve_for_score(&mut self, state: &GameState) -> Option<TrickSplit> {
        let (position, _) = Position::of_state(state)?;
        self.table.clear();
        let maker_tricks = if self.search(&position, 2, 3) < 3 {
            2
        } else if self.search(&position, 4, 5) < 5 {
            3
        } else {
            5
        };
        Some(split(position.makers, maker_tricks))
    }

    /// For each card the player to act may play, the tricks the actor's team
    /// ends with if it plays that card and everyone plays perfectly after.
    /// Empty unless a card is to be played.
    pub fn card_values(&mut self, state: &GameState) -> Vec<(Card, u8)> {
        let Some(actor) = state.to_act() else {
            return Vec::new();
        };
        if state.stage() != Stage::Play {
            return Vec::new();
        }
        let Some((position, encoding)) = Position::of_state(state) else {
            return Vec::new();
        };
        let team = actor.team().index() as u8;
        // One table serves every card: the positions all share one deal.
        self.table.clear();
        state
            .playable_cards()
            .iter()
            .map(|card| {
                let mut next = position;
                next.play(encoding[card.index()]);
                let maker_tricks = self.search(&next, 0, 5);
                (card, split(position.makers, maker_tricks)[team as usize])
            })
            .collect()
    }

    /// The makers' final trick count from `position`, exact when it lies in
    /// `(alpha, beta)`, otherwise a bound on the side of the window it
    /// fell (fail-soft).
    fn search(&mut self, position: &Position, mut alpha: u8, mut beta: u8) -> u8 {
        self.nodes += 1;
        let taken = position.maker_tricks;
        if position.is_finished() {
            return taken;
        }
        if position.tricks_played == 4 {
            let mut last = *position;
            last.finish_last_trick();
            return last.maker_tricks;
        }
        let at_boundary = position.cards_in_trick == 0;
        let key = if at_boundary {
            position.boundary_key()
        } else {
            0
        };
        let remaining = 5 - position.tricks_played;
        let (mut lower, mut upper) = (taken, taken + remaining);
        if at_boundary && let Some(bounds) = self.table.get(&key) {
            lower = taken + bounds.lower;
            upper = taken + bounds.upper;
        }
        if lower >= beta {
            return lower;
        }
        if upper <= alpha {
            return upper;
        }
        if lower == upper {
            return lower;
        }
        alpha = alpha.max(lower);
        beta = beta.min(upper);
        let (alpha_in, beta_in) = (alpha, beta);

        let maximising = position.to_act & 1 == position.makers;
        let mut best = if maximising { 0 } else { 5 };
        let mut moves = [0u8; 8];
        let count = position.candidate_moves(&mut moves);
        for &bit in &moves[..count] {
            let mut next = *position;
            next.play(bit);
            let value = self.search(&next, alpha, beta);
            if maximising {
                best = best.max(value);
                alpha = alpha.max(value);
            } else {
                best = best.min(value);
                beta = beta.min(value);
            }
            if alpha >= beta {
                break;
            }
        }

        if at_boundary {
            let entry = self.table.entry(key).or_insert(Bounds {
                lower: 0,
                upper: remaining,
            });
            let relative = best - taken;
            if best <= alpha_in {
                entry.upper = entry.upper.min(relative);
            } else if best >= beta_in {
                entry.lower = entry.lower.max(relative);
            } else {
                entry.lower = relative;
                entry.upper = relative;
            }
        }
        best
    }
}

fn split(makers: u8, maker_tricks: u8) -> TrickSplit {
    let mut tricks = [0; 2];
    tricks[makers as usize] = maker_tricks;
    tricks[1 - makers as usize] = 5 - maker_tricks;
    tricks
}

/// Plain minimax over every legal card, with no pruning: the reference the
/// solver is tested against. Exponential; use only near the end of a hand.
pub fn brute_force(state: &GameState) -> Option<TrickSplit> {
    let makers = state.contract()?.maker.team();
    fn walk(state: &GameState, makers: Team) -> u8 {
        let Some(actor) = state.to_act().filter(|_| !state.is_finished()) else {
            return state.tricks_won(makers);
        };
        let values = state.playable_cards().iter().map(|card| {
            let mut next = *state;
            next.apply(Action::Play(card));
            walk(&next, makers)
        });
        if actor.team() == makers {
            values.max().unwrap_or(0)
        } else {
            values.min().unwrap_or(5)
        }
    }
    matches!(state.stage(), Stage::Play | Stage::Finished)
        .then(|| split(makers.index() as u8, walk(state, makers)))
}
