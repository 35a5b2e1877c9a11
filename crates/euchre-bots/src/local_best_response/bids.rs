//! The local best response at round-1 bids.
//!
//! For each sampled deal one seat, the responder, may deviate at its
//! round-1 bid; everyone else, and the responder at every later decision,
//! plays the policy's average strategy, and card play is valued by the
//! leaves the policy was trained on. At its bid the responder knows only its
//! own cards and the upcard, and that the seats before it passed. It picks
//! the action with the best value averaged over `worlds` deals of the
//! hidden cards, each weighted by how likely the policy makes the earlier
//! seats pass holding those cards (so passes carry what they reveal). The
//! gain is the value of that action on the true deal minus the value of the
//! policy's own mixed bid there, in the responder's team's points. The mean
//! gain over deals estimates how much a player who knows the policy wins by
//! bidding against it: it is about zero at an equilibrium, positive while
//! the policy can still be exploited, and it falls as training converges.
//!
//! Only round-1 bids deviate, where the earlier history (passes only) makes
//! the inference weights exact; deals where the responder's round-1 turn
//! never comes count as a gain of zero.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::CardSet;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;

use super::{
    DecisionKind, LocalBestResponse, over_deals, policy_action, policy_mix_value,
    policy_probabilities,
};
use crate::leaves::LeafValuer;
use crate::policy_file::PolicyFile;

/// Spreads deal indices over the seed; each estimate keeps its own stream.
const DEAL_STREAM: u64 = 0x9E37_79B9_7F4A_7C15;

/// Estimates the local best response of `policy` over `deals` deals with
/// `worlds` samples of the hidden cards each, card play valued by `leaves`,
/// on rayon's current pool. The same seed gives the same estimate on any
/// number of threads.
pub fn of_bids(
    policy: &PolicyFile,
    rules: Rules,
    leaves: LeafValuer<'_>,
    deals: u64,
    worlds: usize,
    seed: u64,
) -> LocalBestResponse {
    over_deals(
        deals,
        seed,
        DEAL_STREAM,
        DecisionKind::RoundOneBid,
        |responder, rng| deal_gain(policy, rules, leaves, responder, worlds, rng),
    )
}

/// The responder's gain on one random deal; `None` if its round-1 turn
/// never comes (someone before it ordered up).
fn deal_gain(
    policy: &PolicyFile,
    rules: Rules,
    leaves: LeafValuer<'_>,
    responder: Seat,
    worlds: usize,
    rng: &mut SmallRng,
) -> Option<f64> {
    let deal = Deal::random(Seat::North, rng);
    let mut state = GameState::new(deal, rules);
    while state.to_act() != Some(responder) {
        if state.stage() != Stage::BiddingRound1 {
            return None;
        }
        let action = policy_action(policy, &state, rng);
        if action != Action::Pass {
            return None;
        }
        state.apply(action);
    }
    let legal = state.legal_actions();
    if legal.len() < 2 {
        return None;
    }
    let team = responder.team();
    // Choose on the responder's information alone.
    let mut totals = vec![0.0f64; legal.len()];
    let mut weight_sum = 0.0;
    for _ in 0..worlds {
        let (world, weight) = sample_world(policy, &state, responder, rng);
        if weight <= 0.0 {
            continue;
        }
        weight_sum += weight;
        let stream = SmallRng::from_rng(rng);
        for (total, &action) in totals.iter_mut().zip(legal.iter()) {
            *total += weight * rollout(policy, leaves, world, action, team, &mut stream.clone());
        }
    }
    if weight_sum <= 0.0 {
        return None;
    }
    let best = (0..legal.len()).max_by(|&a, &b| totals[a].total_cmp(&totals[b]))?;
    // Value both on the true deal, with common random numbers.
    let stream = SmallRng::from_rng(rng);
    let values: Vec<f64> = legal
        .iter()
        .map(|&action| rollout(policy, leaves, state, action, team, &mut stream.clone()))
        .collect();
    Some(values[best] - policy_mix_value(policy, &state, &legal, &values))
}

/// A deal of the cards hidden from `responder` at its round-1 turn, and
/// how likely the policy makes every seat before it pass with those cards.
fn sample_world(
    policy: &PolicyFile,
    state: &GameState,
    responder: Seat,
    rng: &mut SmallRng,
) -> (GameState, f64) {
    let dealer = state.dealer();
    let upcard = state.upcard();
    let own = state.hand(responder);
    let mut hidden: Vec<_> = CardSet::FULL_DECK.minus(own.with(upcard)).iter().collect();
    hidden.shuffle(rng);
    let mut hands = [CardSet::EMPTY; 4];
    hands[responder.index()] = own;
    let mut next = hidden.iter();
    for seat in Seat::ALL {
        if seat != responder {
            for _ in 0..5 {
                if let Some(&card) = next.next() {
                    hands[seat.index()] = hands[seat.index()].with(card);
                }
            }
        }
    }
    let Ok(deal) = Deal::new(dealer, hands, upcard) else {
        return (*state, 0.0);
    };
    let mut world = GameState::new(deal, *state.rules());
    let mut weight = 1.0;
    while world.to_act() != Some(responder) {
        let mut probabilities = [0.0f64; Action::MAX_LEGAL];
        let pass = match policy_probabilities(policy, &world, &mut probabilities) {
            Some(order) => order
                .iter()
                .position(|&action| action == Action::Pass)
                .map_or(0.0, |index| probabilities[index]),
            None => 1.0 / world.legal_actions().len() as f64,
        };
        weight *= pass;
        world.apply(Action::Pass);
    }
    (world, weight)
}

/// The responder's team's points after `action` in `state`, with the rest
/// of the bidding sampled from the policy and the play valued by `leaves`.
fn rollout(
    policy: &PolicyFile,
    leaves: LeafValuer<'_>,
    mut state: GameState,
    action: Action,
    team: Team,
    rng: &mut SmallRng,
) -> f64 {
    state.apply(action);
    while !matches!(state.stage(), Stage::Play | Stage::Finished) {
        let next = policy_action(policy, &state, rng);
        state.apply(next);
    }
    if state.stage() == Stage::Finished {
        return state
            .outcome()
            .map_or(0.0, |outcome| f64::from(outcome.payoff(team)));
    }
    leaves.evaluate(&state)[team.index()]
}

#[cfg(test)]
mod tests {
    use super::super::untrained_policy;
    use super::*;
    use crate::phase::Phase;

    #[test]
    fn a_random_bidder_is_clearly_exploitable_and_the_estimate_is_reproducible() {
        let policy = untrained_policy(Phase::Bidding);
        let estimate = of_bids(&policy, Rules::default(), LeafValuer::OpenHand, 400, 4, 9);
        assert!(
            estimate.gain - estimate.interval > 0.1,
            "uniform bids lose to a best response: {estimate}"
        );
        assert!(estimate.decisions > 0 && estimate.decisions < 400);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let again =
            pool.install(|| of_bids(&policy, Rules::default(), LeafValuer::OpenHand, 400, 4, 9));
        assert_eq!(again, estimate, "the same seed gives the same estimate");
    }
}
