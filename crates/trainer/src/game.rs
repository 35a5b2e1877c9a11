//! Euchre as the solver sees it: a [`cfr::Game`] over the engine, with the
//! phase deciding where the solver stops and the open-hand evaluator
//! values the position.
//!
//! - The root is a chance node whose outcome is a 64-bit deal seed; the
//!   dealer is always North, which loses nothing because every key is
//!   relative to the dealer or to the actor.
//! - Players are the four seats; a seat's payoff is its team's points minus
//!   the other team's, so the game is zero-sum between teams and one
//!   seat-relative table serves all four seats.
//! - Decisions use the canonical keys of `euchre_game`: perfect recall in
//!   bidding, the rank-compressed key in play. Actions are in the key's
//!   canonical order, so action `i` means the same at every state of a key.
//! - Where the solver stops, a [`Leaves`] evaluator values the position:
//!   open-handed by default, or by the heuristic's play.
//! - Exact solvers cannot walk this tree (the deal is one outcome among
//!   2^64); it is meant for sampling solvers such as external-sampling MCCFR.

use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

use cfr::{Game, Node};
use euchre_game::engine::action::Action;
use euchre_game::engine::double_dummy::DoubleDummy;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage, score};
use euchre_game::keys::{Decision, decision};
use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::eval::heuristic;
use crate::eval::seen::Seen;
use crate::phase::Phase;

/// How the solver values a position past its phase's horizon. A policy is
/// only as good as the match between its leaves and whoever plays the
/// cards after it: open-hand values reward bidding that PIMC's play can
/// make good, heuristic-play values bidding that the heuristic can.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Leaves {
    /// Both sides play the rest perfectly with every hand face up.
    #[default]
    #[serde(rename = "open-hand")]
    OpenHand,
    /// Every seat plays the rest by the heuristic's rules.
    #[serde(rename = "heuristic-play")]
    HeuristicPlay,
}

impl Leaves {
    pub const ALL: [Leaves; 2] = [Leaves::OpenHand, Leaves::HeuristicPlay];

    /// The bot spec whose card play matches these leaves.
    pub fn matching_player(self) -> &'static str {
        match self {
            Leaves::OpenHand => "pimc:N",
            Leaves::HeuristicPlay => "heuristic",
        }
    }
}

impl fmt::Display for Leaves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Leaves::OpenHand => "open-hand",
            Leaves::HeuristicPlay => "heuristic-play",
        })
    }
}

impl FromStr for Leaves {
    type Err = String;

    fn from_str(text: &str) -> Result<Leaves, String> {
        Leaves::ALL
            .into_iter()
            .find(|leaves| leaves.to_string() == text)
            .ok_or_else(|| format!("unknown leaves '{text}': use open-hand or heuristic-play"))
    }
}

/// A hand in progress, or the deal still to come.
#[derive(Clone, Debug)]
pub struct EuchreGame {
    rules: Rules,
    /// Cards of play the solver owns; `None` for all of them.
    horizon: Option<u32>,
    leaves: Leaves,
    state: Option<GameState>,
    /// The decision at `state`, computed once per state change.
    decision: Option<Decision>,
    /// Each team's payoff once the hand is over or its leaf is valued.
    payoffs: Option<[i8; 2]>,
}

impl EuchreGame {
    pub fn root(rules: Rules, phase: Phase, leaves: Leaves) -> EuchreGame {
        EuchreGame {
            rules,
            horizon: phase.horizon(),
            leaves,
            state: None,
            decision: None,
            payoffs: None,
        }
    }

    /// The deal a chance outcome stands for.
    pub fn deal(outcome: u64) -> Deal {
        Deal::random(Seat::North, &mut SmallRng::seed_from_u64(outcome))
    }

