//! Bids a search decides once per key, to be played with one lookup.
//!
//! The strongest bot searches its bids at play time, over worlds weighted
//! by a bidding blueprint; most of its margin over PIMC is in those bids
//! (`docs/experiments/where-the-points-come-from.md`). A searched bid
//! depends only on the bidding view (the hand, the upcard, the seat and
//! the bids before it) and on the blueprint, so it can be decided once for
//! every key and kept in the policy file ([`crate::policy_file::PolicyFile::write_with_searched`]).
//!
//! Only round 1 and round 2 are decided here, and only where the
//! blueprint is unsure ([`CONFIDENT`]): elsewhere the searching bot plays
//! the blueprint's most likely bid, which the policy already holds.

use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::seat_knowledge::SeatKnowledge;
use euchre_game::game::context::ScoreContext;
use euchre_game::keys::InfoKey;
use euchre_game::keys::bidding::{BiddingDecision, BiddingKeyParts, context_of, is_searched};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use store::Key;

use crate::bot::Bot;
use crate::bots::search::CONFIDENT;
use crate::policy_file::{PolicyFile, most_likely};
use crate::seen::Seen;

/// The keys a search decides: every round-1 and round-2 key of
/// `blueprint` (plain, not a score context's) whose most likely bid has a
/// probability under [`CONFIDENT`], in key order.
pub fn unsure_keys(blueprint: &PolicyFile) -> Vec<Key> {
    let mut row = Vec::new();
    blueprint
        .entries()
        .filter(|&(key, _)| {
            let key = InfoKey(key);
            !is_searched(key)
                && context_of(key) == Some(ScoreContext::OPEN)
                && matches!(
                    key.decision_kind(),
                    Some(BiddingDecision::Round1 | BiddingDecision::Round2)
                )
        })
        .filter(|&(_, scaled)| {
            row.clear();
            row.extend(scaled.iter().map(|&p| f64::from(p)));
            let total: f64 = row.iter().sum();
            total > 0.0 && row[most_likely(&row)] / total < CONFIDENT
        })
        .map(|(key, _)| key)
        .collect()
}

/// The view a round-1 or round-2 key stands for, in the key's own suits,
/// North dealing: every seat before the actor passed. `None` for any
/// other key.
pub fn seat_view(key: Key, rules: Rules) -> Option<SeatKnowledge> {
    let parts = BiddingKeyParts::decode(InfoKey(key))?;
    // Seats bid from the dealer's left; the dealer (offset 0) bids last.
    let before_in_round = usize::from((parts.actor_offset + 3) % 4);
    let passes = match parts.decision {
        BiddingDecision::Round1 => before_in_round,
        BiddingDecision::Round2 => 4 + before_in_round,
        _ => return None,
    };
    let dealer = Seat::North;
    Some(SeatKnowledge {
        rules,
        dealer,
        seat: Seat::from_index(dealer.index() as u8 + parts.actor_offset),
        hand: parts.hand,
        upcard: parts.upcard,
        actions: vec![Some(Action::Pass); passes],
    })
}

