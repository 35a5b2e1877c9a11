//! The bidding key universe: exact counts, an independent brute force, and
//! agreement between the enumerator and keys seen in real hands.

use std::collections::HashSet;

use euchre_game::engine::card::{Card, CardSet, Suit, subsets};
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState};
use euchre_game::keys::InfoKey;
use euchre_game::keys::bidding::{BiddingDecision, BiddingKeyParts, bidding_decision};
use euchre_game::keys::symmetry::SuitPerm;
use euchre_game::universe::bidding::{bidding_keys, count_bidding_keys, raw_bidding_views};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Independent canonical form of one player's starting view (5 cards and the
/// upcard), written without the library's encoder: rename the upcard's suit
/// to clubs, its colour-mate to spades, and order the two red suits' rank
/// masks. With `lossy`, all three non-upcard suits are sorted instead, the
/// merge the brief warns about.
fn starting_view_class(hand: CardSet, upcard: Card, lossy: bool) -> (u8, [u32; 4]) {
    let up = upcard.suit();
    let next = up.same_colour();
    let others: Vec<Suit> = Suit::ALL
        .into_iter()
        .filter(|&s| s != up && s != next)
        .collect();
    let mut red = [hand.suit_ranks(others[0]), hand.suit_ranks(others[1])];
    red.sort_unstable();
    if lossy {
        let mut three = [hand.suit_ranks(next), red[0], red[1]];
        three.sort_unstable();
        (
            upcard.rank() as u8,
            [hand.suit_ranks(up), three[0], three[1], three[2]],
        )
    } else {
        (
            upcard.rank() as u8,
            [hand.suit_ranks(up), hand.suit_ranks(next), red[0], red[1]],
        )
    }
}

#[test]
fn starting_views_match_the_briefs_exact_counts() {
    let mut raw = 0u64;
    let mut exact = HashSet::new();
    let mut lossy = HashSet::new();
    for upcard in Card::all() {
        for hand in subsets(CardSet::FULL_DECK.without(upcard), 5) {
            raw += 1;
            exact.insert(starting_view_class(hand, upcard, false));
            lossy.insert(starting_view_class(hand, upcard, true));
        }
    }
    assert_eq!(raw, 807_576);
    assert_eq!(exact.len(), 105_798);
    assert_eq!(lossy.len(), 38_622);
}

#[test]
fn round_one_keys_equal_seats_times_exact_starting_views() {
    let counts = count_bidding_keys(Rules::default());
    assert_eq!(counts.of(BiddingDecision::Round1), 4 * 105_798);
    assert_eq!(counts.of(BiddingDecision::Round2), 4 * 105_798);
    // Seven (orderer, alone) pairs make the dealer discard: not a lone order
    // from the dealer's partner, which leaves the dealer out.
    assert_eq!(counts.of(BiddingDecision::DealerDiscard), 7 * 105_798);
    assert_eq!(counts.of(BiddingDecision::DefendAlone), 0);
    assert_eq!(counts.total(), 1_586_970);
}

/// Canonicalise every raw view with all 24 upcards into a set, and compare
/// with the representative-only stream, which skips non-club upcards and
/// never uses a set.
fn assert_stream_matches_brute_force(rules: Rules) {
    let brute: HashSet<InfoKey> = raw_bidding_views(rules)
        .map(|view| view.canonical().0)
        .collect();
    let mut streamed = HashSet::new();
    for (_, key) in bidding_keys(rules) {
        assert!(streamed.insert(key), "the enumerator repeated {key:?}");
    }
    assert_eq!(streamed.len(), brute.len());
    assert!(
        streamed == brute,
        "the enumerator and the brute force disagree"
    );
}

#[test]
fn enumerator_matches_brute_force_default_rules() {
    assert_stream_matches_brute_force(Rules::default());
}

#[test]
fn enumerator_matches_brute_force_with_lone_defender() {
    assert_stream_matches_brute_force(Rules {
        lone_defender: true,
        dealer_may_discard_upcard: false,
        ..Rules::default()
    });
}

/// Plays random bidding sequences (biased towards going alone, so every
/// decision kind shows up) and collects each bidding key.
fn sampled_keys(rules: Rules, hands: usize, seed: u64) -> Vec<(InfoKey, usize)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut keys = Vec::new();
    for _ in 0..hands {
        let dealer = Seat::from_index(rng.random_range(0..4u8));
        let mut state = GameState::new(Deal::random(dealer, &mut rng), rules);
        while let Some(decision) = bidding_decision(&state) {
            keys.push((decision.key, decision.actions.len()));
            let choice = rng.random_range(0..decision.actions.len());
            state.apply(decision.actions[choice]);
        }
    }
    keys
}

#[test]
fn every_key_seen_in_play_is_enumerated() {
    for rules in [
        Rules::default(),
        Rules {
            lone_defender: true,
            stick_the_dealer: false,
            ..Rules::default()
        },
    ] {
        let universe: HashSet<InfoKey> = bidding_keys(rules).map(|(_, key)| key).collect();
        let seen = sampled_keys(rules, 20_000, 7);
        let mut kinds = HashSet::new();
        for (key, legal) in &seen {
            assert!(
                universe.contains(key),
                "{key:?} was seen in a hand but not enumerated"
            );
            assert!(*legal >= 2, "a single-action decision would be stored");
            kinds.insert(key.decision_kind());
        }
        let expected_kinds = if rules.lone_defender { 4 } else { 3 };
        assert_eq!(
            kinds.len(),
            expected_kinds,
            "not every decision kind was sampled"
        );
    }
}

