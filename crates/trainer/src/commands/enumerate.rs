//! `trainer enumerate`: the size of a phase's key universe, and what it
//! would cost to store in each backend.

use std::time::Instant;

use euchre_game::action::Action;
use euchre_game::enumerate::count_bidding_keys;
use euchre_game::infoset::BiddingDecision;
use euchre_game::rules::Rules;
use store::{RecordEncoding, RecordLayout};

use crate::format::{bytes, thousands};

pub(crate) fn bidding(rules: Rules) -> anyhow::Result<()> {
    let started = Instant::now();
    let counts = count_bidding_keys(rules);
    let elapsed = started.elapsed();
    println!("phase: bidding (perfect recall, exact colour-preserving suit symmetry)");
    println!("rules: {rules:?}");
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
    print_footprints(counts.total(), Action::MAX_LEGAL as u8);
    Ok(())
}

fn print_footprints(keys: u64, max_actions: u8) {
    println!(
        "{:<10} {:>8}  {:>14}  {:>14}  {:>14}  {:>14}",
        "record", "bytes", "memory (RAM)", "lmdb (disk) >=", "mmap (disk)", "mmap RAM floor"
    );
    for encoding in RecordEncoding::ALL {
        let layout = RecordLayout {
            max_actions,
            encoding,
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
        store::layout::MEMORY_INDEX_BYTES_PER_KEY,
        store::layout::PHF_BITS_PER_KEY_MAX
    );
}
