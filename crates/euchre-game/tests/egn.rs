//! Euchre Game Notation on real records (vendored in `tests/egn/`, see its
//! NOTICE) and on games generated here: every deal replays or is refused
//! with its reason, and a game written and read back is the same game.

use std::path::Path;

use euchre_game::egn::{
    Annotated, DealProblem, EgnError, Game, Label, RecordedDeal, read, reconstruct, write,
};
use euchre_game::engine::action::Action;
use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/egn")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

const REAL: [&str; 5] = [
    "VWEC_Finals_Annotated.egn",
    "July_4th_Pairs_Finals_3.egn",
    "Quite_the_Hustle_Annotated.egn",
    "Masters_of_the_Euchreverse_Week_1_Game_1.egn",
    "Custom_Scenario.egn",
];

/// (deals replayed, deals refused) for a file.
fn replay_counts(game: &Game) -> (usize, Vec<String>) {
    let mut replayed = 0;
    let mut refused = Vec::new();
    for deal in &game.deals {
        match deal
            .as_ref()
            .map_err(ToString::to_string)
            .and_then(|deal| reconstruct(deal, game.rules).map_err(|e| e.to_string()))
        {
            Ok(_) => replayed += 1,
            Err(error) => refused.push(error),
        }
    }
    (replayed, refused)
}

#[test]
fn every_deal_of_the_real_records_replays() {
    let expected = [13, 11, 11, 9, 1];
    for (name, deals) in REAL.iter().zip(expected) {
        let game = read(&fixture(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
        let (replayed, refused) = replay_counts(&game);
        assert_eq!(replayed, deals, "{name}: refused {refused:?}");
        assert!(refused.is_empty());
    }
}

#[test]
fn the_vwec_final_names_its_players_rules_and_annotations() {
    let game = read(&fixture("VWEC_Finals_Annotated.egn")).unwrap();
    assert_eq!(game.names, ["WWMM", "Llama", "Euchrazy1", "LeftyKnavey"]);
    assert_eq!(game.rules.loner_lead, LonerLead::LeftOfLoner);
    assert!(game.rules.stick_the_dealer);
    let deals: Vec<&RecordedDeal> = game.deals.iter().map(|d| d.as_ref().unwrap()).collect();
    let annotations: usize = deals.iter().map(|deal| deal.annotations.len()).sum();
    assert_eq!(annotations, 19);
    // Deal 1's call 4 is annotated: round 2, the dealer's left's call.
    assert!(
        deals[1]
            .annotations
            .iter()
            .any(|a| a.at == Annotated::Call(4))
    );
    assert!(
        deals[1]
            .annotations
            .iter()
            .any(|a| a.at == Annotated::Play(10))
    );
}

#[test]
fn the_loner_lead_rule_decides_how_a_loner_replays() {
    // Two loners here are not the dealer's, so the lead rule moves the
    // first lead; read under the other rule, those deals are refused or
    // give the players other hands.
    let game = read(&fixture("Masters_of_the_Euchreverse_Week_1_Game_1.egn")).unwrap();
    assert_eq!(game.rules.loner_lead, LonerLead::LeftOfDealer);
    let other = Rules {
        loner_lead: LonerLead::LeftOfLoner,
        ..game.rules
    };
    let mut changed = 0;
    for deal in game.deals.iter().map(|deal| deal.as_ref().unwrap()) {
        let as_played = reconstruct(deal, game.rules).unwrap();
        match reconstruct(deal, other) {
            Err(_) => changed += 1,
            Ok(rebuilt) if rebuilt.variants[0].deal != as_played.variants[0].deal => changed += 1,
            Ok(_) => {}
        }
    }
    assert_eq!(changed, 2);
}

#[test]
fn labels_are_read_from_the_annotations() {
    let game = read(&fixture("July_4th_Pairs_Finals_3.egn")).unwrap();
    let labels: Vec<Label> = game
        .deals
        .iter()
        .flat_map(|deal| deal.as_ref().unwrap().annotations.iter())
        .filter_map(|annotation| annotation.label)
        .collect();
    assert!(!labels.is_empty(), "the pairs final labels some decisions");
}

#[test]
fn an_unrecorded_discard_gives_one_variant_per_unseen_card() {
    let game = read(&fixture("VWEC_Finals_Annotated.egn")).unwrap();
    // Deal 0: the dealer ordered up, no discard recorded, four cards unseen.
    let deal = game.deals[0].as_ref().unwrap();
    assert_eq!(deal.discard, None);
    let rebuilt = reconstruct(deal, game.rules).unwrap();
    assert_eq!(rebuilt.variants.len(), 4);
    let at = rebuilt.unknown_discard_at.unwrap();
    let discards: Vec<Action> = rebuilt.variants.iter().map(|v| v.actions[at].1).collect();
    assert!(discards.iter().all(|a| matches!(a, Action::Discard(_))));
    assert_eq!(rebuilt.known, [true; 4]);
    // Every variant ends the same way: the discard changes no play.
    let points = rebuilt.end.outcome().unwrap().points;
    for variant in &rebuilt.variants {
        let mut state = GameState::new(variant.deal, game.rules);
        for &(_, action) in &variant.actions {
            state.apply(action);
        }
        assert_eq!(state.outcome().unwrap().points, points);
    }
}

#[test]
fn a_lone_makers_partner_is_unknown_unless_recorded() {
    let game = read(&fixture("Masters_of_the_Euchreverse_Week_1_Game_1.egn")).unwrap();
    let mut loners = 0;
    for deal in game.deals.iter().map(|d| d.as_ref().unwrap()) {
        let rebuilt = reconstruct(deal, game.rules).unwrap();
        let contract = rebuilt.end.contract().unwrap();
        if contract.alone {
            loners += 1;
            assert!(!rebuilt.known[contract.maker.partner().index()]);
            assert_eq!(rebuilt.known.iter().filter(|&&k| k).count(), 3);
        }
    }
    assert_eq!(loners, 5);
}

#[test]
fn every_real_record_round_trips() {
    for name in REAL {
        let game = read(&fixture(name)).unwrap();
        let again = read(&write(&game)).unwrap_or_else(|error| panic!("{name}: {error}"));
        assert_eq!(again.deals, game.deals, "{name}");
        assert_eq!(again.names, game.names);
        assert_eq!(again.rules, game.rules);
        assert_eq!(again.metadata.players, game.metadata.players);
        assert_eq!(again.metadata.title, game.metadata.title);
    }
}

/// A hand of random legal play.
fn random_hand(rng: &mut SmallRng, rules: Rules) -> (Deal, Vec<(Seat, Action)>) {
    let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), rng);
    let mut state = GameState::new(deal, rules);
    let mut actions = Vec::new();
    while let Some(seat) = state.to_act() {
        let legal = state.legal_actions();
        let action = legal[rng.random_range(0..legal.len())];
        state.apply(action);
        actions.push((seat, action));
    }
    (deal, actions)
}