#[test]
fn isomorphic_deals_give_the_same_keys_and_action_order() {
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    let mut rng = SmallRng::seed_from_u64(11);
    for _ in 0..3_000 {
        let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
        let perm = SuitPerm::COLOUR_PRESERVING[rng.random_range(1..8usize)];
        let mut original = GameState::new(deal, rules);
        let mut renamed = GameState::new(perm.deal(&deal), rules);
        while let Some(decision) = bidding_decision(&original) {
            let twin =
                bidding_decision(&renamed).expect("the renamed hand is at the same decision");
            assert_eq!(decision.key, twin.key);
            assert_eq!(decision.actions.len(), twin.actions.len());
            let choice = rng.random_range(0..decision.actions.len());
            let action = decision.actions[choice];
            // The same canonical index must be the same action up to the renaming,
            // unless the view is symmetric and the two are interchangeable.
            let twin_action = twin.actions[choice];
            if perm.action(action) != twin_action {
                let view = BiddingKeyParts::of_state(&original).unwrap();
                let least = view.canonical().0.0;
                let ties = SuitPerm::COLOUR_PRESERVING
                    .iter()
                    .filter(|p| view.encode(p) == least)
                    .count();
                assert!(
                    ties >= 2,
                    "{action} and {twin_action} differ but the view is not symmetric"
                );
            }
            original.apply(action);
            renamed.apply(perm.action(action));
        }
        assert_eq!(original.stage(), renamed.stage());
    }
}

#[test]
fn non_colour_preserving_renamings_change_keys() {
    // Swapping hearts and spades moves the left bower: it must not be a symmetry.
    let deal = Deal::new(
        Seat::North,
        [
            "Jh Jd Ah 9c Tc".parse().unwrap(),
            "Kh Qh Th 9h Ac".parse().unwrap(),
            "Js Jc As Ks Qs".parse().unwrap(),
            "Kc Qc Ad Kd Qd".parse().unwrap(),
        ],
        "Ts".parse().unwrap(),
    )
    .unwrap();
    let state = GameState::new(deal, Rules::default());
    let key = bidding_decision(&state).unwrap().key;
    let swapped_hand: CardSet = "Js Jd As 9c Tc".parse().unwrap();
    let mut hands = deal.hands;
    hands[1] = swapped_hand;
    hands[3] = "Kc Qc Ad Kd Qd".parse().unwrap();
    let other = GameState::new(
        Deal {
            hands,
            upcard: "Th".parse().unwrap(),
            ..deal
        },
        Rules::default(),
    );
    assert_ne!(bidding_decision(&other).unwrap().key, key);
}

#[test]
fn every_enumerated_key_decodes_to_its_view() {
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    for (view, key) in bidding_keys(rules).step_by(7) {
        assert_eq!(BiddingKeyParts::decode(key), Some(view));
    }
    assert_eq!(BiddingKeyParts::decode(InfoKey(5 << 120)), None);
}

/// A score-aware policy keys one view once per score context: distinct
/// keys for distinct contexts, the plain key for the open context, the
/// same view decoded from each, and card-play keys left alone.
#[test]
fn a_score_context_keys_the_same_view_apart_and_the_open_context_is_the_plain_key() {
    use euchre_game::game::context::ScoreContext;
    use euchre_game::keys::bidding::{context_of, in_context};
    let mut rng = SmallRng::seed_from_u64(5);
    for _ in 0..200 {
        let mut state = GameState::new(Deal::random(Seat::East, &mut rng), Rules::default());
        while let Some(decision) = bidding_decision(&state) {
            let plain = decision.key;
            assert_eq!(in_context(plain, ScoreContext::OPEN), plain);
            let keys: HashSet<InfoKey> = ScoreContext::ALL
                .into_iter()
                .map(|context| {
                    let key = in_context(plain, context);
                    assert_eq!(context_of(key), Some(context));
                    assert_eq!(key.decision_kind(), plain.decision_kind());
                    assert_eq!(BiddingKeyParts::decode(key), BiddingKeyParts::decode(plain));
                    // Tagging again replaces the tag.
                    assert_eq!(
                        in_context(in_context(key, ScoreContext::OPEN), context),
                        key
                    );
                    key
                })
                .collect();
            assert_eq!(keys.len(), ScoreContext::ALL.len());
            let actions = state.legal_actions();
            state.apply(actions[rng.random_range(0..actions.len())]);
        }
        let play = euchre_game::keys::decision(&state).map(|decision| decision.key);
        if let Some(play) = play {
            assert_eq!(in_context(play, ScoreContext::ALL[4]), play);
            assert_eq!(context_of(play), None);
        }
    }
}

/// A searched bid is keyed beside its view's plain key and every score
/// context's, decodes to the same view, and leaves card-play keys alone.
#[test]
fn a_searched_bid_has_a_key_of_its_own_beside_the_blueprints() {
    use euchre_game::game::context::ScoreContext;
    use euchre_game::keys::bidding::{in_context, is_searched, searched};
    let mut rng = SmallRng::seed_from_u64(6);
    for _ in 0..100 {
        let mut state = GameState::new(Deal::random(Seat::South, &mut rng), Rules::default());
        while let Some(decision) = bidding_decision(&state) {
            let plain = decision.key;
            let tagged = searched(plain);
            assert!(is_searched(tagged) && !is_searched(plain));
            assert_eq!(searched(tagged), tagged);
            assert_eq!(
                BiddingKeyParts::decode(tagged),
                BiddingKeyParts::decode(plain)
            );
            for context in ScoreContext::ALL {
                assert_ne!(in_context(plain, context), tagged);
            }
            let actions = state.legal_actions();
            state.apply(actions[rng.random_range(0..actions.len())]);
        }
        if let Some(play) = euchre_game::keys::decision(&state).map(|decision| decision.key) {
            assert_eq!(searched(play), play);
            assert!(!is_searched(play));
        }
    }
}
