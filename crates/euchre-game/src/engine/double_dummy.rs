//! An exact open-hand ("double-dummy") solver: with every hand face up, how
//! many tricks does each side take when both play perfectly?
//!
//! It values the leaves of the depth-limited phases and is the engine of the
//! PIMC bot. Maximising tricks also maximises points: the score is a
//! non-decreasing function of the makers' tricks, and in a perfect-
//! information game minimax commutes with a monotone transform of the
//! payoff, so one trick count serves every scoring question.
//!
//! The search is alpha-beta over the makers' trick count with:
//! - a transposition table keyed at trick boundaries (the four hands and
//!   the leader), holding lower and upper bounds relative to the tricks
//!   already taken, so a position reached by different orders of play is
//!   searched once;
//! - rank equivalence: two cards of one hand with no live card of their
//!   suit between them (in any hand or in the trick) play identically, so
//!   only one of them is tried;
//! - a forced last trick, which needs no search.

use rustc_hash::FxHashMap;

use crate::engine::action::Action;
use crate::engine::card::{Card, CardSet, Suit};
use crate::engine::seat::{Seat, Team};
use crate::engine::state::{GameState, Stage};
use crate::engine::trump::{cards_of_suit, effective_suit, trick_strength, trump_order};

/// Bounds on the makers' tricks still to come from a trick boundary.
#[derive(Clone, Copy, Debug)]
struct Bounds {
    lower: u8,
    upper: u8,
}

/// A reusable solver. Its transposition table is cleared per solve but its
/// memory is kept, so solving many positions allocates once.
#[derive(Debug, Default)]
pub struct DoubleDummy {
    table: FxHashMap<u128, Bounds>,
    nodes: u64,
}

/// Tricks taken by each team by the end of the hand, indexed by
/// [`Team::index`], including tricks already won.
pub type TrickSplit = [u8; 2];

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
        let makers = state.contract()?.maker.team();
        match state.stage() {
            Stage::Play | Stage::Finished => {}
            _ => return None,
        }
        self.table.clear();
        let maker_tricks = self.search(state, makers, 0, 5);
        Some(split(makers, maker_tricks))
    }

    /// For each card the player to act may play, the tricks the actor's team
    /// ends with if it plays that card and everyone plays perfectly after.
    /// Empty unless a card is to be played.
    pub fn card_values(&mut self, state: &GameState) -> Vec<(Card, u8)> {
        let (Some(contract), Some(actor)) = (state.contract(), state.to_act()) else {
            return Vec::new();
        };
        if state.stage() != Stage::Play {
            return Vec::new();
        }
        let makers = contract.maker.team();
        let team = actor.team();
        state
            .playable_cards()
            .iter()
            .map(|card| {
                let mut next = *state;
                next.apply(Action::Play(card));
                self.table.clear();
                let maker_tricks = self.search(&next, makers, 0, 5);
                (card, split(makers, maker_tricks)[team.index()])
            })
            .collect()
    }

    /// The makers' final trick count from `state`, exact when it lies in
    /// `(alpha, beta)`, otherwise a bound on the side of the window it
    /// fell (fail-soft).
    fn search(&mut self, state: &GameState, makers: Team, mut alpha: u8, mut beta: u8) -> u8 {
        self.nodes += 1;
        let taken = state.tricks_won(makers);
        if state.is_finished() {
            return taken;
        }
        if state.tricks_played() == 4 {
            return play_out_last_trick(state, makers);
        }
        let at_boundary = state.trick().played_mask == 0;
        let key = if at_boundary { position_key(state) } else { 0 };
        let remaining = 5 - state.tricks_played();
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

        let Some(actor) = state.to_act() else {
            return taken;
        };
        let maximising = actor.team() == makers;
        let mut best = if maximising { 0 } else { 5 };
        let mut moves = [Card::ALL[0]; 8];
        let count = candidate_moves(state, &mut moves);
        for &card in &moves[..count] {
            let mut next = *state;
            next.apply(Action::Play(card));
            let value = self.search(&next, makers, alpha, beta);
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

fn split(makers: Team, maker_tricks: u8) -> TrickSplit {
    let mut tricks = [0; 2];
    tricks[makers.index()] = maker_tricks;
    tricks[makers.other().index()] = 5 - maker_tricks;
    tricks
}

/// The makers' tricks once the fifth trick, where every play is forced,
/// is played out.
fn play_out_last_trick(state: &GameState, makers: Team) -> u8 {
    let mut last = *state;
    while !last.is_finished() {
        let Some(card) = last.playable_cards().iter().next() else {
            break;
        };
        last.apply(Action::Play(card));
    }
    last.tricks_won(makers)
}

/// Hands and leader at a trick boundary. Trump and who sits out are fixed
/// for one solve, so they need not be part of the key.
fn position_key(state: &GameState) -> u128 {
    let mut key = 0u128;
    for seat in Seat::ALL {
        key = key << 24 | u128::from(state.hand(seat).bits());
    }
    key << 2 | state.trick().leader.index() as u128
}

/// A card's place within its effective suit, higher is stronger.
fn suit_rank(card: Card, trump: Suit) -> u8 {
    if effective_suit(card, trump) == trump {
        trump_order(card, trump)
    } else {
        card.rank() as u8
    }
}

/// The moves worth trying, best guess first, with rank-equivalent cards
/// reduced to one. Returns how many were written to `out`.
fn candidate_moves(state: &GameState, out: &mut [Card; 8]) -> usize {
    let Some(contract) = state.contract() else {
        return 0;
    };
    let Some(actor) = state.to_act() else {
        return 0;
    };
    let trump = contract.trump;
    let hand = state.hand(actor);
    let playable = state.playable_cards();
    let trick = state.trick();
    let mut live = CardSet::EMPTY;
    for seat in Seat::ALL {
        live = live.union(state.hand(seat));
        if trick.has_played(seat) {
            live = live.with(trick.cards[seat.index()]);
        }
    }
    let mut count = 0;
    for suit in Suit::ALL {
        let suit_cards = cards_of_suit(suit, trump);
        if playable.intersection(suit_cards).is_empty() {
            continue;
        }
        // Walk the suit's live cards from strongest down; a card of ours
        // directly below another of ours adds nothing.
        let mut ordered = [Card::ALL[0]; 7];
        let mut n = 0;
        for card in live.intersection(suit_cards).iter() {
            ordered[n] = card;
            n += 1;
        }
        ordered[..n].sort_unstable_by_key(|&card| std::cmp::Reverse(suit_rank(card, trump)));
        let mut previous_mine = false;
        for &card in &ordered[..n] {
            let mine = hand.contains(card);
            if mine && playable.contains(card) && !previous_mine {
                out[count] = card;
                count += 1;
            }
            previous_mine = mine;
        }
    }
    // Order: when following, try cards that win the trick so far first.
    if trick.played_mask != 0 {
        let best_so_far = Seat::ALL
            .into_iter()
            .filter(|&seat| trick.has_played(seat))
            .map(|seat| trick_strength(trick.cards[seat.index()], trump, trick.led))
            .max()
            .unwrap_or(0);
        out[..count].sort_by_key(|&card| {
            let strength = trick_strength(card, trump, trick.led);
            (strength <= best_so_far, strength)
        });
    } else {
        out[..count].sort_by_key(|&card| std::cmp::Reverse(trick_strength(card, trump, trump)));
    }
    count
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
        .then(|| split(makers, walk(state, makers)))
}
