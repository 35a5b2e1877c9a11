//! External-sampling Monte Carlo CFR (Lanctot et al. 2009), in parallel.
//!
//! One iteration is one traversal per player. The traverser explores all of
//! its own actions; chance and every other player are sampled, the others
//! from their current strategy. The traverser's sampled counterfactual
//! regrets update its records; each other player's visited record adds its
//! current strategy to its strategy sum.
//!
//! Chance is shared within an iteration: every traverser's walk replays the
//! same stream of chance outcomes (in euchre, the same deal), while the
//! other players' sampled actions stay independent. Each walk is still an
//! unbiased sample for its traverser, and a game can reuse work across the
//! walks of one iteration (euchre caches open-hand leaf values per deal).
//!
//! With [`Pruning`] set, most iterations after a warm-up skip the
//! traverser's actions whose regret is deeply negative (see
//! [`crate::pruning`]). With a [`WarmStart`], an infostate's first visit
//! seeds it with the game's suggested action (see [`crate::warm_start`]).
//! With a [`TraverserSampling`], the traverser samples its own actions
//! past its first decisions (see [`crate::traverser_sampling`]). With an
//! [`OpponentModel`], the traverser's opponents play the game's model of
//! them in a share of its walks (see [`crate::opponent_model`]).
//!
//! Parallelism: iterations run concurrently on a rayon pool, all threads
//! sharing one table. There is no global lock. Each record update is atomic
//! for its slot (the table guarantees it), so no update is ever lost or
//! torn. A thread may read a record just before another thread updates it;
//! that makes its strategy one update stale, the usual, harmless race of
//! asynchronous MCCFR. With one thread the run is sequential and
//! bit-for-bit reproducible, and iteration `t` always draws from
//! `iteration_rng(seed, t)`, so a resumed run continues the same stream.

use std::sync::atomic::{AtomicU64, Ordering};

use rand::rngs::SmallRng;
use rand::{RngExt, SeedableRng};
use rayon::prelude::*;
use store::{MAX_ACTIONS, Record, SlotId, Table};

use crate::discount::{Discounter, Schedule};
use crate::distributed::EpochShare;
use crate::error::CfrError;
use crate::game::{Game, Node};
use crate::opponent_model::{MODEL_STREAM, OpponentModel};
use crate::pruning::Pruning;
use crate::regret::{floor_regrets, regret_matching};
use crate::rng::iteration_rng;
use crate::traverser_sampling::{TRAVERSER_STREAM, TraverserSampling};
use crate::warm_start::WarmStart;

/// A configured solver over one game and one table.
/// The last iteration a record's stamp holds (`store::stamp`), about
/// 2.2e12.
pub const LAST_ITERATION: u64 = store::stamp::LAST_ITERATION;

pub struct ExternalSampling<'t, G: Game, T: Table + ?Sized> {
    root: G,
    table: &'t T,
    discounter: Discounter,
    seed: u64,
    pool: Option<rayon::ThreadPool>,
    pruning: Option<Pruning>,
    warm_start: Option<WarmStart>,
    traverser_sampling: Option<TraverserSampling>,
    opponent_model: Option<OpponentModel>,
}

impl<G: Game, T: Table + ?Sized> std::fmt::Debug for ExternalSampling<'_, G, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExternalSampling")
            .field("seed", &self.seed)
            .field("threads", &self.threads())
            .finish()
    }
}

/// What a batch of iterations did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchStats {
    pub iterations: u64,
    /// Regret updates at the traverser's own decisions.
    pub regret_updates: u64,
    /// Strategy-sum updates at other players' decisions.
    pub strategy_updates: u64,
    /// Traverser actions skipped by pruning.
    pub pruned_actions: u64,
}

impl BatchStats {
    /// Record updates of either kind: the unit of work.
    pub fn updates(&self) -> u64 {
        self.regret_updates + self.strategy_updates
    }
}

