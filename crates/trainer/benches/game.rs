//! `cargo bench --bench game`: random complete hands per second on one
//! thread, and the open-hand solver's full positions per second (the same
//! tables as `trainer bench game` and `trainer bench dd`).

fn main() -> anyhow::Result<()> {
    trainer::bench::game::run(2_000_000, 1)?;
    trainer::bench::dd::run(20_000, 1)
}
