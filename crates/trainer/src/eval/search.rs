//! Search on top of a trained blueprint: PIMC whose worlds are weighted by
//! what the bids and plays so far reveal.
//!
//! PIMC deals the hidden cards uniformly: a pass, an order or a lone bid
//! tells it nothing. Yet a seat that passed a jack-high upcard rarely holds
//! both bowers, and the seat that ordered holds trumps. The blueprint knows
//! how likely each hand is to make each bid, so (after Rebstock, Solinas,
//! Buro and Sturtevant 2019, "Policy Based Inference in Trick-Taking Card
//! Games") each sampled world is weighted by the probability that the
//! blueprint, holding that world's cards, takes the actions the other three
//! seats were seen to take, and the dealer's face-down discard counts as one
//! of those actions.
//!
//! **At each card play:** deal `CANDIDATES_PER_WORLD × worlds` candidate
//! worlds consistent with what the actor saw (the PIMC constraints: cards
//! played, voids shown, the picked-up upcard), weight each, draw `worlds`
//! of them in proportion to weight (systematic resampling: solving a world
//! twice costs nothing extra, so duplicates are solved once and counted
//! twice), solve each open-handed and play the card with the largest
//! weighted points for the actor's side.
//!
//! **Card plays are evidence too.** The blueprint is a bidding policy and
//! says nothing about cards, so the other seats' plays are weighed by a
//! model of a strong card player instead: a seat plays a card of the best
//! open-hand value for its side in the world (ties alike), mixed with
//! uniform ([`PLAY_TRUST`]). A partner who ducked holds no winner there; a
//! defender who threw a low trump on a trick its side could not lose holds
//! no high one. Solving every past play of every candidate would cost more
//! than the search, so this weight is applied after resampling, to the
//! distinct worlds drawn, as an importance weight on each world's points.
//!
//! **Bids and the discard** are the blueprint's most likely action, where
//! it trained one (the argmax bidder beats sampling it; see the README),
//! unless the bot searches its bids too ([`Bids::Search`]): then each bid
//! is valued like a card, over the same weighted worlds, by finishing the
//! bidding with the blueprint's most likely action at every seat and
//! solving the contract open-handed. That is one step of policy
//! improvement on the blueprint: a key visited a few dozen times in
//! training keeps the noise of those visits, and two hundred worlds valued
//! now do not. Where the blueprint is sure ([`CONFIDENT`]) it is played
//! without search. Measured choices, and what they did, are in the README.
//!
//! **Trust.** The other seats are not the blueprint: in a match they may be
//! PIMC or a person. A world the blueprint calls impossible must stay
//! possible, so each observed action's probability is mixed with uniform
//! ([`TRUST`]).

use std::sync::atomic::{AtomicU64, Ordering};

use euchre_game::engine::action::Action;
use euchre_game::engine::state::{GameState, Stage};
use euchre_game::keys::{Decision, decision};
use rand::RngExt;
use rand::rngs::SmallRng;

use crate::eval::bot::Bot;
use crate::eval::heuristic::Heuristic;
use crate::eval::pimc::{
    Hidden, add_card_points, best_of, card_points, points_after_bidding, replay, sample_hidden,
};
use crate::eval::policy::PolicyBot;
use crate::eval::seen::Seen;
use crate::leaves::CardPlay;
use crate::policy_file::most_likely;

/// Candidate worlds dealt per world solved. More candidates give the
/// resampling more worlds to choose among when the bids are telling;
/// dealing and weighting one costs a few microseconds, solving one tens.
pub const CANDIDATES_PER_WORLD: usize = 4;

/// The weight an observed action gets is `TRUST × p + (1 − TRUST) / n`
/// for the blueprint's probability `p` among `n` choices.
pub const TRUST: f64 = 0.9;

/// The weight an observed card play gets is `PLAY_TRUST × q + (1 −
/// PLAY_TRUST) / n` for `n` playable cards, where `q` is `1/k` when the
/// card is one of the `k` of best open-hand value for its side in the
/// world, else 0. Measured against PIMC-200 at 0.5 and 0.8, alike within
/// noise (README).
pub const PLAY_TRUST: f64 = 0.5;

