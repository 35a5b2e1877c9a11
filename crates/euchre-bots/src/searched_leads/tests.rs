use super::*;
use crate::bots::heuristic::Heuristic;
use euchre_game::engine::rules::LonerLead;
use euchre_game::keys::bidding::bidding_decision;
use rand::RngExt;

/// Rules under which a defender may go alone and a loner's left leads (so
/// the dealer sometimes leads after picking up): every branch of the
/// rebuilt auction.
fn every_branch() -> Rules {
    Rules {
        lone_defender: true,
        loner_lead: LonerLead::LeftOfLoner,
        ..Rules::default()
    }
}

/// Each hand of `hands` dealt from `seed`, bid at random, at its opening
/// lead with its history (hands passed out are skipped).
fn dealt_leads(rules: Rules, hands: usize, seed: u64) -> Vec<(GameState, Vec<(Seat, Action)>)> {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut leads = Vec::new();
    for _ in 0..hands {
        let dealer = Seat::from_index(rng.random_range(0..4u8));
        let mut state = GameState::new(Deal::random(dealer, &mut rng), rules);
        let mut history = Vec::new();
        while let Some(bid) = bidding_decision(&state) {
            let choice = bid.actions[rng.random_range(0..bid.actions.len())];
            history.push((state.to_act().unwrap(), choice));
            state.apply(choice);
        }
        if lead_decision(&state).is_some() {
            leads.push((state, history));
        }
    }
    leads
}

/// Every opening lead dealt rebuilds from its key alone to a hand whose
/// lead has that key, under the default rules and under rules with lone
/// defenders and the dealer leading.
#[test]
fn every_lead_met_in_dealt_hands_rebuilds_from_its_key() {
    for (rules, seed) in [(Rules::default(), 1), (every_branch(), 2)] {
        let leads = dealt_leads(rules, 3_000, seed);
        assert!(leads.len() > 2_000, "{}", leads.len());
        let mut dealer_led = 0;
        for (state, dealt_history) in &leads {
            let key = lead_decision(state).unwrap().key.0;
            let (rebuilt, history) =
                lead_state(key, rules).unwrap_or_else(|| panic!("{state:?} does not rebuild"));
            assert_eq!(lead_decision(&rebuilt).unwrap().key.0, key);
            assert_eq!(history.len(), dealt_history.len(), "{state:?}");
            dealer_led += usize::from(rebuilt.to_act() == Some(rebuilt.dealer()));
        }
        if rules.lone_defender {
            assert!(dealer_led > 0, "the dealer leads under these rules");
        }
    }
    assert_eq!(lead_state(0, Rules::default()), None, "not a lead's key");
}

/// A decided lead is an index among the key's cards in canonical order,
/// and that order names the same cards (in the key's suits) at every hand
/// of the key: the index a search decided at the rebuilt hand is the same
/// card wherever one lookup plays it.
#[test]
fn a_decided_index_names_the_same_card_at_every_hand_of_its_key() {
    let rules = Rules::default();
    let in_key_suits = |state: &GameState| {
        let (_, perm) = LeadView::of_state(state).unwrap().canonical();
        lead_decision(state)
            .unwrap()
            .actions
            .iter()
            .map(|&action| perm.action(action))
            .collect::<Vec<_>>()
    };
    for (state, _) in dealt_leads(rules, 2_000, 3) {
        let key = lead_decision(&state).unwrap().key.0;
        let (rebuilt, history) = lead_state(key, rules).unwrap();
        assert_eq!(in_key_suits(&state), in_key_suits(&rebuilt), "{state:?}");
        let index = decide(&Heuristic, rules, key, 5).unwrap();
        let led = Heuristic.act(
            &Seen::new(&rebuilt, &history),
            &mut SmallRng::seed_from_u64(5 ^ (key as u64) ^ ((key >> 64) as u64)),
        );
        assert_eq!(lead_decision(&rebuilt).unwrap().actions[index], led);
    }
}

