//! The rule options that vary between tables.

use serde::{Deserialize, Serialize};

/// Every rule option the engine supports. A run's fingerprint includes it,
/// so a store trained under one set of rules is never reused under another.
///
/// In TOML (a `[rules]` table in a run profile) every field is optional and
/// unknown keys are rejected:
/// ```toml
/// stick_the_dealer = true
/// lone_defender = false
/// dealer_may_discard_upcard = true
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    /// The dealer may not pass in round 2 and must name a suit. Default: on.
    /// When off, four passes in round 2 end the hand with no points.
    pub stick_the_dealer: bool,
    /// When a maker goes alone, each defender in turn (from the dealer's left)
    /// may defend alone; a euchre by a lone defender scores 4. Default: off.
    pub lone_defender: bool,
    /// The dealer may discard the card just picked up. Default: on.
    pub dealer_may_discard_upcard: bool,
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            stick_the_dealer: true,
            lone_defender: false,
            dealer_may_discard_upcard: true,
        }
    }
}

/// The options as `name=value` pairs, the spelling of a profile's
/// `[rules]` table, so a message naming two rule sets shows how to get one.
impl std::fmt::Display for Rules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "stick_the_dealer={} lone_defender={} dealer_may_discard_upcard={}",
            self.stick_the_dealer, self.lone_defender, self.dealer_may_discard_upcard
        )
    }
}

impl Rules {
    /// These rules with the options a record or request names replaced; the
    /// ones it leaves out keep their value here.
    pub fn with_options(
        self,
        stick_the_dealer: Option<bool>,
        lone_defender: Option<bool>,
        dealer_may_discard_upcard: Option<bool>,
    ) -> Rules {
        Rules {
            stick_the_dealer: stick_the_dealer.unwrap_or(self.stick_the_dealer),
            lone_defender: lone_defender.unwrap_or(self.lone_defender),
            dealer_may_discard_upcard: dealer_may_discard_upcard
                .unwrap_or(self.dealer_may_discard_upcard),
        }
    }

    /// A stable 64-bit digest of the options, for store fingerprints. It is
    /// spelled out bit by bit rather than hashed so that it never changes
    /// with a compiler or hasher.
    pub const fn fingerprint(&self) -> u64 {
        (self.stick_the_dealer as u64)
            | (self.lone_defender as u64) << 1
            | (self.dealer_may_discard_upcard as u64) << 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_defaults_and_unknown_keys() {
        let empty: Rules = toml::from_str("").unwrap();
        assert_eq!(empty, Rules::default());
        let custom: Rules =
            toml::from_str("lone_defender = true\nstick_the_dealer = false").unwrap();
        assert!(
            custom.lone_defender && !custom.stick_the_dealer && custom.dealer_may_discard_upcard
        );
        let error = toml::from_str::<Rules>("stick_the_daeler = true").unwrap_err();
        assert!(error.to_string().contains("stick_the_daeler"), "{error}");
    }

    #[test]
    fn fingerprints_differ() {
        let a = Rules::default();
        let b = Rules {
            lone_defender: true,
            ..a
        };
        assert_ne!(a.fingerprint(), b.fingerprint());
    }
}