/// `bot`'s bid at `key`, as the index of the bid among the key's actions
/// in the order the policy file stores them; `seed` seeds its worlds, so
/// a key is decided the same way every time. `None` for a key that is not
/// a round-1 or round-2 bid, or that the view does not rebuild.
pub fn decide(bot: &dyn Bot, policy: &PolicyFile, key: Key, seed: u64) -> Option<usize> {
    let view = seat_view(key, policy.meta.recipe.rules)?;
    let (state, history) = view.complete_with_history().ok()?;
    let decision = policy.decision(&state)?;
    if decision.key.0 != key {
        return None;
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ (key as u64) ^ ((key >> 64) as u64));
    let bid = bot.act(&Seen::new(&state, &history), &mut rng);
    decision.actions.iter().position(|&action| action == bid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta::{BidChoice, BlueprintSource, PolicyMeta, SearchedBids};
    use crate::phase::Phase;
    use crate::policy_file::export;
    use euchre_game::engine::state::{Deal, GameState};
    use euchre_game::keys::bidding::{bidding_decision, searched};
    use store::{MemoryTable, Table};

    /// A policy with searched bids plays the searched bid at its key with
    /// one lookup, keeps the blueprint's row as it was, says what it holds,
    /// and writing other searched bids replaces the old ones.
    #[test]
    fn a_searched_bid_is_played_in_place_of_the_blueprints_and_the_blueprint_kept() {
        let mut rng = SmallRng::seed_from_u64(9);
        let state = GameState::new(Deal::random(Seat::West, &mut rng), Rules::default());
        let decision = bidding_decision(&state).unwrap();
        let table = MemoryTable::new();
        let slot = table.slot(decision.key.0).unwrap();
        // The blueprint passes (three quarters) or orders up.
        table
            .update(slot, &mut |record| {
                record.strategy_sum[0] = 3.0;
                record.strategy_sum[1] = 1.0;
            })
            .unwrap();
        let dir = std::env::temp_dir().join(format!("searched-bids-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("policy.bin");
        let meta = PolicyMeta::new(Phase::Bidding, Rules::default(), 5);
        export(&table, &meta, 3, None, &path, &mut |_, _| {}).unwrap();
        let blueprint = PolicyFile::load(&path).unwrap();
        assert_eq!(unsure_keys(&blueprint), [decision.key.0]);
        let info = |changed| SearchedBids {
            bot: "search-bids:4:policy.bin".into(),
            blueprint: BlueprintSource {
                path: path.clone(),
                checksum: blueprint.checksum(),
                iterations: 5,
                choice: BidChoice::Argmax,
            },
            keys: 1,
            changed,
        };
        blueprint
            .write_with_searched(&[(decision.key.0, 1)], info(1), &path)
            .unwrap();
        let played = PolicyFile::load(&path).unwrap();
        assert_eq!(played.meta.searched_bids, Some(info(1)));
        assert_eq!(played.len(), 2, "the blueprint's row and the searched one");
        let found = played.decision_at(&state, None).unwrap();
        assert_eq!(found.key, searched(decision.key));
        let mut row = [0.0; 3];
        assert!(played.probabilities(found.key.0, &mut row));
        assert_eq!(row, [0.0, 1.0, 0.0]);
        let mut before = [0.0; 3];
        assert!(blueprint.probabilities(decision.key.0, &mut before));
        assert!(played.probabilities(decision.key.0, &mut row));
        assert_eq!(row, before, "the blueprint's row as it was");
        assert!((row[0] - 0.75).abs() < 1e-4, "{row:?}");
        // The searched rows are not themselves searched again, and new
        // ones replace them.
        assert_eq!(unsure_keys(&played), [decision.key.0]);
        played
            .write_with_searched(&[(decision.key.0, 0)], info(0), &path)
            .unwrap();
        let again = PolicyFile::load(&path).unwrap();
        assert_eq!(again.len(), 2);
        assert!(again.probabilities(searched(decision.key).0, &mut row));
        assert_eq!(row, [1.0, 0.0, 0.0]);
        // A plain policy plays the blueprint's key.
        assert_eq!(
            blueprint.decision_at(&state, None).unwrap().key,
            decision.key
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Every round-1 and round-2 key met in random hands rebuilds a view
    /// whose own key is that key: the search decides the very decision a
    /// player meets.
    #[test]
    fn a_bidding_key_rebuilds_a_view_with_the_same_key() {
        let mut rng = SmallRng::seed_from_u64(3);
        let mut checked = 0;
        for _ in 0..300 {
            let deal = Deal::random(
                Seat::from_index(rand::RngExt::random_range(&mut rng, 0..4u8)),
                &mut rng,
            );
            let mut state = GameState::new(deal, Rules::default());
            while let Some(decision) = bidding_decision(&state) {
                let round = decision.key.decision_kind();
                if matches!(
                    round,
                    Some(BiddingDecision::Round1 | BiddingDecision::Round2)
                ) {
                    let view = seat_view(decision.key.0, Rules::default()).unwrap();
                    let rebuilt = view.complete().unwrap();
                    assert_eq!(bidding_decision(&rebuilt).unwrap().key, decision.key);
                    checked += 1;
                }
                // Pass through the auction, so that round 2 is reached.
                let actions = state.legal_actions();
                let pass = actions.iter().find(|&&action| action == Action::Pass);
                state.apply(*pass.unwrap_or(&actions[0]));
            }
        }
        assert!(checked > 2000, "{checked}");
    }
}
