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
//! **BidsBy and the discard** are the blueprint's most likely action, where
//! it trained one (the argmax bidder beats sampling it;
//! `docs/experiments/bidding-hour.md`),
//! unless the bot searches its bids too ([`BidsBy::Search`]): then each bid
//! is valued like a card, over the same weighted worlds, by finishing the
//! bidding with the blueprint's most likely action at every seat and
//! solving the contract open-handed. That is one step of policy
//! improvement on the blueprint: a key visited a few dozen times in
//! training keeps the noise of those visits, and two hundred worlds valued
//! now do not. Where the blueprint is sure ([`CONFIDENT`]) it is played
//! without search. Measured choices, and what they did, are in
//! `docs/experiments/search-bids.md`.
//!
//! **Values** ([`WorldValues`]). Open-hand solves assume every seat plays
//! perfectly, seeing every card: PIMC's strategy fusion, which credits the
//! searcher with plays it could not make without seeing the hidden hands.
//! A full-play table plays as a player who cannot see them, so a world can
//! instead be valued by playing its rest out with the table at every seat:
//! one step of policy improvement on the table (a rollout). The search can
//! use either or both, and can stop at a time budget per decision.
//!
//! **Look-ahead** ([`SearchOptions::ahead`]). Even with the table's values
//! an open-hand solve lets the actor choose its *next* card knowing the
//! world, so a card that needs a guess later is credited with always
//! guessing right. With look-ahead each candidate card is played in every
//! world, the other seats answer with the table's card (players who do not
//! see the hands either), and at the actor's next turn one card is chosen
//! per history the actor would have seen, for all the worlds that share it,
//! before the world's leaves are valued as [`WorldValues`] says: the
//! perfect-information leaf postponed by one turn (after EPIMC, 2024).
//!
//! **Continuations** ([`SearchOptions::continuations`]). A searched bid is
//! valued as if the auction went on by the blueprint's most likely bids:
//! the searcher assumes one fixed way the other side bids, which a bolder
//! or a warier bidder does not follow. After Pluribus's depth-limited
//! search (Brown and Sandholm 2019), where at the depth limit each player
//! chooses among a few continuation strategies, the other side may instead
//! finish the auction in one of several [`Continuation`]s (the blueprint's
//! bids, or copies that bid on weaker or only on stronger hands), chosen
//! after seeing the bid (it is public) but not the world (it cannot see the
//! hands), and so can the searcher's partner: each bid is worth its
//! weighted value when the partner commits to the way of bidding on whose
//! worst answer is best and the other side answers with that worst, and
//! the bid with the best such value is made.
//!
//! **Trust.** The other seats are not the blueprint: in a match they may be
//! PIMC or a person. A world the blueprint calls impossible must stay
//! possible, so each observed action's probability is mixed with uniform
//! ([`TRUST_PERCENT`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use euchre_game::engine::action::Action;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{GameState, Outcome, Stage};
use euchre_game::game::GameScore;
use euchre_game::keys::Decision;
use rand::RngExt;
use rand::rngs::SmallRng;

use crate::bot::{ActionValue, Bot, Tallies};
use crate::bots::heuristic::Heuristic;
use crate::bots::pimc::{card_outcomes, outcome_after_bidding, replay, sample_hidden};
use crate::bots::policy::PolicyBot;
use crate::card_play_table::{play_out_outcome, table_card};
use crate::meta::CardPlay;
use crate::phase::Phase;
use crate::policy_file::{PolicyFile, most_likely};
use crate::seen::Seen;
use crate::valuation::{Valuation, Valuer};

mod options;
pub use options::{
    BidsBy, CONFIDENT, Continuation, Lead, SearchOptions, TRUST_PERCENT, WorldValues,
};
use options::{ByContinuation, Styles};

/// Candidate worlds dealt per world solved. More candidates give the
/// resampling more worlds to choose among when the bids are telling;
/// dealing and weighting one costs a few microseconds, solving one tens.
pub const CANDIDATES_PER_WORLD: usize = 4;

pub struct SearchBot {
    /// Shared with the bot's twin in the other unit ([`Bot::valuing`]).
    blueprint: Arc<PolicyBot>,
    options: SearchOptions,
    label: String,
    counts: Counts,
    /// The bidding blueprint that reads the other seats' bids, with
    /// [`SearchOptions::infer_bids`].
    bid_model: Option<Arc<PolicyFile>>,
    /// Points, or with [`SearchOptions::game`] the chance of winning.
    valuation: Valuation,
}

impl fmt::Debug for SearchBot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
    candidates: AtomicU64,
    no_world: AtomicU64,
    /// BidsBy (and discards) valued by search, and how many of them chose
    /// other than the blueprint's most likely action.
    bids_searched: AtomicU64,
    bids_changed: AtomicU64,
    /// Decisions the time budget cut short.
    out_of_time: AtomicU64,
}