#[test]
fn a_thousand_generated_games_round_trip_and_replay_as_played() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut hands_checked = 0;
    for game_index in 0..1000 {
        let rules = Rules {
            stick_the_dealer: rng.random(),
            lone_defender: rng.random(),
            loner_lead: if rng.random() {
                LonerLead::LeftOfLoner
            } else {
                LonerLead::LeftOfDealer
            },
            canadian_loners: rng.random(),
            ..Rules::default()
        };
        let hands: Vec<_> = (0..rng.random_range(1..4))
            .map(|_| random_hand(&mut rng, rules))
            .collect();
        let names = ["a", "b", "c", "d"].map(String::from);
        let game = Game::of_hands(names, rules, &hands);
        let again = read(&write(&game)).unwrap_or_else(|e| panic!("game {game_index}: {e}"));
        assert_eq!(again.deals, game.deals, "game {game_index}");
        assert_eq!(again.rules, rules);
        for (deal, (dealt, actions)) in again.deals.iter().zip(&hands) {
            let rebuilt = reconstruct(deal.as_ref().unwrap(), rules)
                .unwrap_or_else(|e| panic!("game {game_index}: {e}"));
            assert_eq!(
                rebuilt.variants.len(),
                1,
                "hands played here are known whole"
            );
            assert_eq!(rebuilt.variants[0].deal, *dealt);
            assert_eq!(&rebuilt.variants[0].actions, actions);
            hands_checked += 1;
        }
    }
    assert!(hands_checked >= 1000);
}

fn deal_problem(text: &str) -> DealProblem {
    let game = read(text).expect("the file itself reads");
    let deal = match &game.deals[0] {
        Ok(deal) => deal,
        Err(error) => return error.problem.clone(),
    };
    reconstruct(deal, game.rules).expect_err("the deal is refused")
}

/// The VWEC final's first deal with `edit` applied to its JSON.
fn edited(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut value: serde_json::Value =
        serde_json::from_str(&fixture("VWEC_Finals_Annotated.egn")).unwrap();
    value["deals"] = serde_json::Value::Array(vec![value["deals"][0].clone()]);
    edit(&mut value);
    value.to_string()
}

