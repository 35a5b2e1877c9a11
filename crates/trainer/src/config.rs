//! Run profiles in TOML. Unknown keys are errors that name the key, so a
//! typo never silently falls back to a default.

use std::path::Path;

use anyhow::Context;
use euchre_game::rules::Rules;
use serde::Deserialize;

/// The parts of a run profile the trainer reads so far.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunProfile {
    #[serde(default)]
    pub(crate) rules: Rules,
}

pub(crate) fn parse_profile(text: &str, origin: &str) -> anyhow::Result<RunProfile> {
    toml::from_str(text)
        .with_context(|| format!("{origin} is not a valid run profile (see configs/example.toml)"))
}

/// The rules from `path`'s `[rules]` table, or the defaults without a file.
pub(crate) fn load_rules(path: Option<&Path>) -> anyhow::Result<Rules> {
    let Some(path) = path else {
        return Ok(Rules::default());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the config file {}", path.display()))?;
    Ok(parse_profile(&text, &path.display().to_string())?.rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_profile_parses() {
        let text = include_str!("../../../configs/example.toml");
        let profile = parse_profile(text, "configs/example.toml").unwrap();
        assert_eq!(profile.rules, Rules::default());
    }

    #[test]
    fn unknown_keys_are_named() {
        let error = parse_profile("[rules]\nstick_the_deler = true\n", "test.toml").unwrap_err();
        let message = format!("{error:#}");
        assert!(message.contains("stick_the_deler"), "{message}");
        assert!(message.contains("test.toml"), "{message}");
        let error = parse_profile("[rulez]\n", "test.toml").unwrap_err();
        assert!(format!("{error:#}").contains("rulez"));
        let error = parse_profile("[rules]\nlone_defender = 3\n", "test.toml").unwrap_err();
        assert!(format!("{error:#}").contains("lone_defender"));
    }
}
