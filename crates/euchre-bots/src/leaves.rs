//! How the solver values a position past its phase's horizon.
//!
//! A bidding (or play-N) policy is only as good as the match between its
//! leaves and whoever plays the cards after it. Open-hand values reward
//! bidding that open-hand search can make good, heuristic-play values
//! bidding that the heuristic can; calibrated values are open-hand solves
//! mapped to what PIMC's card play actually scores from such a position;
//! table-play values are what a trained card-play table scores playing
//! every seat ([`crate::card_play_table`]).

use std::cell::RefCell;

use euchre_game::engine::action::Action;
use euchre_game::engine::double_dummy::DoubleDummy;
use euchre_game::engine::seat::Team;
use euchre_game::engine::state::{GameState, Stage, score};
use rustc_hash::FxHashMap;

use crate::bots::heuristic;
use crate::card_play_table::CardPlayTable;
use crate::meta::Leaves;
use crate::seen::Seen;
use position::{boundary_key, team_payoffs};

impl Leaves {
    /// These leaves, ready to value positions: table-play leaves with the
    /// `table` they play, every other kind without one.
    pub fn valuer(self, table: Option<&CardPlayTable>) -> Result<LeafValuer<'_>, LeavesError> {
        self.check_table(table.is_some())?;
        Ok(match (self, table) {
            (Leaves::OpenHand, _) => LeafValuer::OpenHand,
            (Leaves::HeuristicPlay, _) => LeafValuer::HeuristicPlay,
            (Leaves::PimcCalibrated, _) => LeafValuer::PimcCalibrated,
            (Leaves::TablePlay, Some(table)) => LeafValuer::TablePlay(table),
            (Leaves::TablePlay, None) => return Err(LeavesError::NoTable),
        })
    }

    /// Whether these leaves go with a card-play table, or without one: a
    /// table only table-play leaves read, and they need one.
    pub fn check_table(self, has_table: bool) -> Result<(), LeavesError> {
        match (self, has_table) {
            (Leaves::TablePlay, false) => Err(LeavesError::NoTable),
            (Leaves::TablePlay, true) | (_, false) => Ok(()),
            (leaves, true) => Err(LeavesError::UnusedTable(leaves)),
        }
    }
}

/// Leaves and a card-play table that do not go together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LeavesError {
    #[error(
        "table-play leaves value positions by a trained card-play table; name one with --card-play-from POLICY (a full-play run's exported policy.bin)"
    )]
    NoTable,
    #[error(
        "--card-play-from names a card-play table, which only table-play leaves read, but the leaves are {0}; add --leaves table-play, or leave the table out"
    )]
    UnusedTable(Leaves),
}

/// Leaves ready to value positions: the setting, with the table that
/// table-play leaves play. Copied into every node of a traversal, so it
/// borrows the table rather than sharing it.
#[derive(Clone, Copy, Debug)]
pub enum LeafValuer<'t> {
    OpenHand,
    HeuristicPlay,
    PimcCalibrated,
    TablePlay(&'t CardPlayTable),
}

impl LeafValuer<'_> {
    /// The setting these leaves come from.
    pub fn leaves(self) -> Leaves {
        match self {
            LeafValuer::OpenHand => Leaves::OpenHand,
            LeafValuer::HeuristicPlay => Leaves::HeuristicPlay,
            LeafValuer::PimcCalibrated => Leaves::PimcCalibrated,
            LeafValuer::TablePlay(_) => Leaves::TablePlay,
        }
    }

    /// Each team's payoff from `state`, a position in play with a contract.
    pub fn evaluate(self, state: &GameState) -> [f64; 2] {
        match self {
            LeafValuer::OpenHand => evaluate_open_handed(state),
            LeafValuer::HeuristicPlay => evaluate_by_heuristic_play(*state),
            LeafValuer::PimcCalibrated => evaluate_calibrated(state),
            LeafValuer::TablePlay(table) => table.play_out(state),
        }
    }
}

