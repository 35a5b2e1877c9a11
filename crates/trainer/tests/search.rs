//! The search bot: what its inference does to the worlds, and its spec's
//! errors. Whole hands through it are played in `act.rs`.

mod support;

use std::path::PathBuf;
use std::sync::Arc;

use euchre_bots::bot::Bot;
use euchre_bots::bots::heuristic::Heuristic;
use euchre_bots::bots::policy::{PolicyBot, Sampling, Unseen};
use euchre_bots::bots::search::{BidsBy, CONFIDENT, SearchBot, SearchOptions};
use euchre_bots::seen::Seen;
use euchre_bots::spec::from_spec;
use euchre_game::engine::action::Action;
use euchre_game::engine::card::CardSet;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::engine::trump::cards_of_suit;
use euchre_game::game::GameScore;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use support::{TempDir, bidding_policy, bidding_policy_with};

/// The maker's trumps in each world, averaged with and without the
/// inference weights, over defenders' first card plays after a round-1
/// order: the order must make the weighted worlds richer in trumps.
#[test]
fn an_order_up_puts_trumps_in_the_makers_hand() {
    let temp = TempDir::new("search-inference");
    // Trained long enough that the common round-1 keys say something; the
    // heuristic's play makes the leaves four times cheaper than open hands.
    // One thread, so the policy and hence the figures are the same on
    // every run.
    let policy = bidding_policy_with(
        &temp.0,
        &[
            "--iterations",
            "400000",
            "--threads",
            "1",
            "--leaves",
            "heuristic-play",
        ],
    );
    let (uniform, weighted) = maker_trumps(&policy);
    // A policy this young orders almost regardless of its cards, so the
    // shift is small; a one-hour policy moves it by about 0.6 trumps (run
    // the ignored test below).
    assert!(
        weighted > uniform + 0.03,
        "the maker holds {weighted:.2} trumps in weighted worlds against {uniform:.2} in uniform ones"
    );
}

#[test]
#[ignore = "needs a well-trained bidding policy: POLICY=runs/bidding-60m/policy.bin cargo test --release -p trainer --test search -- --ignored"]
fn a_trained_blueprints_order_up_puts_several_trumps_in_the_makers_hand() {
    let policy = PathBuf::from(std::env::var("POLICY").expect("set POLICY to a policy file"));
    let (uniform, weighted) = maker_trumps(&policy);
    assert!(
        weighted > uniform + 0.3,
        "the maker holds {weighted:.2} trumps in weighted worlds against {uniform:.2} in uniform ones"
    );
}

/// The maker's mean trumps (uniform worlds, weighted worlds) at 40
/// defenders' first card plays after a round-1 order by `policy`'s argmax.
fn maker_trumps(policy: &std::path::Path) -> (f64, f64) {
    let rules = Rules::default();
    let blueprint = PolicyBot::load(
        policy,
        Sampling::Argmax,
        Unseen::Heuristic,
        Arc::new(Heuristic),
    )
    .unwrap();
    let bidder = from_spec(
        &format!("policy-argmax:{}", policy.display()),
        rules,
        Unseen::Heuristic,
    )
    .unwrap();
    let search = SearchBot::new(
        blueprint,
        SearchOptions::new(8, BidsBy::Blueprint),
        "test".to_owned(),
    )
    .unwrap();
    let mut rng = SmallRng::seed_from_u64(11);
    let (mut positions, mut uniform_sum, mut weighted_sum) = (0, 0.0, 0.0);
    for hand in 0..4000u64 {
        if positions == 40 {
            break;
        }
        let deal = Deal::random(Seat::from_index((hand % 4) as u8), &mut rng);
        let mut state = GameState::new(deal, rules);
        let mut history = Vec::new();
        while matches!(
            state.stage(),
            Stage::BiddingRound1 | Stage::BiddingRound2 | Stage::DealerDiscard
        ) {
            let seat = state.to_act().unwrap();
            let action = bidder.act(&Seen::new(&state, &history), &mut rng);
            state.apply(action);
            history.push((seat, action));
        }
        let Some(contract) = state.contract() else {
            continue;
        };
        let actor = state.to_act().unwrap();
        if contract.round != 1 || contract.alone || actor.team() == contract.maker.team() {
            continue;
        }
        let trumps = cards_of_suit(contract.trump, contract.trump);
        let seen = Seen::new(&state, &history);
        let worlds = search.weighted_worlds(&seen, 400, &mut rng);
        assert!(worlds.len() > 300, "most candidate worlds replay");
        let total: f64 = worlds.iter().map(|(_, weight)| weight).sum();
        let held =
            |world: &GameState| f64::from(world.hand(contract.maker).intersection(trumps).len());
        uniform_sum += worlds.iter().map(|(w, _)| held(w)).sum::<f64>() / worlds.len() as f64;
        weighted_sum += worlds
            .iter()
            .map(|(w, weight)| weight * held(w))
            .sum::<f64>()
            / total;
        positions += 1;
    }
    assert!(positions >= 20, "only {positions} positions after an order");
    (
        uniform_sum / f64::from(positions),
        weighted_sum / f64::from(positions),
    )
}

