//! A run directory holds everything about one training run:
//!
//! - `settings.toml`: the run's identity (phase, store, rules, solver,
//!   seed), written when the run starts and checked on every resume;
//! - `store/`: the store, whose manifest also commits the run's progress;
//! - `train.log`: the log of every session;
//! - `policy.bin`: the exported average strategy;
//! - `run.lock`: held by the one trainer working in the directory.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use store::{ClientState, StoreDir, StoreError};

use crate::config::{Identity, SessionSettings};
use crate::training::error::TrainingError;
use euchre_bots::phase::Phase;
use store::Backend;

/// The stage's run directory, inside the staged run's.
pub const STAGE_DIR: &str = "bidding";
pub const SETTINGS_FILE: &str = "settings.toml";
pub const STORE_DIR: &str = "store";
pub const LOG_FILE: &str = "train.log";
pub const POLICY_FILE: &str = "policy.bin";
const LOCK_FILE: &str = "run.lock";

/// The bidding stage's run directory inside the run at `dir`: a staged
/// full-play run trains its bids there first.
pub fn stage_dir(dir: &Path) -> PathBuf {
    dir.join(STAGE_DIR)
}

/// The default directory of a run: `runs/<phase>-<store>`.
pub fn default_path(phase: Phase, store: Backend) -> PathBuf {
    PathBuf::from("runs").join(format!("{phase}-{store}"))
}

/// What `settings.toml` holds: the run's fixed identity, and the session
/// settings last used, which `trainer resume` starts from.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedSettings {
    pub identity: Identity,
    pub session: SessionSettings,
}

/// A locked run directory. Its `settings.toml` is read at most once while
/// it is held ([`RunDir::saved`]), and kept up to date by
/// [`RunDir::save`]: no one else may write it meanwhile.
#[derive(Debug)]
pub struct RunDir {
    lock: StoreDir,
    /// `None` until first read; then the settings on disk (`Some(None)`
    /// for a directory that holds no run yet).
    saved: std::sync::Mutex<Option<Option<SavedSettings>>>,
}

/// How far a run has got, committed with the store at each checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    pub iterations: u64,
    pub regret_updates: u64,
    pub strategy_updates: u64,
    /// Seconds spent iterating over all sessions.
    pub train_seconds: f64,
    /// When the checkpoint was taken, in seconds since the Unix epoch.
    pub checkpoint_unix: u64,
}

/// What a checkpoint commits beside the records: the progress, and the
/// identity of the run that trained them, so that a store is never
/// resumed, exported or read under another run's settings (a store copied
/// between run directories, or a settings.toml deleted or replaced).
#[derive(Clone, Debug, Serialize, Deserialize)]
struct CommittedState {
    #[serde(flatten)]
    progress: Progress,
    /// Absent in stores checkpointed before identities were recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    identity: Option<Identity>,
}

fn decode_committed(
    state: &ClientState,
    dir: &Path,
) -> Result<Option<CommittedState>, TrainingError> {
    state.decode().map_err(|source| TrainingError::Progress {
        dir: dir.to_path_buf(),
        source,
    })
}

impl Progress {
    /// The progress a checkpoint committed; zero before the first.
    pub fn committed(state: &ClientState, dir: &Path) -> Result<Progress, TrainingError> {
        Ok(decode_committed(state, dir)?.map_or_else(Progress::default, |state| state.progress))
    }

    /// The state a checkpoint commits: this progress, made by `identity`.
    pub fn to_state(self, identity: &Identity) -> Result<ClientState, TrainingError> {
        ClientState::encode(&CommittedState {
            progress: self,
            identity: Some(identity.clone()),
        })
        .map_err(TrainingError::RecordProgress)
    }
}

/// Refuses a store whose last checkpoint was made by a run with another
/// identity than `identity`. Stores checkpointed before identities were
/// recorded pass.
pub fn check_store_identity(
    state: &ClientState,
    identity: &Identity,
    store_dir: &Path,
) -> Result<(), TrainingError> {
    let Some(recorded) = decode_committed(state, store_dir)?.and_then(|state| state.identity)
    else {
        return Ok(());
    };
    let differences = identity.differences(&recorded);
    if differences.is_empty() {
        Ok(())
    } else {
        Err(TrainingError::StoreOfOtherRun {
            dir: store_dir.to_path_buf(),
            differences,
        })
    }
}

impl RunDir {
    /// Takes the directory's lock, creating it if needed.
    pub fn lock(path: &Path) -> Result<RunDir, TrainingError> {
        let lock = StoreDir::lock_with(path, LOCK_FILE).map_err(|error| match error {
            StoreError::Locked { pid, .. } => TrainingError::RunLocked {
                dir: path.to_path_buf(),
                pid,
            },
            other => TrainingError::Store(other),
        })?;
        Ok(RunDir {
            lock,
            saved: std::sync::Mutex::new(None),
        })
    }

    /// The run's saved settings, read on first use; `None` for a directory
    /// that holds no run yet.
    pub fn saved(&self) -> Result<Option<SavedSettings>, TrainingError> {
        let mut cached = self
            .saved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if cached.is_none() {
            *cached = Some(read_settings(self.path())?);
        }
        Ok(cached.clone().flatten())
    }

    pub fn path(&self) -> &Path {
        self.lock.path()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.lock.file(name)
    }

    /// Checks `identity` against the run's saved one, naming every setting
    /// that differs. A directory with no run passes.
    pub fn check(&self, identity: &Identity) -> Result<(), TrainingError> {
        if let Some(saved) = self.saved()? {
            let differences = identity.differences(&saved.identity);
            if !differences.is_empty() {
                return Err(TrainingError::OtherSettings {
                    dir: self.path().to_path_buf(),
                    differences,
                });
            }
        }
        Ok(())
    }

    /// Records the run's identity and this session's settings; called once
    /// the store has opened, so a run that never started leaves no settings
    /// to trip over.
    pub fn save(
        &self,
        identity: &Identity,
        session: &SessionSettings,
    ) -> Result<(), TrainingError> {
        let saved = SavedSettings {
            identity: identity.clone(),
            session: session.clone(),
        };
        let text = toml::to_string_pretty(&saved).map_err(TrainingError::EncodeSettings)?;
        store::write_atomically(&self.file(SETTINGS_FILE), text.as_bytes())?;
        *self
            .saved
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Some(saved));
        Ok(())
    }
}

/// Reads a run's saved settings without taking its lock; `None` for a
/// directory that holds no run.
pub fn read_settings(dir: &Path) -> Result<Option<SavedSettings>, TrainingError> {
    let path = dir.join(SETTINGS_FILE);
    let text = match store::read_text_bounded(&path, crate::config::MAX_PROFILE_BYTES) {
        Ok(text) => text,
        Err(store::RegularFileError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound =>
        {
            return Ok(None);
        }
        Err(store::RegularFileError::Io { source, .. }) => {
            return Err(TrainingError::Unreadable { path, source });
        }
        Err(unfit) => {
            return Err(TrainingError::Unreadable {
                path,
                source: std::io::Error::other(unfit.to_string()),
            });
        }
    };
    toml::from_str(&text)
        .map(Some)
        .map_err(|source| TrainingError::Settings { path, source })
}