/// Why a search cannot be built on a blueprint.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    #[error(
        "',{values}' plays cards with a full-play table, but {label} is a {phase} policy; name a full-play run's export (`trainer --phase full-play`, then `trainer export`), or drop ',{values}'"
    )]
    PlayoutNeedsTable {
        values: &'static str,
        label: String,
        phase: Phase,
    },
    #[error(
        "',infer-bids' reads the bids by the bidding blueprint a full-play table was trained under, but {label} names none (its bids were trained with its card play); drop ',infer-bids'"
    )]
    NoBiddingBlueprint { label: String },
    #[error("',infer-bids': {0}")]
    BiddingBlueprint(#[from] Box<crate::pinned::PinnedError>),
}

impl SearchBot {
    /// `blueprint` bids and supplies the inference (and, for playout
    /// values, the card play); `label` names the file.
    pub fn new(
        blueprint: PolicyBot,
        options: SearchOptions,
        label: String,
    ) -> Result<SearchBot, SearchError> {
        let phase = blueprint.file().meta.recipe.phase;
        let needs_table = if options.ahead {
            Some("ahead")
        } else if options.lead == Lead::ByTable {
            Some("lead=table")
        } else {
            options.values.needs_table().then(|| options.values.word())
        };
        if let Some(values) = needs_table
            && phase != Phase::FullPlay
        {
            return Err(SearchError::PlayoutNeedsTable {
                values,
                label,
                phase,
            });
        }
        let bid_model = if options.infer_bids {
            let source = blueprint
                .file()
                .meta
                .recipe
                .bidding_from
                .clone()
                .ok_or_else(|| SearchError::NoBiddingBlueprint {
                    label: label.clone(),
                })?;
            let rules = blueprint.rules();
            let pinned = crate::pinned::Pinned::reopen(
                &source.path,
                source.checksum,
                rules,
                "table's bidding blueprint",
            )
            .map_err(Box::new)?;
            Some(Arc::new(pinned.policy))
        } else {
            None
        };
        Ok(SearchBot {
            blueprint: Arc::new(blueprint),
            options,
            label,
            counts: Counts::default(),
            bid_model,
            valuation: if options.game {
                Valuation::Game(crate::game_outcomes::reference())
            } else {
                Valuation::Points
            },
        })
    }

    /// How `world`, where the bidding is over, ends when played on as
    /// [`WorldValues`] says.
    fn ends_after_bidding(&self, world: &GameState) -> Ends {
        let values = self.options.values;
        Ends {
            open_hand: values
                .solves_open_hand()
                .then(|| outcome_after_bidding(world)),
            played_out: values
                .needs_table()
                .then(|| self.played_out(world))
                .flatten(),
        }
    }

    /// `team`'s value of `world`, where the bidding is over, played on as
    /// [`WorldValues`] says and each ending valued by `valuer`.
    fn value_after_bidding(&self, world: &GameState, team: Team, valuer: &Valuer) -> i64 {
        self.ends_after_bidding(world).value(valuer, team)
    }

    /// How the hand from `state` ends played out by the table at every
    /// seat.
    fn played_out(&self, state: &GameState) -> Option<Outcome> {
        play_out_outcome(self.blueprint.file(), state)
    }

    /// How the hand ends after each `legal` card in `world`, played on as
    /// [`WorldValues`] says, in the order of `legal`.
    fn card_ends(&self, world: &GameState, team: Team, legal: &[Action]) -> Vec<Ends> {
        let open_hand = self
            .options
            .values
            .solves_open_hand()
            .then(|| card_outcomes(world, team, legal));
        legal
            .iter()
            .enumerate()
            .map(|(index, &action)| Ends {
                open_hand: open_hand.as_ref().map(|outcomes| outcomes[index]),
                played_out: self
                    .options
                    .values
                    .needs_table()
                    .then(|| {
                        let mut after = *world;
                        after.apply(action);
                        self.played_out(&after)
                    })
                    .flatten(),
            })
            .collect()
    }

    /// `team`'s value after each `legal` card in `world`, played on as
    /// [`WorldValues`] says, in the order of `legal`.
    fn card_values(
        &self,
        world: &GameState,
        team: Team,
        legal: &[Action],
        valuer: &Valuer,
    ) -> Vec<i64> {
        self.card_ends(world, team, legal)
            .iter()
            .map(|ends| ends.value(valuer, team))
            .collect()
    }

    /// The rules the blueprint was trained under.
    pub fn rules(&self) -> euchre_game::engine::rules::Rules {
        self.blueprint.rules()
    }

    /// The policy whose bids the search starts from: the bidding blueprint
    /// with [`SearchOptions::infer_bids`] (graded, where a table's exported
    /// bids are all sure), else the blueprint itself.
    fn bids_policy(&self) -> &PolicyFile {
        self.bid_model.as_deref().unwrap_or(self.blueprint.file())
    }

