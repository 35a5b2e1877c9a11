//! `cargo bench --bench store`: every store backend against a
//! `Mutex<HashMap>` on the euchre-bot key workload, at 2 M keys (the table
//! of `trainer bench store`, whose default is the published 20 M).

use std::path::Path;

fn main() -> anyhow::Result<()> {
    let dir = std::env::temp_dir().join(format!("trainer-bench-store-{}", std::process::id()));
    let trainer = Path::new(env!("CARGO_BIN_EXE_trainer"));
    let result = trainer::bench::store::run(2_000_000, None, &dir, None, false, trainer);
    let _ = std::fs::remove_dir_all(&dir);
    result
}
