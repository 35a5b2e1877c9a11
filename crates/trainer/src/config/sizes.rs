//! Amounts of memory as people write them: `512M`, `64G`, `1.5GiB`.

use thiserror::Error;

/// A size that does not parse, with how to write one.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "'{text}' is not an amount of memory: write a number with K, M, G or T (powers of 1,024), like 512M or 64G"
)]
pub struct SizeError {
    pub text: String,
}

/// Parses a number of bytes with a unit of K, M, G or T, each a power of
/// 1,024 (as `free`, Slurm's `--mem` and Open MPI count them), optionally
/// followed by `B` or `iB`: `512M`, `64G`, `1.5GiB`. A bare number is
/// refused: bytes are never what is meant.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let invalid = || SizeError {
        text: text.to_owned(),
    };
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(invalid)?;
    let (number, unit) = trimmed.split_at(split);
    let number: f64 = number.parse().map_err(|_| invalid())?;
    let unit = unit.trim();
    let unit = unit
        .strip_suffix("iB")
        .or_else(|| unit.strip_suffix('B'))
        .unwrap_or(unit);
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(invalid()),
    };
    let bytes = number * scale as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > u64::MAX as f64 {
        return Err(invalid());
    }
    Ok(bytes as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_read_in_powers_of_1024() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("64G"), Ok(64 << 30));
        assert_eq!(parse_size("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_size(" 2 TB "), Ok(2 << 40));
        assert_eq!(parse_size("100k"), Ok(100 << 10));
    }

    #[test]
    fn what_is_not_a_size_is_refused_with_how_to_write_one() {
        for text in ["", "64", "G", "64X", "-1G", "0G", "1.2.3G", "64 gigs"] {
            let error = parse_size(text).unwrap_err();
            assert!(
                error.to_string().contains("like 512M or 64G"),
                "{text}: {error}"
            );
        }
    }
}