/// Canadian loners (the dealer's partner who orders up must go alone) read
/// from a record's ruleset: every deal of the real records replays under
/// them unless the dealer's partner ordered up with a partner, which is
/// refused by name.
#[test]
fn canadian_records_replay_unless_the_dealers_partner_orders_with_a_partner() {
    let (mut replayed, mut refused) = (0, 0);
    for name in [
        "VWEC_Finals_Annotated.egn",
        "Masters_of_the_Euchreverse_Week_1_Game_1.egn",
        "July_4th_Pairs_Finals_3.egn",
        "Quite_the_Hustle_Annotated.egn",
    ] {
        let mut value: serde_json::Value = serde_json::from_str(&fixture(name)).unwrap();
        value["metadata"]["ruleset"]["canadian"] = true.into();
        let game = read(&value.to_string()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(game.rules.canadian_loners, "{name}");
        let standard = Rules {
            canadian_loners: false,
            ..game.rules
        };
        for deal in game.deals.iter().map(|deal| deal.as_ref().unwrap()) {
            let as_played = reconstruct(deal, standard).unwrap();
            let actions = &as_played.variants[0].actions;
            let dealer = as_played.variants[0].deal.dealer;
            let partner_ordered_with_partner = actions.iter().any(|&(seat, action)| {
                seat == dealer.partner() && action == Action::Order { alone: false }
            });
            match reconstruct(deal, game.rules) {
                Ok(rebuilt) => {
                    assert!(!partner_ordered_with_partner, "{name}: replayed illegally");
                    assert_eq!(rebuilt.variants[0].actions, *actions, "{name}");
                    replayed += 1;
                }
                Err(problem) => {
                    assert!(partner_ordered_with_partner, "{name}: {problem}");
                    assert!(problem.to_string().contains("order"), "{name}: {problem}");
                    refused += 1;
                }
            }
        }
    }
    assert!(replayed > 20, "{replayed} deals replayed");
    assert!(refused > 0, "no record has a partner's order to refuse");
}

#[test]
fn bad_files_are_refused_with_what_is_wrong() {
    let not_json = read("{ this is not json").unwrap_err();
    assert!(matches!(not_json, EgnError::NotJson(_)));
    assert!(not_json.to_string().contains("egn-convert"), "{not_json}");

    let foreign = read(&fixture("invalid1.json")).unwrap_err();
    assert!(
        foreign.to_string().contains("Euchre Layout Template"),
        "{foreign}"
    );
    let no_type = read(r#"{"hello": 1}"#).unwrap_err();
    assert!(matches!(no_type, EgnError::Foreign { .. }), "{no_type}");

    let version = read(&edited(|v| v["version"] = "2.0".into())).unwrap_err();
    assert!(version.to_string().contains("\"2.0\""), "{version}");

    let variant = read(&edited(|v| v["metadata"]["ruleset"]["joker"] = true.into())).unwrap_err();
    assert!(
        variant.to_string().contains("joker") && variant.to_string().contains("deck"),
        "{variant}"
    );
    let unknown = read(&edited(|v| {
        v["metadata"]["ruleset"]["bonus_round"] = true.into();
    }))
    .unwrap_err();
    assert!(unknown.to_string().contains("bonus_round"), "{unknown}");
}

#[test]
fn bad_deals_name_the_deal_and_the_field() {
    // A card dealt twice: the first trick's lead again in the second.
    let twice = deal_problem(&edited(|v| {
        v["deals"][0]["phases"][1]["tricks"][1][0] = "Ad".into();
    }));
    assert!(
        matches!(twice, DealProblem::DuplicateCard { .. }),
        "{twice}"
    );
    assert!(twice.to_string().contains("Ad"), "{twice}");

    // A renege: swap two cards between tricks so that a seat fails to follow.
    let renege = deal_problem(&edited(|v| {
        let tricks = &mut v["deals"][0]["phases"][1]["tricks"];
        let a = tricks[0][1].clone();
        tricks[0][1] = tricks[2][1].clone();
        tricks[2][1] = a;
    }));
    assert!(matches!(renege, DealProblem::Renege { .. }), "{renege}");
    assert!(renege.to_string().contains("trick"), "{renege}");

    let card = read(&edited(|v| {
        v["deals"][0]["phases"][1]["tricks"][0][0] = "Zz".into();
    }))
    .unwrap();
    let error = card.deals[0].as_ref().unwrap_err();
    assert_eq!(error.number, 0);
    assert!(
        error.to_string().contains("tricks[0]") && error.to_string().contains("Zz"),
        "{error}"
    );

    let field = read(&edited(|v| {
        v["deals"][0]["initialState"]["dealer"] = "north".into();
    }))
    .unwrap();
    let error = field.deals[0].as_ref().unwrap_err();
    assert!(error.to_string().starts_with("deal 0"), "{error}");

    let call = read(&edited(|v| {
        v["deals"][0]["phases"][0]["calls"][0] = "Order up".into();
    }))
    .unwrap();
    let error = call.deals[0].as_ref().unwrap_err();
    assert!(error.to_string().contains("calls[0]"), "{error}");
}

#[test]
fn the_synthetic_conversion_records_are_refused_with_reasons() {
    let game = read(&fixture("test.egn")).unwrap();
    assert_eq!(game.version, "1.0.0");
    let (replayed, refused) = replay_counts(&game);
    assert_eq!(replayed, 0);
    assert_eq!(refused.len(), 2);
    assert!(
        refused.iter().any(|why| why.contains("renege")),
        "{refused:?}"
    );
}

/// A 1 MiB file of one deal with 149,619 "Pass" calls once took 3.2 s to
/// read: each call rescanned every call before it, and "Pass" escaped the
/// eight-call cap. The count is now checked before any call is read (the
/// refusal names the whole count, not the ninth call), so the work is one
/// pass of the JSON parser over the text.
#[test]
fn a_deal_with_a_hundred_thousand_calls_is_refused_for_its_count_before_any_call_is_read() {
    for calls in [9usize, 160_000] {
        let text = edited(|v| {
            v["deals"][0]["phases"][0]["calls"] =
                serde_json::Value::Array(vec!["Pass".into(); calls]);
        });
        let game = read(&text).expect("the file reads; the deal is refused");
        let error = game.deals[0].as_ref().unwrap_err();
        assert!(
            error.to_string().contains(&format!("{calls} calls")),
            "{error}"
        );
    }
}

#[test]
fn a_key_written_twice_is_refused_by_name_and_a_byte_order_mark_is_skipped() {
    let text = fixture("VWEC_Finals_Annotated.egn");
    let twice = text.replacen("\"deals\"", "\"deals\": [], \"deals\"", 1);
    let error = read(&twice).unwrap_err();
    assert!(
        matches!(error, EgnError::DuplicateKey { ref key } if key == "deals"),
        "{error}"
    );
    assert!(error.to_string().contains("twice"), "{error}");
    let with_mark = format!("\u{feff}{text}");
    assert_eq!(read(&with_mark).unwrap(), read(&text).unwrap());
}

#[test]
fn every_list_of_a_record_is_capped_before_it_is_walked() {
    let deals = edited(|v| {
        let deal = v["deals"][0].clone();
        v["deals"] = serde_json::Value::Array(vec![deal; 101]);
    });
    let error = read(&deals).unwrap_err();
    assert!(
        matches!(
            error,
            EgnError::TooMany {
                what: "deals",
                count: 101,
                limit: 100
            }
        ),
        "{error}"
    );
    for (edit, field) in [
        (
            Box::new(|v: &mut serde_json::Value| {
                let trick = v["deals"][0]["phases"][1]["tricks"][0].clone();
                v["deals"][0]["phases"][1]["tricks"] = serde_json::Value::Array(vec![trick; 6]);
            }) as Box<dyn FnOnce(&mut serde_json::Value)>,
            "tricks",
        ),
        (
            Box::new(|v: &mut serde_json::Value| {
                v["deals"][0]["alternativeLines"] =
                    serde_json::Value::Array(vec![serde_json::json!({}); 65]);
            }),
            "alternativeLines",
        ),
        (
            Box::new(|v: &mut serde_json::Value| {
                v["deals"][0]["phases"][0]["callAnnotations"] =
                    serde_json::json!({ "0": vec!["a comment"; 17] });
            }),
            "annotations",
        ),
    ] {
        let game = read(&edited(edit)).unwrap();
        let error = game.deals[0].as_ref().unwrap_err();
        assert!(error.to_string().contains(field), "{field}: {error}");
    }
}

/// The annotators' comments inside alternative lines are read and placed
/// at the main line's decision where each line branches off: the calls
/// and plays counted together.
#[test]
fn comments_in_alternative_lines_are_placed_where_their_line_branches_off() {
    let game = read(&fixture("VWEC_Finals_Annotated.egn")).unwrap();
    let by_deal: Vec<Vec<(usize, String)>> = game
        .deals
        .iter()
        .map(|deal| {
            deal.as_ref()
                .unwrap()
                .alternative_comments()
                .into_iter()
                .map(|comment| (comment.branch, comment.text))
                .collect()
        })
        .collect();
    let total: usize = by_deal.iter().map(Vec::len).sum();
    assert_eq!(total, 7, "{by_deal:?}");
    assert_eq!(by_deal[0].len(), 1);
    assert_eq!(by_deal[0][0].0, 8);
    assert!(by_deal[0][0].1.starts_with("This line leads to a march"));
    // A line from the first call: a branch of 0.
    assert_eq!(by_deal[11][0].0, 0);
    assert!(by_deal[11][0].1.contains("playing high here as S3"));
    // A line without comments says nothing.
    assert!(by_deal[10].is_empty());
}
