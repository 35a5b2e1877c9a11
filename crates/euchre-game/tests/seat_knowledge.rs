//! One seat's view, completed into a full state: every view taken from a
//! real hand completes to the same decision, and every impossible view is
//! refused with the reason.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::seat_knowledge::{KnowledgeError, SeatKnowledge};
use euchre_game::engine::state::{Deal, GameState};
use euchre_game::keys::decision;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// The view of whoever acts in `state`, after `actions`.
fn view_of(state: &GameState, actions: &[(Seat, Action)]) -> SeatKnowledge {
    let seat = state.to_act().expect("a decision");
    SeatKnowledge {
        rules: *state.rules(),
        dealer: state.dealer(),
        seat,
        hand: state.hand(seat),
        upcard: state.upcard(),
        actions: actions
            .iter()
            .map(|&(by, action)| match action {
                Action::Discard(_) if by != seat => None,
                _ => Some(action),
            })
            .collect(),
    }
}

fn random_rules(rng: &mut SmallRng) -> Rules {
    Rules {
        stick_the_dealer: rng.random(),
        lone_defender: rng.random(),
        dealer_may_discard_upcard: rng.random(),
        loner_lead: if rng.random() {
            LonerLead::LeftOfLoner
        } else {
            LonerLead::LeftOfDealer
        },
        canadian_loners: rng.random(),
    }
}

/// Random legal play from a random deal, stopping at `stop` actions or
/// the end; returns the state and who took each action.
fn play_to(rng: &mut SmallRng, rules: Rules, stop: usize) -> (GameState, Vec<(Seat, Action)>) {
    let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), rng);
    let mut state = GameState::new(deal, rules);
    let mut actions = Vec::new();
    while let Some(seat) = state.to_act() {
        if actions.len() == stop {
            break;
        }
        let legal = state.legal_actions();
        let action = legal[rng.random_range(0..legal.len())];
        state.apply(action);
        actions.push((seat, action));
    }
    (state, actions)
}

/// The completed state must pose the same decision: same legal moves,
/// same infostate key, same public facts.
fn assert_same_decision(truth: &GameState, view: &SeatKnowledge) {
    let completed = view
        .complete()
        .unwrap_or_else(|error| panic!("a real view was refused: {error}\n{view:?}"));
    assert_eq!(completed.to_act(), truth.to_act());
    assert_eq!(completed.hand(view.seat), truth.hand(view.seat));
    assert_eq!(completed.legal_actions(), truth.legal_actions());
    assert_eq!(completed.stage(), truth.stage());
    assert_eq!(completed.contract(), truth.contract());
    assert_eq!(completed.lone_defender(), truth.lone_defender());
    assert_eq!(completed.played(), truth.played());
    assert_eq!(completed.trick(), truth.trick());
    assert_eq!(completed.tricks_played(), truth.tricks_played());
    assert_eq!(
        decision(&completed).map(|d| (d.key, d.actions)),
        decision(truth).map(|d| (d.key, d.actions)),
        "the infostate key differs: a bot would act on other knowledge"
    );
}

#[test]
fn every_real_view_completes_to_the_same_decision() {
    let mut rng = SmallRng::seed_from_u64(11);
    let mut checked = 0;
    for _ in 0..10_000 {
        let rules = random_rules(&mut rng);
        let stop = rng.random_range(0..40);
        let (state, actions) = play_to(&mut rng, rules, stop);
        if state.to_act().is_none() {
            continue;
        }
        assert_same_decision(&state, &view_of(&state, &actions));
        checked += 1;
    }
    assert!(checked > 4000, "only {checked} decisions checked");
}

#[test]
fn every_decision_of_whole_hands_completes() {
    let mut rng = SmallRng::seed_from_u64(12);
    for _ in 0..600 {
        let rules = random_rules(&mut rng);
        let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
        let mut state = GameState::new(deal, rules);
        let mut actions = Vec::new();
        while let Some(seat) = state.to_act() {
            assert_same_decision(&state, &view_of(&state, &actions));
            let legal = state.legal_actions();
            let action = legal[rng.random_range(0..legal.len())];
            state.apply(action);
            actions.push((seat, action));
        }
    }
}

fn card(text: &str) -> Card {
    text.parse().unwrap()
}

fn cards(texts: &[&str]) -> CardSet {
    texts
        .iter()
        .fold(CardSet::EMPTY, |set, text| set.with(card(text)))
}

fn actions(texts: &[&str]) -> Vec<Option<Action>> {
    texts
        .iter()
        .map(|text| (*text != "discard").then(|| text.parse().unwrap()))
        .collect()
}

/// North deals, the upcard is Jh; East speaks first.
fn opening(seat: Seat, hand: &[&str], history: &[&str]) -> SeatKnowledge {
    SeatKnowledge {
        rules: Rules::default(),
        dealer: Seat::North,
        seat,
        hand: cards(hand),
        upcard: card("Jh"),
        actions: actions(history),
    }
}

