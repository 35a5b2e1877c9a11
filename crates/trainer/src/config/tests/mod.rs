//! The settings' tests, by what they test.

use std::path::PathBuf;

use crate::config::*;

mod levers;
mod profiles;
mod resolution;

pub(super) fn resolve_flags(
    profile: RunProfile,
    flags: impl Into<TrainOptions>,
) -> Result<(Identity, SessionSettings, Option<PathBuf>), ConfigError> {
    let resolved = resolve(profile, flags.into())?;
    Ok((resolved.identity, resolved.session, resolved.dir))
}

/// The message with every cause after it, as the binary prints it.
pub(super) fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}
