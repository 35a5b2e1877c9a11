//! A run profile: the TOML file of run settings, read once, with a size
//! cap, and every error naming the key and line it comes from.

use std::path::Path;

use euchre_game::engine::rules::Rules;
use serde::{Deserialize, Serialize};

use super::*;

/// A run profile as written in TOML: every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunProfile {
    #[serde(default)]
    pub run: RunOptions,
    #[serde(default)]
    pub rules: Rules,
    #[serde(default)]
    pub solver: SolverSettings,
    #[serde(default)]
    pub store: StoreSettings,
    #[serde(default)]
    pub log: LogSettings,
    /// The learning curve: `every`, `against`, `hands` (see configs/example.toml).
    #[serde(default)]
    pub eval: CurveOptions,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LogSettings {
    /// `error`, `warn`, `info`, `debug` or `trace`.
    pub level: String,
    /// Also log to `train.log` in the run directory.
    pub file: bool,
    /// Draw a progress bar when stderr is a terminal.
    pub progress: bool,
}

impl Default for LogSettings {
    fn default() -> LogSettings {
        LogSettings {
            level: "info".into(),
            file: true,
            progress: true,
        }
    }
}

/// The first key of `[run]` whose value does not read, with its line and
/// what is wrong with it.
fn run_key_error(text: &str) -> Option<(String, usize, String)> {
    let table: toml::Table = toml::from_str(text).ok()?;
    let run = table.get("run")?.as_table()?;
    run.iter().find_map(|(key, value)| {
        let mut alone = toml::Table::new();
        alone.insert(key.clone(), value.clone());
        let error = toml::Value::Table(alone).try_into::<RunOptions>().err()?;
        Some((
            key.clone(),
            line_of_run_key(text, key),
            error.message().to_owned(),
        ))
    })
}

/// The line (from 1) where `key` is set in the `[run]` table of `text`;
/// 0 when it cannot be told (a dotted or inline form).
fn line_of_run_key(text: &str, key: &str) -> usize {
    let mut in_run = false;
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            in_run = line == "[run]";
        } else if in_run
            && line
                .strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return index + 1;
        }
    }
    0
}

pub fn parse_profile(text: &str, origin: &str) -> Result<RunProfile, ConfigError> {
    let mut profile: RunProfile = toml::from_str(text).map_err(|source| {
        // `[run]` is read through flattened structs, whose errors lose the
        // key and point at the table: find the key by reading each alone.
        match run_key_error(text) {
            Some((key, line, message)) => ConfigError::RunKey {
                origin: origin.to_owned(),
                key,
                line,
                message,
            },
            None => ConfigError::Profile {
                origin: origin.to_owned(),
                source,
            },
        }
    })?;
    profile.run.check_known(origin)?;
    // Whether a profile chose the opponents' bids decides between its
    // choice and the phase's default (and, on resume, the run's own), but
    // `[solver]` fills every missing field with a default. The table, parsed
    // again, says whether the key was there.
    let names_opponent_bids = toml::from_str::<toml::Table>(text)
        .ok()
        .and_then(|table| {
            table
                .get("solver")
                .and_then(toml::Value::as_table)
                .map(|solver| solver.contains_key("opponent_bids"))
        })
        .unwrap_or(false);
    if names_opponent_bids {
        profile.run.opponent_bids = profile
            .run
            .opponent_bids
            .or(Some(profile.solver.opponent_bids));
    }
    Ok(profile)
}

/// A profile is a page or two of TOML; the cap keeps a file named by
/// mistake (a device, a policy, a log) from being read whole.
pub const MAX_PROFILE_BYTES: u64 = 1 << 20;

pub fn load_profile(path: Option<&Path>) -> Result<RunProfile, ConfigError> {
    let Some(path) = path else {
        return Ok(RunProfile::default());
    };
    let text = store::read_text_bounded(path, MAX_PROFILE_BYTES).map_err(|source| {
        ConfigError::Unreadable {
            path: path.to_path_buf(),
            source,
        }
    })?;
    parse_profile(&text, &path.display().to_string())
}

/// The rules from `path`'s `[rules]` table, or the defaults without a file.
pub fn load_rules(path: Option<&Path>) -> Result<Rules, ConfigError> {
    Ok(load_profile(path)?.rules)
}
