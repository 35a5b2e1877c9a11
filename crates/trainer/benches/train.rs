//! `cargo bench --bench train`: training iterations per second for bidding
//! and play-2 on every store and on 1 and 2 threads, as ratios against the
//! memory store on one thread (the table of `trainer bench train`, whose
//! default also measures full play).

use euchre_bots::phase::Phase;
use store::Backend;
use trainer::bench::train::{Length, Selection};

fn main() -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("trainer-bench-train-{}", std::process::id()));
    let length = Length::Iterations {
        warm_up: 400,
        measured: 4000,
    };
    let selection = Selection {
        phases: vec![Phase::Bidding, Phase::Play(2)],
        stores: Backend::ALL.to_vec(),
        threads: vec![1, 2],
    };
    trainer::bench::train::run(length, &selection, None, &dir)
}
