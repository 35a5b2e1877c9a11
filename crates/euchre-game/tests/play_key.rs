//! The rank-compressed play key: canonical under the off-suit swap, and a
//! function of what the actor may know.

use std::collections::HashMap;

use euchre_game::engine::action::Action;
use euchre_game::engine::card::Suit;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::keys::decision;
use euchre_game::keys::play::{Label, PLAY_KIND, PlayKeyParts, play_decision, slot_suits};
use euchre_game::keys::symmetry::SuitPerm;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

/// Plays a random hand, calling `visit` at every card-play decision with
/// the state and the actions taken so far.
fn random_hand(seed: u64, rules: Rules, mut visit: impl FnMut(&GameState, &Deal, &[Action])) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
    let mut state = GameState::new(deal, rules);
    let mut history = Vec::new();
    while state.to_act().is_some() {
        if state.stage() == Stage::Play {
            visit(&state, &deal, &history);
        }
        let legal = state.legal_actions();
        let action = legal[rng.random_range(0..legal.len())];
        state.apply(action);
        history.push(action);
    }
}

#[test]
fn the_key_fixes_the_number_of_actions_and_their_labels() {
    let mut seen: HashMap<u128, usize> = HashMap::new();
    let rules = Rules {
        lone_defender: true,
        ..Rules::default()
    };
    for seed in 0..3000 {
        random_hand(seed, rules, |state, _, _| {
            let decision = play_decision(state).expect("a play decision");
            assert_eq!(decision.key.0 >> 120, u128::from(PLAY_KIND));
            assert_eq!(decision.actions.len() as u32, state.playable_cards().len());
            let count = *seen.entry(decision.key.0).or_insert(decision.actions.len());
            assert_eq!(count, decision.actions.len(), "key {:#x}", decision.key.0);
            let view = PlayKeyParts::of_state(state).expect("in play");
            let mine: u32 = view
                .suits
                .iter()
                .map(|suit| {
                    (0..suit.len)
                        .filter(|&p| suit.get(p) == Some(Label::Mine))
                        .count() as u32
                })
                .sum();
            let actor = state.to_act().expect("someone acts");
            assert_eq!(mine, state.hand(actor).len());
        });
    }
    assert!(seen.len() > 10_000, "only {} keys", seen.len());
}

#[test]
fn swapping_the_off_suits_keeps_the_key_and_maps_the_actions() {
    for seed in 0..2000 {
        random_hand(seed, Rules::default(), |state, deal, history| {
            let trump = state.contract().expect("in play").trump;
            let [_, _, first, second] = slot_suits(trump);
            let perm = SuitPerm::COLOUR_PRESERVING
                .into_iter()
                .find(|perm| {
                    perm.suit(trump) == trump
                        && perm.suit(first) == second
                        && perm.suit(second) == first
                })
                .expect("the off-suit swap preserves colour");
            let mut mirrored = GameState::new(perm.deal(deal), *state.rules());
            for &action in history {
                mirrored.apply(perm.action(action));
            }
            let original = decision(state).expect("a decision");
            let image = decision(&mirrored).expect("a decision");
            assert_eq!(original.key, image.key);
            // With distinct off-suit encodings the actions map one to one;
            // when they tie, both orders are equally canonical.
            let view = PlayKeyParts::of_state(state).expect("in play");
            if view.suits[2] != view.suits[3] {
                for (a, b) in original.actions.iter().zip(image.actions.iter()) {
                    assert_eq!(perm.action(*a), *b);
                }
            }
        });
    }
}

#[test]
fn dead_cards_do_not_change_the_key() {
    // Clubs trump. North leads the ace of hearts and East follows with a
    // heart that is then dead: the queen in one hand, the jack in the
    // other, East keeping the other one. South trumps and leads a club.
    // At North's next decision the live hearts read, strongest first,
    // K (mine), Q-or-J (unseen), 10 (unseen), 9 (mine) in both hands, so
    // the keys agree although the cards differ.
    let rules = Rules::default();
    let reach = |dead_heart: &str, kept_heart: &str| {
        let north = "Ah Kh 9h 9s Ts".parse().expect("cards");
        let east = format!("{dead_heart} {kept_heart} Qs Ks As")
            .parse()
            .expect("cards");
        let south = "Jc Js Ac Kc Qc".parse().expect("cards");
        let west = "9d Td Qd Kd Ad".parse().expect("cards");
        let deal = Deal::new(
            Seat::West,
            [north, east, south, west],
            "9c".parse().expect("card"),
        )
        .expect("a valid deal");
        let mut state = GameState::new(deal, rules);
        let moves = [
            "order".to_string(),
            "discard 9c".into(),
            "play Ah".into(),
            format!("play {dead_heart}"),
            "play Jc".into(),
            "play 9d".into(),
            "play Kc".into(),
            "play Td".into(),
        ];
        for text in moves {
            let action: Action = text.parse().expect("an action");
            state.try_apply(action).expect("a legal action");
        }
        assert_eq!(state.to_act(), Some(Seat::North));
        state
    };
    let a = reach("Qh", "Jh");
    let b = reach("Jh", "Qh");
    assert_eq!(a.contract().map(|c| c.trump), Some(Suit::Clubs));
    let (key_a, key_b) = (
        play_decision(&a).expect("play"),
        play_decision(&b).expect("play"),
    );
    assert_eq!(key_a.key, key_b.key);
    assert_eq!(key_a.actions, key_b.actions);
    let view = PlayKeyParts::of_state(&a).expect("play");
    let hearts = view.suits[3]; // Slots: clubs, spades, diamonds, hearts.
    let labels: Vec<_> = (0..hearts.len).filter_map(|p| hearts.get(p)).collect();
    assert_eq!(
        labels,
        [Label::Mine, Label::Unseen, Label::Unseen, Label::Mine]
    );
}
