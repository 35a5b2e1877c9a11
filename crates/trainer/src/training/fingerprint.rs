//! What a store's keys mean (the phase, the rules, the play key and the
//! key version), so that a store keyed otherwise is refused instead of
//! misread. Only training opens stores, so this lives here.

use euchre_bots::phase::Phase;
use euchre_game::engine::rules::Rules;
use euchre_game::keys::play::PlayAbstraction;
use store::Fingerprint;

/// Bumped when the keys or the game the solver sees change meaning, so an
/// old store is refused instead of misread.
const KEY_VERSION: u64 = 1;

/// The fingerprint of a store of `phase` under `rules`, card play keyed
/// under `abstraction`. The plain key's digest is the one every earlier
/// store carries, so those stores keep opening; another abstraction's
/// store never opens as plain, nor the other way round.
pub fn store_fingerprint(phase: Phase, rules: Rules, abstraction: PlayAbstraction) -> Fingerprint {
    let phase_code = match phase {
        Phase::Bidding => 0,
        Phase::Play(cards) => u64::from(cards),
        Phase::FullPlay => 20,
    };
    let abstraction_code: u64 = match abstraction {
        PlayAbstraction::Plain => 0,
        PlayAbstraction::MakerSeat => 1,
        PlayAbstraction::TrumpVoids => 2,
    };
    let play_key = match abstraction {
        PlayAbstraction::Plain => "rank-compressed play".to_owned(),
        other => format!("rank-compressed play, {other}"),
    };
    Fingerprint {
        digest: abstraction_code << 56 | KEY_VERSION << 32 | phase_code << 8 | rules.fingerprint(),
        description: format!(
            "phase {phase}, rules {rules}, key version {KEY_VERSION} (perfect-recall bidding, {play_key})",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_phases_rules_and_play_keys_apart() {
        let rules = Rules::default();
        let other = Rules {
            lone_defender: true,
            ..rules
        };
        let plain = PlayAbstraction::Plain;
        let digests = [
            store_fingerprint(Phase::Bidding, rules, plain).digest,
            store_fingerprint(Phase::Play(2), rules, plain).digest,
            store_fingerprint(Phase::FullPlay, rules, plain).digest,
            store_fingerprint(Phase::Bidding, other, plain).digest,
            store_fingerprint(Phase::FullPlay, rules, PlayAbstraction::MakerSeat).digest,
        ];
        for (i, a) in digests.iter().enumerate() {
            for b in &digests[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }

    /// The digests every existing store carries: a change here would
    /// refuse them all.
    #[test]
    fn the_default_stores_digests_are_pinned() {
        let plain = PlayAbstraction::Plain;
        let rules = Rules::default();
        assert_eq!(
            store_fingerprint(Phase::Bidding, rules, plain).digest,
            (1 << 32) | 0b101
        );
        assert_eq!(
            store_fingerprint(Phase::FullPlay, rules, plain).digest,
            (1 << 32) | (20 << 8) | 0b101
        );
    }
}
