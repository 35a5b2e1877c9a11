//! A seat's view as a fixed-length vector of numbers, for a learning agent
//! (a network in PyTorch or JAX, through the Python package): every block
//! is what the acting seat may know, seats counted from it (0 itself, 1 its
//! left, 2 its partner, 3 its right), cards by their index (`Card::index`,
//! 9 to ace of clubs, then diamonds, hearts, spades). Actions have their
//! dense ids already (`Action::id`, 60 of them).
//!
//! [`names`] says what each number is; a test holds the two in step.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet, Suit};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::Stage;

use crate::seen::Seen;

/// The blocks in order: a name and a kind each.
const BLOCKS: [(&str, Block); 18] = [
    ("hand", Block::Cards),
    ("upcard", Block::Cards),
    ("dealer", Block::Seats),
    ("own_discard", Block::Cards),
    ("round1_pass", Block::Seats),
    ("round1_order", Block::Seats),
    ("round1_order_alone", Block::Seats),
    ("round2_pass", Block::Seats),
    ("round2_call", Block::SeatSuits),
    ("alone", Block::Seats),
    ("lone_defender", Block::Seats),
    ("trump", Block::Suits),
    ("played_by", Block::SeatCards),
    ("trick", Block::SeatCards),
    ("trick_leader", Block::Seats),
    // The effective suits each seat has shown out of by not following.
    ("void", Block::SeatSuits),
    ("stage", Block::Stages),
    ("rest", Block::Rest),
];

#[derive(Clone, Copy)]
enum Block {
    Cards,
    Seats,
    Suits,
    SeatSuits,
    SeatCards,
    Stages,
    /// The last numbers, one each: see [`REST`].
    Rest,
}

/// The decision stages, in the order of the `stage` block.
const STAGES: [(Stage, &str); 5] = [
    (Stage::BiddingRound1, "bidding1"),
    (Stage::DealerDiscard, "discard"),
    (Stage::BiddingRound2, "bidding2"),
    (Stage::DefendAlone, "defend_alone"),
    (Stage::Play, "play"),
];

/// The numbers of the last block, one each: tricks as fractions of five,
/// scores as fractions of the target (0 with no game around the hand).
const REST: [&str; 5] = [
    "tricks_won_ours",
    "tricks_won_theirs",
    "in_game",
    "score_ours",
    "score_theirs",
];

impl Block {
    const fn width(self) -> usize {
        match self {
            Block::Cards => Card::COUNT,
            Block::Seats | Block::Suits => 4,
            Block::SeatSuits => 16,
            Block::SeatCards => 4 * Card::COUNT,
            Block::Stages => STAGES.len(),
            Block::Rest => REST.len(),
        }
    }
}

/// How many numbers a view becomes.
pub const LEN: usize = {
    let mut len = 0;
    let mut index = 0;
    while index < BLOCKS.len() {
        len += BLOCKS[index].1.width();
        index += 1;
    }
    len
};

/// What each number of [`encode`] is, in order (`hand:Js`,
/// `round2_call:1:h`: the seat to the left called hearts, ...).
pub fn names() -> Vec<String> {
    let mut names = Vec::with_capacity(LEN);
    for (block, kind) in BLOCKS {
        let per_seat = |names: &mut Vec<String>, items: &[String]| {
            for seat in 0..4 {
                names.extend(items.iter().map(|item| format!("{block}:{seat}:{item}")));
            }
        };
        let cards: Vec<String> = Card::ALL.iter().map(ToString::to_string).collect();
        let suits: Vec<String> = Suit::ALL.iter().map(ToString::to_string).collect();
        match kind {
            Block::Cards => names.extend(cards.iter().map(|card| format!("{block}:{card}"))),
            Block::Seats => names.extend((0..4).map(|seat| format!("{block}:{seat}"))),
            Block::Suits => names.extend(suits.iter().map(|suit| format!("{block}:{suit}"))),
            Block::SeatSuits => per_seat(&mut names, &suits),
            Block::SeatCards => per_seat(&mut names, &cards),
            Block::Stages => names.extend(STAGES.iter().map(|(_, name)| format!("{block}:{name}"))),
            Block::Rest => names.extend(REST.iter().map(|name| (*name).to_owned())),
        }
    }
    names
}

fn flag(on: bool) -> f32 {
    f32::from(u8::from(on))
}

/// What the bidding showed, by seat counted from the actor.
#[derive(Default)]
struct Bids {
    /// Round 1 passes, orders, orders alone; round 2 passes.
    pass1: [bool; 4],
    order: [bool; 4],
    order_alone: [bool; 4],
    pass2: [bool; 4],
    /// `[seat][suit]` named in round 2.
    called: [[bool; 4]; 4],
    alone: [bool; 4],
}

impl Bids {
    fn of(seen: &Seen<'_>, relative: impl Fn(Seat) -> usize) -> Bids {
        let mut bids = Bids::default();
        let mut passes = 0;
        let mut made = false;
        for (seat, action) in seen.history() {
            let at = relative(seat);
            match action {
                // A pass after trump is made declines to defend alone.
                Some(Action::Pass) if !made => {
                    if passes < 4 {
                        bids.pass1[at] = true;
                    } else {
                        bids.pass2[at] = true;
                    }
                    passes += 1;
                }
                Some(Action::Order { alone }) => {
                    bids.order[at] = !alone;
                    bids.order_alone[at] = alone;
                    bids.alone[at] = alone;
                    made = true;
                }
                Some(Action::Call { suit, alone }) => {
                    bids.called[at][suit.index()] = true;
                    bids.alone[at] = alone;
                    made = true;
                }
                _ => {}
            }
        }
        bids
    }
}

