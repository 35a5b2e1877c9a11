//! The play-key universe holds every key play reaches, each exactly once.

use std::collections::HashSet;

use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::keys::InfoKey;
use euchre_game::keys::play::{PlayAbstraction, PlayKeyParts, play_decision, play_decision_with};
use euchre_game::universe::play::{PlayKeyFilter, PlayShape, contains, play_shapes};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

const ALL_KEYS: PlayKeyFilter = PlayKeyFilter {
    min_legal: 1,
    cards_before: None,
    abstraction: PlayAbstraction::Plain,
};

const MAKER_SEAT_KEYS: PlayKeyFilter = PlayKeyFilter {
    abstraction: PlayAbstraction::MakerSeat,
    ..ALL_KEYS
};

const TRUMP_VOID_KEYS: PlayKeyFilter = PlayKeyFilter {
    abstraction: PlayAbstraction::TrumpVoids,
    ..ALL_KEYS
};

fn rule_sets() -> [Rules; 3] {
    [
        Rules::default(),
        Rules {
            lone_defender: true,
            ..Rules::default()
        },
        Rules {
            lone_defender: true,
            loner_lead: LonerLead::LeftOfLoner,
            ..Rules::default()
        },
    ]
}

#[test]
fn random_play_never_leaves_the_universe() {
    for rules in rule_sets() {
        let mut checked = 0u32;
        let mut voids_shown = 0u32;
        for seed in 0..8_000u64 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
            let mut state = GameState::new(deal, rules);
            // Go alone often, so the rarer contexts are covered too.
            let alone_bias = seed % 3 == 0;
            while state.to_act().is_some() {
                let legal = state.legal_actions();
                if state.stage() == Stage::Play {
                    let decision = play_decision(&state).expect("a play decision");
                    let key = decision.key;
                    assert_eq!(
                        PlayKeyParts::decode(key).map(|view| view.encode([2, 3])),
                        Some(key.0),
                        "decode does not invert encode for {key:?}"
                    );
                    assert!(
                        contains(key, rules, ALL_KEYS),
                        "{key:?} reached by play but outside the universe: {state:?}"
                    );
                    let stored = PlayKeyFilter::stored(None);
                    assert_eq!(contains(key, rules, stored), legal.len() >= 2);
                    let enriched = play_decision_with(&state, PlayAbstraction::MakerSeat)
                        .expect("a play decision")
                        .key;
                    assert!(
                        contains(enriched, rules, MAKER_SEAT_KEYS),
                        "{enriched:?} (maker seat) reached by play but outside the universe"
                    );
                    let voids = play_decision_with(&state, PlayAbstraction::TrumpVoids)
                        .expect("a play decision")
                        .key;
                    assert!(
                        contains(voids, rules, TRUMP_VOID_KEYS),
                        "{voids:?} (trump voids) reached by play but outside the universe: {state:?}"
                    );
                    assert!(!contains(voids, rules, ALL_KEYS));
                    assert!(!contains(key, rules, TRUMP_VOID_KEYS));
                    let shown = PlayKeyParts::decode(voids)
                        .and_then(|parts| parts.trump_voids)
                        .expect("trump voids kept");
                    voids_shown += u32::from(shown != 0);
                    let cards = state.played().len();
                    assert!(!contains(key, rules, PlayKeyFilter::stored(Some(cards))));
                    checked += 1;
                }
                let index = if alone_bias {
                    legal.len() - 1
                } else {
                    rng.random_range(0..legal.len())
                };
                let index = if state.stage() == Stage::Play {
                    rng.random_range(0..legal.len())
                } else {
                    index
                };
                state.apply(legal[index]);
            }
        }
        assert!(checked > 100_000, "only {checked} decisions checked");
        assert!(
            voids_shown > 5_000,
            "only {voids_shown} keys with a trump void"
        );
    }
}

#[test]
fn late_tricks_yield_each_canonical_key_once() {
    for rules in rule_sets() {
        let shapes: Vec<PlayShape> = play_shapes(rules, ALL_KEYS)
            .into_iter()
            .filter(|shape| shape.tricks_done() >= 3)
            .collect();
        let mut keys = HashSet::new();
        for shape in &shapes {
            let mut yielded = 0;
            for key in shape.keys(ALL_KEYS) {
                assert!(keys.insert(key), "{key:?} yielded twice");
                assert!(contains(key, rules, ALL_KEYS));
                yielded += 1;
            }
            assert_eq!(yielded, shape.count(ALL_KEYS));
        }
        // Every view, canonical or not, has its canonical key in the set.
        for shape in &shapes {
            for view in shape.views() {
                let (key, _) = view.canonical();
                assert!(keys.contains(&key), "{view:?} has no key");
            }
        }
        assert!(keys.len() > 100_000, "{} keys", keys.len());
    }
}

#[test]
fn foreign_keys_are_not_in_the_universe() {
    let rules = Rules::default();
    // A bidding key, a key with every field zero, and a play key whose
    // actor holds six cards.
    assert!(!contains(InfoKey(1 << 120), rules, ALL_KEYS));
    assert!(!contains(InfoKey(0), rules, ALL_KEYS));
    let shape = play_shapes(rules, ALL_KEYS)[0];
    let key = shape.keys(ALL_KEYS).next().expect("a key");
    let mut view = PlayKeyParts::decode(key).expect("decodes");
    assert!(contains(key, rules, ALL_KEYS));
    view.tricks_ours += 1;
    assert!(!contains(InfoKey(view.encode([2, 3])), rules, ALL_KEYS));
    // Lone defenders only exist under the lone-defender rule.
    let lone = play_shapes(
        Rules {
            lone_defender: true,
            ..rules
        },
        ALL_KEYS,
    )
    .into_iter()
    .find(|shape| shape.context.defender_alone)
    .expect("a lone-defender shape");
    let key = lone.keys(ALL_KEYS).next().expect("a key");
    assert!(!contains(key, rules, ALL_KEYS));
}

#[test]
fn trump_void_keys_are_yielded_once_and_split_only_where_trumps_are_out() {
    let rules = Rules::default();
    let late = |filter: PlayKeyFilter| -> Vec<PlayShape> {
        play_shapes(rules, filter)
            .into_iter()
            .filter(|shape| shape.tricks_done() >= 3)
            .collect()
    };
    let mut keys = HashSet::new();
    for shape in late(TRUMP_VOID_KEYS) {
        for key in shape.keys(TRUMP_VOID_KEYS) {
            assert!(keys.insert(key), "{key:?} yielded twice");
            assert!(contains(key, rules, TRUMP_VOID_KEYS));
            let parts = PlayKeyParts::decode(key).expect("decodes");
            assert!(parts.trump_voids_kept_as_keyed(), "{parts:?}");
        }
    }
    let plain: u64 = late(ALL_KEYS).iter().map(|s| s.count(ALL_KEYS)).sum();
    let voids = keys.len() as u64;
    // Each plain key is one void pattern or more, and no more than the
    // eight three seats can show.
    assert!(
        voids > plain && voids < 8 * plain,
        "{voids} against {plain}"
    );
    // With no trump unseen, no void is marked: the key is the plain one's.
    let marked = late(TRUMP_VOID_KEYS)
        .into_iter()
        .flat_map(|shape| shape.views())
        .find_map(|mut view| {
            view.trump_voids = Some(7);
            (!view.trump_voids_kept_as_keyed()).then_some(view)
        })
        .expect("a view with no trump unseen");
    assert!(!contains(marked.canonical().0, rules, TRUMP_VOID_KEYS));
}
