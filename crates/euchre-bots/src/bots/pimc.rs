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
use std::sync::Arc;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::double_dummy::DoubleDummy;

use crate::meta::CardPlay;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Outcome, Stage, score};
use euchre_game::engine::trump::effective_suit;
use euchre_game::game::GameScore;
use euchre_game::game::win::HandOutcomes;
use rand::RngExt;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use crate::bot::{ActionValue, Bot, Tallies};
use crate::bots::heuristic::Heuristic;
use crate::seen::Seen;
use crate::valuation::{Valuation, Valuer};

#[derive(Debug)]
pub struct Pimc {
    worlds: usize,
    valuation: Valuation,
}

impl Pimc {
    /// PIMC with `worlds` samples, maximising points: score-blind, as the
    /// yardstick `pimc:WORLDS` plays.
    pub fn new(worlds: usize) -> Pimc {
        Pimc {
            worlds,
            valuation: Valuation::Points,
        }
    }

    /// PIMC maximising its side's chance of winning the game from the score
    /// it sees (`pimc:WORLDS,game`), by a model solved from `outcomes`.
    pub fn for_game(worlds: usize, outcomes: HandOutcomes) -> Pimc {
        Pimc {
            worlds,
            valuation: Valuation::Game(outcomes),
        }
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
        match self.valuation {
            Valuation::Points => format!("pimc:{}", self.worlds),
            Valuation::Game(_) => format!("pimc:{},game", self.worlds),
        }
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        if legal.len() == 1 {
            return legal[0];
        }
        legal[self.tallies(seen, rng).0.best_index()]
    }

    fn plays_for_the_game(&self) -> bool {
        matches!(self.valuation, Valuation::Game(_))
    }

    fn valuing(&self, for_the_game: bool) -> Option<Arc<dyn Bot>> {
        Some(Arc::new(Pimc {
            worlds: self.worlds,
            valuation: self.valuation.toward(for_the_game),
        }))
    }

