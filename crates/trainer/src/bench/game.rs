//! `trainer bench game`: how fast the engine plays random complete hands.

use std::hint::black_box;
use std::time::Instant;

use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState};
use euchre_game::keys::decision;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use crate::format::thousands;

struct Measurement {
    hands: u64,
    steps: u64,
    seconds: f64,
}

/// Deals only: the cost of shuffling, the floor under every hand.
fn deal_only(hands: u64, seed: u64) -> Measurement {
    let mut rng = SmallRng::seed_from_u64(seed);
    let started = Instant::now();
    for index in 0..hands {
        black_box(Deal::random(Seat::from_index(index as u8), &mut rng));
    }
    Measurement {
        hands,
        steps: 0,
        seconds: started.elapsed().as_secs_f64(),
    }
}

/// Deals and plays every hand to the end with uniformly random legal actions;
/// with `keyed`, also computes the canonical infostate key and action order
/// at every decision, as training does at every node it visits.
fn random_hands(hands: u64, seed: u64, rules: Rules, keyed: bool) -> Measurement {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut steps = 0u64;
    let started = Instant::now();
    for index in 0..hands {
        let deal = Deal::random(Seat::from_index(index as u8), &mut rng);
        let mut state = GameState::new(deal, rules);
        while !state.is_finished() {
            let legal = if keyed {
                let decision = black_box(decision(&state)).expect("a decision until the end");
                decision.actions
            } else {
                state.legal_actions()
            };
            state.apply(legal[rng.random_range(0..legal.len())]);
            steps += 1;
        }
        black_box(state.outcome());
    }
    Measurement {
        hands,
        steps,
        seconds: started.elapsed().as_secs_f64(),
    }
}

pub fn run(hands: u64, seed: u64) -> anyhow::Result<()> {
    anyhow::ensure!(hands > 0, "--hands must be at least 1");
    let deals = deal_only(hands, seed);
    let rows = [
        ("deal only (baseline)", deals),
        (
            "random hand, default rules",
            random_hands(hands, seed, Rules::default(), false),
        ),
        (
            "random hand, keys at each step",
            random_hands(hands, seed, Rules::default(), true),
        ),
        (
            "random hand, lone defender",
            random_hands(
                hands,
                seed,
                Rules {
                    lone_defender: true,
                    ..Rules::default()
                },
                false,
            ),
        ),
    ];
    println!("single thread, {} hands each", thousands(hands));
    println!(
        "{:<32} {:>14} {:>18} {:>12} {:>14}",
        "workload", "hands/s", "legal+apply /s", "steps/hand", "time vs deal"
    );
    let baseline = rows[0].1.seconds;
    for (name, m) in &rows {
        let per_second = |count: u64| (count as f64 / m.seconds) as u64;
        let steps = if m.steps == 0 {
            "-".to_string()
        } else {
            thousands(per_second(m.steps))
        };
        let steps_per_hand = if m.steps == 0 {
            "-".to_string()
        } else {
            format!("{:.1}", m.steps as f64 / m.hands as f64)
        };
        println!(
            "{:<32} {:>14} {:>18} {:>12} {:>13.1}x",
            name,
            thousands(per_second(m.hands)),
            steps,
            steps_per_hand,
            m.seconds / baseline
        );
    }
    println!(
        "reference: OpenSpiel's C++ euchre engine plays about 100,000 random hands/s on this kind of machine"
    );
    Ok(())
}
