//! Perfect-information Monte Carlo: sample the hidden cards consistently
//! with what the actor knows, solve each sample open-handed, and take the
//! action with the best average score.
//!
//! **Consistent with:** the actor's hand and discard, every card played,
//! each void shown by not following suit, and the dealer holding the
//! picked-up upcard until it is played (the dealer may in fact have
//! discarded it; samples assume it was kept, as a player would).
//! **Not modelled:** what the bidding suggests about hands (a pass is no
//! hard constraint). Hidden cards are dealt uniformly subject to the
//! constraints above, by rejection; after 64 failed tries the voids are
//! relaxed rather than giving up.
//!
//! **Values.** In play, each card's value is the points the actor's side
//! scores after it with perfect play by all. In bidding, each action is
//! applied in the sample, the rest of the bidding is finished by the
//! [`Heuristic`] rules (so a pass is worth what the others then make of the
//! hand), and the contract is solved open-handed.

use std::cell::RefCell;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::double_dummy::DoubleDummy;

use crate::meta::CardPlay;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage, score};
use euchre_game::engine::trump::effective_suit;
use rand::RngExt;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use crate::bot::{ActionValue, Bot, Tallies};
use crate::bots::heuristic::Heuristic;
use crate::seen::Seen;

#[derive(Debug)]
pub struct Pimc {
    worlds: usize,
}

impl Pimc {
    pub fn new(worlds: usize) -> Pimc {
        Pimc { worlds }
    }
}

thread_local! {
    static SOLVER: RefCell<DoubleDummy> = RefCell::new(DoubleDummy::new());
}

/// Tries at dealing the hidden cards with every void respected.
const STRICT_TRIES: usize = 64;

impl Bot for Pimc {
    /// PIMC plays each card by open-hand solves of sampled worlds.
    fn card_play(&self) -> Option<CardPlay> {
        Some(CardPlay::OpenHandSearch)
    }

    fn name(&self) -> String {
        format!("pimc:{}", self.worlds)
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        if legal.len() == 1 {
            return legal[0];
        }
        legal[self.tallies(seen, rng).best_index()]
    }