    fn settle(&mut self, state: GameState) {
        self.state = Some(state);
        self.decision = None;
        if let Some(outcome) = state.outcome() {
            self.payoffs = Some(team_payoffs(|team| outcome.payoff(team)));
        } else if state.stage() == Stage::Play
            && self
                .horizon
                .is_some_and(|cards| state.played().len() >= cards)
        {
            self.payoffs = Some(match self.leaves {
                Leaves::OpenHand => evaluate_open_handed(&state),
                Leaves::HeuristicPlay => evaluate_by_heuristic_play(state),
            });
        } else {
            self.decision = decision(&state);
        }
    }
}

fn team_payoffs(payoff: impl Fn(Team) -> i32) -> [i8; 2] {
    [payoff(Team::NorthSouth) as i8, payoff(Team::EastWest) as i8]
}

/// Positions already solved on this thread, keyed at trick boundaries.
/// Many leaves of one traversal share a position: whoever orders up, the
/// hands and trump are the same.
struct LeafCache {
    solver: DoubleDummy,
    tricks: FxHashMap<u128, [u8; 2]>,
}

const LEAF_CACHE_LIMIT: usize = 1 << 16;

thread_local! {
    static LEAVES: RefCell<LeafCache> = RefCell::new(LeafCache {
        solver: DoubleDummy::new(),
        tricks: FxHashMap::default(),
    });
}

/// Forgets this thread's solved leaves, so that a benchmark starts cold.
pub fn clear_leaf_cache() {
    LEAVES.with_borrow_mut(|cache| cache.tricks.clear());
}

/// Team payoffs with the rest of the hand played perfectly open-handed.
fn evaluate_open_handed(state: &GameState) -> [i8; 2] {
    let Some(contract) = state.contract() else {
        return [0, 0];
    };
    let tricks = LEAVES.with_borrow_mut(|cache| {
        let key = boundary_key(state);
        if let Some(key) = key
            && let Some(&tricks) = cache.tricks.get(&key)
        {
            return tricks;
        }
        let tricks = cache.solver.solve_for_score(state).unwrap_or_else(|| {
            [
                state.tricks_won(Team::NorthSouth),
                state.tricks_won(Team::EastWest),
            ]
        });
        if let Some(key) = key {
            if cache.tricks.len() >= LEAF_CACHE_LIMIT {
                cache.tricks.clear();
            }
            cache.tricks.insert(key, tricks);
        }
        tricks
    });
    let outcome = score(Some(contract), state.lone_defender().is_some(), tricks);
    team_payoffs(|team| outcome.payoff(team))
}

/// Team payoffs with the rest of the hand played by the heuristic at every
/// seat. Its card play reads only the hand, the trick and the contract, so
/// the playout is deterministic and needs no history.
fn evaluate_by_heuristic_play(mut state: GameState) -> [i8; 2] {
    while state.stage() == Stage::Play {
        let card = heuristic::play(&Seen::new(&state, &[]));
        state.apply(Action::Play(card));
    }
    state
        .outcome()
        .map_or([0, 0], |outcome| team_payoffs(|team| outcome.payoff(team)))
}

/// Everything the open-hand value of a trick-boundary position depends on;
/// `None` mid-trick. The tricks already won are added in, so two positions
/// with the same key also agree on the trick count. So is the makers' team:
/// the solver's split is exact only as far as the makers' score goes, and
/// a march by one side reads as a plain win if the other side made trump.
fn boundary_key(state: &GameState) -> Option<u128> {
    if state.trick().played_mask != 0 {
        return None;
    }
    let contract = state.contract()?;
    let mut key = 0u128;
    for seat in Seat::ALL {
        key = key << 24 | u128::from(state.hand(seat).bits());
        key = key << 1 | u128::from(state.sits_out(seat));
    }
    key = key << 2 | contract.trump.index() as u128;
    key = key << 1 | contract.maker.team().index() as u128;
    key = key << 2 | state.trick().leader.index() as u128;
    key = key << 3 | u128::from(state.tricks_won(Team::NorthSouth));
    Some(key << 3 | u128::from(state.tricks_won(Team::EastWest)))
}