/// Positions already solved on this thread, keyed at trick boundaries.
/// Many leaves of one traversal share a position: whoever orders up, the
/// hands and trump are the same. Score-only and exact solves are kept
/// apart, since a score-only split is not a trick count.
struct LeafCache {
    solver: DoubleDummy,
    tricks: FxHashMap<(u128, bool), [u8; 2]>,
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

/// The open-hand trick split from `state`; with `exact` the true count,
/// else one that scores as it does (cheaper: see
/// [`DoubleDummy::solve_for_score`]).
fn open_hand_tricks(state: &GameState, exact: bool) -> [u8; 2] {
    LEAVES.with_borrow_mut(|cache| {
        let key = boundary_key(state).map(|key| (key, exact));
        if let Some(key) = key
            && let Some(&tricks) = cache.tricks.get(&key)
        {
            return tricks;
        }
        let solved = if exact {
            cache.solver.solve(state)
        } else {
            cache.solver.solve_for_score(state)
        };
        let tricks = solved.unwrap_or_else(|| {
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
    })
}

/// Team payoffs with the rest of the hand played perfectly open-handed.
fn evaluate_open_handed(state: &GameState) -> [f64; 2] {
    let Some(contract) = state.contract() else {
        return [0.0; 2];
    };
    let tricks = open_hand_tricks(state, false);
    let outcome = score(Some(contract), state.lone_defender().is_some(), tricks);
    team_payoffs(|team| f64::from(outcome.payoff(team)))
}

/// Team payoffs with the open-hand count mapped through the calibration.
fn evaluate_calibrated(state: &GameState) -> [f64; 2] {
    let Some(contract) = state.contract() else {
        return [0.0; 2];
    };
    if !calibration::applies(contract.alone, state.lone_defender().is_some()) {
        return evaluate_open_handed(state);
    }
    let makers = contract.maker.team();
    let open_hand = open_hand_tricks(state, true)[makers.index()];
    let points = calibration::expected_maker_points(contract.alone, false, open_hand);
    team_payoffs(|team| if team == makers { points } else { -points })
}

/// Team payoffs with the rest of the hand played by the heuristic at every
/// seat. Its card play reads only the hand, the trick and the contract, so
/// the playout is deterministic and needs no history.
fn evaluate_by_heuristic_play(mut state: GameState) -> [f64; 2] {
    while state.stage() == Stage::Play {
        let card = heuristic::play(&Seen::new(&state, &[]));
        state.apply(Action::Play(card));
    }
    state.outcome().map_or([0.0; 2], |outcome| {
        team_payoffs(|team| f64::from(outcome.payoff(team)))
    })
}

pub mod calibration;
pub mod position;

#[cfg(test)]
mod tests {
    use euchre_game::engine::rules::Rules;
    use euchre_game::engine::seat::Seat;
    use euchre_game::engine::state::Deal;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    use super::*;

    fn first_lead(seed: u64) -> Option<GameState> {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut state = GameState::new(Deal::random(Seat::North, &mut rng), Rules::default());
        // Order the upcard up from the first seat, discard the first card.
        while state.stage() != Stage::Play {
            state.apply(crate::test_hands::order_up_at_once(&state));
        }
        state.contract().map(|_| state)
    }

    #[test]
    fn exact_and_score_only_solves_never_share_a_cache_entry() {
        for seed in 0..300 {
            let Some(state) = first_lead(seed) else {
                continue;
            };
            let score_only = open_hand_tricks(&state, false);
            let exact = open_hand_tricks(&state, true);
            assert_eq!(Some(exact), DoubleDummy::new().solve(&state), "seed {seed}");
            assert_eq!(
                score_only,
                DoubleDummy::new().solve_for_score(&state).unwrap()
            );
        }
    }

    #[test]
    fn calibrated_leaves_are_zero_sum_and_follow_the_open_hand_count() {
        for seed in 0..300 {
            let Some(state) = first_lead(seed) else {
                continue;
            };
            let [north_south, east_west] = LeafValuer::PimcCalibrated.evaluate(&state);
            assert!((north_south + east_west).abs() < 1e-12);
            let contract = state.contract().unwrap();
            let makers = contract.maker.team();
            let open_hand = DoubleDummy::new().solve(&state).unwrap()[makers.index()];
            let expected = if calibration::applies(contract.alone, false) {
                calibration::expected_maker_points(contract.alone, false, open_hand)
            } else {
                let tricks = DoubleDummy::new().solve(&state).unwrap();
                f64::from(score(Some(contract), false, tricks).payoff(makers))
            };
            let got = if makers == Team::NorthSouth {
                north_south
            } else {
                east_west
            };
            assert_eq!(got, expected);
        }
    }
}
