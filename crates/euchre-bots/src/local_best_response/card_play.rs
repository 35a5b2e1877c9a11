//! The local best response at one card-play decision, for full play.
//!
//! For each sampled deal the policy plays the whole hand, bids included.
//! One seat, the responder (the seats take turns over deals), may deviate
//! at one of its card plays with a choice, picked uniformly among those it
//! met. There it knows what a player at the table knows: its cards, the
//! upcard, the bids, every card played so far and who played it (so the
//! voids shown), and, as dealer, its discard. The worlds it averages over
//! are deals of the cards it cannot see that agree with all of that
//! ([`crate::bots::pimc::sample_hidden`], the same sampler PIMC uses), each
//! weighted by how likely the policy makes the other three seats bid and
//! play as they did holding those cards. An action's value is the
//! responder's team's points at the end of the hand with everyone,
//! responder included, playing the policy from there, drawn with common
//! random numbers across the actions.
//!
//! Unlike the bidding estimate, nothing here is open-handed: the policy
//! plays every card, so the estimate measures the table policy a user
//! exports. It is noisier, since a rollout is one sampled continuation.

use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Stage};
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};

use super::{
    DecisionKind, LocalBestResponse, over_deals, policy_action, policy_mix_value, probability_of,
};
use crate::bots::pimc::{replay, sample_hidden};
use crate::policy_file::PolicyFile;
use crate::seen::Seen;

/// Sampling attempts per world wanted: worlds the policy could not have
/// produced get weight zero and are drawn again, up to this many times.
const ATTEMPTS_PER_WORLD: usize = 4;
/// Continuations averaged on the true deal, where the gain is scored.
const TRUE_DEAL_ROLLOUTS: usize = 4;

/// Spreads deal indices over the seed; each estimate keeps its own stream.
const DEAL_STREAM: u64 = 0xD1B5_4A32_D192_ED03;

/// Estimates the card-play local best response of a full-play `policy`
/// over `deals` deals with `worlds` weighted samples of the hidden cards
/// each, on rayon's current pool. The same seed gives the same estimate on
/// any number of threads.
pub fn of_card_play(
    policy: &PolicyFile,
    rules: Rules,
    deals: u64,
    worlds: usize,
    seed: u64,
) -> LocalBestResponse {
    over_deals(
        deals,
        seed,
        DEAL_STREAM,
        DecisionKind::CardPlay,
        |responder, rng| deal_gain(policy, rules, responder, worlds, rng),
    )
}

/// The responder's gain on one random deal; `None` if it never had a card
/// play with a choice (it sat out, or the hand ended without one) or no
/// sampled world could have produced what it saw.
fn deal_gain(
    policy: &PolicyFile,
    rules: Rules,
    responder: Seat,
    worlds: usize,
    rng: &mut SmallRng,
) -> Option<f64> {
    let deal = Deal::random(Seat::North, rng);
    let mut state = GameState::new(deal, rules);
    let mut history: Vec<(Seat, Action)> = Vec::with_capacity(32);
    // The responder's card plays with a choice: the state, and how much of
    // the history came before it.
    let mut choices: Vec<(GameState, usize)> = Vec::new();
    while let Some(actor) = state.to_act() {
        if actor == responder && state.stage() == Stage::Play && state.legal_actions().len() > 1 {
            choices.push((state, history.len()));
        }
        let action = policy_action(policy, &state, rng);
        history.push((actor, action));
        state.apply(action);
    }
    if choices.is_empty() {
        return None;
    }
    let (state, before) = choices[rng.random_range(0..choices.len())];
    let seen = Seen::new(&state, &history[..before]);
    let legal = state.legal_actions();
    let team = responder.team();

    // Choose on the responder's information alone.
    let mut totals = vec![0.0f64; legal.len()];
    let (mut found, mut weight_sum) = (0, 0.0);
    for _ in 0..worlds * ATTEMPTS_PER_WORLD {
        if found == worlds {
            break;
        }
        let Some(hidden) = sample_hidden(&seen, rng) else {
            continue;
        };
        let mut weight = 1.0;
        let world = replay(&seen, &hidden, |at, seat, action| {
            if seat != responder {
                weight *= probability_of(policy, at, action);
            }
        });
        let Some(world) = world.filter(|_| weight > 0.0) else {
            continue;
        };
        found += 1;
        weight_sum += weight;
        let stream = SmallRng::from_rng(&mut *rng);
        for (total, &action) in totals.iter_mut().zip(legal.iter()) {
            *total += weight * rollout(policy, world, action, team, &mut stream.clone());
        }
    }
    if weight_sum <= 0.0 {
        return None;
    }
    let best = (0..legal.len()).max_by(|&a, &b| totals[a].total_cmp(&totals[b]))?;

    // Score the choice on the true deal, against the policy's own mix.
    let mut values = vec![0.0f64; legal.len()];
    for _ in 0..TRUE_DEAL_ROLLOUTS {
        let stream = SmallRng::from_rng(&mut *rng);
        for (value, &action) in values.iter_mut().zip(legal.iter()) {
            *value += rollout(policy, state, action, team, &mut stream.clone())
                / TRUE_DEAL_ROLLOUTS as f64;
        }
    }
    Some(values[best] - policy_mix_value(policy, &state, &legal, &values))
}

/// `team`'s points at the end of the hand after `action` in `state`, with
/// the policy playing everything after it.
fn rollout(
    policy: &PolicyFile,
    mut state: GameState,
    action: Action,
    team: Team,
    rng: &mut SmallRng,
) -> f64 {
    state.apply(action);
    while state.to_act().is_some() {
        let next = policy_action(policy, &state, rng);
        state.apply(next);
    }
    state
        .outcome()
        .map_or(0.0, |outcome| f64::from(outcome.payoff(team)))
}

#[cfg(test)]
mod tests {
    use super::super::untrained_policy;
    use super::*;
    use crate::phase::Phase;

    #[test]
    fn random_card_play_is_clearly_exploitable_and_the_estimate_is_reproducible() {
        let policy = untrained_policy(Phase::FullPlay);
        let estimate = of_card_play(&policy, Rules::default(), 800, 16, 3);
        assert_eq!(estimate.kind, DecisionKind::CardPlay);
        assert!(
            estimate.gain - estimate.interval > 0.0,
            "a random card is worse than a chosen one: {estimate}"
        );
        // Nearly every deal gives the responder a card play with a choice
        // (it sits out only when its partner goes alone).
        assert!(estimate.decisions > 600, "{estimate}");
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let again = pool.install(|| of_card_play(&policy, Rules::default(), 800, 16, 3));
        assert_eq!(again, estimate, "the same seed gives the same estimate");
    }
}
