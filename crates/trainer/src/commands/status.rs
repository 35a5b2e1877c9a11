//! `trainer status`: prints [`RunStatus`], where a run stands.

use std::path::Path;

use crate::training::status::RunStatus;

/// `trainer status`: where a run stands, without disturbing a trainer
/// that may be working in it. `digest` also reads every record (this
/// needs the run's lock) and prints a digest of them.
pub fn run(dir: &Path, digest: bool) -> anyhow::Result<()> {
    print!("{}", RunStatus::read(dir, digest)?);
    Ok(())
}