    /// Points per hand, or (playing for the game, with a score in view)
    /// the chance of winning the game, between 0 and 1.
    fn values(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Option<Vec<ActionValue>> {
        let (tallies, scale) = self.tallies(seen, rng);
        Some(tallies.values(seen.legal().as_slice(), scale))
    }

    /// Each world's outcomes are solved once and priced in both units.
    fn values_beside(
        &self,
        seen: &Seen<'_>,
        twin_score: Option<GameScore>,
        rng: &mut SmallRng,
    ) -> Option<[Vec<ActionValue>; 2]> {
        let twin = self.valuation.toward(!self.plays_for_the_game());
        let valuers = [
            Valuer::new(&self.valuation, seen.score()),
            Valuer::new(&twin, twin_score),
        ];
        let legal = seen.legal();
        Some(
            self.tallies_priced(seen, &valuers, rng)
                .map(|(tallies, scale)| tallies.values(legal.as_slice(), scale)),
        )
    }
}

impl Pimc {
    /// Each legal action's value over the sampled worlds, and the scale
    /// that turns it into points or a chance.
    fn tallies(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> (Tallies, f64) {
        let [tallies] =
            self.tallies_priced(seen, &[Valuer::new(&self.valuation, seen.score())], rng);
        tallies
    }

    /// [`Self::tallies`] with each world's outcomes priced by each of
    /// `valuers`: the worlds and their solves are the same for all, so
    /// each tally is what that valuer alone would have given.
    fn tallies_priced<const UNITS: usize>(
        &self,
        seen: &Seen<'_>,
        valuers: &[Valuer; UNITS],
        rng: &mut SmallRng,
    ) -> [(Tallies, f64); UNITS] {
        let legal = seen.legal();
        let team = seen.actor().team();
        let mut tallies: [(Tallies, f64); UNITS] =
            std::array::from_fn(|unit| (Tallies::new(legal.len()), valuers[unit].scale()));
        for _ in 0..self.worlds {
            if crate::stop::requested() {
                break;
            }
            let Some(world) = sample_world(seen, rng) else {
                continue;
            };
            let outcomes: Vec<Outcome> = if seen.stage() == Stage::Play {
                card_outcomes(&world, team, legal.as_slice())
            } else {
                legal
                    .iter()
                    .map(|&action| bidding_outcome(world, action, rng))
                    .collect()
            };
            for ((tallies, _), valuer) in tallies.iter_mut().zip(valuers) {
                let values = outcomes
                    .iter()
                    .map(|outcome| valuer.value(outcome, team))
                    .collect();
                tallies.add(values, 1);
            }
        }
        tallies
    }
}

/// How the hand ends after each of `legal` (cards) when everyone then
/// plays open-handed, in the order of `legal`.
pub(crate) fn card_outcomes(world: &GameState, team: Team, legal: &[Action]) -> Vec<Outcome> {
    let values = SOLVER.with_borrow_mut(|solver| solver.card_values(world));
    legal
        .iter()
        .map(|action| {
            let tricks = match action {
                Action::Play(card) => values.iter().find(|(c, _)| c == card).map(|&(_, t)| t),
                _ => None,
            };
            tricks.map_or(NO_POINTS, |tricks| outcome_after(world, team, tricks))
        })
        .collect()
}

/// A hand that scores nothing (a passed-out hand, or no valuation found).
const NO_POINTS: Outcome = Outcome {
    points: [0, 0],
    tricks: [0, 0],
};

/// How the hand ends when `team` takes `tricks` tricks.
fn outcome_after(state: &GameState, team: Team, tricks: u8) -> Outcome {
    let mut split = [0u8; 2];
    split[team.index()] = tricks;
    split[team.other().index()] = 5 - tricks;
    score(state.contract(), state.lone_defender().is_some(), split)
}

/// How the hand ends after `action` in `world`, with the rest of the
/// bidding by the heuristic rules and the play open-handed.
fn bidding_outcome(mut world: GameState, action: Action, rng: &mut SmallRng) -> Outcome {
    world.apply(action);
    while !matches!(world.stage(), Stage::Play | Stage::Finished) {
        let next = Heuristic.act(&Seen::new(&world, &[]), rng);
        world.apply(next);
    }
    outcome_after_bidding(&world)
}

/// How the hand ends from `world`, where the bidding is over, with the
/// cards played open-handed.
pub(crate) fn outcome_after_bidding(world: &GameState) -> Outcome {
    if world.stage() == Stage::Finished {
        return world.outcome().unwrap_or(NO_POINTS);
    }
    let Some(split) = SOLVER.with_borrow_mut(|solver| solver.solve_for_score(world)) else {
        return NO_POINTS;
    };
    score(world.contract(), world.lone_defender().is_some(), split)
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

#[cfg(test)]
mod tests {
    use euchre_game::engine::seat::Seat;
    use euchre_game::engine::state::Deal;
    use euchre_game::game::GameScore;
    use rand::SeedableRng;

    use super::*;

    fn coin() -> HandOutcomes {
        HandOutcomes::even(0.0)
    }

    fn first_decision(seed: u64) -> GameState {
        let mut rng = SmallRng::seed_from_u64(seed);
        GameState::new(Deal::random(Seat::West, &mut rng), Rules::default())
    }

    use euchre_game::engine::rules::Rules;

    #[test]
    fn playing_for_the_game_without_a_score_in_view_values_points_as_pimc_does() {
        let blind = Pimc::new(12);
        let game = Pimc::for_game(12, coin());
        assert_eq!(game.name(), "pimc:12,game");
        for seed in 0..6 {
            let state = first_decision(seed);
            let seen = Seen::new(&state, &[]);
            let values = |bot: &Pimc| {
                bot.values(&seen, &mut SmallRng::seed_from_u64(seed))
                    .unwrap()
            };
            assert_eq!(values(&blind), values(&game), "seed {seed}");
        }
    }

    #[test]
    fn with_a_score_in_view_each_action_is_valued_by_a_chance_of_winning() {
        let game = Pimc::for_game(12, coin());
        for (points, seed) in [([0, 0], 1), ([9, 8], 2), ([3, 9], 3)] {
            let state = first_decision(seed);
            let score = GameScore {
                points,
                dealer: Seat::West,
                target: 10,
            };
            let seen = Seen::in_game(&state, &[], score);
            let values = game
                .values(&seen, &mut SmallRng::seed_from_u64(seed))
                .unwrap();
            for value in &values {
                assert!((0.0..=1.0).contains(&value.value), "{points:?}: {value:?}");
            }
        }
    }

    #[test]
    fn values_beside_are_what_the_judge_and_its_twin_give_asked_in_turn() {
        let score = GameScore {
            points: [8, 6],
            dealer: Seat::West,
            target: 10,
        };
        for judge in [Pimc::new(10), Pimc::for_game(10, coin())] {
            let twin = judge.valuing(!judge.plays_for_the_game()).unwrap();
            let (own_score, twin_score) = if judge.plays_for_the_game() {
                (Some(score), None)
            } else {
                (None, Some(score))
            };
            for seed in 0..4 {
                // The first bid, then the first card of the play.
                let mut state = first_decision(seed);
                let mut history = Vec::new();
                let mut rng = SmallRng::seed_from_u64(seed);
                for stop_at_play in [false, true] {
                    while stop_at_play && state.stage() != Stage::Play {
                        let action = Heuristic.act(&Seen::new(&state, &history), &mut rng);
                        history.push((state.to_act().unwrap(), action));
                        state.apply(action);
                    }
                    let seen_with = |score| match score {
                        Some(score) => Seen::in_game(&state, &history, score),
                        None => Seen::new(&state, &history),
                    };
                    let [own, beside] = judge
                        .values_beside(
                            &seen_with(own_score),
                            twin_score,
                            &mut SmallRng::seed_from_u64(seed),
                        )
                        .unwrap();
                    let asked = |bot: &dyn Bot, score| {
                        bot.values(&seen_with(score), &mut SmallRng::seed_from_u64(seed))
                            .unwrap()
                    };
                    let at = format!("{}, seed {seed}, {:?}", judge.name(), state.stage());
                    assert_eq!(own, asked(&judge, own_score), "{at}");
                    assert_eq!(beside, asked(twin.as_ref(), twin_score), "{at}");
                    assert_ne!(own, beside, "{at}: the two units differ at 8-6");
                }
            }
        }
    }
}