/// The five best trumps, first to bid: a lone order takes all five tricks
/// in every world (4 points), and nothing else can score as much (an
/// order with partner 2, a pass at best a euchre of whoever bids next). A
/// young blueprint is not sure of it; the bid search must be, with or
/// without continuations.
#[test]
fn a_searched_bid_goes_alone_with_the_five_best_trumps() {
    let temp = TempDir::new("search-bids");
    let policy = bidding_policy(&temp.0);
    let rules = Rules::default();
    let state = GameState::new(five_best_trumps_deal(), rules);
    let seen = Seen::new(&state, &[]);
    let lone = Action::Order { alone: true };

    let load = || {
        PolicyBot::load(
            &policy,
            Sampling::Argmax,
            Unseen::Heuristic,
            Arc::new(Heuristic),
        )
        .unwrap()
    };
    let blueprint = load();
    let sure = blueprint
        .probabilities(&seen)
        .is_some_and(|stated| stated.iter().any(|&(_, p)| p >= CONFIDENT));
    assert!(!sure, "the test needs a blueprint that is not sure here");

    // A lone march ends the auction, so however each side would have bid
    // on (`continuations`), nothing else comes close.
    for continuations in [false, true] {
        let options = SearchOptions {
            continuations,
            ..SearchOptions::new(16, BidsBy::Search)
        };
        let search = SearchBot::new(load(), options, "test".to_owned()).unwrap();
        let mut rng = SmallRng::seed_from_u64(5);
        assert_eq!(search.act(&seen, &mut rng), lone, "{options}");
        let report = search.report().unwrap();
        assert!(report.contains("1 bids searched"), "{report}");
    }
}

/// The dealer of [`five_best_trumps_deal`].
const FIVE_TRUMPS_DEALER: Seat = Seat::South;

/// A deal whose first bidder (left of the dealer) holds the five best
/// spades with the ten of spades turned up: a sure lone march.
fn five_best_trumps_deal() -> Deal {
    let hand = |text: &str| text.parse::<CardSet>().unwrap();
    let dealer = FIVE_TRUMPS_DEALER;
    let mut hands = [CardSet::EMPTY; 4];
    hands[dealer.left().index()] = hand("JS JC AS KS QS");
    hands[dealer.left().left().index()] = hand("9H TH JH QH KH");
    hands[dealer.left().left().left().index()] = hand("AH 9D TD JD QD");
    hands[dealer.index()] = hand("KD AD 9C TC QC");
    Deal::new(dealer, hands, "TS".parse().unwrap()).unwrap()
}

