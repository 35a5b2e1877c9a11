//! Measures the table behind `--leaves pimc-calibrated`
//! (`euchre_bots::leaves::calibration::COUNTS`): plays hands with one bot at
//! every seat and counts, for normal and lone contracts, the tricks the
//! makers took against the open-hand count at the first lead.
//!
//! `cargo run --release -p trainer --example calibrate_leaves -- pimc:50 16000`

use std::sync::Arc;

use anyhow::Context;
use euchre_bots::arena::play_hand;
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::double_dummy::DoubleDummy;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, Stage};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

/// One contract played out: (alone, open-hand maker tricks, tricks taken).
type Observation = (bool, u8, u8);

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let spec = args.next().unwrap_or_else(|| "pimc:50".to_owned());
    let hands: u64 = match args.next() {
        Some(text) => text.parse().with_context(|| format!("hands '{text}'"))?,
        None => 16_000,
    };
    let rules = Rules::default();
    let bot: Arc<dyn Bot> = from_spec(&spec, rules, Unseen::Heuristic)?;
    let observations: Vec<Observation> = (0..hands)
        .into_par_iter()
        .filter_map(|index| observe(bot.as_ref(), rules, index))
        .collect();
    let mut counts = [[[0u32; 6]; 6]; 2];
    for &(alone, open_hand, taken) in &observations {
        counts[usize::from(alone)][usize::from(open_hand)][usize::from(taken)] += 1;
    }
    println!("// {hands} hands of {spec} at every seat, default rules");
    println!("pub const COUNTS: [[[u32; 6]; 6]; 2] = [");
    for by_open_hand in &counts {
        println!("    [");
        for row in by_open_hand {
            println!("        {row:?},");
        }
        println!("    ],");
    }
    println!("];");
    Ok(())
}

fn observe(bot: &dyn Bot, rules: Rules, index: u64) -> Option<Observation> {
    let mut rng = SmallRng::seed_from_u64(index.wrapping_mul(7919).wrapping_add(1));
    let deal = Deal::random(Seat::from_index((index % 4) as u8), &mut rng);
    let mut first_lead = None;
    let (_, outcome) = play_hand(deal, rules, [bot; 4], &mut rng, |state, _, _| {
        if state.stage() == Stage::Play && state.played().is_empty() && first_lead.is_none() {
            first_lead = Some(*state);
        }
    });
    let first_lead = first_lead?;
    let contract = first_lead.contract()?;
    let makers = contract.maker.team().index();
    let open_hand = DoubleDummy::new().solve(&first_lead)?[makers];
    Some((contract.alone, open_hand, outcome?.tricks[makers]))
}