/// A bid the blueprint gives at least this probability is played without
/// search when the bot searches its bids.
pub const CONFIDENT: f64 = 0.8;

/// Who chooses the bot's bids and discard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bids {
    /// The blueprint's most likely action.
    Blueprint,
    /// Weighted open-hand search over the blueprint's continuation, where
    /// the blueprint is not [`CONFIDENT`].
    Search,
}

/// A world consistent with what the actor saw: the guess at the hidden
/// cards it was dealt from, the state it replays to, and its inference
/// weight from the bids (unnormalised).
#[derive(Clone, Copy, Debug)]
pub struct Candidate {
    pub hidden: Hidden,
    pub world: GameState,
    pub weight: f64,
}

pub struct SearchBot {
    blueprint: PolicyBot,
    worlds: usize,
    bids: Bids,
    label: String,
    counts: Counts,
}

impl std::fmt::Debug for SearchBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchBot")
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Counts {
    searched: AtomicU64,
    /// Σ over searched decisions of the resampled worlds' distinct count.
    distinct_worlds: AtomicU64,
    /// Σ of the effective sample size (Σw)²/Σw² of the candidates, ×1000.
    effective_milli: AtomicU64,
    /// Σ of the effective sample size of the drawn worlds once the card
    /// plays are weighed too, ×1000.
    play_effective_milli: AtomicU64,
    candidates: AtomicU64,
    no_world: AtomicU64,
    /// Bids (and discards) valued by search, and how many of them chose
    /// other than the blueprint's most likely action.
    bids_searched: AtomicU64,
    bids_changed: AtomicU64,
}

impl SearchBot {
    /// `blueprint` bids and supplies the inference; `label` names the file.
    pub fn new(blueprint: PolicyBot, worlds: usize, bids: Bids, label: String) -> SearchBot {
        SearchBot {
            blueprint,
            worlds,
            bids,
            label,
            counts: Counts::default(),
        }
    }

    /// The rules the blueprint was trained under.
    pub fn rules(&self) -> euchre_game::engine::rules::Rules {
        self.blueprint.rules()
    }

    /// The blueprint's probability for each of `decision`'s actions, in its
    /// canonical order, and whether the blueprint trained the key. A key it
    /// never trained reads as uniform, which is what its untrained average
    /// strategy is.
    fn strategy(&self, decision: &Decision) -> ([f64; Action::MAX_LEGAL], bool) {
        let width = decision.actions.len();
        let mut probabilities = [0.0f64; Action::MAX_LEGAL];
        let trained = self
            .blueprint
            .file()
            .probabilities(decision.key.0, &mut probabilities[..width]);
        (probabilities, trained)
    }

    /// How likely the blueprint makes `action` in `state`, mixed with
    /// uniform; 1 where the blueprint has nothing to say (a forced move or a
    /// decision past its horizon).
    fn likelihood(&self, state: &GameState, action: Action) -> f64 {
        if !self.blueprint.trained_here(&Seen::new(state, &[])) {
            return 1.0;
        }
        let Some(decision) = decision(state) else {
            return 1.0;
        };
        let width = decision.actions.len();
        if width < 2 {
            return 1.0;
        }
        // Untrained keys read as uniform: every world at this point of the
        // history then has the same number of choices here, so trained and
        // untrained keys weigh on one scale.
        let (probabilities, _) = self.strategy(&decision);
        let Some(index) = decision.actions.iter().position(|&a| a == action) else {
            return 1.0;
        };
        TRUST * probabilities[index] + (1.0 - TRUST) / width as f64
    }

    /// `count` worlds consistent with what the actor saw, dealt as PIMC
    /// deals them, each with its inference weight (unnormalised).
    pub fn weighted_worlds(
        &self,
        seen: &Seen<'_>,
        count: usize,
        rng: &mut SmallRng,
    ) -> Vec<Candidate> {
        let actor = seen.actor();
        let mut worlds = Vec::with_capacity(count);
        for _ in 0..count {
            let Some(hidden) = sample_hidden(seen, rng) else {
                continue;
            };
            let mut weight = 1.0;
            let world = replay(seen, &hidden, |state, seat, action| {
                if seat != actor {
                    weight *= self.likelihood(state, action);
                }
            });
            if let Some(world) = world {
                worlds.push(Candidate {
                    hidden,
                    world,
                    weight,
                });
            }
        }
        worlds
    }

