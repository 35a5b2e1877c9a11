//! The opening lead's key universe: exact counts pinned by an independent
//! count, agreement with leads met in dealt hands, suit renamings, and the
//! round trip through the key.

use std::collections::HashSet;

use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState};
use euchre_game::keys::bidding::bidding_decision;
use euchre_game::keys::lead::{LEAD_KIND, LeadView, is_lead_key, lead_decision};
use euchre_game::keys::symmetry::SuitPerm;
use euchre_game::keys::{InfoKey, decision};
use euchre_game::universe::lead::{LeadCounts, count_lead_keys, lead_keys};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Rules under which the dealer can lead (a loner's left leads) and a
/// defender can go alone: every branch of the leader's seat.
fn every_branch() -> Rules {
    Rules {
        lone_defender: true,
        loner_lead: LonerLead::LeftOfLoner,
        ..Rules::default()
    }
}

/// Deals `hands` random hands under `rules`, bids at random, and returns
/// each hand's state at its opening lead.
fn dealt_leads(rules: Rules, hands: usize, seed: u64) -> Vec<GameState> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut leads = Vec::new();
    for _ in 0..hands {
        let dealer = Seat::from_index(rng.random_range(0..4u8));
        let mut state = GameState::new(Deal::random(dealer, &mut rng), rules);
        while let Some(bid) = bidding_decision(&state) {
            let choice = rng.random_range(0..bid.actions.len());
            state.apply(bid.actions[choice]);
        }
        // Without stick-the-dealer every seat may pass twice: no lead.
        if lead_decision(&state).is_some() {
            leads.push(state);
        }
    }
    leads
}

/// The counts `docs/experiments/searched-bids-export/lead-keys.py` found by
/// brute force in Python: 105,798 and 307,692 distinct (hand, upcard,
/// trump) views up to the colour-preserving renamings, for trump made in
/// round 1 and in round 2, each with eight auctions (the maker's seat, and
/// whether alone).
#[test]
fn the_universe_holds_eight_auctions_of_every_view_under_the_default_rules() {
    assert_eq!(
        count_lead_keys(Rules::default()),
        LeadCounts {
            round_1: 8 * 105_798,
            round_2: 8 * 307_692,
        }
    );
}

#[test]
fn every_lead_met_in_a_dealt_hand_is_enumerated_once() {
    for rules in [Rules::default(), every_branch()] {
        let mut universe = HashSet::new();
        for (_, key) in lead_keys(rules) {
            assert!(universe.insert(key), "{key:?} enumerated twice");
        }
        let leads = dealt_leads(rules, 20_000, 7);
        let mut dealers_led = 0;
        for state in &leads {
            let lead = lead_decision(state).unwrap();
            assert!(
                universe.contains(&lead.key),
                "{:?} was met in a hand but not enumerated",
                LeadView::of_state(state)
            );
            dealers_led += usize::from(state.to_act() == Some(state.dealer()));
        }
        assert!(leads.len() > 15_000, "{}", leads.len());
        if rules.loner_lead == LonerLead::LeftOfLoner {
            assert!(dealers_led > 0, "no dealer led: a branch went untested");
        }
    }
}

#[test]
fn a_lead_key_decodes_to_its_view_and_is_no_other_kind_of_key() {
    for state in dealt_leads(every_branch(), 2_000, 3) {
        let lead = lead_decision(&state).unwrap();
        assert!(is_lead_key(lead.key));
        assert_eq!((lead.key.0 >> 120) as u8, LEAD_KIND);
        assert_eq!(lead.key.decision_kind(), None, "not a bidding key");
        let view = LeadView::decode(lead.key).unwrap();
        assert_eq!(view.encode(&SuitPerm::IDENTITY), lead.key.0);
        assert!(view.is_canonical());
        // The card-play key of the same decision is another key.
        assert_ne!(decision(&state).unwrap().key, lead.key);
    }
    assert_eq!(LeadView::decode(InfoKey(5 << 120)), None);
    assert_eq!(LeadView::decode(InfoKey(1 << 120)), None);
}

#[test]
fn renamed_suits_give_the_same_lead_key_and_the_same_card_at_each_index() {
    let rules = every_branch();
    let mut rng = SmallRng::seed_from_u64(11);
    let mut checked = 0;
    for _ in 0..3_000 {
        let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
        let perm = SuitPerm::COLOUR_PRESERVING[rng.random_range(1..8usize)];
        let mut original = GameState::new(deal, rules);
        let mut renamed = GameState::new(perm.deal(&deal), rules);
        while let Some(bid) = bidding_decision(&original) {
            let action = bid.actions[rng.random_range(0..bid.actions.len())];
            original.apply(action);
            renamed.apply(perm.action(action));
        }
        let Some(lead) = lead_decision(&original) else {
            continue;
        };
        let twin = lead_decision(&renamed).expect("the renamed hand is at its lead");
        assert_eq!(lead.key, twin.key);
        for (&card, &twin_card) in lead.actions.as_slice().iter().zip(twin.actions.as_slice()) {
            if perm.action(card) != twin_card {
                // Only a view symmetric under some renaming may order two
                // interchangeable cards either way.
                let view = LeadView::of_state(&original).unwrap();
                let ties = SuitPerm::COLOUR_PRESERVING
                    .iter()
                    .filter(|p| view.encode(p) == lead.key.0)
                    .count();
                assert!(ties >= 2, "{card} and {twin_card} differ");
            }
        }
        checked += 1;
    }
    assert!(checked > 2_500, "{checked}");
}

#[test]
fn no_lead_key_before_the_auction_ends_or_after_the_first_card() {
    let mut rng = SmallRng::seed_from_u64(2);
    let mut state = GameState::new(Deal::random(Seat::North, &mut rng), Rules::default());
    while let Some(bid) = bidding_decision(&state) {
        assert_eq!(lead_decision(&state), None);
        state.apply(bid.actions[0]);
    }
    let lead = lead_decision(&state).expect("stick the dealer: someone made trump");
    state.apply(lead.actions[0]);
    assert_eq!(lead_decision(&state), None);
}