/// A search that plays for the game (`,game`) values each bid by the
/// chance of winning it leaves: at 9 points a sure make wins the game
/// whether made alone or not, worth 1 either way, where the score-blind
/// search values the lone march at 4 points. Without a score in view it
/// values points, as the blind search does.
#[test]
fn a_search_for_the_game_values_a_sure_make_at_nine_as_the_game_won() {
    let temp = TempDir::new("search-game");
    let policy = bidding_policy(&temp.0);
    let rules = Rules::default();
    let dealer = FIVE_TRUMPS_DEALER;
    let state = GameState::new(five_best_trumps_deal(), rules);
    let bidder = dealer.left().team();
    let mut points = [0u8; 2];
    points[bidder.index()] = 9;
    points[bidder.other().index()] = 8;
    let score = GameScore {
        points,
        dealer,
        target: 10,
    };
    let spec = |extra: &str| format!("search-bids:16{extra}:{}", policy.display());
    let blind = from_spec(&spec(""), rules, Unseen::Heuristic).unwrap();
    let game = from_spec(&spec(",game"), rules, Unseen::Heuristic).unwrap();
    assert!(game.plays_for_the_game() && !blind.plays_for_the_game());
    assert!(
        game.name().starts_with("search-bids:16,game:"),
        "{}",
        game.name()
    );
    let value_of = |bot: &Arc<dyn Bot>, seen: &Seen<'_>, action: Action| {
        let values = bot.values(seen, &mut SmallRng::seed_from_u64(3)).unwrap();
        values.iter().find(|v| v.action == action).unwrap().value
    };
    let lone = Action::Order { alone: true };
    let with_partner = Action::Order { alone: false };

    let in_game = Seen::in_game(&state, &[], score);
    assert_eq!(value_of(&game, &in_game, lone), 1.0);
    assert_eq!(value_of(&game, &in_game, with_partner), 1.0);
    assert_eq!(value_of(&blind, &in_game, lone), 4.0);

    let unscored = Seen::new(&state, &[]);
    for &action in state.legal_actions().as_slice() {
        assert_eq!(
            value_of(&game, &unscored, action),
            value_of(&blind, &unscored, action),
            "{action}"
        );
    }

    // Each bot's twin in the other unit (which analysis and hints state
    // beside) values as the bot built for that unit does, on the same files.
    let (blind_twin, game_twin) = (blind.valuing(true).unwrap(), game.valuing(false).unwrap());
    assert!(blind_twin.plays_for_the_game() && !game_twin.plays_for_the_game());
    assert_eq!(blind_twin.name(), game.name());
    for &action in state.legal_actions().as_slice() {
        assert_eq!(
            value_of(&blind_twin, &in_game, action),
            value_of(&game, &in_game, action)
        );
        assert_eq!(
            value_of(&game_twin, &in_game, action),
            value_of(&blind, &in_game, action)
        );
    }
}

/// `,endgame-bids` searches every bid once either side is within two
/// points of winning, the blueprint's sure bids included, and only then:
/// at 0-0 it searches exactly the bids `,game` alone does, at 9-9 every bid
/// with a choice.
#[test]
fn endgame_bids_search_the_sure_bids_only_near_the_end_of_a_game() {
    let temp = TempDir::new("search-endgame");
    // Trained long enough to be sure of some bids (clear passes).
    let policy = bidding_policy_with(
        &temp.0,
        &[
            "--iterations",
            "400000",
            "--threads",
            "1",
            "--leaves",
            "heuristic-play",
        ],
    );
    let rules = Rules::default();
    let spec = |extra: &str| format!("search-bids:4,game{extra}:{}", policy.display());
    let searched_bids = |extra: &str, points: [u8; 2]| -> (u64, u64) {
        let bot = from_spec(&spec(extra), rules, Unseen::Heuristic).unwrap();
        let mut rng = SmallRng::seed_from_u64(21);
        let mut bids_with_a_choice = 0;
        for hand in 0..24u64 {
            let dealer = Seat::from_index((hand % 4) as u8);
            let mut state = GameState::new(Deal::random(dealer, &mut rng), rules);
            let score = GameScore {
                points,
                dealer,
                target: 10,
            };
            let mut history = Vec::new();
            while let Some(seat) = state.to_act() {
                if state.stage() == Stage::Play {
                    break;
                }
                if state.legal_actions().len() > 1 {
                    bids_with_a_choice += 1;
                }
                let action = bot.act(&Seen::in_game(&state, &history, score), &mut rng);
                state.apply(action);
                history.push((seat, action));
            }
        }
        let report = bot.report().unwrap();
        let searched = report
            .split(" bids searched")
            .next()
            .and_then(|before| before.rsplit(' ').next())
            .and_then(|count| count.parse().ok())
            .unwrap_or_else(|| panic!("{report}"));
        (searched, bids_with_a_choice)
    };
    let (alone, _) = searched_bids("", [0, 0]);
    let (early, _) = searched_bids(",endgame-bids", [0, 0]);
    assert_eq!(early, alone, "early in a game nothing changes");
    let (near, with_a_choice) = searched_bids(",endgame-bids", [9, 9]);
    assert_eq!(
        near, with_a_choice,
        "at 9-9 every bid with a choice is searched"
    );
    let (sure_skipped, _) = searched_bids("", [9, 9]);
    assert!(
        sure_skipped < near,
        "{sure_skipped} of {near}: the blueprint is sure of some"
    );
}