    fn values(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Option<Vec<ActionValue>> {
        Some(self.tallies(seen, rng).values(seen.legal().as_slice(), 1.0))
    }
}

impl Pimc {
    /// Each legal action's points over the sampled worlds.
    fn tallies(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Tallies {
        let legal = seen.legal();
        let team = seen.actor().team();
        let mut tallies = Tallies::new(legal.len());
        for _ in 0..self.worlds {
            if crate::stop::requested() {
                break;
            }
            let Some(world) = sample_world(seen, rng) else {
                continue;
            };
            let values = if seen.stage() == Stage::Play {
                card_points(&world, team, legal.as_slice())
            } else {
                legal
                    .iter()
                    .map(|&action| i64::from(bidding_value(world, action, team, rng)))
                    .collect()
            };
            tallies.add(values, 1);
        }
        tallies
    }
}

/// The points `team` scores after each of `legal` (cards) when everyone
/// then plays open-handed, in the order of `legal`.
pub(crate) fn card_points(world: &GameState, team: Team, legal: &[Action]) -> Vec<i64> {
    let values = SOLVER.with_borrow_mut(|solver| solver.card_values(world));
    legal
        .iter()
        .map(|action| match action {
            Action::Play(card) => values
                .iter()
                .find(|(c, _)| c == card)
                .map_or(0, |&(_, tricks)| {
                    i64::from(points_after(world, team, tricks))
                }),
            _ => 0,
        })
        .collect()
}

/// The payoff to `team` when it ends the hand with `tricks` tricks.
fn points_after(state: &GameState, team: Team, tricks: u8) -> i32 {
    let mut split = [0u8; 2];
    split[team.index()] = tricks;
    split[team.other().index()] = 5 - tricks;
    score(state.contract(), state.lone_defender().is_some(), split).payoff(team)
}

/// The payoff to `team` of taking `action` in `world`, with the rest of the
/// bidding by the heuristic rules and the play open-handed.
fn bidding_value(mut world: GameState, action: Action, team: Team, rng: &mut SmallRng) -> i32 {
    world.apply(action);
    while !matches!(world.stage(), Stage::Play | Stage::Finished) {
        let next = Heuristic.act(&Seen::new(&world, &[]), rng);
        world.apply(next);
    }
    points_after_bidding(&world, team)
}

/// The payoff to `team` from `world`, where the bidding is over, with the
/// cards played open-handed; a hand nobody bid scores what the rules say.
pub(crate) fn points_after_bidding(world: &GameState, team: Team) -> i32 {
    if world.stage() == Stage::Finished {
        return world.outcome().map_or(0, |outcome| outcome.payoff(team));
    }
    let Some(split) = SOLVER.with_borrow_mut(|solver| solver.solve_for_score(world)) else {
        return 0;
    };
    score(world.contract(), world.lone_defender().is_some(), split).payoff(team)
}

/// A full state consistent with everything the actor knows, at the same
/// point of the hand; `None` if the history does not replay (never
/// expected, but a sample is skipped rather than trusted).
pub fn sample_world(seen: &Seen<'_>, rng: &mut SmallRng) -> Option<GameState> {
    let hidden = sample_hidden(seen, rng)?;
    replay(seen, &hidden, |_, _, _| {})
}

/// One guess at everything the actor cannot see: the cards as dealt and,
/// when someone else picked up, the dealer's face-down discard.
#[derive(Clone, Copy, Debug)]
pub struct Hidden {
    pub deal: Deal,
    pub discard: Option<Card>,
}

/// Deals the hidden cards uniformly subject to what the actor knows (see
/// the module docs); `None` when no consistent deal was found.
pub fn sample_hidden(seen: &Seen<'_>, rng: &mut SmallRng) -> Option<Hidden> {
    let actor = seen.actor();
    let dealer = seen.dealer();
    let upcard = seen.upcard();
    let played_by = seen.played_by();
    let voids = seen.voids();
    let trump = seen.contract().map(|contract| contract.trump);
    let picked_up = seen.contract().is_some_and(|contract| contract.round == 1)
        || seen.stage() == Stage::DealerDiscard;
    let own_discard = seen.own_discard();

    let mut known = seen.hand().union(seen.played()).with(upcard);
    if let Some(card) = own_discard {
        known = known.with(card);
    }
    let mut hands = [CardSet::EMPTY; 4];
    hands[actor.index()] = seen.hand();
    let dealer_keeps_upcard =
        picked_up && dealer != actor && !played_by[dealer.index()].contains(upcard);
    if dealer_keeps_upcard {
        hands[dealer.index()] = CardSet::single(upcard);
    }
    let mut need = [0usize; 4];
    for seat in Seat::ALL {
        if seat != actor {
            let holds = 5 - played_by[seat.index()].len() as usize;
            need[seat.index()] = holds - hands[seat.index()].len() as usize;
        }
    }
    let mut pool: Vec<_> = CardSet::FULL_DECK.minus(known).iter().collect();
    let wanted: usize = need.iter().sum();
    if wanted > pool.len() {
        return None;
    }
    let suit_of = |card: Card| trump.map_or(card.suit(), |t| effective_suit(card, t));
    let mut dealt = None;
    for attempt in 0..=STRICT_TRIES {
        let strict = attempt < STRICT_TRIES;
        pool.shuffle(rng);
        if let Some(result) = deal_hidden(
            &pool,
            hands,
            need,
            |seat, card| !strict || !voids[seat.index()][suit_of(card).index()],
            rng,
        ) {
            dealt = Some(result);
            break;
        }
    }
    let (hidden_hands, kitty) = dealt?;
    // The dealer's face-down discard, when someone else picked up.
    let discard = if picked_up && dealer != actor && seen.stage() != Stage::DealerDiscard {
        Some(*kitty.get(rng.random_range(0..kitty.len().max(1)))?)
    } else {
        own_discard
    };
    let mut original = [CardSet::EMPTY; 4];
    for seat in Seat::ALL {
        let mut cards = hidden_hands[seat.index()].union(played_by[seat.index()]);
        if seat == dealer && picked_up {
            if let Some(card) = discard {
                cards = cards.with(card);
            }
            cards = cards.without(upcard);
        }
        original[seat.index()] = cards;
    }
    let deal = Deal::new(dealer, original, upcard).ok()?;
    Some(Hidden { deal, discard })
}

/// Replays the hand so far on a guessed deal, showing `observe` each action
/// with the state before it (how inference asks what a model would have
/// done there); the state where the actor is to act, or `None` if the
/// history does not replay on that deal.
pub fn replay(
    seen: &Seen<'_>,
    hidden: &Hidden,
    mut observe: impl FnMut(&GameState, Seat, Action),
) -> Option<GameState> {
    let mut state = GameState::new(hidden.deal, seen.rules());
    for (seat, action) in seen.history() {
        let action = action.or(hidden.discard.map(Action::Discard))?;
        observe(&state, seat, action);
        state.try_apply(action).ok()?;
    }
    (state.to_act() == Some(seen.actor())).then_some(state)
}

/// Deals `pool` (already shuffled) into the seats' remaining `need`, each
/// card to a seat `allowed` accepts or to the kitty; `None` on a dead end.
fn deal_hidden(
    pool: &[Card],
    mut hands: [CardSet; 4],
    mut need: [usize; 4],
    allowed: impl Fn(Seat, Card) -> bool,
    rng: &mut SmallRng,
) -> Option<([CardSet; 4], Vec<Card>)> {
    let mut kitty_room = pool.len() - need.iter().sum::<usize>();
    let mut kitty = Vec::with_capacity(kitty_room);
    for &card in pool {
        let weights: [usize; 4] = std::array::from_fn(|i| {
            let seat = Seat::from_index(i as u8);
            if need[i] > 0 && allowed(seat, card) {
                need[i]
            } else {
                0
            }
        });
        let total = weights.iter().sum::<usize>() + kitty_room;
        if total == 0 {
            return None;
        }
        let mut pick = rng.random_range(0..total);
        let mut placed = false;
        for (i, &weight) in weights.iter().enumerate() {
            if pick < weight {
                hands[i] = hands[i].with(card);
                need[i] -= 1;
                placed = true;
                break;
            }
            pick -= weight;
        }
        if !placed {
            kitty.push(card);
            kitty_room -= 1;
        }
    }
    Some((hands, kitty))
}
