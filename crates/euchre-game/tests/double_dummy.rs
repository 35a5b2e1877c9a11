//! The open-hand solver against plain minimax, on random positions near
//! the end of a hand where minimax is affordable.

use euchre_game::engine::action::Action;
use euchre_game::engine::double_dummy::{DoubleDummy, brute_force};
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage, score};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// A random position in play with `tricks_left` tricks to go, `into_trick`
/// cards into the current trick, or `None` when the random bidding passed
/// the hand out.
fn random_position(seed: u64, rules: Rules, tricks_left: u8, into_trick: u32) -> Option<GameState> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
    let mut state = GameState::new(deal, rules);
    while state.stage() != Stage::Play {
        state.to_act()?;
        let legal = state.legal_actions();
        state.apply(legal[rng.random_range(0..legal.len())]);
    }
    while 5 - state.tricks_played() > tricks_left {
        let legal = state.legal_actions();
        state.apply(legal[rng.random_range(0..legal.len())]);
    }
    // Into the trick, stopping short of completing it (alone hands have
    // three-card tricks).
    for _ in 0..into_trick {
        let legal = state.legal_actions();
        let mut next = state;
        next.apply(legal[rng.random_range(0..legal.len())]);
        if next.tricks_played() != state.tricks_played() {
            break;
        }
        state = next;
    }
    Some(state)
}

fn check_against_brute_force(tricks_left: u8) {
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    let mut solver = DoubleDummy::new();
    let mut checked = 0;
    for seed in 0..600u64 {
        let into_trick = (seed % 4) as u32;
        let Some(state) = random_position(seed, rules, tricks_left, into_trick) else {
            continue;
        };
        let expected = brute_force(&state).expect("a position in play");
        let solved = solver.solve(&state).expect("a position in play");
        assert_eq!(solved, expected, "seed {seed}: {state:?}");
        assert_eq!(solved[0] + solved[1], 5);
        checked += 1;
    }
    assert!(checked > 400, "only {checked} positions were checked");
}

#[test]
fn matches_minimax_with_two_tricks_left() {
    check_against_brute_force(2);
}

#[test]
fn matches_minimax_with_three_tricks_left() {
    check_against_brute_force(3);
}

#[test]
fn card_values_agree_with_the_solved_value() {
    let mut solver = DoubleDummy::new();
    for seed in 0..200u64 {
        let Some(state) = random_position(seed, Rules::default(), 3, 0) else {
            continue;
        };
        let actor = state.to_act().expect("someone leads");
        let values = solver.card_values(&state);
        assert_eq!(values.len() as u32, state.playable_cards().len());
        let best = values.iter().map(|&(_, tricks)| tricks).max();
        let solved = solver.solve(&state).expect("in play");
        assert_eq!(best, Some(solved[actor.team().index()]), "seed {seed}");
        for (card, tricks) in values {
            let mut next = state;
            next.apply(Action::Play(card));
            assert_eq!(
                brute_force(&next).expect("in play")[actor.team().index()],
                tricks
            );
        }
    }
}

#[test]
fn a_hand_of_all_the_top_trumps_takes_every_trick() {
    // North holds both bowers and A K Q of hearts and orders hearts up.
    let rules = Rules::default();
    let north = "Jh Jd Ah Kh Qh".parse().expect("cards");
    let east = "9c Tc Qc Kc Ac".parse().expect("cards");
    let south = "9s Ts Qs Ks As".parse().expect("cards");
    let west = "Jc Js 9d Td Qd".parse().expect("cards");
    let deal = Deal::new(
        Seat::West,
        [north, east, south, west],
        "Th".parse().expect("card"),
    )
    .expect("a valid deal");
    let mut state = GameState::new(deal, rules);
    state.apply(Action::Order { alone: false });
    state.apply(Action::Discard("9d".parse().expect("card")));
    let tricks = DoubleDummy::new().solve(&state).expect("in play");
    assert_eq!(tricks[Team::NorthSouth.index()], 5);
}

#[test]
fn the_score_only_search_scores_every_full_hand_as_the_exact_count_does() {
    // Minimax is out of reach with five tricks to go; the exact count is
    // checked against it above, and the score-only search against the
    // exact count here, from the first lead and from inside tricks.
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    let mut solver = DoubleDummy::new();
    let mut checked = 0;
    for seed in 0..1500u64 {
        let Some(state) = random_position(seed, rules, 5, (seed % 3) as u32) else {
            continue;
        };
        let contract = state.contract();
        let lone_defender = state.lone_defender().is_some();
        let exact = solver.solve(&state).expect("in play");
        let for_score = solver.solve_for_score(&state).expect("in play");
        assert_eq!(
            score(contract, lone_defender, exact).points,
            score(contract, lone_defender, for_score).points,
            "seed {seed}: exact {exact:?}, for score {for_score:?}"
        );
        checked += 1;
    }
    assert!(checked > 1000, "only {checked} positions were checked");
}

#[test]
fn card_values_of_a_full_hand_match_a_fresh_solve_of_each_card() {
    // card_values keeps one transposition table across the cards; each
    // value must still be what a solve from scratch gives.
    let mut shared = DoubleDummy::new();
    let mut fresh = DoubleDummy::new();
    for seed in 0..300u64 {
        let Some(state) = random_position(seed, Rules::default(), 5, (seed % 4) as u32) else {
            continue;
        };
        let actor = state.to_act().expect("someone plays");
        for (card, tricks) in shared.card_values(&state) {
            let mut next = state;
            next.apply(Action::Play(card));
            let solved = fresh.solve(&next).expect("in play");
            assert_eq!(
                tricks,
                solved[actor.team().index()],
                "seed {seed}, {card:?}"
            );
        }
    }
}
