//! `cargo bench --bench cfr`: solver speed and exploitability on Kuhn poker
//! and Leduc hold'em, the same table as `trainer bench cfr`.

fn main() -> anyhow::Result<()> {
    trainer::bench::cfr::run(100_000, 42)
}
