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
/// loner_lead = "left-of-dealer"
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
    /// Who leads the first trick when someone plays alone. Tables differ,
    /// and a recorded game (EGN's `loner_lead`) cannot be replayed as played
    /// under the other rule. Default: the dealer's left.
    pub loner_lead: LonerLead,
}

/// Who leads the first trick of a hand with a lone player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LonerLead {
    /// The first seat from the dealer's left that plays, as without a loner.
    #[default]
    LeftOfDealer,
    /// The seat to the left of the lone maker (the first that plays from
    /// there, should a defender also be alone and that seat sit out).
    LeftOfLoner,
}

impl LonerLead {
    pub const fn word(self) -> &'static str {
        match self {
            LonerLead::LeftOfDealer => "left-of-dealer",
            LonerLead::LeftOfLoner => "left-of-loner",
        }
    }
}

impl Default for Rules {
    fn default() -> Self {
        Rules {
            stick_the_dealer: true,
            lone_defender: false,
            dealer_may_discard_upcard: true,
            loner_lead: LonerLead::LeftOfDealer,
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
        )?;
        // Named only when it differs, so the rules of every store and
        // message made before the option existed read as they did.
        if self.loner_lead != LonerLead::default() {
            write!(f, " loner_lead={}", self.loner_lead.word())?;
        }
        Ok(())
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
        loner_lead: Option<LonerLead>,
    ) -> Rules {
        Rules {
            stick_the_dealer: stick_the_dealer.unwrap_or(self.stick_the_dealer),
            lone_defender: lone_defender.unwrap_or(self.lone_defender),
            dealer_may_discard_upcard: dealer_may_discard_upcard
                .unwrap_or(self.dealer_may_discard_upcard),
            loner_lead: loner_lead.unwrap_or(self.loner_lead),
        }
    }

    /// Whether an information-state key means the same under both rule
    /// sets, so that a policy trained under one may play under the other.
    /// Only the loner lead may differ: it moves which seat leads a lone
    /// hand's first trick, which a key records as it records any lead, and
    /// it opens no key the other rule never reaches (the play-key universe
    /// test enumerates both).
    pub fn same_keys(&self, other: &Rules) -> bool {
        Rules {
            loner_lead: other.loner_lead,
            ..*self
        } == *other
    }

    /// A stable 64-bit digest of the options, for store fingerprints. It is
    /// spelled out bit by bit rather than hashed so that it never changes
    /// with a compiler or hasher. The default loner lead adds no bit, so
    /// stores made before the option existed keep their fingerprint.
    pub const fn fingerprint(&self) -> u64 {
        (self.stick_the_dealer as u64)
            | (self.lone_defender as u64) << 1
            | (self.dealer_may_discard_upcard as u64) << 2
            | (matches!(self.loner_lead, LonerLead::LeftOfLoner) as u64) << 3
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
        let c = Rules {
            loner_lead: LonerLead::LeftOfLoner,
            ..a
        };
        assert_ne!(a.fingerprint(), c.fingerprint());
        assert_ne!(b.fingerprint(), c.fingerprint());
        // The bits before the option existed, unchanged.
        assert_eq!(a.fingerprint(), 0b101);
    }

    #[test]
    fn only_the_loner_lead_keeps_the_keys() {
        let base = Rules::default();
        let left_of_loner = Rules {
            loner_lead: LonerLead::LeftOfLoner,
            ..base
        };
        assert!(base.same_keys(&left_of_loner) && left_of_loner.same_keys(&base));
        let no_stick = Rules {
            stick_the_dealer: false,
            ..base
        };
        assert!(!base.same_keys(&no_stick));
    }

    #[test]
    fn loner_lead_reads_and_prints_by_name() {
        let rules: Rules = toml::from_str("loner_lead = \"left-of-loner\"").unwrap();
        assert_eq!(rules.loner_lead, LonerLead::LeftOfLoner);
        assert!(rules.to_string().ends_with("loner_lead=left-of-loner"));
        assert!(!Rules::default().to_string().contains("loner_lead"));
        assert!(toml::from_str::<Rules>("loner_lead = \"left\"").is_err());
    }
}