impl<'t, G: Game, T: Table + ?Sized> ExternalSampling<'t, G, T> {
    /// `threads == 1` runs sequentially on the caller's thread.
    pub fn new(
        root: G,
        table: &'t T,
        schedule: Schedule,
        seed: u64,
        threads: usize,
    ) -> Result<Self, CfrError> {
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|error| CfrError::ThreadPool(error.to_string()))?,
            )
        } else {
            None
        };
        Ok(ExternalSampling {
            root,
            table,
            discounter: Discounter::new(schedule)?,
            seed,
            pool,
            pruning: None,
            warm_start: None,
            traverser_sampling: None,
            opponent_model: None,
        })
    }

    /// Prunes as `pruning` says from now on (`None`: never).
    pub fn with_pruning(mut self, pruning: Option<Pruning>) -> Result<Self, CfrError> {
        if let Some(pruning) = &pruning {
            pruning.validate()?;
        }
        self.pruning = pruning;
        Ok(self)
    }

    /// Seeds fresh infostates as `warm_start` says from now on (`None`:
    /// they start at zero).
    pub fn with_warm_start(mut self, warm_start: Option<WarmStart>) -> Result<Self, CfrError> {
        if let Some(warm_start) = &warm_start {
            warm_start.validate()?;
        }
        self.warm_start = warm_start;
        Ok(self)
    }

    /// Samples the traverser's actions as `sampling` says from now on
    /// (`None`: it explores all of them everywhere).
    pub fn with_traverser_sampling(
        mut self,
        sampling: Option<TraverserSampling>,
    ) -> Result<Self, CfrError> {
        if let Some(sampling) = &sampling {
            sampling.validate()?;
        }
        self.traverser_sampling = sampling;
        Ok(self)
    }

    /// Plays the traverser's opponents from the game's model in
    /// `model.share` of its walks from now on (`None`: never).
    pub fn with_opponent_model(mut self, model: Option<OpponentModel>) -> Result<Self, CfrError> {
        if let Some(model) = &model {
            model.validate()?;
        }
        self.opponent_model = model;
        Ok(self)
    }

    pub fn threads(&self) -> usize {
        self.pool
            .as_ref()
            .map_or(1, rayon::ThreadPool::current_num_threads)
    }

    /// Runs iterations `first ..= first + count - 1` (numbered from 1).
    /// A run resumed after iteration `n` calls this with `first = n + 1`.
    pub fn run(&self, first: u64, count: u64) -> Result<BatchStats, CfrError> {
        self.run_share(EpochShare {
            first,
            count,
            stride: 1,
        })
    }

    /// Runs one rank's share of an epoch: `share.count` iterations from
    /// `share.first`, `share.stride` apart (see [`EpochShare`]).
    pub fn run_share(&self, share: EpochShare) -> Result<BatchStats, CfrError> {
        let regret_updates = AtomicU64::new(0);
        let strategy_updates = AtomicU64::new(0);
        let pruned_actions = AtomicU64::new(0);
        if let Some(last) = share.last()
            && last > LAST_ITERATION
        {
            return Err(CfrError::IterationLimit(last));
        }
        let one = |iteration: u64| -> Result<(), CfrError> {
            let done = self.iteration(iteration)?;
            regret_updates.fetch_add(done.regret_updates, Ordering::Relaxed);
            strategy_updates.fetch_add(done.strategy_updates, Ordering::Relaxed);
            pruned_actions.fetch_add(done.pruned_actions, Ordering::Relaxed);
            Ok(())
        };
        let EpochShare {
            first,
            count,
            stride,
        } = share;
        match &self.pool {
            None => share.iterations().try_for_each(one)?,
            Some(pool) => pool.install(|| {
                (0..count)
                    .into_par_iter()
                    .try_for_each(|i| one(first + i * stride))
            })?,
        }
        Ok(BatchStats {
            iterations: count,
            regret_updates: regret_updates.into_inner(),
            strategy_updates: strategy_updates.into_inner(),
            pruned_actions: pruned_actions.into_inner(),
        })
    }

    /// The schedule's discounting, for a replicated table's syncs.
    pub fn discounter(&self) -> &Discounter {
        &self.discounter
    }

    /// One iteration: a traversal for each player, at most
    /// [`LAST_ITERATION`]. One past that is refused rather than stamped
    /// wrongly (a wrong stamp would discount every record it touches
    /// wrongly).
    pub fn iteration(&self, iteration: u64) -> Result<BatchStats, CfrError> {
        if iteration > LAST_ITERATION {
            return Err(CfrError::IterationLimit(iteration));
        }
        let now = iteration;
        let mut rng = iteration_rng(self.seed, iteration);
        let chance = SmallRng::from_rng(&mut rng);
        let mut walk = Traversal {
            chance: chance.clone(),
            table: self.table,
            discounter: &self.discounter,
            now,
            rng: SmallRng::from_rng(&mut rng),
            stats: BatchStats {
                iterations: 1,
                ..BatchStats::default()
            },
            traverser: 0,
            prune_below: self
                .pruning
                .and_then(|pruning| pruning.threshold_at(self.seed, iteration)),
            warm_start: self.warm_start,
            traverser_sampling: self.traverser_sampling,
            own_rng: iteration_rng(self.seed ^ TRAVERSER_STREAM, iteration),
            explored: 0,
            modelled: false,
        };
        // Drawn only with a model, so that a run without one draws what it
        // always drew.
        let mut coin = self
            .opponent_model
            .map(|_| iteration_rng(self.seed ^ MODEL_STREAM, iteration));
        for traverser in 0..self.root.num_players() {
            walk.traverser = traverser;
            walk.modelled = match (&self.opponent_model, &mut coin) {
                (Some(model), Some(coin)) => model.plays_model(coin),
                _ => false,
            };
            walk.chance = chance.clone();
            walk.visit(&self.root)?;
        }
        Ok(walk.stats)
    }
}

