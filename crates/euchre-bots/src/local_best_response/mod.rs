//! Sampled local best responses (after Lisý and Bowling 2017): convergence
//! numbers that need no opponent bot.
//!
//! For each sampled deal one seat, the responder, may deviate at one
//! decision; everyone else, and the responder everywhere else, plays the
//! policy. At that decision the responder chooses on what it knows: the
//! action whose value, averaged over sampled deals of the cards it cannot
//! see (each weighted by how likely the policy makes the other seats act
//! as they did holding them), is best. The gain is that action's value on
//! the true deal minus the value of the policy's own mixed choice there.
//! Its mean over deals is about zero at an equilibrium, positive while the
//! policy can still be exploited at such decisions, and it falls as
//! training converges.
//!
//! - [`of_bids`]: the round-1 bid, with card play valued open-handed (the
//!   bidding phase's own leaves).
//! - [`of_card_play`]: one card-play decision, with the rest of the hand
//!   played by the policy (full play).

mod bids;
mod card_play;

pub use bids::of_bids;
pub use card_play::of_card_play;

use euchre_game::engine::action::{Action, ActionList};
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::GameState;
use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;

use crate::policy_file::PolicyFile;

/// Where the responder may deviate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionKind {
    RoundOneBid,
    CardPlay,
}

impl DecisionKind {
    fn plural(self) -> &'static str {
        match self {
            DecisionKind::RoundOneBid => "round-1 bids",
            DecisionKind::CardPlay => "card plays",
        }
    }
}

/// The estimate: mean gain per hand with its 95% interval over deals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalBestResponse {
    pub gain: f64,
    pub interval: f64,
    pub deals: u64,
    /// Deals where the responder met a decision of `kind` and could
    /// choose; the others count as a gain of zero.
    pub decisions: u64,
    pub kind: DecisionKind,
}

impl LocalBestResponse {
    /// The mean and its 95% interval over one gain per deal (`None`: the
    /// responder had no decision, a gain of zero).
    fn from_gains(gains: &[Option<f64>], kind: DecisionKind) -> LocalBestResponse {
        let decisions = gains.iter().flatten().count() as u64;
        let values: Vec<f64> = gains.iter().map(|gain| gain.unwrap_or(0.0)).collect();
        let n = values.len().max(1) as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        LocalBestResponse {
            gain: mean,
            interval: 1.96 * (variance / n).sqrt(),
            deals: gains.len() as u64,
            decisions,
            kind,
        }
    }
}

impl std::fmt::Display for LocalBestResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:+.3} ± {:.3} points per hand ({} deals, {} {})",
            self.gain,
            self.interval,
            self.deals,
            self.decisions,
            self.kind.plural()
        )
    }
}

/// The policy's probabilities at `state` in the canonical action order it
/// returns (a `Copy` list: rollouts call this at every decision, so it
/// allocates nothing); `None` for a key the policy never trained.
fn policy_probabilities(
    policy: &PolicyFile,
    state: &GameState,
    out: &mut [f64; Action::MAX_LEGAL],
) -> Option<ActionList> {
    let decision = policy.decision(state)?;
    let width = decision.actions.len();
    policy
        .probabilities(decision.key.0, &mut out[..width])
        .then_some(decision.actions)
}

/// An action drawn from the policy (uniform on an untrained key).
fn policy_action(policy: &PolicyFile, state: &GameState, rng: &mut SmallRng) -> Action {
    let legal = state.legal_actions();
    if legal.len() == 1 {
        return legal[0];
    }
    let mut probabilities = [0.0f64; Action::MAX_LEGAL];
    let Some(order) = policy_probabilities(policy, state, &mut probabilities) else {
        return legal[rng.random_range(0..legal.len())];
    };
    let mut draw = rng.random::<f64>();
    for (action, &p) in order.iter().zip(&probabilities) {
        if draw < p {
            return *action;
        }
        draw -= p;
    }
    order.iter().last().copied().unwrap_or(legal[0])
}

/// How likely the policy makes the actor at `state` take `action` (uniform
/// on an untrained key; 1 at a forced move).
fn probability_of(policy: &PolicyFile, state: &GameState, action: Action) -> f64 {
    let legal = state.legal_actions();
    if legal.len() == 1 {
        return 1.0;
    }
    let mut probabilities = [0.0f64; Action::MAX_LEGAL];
    match policy_probabilities(policy, state, &mut probabilities) {
        Some(order) => order
            .iter()
            .position(|&candidate| candidate == action)
            .map_or(0.0, |index| probabilities[index]),
        None => 1.0 / legal.len() as f64,
    }
}

/// One gain per deal, on rayon's current pool: deal `index` draws from its
/// own stream (`seed ^ index * stream`), and the seats take turns as the
/// responder, so the same seed gives the same estimate on any number of
/// threads.
fn over_deals(
    deals: u64,
    seed: u64,
    stream: u64,
    kind: DecisionKind,
    gain: impl Fn(Seat, &mut SmallRng) -> Option<f64> + Sync,
) -> LocalBestResponse {
    let gains: Vec<Option<f64>> = (0..deals)
        .into_par_iter()
        .map(|index| {
            let mut rng = SmallRng::seed_from_u64(seed ^ index.wrapping_mul(stream));
            gain(Seat::from_index((index % 4) as u8), &mut rng)
        })
        .collect();
    LocalBestResponse::from_gains(&gains, kind)
}

/// The value of the policy's own mixed choice at `state`, given each legal
/// action's value (`values[i]` for `legal[i]`); an untrained key mixes
/// uniformly.
fn policy_mix_value(
    policy: &PolicyFile,
    state: &GameState,
    legal: &ActionList,
    values: &[f64],
) -> f64 {
    let mut probabilities = [0.0f64; Action::MAX_LEGAL];
    match policy_probabilities(policy, state, &mut probabilities) {
        Some(order) => order
            .iter()
            .zip(&probabilities)
            .map(|(action, p)| {
                let index = legal.iter().position(|a| a == action).unwrap_or(0);
                p * values[index]
            })
            .sum(),
        None => values.iter().sum::<f64>() / values.len() as f64,
    }
}

/// A policy file of `phase` that trained nothing: every key is unseen, so
/// it acts uniformly at random, the clearest case a best response must
/// exploit.
#[cfg(test)]
fn untrained_policy(phase: crate::phase::Phase) -> PolicyFile {
    use crate::meta::PolicyMeta;
    use crate::phase::RECORD_WIDTH;
    use crate::policy_file::export;
    use euchre_game::engine::rules::Rules;

    let path = std::env::temp_dir().join(format!(
        "euchre-bots-lbr-untrained-{phase:?}-{}.bin",
        std::process::id()
    ));
    let meta = PolicyMeta::new(phase, Rules::default(), 0);
    export(
        &store::MemoryTable::new(),
        &meta,
        RECORD_WIDTH,
        None,
        &path,
        &mut |_, _| {},
    )
    .unwrap();
    let policy = PolicyFile::load(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    policy
}
