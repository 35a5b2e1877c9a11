//! A fixed bidding strategy that a card-play run trains under.
//!
//! Full play learns its bids against its own card play. Early in a run that
//! card play is weak on both sides, so bold bids pay in self-play, and the
//! policy learns to bid far more than a side that defends well lets it get
//! away with (the 65-minute run in the README made trump in 75% of hands
//! and was euchred in 41%). The bidding phase, valued by open-hand leaves,
//! converges in minutes to bids that hold up against good defence. A run
//! given such a policy with `--bidding-from FILE` plays every bidding
//! decision from it, as a chance node the solver samples and never stores,
//! and spends its whole budget on card play. Its exported policy carries
//! the blueprint's bids, so it plays a whole hand alone.

use std::path::{Path, PathBuf};

use euchre_game::engine::rules::Rules;
use euchre_game::keys::InfoKey;
use serde::{Deserialize, Serialize};
use store::Key;
use thiserror::Error;

use crate::policy_file::{PolicyFile, PolicyFileError};

/// Which file a run's bids come from, as the run's settings and its policy
/// file record it: enough to find the file again and to notice that it was
/// replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlueprintSource {
    /// Absolute, so that a run resumed from another directory finds it.
    pub path: PathBuf,
    /// The policy file's own CRC-32.
    pub checksum: u32,
    /// The iterations the blueprint was trained for.
    pub iterations: u64,
}

impl std::fmt::Display for BlueprintSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (checksum {:08x}, {} iterations)",
            self.path.display(),
            self.checksum,
            self.iterations
        )
    }
}

/// Why a blueprint cannot be used. Each message names the file and what to
/// do about it.
#[derive(Debug, Error)]
pub enum BlueprintError {
    #[error("the bidding blueprint cannot be read")]
    Policy(#[source] PolicyFileError),
    #[error("cannot resolve the bidding blueprint's path {}", path.display())]
    Path {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the bidding blueprint {} was trained under other rules ({blueprint}) than this run ({run}); train a bidding policy under this run's rules",
        path.display()
    )]
    Rules {
        path: PathBuf,
        blueprint: String,
        run: String,
    },
    #[error(
        "the bidding blueprint {} holds no bidding decisions; export a policy of a bidding run (`trainer train --phase bidding --export`)",
        path.display()
    )]
    NoBids { path: PathBuf },
    #[error(
        "the bidding blueprint {} changed since this run started (checksum {found:08x}, the run was made with {expected:08x}); put the original file back, or train card play under the new one in a new run directory",
        path.display()
    )]
    Changed {
        path: PathBuf,
        expected: u32,
        found: u32,
    },
}

/// A loaded bidding blueprint: only its bidding decisions are ever read.
#[derive(Debug)]
pub struct BiddingBlueprint {
    source: BlueprintSource,
    policy: PolicyFile,
}

/// Whether `key` is a bidding decision (round 1 or 2, the dealer's
/// discard, defending alone) rather than a card play.
pub fn is_bidding_key(key: Key) -> bool {
    InfoKey(key).decision_kind().is_some()
}

impl BiddingBlueprint {
    /// Loads a blueprint for a new run under `rules`.
    pub fn load(path: &Path, rules: Rules) -> Result<BiddingBlueprint, BlueprintError> {
        let path = std::fs::canonicalize(path).map_err(|source| BlueprintError::Path {
            path: path.to_path_buf(),
            source,
        })?;
        let policy = PolicyFile::load(&path).map_err(BlueprintError::Policy)?;
        if policy.meta.rules != rules {
            return Err(BlueprintError::Rules {
                path,
                blueprint: crate::phase::describe_rules(policy.meta.rules),
                run: crate::phase::describe_rules(rules),
            });
        }
        if !policy.entries().any(|(key, _)| is_bidding_key(key)) {
            return Err(BlueprintError::NoBids { path });
        }
        Ok(BiddingBlueprint {
            source: BlueprintSource {
                path,
                checksum: policy.checksum(),
                iterations: policy.meta.iterations,
            },
            policy,
        })
    }

    /// Loads the blueprint a run was started with, refusing a file that has
    /// changed since: card play trained under one set of bids must not go
    /// on under another.
    pub fn reopen(
        source: &BlueprintSource,
        rules: Rules,
    ) -> Result<BiddingBlueprint, BlueprintError> {
        let blueprint = BiddingBlueprint::load(&source.path, rules)?;
        if blueprint.source.checksum != source.checksum {
            return Err(BlueprintError::Changed {
                path: source.path.clone(),
                expected: source.checksum,
                found: blueprint.source.checksum,
            });
        }
        Ok(blueprint)
    }

    pub fn source(&self) -> &BlueprintSource {
        &self.source
    }

    /// Fills `out` with the blueprint's bid at `key`, uniform where it has
    /// none (a bidding key its training never averaged).
    pub fn probabilities(&self, key: Key, out: &mut [f64]) {
        self.policy.probabilities(key, out);
    }

    /// The blueprint's bidding entries, in key order, each row scaled to
    /// 65535 as in the policy file.
    pub fn bids(&self) -> impl Iterator<Item = (Key, &[u16])> {
        self.policy
            .entries()
            .filter(|&(key, _)| is_bidding_key(key))
    }
}
