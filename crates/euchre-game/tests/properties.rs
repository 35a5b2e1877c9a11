//! Properties of every hand, over random deals and random legal play.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::{Card, CardSet};
use euchre_game::engine::replay::{HandRecord, replay};
use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::engine::trump::effective_suit;
use proptest::prelude::*;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

fn rules_strategy() -> impl Strategy<Value = Rules> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(stick, lone, discard, left_of_loner, canadian)| Rules {
            stick_the_dealer: stick,
            lone_defender: lone,
            dealer_may_discard_upcard: discard,
            loner_lead: if left_of_loner {
                LonerLead::LeftOfLoner
            } else {
                LonerLead::LeftOfDealer
            },
            canadian_loners: canadian,
        })
}

/// Plays a whole hand with random legal actions, checking invariants at
/// every step; returns the finished state and the actions taken.
fn play_out(seed: u64, rules: Rules) -> (Deal, GameState, Vec<Action>) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let deal = Deal::random(Seat::from_index(rng.random_range(0..4u8)), &mut rng);
    let mut state = GameState::new(deal, rules);
    let mut actions = Vec::new();
    let mut shown_void = [false; 4];
    while let Some(seat) = state.to_act() {
        let legal = state.legal_actions();
        assert!(!legal.is_empty(), "{seat} to act with no legal action");
        assert!(!state.sits_out(seat), "{seat} sits out but is asked to act");
        if rules.canadian_loners && seat == state.dealer().partner() {
            assert!(
                !legal.contains(Action::Order { alone: false }),
                "Canadian loners: the dealer's partner orders only alone"
            );
        }
        let action = legal[rng.random_range(0..legal.len())];
        if let Action::Play(card) = action {
            assert!(state.hand(seat).contains(card));
        }
        // A seat shows a void in trump by not following a trump lead...
        if let (Action::Play(card), Some(contract)) = (action, state.contract()) {
            let trick = state.trick();
            let trump = contract.trump;
            if trick.played_mask != 0 && trick.led == trump && effective_suit(card, trump) != trump
            {
                shown_void[seat.index()] = true;
            }
        }
        state.apply(action);
        actions.push(action);
        assert!(actions.len() <= 60, "the hand does not end");
        for seat in Seat::ALL {
            assert_eq!(
                state.shown_trump_void(seat),
                shown_void[seat.index()],
                "{seat}"
            );
            // ...and then holds none.
            if let Some(contract) = state.contract().filter(|_| shown_void[seat.index()]) {
                let trump = contract.trump;
                let trumps = state
                    .hand(seat)
                    .iter()
                    .filter(|&c| effective_suit(c, trump) == trump);
                assert_eq!(trumps.count(), 0, "{seat} shown void in trump holds one");
            }
        }
    }
    (deal, state, actions)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn every_hand_ends_with_five_tricks_or_all_passes(seed in any::<u64>(), rules in rules_strategy()) {
        let (_, state, _) = play_out(seed, rules);
        let outcome = state.outcome().expect("finished");
        let tricks: u8 = outcome.tricks.iter().sum();
        match state.contract() {
            Some(_) => prop_assert_eq!(tricks, 5),
            None => {
                prop_assert!(!rules.stick_the_dealer, "all passed although the dealer is stuck");
                prop_assert_eq!(tricks, 0);
                prop_assert_eq!(outcome.points, [0, 0]);
            }
        }
    }

    #[test]
    fn scores_take_only_legal_values(seed in any::<u64>(), rules in rules_strategy()) {
        let (_, state, _) = play_out(seed, rules);
        let outcome = state.outcome().expect("finished");
        let [ns, ew] = outcome.points;
        if let Some(contract) = state.contract() {
            prop_assert!(ns == 0 || ew == 0, "both teams scored");
            let makers = contract.maker.team();
            let maker_points = outcome.points[makers.index()];
            let defender_points = outcome.points[makers.other().index()];
            let allowed_maker: &[u8] = if contract.alone { &[1, 4] } else { &[1, 2] };
            let allowed_defender: &[u8] = if state.lone_defender().is_some() { &[4] } else { &[2] };
            if outcome.tricks[makers.index()] >= 3 {
                prop_assert!(allowed_maker.contains(&maker_points) && defender_points == 0,
                    "makers took {:?} tricks and scored {:?}", outcome.tricks, outcome.points);
            } else {
                prop_assert!(allowed_defender.contains(&defender_points) && maker_points == 0,
                    "makers were euchred ({:?} tricks) but scored {:?}", outcome.tricks, outcome.points);
            }
            prop_assert_eq!(outcome.payoff(makers), -outcome.payoff(makers.other()));
        }
    }

    #[test]
    fn cards_are_conserved(seed in any::<u64>(), rules in rules_strategy()) {
        let (deal, state, _) = play_out(seed, rules);
        let dealt = deal.hands.iter().fold(CardSet::single(deal.upcard), |all, hand| all.union(*hand));
        prop_assert_eq!(dealt.len(), 21);
        if state.stage() == Stage::Finished && state.contract().is_some() {
            let held = Seat::ALL.iter().fold(CardSet::EMPTY, |all, seat| all.union(state.hand(*seat)));
            // Everything dealt was played, is still held by a seat that sat out,
            // or was discarded or left face up.
            let accounted = state.played().union(held).union(CardSet::single(deal.upcard));
            let accounted = state.discard().map_or(accounted, |card| accounted.with(card));
            prop_assert_eq!(accounted.intersection(dealt), dealt);
        }
    }

    #[test]
    fn replaying_the_notation_reproduces_the_hand(seed in any::<u64>(), rules in rules_strategy()) {
        let (deal, state, actions) = play_out(seed, rules);
        let record = HandRecord {
            dealer: deal.dealer.to_string(),
            hands: Seat::ALL
                .iter()
                .map(|seat| (seat.to_string(), deal.hands[seat.index()].iter().map(|card| card.to_string()).collect()))
                .collect(),
            upcard: deal.upcard.to_string(),
            actions: actions.iter().map(ToString::to_string).collect(),
            rules: rules.changes_from(Rules::default()),
        };
        let result = replay(&record).expect("a legal hand replays");
        prop_assert!(result.complete);
        let outcome = state.outcome().expect("finished");
        prop_assert_eq!([result.points.north_south, result.points.east_west], outcome.points);
        prop_assert_eq!(result.steps.len(), actions.len());
    }

    #[test]
    fn card_and_action_notation_round_trips(index in 0u8..24, id in 0u8..60, lower in any::<bool>()) {
        let card = Card::from_index(index).unwrap();
        let text = if lower { card.to_string().to_lowercase() } else { card.to_string() };
        prop_assert_eq!(text.parse::<Card>().unwrap(), card);
        let action = Action::from_id(id).unwrap();
        prop_assert_eq!(action.to_string().parse::<Action>().unwrap(), action);
    }
}