    /// How likely the other seats' card plays so far are in the world
    /// `hidden` deals, under the strong-player model of [`PLAY_TRUST`].
    pub fn play_likelihood(&self, seen: &Seen<'_>, hidden: &Hidden) -> f64 {
        let actor = seen.actor();
        let mut likelihood = 1.0;
        replay(seen, hidden, |state, seat, action| {
            let Action::Play(card) = action else {
                return;
            };
            if seat == actor {
                return;
            }
            let points = card_points(state);
            if points.len() < 2 {
                return;
            }
            let best = points.iter().map(|&(_, p)| p).max().unwrap_or(0);
            let tied = points.iter().filter(|&&(_, p)| p == best).count();
            let played_best = points.iter().any(|&(c, p)| c == card && p == best);
            let model = if played_best { 1.0 / tied as f64 } else { 0.0 };
            likelihood *= PLAY_TRUST * model + (1.0 - PLAY_TRUST) / points.len() as f64;
        });
        likelihood
    }

    /// The blueprint's most likely action at `state` (the heuristic's where
    /// it trained no such key), as every seat is assumed to bid after a
    /// searched bid.
    fn continuation(&self, state: &GameState, rng: &mut SmallRng) -> Action {
        let legal = state.legal_actions();
        if legal.len() == 1 {
            return legal[0];
        }
        decision(state)
            .and_then(|decision| {
                let (probabilities, trained) = self.strategy(&decision);
                let width = decision.actions.len();
                trained.then(|| decision.actions[most_likely(&probabilities[..width])])
            })
            .unwrap_or_else(|| Heuristic.act(&Seen::new(state, &[]), rng))
    }

    /// The points `team` scores after `action` in `world`, with the bidding
    /// finished by [`Self::continuation`] and the cards played open-handed.
    fn bid_points(&self, mut world: GameState, action: Action, rng: &mut SmallRng) -> i64 {
        let team = world.to_act().map(|seat| seat.team());
        world.apply(action);
        while !matches!(world.stage(), Stage::Play | Stage::Finished) {
            let next = self.continuation(&world, rng);
            world.apply(next);
        }
        let Some(team) = team else { return 0 };
        i64::from(points_after_bidding(&world, team))
    }

    /// The action with the best weighted open-hand value: each card by
    /// solving the world after it, each bid by [`Self::bid_points`].
    fn search(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        let candidates = self.weighted_worlds(seen, self.worlds * CANDIDATES_PER_WORLD, rng);
        let total: f64 = candidates.iter().map(|candidate| candidate.weight).sum();
        if candidates.is_empty() || total <= 0.0 {
            self.counts.no_world.fetch_add(1, Ordering::Relaxed);
            return Heuristic.act(seen, rng);
        }
        let squares: f64 = candidates.iter().map(|c| c.weight * c.weight).sum();
        let playing = seen.stage() == Stage::Play;
        if playing {
            self.counts.searched.fetch_add(1, Ordering::Relaxed);
            self.counts
                .candidates
                .fetch_add(candidates.len() as u64, Ordering::Relaxed);
            self.counts
                .effective_milli
                .fetch_add((1000.0 * total * total / squares) as u64, Ordering::Relaxed);
        }

        // Systematic resampling: `worlds` evenly spaced points over the
        // cumulative weights, from one random offset.
        let step = total / self.worlds as f64;
        let mut point = rng.random::<f64>() * step;
        let mut cumulative = 0.0;
        let mut totals = vec![0.0; legal.len()];
        let mut distinct = 0;
        let mut drawn = 0;
        // Σ and Σ² of the drawn worlds' play weights, copies counted.
        let (mut play_sum, mut play_squares) = (0.0, 0.0);
        for Candidate {
            hidden,
            world,
            weight,
        } in &candidates
        {
            cumulative += weight;
            let mut copies = 0u32;
            while point < cumulative && drawn < self.worlds {
                copies += 1;
                drawn += 1;
                point += step;
            }
            if copies == 0 {
                continue;
            }
            distinct += 1;
            let copies = f64::from(copies);
            if playing {
                let play_weight = self.play_likelihood(seen, hidden);
                play_sum += copies * play_weight;
                play_squares += copies * play_weight * play_weight;
                add_card_points(world, legal.as_slice(), copies * play_weight, &mut totals);
            } else {
                for (total, &action) in totals.iter_mut().zip(legal.iter()) {
                    *total += copies * self.bid_points(*world, action, rng) as f64;
                }
            }
        }
        if playing {
            self.counts
                .distinct_worlds
                .fetch_add(distinct, Ordering::Relaxed);
            if play_squares > 0.0 {
                self.counts.play_effective_milli.fetch_add(
                    (1000.0 * play_sum * play_sum / play_squares) as u64,
                    Ordering::Relaxed,
                );
            }
        }
        legal[best_of(&totals)]
    }