    /// [`Self::bids_policy`]'s probability for each of `decision`'s
    /// actions, in its canonical order, and whether it trained the key. A
    /// key it never trained reads as uniform, which is what its untrained
    /// average strategy is.
    fn bid_strategy(&self, decision: &Decision) -> ([f64; Action::MAX_LEGAL], bool) {
        strategy_of(self.bids_policy(), decision)
    }

    /// How likely the blueprint makes `action` in `state`, mixed with
    /// uniform; 1 where the blueprint has nothing to say (a forced move or a
    /// decision past its horizon).
    fn likelihood(&self, state: &GameState, action: Action) -> f64 {
        let model = match &self.bid_model {
            Some(bids) if state.stage() != Stage::Play => bids,
            _ => {
                if !self.blueprint.trained_here(&Seen::new(state, &[])) {
                    return 1.0;
                }
                self.blueprint.file()
            }
        };
        let Some(decision) = model.decision(state) else {
            return 1.0;
        };
        let width = decision.actions.len();
        if width < 2 {
            return 1.0;
        }
        // Untrained keys read as uniform: every world at this point of the
        // history then has the same number of choices here, so trained and
        // untrained keys weigh on one scale.
        let (probabilities, _) = strategy_of(model, &decision);
        let Some(index) = decision.actions.iter().position(|&a| a == action) else {
            return 1.0;
        };
        let trust = f64::from(self.options.trust_percent) / 100.0;
        trust * probabilities[index] + (1.0 - trust) / width as f64
    }

