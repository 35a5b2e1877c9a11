//! `cargo bench --bench train`: training iterations per second for bidding
//! and play-2 on every store and on 1 and 2 threads, as ratios against the
//! memory store on one thread (the table of `trainer bench train`, whose
//! default also measures full play).

use trainer::phase::Phase;

fn main() -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("trainer-bench-train-{}", std::process::id()));
    trainer::bench::train::run(4000, &[Phase::Bidding, Phase::Play(2)], None, &dir)
}