#[test]
fn search_specs_name_what_is_wrong() {
    let error = |spec: &str| refusal(spec, Rules::default());
    let missing = PathBuf::from("/nonexistent/policy.bin");
    assert!(error(&format!("search:{}", missing.display())).contains("/nonexistent/policy.bin"));
    assert!(error("search:0:some.bin").contains("at least one world"));
    assert!(error("search-bids:0:some.bin").contains("at least one world"));
    assert!(error("search-bids:").contains("unknown bot"));
    assert!(error("search:").contains("unknown bot"));
    assert!(error("search:200:").contains("name the policy file"));

    let temp = TempDir::new("search-rules");
    let policy = bidding_policy(&temp.0);
    let other = Rules {
        stick_the_dealer: false,
        ..Rules::default()
    };
    let refused = refusal(&format!("search:{}", policy.display()), other);
    assert!(refused.contains("trained under"), "{refused}");
}

/// The error a spec is refused with at a table playing `rules`.
/// The bidding blueprint a full-play table records it was trained under.
fn by_blueprint_file(table: &str) -> PathBuf {
    let file = euchre_bots::policy_file::PolicyFile::load(std::path::Path::new(table)).unwrap();
    file.meta
        .recipe
        .bidding_from
        .expect("a full-play table names its bidding blueprint")
        .path
}

fn refusal(spec: &str, rules: Rules) -> String {
    from_spec(spec, rules, Unseen::Heuristic)
        .err()
        .unwrap_or_else(|| panic!("{spec} was accepted"))
        .to_string()
}