    /// `count` worlds consistent with what the actor saw, dealt as PIMC
    /// deals them, each with its inference weight (unnormalised).
    pub fn weighted_worlds(
        &self,
        seen: &Seen<'_>,
        count: usize,
        rng: &mut SmallRng,
    ) -> Vec<(GameState, f64)> {
        let actor = seen.actor();
        let mut worlds = Vec::with_capacity(count);
        for _ in 0..count {
            if crate::stop::requested() {
                break;
            }
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
                worlds.push((world, weight));
            }
        }
        worlds
    }

    /// The action at `state` as every seat is assumed to bid after a
    /// searched bid by `searcher`: [`Self::bids_policy`]'s, as `styles`
    /// says for the searcher's partner and the other side and its most
    /// likely for the searcher (the heuristic's action where the policy
    /// trained no such key).
    fn continuation(
        &self,
        state: &GameState,
        searcher: Seat,
        styles: Styles,
        rng: &mut SmallRng,
    ) -> Action {
        let legal = state.legal_actions();
        if legal.len() == 1 {
            return legal[0];
        }
        let style = match state.to_act() {
            Some(seat) if seat == searcher.partner() => styles.partner,
            Some(seat) if seat.team() != searcher.team() => styles.other_side,
            _ => Continuation::Blueprint,
        };
        self.bids_policy()
            .decision(state)
            .and_then(|decision| {
                let (probabilities, trained) = self.bid_strategy(&decision);
                let width = decision.actions.len();
                trained.then(|| style.choose(decision.actions.as_slice(), &probabilities[..width]))
            })
            .unwrap_or_else(|| Heuristic.act(&Seen::new(state, &[]), rng))
    }

    /// The state after `action` in `world` with the bidding finished by
    /// [`Self::continuation`] in `styles`.
    fn auction_after(
        &self,
        mut world: GameState,
        action: Action,
        styles: Styles,
        rng: &mut SmallRng,
    ) -> GameState {
        let Some(searcher) = world.to_act() else {
            return world;
        };
        world.apply(action);
        while !matches!(world.stage(), Stage::Play | Stage::Finished) {
            let next = self.continuation(&world, searcher, styles, rng);
            world.apply(next);
        }
        world
    }

    /// How the hand ends after the bidder's `action` in `world`, with the
    /// bidding finished by the blueprint's most likely bids and the cards
    /// played as [`WorldValues`] says.
    fn bid_ends(&self, world: GameState, action: Action, rng: &mut SmallRng) -> Ends {
        if world.to_act().is_none() {
            return Ends::NONE;
        }
        let after = self.auction_after(world, action, Styles::BLUEPRINT, rng);
        self.ends_after_bidding(&after)
    }

    /// Each of `legal`'s points in `world` for every pair of
    /// [`Continuation`]s (`[partner][other side]`, in
    /// [`Continuation::ALL`]'s order). Continuations that finish the
    /// auction alike share one valuation.
    fn bid_values_by_continuation(
        &self,
        world: &GameState,
        legal: &[Action],
        valuer: &Valuer,
        rng: &mut SmallRng,
    ) -> Vec<ByContinuation> {
        let Some(team) = world.to_act().map(|seat| seat.team()) else {
            return vec![[[0; 3]; 3]; legal.len()];
        };
        legal
            .iter()
            .map(|&action| {
                let mut finished: Vec<(GameState, i64)> = Vec::with_capacity(9);
                let mut values = [[0; 3]; 3];
                for (row, partner) in values.iter_mut().zip(Continuation::ALL) {
                    for (value, other_side) in row.iter_mut().zip(Continuation::ALL) {
                        let styles = Styles {
                            partner,
                            other_side,
                        };
                        let after = self.auction_after(*world, action, styles, rng);
                        *value = match finished.iter().find(|(done, _)| *done == after) {
                            Some(&(_, known)) => known,
                            None => {
                                let value = self.value_after_bidding(&after, team, valuer);
                                finished.push((after, value));
                                value
                            }
                        };
                    }
                }
                values
            })
            .collect()
    }

    /// The action with the best weighted value, or the heuristic's where
    /// no world fits what the actor saw.
    fn search(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        match self.search_tallies(seen, rng) {
            Some((tallies, _)) => seen.legal()[tallies.best_index()],
            None => Heuristic.act(seen, rng),
        }
    }

    /// Each legal action's weighted value: each card by valuing the world
    /// after it, each bid by how the hand ends after it ([`Self::bid_ends`]);
    /// and the scale that turns a value into points or a chance. `None`
    /// when no world fits what the actor saw.
    fn search_tallies(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Option<(Tallies, f64)> {
        let [tallies] =
            self.search_tallies_priced(seen, &[Valuer::new(&self.valuation, seen.score())], rng)?;
        Some(tallies)
    }

    /// [`Self::search_tallies`] with each world's endings priced by each of
    /// `valuers`: the worlds, and the solves and playouts of the plain
    /// search, are the same for all, so each tally is what that valuer
    /// alone would have given. Look-ahead and continuations choose by
    /// value, so each valuer makes its own choices there, from the same
    /// random state.
    fn search_tallies_priced<const UNITS: usize>(
        &self,
        seen: &Seen<'_>,
        valuers: &[Valuer; UNITS],
        rng: &mut SmallRng,
    ) -> Option<[(Tallies, f64); UNITS]> {
        let started = Instant::now();
        let playing = seen.stage() == Stage::Play;
        let worlds = self.options.worlds_for(seen);
        let legal = seen.legal();
        let actor = seen.actor();
        let candidates = self.weighted_worlds(seen, worlds * CANDIDATES_PER_WORLD, rng);
        let total: f64 = candidates.iter().map(|(_, weight)| weight).sum();
        if candidates.is_empty() || total <= 0.0 {
            self.counts.no_world.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        let squares: f64 = candidates.iter().map(|(_, w)| w * w).sum();
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
        let step = total / worlds as f64;
        let mut point = rng.random::<f64>() * step;
        let mut cumulative = 0.0;
        let team = actor.team();
        let mut tallies: [Tallies; UNITS] = std::array::from_fn(|_| Tallies::new(legal.len()));
        let mut distinct = 0;
        let mut drawn = 0;
        // With look-ahead, each distinct world's branches and copies, to be
        // settled once every world is in.
        let mut looked_ahead: [Vec<(i64, Vec<Branch>)>; UNITS] =
            std::array::from_fn(|_| Vec::new());
        // With continuations, each distinct world's copies and each bid's
        // values under each continuation.
        let mut by_continuation: [Vec<(i64, Vec<ByContinuation>)>; UNITS] =
            std::array::from_fn(|_| Vec::new());
        for (world, weight) in &candidates {
            if crate::stop::requested() {
                break;
            }
            // The candidates were dealt independently, so the ones valued
            // before the budget ran out are a fair sample of them all.
            if distinct > 0
                && self
                    .options
                    .budget
                    .is_some_and(|budget| started.elapsed() >= budget)
            {
                self.counts.out_of_time.fetch_add(1, Ordering::Relaxed);
                break;
            }
            cumulative += weight;
            let mut copies = 0;
            while point < cumulative && drawn < worlds {
                copies += 1;
                drawn += 1;
                point += step;
            }
            if copies == 0 {
                continue;
            }
            distinct += 1;
            if playing && self.options.ahead {
                for (unit, valuer) in valuers.iter().enumerate() {
                    looked_ahead[unit]
                        .push((copies, self.branches(world, legal.as_slice(), valuer)));
                }
                continue;
            }
            if !playing && self.options.continuations {
                let from = rng.clone();
                for (unit, valuer) in valuers.iter().enumerate() {
                    *rng = from.clone();
                    by_continuation[unit].push((
                        copies,
                        self.bid_values_by_continuation(world, legal.as_slice(), valuer, rng),
                    ));
                }
                continue;
            }
            let ends = if playing {
                self.card_ends(world, team, legal.as_slice())
            } else {
                legal
                    .iter()
                    .map(|&action| self.bid_ends(*world, action, rng))
                    .collect()
            };
            for (tallies, valuer) in tallies.iter_mut().zip(valuers) {
                tallies.add(
                    ends.iter().map(|end| end.value(valuer, team)).collect(),
                    copies,
                );
            }
        }
        if playing {
            self.counts
                .distinct_worlds
                .fetch_add(distinct, Ordering::Relaxed);
        }
        for unit in 0..UNITS {
            if !by_continuation[unit].is_empty() {
                tallies[unit] = worst_continuations(&by_continuation[unit], legal.len());
            }
            if !looked_ahead[unit].is_empty() {
                tallies[unit] = choose_next_cards(&looked_ahead[unit], legal.len());
            }
        }
        let mut tallies = tallies.into_iter();
        Some(std::array::from_fn(|unit| {
            (
                tallies.next().expect("one tally a unit"),
                valuers[unit].scale(),
            )
        }))
    }

    /// One [`Branch`] for each of the actor's `legal` cards in `world`: the
    /// other seats answer with the table's cards until the actor's next
    /// turn, whose cards are then valued as [`WorldValues`] says.
    fn branches(&self, world: &GameState, legal: &[Action], valuer: &Valuer) -> Vec<Branch> {
        let Some(actor) = world.to_act() else {
            return Vec::new();
        };
        let team = actor.team();
        let table = self.blueprint.file();
        legal
            .iter()
            .map(|&card| {
                let mut state = *world;
                state.apply(card);
                let mut seen_between = Vec::with_capacity(3);
                while state.stage() == Stage::Play && state.to_act() != Some(actor) {
                    let answer = table_card(table, &state);
                    seen_between.push(answer);
                    state.apply(answer);
                }
                let values = if state.stage() == Stage::Play {
                    self.card_values(&state, team, state.legal_actions().as_slice(), valuer)
                } else {
                    // The hand ended before the actor's next turn: every
                    // source of value agrees on its outcome.
                    let value = state
                        .outcome()
                        .map_or(0, |outcome| valuer.value(&outcome, team));
                    vec![value * self.options.values.sources() as i64]
                };
                Branch {
                    seen_between,
                    values,
                }
            })
            .collect()
    }

    /// Whether [`SearchOptions::endgame_bids`] searches every bid of
    /// `seen`: a score in view with either side within two points.
    fn searches_every_bid_at(&self, seen: &Seen<'_>) -> bool {
        use crate::games::by_score::ScoreBand;
        self.options.game
            && self.options.endgame_bids
            && seen.score().is_some_and(|score| {
                !matches!(
                    ScoreBand::of(&score, seen.actor().team()),
                    ScoreBand::Early | ScoreBand::Middle
                )
            })
    }

    /// A bid or discard: the blueprint's, or searched (see [`BidsBy`]).
    fn bid(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        if self.options.bids == BidsBy::Blueprint {
            return self.blueprint.act(seen, rng);
        }
        // The bids policy's most likely action, where it trained the key.
        let blueprint_choice = seen.decision_for(self.bids_policy()).and_then(|decision| {
            let (probabilities, trained) = self.bid_strategy(&decision);
            let probabilities = &probabilities[..decision.actions.len()];
            trained.then(|| {
                let best = most_likely(probabilities);
                (decision.actions[best], probabilities[best])
            })
        });
        if self.options.bids == BidsBy::Search
            && let Some((sure, probability)) = blueprint_choice
            && probability >= CONFIDENT
            && !self.searches_every_bid_at(seen)
        {
            return if self.bid_model.is_some() {
                sure
            } else {
                self.blueprint.act(seen, rng)
            };
        }
        let chosen = self.search(seen, rng);
        self.counts.bids_searched.fetch_add(1, Ordering::Relaxed);
        if blueprint_choice.is_some_and(|(action, _)| action != chosen) {
            self.counts.bids_changed.fetch_add(1, Ordering::Relaxed);
        }
        chosen
    }
}

/// How the hand ends after one action in one world, by each source of
/// value the options use: solved open-handed, played out by the table, or
/// both. Priced by a [`Valuer`], so that one set of solves serves both
/// units ([`Bot::values_beside`]).
#[derive(Clone, Copy, Debug)]
struct Ends {
    open_hand: Option<Outcome>,
    played_out: Option<Outcome>,
}

impl Ends {
    /// No hand to play: worth nothing.
    const NONE: Ends = Ends {
        open_hand: None,
        played_out: None,
    };

    /// `team`'s value of these endings by `valuer`, summed over the
    /// sources.
    fn value(&self, valuer: &Valuer, team: Team) -> i64 {
        [self.open_hand, self.played_out]
            .iter()
            .flatten()
            .map(|outcome| valuer.value(outcome, team))
            .sum()
    }
}

/// One candidate card in one world, looked ahead to the actor's next turn.
struct Branch {
    /// The other seats' cards after it, all the actor sees before it plays
    /// again: with the candidate card, the history its next choice may
    /// depend on.
    seen_between: Vec<Action>,
    /// The actor's side's points after each of its legal cards at that
    /// turn, in their legal order (one value where the hand ended first).
    values: Vec<i64>,
}

/// Tallies in which the actor's next card is chosen once for every world
/// that shares its history (the candidate card and the cards seen after
/// it): the card with the best total over those worlds, by their copies.
/// Each world's row then holds what that shared choice scores in it, so
/// the totals are those of a player who does not see the hidden hands at
/// its next turn, and a row's spread means what it means without
/// look-ahead.
fn choose_next_cards(worlds: &[(i64, Vec<Branch>)], width: usize) -> Tallies {
    let mut totals: HashMap<(usize, &[Action]), Vec<i64>> = HashMap::new();
    for (copies, branches) in worlds {
        for (card, branch) in branches.iter().enumerate() {
            let sums = totals
                .entry((card, branch.seen_between.as_slice()))
                .or_insert_with(|| vec![0; branch.values.len()]);
            for (sum, value) in sums.iter_mut().zip(&branch.values) {
                *sum += value * copies;
            }
        }
    }
    // The last of equals, as `Tallies::best_index` breaks ties.
    let chosen: HashMap<(usize, &[Action]), usize> = totals
        .iter()
        .map(|(&history, sums)| {
            let best = (0..sums.len()).max_by_key(|&i| sums[i]).unwrap_or(0);
            (history, best)
        })
        .collect();
    let mut tallies = Tallies::new(width);
    for (copies, branches) in worlds {
        let row = branches
            .iter()
            .enumerate()
            .map(|(card, branch)| {
                let next = chosen[&(card, branch.seen_between.as_slice())];
                branch.values.get(next).copied().unwrap_or(0)
            })
            .collect();
        tallies.add(row, *copies);
    }
    tallies
}

/// `file`'s probability for each of `decision`'s actions, in its canonical
/// order, and whether it trained the key. A key it never trained reads as
/// uniform, which is what its untrained average strategy is.
/// Each action's tallies under the pair of [`Continuation`]s its side
/// can count on, over all `worlds` (copies, and each action's values for
/// each pair): the searcher's side commits to the way its partner bids on,
/// the one whose worst answer is best, and the other side answers with the
/// way worst for it. Each side chooses after seeing the action and the
/// same way in every world, as neither can see which world it is in.
fn worst_continuations(worlds: &[(i64, Vec<ByContinuation>)], width: usize) -> Tallies {
    let chosen: Vec<(usize, usize)> = (0..width)
        .map(|action| {
            let mut totals: ByContinuation = [[0; 3]; 3];
            for (copies, values) in worlds {
                for (total_row, row) in totals.iter_mut().zip(&values[action]) {
                    for (total, value) in total_row.iter_mut().zip(row) {
                        *total += copies * value;
                    }
                }
            }
            let answer = |row: &[i64; 3]| {
                (0..3)
                    .min_by_key(|&other_side| row[other_side])
                    .unwrap_or(0)
            };
            // `max_by_key` keeps the last of equals, so over the partner's
            // ways in reverse it keeps the first: the blueprint's bids where
            // the others do no better.
            let partner = (0..3)
                .rev()
                .max_by_key(|&partner| totals[partner][answer(&totals[partner])])
                .unwrap_or(0);
            (partner, answer(&totals[partner]))
        })
        .collect();
    let mut tallies = Tallies::new(width);
    for (copies, values) in worlds {
        let row = chosen
            .iter()
            .zip(values)
            .map(|(&(partner, other_side), by_pair)| by_pair[partner][other_side])
            .collect();
        tallies.add(row, *copies);
    }
    tallies
}

fn strategy_of(file: &PolicyFile, decision: &Decision) -> ([f64; Action::MAX_LEGAL], bool) {
    let width = decision.actions.len();
    let mut probabilities = [0.0f64; Action::MAX_LEGAL];
    let trained = file.probabilities(decision.key.0, &mut probabilities[..width]);
    (probabilities, trained)
}

impl Bot for SearchBot {
    fn name(&self) -> String {
        let kind = match self.options.bids {
            BidsBy::Blueprint => "search",
            BidsBy::Search | BidsBy::SearchEvery => "search-bids",
        };
        format!("{kind}:{}:{}", self.options, self.label)
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        if legal.len() == 1 {
            return legal[0];
        }
        if seen.stage() == Stage::Play {
            if self.options.lead == Lead::ByTable && seen.played().is_empty() {
                return self.blueprint.act(seen, rng);
            }
            self.search(seen, rng)
        } else {
            self.bid(seen, rng)
        }
    }

    /// Every decision searched, bids included (even where the bot would
    /// play its blueprint's sure bid), each value in points per hand or,
    /// playing for the game with a score in view, a chance of winning.
    fn values(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Option<Vec<ActionValue>> {
        let (tallies, scale) = self.search_tallies(seen, rng)?;
        Some(tallies.values(
            seen.legal().as_slice(),
            self.options.values.sources() * scale,
        ))
    }

    fn plays_for_the_game(&self) -> bool {
        self.options.game
    }

    /// One search priced in both units: the worlds, and the plain search's
    /// solves and playouts, shared (`search_tallies_priced`).
    fn values_beside(
        &self,
        seen: &Seen<'_>,
        twin_score: Option<GameScore>,
        rng: &mut SmallRng,
    ) -> Option<[Vec<ActionValue>; 2]> {
        let twin = self.valuation.toward(!self.options.game);
        let valuers = [
            Valuer::new(&self.valuation, seen.score()),
            Valuer::new(&twin, twin_score),
        ];
        let legal = seen.legal();
        let sources = self.options.values.sources();
        Some(
            self.search_tallies_priced(seen, &valuers, rng)?
                .map(|(tallies, scale)| tallies.values(legal.as_slice(), sources * scale)),
        )
    }

    /// The same search valuing in the other unit, on the same loaded
    /// files; `,endgame-bids` goes with playing for the game.
    fn valuing(&self, for_the_game: bool) -> Option<Arc<dyn Bot>> {
        let options = SearchOptions {
            game: for_the_game,
            endgame_bids: self.options.endgame_bids && for_the_game,
            ..self.options
        };
        Some(Arc::new(SearchBot {
            blueprint: Arc::clone(&self.blueprint),
            options,
            label: self.label.clone(),
            counts: Counts::default(),
            bid_model: self.bid_model.clone(),
            valuation: self.valuation.toward(for_the_game),
        }))
    }

    fn report(&self) -> Option<String> {
        let searched = self.counts.searched.load(Ordering::Relaxed);
        let per = |total: u64| total as f64 / searched.max(1) as f64;
        let mut report = format!(
            "{}: {searched} card plays searched; per search {:.0} candidate worlds with an effective sample size of {:.0}, {:.0} distinct worlds solved",
            self.name(),
            per(self.counts.candidates.load(Ordering::Relaxed)),
            per(self.counts.effective_milli.load(Ordering::Relaxed)) / 1000.0,
            per(self.counts.distinct_worlds.load(Ordering::Relaxed)),
        );
        if self.options.bids != BidsBy::Blueprint {
            let searched = self.counts.bids_searched.load(Ordering::Relaxed);
            let changed = self.counts.bids_changed.load(Ordering::Relaxed);
            report.push_str(&format!(
                "; {searched} bids searched (the blueprint was not sure), {changed} of them unlike its most likely bid"
            ));
        }
        let out_of_time = self.counts.out_of_time.load(Ordering::Relaxed);
        if out_of_time > 0 {
            report.push_str(&format!(
                "; {out_of_time} decisions stopped at the time budget"
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

    /// Card play by open-hand search, the play open-hand leaves assume;
    /// with playout values, the table's play improved by search.
    fn card_play(&self) -> Option<CardPlay> {
        Some(match self.options.values {
            WorldValues::OpenHand => CardPlay::OpenHandSearch,
            WorldValues::TablePlayout | WorldValues::Blend => CardPlay::Table,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn branch(seen_between: &[Action], values: &[i64]) -> Branch {
        Branch {
            seen_between: seen_between.to_vec(),
            values: values.to_vec(),
        }
    }

    const ORDER: Action = Action::Order { alone: false };
    const ORDER_ALONE: Action = Action::Order { alone: true };

    #[test]
    fn a_bolder_continuation_bids_on_hands_the_blueprint_passes_and_a_warier_one_passes_its_thin_bids()
     {
        let actions = [Action::Pass, ORDER, ORDER_ALONE];
        let chosen = |probabilities: [f64; 3]| {
            Continuation::ALL.map(|style| style.choose(&actions, &probabilities))
        };
        // Bids 30% of the time: the blueprint passes, a bolder bidder
        // makes the likeliest bid.
        assert_eq!(chosen([0.7, 0.2, 0.1]), [Action::Pass, ORDER, Action::Pass]);
        // Bids 70%: a warier bidder (75%) still passes.
        assert_eq!(chosen([0.3, 0.4, 0.3]), [ORDER, ORDER, Action::Pass]);
        // Bids 80%, alone the likeliest: every continuation goes alone.
        assert_eq!(chosen([0.2, 0.3, 0.5]), [ORDER_ALONE; 3]);
        // Without a pass (a discard, or a dealer who must name a suit) every
        // continuation takes the blueprint's most likely action.
        let discards = [Action::Discard(card(0)), Action::Discard(card(1))];
        for style in Continuation::ALL {
            assert_eq!(style.choose(&discards, &[0.1, 0.9]), discards[1]);
        }
    }

    fn card(index: u8) -> euchre_game::engine::card::Card {
        euchre_game::engine::card::Card::from_index(index).expect("a card's index")
    }

    /// An action's values that do not depend on how the partner bids on.
    fn whatever_the_partner(other_side: [i64; 3]) -> ByContinuation {
        [other_side; 3]
    }

    /// The other side chooses how to bid on once for all worlds: in each
    /// world a different continuation hurts the first bid, but no single
    /// one hurts it in both, so it is worth 0, above the second bid's −2
    /// (taking each world's worst separately would rank them the other way:
    /// −8 against −2).
    #[test]
    fn the_other_sides_continuation_is_chosen_once_for_every_world() {
        let worlds = |first_copies| {
            vec![
                (
                    first_copies,
                    vec![
                        whatever_the_partner([4, -4, 0]),
                        whatever_the_partner([-1, -1, -1]),
                    ],
                ),
                (
                    1,
                    vec![
                        whatever_the_partner([-4, 4, 0]),
                        whatever_the_partner([-1, -1, -1]),
                    ],
                ),
            ]
        };
        let tallies = worst_continuations(&worlds(1), 2);
        assert_eq!(tallies.totals(), &[0, -2]);
        assert_eq!(tallies.best_index(), 0);
        // Each world's row is its values under the chosen continuations
        // (the first of equals, the blueprint's), with its copies.
        assert_eq!(tallies.rows(), &[(1, vec![4, -1]), (1, vec![-4, -1])]);
        // Copies weigh: three copies of the first world make the bolder
        // continuation the worst for the first bid.
        assert_eq!(worst_continuations(&worlds(3), 2).totals(), &[-8, -4]);
    }

    /// The searcher's side commits first: its partner bids on in the way
    /// whose worst answer is best (the warier way, worth 1), not the way
    /// with the best outcome (5, which the other side answers with −3), nor
    /// as if the other side committed first (worth 2).
    #[test]
    fn the_partner_bids_on_in_the_way_whose_worst_answer_is_best() {
        let values: ByContinuation = [[0, 0, 0], [5, -3, 5], [2, 2, 1]];
        let tallies = worst_continuations(&[(1, vec![values])], 1);
        assert_eq!(tallies.totals(), &[1]);
        // With every way level for the partner, the blueprint's is kept.
        let level: ByContinuation = [[1, 0, 2]; 3];
        assert_eq!(
            worst_continuations(&[(2, vec![level])], 1).rows(),
            &[(2, vec![0])]
        );
    }

    /// Two worlds in which the next card must be guessed: open-handed each
    /// world picks its own winner (a total of 4 for two copies each);
    /// looked ahead, one card serves both, and the total is what that card
    /// scores in each.
    #[test]
    fn a_next_card_that_needs_a_guess_is_chosen_once_for_the_worlds_that_share_its_history() {
        let history = [Action::Pass];
        let worlds = vec![
            (2, vec![branch(&history, &[2, 0]), branch(&[], &[1])]),
            (1, vec![branch(&history, &[0, 2]), branch(&[], &[1])]),
        ];
        let tallies = choose_next_cards(&worlds, 2);
        // Card 0: the next card's totals are 4 and 2 over the history, so
        // the first is chosen: 2 in the first world, 0 in the second.
        assert_eq!(tallies.totals(), [4, 3]);
        assert_eq!(tallies.rows(), [(2, vec![2, 1]), (1, vec![0, 1])]);
        assert_eq!(tallies.best_index(), 0);
    }

    #[test]
    fn worlds_the_actor_can_tell_apart_keep_their_own_next_card() {
        let worlds = vec![
            (1, vec![branch(&[Action::Pass], &[2, 0])]),
            (1, vec![branch(&[Action::Order { alone: false }], &[0, 2])]),
        ];
        let tallies = choose_next_cards(&worlds, 1);
        assert_eq!(tallies.totals(), [4]);
    }

    #[test]
    fn the_opening_lead_alone_is_searched_over_the_lead_worlds() {
        use euchre_game::engine::rules::Rules;
        use euchre_game::engine::seat::Seat;
        use euchre_game::engine::state::Deal;
        use rand::SeedableRng;
        let options = SearchOptions {
            lead: Lead::Searched(1600),
            bid_worlds: 300,
            ..SearchOptions::new(400, BidsBy::Search)
        };
        let deal = Deal::random(Seat::North, &mut SmallRng::seed_from_u64(7));
        let mut state = GameState::new(deal, Rules::default());
        let mut history = Vec::new();
        let mut asked = Vec::new();
        while let Some(actor) = state.to_act() {
            let worlds = options.worlds_for(&Seen::new(&state, &history));
            asked.push((state.stage(), state.played().len(), worlds));
            let action = crate::test_hands::order_up_at_once(&state);
            history.push((actor, action));
            state.apply(action);
        }
        let lead = asked
            .iter()
            .filter(|(stage, _, worlds)| *stage == Stage::Play && *worlds == 1600);
        assert_eq!(lead.count(), 1, "one opening lead a hand: {asked:?}");
        assert!(
            asked
                .iter()
                .any(|(stage, _, worlds)| *stage != Stage::Play && *worlds == 300)
        );
        for (stage, played, worlds) in &asked {
            if *stage == Stage::Play && *played > 0 {
                assert_eq!(*worlds, 400, "a later card: {asked:?}");
            }
        }
    }

    #[test]
    fn a_hand_over_before_the_next_turn_counts_its_one_value() {
        let worlds = vec![(
            3,
            vec![branch(&[], &[-2]), branch(&[Action::Pass], &[1, 4])],
        )];
        let tallies = choose_next_cards(&worlds, 2);
        assert_eq!(tallies.totals(), [-6, 12]);
    }
}
