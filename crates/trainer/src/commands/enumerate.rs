//! `trainer enumerate`: the size of a phase's key universe, and what it
//! would cost to store in each backend.

use std::time::Instant;

use euchre_game::engine::rules::Rules;
use euchre_game::keys::bidding::BiddingDecision;
use euchre_game::keys::play::PlayAbstraction;
use euchre_game::universe::bidding::count_bidding_keys;
use euchre_game::universe::play::{PlayKeyFilter, play_shapes};
use rayon::prelude::*;
use store::{RecordEncoding, RecordLayout};

use crate::format::{bytes, thousands};
use euchre_bots::phase::{Phase, RECORD_WIDTH};

pub fn bidding(rules: Rules) -> anyhow::Result<()> {
    let started = Instant::now();
    let counts = count_bidding_keys(rules);
    let elapsed = started.elapsed();
    println!("phase: bidding (perfect recall, exact colour-preserving suit symmetry)");
    println!("rules: {rules}");
    println!();
    println!("{:<16} {:>12}", "decision", "infostates");
    for decision in BiddingDecision::ALL {
        println!(
            "{:<16} {:>12}",
            decision.name(),
            thousands(counts.of(decision))
        );
    }
    println!("{:<16} {:>12}", "total", thousands(counts.total()));
    println!();
    println!("enumerated in {:.2} s", elapsed.as_secs_f64());
    println!();
    print_footprints(counts.total());
    Ok(())
}

/// Exact counts of a play phase's keys, per trick, streamed from their
/// shapes without holding them; then what the stored universe (bidding plus
/// play decisions with a choice) takes in each backend.
pub fn play(rules: Rules, phase: Phase, abstraction: PlayAbstraction) -> anyhow::Result<()> {
    let started = Instant::now();
    let all_keys = PlayKeyFilter {
        min_legal: 1,
        cards_before: phase.horizon(),
        abstraction,
    };
    let shapes = play_shapes(rules, all_keys);
    let tallies: Vec<(u8, u64, u64)> = shapes
        .par_iter()
        .map(|shape| {
            let (all, choices) = shape.tally();
            (shape.tricks_done(), all, choices)
        })
        .collect();
    let bidding = count_bidding_keys(rules).total();
    let elapsed = started.elapsed();
    println!(
        "phase: {phase} (perfect-recall bidding, rank-compressed play, abstraction {abstraction})"
    );
    println!("rules: {rules}");
    println!();
    println!(
        "{:<10} {:>10} {:>16} {:>22}",
        "trick", "shapes", "play keys", "with 2+ legal actions"
    );
    let mut totals = (0u64, 0u64, 0u64);
    for trick in 0..5u8 {
        let (shape_count, all, choices) = tallies
            .iter()
            .filter(|(tricks_done, _, _)| *tricks_done == trick)
            .fold((0u64, 0u64, 0u64), |(s, a, c), (_, all, choices)| {
                (s + 1, a + all, c + choices)
            });
        if shape_count == 0 {
            continue;
        }
        println!(
            "{:<10} {:>10} {:>16} {:>22}",
            trick + 1,
            thousands(shape_count),
            thousands(all),
            thousands(choices)
        );
        totals = (totals.0 + shape_count, totals.1 + all, totals.2 + choices);
    }
    println!(
        "{:<10} {:>10} {:>16} {:>22}",
        "total",
        thousands(totals.0),
        thousands(totals.1),
        thousands(totals.2)
    );
    if phase == Phase::FullPlay && abstraction == PlayAbstraction::Plain {
        println!(
            "(the design brief's independent count: 7.7e7 keys, 4.4e7 with 2+ legal; see docs/training.md)"
        );
    }
    println!();
    println!(
        "bidding keys (perfect recall): {}; stored universe = bidding + play keys with 2+ legal actions = {}",
        thousands(bidding),
        thousands(bidding + totals.2)
    );
    println!("enumerated in {:.1} s", elapsed.as_secs_f64());
    println!();
    print_footprints(bidding + totals.2);
    Ok(())
}

fn print_footprints(keys: u64) {
    let max_actions = RECORD_WIDTH;
    println!(
        "{:<10} {:>8}  {:>14}  {:>14}  {:>14}  {:>14}",
        "record", "bytes", "memory (RAM)", "lmdb (disk) >=", "mmap (disk)", "mmap RAM floor"
    );
    for encoding in RecordEncoding::ALL {
        let Ok(layout) = RecordLayout::new(max_actions, encoding) else {
            continue;
        };
        let footprint = layout.footprint(keys);
        println!(
            "{:<10} {:>8}  {:>14}  {:>14}  {:>14}  {:>14}",
            encoding.name(),
            layout.bytes(),
            bytes(footprint.memory_resident),
            bytes(footprint.lmdb_disk_at_least),
            bytes(footprint.mmap_disk),
            bytes(footprint.mmap_resident_floor),
        );
    }
    println!(
        "(records padded to {max_actions} actions; memory adds a {} B/key index; the phf is taken at {} bits/key)",
        store::MEMORY_INDEX_BYTES_PER_KEY,
        store::PHF_BITS_PER_KEY_MAX
    );
}