/// Playout values need a table that plays whole hands: on a full-play
/// export they play legal hands, with and without a time budget, and the
/// budget is what stops a search of far too many worlds; on a bidding
/// policy they are refused with the fix named.
#[test]
fn playout_values_play_whole_hands_on_a_full_play_table_and_only_there() {
    let temp = TempDir::new("search-playout");
    let run = small_full_play_run(&temp);
    let run = run.as_str();
    let table = format!("{run}/policy.bin");
    let rules = Rules::default();
    let mut rng = SmallRng::seed_from_u64(9);
    for spec in [
        format!("search-bids:6,playout,every-bid:{table}"),
        format!("search:6,blend:{table}"),
        format!("search:100000,playout,ms=1:{table}"),
        format!("search:6,blend,infer-bids:{table}"),
        format!("search-bids:6,blend,infer-bids:{table}"),
        format!("search:6,ahead:{table}"),
        format!("search:2000,blend,trust=50,ahead,ms=1:{table}"),
        format!("search:6,blend,lead=table:{table}"),
    ] {
        let bot = from_spec(&spec, rules, Unseen::Heuristic).unwrap();
        for hand in 0..6u64 {
            let deal = Deal::random(Seat::from_index((hand % 4) as u8), &mut rng);
            let mut state = GameState::new(deal, rules);
            let mut history = Vec::new();
            while let Some(seat) = state.to_act() {
                let action = bot.act(&Seen::new(&state, &history), &mut rng);
                assert!(state.legal_actions().contains(action), "{spec}: {action}");
                state.apply(action);
                history.push((seat, action));
            }
        }
        let report = bot.report().unwrap();
        assert!(!report.contains(": 0 card plays searched"), "{report}");
        // The table's exported bids are its argmax, sure of every one: only
        // every-bid searches them, or the bidding blueprint's doubts with
        // infer-bids (this blueprint is 20,000 iterations young).
        let searched_bids =
            report.contains(" bids searched") && !report.contains("; 0 bids searched");
        let blueprint_doubts = spec.starts_with("search-bids:") && spec.contains("infer-bids");
        assert_eq!(
            searched_bids,
            spec.contains("every-bid") || blueprint_doubts,
            "{spec}: {report}"
        );
        assert_eq!(
            report.contains("stopped at the time budget"),
            spec.contains("ms="),
            "{spec}: {report}"
        );
    }

    let bidding = bidding_policy(&temp.0);
    let refused = refusal(&format!("search:8,playout:{}", bidding.display()), rules);
    assert!(
        refused.contains("is a bidding policy") && refused.contains("drop ',playout'"),
        "{refused}"
    );
    let refused = refusal(&format!("search:8,ahead:{}", bidding.display()), rules);
    assert!(
        refused.contains("is a bidding policy") && refused.contains("drop ',ahead'"),
        "{refused}"
    );
    let refused = refusal(&format!("search:8,lead=table:{}", bidding.display()), rules);
    assert!(
        refused.contains("is a bidding policy") && refused.contains("drop ',lead=table'"),
        "{refused}"
    );

    // `lead=table`: the opening lead is the table's own most likely card.
    let by_table = from_spec(
        &format!("search:6,blend,lead=table:{table}"),
        rules,
        Unseen::Heuristic,
    )
    .unwrap();
    let argmax = from_spec(&format!("policy-argmax:{table}"), rules, Unseen::Heuristic).unwrap();
    let mut leads = 0;
    for hand in 0..12u64 {
        let deal = Deal::random(Seat::from_index((hand % 4) as u8), &mut rng);
        let mut state = GameState::new(deal, rules);
        let mut history = Vec::new();
        while let Some(seat) = state.to_act() {
            let seen = Seen::new(&state, &history);
            let action = by_table.act(&seen, &mut rng);
            if state.stage() == Stage::Play && state.played().is_empty() {
                let table_card = argmax.act(&seen, &mut rng);
                assert_eq!(action, table_card, "hand {hand}");
                leads += 1;
            }
            state.apply(action);
            history.push((seat, action));
        }
    }
    assert!(leads >= 6, "{leads} opening leads in 12 hands");

    // `infer-bids` reads the bids by the run's bidding blueprint (graded),
    // not by the table's fixed bids (all or nothing): after a pass, the
    // worlds weigh differently, the card-play inference the same.
    // Full trust, so that a world's weight is the model's probability alone.
    let search_on_table = |infer_bids: bool| {
        let table = PolicyBot::load(
            std::path::Path::new(&table),
            Sampling::Argmax,
            Unseen::Heuristic,
            Arc::new(Heuristic),
        )
        .unwrap();
        let options = SearchOptions {
            trust_percent: 100,
            infer_bids,
            ..SearchOptions::new(32, BidsBy::Blueprint)
        };
        SearchBot::new(table, options, "table".into()).unwrap()
    };
    let by_table = search_on_table(false);
    let by_blueprint = search_on_table(true);
    let deal = Deal::random(Seat::North, &mut SmallRng::seed_from_u64(3));
    let mut state = GameState::new(deal, rules);
    let first = state.to_act().unwrap();
    state.apply(Action::Pass);
    let history = [(first, Action::Pass)];
    let seen = Seen::new(&state, &history);
    let weights = |bot: &SearchBot| -> Vec<f64> {
        bot.weighted_worlds(&seen, 64, &mut SmallRng::seed_from_u64(5))
            .into_iter()
            .map(|(_, weight)| weight)
            .collect()
    };
    let (table_weights, blueprint_weights) = (weights(&by_table), weights(&by_blueprint));
    assert_eq!(
        table_weights.len(),
        blueprint_weights.len(),
        "the same worlds"
    );
    assert_ne!(
        table_weights, blueprint_weights,
        "a pass weighs differently"
    );
    // At full trust a world's weight is the probability of the pass it
    // saw, by the run's bidding blueprint, holding that world's cards.
    let source = by_blueprint_file(&table);
    let blueprint = euchre_bots::policy_file::PolicyFile::load(&source).unwrap();
    let worlds = by_blueprint.weighted_worlds(&seen, 64, &mut SmallRng::seed_from_u64(5));
    for (world, weight) in &worlds {
        let hands = Seat::ALL.map(|seat| world.hand(seat));
        let dealt = Deal::new(world.dealer(), hands, world.upcard()).unwrap();
        let before = GameState::new(dealt, rules);
        let decision = blueprint.decision(&before).unwrap();
        let mut probabilities = vec![0.0; decision.actions.len()];
        if !blueprint.probabilities(decision.key.0, &mut probabilities) {
            probabilities.fill(1.0 / decision.actions.len() as f64);
        }
        let pass = decision
            .actions
            .iter()
            .position(|&a| a == Action::Pass)
            .unwrap();
        assert!(
            (weight - probabilities[pass]).abs() < 1e-9,
            "{weight} against {}",
            probabilities[pass]
        );
    }
    let refused = refusal(&format!("search:8,infer-bids:{}", bidding.display()), rules);
    assert!(refused.contains("names none"), "{refused}");
}

