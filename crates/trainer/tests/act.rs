//! The bot API: whole hands driven through one-seat views for every kind of
//! bot, each answer legal; impossible views refused with the reason.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use euchre_bots::api::{ActError, ActRequest, act};
use euchre_bots::bots::policy::Unseen;
use euchre_bots::seen::Seen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::action::Action;
use euchre_game::engine::rules::{LonerLead, RuleChanges, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use serde_json::Value;
use support::{TempDir, bidding_policy, text};

/// The request the seat to act in `state` would send.
fn request_for(state: &GameState, history: &[(Seat, Action)], seed: u64) -> ActRequest {
    ActRequest::of_view(
        &Seen::new(state, history),
        RuleChanges::default(),
        Some(seed),
    )
}

#[test]
fn whole_hands_through_the_api_for_every_bot_kind() {
    let temp = TempDir::new("act-bots");
    let policy = bidding_policy(&temp.0);
    let policy = policy.to_str().unwrap();
    let rules = Rules::default();
    let specs = [
        "random".to_owned(),
        "heuristic".to_owned(),
        "pimc:8".to_owned(),
        format!("policy:{policy}"),
        format!("policy-argmax:{policy}"),
        format!("policy:{policy}+pimc:8"),
        format!("search:8:{policy}"),
        format!("search-bids:8:{policy}"),
    ];
    let mut rng = SmallRng::seed_from_u64(3);
    for spec in &specs {
        let bot = from_spec(spec, rules, Unseen::Heuristic).unwrap();
        let mut stated = 0;
        for hand in 0..20u64 {
            let deal = Deal::random(Seat::from_index((hand % 4) as u8), &mut rng);
            let mut state = GameState::new(deal, rules);
            let mut history = Vec::new();
            while let Some(seat) = state.to_act() {
                let request = request_for(&state, &history, hand);
                let answer = act(bot.as_ref(), rules, &request)
                    .unwrap_or_else(|error| panic!("{spec}: a real view was refused: {error}"));
                assert_eq!(answer.seat, seat.to_string());
                let action: Action = answer.action.parse().unwrap();
                assert!(
                    state.legal_actions().contains(action),
                    "{spec} answered {action}, not legal in {:?}",
                    state.legal_actions()
                );
                if let Some(probabilities) = &answer.probabilities {
                    stated += 1;
                    let total: f64 = probabilities.iter().map(|p| p.probability).sum();
                    assert!(
                        (total - 1.0).abs() < 1e-6,
                        "{spec}: probabilities sum to {total}"
                    );
                    assert_eq!(probabilities.len(), state.legal_actions().len());
                    for p in probabilities {
                        let listed: Action = p.action.parse().unwrap();
                        assert!(state.legal_actions().contains(listed));
                    }
                }
                state.apply(action);
                history.push((seat, action));
            }
        }
        if spec.starts_with("policy") {
            assert!(stated > 0, "{spec} never stated its probabilities");
        } else {
            assert_eq!(stated, 0, "{spec} is no policy but stated probabilities");
        }
    }
}

#[test]
fn a_view_naming_a_card_the_seat_cannot_hold_is_refused() {
    let bot = from_spec("heuristic", Rules::default(), Unseen::Heuristic).unwrap();
    let mut request: ActRequest = serde_json::from_str(
        r#"{"dealer":"N","seat":"E","hand":["Jh","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#,
    )
    .unwrap();
    let error = act(bot.as_ref(), Rules::default(), &request).unwrap_err();
    assert!(matches!(error, ActError::Impossible(_)), "{error}");
    assert!(error.to_string().contains("cannot hold Jh"), "{error}");

    request.hand = ["9c", "Tc", "Qc", "Kc", "Kc"].map(String::from).to_vec();
    let error = act(bot.as_ref(), Rules::default(), &request).unwrap_err();
    assert!(error.to_string().contains("Kc is named twice"), "{error}");
    assert!(error.is_malformed() || matches!(error, ActError::DuplicateCard(_)));

    request.hand = ["9c", "Tc", "Qc", "Kc", "Ac"].map(String::from).to_vec();
    request.seat = "S".to_owned();
    let error = act(bot.as_ref(), Rules::default(), &request).unwrap_err();
    assert!(error.is_out_of_turn(), "{error}");

    request.seat = "E".to_owned();
    request.rules.stick_the_dealer = Some(false);
    let error = act(bot.as_ref(), Rules::default(), &request).unwrap_err();
    assert!(
        error.to_string().contains("this bot plays under"),
        "{error}"
    );

    request.rules.stick_the_dealer = None;
    request.discard = Some("9s".to_owned());
    let error = act(bot.as_ref(), Rules::default(), &request).unwrap_err();
    assert!(error.to_string().contains("only the dealer"), "{error}");

    request.discard = None;
    let answer = act(bot.as_ref(), Rules::default(), &request).unwrap();
    assert!(["pass", "order", "order alone"].contains(&answer.action.as_str()));
}

/// A request may carry the game's score: a bot that plays for the game
/// then values by the chance of winning (a chance, not points), and a
/// score no hand is played at is refused by name.
#[test]
fn a_score_in_a_request_reaches_a_bot_that_plays_for_the_game() {
    let bot = from_spec("pimc:16,game", Rules::default(), Unseen::Heuristic).unwrap();
    let text =
        r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","seed":4"#;
    let request =
        |score: &str| -> ActRequest { serde_json::from_str(&format!("{text}{score}}}")).unwrap() };
    let blind = act(bot.as_ref(), Rules::default(), &request("")).unwrap();
    let at_score = act(
        bot.as_ref(),
        Rules::default(),
        &request(r#","score":{"north_south":9,"east_west":3}"#),
    )
    .unwrap();
    for answer in [&blind, &at_score] {
        assert!(["pass", "order", "order alone"].contains(&answer.action.as_str()));
    }
    for (score, wrong) in [
        (
            r#","score":{"north_south":10,"east_west":3}"#,
            "the game is over",
        ),
        (
            r#","score":{"north_south":1,"east_west":3,"target":0}"#,
            "a target of 0",
        ),
    ] {
        let error = act(bot.as_ref(), Rules::default(), &request(score)).unwrap_err();
        assert!(error.to_string().starts_with("score: "), "{error}");
        assert!(error.to_string().contains(wrong), "{error}");
    }
    let unknown: Result<ActRequest, _> = serde_json::from_str(&format!(
        "{text},\"score\":{{\"north_south\":1,\"ns\":2}}}}"
    ));
    assert!(unknown.is_err(), "a score's unknown field is refused");
    let misspelt: Result<ActRequest, _> =
        serde_json::from_str(&format!("{text},\"lone_defendr\":true}}"));
    let error = misspelt.expect_err("a misspelt rule option is refused");
    assert!(error.to_string().contains("lone_defendr"), "{error}");
    let canadian = request(r#","canadian_loners":true"#);
    let error = act(bot.as_ref(), Rules::default(), &canadian).unwrap_err();
    assert!(
        error.to_string().contains("canadian_loners=true"),
        "{error}"
    );
}

/// A lone hand's first lead depends on a rule option: a client under the
/// other rule must be able to say so, or the bot would give each card played
/// to the wrong seat.
#[test]
fn a_lone_hand_under_the_left_of_loner_lead_is_played_when_stated_and_refused_by_a_bot_of_the_other_rule()
 {
    let loner_rules = Rules {
        loner_lead: LonerLead::LeftOfLoner,
        ..Rules::default()
    };
    let bot = from_spec("heuristic", loner_rules, Unseen::Heuristic).unwrap();
    let other_bot = from_spec("heuristic", Rules::default(), Unseen::Heuristic).unwrap();
    let mut rng = SmallRng::seed_from_u64(5);
    for hand in 0..12u64 {
        let deal = Deal::random(Seat::from_index((hand % 4) as u8), &mut rng);
        let mut state = GameState::new(deal, loner_rules);
        // The dealer's left orders alone: it would lead under the default
        // rule, and the dealer's partner leads under this one.
        let loner = state.to_act().unwrap();
        let alone = Action::Order { alone: true };
        state.apply(alone);
        let mut history = vec![(loner, alone)];
        let mut first_card = true;
        while let Some(seat) = state.to_act() {
            let mut request = request_for(&state, &history, hand);
            request.rules.loner_lead = Some(LonerLead::LeftOfLoner);
            let answer = act(bot.as_ref(), loner_rules, &request)
                .unwrap_or_else(|error| panic!("a real view was refused: {error}"));
            assert_eq!(answer.seat, seat.to_string());
            let action: Action = answer.action.parse().unwrap();
            assert!(state.legal_actions().contains(action), "{action}");
            if first_card && matches!(action, Action::Play(_)) {
                assert_eq!(seat, loner.left(), "the loner's left leads");
                first_card = false;
            }
            let error = act(other_bot.as_ref(), Rules::default(), &request).unwrap_err();
            assert!(
                error.to_string().contains("this bot plays under")
                    && error.to_string().contains("loner_lead=left-of-loner"),
                "{error}"
            );
            state.apply(action);
            history.push((seat, action));
        }
        assert!(!first_card, "hand {hand} was played");
    }
}

#[test]
fn trainer_act_answers_json_lines_and_survives_bad_ones() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["act", "--bot", "heuristic"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = concat!(
        r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","seed":1}"#,
        "\n",
        "not json\n",
        r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Zz"],"upcard":"Jh"}"#,
        "\n",
        r#"{"dealer":"N","seat":"W","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh"}"#,
        "\n",
        r#"{"dealer":"N","seat":"S","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","actions":["pass"]}"#,
        "\n",
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert_eq!(lines[0]["seat"], "E");
    assert!(lines[0]["action"].is_string(), "{}", lines[0]);
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].as_str().unwrap().contains("malformed"));
    assert!(
        lines[2]["error"]
            .as_str()
            .unwrap()
            .contains("'Zz' is not a card")
    );
    assert!(lines[3]["error"].as_str().unwrap().contains("E's turn"));
    assert_eq!(lines[4]["seat"], "S");
}

/// A line that is not UTF-8, or that runs on past the line cap, gets an
/// error answer like any other bad line, and the lines after it are read.
#[test]
fn trainer_act_answers_a_non_utf8_or_overlong_line_and_goes_on() {
    let view =
        r#"{"dealer":"N","seat":"E","hand":["9c","Tc","Qc","Kc","Ac"],"upcard":"Jh","seed":1}"#;
    let mut input = Vec::new();
    input.extend_from_slice(view.as_bytes());
    input.extend_from_slice(b"\n\xff\xfe\n");
    input.extend_from_slice(&vec![b' '; euchre_bots::api::MAX_LINE_BYTES + 10]);
    input.push(b'\n');
    input.extend_from_slice(view.as_bytes());
    input.push(b'\n');
    // Empty, blank and CR-only lines are answered too: one answer a line.
    input.extend_from_slice(b"\n   \n\r\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["act", "--bot", "heuristic"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    let lines: Vec<Value> = text(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 7, "{lines:?}");
    for (index, line) in lines[4..].iter().enumerate() {
        assert_eq!(line["line"], 5 + index, "{line}");
        assert!(line["error"].as_str().unwrap().contains("empty"), "{line}");
    }
    assert_eq!(lines[0]["seat"], "E");
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].as_str().unwrap().contains("not UTF-8"));
    assert_eq!(lines[2]["line"], 3);
    assert!(lines[2]["error"].as_str().unwrap().contains("longer than"));
    assert_eq!(
        lines[3], lines[0],
        "the same view and seed, the same answer"
    );
}
