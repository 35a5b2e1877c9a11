//! `trainer status`: prints [`RunStatus`], where a run stands.

use std::path::Path;

use store::Verify;

use crate::training::status::{DigestOutcome, RunStatus, StoreCheck};

/// `trainer status`: where a run stands, without disturbing a trainer
/// that may be working in it. When none is, the store is opened and
/// checked against its last checkpoint (as `verify` says); `digest` also
/// reads every record and prints a digest of them. A damaged store, or a
/// digest asked for while a trainer holds the run, is printed, then is the
/// command's error.
pub fn run(dir: &Path, digest: bool, verify: Verify) -> anyhow::Result<()> {
    let status = RunStatus::read(dir, digest, Some(verify))?;
    print!("{status}");
    if let StoreCheck::Damaged(_) = status.store_check {
        anyhow::bail!(
            "the store in {} is damaged (above); restore its files from a backup, or start a new run directory",
            dir.display()
        );
    }
    if status.digest == Some(DigestOutcome::Skipped) {
        anyhow::bail!(
            "no digest of {}: a trainer is working in it (above); run `trainer status --digest` once it stops",
            dir.display()
        );
    }
    Ok(())
}