/// The view `seen` as [`LEN`] numbers: each 0 or 1, but for the last
/// block's fractions.
pub fn encode(seen: &Seen<'_>) -> Vec<f32> {
    let me = seen.actor();
    let relative = |seat: Seat| (seat.index() + 4 - me.index()) % 4;
    let mut out = Vec::with_capacity(LEN);
    let cards = |out: &mut Vec<f32>, set: CardSet| {
        out.extend(Card::ALL.iter().map(|&card| flag(set.contains(card))));
    };
    let seats = |out: &mut Vec<f32>, on: [bool; 4]| out.extend(on.map(flag));
    let one_seat = |seat: Option<Seat>| {
        let mut on = [false; 4];
        if let Some(seat) = seat {
            on[relative(seat)] = true;
        }
        on
    };
    let bids = Bids::of(seen, relative);
    cards(&mut out, seen.hand());
    cards(&mut out, CardSet::single(seen.upcard()));
    seats(&mut out, one_seat(Some(seen.dealer())));
    cards(
        &mut out,
        seen.own_discard().map_or(CardSet::EMPTY, CardSet::single),
    );
    for on in [bids.pass1, bids.order, bids.order_alone, bids.pass2] {
        seats(&mut out, on);
    }
    for suits in bids.called {
        seats(&mut out, suits);
    }
    seats(&mut out, bids.alone);
    seats(&mut out, one_seat(seen.lone_defender()));
    let trump = seen.contract().map(|contract| contract.trump);
    seats(&mut out, Suit::ALL.map(|suit| trump == Some(suit)));
    let playing = seen.stage() == Stage::Play;
    let trick = seen.trick();
    let played_by = seen.played_by();
    let mut by_seat = [CardSet::EMPTY; 4];
    let mut in_trick = [CardSet::EMPTY; 4];
    for seat in Seat::ALL {
        by_seat[relative(seat)] = played_by[seat.index()];
        if playing && trick.has_played(seat) {
            in_trick[relative(seat)] = CardSet::single(trick.cards[seat.index()]);
        }
    }
    for set in by_seat.into_iter().chain(in_trick) {
        cards(&mut out, set);
    }
    seats(&mut out, one_seat(playing.then_some(trick.leader)));
    let voids = seen.voids();
    let mut by_relative = [[false; 4]; 4];
    for seat in Seat::ALL {
        by_relative[relative(seat)] = voids[seat.index()];
    }
    for suits in by_relative {
        seats(&mut out, suits);
    }
    out.extend(STAGES.map(|(stage, _)| flag(seen.stage() == stage)));
    let team = me.team();
    out.push(f32::from(seen.tricks_won(team)) / 5.0);
    out.push(f32::from(seen.tricks_won(team.other())) / 5.0);
    match seen.score() {
        Some(score) => {
            let (ours, theirs) = score.of(team);
            let target = f32::from(score.target.max(1));
            out.extend([1.0, f32::from(ours) / target, f32::from(theirs) / target]);
        }
        None => out.extend([0.0; 3]),
    }
    debug_assert_eq!(out.len(), LEN);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_game::engine::rules::Rules;
    use euchre_game::engine::state::{Deal, GameState};
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn every_number_has_a_name_and_every_view_the_same_length() {
        let names = names();
        assert_eq!(names.len(), LEN);
        let unique: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(unique.len(), LEN, "names are distinct");
        let mut rng = SmallRng::seed_from_u64(5);
        for index in 0..200 {
            let deal = Deal::random(Seat::from_index((index % 4) as u8), &mut rng);
            let mut state = GameState::new(deal, Rules::default());
            let mut history = Vec::new();
            while let Some(seat) = state.to_act() {
                let encoded = encode(&Seen::new(&state, &history));
                assert_eq!(encoded.len(), LEN);
                let at = |name: &str| encoded[names.iter().position(|n| n == name).unwrap()];
                // The seat's own cards, and nobody else's.
                for card in Card::ALL {
                    let held = state.hand(seat).contains(card);
                    assert_eq!(at(&format!("hand:{card}")), flag(held));
                }
                let legal = state.legal_actions();
                let action = legal[rng.random_range(0..legal.len())];
                state.apply(action);
                history.push((seat, action));
            }
        }
    }

    #[test]
    fn seats_are_counted_from_the_actor() {
        // West deals; North acts first and sees West, its right, as dealer.
        let mut rng = SmallRng::seed_from_u64(1);
        let deal = Deal::random(Seat::West, &mut rng);
        let state = GameState::new(deal, Rules::default());
        let encoded = encode(&Seen::new(&state, &[]));
        let names = names();
        let dealer: Vec<&String> = names
            .iter()
            .zip(&encoded)
            .filter(|(name, value)| name.starts_with("dealer:") && **value == 1.0)
            .map(|(name, _)| name)
            .collect();
        assert_eq!(state.to_act(), Some(Seat::North));
        assert_eq!(dealer, ["dealer:3"]);
    }
}
