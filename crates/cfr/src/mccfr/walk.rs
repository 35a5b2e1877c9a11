//! One walk of the game tree: a traversal for one player, as
//! [`super::ExternalSampling`] describes, its lookups paused at where other
//! walks share the thread ([`super::interleave`]).

use rand::RngExt;
use rand::rngs::SmallRng;
use store::{MAX_ACTIONS, Record, SlotId, Table};

use super::BatchStats;
use super::interleave::Turns;
use crate::discount::Discounter;
use crate::error::CfrError;
use crate::game::{Game, Node};
use crate::regret::{floor_regrets, regret_matching};
use crate::traverser_sampling::TraverserSampling;
use crate::warm_start::WarmStart;

pub(super) struct Traversal<'a, T: Table + ?Sized> {
    pub(super) table: &'a T,
    pub(super) discounter: &'a Discounter,
    pub(super) now: u64,
    /// Chance outcomes, replayed identically for every traverser.
    pub(super) chance: SmallRng,
    /// The other players' sampled actions.
    pub(super) rng: SmallRng,
    pub(super) stats: BatchStats,
    pub(super) traverser: usize,
    /// This iteration's pruning threshold, if it prunes.
    pub(super) prune_below: Option<f64>,
    pub(super) warm_start: Option<WarmStart>,
    pub(super) traverser_sampling: Option<TraverserSampling>,
    /// The traverser's sampled actions, when it samples.
    pub(super) own_rng: SmallRng,
    /// The traverser's branching decisions explored on the current path.
    pub(super) explored: u32,
    /// Whether this walk's opponents play the game's model.
    pub(super) modelled: bool,
    /// Where other walks share the thread, the turn each lookup gives up
    /// while its lines arrive.
    pub(super) turns: Option<&'a Turns<'a>>,
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

    /// The slots of `keys` ([`Table::slots`]); where other walks share
    /// the thread, it gives up its turn at each round of the lookup's
    /// misses ([`Table::slots_taking_turns`]).
    fn lookup(&self, keys: &[u128], slots: &mut [Option<SlotId>]) -> Result<(), CfrError> {
        match self.turns {
            None => self.table.slots(keys, slots)?,
            Some(turns) => self
                .table
                .slots_taking_turns(keys, slots, &mut || turns.pause())?,
        }
        Ok(())
    }

    pub(super) fn visit<G: Game>(&mut self, state: &G) -> Result<f64, CfrError> {
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
                    None if self.turns.is_some() => {
                        let mut slot = [None];
                        self.lookup(&[state.info_key()], &mut slot)?;
                        slot[0].expect("`slots` fills every slot it returns Ok for")
                    }
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
            self.lookup(&keys[..count], &mut slots[..count])?;
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
        self.lookup(&keys[..count], &mut slots[..count])?;
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