#[test]
fn a_view_out_of_turn_is_refused() {
    let view = opening(Seat::South, &["9c", "Tc", "Qc", "Kc", "Ac"], &[]);
    assert_eq!(
        view.complete().unwrap_err(),
        KnowledgeError::NotYourTurn {
            seat: Seat::South,
            to_act: Seat::East
        }
    );
}

#[test]
fn the_upcard_in_a_defenders_hand_is_refused() {
    let view = opening(Seat::East, &["Jh", "Tc", "Qc", "Kc", "Ac"], &[]);
    let error = view.complete().unwrap_err();
    assert!(
        matches!(error, KnowledgeError::CannotHold { card: c, .. } if c == card("Jh")),
        "{error}"
    );
    assert!(error.to_string().contains("upcard"), "{error}");
}

#[test]
fn a_hand_of_the_wrong_size_is_refused() {
    let view = opening(Seat::East, &["9c", "Tc", "Qc", "Kc"], &[]);
    assert_eq!(
        view.complete().unwrap_err(),
        KnowledgeError::HandSize {
            seat: Seat::East,
            expected: 5,
            given: 4
        }
    );
    // The dealer who picked up holds six until it discards.
    let dealer = opening(Seat::North, &["9c", "Tc", "Qc", "Kc", "Ac"], &["order"]);
    let error = dealer.complete().unwrap_err();
    assert!(
        matches!(error, KnowledgeError::MustHold { card: c, .. } if c == card("Jh")),
        "{error}"
    );
    let dealer = opening(
        Seat::North,
        &["Jh", "9c", "Tc", "Qc", "Kc", "Ac"],
        &["order"],
    );
    let state = dealer.complete().unwrap();
    assert_eq!(state.legal_actions().len(), 6);
}

#[test]
fn only_the_dealer_names_its_discard() {
    let named = opening(
        Seat::South,
        &["9c", "Tc", "Qc", "Kc", "Ac"],
        &["order", "discard 9s"],
    );
    let error = named.complete().unwrap_err();
    assert!(
        matches!(error, KnowledgeError::Action { position: 2, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("only the dealer"), "{error}");

    let hidden = opening(
        Seat::East,
        &["9c", "Tc", "Qc", "Kc", "Ac"],
        &["order", "discard"],
    );
    let state = hidden.complete().unwrap();
    assert_eq!(
        state.to_act(),
        Some(Seat::East),
        "play starts left of the dealer"
    );

    let dealer_forgets = opening(
        Seat::North,
        &["9c", "Tc", "Qc", "Kc", "Ac"],
        &["order", "discard"],
    );
    assert!(matches!(
        dealer_forgets.complete().unwrap_err(),
        KnowledgeError::NotYourTurn { .. } | KnowledgeError::Action { position: 2, .. }
    ));
}

#[test]
fn a_card_already_played_cannot_be_held() {
    // East orders, North discards, East leads the 9c; South holds the 9c too.
    let view = opening(
        Seat::South,
        &["9c", "Tc", "Qc", "Kc", "Ac"],
        &["order", "discard", "play 9c"],
    );
    let error = view.complete().unwrap_err();
    assert!(
        matches!(error, KnowledgeError::Action { position: 3, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("S's hand"), "{error}");
}

#[test]
fn a_suit_the_seat_showed_out_of_cannot_be_held() {
    // Hearts are trump. East leads the 9c and South plays a spade, so South
    // has no clubs, yet its hand holds the Ac.
    let view = opening(
        Seat::South,
        &["Ac", "Ts", "Qs", "Ks"],
        &[
            "order", "discard", "play 9c", "play 9s", "play Tc", "play Qc",
        ],
    );
    let error = view.complete().unwrap_err();
    assert!(
        matches!(error, KnowledgeError::CannotHold { card: c, .. } if c == card("Ac")),
        "{error}"
    );
    assert!(
        error.to_string().contains("did not follow clubs"),
        "{error}"
    );
}

#[test]
fn an_illegal_bid_names_its_position() {
    let view = opening(
        Seat::East,
        &["9c", "Tc", "Qc", "Kc", "Ac"],
        &["pass", "pass", "pass", "pass", "order"],
    );
    let error = view.complete().unwrap_err();
    assert!(
        matches!(error, KnowledgeError::Action { position: 5, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("not legal"), "{error}");
}

#[test]
fn a_finished_hand_has_no_decision() {
    let mut view = opening(Seat::East, &["9c", "Tc", "Qc", "Kc", "Ac"], &["pass"; 8]);
    view.rules.stick_the_dealer = false;
    assert_eq!(view.complete().unwrap_err(), KnowledgeError::HandOver);
}
