//! The rules that are easy to get wrong, each on a hand built to exercise it.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::Card;
use euchre_game::engine::error::IllegalAction;
use euchre_game::engine::replay::{HandRecord, replay};
use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage};

/// North deals. East leads first.
fn deal(north: &str, east: &str, south: &str, west: &str, upcard: &str) -> Deal {
    Deal::new(
        Seat::North,
        [
            north.parse().unwrap(),
            east.parse().unwrap(),
            south.parse().unwrap(),
            west.parse().unwrap(),
        ],
        upcard.parse().unwrap(),
    )
    .unwrap()
}

fn standard_deal() -> Deal {
    deal(
        "Jh Ah Kh 9c Tc",
        "Jd Qh 9s Ts Qc",
        "Th 9h Ac Kc Js",
        "Ad Kd Qd As Ks",
        "Qs",
    )
}

fn act(state: &mut GameState, words: &[&str]) {
    for word in words {
        let action: Action = word.parse().unwrap();
        state
            .try_apply(action)
            .unwrap_or_else(|error| panic!("{word}: {error}"));
    }
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

fn plays(state: &GameState) -> Vec<String> {
    state
        .legal_actions()
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn left_bower_follows_trump_not_its_printed_suit() {
    let mut state = GameState::new(standard_deal(), Rules::default());
    // Everyone passes round 1; East names hearts, so Jd is a trump.
    act(&mut state, &["pass", "pass", "pass", "pass", "call h"]);
    assert_eq!(state.stage(), Stage::Play);
    assert_eq!(state.to_act(), Some(Seat::East));
    act(&mut state, &["play Qh"]);
    // South holds Th 9h and must follow trump with them.
    assert_eq!(plays(&state), ["play 9h", "play Th"]);
    act(&mut state, &["play 9h"]);
    // West holds no trump and may play anything.
    assert_eq!(state.legal_actions().len(), 5);
    act(&mut state, &["play Ad", "play Jh"]);
    // North's right bower won; North leads a club. East holds Qc and the
    // left bower, which is no longer a diamond: East must play Qc.
    assert_eq!(state.to_act(), Some(Seat::North));
    act(&mut state, &["play 9c"]);
    assert_eq!(plays(&state), ["play Qc"]);
}

#[test]
fn left_bower_is_not_a_card_of_its_printed_suit() {
    let mut state = GameState::new(
        deal(
            "Ad Ah Kh 9c Tc",
            "Jd Qh 9s Ts Qc",
            "Th 9h Ac Kc Js",
            "Kd Jh Qd As Ks",
            "Qs",
        ),
        Rules::default(),
    );
    // Round 2: West names hearts.
    act(
        &mut state,
        &["pass", "pass", "pass", "pass", "pass", "pass", "call h"],
    );
    // East leads a club; South follows; West trumps with the right bower.
    act(&mut state, &["play Qc", "play Kc", "play Jh", "play 9c"]);
    assert_eq!(state.to_act(), Some(Seat::West));
    act(&mut state, &["play Kd"]);
    assert_eq!(plays(&state), ["play Ad"], "North must follow diamonds");
    act(&mut state, &["play Ad"]);
    // East's only "diamond" is the left bower, a trump: East is void in
    // diamonds and may play any card, the bower included.
    assert_eq!(plays(&state), ["play Jd", "play Qh", "play 9s", "play Ts"]);
    // And when trump is led, the left bower must follow it.
    let mut led_trump = state;
    act(&mut led_trump, &["play 9s", "play Js"]);
    assert_eq!(led_trump.to_act(), Some(Seat::North));
    act(&mut led_trump, &["play Ah"]);
    assert_eq!(plays(&led_trump), ["play Jd", "play Qh"]);
}

#[test]
fn a_renege_is_impossible() {
    let mut state = GameState::new(standard_deal(), Rules::default());
    act(
        &mut state,
        &["pass", "pass", "pass", "pass", "call h", "play Qh"],
    );
    // South holds hearts; playing a club is refused and changes nothing.
    let before = state;
    let error = state.try_apply(Action::Play(card("Ac"))).unwrap_err();
    assert!(
        matches!(
            error,
            IllegalAction::NotLegal {
                seat: Seat::South,
                ..
            }
        ),
        "{error}"
    );
    assert!(
        error.to_string().contains("play 9h"),
        "the error lists the legal moves: {error}"
    );
    assert_eq!(state, before);
    // A card the player does not hold is refused too.
    assert!(state.try_apply(Action::Play(card("Jh"))).is_err());
}

#[test]
fn stick_the_dealer_forbids_the_dealers_last_pass() {
    let mut state = GameState::new(standard_deal(), Rules::default());
    act(
        &mut state,
        &["pass", "pass", "pass", "pass", "pass", "pass", "pass"],
    );
    assert_eq!(state.to_act(), Some(Seat::North));
    let legal = state.legal_actions();
    assert!(!legal.contains(Action::Pass));
    assert_eq!(legal.len(), 6, "three suits, each with or without partner");
    assert!(
        !legal.iter().any(
            |action| matches!(action, Action::Call { suit, .. } if *suit == card("Qs").suit())
        )
    );
    assert!(state.try_apply(Action::Pass).is_err());
}

#[test]
fn without_stick_the_dealer_eight_passes_score_nothing() {
    let rules = Rules {
        stick_the_dealer: false,
        ..Rules::default()
    };
    let mut state = GameState::new(standard_deal(), rules);
    act(&mut state, &["pass"; 8]);
    assert!(state.is_finished());
    let outcome = state.outcome().unwrap();
    assert_eq!(outcome.points, [0, 0]);
    assert_eq!(outcome.tricks, [0, 0]);
}

#[test]
fn the_lone_makers_partner_is_skipped_in_play_and_in_leading() {
    let mut state = GameState::new(standard_deal(), Rules::default());
    // West orders up alone; East (West's partner) would lead first but sits out.
    act(&mut state, &["pass", "pass", "order alone"]);
    assert_eq!(state.stage(), Stage::DealerDiscard);
    act(&mut state, &["discard 9c"]);
    assert!(state.sits_out(Seat::East));
    assert_eq!(state.to_act(), Some(Seat::South), "the lead skips East");
    let mut seen = Vec::new();
    while let Some(seat) = state.to_act() {
        seen.push(seat);
        let first = state.legal_actions()[0];
        state.apply(first);
    }
    assert!(!seen.contains(&Seat::East), "East never acts");
    assert_eq!(seen.len(), 15, "three players, five tricks");
    assert_eq!(state.outcome().unwrap().tricks.iter().sum::<u8>(), 5);
}

#[test]
fn left_of_loner_moves_the_first_lead_to_the_lone_makers_left() {
    let rules = Rules {
        loner_lead: LonerLead::LeftOfLoner,
        ..Rules::default()
    };
    // South orders alone (North, the dealer, sits out): West leads, not East.
    let mut state = GameState::new(standard_deal(), rules);
    act(&mut state, &["pass", "order alone"]);
    assert_eq!(state.to_act(), Some(Seat::West));
    // West orders alone: its left is North, who leads; East sits out.
    let mut state = GameState::new(standard_deal(), rules);
    act(&mut state, &["pass", "pass", "order alone", "discard 9c"]);
    assert_eq!(state.to_act(), Some(Seat::North));
    // Without a loner the rule changes nothing: East, left of the dealer.
    let mut state = GameState::new(standard_deal(), rules);
    act(&mut state, &["pass", "pass", "order", "discard 9c"]);
    assert_eq!(state.to_act(), Some(Seat::East));
}

#[test]
fn a_lone_order_from_the_dealers_partner_leaves_the_upcard_down() {
    let mut state = GameState::new(standard_deal(), Rules::default());
    act(&mut state, &["pass", "order alone"]);
    // South ordered alone; North, the dealer, sits out and picks nothing up.
    assert_eq!(state.stage(), Stage::Play);
    assert_eq!(state.hand(Seat::North).len(), 5);
    assert!(!state.hand(Seat::North).contains(card("Qs")));
    assert_eq!(state.to_act(), Some(Seat::East));
}

#[test]
fn lone_defender_euchre_scores_four() {
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    // East orders spades alone with a weak hand; West (East's partner) sits out.
    // South defends alone, so North sits out too: East against South.
    let mut state = GameState::new(
        deal(
            "Jh Ah Kh 9c Tc",
            "Qh 9s Ts Qc 9d",
            "Js Jc As Ks Ac",
            "Ad Kd Qd Th 9h",
            "Qs",
        ),
        rules,
    );
    act(&mut state, &["order alone", "discard 9c"]);
    assert_eq!(state.stage(), Stage::DefendAlone);
    assert_eq!(
        state.to_act(),
        Some(Seat::South),
        "the first defender from the dealer's left"
    );
    assert_eq!(plays(&state), ["pass", "defend alone"]);
    act(&mut state, &["defend alone"]);
    assert!(state.sits_out(Seat::West) && state.sits_out(Seat::North));
    assert_eq!(
        state.to_act(),
        Some(Seat::East),
        "East, left of the dealer, leads"
    );
    while !state.is_finished() {
        // A fixed line of play: the last legal card. South's three top trumps
        // hold East, who has one trump, to at most two tricks.
        let legal = state.legal_actions();
        state.apply(legal[legal.len() - 1]);
    }
    let outcome = state.outcome().unwrap();
    assert!(outcome.tricks[Team::EastWest.index()] <= 2);
    assert_eq!(outcome.points, [4, 0]);
    assert_eq!(outcome.payoff(Team::NorthSouth), 4);
    assert_eq!(outcome.payoff(Team::EastWest), -4);
}

#[test]
fn the_second_defender_is_asked_only_after_the_first_passes() {
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    let mut state = GameState::new(standard_deal(), rules);
    act(
        &mut state,
        &["pass", "pass", "order alone", "discard 9c", "pass"],
    );
    // West made it alone; North (dealer) and South defend. South, nearer the
    // dealer's left, passed first; now North is asked.
    assert_eq!(state.stage(), Stage::DefendAlone);
    assert_eq!(state.to_act(), Some(Seat::North));
    act(&mut state, &["pass"]);
    assert_eq!(state.stage(), Stage::Play);
    assert_eq!(state.lone_defender(), None);
}

#[test]
fn the_dealer_may_discard_the_upcard_unless_the_rule_forbids_it() {
    let mut state = GameState::new(standard_deal(), Rules::default());
    act(&mut state, &["order"]);
    assert_eq!(state.stage(), Stage::DealerDiscard);
    assert_eq!(state.hand(Seat::North).len(), 6);
    assert!(state.legal_actions().contains(Action::Discard(card("Qs"))));
    act(&mut state, &["discard Qs"]);
    assert_eq!(state.discard(), Some(card("Qs")));
    assert!(!state.hand(Seat::North).contains(card("Qs")));

    let strict = Rules {
        dealer_may_discard_upcard: false,
        ..Rules::default()
    };
    let mut state = GameState::new(standard_deal(), strict);
    act(&mut state, &["order"]);
    assert_eq!(state.legal_actions().len(), 5);
    assert!(state.try_apply(Action::Discard(card("Qs"))).is_err());
}

#[test]
fn scoring_follows_the_tricks() {
    // North deals and holds the top five trumps after picking up.
    let mut state = GameState::new(
        deal(
            "Jh Jd Ah Kh 9c",
            "Qd 9s Ts Qc Kd",
            "Tc Ac Kc Js Jc",
            "Ad 9d Td As Ks",
            "Qh",
        ),
        Rules::default(),
    );
    act(
        &mut state,
        &["pass", "pass", "pass", "order alone", "discard 9c"],
    );
    while !state.is_finished() {
        let legal = state.legal_actions();
        // North plays its highest trump each time (the last id is not always highest,
        // so pick by strength).
        let best = *legal
            .iter()
            .max_by_key(|action| match action {
                Action::Play(card) => euchre_game::engine::trump::trick_strength(
                    *card,
                    card_suit("h"),
                    card_suit("h"),
                ),
                _ => 0,
            })
            .unwrap();
        state.apply(best);
    }
    let outcome = state.outcome().unwrap();
    assert_eq!(outcome.tricks[Team::NorthSouth.index()], 5);
    assert_eq!(outcome.points, [4, 0], "a lone march scores 4");
}

fn card_suit(text: &str) -> euchre_game::engine::card::Suit {
    text.parse().unwrap()
}

#[test]
fn finished_hands_refuse_actions() {
    let rules = Rules {
        stick_the_dealer: false,
        ..Rules::default()
    };
    let mut state = GameState::new(standard_deal(), rules);
    act(&mut state, &["pass"; 8]);
    assert_eq!(state.try_apply(Action::Pass), Err(IllegalAction::HandOver));
    assert!(state.legal_actions().is_empty());
}

#[test]
fn the_state_is_small_plain_data() {
    // Solvers copy states instead of undoing moves; keep them within a cache line.
    assert!(size_of::<GameState>() <= 64, "{}", size_of::<GameState>());
    assert_eq!(size_of::<Card>(), 1);
    assert_eq!(size_of::<euchre_game::engine::card::CardSet>(), 4);
    assert!(size_of::<euchre_game::engine::action::ActionList>() <= 16);
}

#[test]
fn canadian_loners_let_the_dealers_partner_order_only_alone() {
    let rules = Rules {
        canadian_loners: true,
        ..Rules::default()
    };
    // North deals: East, then South (North's partner), bid in round 1.
    let mut state = GameState::new(standard_deal(), rules);
    let three = [
        Action::Pass,
        Action::Order { alone: false },
        Action::Order { alone: true },
    ];
    assert_eq!(state.legal_actions().as_slice(), three, "East: every bid");
    act(&mut state, &["pass"]);
    assert_eq!(
        state.legal_actions().as_slice(),
        [Action::Pass, Action::Order { alone: true }],
        "South, the dealer's partner"
    );
    assert!(state.try_apply(Action::Order { alone: false }).is_err());
    act(&mut state, &["pass"]);
    assert_eq!(state.legal_actions().as_slice(), three, "West: every bid");
    act(&mut state, &["pass", "pass"]);
    // Round 2 is unchanged: the partner may call a suit with a partner.
    assert!(
        state
            .legal_actions()
            .iter()
            .any(|action| matches!(action, Action::Call { alone: false, .. }))
    );
    act(&mut state, &["pass"]);
    assert!(
        state
            .legal_actions()
            .iter()
            .any(|action| matches!(action, Action::Call { alone: false, .. })),
        "South in round 2"
    );

    // Ordering alone, the partner plays without the dealer.
    let mut state = GameState::new(standard_deal(), rules);
    act(&mut state, &["pass", "order alone"]);
    assert!(state.sits_out(Seat::North));
}

/// A replay record names each rule option as a key of its own, spelled as
/// in a profile's `[rules]` table; a misspelt key is refused, not ignored.
#[test]
fn a_replay_record_reads_rule_options_by_name_and_refuses_unknown_keys() {
    let base = r#"{"dealer":"N","hands":{"N":["9c","Tc","Jc","Qc","Kc"],"E":["9d","Td","Jd","Qd","Kd"],"S":["9h","Th","Jh","Qh","Kh"],"W":["9s","Ts","Js","Qs","Ks"]},"upcard":"Ac","actions":["pass","order"]"#;
    let record = |extra: &str| serde_json::from_str::<HandRecord>(&format!("{base}{extra}}}"));
    let plain = record("").unwrap();
    assert_eq!(plain.rules(), Rules::default());
    assert!(
        replay(&plain).is_ok(),
        "South, the dealer's partner, orders"
    );

    let canadian = record(r#","canadian_loners":true"#).unwrap();
    assert!(canadian.rules().canadian_loners);
    let refused = replay(&canadian).unwrap_err();
    assert!(refused.to_string().contains("order"), "{refused}");
    let written = serde_json::to_string(&canadian).unwrap();
    assert!(written.contains(r#""canadian_loners":true"#), "{written}");
    assert!(!written.contains("stick_the_dealer"), "only what is named");

    let misspelt = record(r#","canadian_loner":true"#).unwrap_err();
    assert!(
        misspelt.to_string().contains("canadian_loner"),
        "{misspelt}"
    );
}
