//! Durations as people write them: `90s`, `45m`, `2h`, `1h30m`.

use std::time::Duration;

use thiserror::Error;

/// A duration that does not parse, with how to write one.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("'{text}' is not a duration: {hint}")]
pub struct DurationError {
    pub text: String,
    pub hint: &'static str,
}

/// Parses `90s`, `45m`, `2h`, `1h30m` or `1d`.
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    const UNITS: &str = "use a number with s, m, h or d, like 90s, 45m or 2h";
    let invalid = |hint| DurationError {
        text: text.to_owned(),
        hint,
    };
    let mut seconds = 0u64;
    let mut digits = String::new();
    let mut any = false;
    for c in text.trim().chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(invalid(UNITS)),
        };
        let value: u64 = digits
            .parse()
            .map_err(|_| invalid("put a number before each unit, like 1h30m"))?;
        seconds = value
            .checked_mul(unit)
            .and_then(|more| seconds.checked_add(more))
            .ok_or_else(|| invalid("it is too long; give at most a few years"))?;
        digits.clear();
        any = true;
    }
    if !digits.is_empty() || !any || seconds == 0 {
        return Err(invalid(UNITS));
    }
    Ok(Duration::from_secs(seconds))
}