struct Traversal<'a, T: Table + ?Sized> {
    table: &'a T,
    discounter: &'a Discounter,
    now: u64,
    /// Chance outcomes, replayed identically for every traverser.
    chance: SmallRng,
    /// The other players' sampled actions.
    rng: SmallRng,
    stats: BatchStats,
    traverser: usize,
    /// This iteration's pruning threshold, if it prunes.
    prune_below: Option<f64>,
    warm_start: Option<WarmStart>,
    traverser_sampling: Option<TraverserSampling>,
    /// The traverser's sampled actions, when it samples.
    own_rng: SmallRng,
    /// The traverser's branching decisions explored on the current path.
    explored: u32,
    /// Whether this walk's opponents play the game's model.
    modelled: bool,
}

/// Seeds `record` with the game's suggestion at `state` if `warm_start` is
/// set and the record was never updated. The suggestion is asked for only
/// then: most visits are not first visits.
fn seed_if_fresh<G: Game>(warm_start: Option<WarmStart>, state: &G, record: &mut Record) {
    if let Some(warm_start) = warm_start
        && record.stamp == 0
    {
        warm_start.seed(record, state.suggested_action());
    }
}

impl<T: Table + ?Sized> Traversal<'_, T> {
    /// The model's action, if `player` is this walk's modelled opponent
    /// and the model has a say at `state`.
    fn modelled_action<G: Game>(&self, state: &G, player: usize) -> Option<usize> {
        if self.modelled && !state.same_side(player, self.traverser) {
            state.modelled_action()
        } else {
            None
        }
    }

    /// Refuses a decision wider than the table's records rather than let
    /// it spill past the stored values.
    fn fits(&self, width: usize) -> Result<(), CfrError> {
        if width > self.table.max_actions() {
            return Err(CfrError::TooManyActions {
                actions: width,
                max: self.table.max_actions(),
            });
        }
        Ok(())
    }

    fn visit<G: Game>(&mut self, state: &G) -> Result<f64, CfrError> {
        self.visit_with_slot(state, None)
    }

    /// [`Self::visit`], given the state's slot when the caller already
    /// looked it up (together with others).
    fn visit_with_slot<G: Game>(
        &mut self,
        state: &G,
        slot: Option<SlotId>,
    ) -> Result<f64, CfrError> {
        match state.node() {
            Node::Terminal => Ok(state.payoff(self.traverser)),
            Node::Chance | Node::SampledChance => {
                let outcome = state.sample_chance(&mut self.chance);
                let mut next = state.clone();
                next.apply(outcome);
                self.visit(&next)
            }
            Node::Decision(player) => {
                let width = state.num_actions();
                if width == 1 {
                    // Nothing to learn at a forced move; it is never stored.
                    let mut next = state.clone();
                    next.apply(0);
                    return self.visit(&next);
                }
                if let Some(action) = self.modelled_action(state, player) {
                    // The model plays it: nothing is looked up or stored.
                    let mut next = state.clone();
                    next.apply(action);
                    return self.visit(&next);
                }
                self.fits(width)?;
                let slot = match slot {
                    Some(slot) => slot,
                    None => self.table.slot(state.info_key())?,
                };
                if player != self.traverser {
                    self.stats.strategy_updates += 1;
                    return self.sample(state, slot, width);
                }
                let mut record = self.table.read(slot)?;
                // The same seed the update below applies, if no other
                // thread has updated the record by then.
                seed_if_fresh(self.warm_start, state, &mut record);
                let mut regrets = [0.0; MAX_ACTIONS];
                let mut strategy = [0.0; MAX_ACTIONS];
                self.discounter
                    .current_regrets(&record, self.now, &mut regrets[..width]);
                regret_matching(&regrets[..width], &mut strategy[..width]);
                self.stats.regret_updates += 1;
                if let Some(sampling) = self.traverser_sampling
                    && sampling.samples_at(self.explored)
                {
                    return self.sample_own(state, slot, &strategy[..width], sampling);
                }
                let prune_below = self.prune_below.filter(|_| state.prunable());
                self.explored += 1;
                let value = self.explore(
                    state,
                    slot,
                    &strategy[..width],
                    &regrets[..width],
                    prune_below,
                );
                self.explored -= 1;
                value
            }
        }
    }

    /// Walks each of the traverser's actions and updates their regrets;
    /// with `prune_below`, an action the strategy never plays whose regret
    /// is below it is neither walked nor updated.
    fn explore<G: Game>(
        &mut self,
        state: &G,
        slot: SlotId,
        strategy: &[f64],
        regrets: &[f64],
        prune_below: Option<f64>,
    ) -> Result<f64, CfrError> {
        let mut values = [0.0; MAX_ACTIONS];
        let mut walked = [true; MAX_ACTIONS];
        let mut children: [Option<G>; MAX_ACTIONS] = std::array::from_fn(|_| None);
        for (action, &probability) in strategy.iter().enumerate() {
            if let Some(threshold) = prune_below
                && probability == 0.0
                && regrets[action] < threshold
            {
                walked[action] = false;
                self.stats.pruned_actions += 1;
                continue;
            }
            let mut next = state.clone();
            next.apply(action);
            children[action] = Some(next);
        }
        let slots = self.sample_together(&mut children[..strategy.len()])?;
        let mut expected = 0.0;
        for (action, child) in children[..strategy.len()].iter().enumerate() {
            if let Some(child) = child {
                values[action] = self.visit_with_slot(child, slots[action])?;
                expected += strategy[action] * values[action];
            }
        }
        let (discounter, now, warm_start) = (self.discounter, self.now, self.warm_start);
        let floor = discounter.schedule().floor_regrets;
        self.table.update(slot, &mut |record| {
            seed_if_fresh(warm_start, state, record);
            discounter.catch_up(record, now);
            for (action, value) in values[..strategy.len()].iter().enumerate() {
                if walked[action] {
                    record.regrets[action] =
                        (f64::from(record.regrets[action]) + value - expected) as f32;
                }
            }
            if floor {
                floor_regrets(&mut record.regrets[..strategy.len()]);
            }
        })?;
        Ok(expected)
    }

    /// The traverser's decision past its explored ones: one action, drawn
    /// from the sampling distribution, is walked; its value weighed by the
    /// inverse of its probability stands for it, and zero for the others.
    fn sample_own<G: Game>(
        &mut self,
        state: &G,
        slot: SlotId,
        strategy: &[f64],
        sampling: TraverserSampling,
    ) -> Result<f64, CfrError> {
        let mut q = [0.0; MAX_ACTIONS];
        sampling.distribution(strategy, &mut q[..strategy.len()]);
        let choice = draw(&q[..strategy.len()], self.own_rng.random::<f64>());
        let mut next = state.clone();
        next.apply(choice);
        let weighted = self.visit(&next)? / q[choice];
        let expected = strategy[choice] * weighted;
        let (discounter, now, warm_start) = (self.discounter, self.now, self.warm_start);
        let floor = discounter.schedule().floor_regrets;
        self.table.update(slot, &mut |record| {
            seed_if_fresh(warm_start, state, record);
            discounter.catch_up(record, now);
            for (action, regret) in record.regrets[..strategy.len()].iter_mut().enumerate() {
                let value = if action == choice { weighted } else { 0.0 };
                *regret = (f64::from(*regret) + value - expected) as f32;
            }
            if floor {
                floor_regrets(&mut record.regrets[..strategy.len()]);
            }
        })?;
        Ok(expected)
    }

    /// Walks the traverser's children forward together through the other
    /// players' decisions that follow them, one decision of each child per
    /// round, until each reaches the traverser's next decision, a chance
    /// node or the end. Between two of the traverser's card plays the three
    /// other seats act, each decision a lookup that misses the cache and
    /// that the next one waits for; the children's chains do not depend on
    /// one another, so each round looks their slots up in one batch
    /// ([`Table::slots`]), whose misses overlap. Returns, for each chain
    /// that stopped at the traverser's decision, its slot, from one more
    /// batch.
    ///
    /// Each decision is sampled and counted exactly as [`Self::visit`]
    /// would; only the order of the draws from the shared stream differs
    /// from walking each child to its end in turn. (Measured: 1.09× to
    /// 1.15× the iterations per second of full play on the mmap store,
    /// docs/experiments/full-play-walk-together.md.)
    fn sample_together<G: Game>(
        &mut self,
        chains: &mut [Option<G>],
    ) -> Result<[Option<SlotId>; MAX_ACTIONS], CfrError> {
        let mut keys = [0u128; MAX_ACTIONS];
        let mut waiting = [0usize; MAX_ACTIONS];
        loop {
            let mut count = 0;
            for (chain, state) in chains.iter_mut().enumerate() {
                let Some(state) = state else { continue };
                while let Node::Decision(player) = state.node()
                    && player != self.traverser
                {
                    if state.num_actions() == 1 {
                        state.apply(0);
                        continue;
                    }
                    if let Some(action) = self.modelled_action(state, player) {
                        state.apply(action);
                        continue;
                    }
                    keys[count] = state.info_key();
                    waiting[count] = chain;
                    count += 1;
                    break;
                }
            }
            if count == 0 {
                break;
            }
            let mut slots = [None; MAX_ACTIONS];
            self.table.slots(&keys[..count], &mut slots[..count])?;
            for (&chain, slot) in waiting[..count].iter().zip(slots) {
                let Some(state) = chains[chain].as_mut() else {
                    continue;
                };
                let width = state.num_actions();
                self.fits(width)?;
                let slot = slot.expect("`slots` fills every slot it returns Ok for");
                self.stats.strategy_updates += 1;
                let choice = self.sample_action(state, slot, width)?;
                state.apply(choice);
            }
        }
        // Where a chain stopped at the traverser's next decision, look its
        // slot up too: every child but the first is walked only after the
        // subtrees before it, so its record has long arrived.
        let mut count = 0;
        for (chain, state) in chains.iter().enumerate() {
            if let Some(state) = state
                && state.node() == Node::Decision(self.traverser)
                && state.num_actions() > 1
            {
                keys[count] = state.info_key();
                waiting[count] = chain;
                count += 1;
            }
        }
        let mut slots = [None; MAX_ACTIONS];
        self.table.slots(&keys[..count], &mut slots[..count])?;
        let mut by_chain = [None; MAX_ACTIONS];
        for (&chain, slot) in waiting[..count].iter().zip(slots) {
            by_chain[chain] = slot;
        }
        Ok(by_chain)
    }

    /// Another player's decision: its current strategy joins the strategy
    /// sum (where the game keeps one, [`Game::keeps_average`]), and one
    /// action is sampled from it.
    fn sample<G: Game>(&mut self, state: &G, slot: SlotId, width: usize) -> Result<f64, CfrError> {
        let choice = self.sample_action(state, slot, width)?;
        let mut next = state.clone();
        next.apply(choice);
        self.visit(&next)
    }

    /// The strategy is computed inside the record's one update, from the
    /// record as it was, so the record is read once, not once to read and
    /// again to update. Where the game keeps no average the record is only
    /// read, unless it is fresh and a warm start must seed it: the same
    /// draw from the same regrets, and nothing added to the sums.
    fn sample_action<G: Game>(
        &mut self,
        state: &G,
        slot: SlotId,
        width: usize,
    ) -> Result<usize, CfrError> {
        let (discounter, now, warm_start) = (self.discounter, self.now, self.warm_start);
        let mut strategy = [0.0; MAX_ACTIONS];
        let keeps_average = state.keeps_average();
        if !keeps_average {
            let record = self.table.read(slot)?;
            // A fresh record is seeded by its first update, as below.
            if record.stamp != 0 || warm_start.is_none() {
                let mut regrets = [0.0; MAX_ACTIONS];
                discounter.current_regrets(&record, now, &mut regrets[..width]);
                regret_matching(&regrets[..width], &mut strategy[..width]);
                return Ok(draw(&strategy[..width], self.rng.random::<f64>()));
            }
        }
        self.table.update(slot, &mut |record| {
            seed_if_fresh(warm_start, state, record);
            let mut regrets = [0.0; MAX_ACTIONS];
            discounter.current_regrets(record, now, &mut regrets[..width]);
            regret_matching(&regrets[..width], &mut strategy[..width]);
            discounter.catch_up(record, now);
            if keeps_average {
                for (action, probability) in strategy[..width].iter().enumerate() {
                    record.strategy_sum[action] =
                        (f64::from(record.strategy_sum[action]) + probability) as f32;
                }
            }
        })?;
        Ok(draw(&strategy[..width], self.rng.random::<f64>()))
    }
}

/// The action a uniform draw `uniform` in `[0, 1)` picks from
/// `distribution`; the last one when rounding leaves the draw unspent.
fn draw(distribution: &[f64], uniform: f64) -> usize {
    let mut remaining = uniform;
    for (action, probability) in distribution.iter().enumerate() {
        remaining -= probability;
        if remaining < 0.0 {
            return action;
        }
    }
    distribution.len() - 1
}
