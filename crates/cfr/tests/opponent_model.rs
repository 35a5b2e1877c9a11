//! Opponent models: against a model, the traverser learns to exploit it;
//! partners are never modelled; and a model that never has a say is the
//! plain run bit for bit.

use cfr::games::kuhn::Kuhn;
use cfr::mccfr::ExternalSampling;
use cfr::policy::average_strategy;
use cfr::{Game, Node, OpponentModel, Schedule};
mod common;

use common::{Hooked, record_bits, sorted_records};
use store::MemoryTable;

/// Kuhn poker in which the second player is modelled as always passing
/// (checking, or folding to a bet), optionally with both players declared
/// one side.
fn passive_second(one_side: bool) -> Hooked<Kuhn> {
    Hooked {
        modelled: |game| (game.node() == Node::Decision(1)).then_some(0),
        same_side: if one_side { |_, _| true } else { |a, b| a == b },
        ..Hooked::new(Kuhn::new())
    }
}

fn train(one_side: bool, model: Option<OpponentModel>, iterations: u64) -> MemoryTable {
    let table = MemoryTable::new();
    let root = passive_second(one_side);
    ExternalSampling::new(root, &table, Schedule::VANILLA, 3, 1)
        .unwrap()
        .with_opponent_model(model)
        .unwrap()
        .run(1, iterations)
        .unwrap();
    table
}

/// The first player's average probability of betting first with `card`.
fn opening_bet(table: &MemoryTable, card: u8) -> f64 {
    let key = Kuhn::key(card, &[]);
    let record = sorted_records(table)
        .into_iter()
        .find(|(stored, _)| *stored == key)
        .map(|(_, record)| record)
        .expect("the opening is visited");
    let mut strategy = [0.0; 2];
    average_strategy(&record, &mut strategy);
    strategy[1]
}

/// Against a second player who always passes, a bet wins the ante with
/// every card, while a check wins nothing more with a queen and loses
/// with a jack: the best response bets with both. The equilibrium never
/// opens with a queen and bluffs a jack at most a third of the time.
#[test]
fn against_a_passive_model_the_first_player_learns_to_bet_what_the_equilibrium_checks() {
    let exploiting = train(false, Some(OpponentModel { share: 1.0 }), 20_000);
    let equilibrium = train(false, None, 20_000);
    for card in [Kuhn::JACK, Kuhn::QUEEN] {
        let bet = opening_bet(&exploiting, card);
        assert!(bet > 0.95, "card {card}: bets {bet:.3} against the model");
    }
    let queen = opening_bet(&equilibrium, Kuhn::QUEEN);
    let jack = opening_bet(&equilibrium, Kuhn::JACK);
    assert!(queen < 0.1, "the equilibrium opens a queen {queen:.3}");
    assert!(jack < 0.4, "the equilibrium bluffs a jack {jack:.3}");

    // Half the time: between the two.
    let half = train(false, Some(OpponentModel { share: 0.5 }), 20_000);
    let queen_half = opening_bet(&half, Kuhn::QUEEN);
    assert!(
        queen < queen_half && queen_half < opening_bet(&exploiting, Kuhn::QUEEN),
        "queen opens {queen:.3}, {queen_half:.3} at half, {:.3} at all",
        opening_bet(&exploiting, Kuhn::QUEEN)
    );
}

/// A modelled decision is neither looked up nor stored: with the model
/// always on, the second player's strategy sums stay empty (it is only
/// ever the first player's opponent), while its regrets still train on
/// its own walks.
#[test]
fn modelled_decisions_add_nothing_to_the_average() {
    let table = train(false, Some(OpponentModel { share: 1.0 }), 2_000);
    let second: Vec<_> = sorted_records(&table)
        .into_iter()
        .filter(|(key, _)| (key >> 4 & 0xf) % 2 == 1)
        .collect();
    assert!(!second.is_empty());
    for (key, record) in &second {
        assert!(
            record.strategy_sum.iter().all(|&sum| sum == 0.0),
            "{key:x}: {:?}",
            record.strategy_sum
        );
    }
    assert!(
        second
            .iter()
            .any(|(_, record)| record.regrets.iter().any(|&r| r != 0.0))
    );
}

/// Partners are never modelled, and a run with no model draws what it
/// always drew: both are the plain run bit for bit.
#[test]
fn a_model_of_a_partner_or_no_model_changes_nothing() {
    let plain = record_bits(&train(false, None, 3_000));
    let partners = record_bits(&train(true, Some(OpponentModel { share: 1.0 }), 3_000));
    assert_eq!(plain, partners);
    let modelled = record_bits(&train(false, Some(OpponentModel { share: 1.0 }), 3_000));
    assert_ne!(plain, modelled);
}

#[test]
fn a_share_outside_zero_to_one_is_refused() {
    let table = MemoryTable::new();
    let solver = ExternalSampling::new(Kuhn::new(), &table, Schedule::VANILLA, 1, 1).unwrap();
    let error = solver
        .with_opponent_model(Some(OpponentModel { share: 0.0 }))
        .unwrap_err();
    assert!(error.to_string().contains("share 0"), "{error}");
}
