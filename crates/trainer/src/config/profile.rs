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
    pub solver: SolverOptions,
    #[serde(default)]
    pub store: StoreOptions,
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
    // Only a profile that does not read is read again, table by table,
    // for the key and line of its error.
    let profile =
        toml::from_str::<RunProfile>(text).map_err(|source| profile_error(text, origin, source))?;
    profile.run.check_known(origin)?;
    Ok(profile)
}

/// Why `text` does not read as a profile, with the key and line at fault.
fn profile_error(text: &str, origin: &str, source: toml::de::Error) -> ConfigError {
    // `[run]` is read through flattened structs, whose errors lose the key
    // and point at the table: find the key by reading each alone.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The error and its causes, as the binary prints them.
    fn chain(error: &dyn std::error::Error) -> String {
        let mut text = error.to_string();
        let mut cause = error.source();
        while let Some(next) = cause {
            text.push_str(&format!(": {next}"));
            cause = next.source();
        }
        text
    }

    #[test]
    fn a_bad_key_is_named() {
        let error =
            parse_profile("[run]\nphase = \"bidding\"\nfor = \"soon\"\n", "p.toml").unwrap_err();
        let text = chain(&error);
        assert!(text.contains("for") && text.contains("soon"), "{text}");
        let error = parse_profile("[solver]\nscheduel = 1\n", "p.toml").unwrap_err();
        let text = chain(&error);
        assert!(
            text.contains("scheduel") && text.contains("line 2"),
            "{text}"
        );
    }
}