impl Game for EuchreGame {
    fn num_players(&self) -> usize {
        4
    }

    fn node(&self) -> Node {
        match (&self.state, &self.decision) {
            (None, _) => Node::SampledChance,
            (Some(state), Some(_)) => Node::Decision(state.to_act().map_or(0, Seat::index)),
            (Some(_), None) => Node::Terminal,
        }
    }

    /// The deal is sampled, never listed, so it has no action count.
    fn num_actions(&self) -> usize {
        self.decision.map_or(0, |decision| decision.actions.len())
    }

    fn apply(&mut self, action: usize) {
        match (self.state, self.decision) {
            (None, _) => {
                let state = GameState::new(EuchreGame::deal(action as u64), self.rules);
                self.settle(state);
            }
            (Some(mut state), Some(decision)) => {
                state.apply(decision.actions[action]);
                self.settle(state);
            }
            (Some(_), None) => debug_assert!(false, "apply at a terminal state"),
        }
    }

    fn info_key(&self) -> u128 {
        self.decision.map_or(0, |decision| decision.key.0)
    }

    fn payoff(&self, player: usize) -> f64 {
        let team = Seat::from_index(player as u8).team();
        self.payoffs
            .map_or(0.0, |payoffs| f64::from(payoffs[team.index()]))
    }

    /// A deal is one of 2^64 seeds, drawn uniformly.
    fn sample_chance<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        rng.random::<u64>() as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk_randomly(phase: Phase, seed: u64) -> (EuchreGame, u32) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut game = EuchreGame::root(Rules::default(), phase, Leaves::OpenHand);
        let mut decisions = 0;
        loop {
            match game.node() {
                Node::Chance | Node::SampledChance => {
                    let outcome = game.sample_chance(&mut rng);
                    game.apply(outcome);
                }
                Node::Decision(_) => {
                    decisions += 1;
                    let count = game.num_actions();
                    assert!((1..=7).contains(&count));
                    game.apply(rng.random_range(0..count));
                }
                Node::Terminal => return (game, decisions),
            }
        }
    }

    #[test]
    fn payoffs_are_zero_sum_between_teams() {
        for phase in [Phase::Bidding, Phase::Play(3), Phase::FullPlay] {
            for seed in 0..300 {
                let (game, _) = walk_randomly(phase, seed);
                for seat in 0..4 {
                    let partner = (seat + 2) % 4;
                    let opponent = (seat + 1) % 4;
                    assert_eq!(game.payoff(seat), game.payoff(partner));
                    assert_eq!(game.payoff(seat), -game.payoff(opponent));
                }
                assert!(game.payoff(0).abs() <= 4.0);
            }
        }
    }

    #[test]
    fn the_phase_sets_where_the_solver_stops() {
        for seed in 0..200 {
            let (bidding, _) = walk_randomly(Phase::Bidding, seed);
            let state = bidding.state.expect("dealt");
            assert!(state.played().is_empty() || state.is_finished());
            let (play, _) = walk_randomly(Phase::Play(3), seed);
            let state = play.state.expect("dealt");
            assert!(state.played().len() == 3 || state.is_finished());
            let (full, _) = walk_randomly(Phase::FullPlay, seed);
            assert!(full.state.expect("dealt").is_finished());
        }
    }

    #[test]
    fn open_handed_leaves_match_a_fresh_solve() {
        // The cache must never return another position's value.
        for seed in 0..300 {
            let (game, _) = walk_randomly(Phase::Play(4), seed);
            let state = game.state.expect("dealt");
            if state.is_finished() {
                continue;
            }
            let tricks = DoubleDummy::new().solve(&state).expect("in play");
            let contract = state.contract().expect("in play");
            let outcome = score(Some(contract), state.lone_defender().is_some(), tricks);
            assert_eq!(game.payoff(0), f64::from(outcome.payoff(Team::NorthSouth)));
        }
    }
}