    /// A bid or discard: the blueprint's, or searched (see [`Bids`]).
    fn bid(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        if self.bids == Bids::Blueprint {
            return self.blueprint.act(seen, rng);
        }
        // The blueprint's most likely action, where it trained the key.
        let blueprint_choice = seen.decision().and_then(|decision| {
            let (probabilities, trained) = self.strategy(&decision);
            let probabilities = &probabilities[..decision.actions.len()];
            trained.then(|| {
                let best = most_likely(probabilities);
                (decision.actions[best], probabilities[best])
            })
        });
        if blueprint_choice.is_some_and(|(_, probability)| probability >= CONFIDENT) {
            return self.blueprint.act(seen, rng);
        }
        let chosen = self.search(seen, rng);
        self.counts.bids_searched.fetch_add(1, Ordering::Relaxed);
        if blueprint_choice.is_some_and(|(action, _)| action != chosen) {
            self.counts.bids_changed.fetch_add(1, Ordering::Relaxed);
        }
        chosen
    }
}

impl Bot for SearchBot {
    fn name(&self) -> String {
        let kind = match self.bids {
            Bids::Blueprint => "search",
            Bids::Search => "search-bids",
        };
        format!("{kind}:{}:{}", self.worlds, self.label)
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        if legal.len() == 1 {
            return legal[0];
        }
        if seen.stage() == Stage::Play {
            self.search(seen, rng)
        } else {
            self.bid(seen, rng)
        }
    }

    fn report(&self) -> Option<String> {
        let searched = self.counts.searched.load(Ordering::Relaxed);
        let per = |total: u64| total as f64 / searched.max(1) as f64;
        let mut report = format!(
            "{}: {searched} card plays searched; per search {:.0} candidate worlds with an effective sample size of {:.0}, {:.0} distinct worlds solved, {:.0} effective once the card plays are weighed",
            self.name(),
            per(self.counts.candidates.load(Ordering::Relaxed)),
            per(self.counts.effective_milli.load(Ordering::Relaxed)) / 1000.0,
            per(self.counts.distinct_worlds.load(Ordering::Relaxed)),
            per(self.counts.play_effective_milli.load(Ordering::Relaxed)) / 1000.0,
        );
        if self.bids == Bids::Search {
            let searched = self.counts.bids_searched.load(Ordering::Relaxed);
            let changed = self.counts.bids_changed.load(Ordering::Relaxed);
            report.push_str(&format!(
                "; {searched} bids searched (the blueprint was not sure), {changed} of them unlike its most likely bid"
            ));
        }
        let no_world = self.counts.no_world.load(Ordering::Relaxed);
        if no_world > 0 {
            report.push_str(&format!(
                "; {no_world} found no consistent world and asked the heuristic"
            ));
        }
        if let Some(blueprint) = self.blueprint.report() {
            report = format!("{report}\n  {blueprint}");
        }
        Some(report)
    }

    /// Card play by open-hand search, the play open-hand leaves assume.
    fn card_play(&self) -> Option<CardPlay> {
        Some(CardPlay::OpenHandSearch)
    }
}
