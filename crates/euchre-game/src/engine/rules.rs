//! The rule options that vary between tables.

use serde::{Deserialize, Serialize};

use crate::engine::action::Action;

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
/// canadian_loners = false
/// ```
///
/// A record or a request names the options that differ from a bot's or a
/// table's as [`RuleChanges`], so adding an option here (and there, which
/// the compiler asks for) is all its surfaces need.
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
    /// Canadian loners: the dealer's partner who orders the upcard up must
    /// go alone (the dealer picks it up and sits out). Default: off, and
    /// then left unwritten, so that every file written before the option
    /// existed (a policy's metadata, a run's settings) keeps its bytes.
    #[serde(skip_serializing_if = "is_false")]
    pub canadian_loners: bool,
}

fn is_false(value: &bool) -> bool {
    !value
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
            canadian_loners: false,
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
        if self.canadian_loners {
            write!(f, " canadian_loners=true")?;
        }
        Ok(())
    }
}

impl Rules {
    /// These rules with the options `changes` names replaced; the ones it
    /// leaves out keep their value here.
    pub fn with(self, changes: RuleChanges) -> Rules {
        let RuleChanges {
            stick_the_dealer,
            lone_defender,
            dealer_may_discard_upcard,
            loner_lead,
            canadian_loners,
        } = changes;
        Rules {
            stick_the_dealer: stick_the_dealer.unwrap_or(self.stick_the_dealer),
            lone_defender: lone_defender.unwrap_or(self.lone_defender),
            dealer_may_discard_upcard: dealer_may_discard_upcard
                .unwrap_or(self.dealer_may_discard_upcard),
            loner_lead: loner_lead.unwrap_or(self.loner_lead),
            canadian_loners: canadian_loners.unwrap_or(self.canadian_loners),
        }
    }

    /// The options in which these rules differ from `base`, and only those:
    /// what a record or request written under these rules names.
    pub fn changes_from(self, base: Rules) -> RuleChanges {
        let Rules {
            stick_the_dealer,
            lone_defender,
            dealer_may_discard_upcard,
            loner_lead,
            canadian_loners,
        } = self;
        fn differs<T: PartialEq>(value: T, base: T) -> Option<T> {
            (value != base).then_some(value)
        }
        RuleChanges {
            stick_the_dealer: differs(stick_the_dealer, base.stick_the_dealer),
            lone_defender: differs(lone_defender, base.lone_defender),
            dealer_may_discard_upcard: differs(
                dealer_may_discard_upcard,
                base.dealer_may_discard_upcard,
            ),
            loner_lead: differs(loner_lead, base.loner_lead),
            canadian_loners: differs(canadian_loners, base.canadian_loners),
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

    /// The bids open in round 1 to the seat `offset` seats left of the
    /// dealer (the dealer is 0), in the engine's order: pass, order up,
    /// order up alone. Under Canadian loners the dealer's partner may order
    /// only alone. Key readers ask here rather than assume three bids.
    pub const fn round1_bids(&self, offset: u8) -> &'static [Action] {
        const ALL: [Action; 3] = [
            Action::Pass,
            Action::Order { alone: false },
            Action::Order { alone: true },
        ];
        const ALONE_ONLY: [Action; 2] = [Action::Pass, Action::Order { alone: true }];
        if self.canadian_loners && offset % 4 == 2 {
            &ALONE_ONLY
        } else {
            &ALL
        }
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
            | (self.canadian_loners as u64) << 4
    }
}

/// Rule options named by a replay record or a bot API request, each left
/// out (`None`) to keep the value of the rules it is applied to
/// ([`Rules::with`]). Both surfaces flatten it into their own JSON object,
/// so each option is spelled as in a profile's `[rules]` table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleChanges {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stick_the_dealer: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lone_defender: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dealer_may_discard_upcard: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loner_lead: Option<LonerLead>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canadian_loners: Option<bool>,
}

impl RuleChanges {
    /// Every option of `rules` named: a view that says under which rules
    /// it was dealt rather than leaving them to its reader's.
    pub fn every(rules: Rules) -> RuleChanges {
        let Rules {
            stick_the_dealer,
            lone_defender,
            dealer_may_discard_upcard,
            loner_lead,
            canadian_loners,
        } = rules;
        RuleChanges {
            stick_the_dealer: Some(stick_the_dealer),
            lone_defender: Some(lone_defender),
            dealer_may_discard_upcard: Some(dealer_may_discard_upcard),
            loner_lead: Some(loner_lead),
            canadian_loners: Some(canadian_loners),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_rules_serialize_as_before_canadian_loners_existed() {
        let written = toml::to_string(&Rules::default()).unwrap();
        assert!(!written.contains("canadian"), "{written}");
        let canadian = Rules {
            canadian_loners: true,
            ..Rules::default()
        };
        let written = toml::to_string(&canadian).unwrap();
        assert_eq!(toml::from_str::<Rules>(&written).unwrap(), canadian);
    }

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
        // The bits before the options existed, unchanged.
        assert_eq!(a.fingerprint(), 0b101);
        let canadian = Rules {
            canadian_loners: true,
            ..a
        };
        assert_eq!(canadian.fingerprint(), 0b1_0101);
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
        let canadian = Rules {
            canadian_loners: true,
            ..base
        };
        assert!(
            !base.same_keys(&canadian),
            "the dealer's partner loses a bid"
        );
    }

    /// Every combination of options, applied to the defaults as the changes
    /// from them, gives itself back: no option is dropped on the way.
    #[test]
    fn changes_from_the_defaults_give_the_rules_back() {
        let mut seen = std::collections::HashSet::new();
        for bits in 0u8..32 {
            let rules = Rules {
                stick_the_dealer: bits & 1 != 0,
                lone_defender: bits & 2 != 0,
                dealer_may_discard_upcard: bits & 4 != 0,
                loner_lead: if bits & 8 != 0 {
                    LonerLead::LeftOfLoner
                } else {
                    LonerLead::LeftOfDealer
                },
                canadian_loners: bits & 16 != 0,
            };
            let changes = rules.changes_from(Rules::default());
            assert_eq!(Rules::default().with(changes), rules);
            // Every option named gives them back from any rules at all.
            let flipped = Rules {
                stick_the_dealer: !rules.stick_the_dealer,
                ..Rules::default()
            };
            assert_eq!(flipped.with(RuleChanges::every(rules)), rules);
            assert!(
                seen.insert(rules.fingerprint()),
                "{rules}: fingerprint shared"
            );
        }
        assert_eq!(
            Rules::default().changes_from(Rules::default()),
            RuleChanges::default(),
            "the defaults name nothing"
        );
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