/// The search priced in both units at once (what the analysis and the
/// hints state side by side) gives exactly what the bot and its twin give
/// asked in turn with generators in the same state: for the plain search,
/// whose solves and playouts are shared, and for look-ahead and
/// continuations, which choose by value in each unit; bids and cards, on
/// a full-play table, alone and as the strongest bot's split.
#[test]
fn a_search_priced_in_both_units_is_the_bot_and_its_twin_asked_in_turn() {
    let temp = TempDir::new("search-beside");
    let run = small_full_play_run(&temp);
    let run = run.as_str();
    let table = format!("{run}/policy.bin");
    let bids = format!("{run}/bidding/policy.bin");
    let rules = Rules::default();
    let score = GameScore {
        points: [8, 6],
        dealer: Seat::North,
        target: 10,
    };
    for spec in [
        format!("search-bids:6,blend,every-bid:{table}"),
        format!("search-bids:6,game,every-bid:{table}"),
        format!("search:6,blend,ahead:{table}"),
        format!("search-bids:6,continuations:{bids}"),
        format!("bids:search-bids:6,game:{bids}+search:8,blend,trust=50,game:{table}"),
    ] {
        let bot = from_spec(&spec, rules, Unseen::Heuristic).unwrap();
        let twin = bot.valuing(!bot.plays_for_the_game()).unwrap();
        let (own_score, twin_score) = if bot.plays_for_the_game() {
            (Some(score), None)
        } else {
            (None, Some(score))
        };
        let mut rng = SmallRng::seed_from_u64(5);
        let mut priced = 0;
        for hand in 0..3u64 {
            let deal = Deal::random(Seat::from_index((hand % 4) as u8), &mut rng);
            let mut state = GameState::new(deal, rules);
            let mut history = Vec::new();
            while let Some(seat) = state.to_act() {
                let seen_with = |score: Option<GameScore>| match score {
                    Some(score) => Seen::in_game(&state, &history, score),
                    None => Seen::new(&state, &history),
                };
                if state.legal_actions().len() > 1 {
                    let seed = hand * 100 + history.len() as u64;
                    let at = format!("{spec}, hand {hand}, after {} actions", history.len());
                    let beside = bot.values_beside(
                        &seen_with(own_score),
                        twin_score,
                        &mut SmallRng::seed_from_u64(seed),
                    );
                    let asked = |bot: &dyn Bot, score| {
                        bot.values(&seen_with(score), &mut SmallRng::seed_from_u64(seed))
                    };
                    let asked = [
                        asked(bot.as_ref(), own_score),
                        asked(twin.as_ref(), twin_score),
                    ];
                    match beside {
                        Some([own, other]) => {
                            assert_eq!(Some(own), asked[0].clone(), "{at}");
                            assert_eq!(Some(other), asked[1].clone(), "{at}");
                            priced += 1;
                        }
                        None => assert!(asked[0].is_none() && asked[1].is_none(), "{at}"),
                    }
                }
                let action = Heuristic.act(&Seen::new(&state, &history), &mut rng);
                state.apply(action);
                history.push((seat, action));
            }
        }
        assert!(
            priced > 10,
            "{spec}: {priced} decisions priced in both units"
        );
    }
}

/// A small full-play run in `temp`, exported (its table and its bidding
/// stage's policy beside it): 20,000 bidding iterations, then 3,000 of
/// card play. Its directory.
fn small_full_play_run(temp: &TempDir) -> String {
    let run = temp.join("full-play");
    let run = run.to_str().unwrap().to_owned();
    support::ok(&support::full_play_in(
        &run,
        &[
            "--bidding-iterations",
            "20000",
            "--iterations",
            "3000",
            "--eval-every",
            "off",
            "--export",
        ],
    ));
    run
}
