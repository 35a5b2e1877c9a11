//! A policy file that a training run depends on: the bidding blueprint of a
//! card-play run, or the card-play table that bids are refit to. The run
//! records the file's absolute path (so that a run resumed from another
//! directory finds it) and its checksum (so that a file replaced since is
//! refused rather than silently trained on), and the file must have been
//! trained under the run's rules, since keys mean other things under others.

use std::path::{Path, PathBuf};

use euchre_game::engine::rules::Rules;
use thiserror::Error;

use crate::policy_file::{PolicyFile, PolicyFileError, PolicyHeader};

use crate::meta::PolicyMeta;

/// Why a pinned policy file cannot be used; `role` says what the run uses
/// it as ("bidding blueprint", "card-play table"). Each message names the
/// file and what to do about it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PinnedError {
    #[error("the {role} cannot be read")]
    Policy {
        role: &'static str,
        #[source]
        source: PolicyFileError,
    },
    #[error("cannot resolve the {role}'s path {}", path.display())]
    Path {
        role: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the {role} {} was trained under other rules ({trained}) than this run ({run}); use one trained under this run's rules",
        path.display()
    )]
    Rules {
        role: &'static str,
        path: PathBuf,
        trained: String,
        run: String,
    },
    #[error(
        "the {role} {} changed since this run started (checksum {found:08x}, the run was made with {expected:08x}); put the original file back, or train on the new one in a new run directory",
        path.display()
    )]
    Changed {
        role: &'static str,
        path: PathBuf,
        expected: u32,
        found: u32,
    },
}

/// A policy file opened for a run, by its absolute path.
#[derive(Debug)]
pub struct Pinned {
    pub path: PathBuf,
    pub policy: PolicyFile,
}

/// What a pinned policy file says of itself, by its absolute path, read
/// without its entries ([`PolicyFile::read_header`]).
#[derive(Debug)]
pub struct PinnedHeader {
    pub path: PathBuf,
    pub header: PolicyHeader,
}

impl Pinned {
    /// Opens the `role` file at `path` for a run under `rules`.
    pub fn open(path: &Path, rules: Rules, role: &'static str) -> Result<Pinned, PinnedError> {
        let path = absolute(path, role)?;
        let policy =
            PolicyFile::load(&path).map_err(|source| PinnedError::Policy { role, source })?;
        check_rules(&path, &policy.meta, rules, role)?;
        Ok(Pinned { path, policy })
    }

    /// Reads the `role` file's header for a run under `rules`: what a run
    /// records of the file, without loading it. [`Pinned::reopen`] then
    /// verifies the whole file against the checksum recorded.
    pub fn probe(
        path: &Path,
        rules: Rules,
        role: &'static str,
    ) -> Result<PinnedHeader, PinnedError> {
        let path = absolute(path, role)?;
        let header = PolicyFile::read_header(&path)
            .map_err(|source| PinnedError::Policy { role, source })?;
        check_rules(&path, &header.meta, rules, role)?;
        Ok(PinnedHeader { path, header })
    }

    /// Opens the `role` file a run recorded with `checksum`, refusing one
    /// that has changed since: what was trained against one file must not
    /// go on against another.
    pub fn reopen(
        path: &Path,
        checksum: u32,
        rules: Rules,
        role: &'static str,
    ) -> Result<Pinned, PinnedError> {
        let pinned = Pinned::open(path, rules, role)?;
        if pinned.policy.checksum() != checksum {
            return Err(PinnedError::Changed {
                role,
                path: pinned.path,
                expected: checksum,
                found: pinned.policy.checksum(),
            });
        }
        Ok(pinned)
    }
}

fn absolute(path: &Path, role: &'static str) -> Result<PathBuf, PinnedError> {
    std::fs::canonicalize(path).map_err(|source| PinnedError::Path {
        role,
        path: path.to_path_buf(),
        source,
    })
}

fn check_rules(
    path: &Path,
    meta: &PolicyMeta,
    rules: Rules,
    role: &'static str,
) -> Result<(), PinnedError> {
    if meta.recipe.rules == rules {
        Ok(())
    } else {
        Err(PinnedError::Rules {
            role,
            path: path.to_path_buf(),
            trained: meta.recipe.rules.to_string(),
            run: rules.to_string(),
        })
    }
}