/// The mass counts each lead dealt once (the hands not passed out), most
/// common first, and is the same on one thread as on several.
#[test]
fn keys_by_mass_count_every_dealt_lead_once_on_any_thread_count() {
    let rules = Rules::default();
    let on = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| keys_by_mass(&Heuristic, rules, 40_000, 7))
    };
    let (one, several) = (on(1), on(3));
    assert_eq!(one, several);
    let counted: u64 = one.iter().map(|(_, count)| count).sum();
    // Stick the dealer: no hand is passed out.
    assert_eq!(counted, 40_000);
    assert!(one.windows(2).all(|pair| pair[0].1 >= pair[1].1));
    assert!(
        one[0].1 > 1 && one.len() < 40_000,
        "some leads repeat: {} keys",
        one.len()
    );
    assert!(one.iter().all(|&(key, _)| lead_state(key, rules).is_some()));
}

/// A policy with searched leads plays the searched card at a lead whose
/// key it holds, with one lookup, and the table's card at every other lead
/// and after the lead; the file says what it holds, and new leads replace
/// the old ones.
#[test]
fn a_searched_lead_is_played_in_place_of_the_tables_and_the_table_kept() {
    use crate::bots::policy::{PolicyBot, Sampling, Unseen};
    use crate::meta::{PolicyMeta, SearchedLeads};
    use crate::phase::Phase;
    use crate::policy_file::{PolicyFile, export};
    use std::sync::Arc;
    use store::{MemoryTable, Table};

    let rules = Rules::default();
    let leads = dealt_leads(rules, 200, 4);
    let (state, _) = &leads[0];
    let other = leads
        .iter()
        .find(|(other, _)| lead_decision(other).unwrap().key != lead_decision(state).unwrap().key)
        .unwrap();
    // The table leads the first of its cards at both hands.
    let table = MemoryTable::new();
    for (lead, _) in [&leads[0], other] {
        let key = euchre_game::keys::decision(lead).unwrap().key.0;
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.strategy_sum[0] = 1.0)
            .unwrap();
    }
    let dir = std::env::temp_dir().join(format!("searched-leads-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("policy.bin");
    let meta = PolicyMeta::new(Phase::FullPlay, rules, 5);
    export(
        &table,
        &meta,
        store::MAX_ACTIONS,
        None,
        &path,
        &mut |_, _| {},
    )
    .unwrap();
    let plain = PolicyFile::load(&path).unwrap();
    let lead_of = |path: &std::path::Path, (state, history): &(GameState, Vec<(Seat, Action)>)| {
        let bot =
            PolicyBot::load(path, Sampling::Argmax, Unseen::Uniform, Arc::new(Heuristic)).unwrap();
        bot.act(&Seen::new(state, history), &mut SmallRng::seed_from_u64(1))
    };
    let table_lead = lead_of(&path, &leads[0]);
    let table_other = lead_of(&path, other);
    let lead = lead_decision(state).unwrap();
    let searched = (0..lead.actions.len())
        .find(|&i| lead.actions[i] != table_lead)
        .unwrap();
    let info = |keys| SearchedLeads {
        bot: "search:4:policy.bin".into(),
        keys,
        changed: keys,
        deals: 200,
        mass: 0.005,
    };
    plain
        .write_with_searched_leads(&[(lead.key.0, searched)], info(1), &path)
        .unwrap();
    let played = PolicyFile::load(&path).unwrap();
    assert_eq!(played.meta.searched_leads, Some(info(1)));
    assert_eq!(played.len(), plain.len() + 1);
    assert_eq!(lead_of(&path, &leads[0]), lead.actions[searched]);
    assert_eq!(
        lead_of(&path, other),
        table_other,
        "another lead: the table's"
    );
    // After the lead the table plays, as before.
    let mut after = *state;
    after.apply(lead.actions[searched]);
    assert_eq!(
        played.decision_at(&after, None).unwrap().key,
        plain.decision_at(&after, None).unwrap().key
    );
    // Leads written again replace the old ones.
    played
        .write_with_searched_leads(&[], info(0), &path)
        .unwrap();
    assert_eq!(PolicyFile::load(&path).unwrap().len(), plain.len());
    assert_eq!(lead_of(&path, &leads[0]), table_lead);
    std::fs::remove_dir_all(&dir).ok();
}
