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

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;
use store::Table;

use crate::discount::{Discounter, Schedule};
use crate::distributed::EpochShare;
use crate::error::CfrError;
use crate::game::Game;
use crate::opponent_model::{MODEL_STREAM, OpponentModel};
use crate::pruning::Pruning;
use crate::rng::iteration_rng;
use crate::traverser_sampling::{TRAVERSER_STREAM, TraverserSampling};
use crate::warm_start::WarmStart;

mod interleave;
mod walk;

use interleave::{Turns, take_turns};
use walk::Traversal;

/// The most walks a thread keeps open: each holds its own stack, states
/// and random streams, and past a few dozen the misses no longer overlap
/// more (a core keeps about 14 lines in flight).
pub const MAX_WALKS_PER_THREAD: usize = 64;

/// The walks a thread keeps open on a table whose lookups miss the cache
/// ([`Table::lookup_rounds`]); one on the others, where nothing would
/// overlap. Measured in docs/experiments/full-play-interleaved-walks.md.
pub const DEFAULT_WALKS_PER_THREAD: usize = 4;

/// Iterations a thread takes at a time, per walk it keeps open.
const RUN_PER_WALK: u64 = 16;

/// The last iteration a record's stamp holds (`store::stamp`), about
/// 2.2e12.
pub const LAST_ITERATION: u64 = store::stamp::LAST_ITERATION;

/// A configured solver over one game and one table.
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
    walks_per_thread: usize,
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
            walks_per_thread: if table.lookup_rounds() > 0 {
                DEFAULT_WALKS_PER_THREAD
            } else {
                1
            },
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

    /// Keeps `walks` iterations' walks open on each thread from now on,
    /// taking turns at their lookups (see [`interleave`]); 1 walks one
    /// iteration at a time. The default is [`DEFAULT_WALKS_PER_THREAD`] on
    /// a table whose lookups miss the cache, and 1 on the others, where no
    /// walk would pause. More than one changes the order of the updates, as
    /// more threads do: a run on one thread is still reproducible, but not
    /// the same as with one walk.
    pub fn with_walks_per_thread(mut self, walks: usize) -> Result<Self, CfrError> {
        if !(1..=MAX_WALKS_PER_THREAD).contains(&walks) {
            return Err(CfrError::WalksPerThread(walks));
        }
        self.walks_per_thread = walks;
        Ok(self)
    }

    /// Whether walks take turns: more than one a thread, on a table whose
    /// lookups a prefetch can hide.
    fn interleaves(&self) -> bool {
        self.walks_per_thread > 1 && self.table.lookup_rounds() > 0
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
        let record = |done: BatchStats| {
            regret_updates.fetch_add(done.regret_updates, Ordering::Relaxed);
            strategy_updates.fetch_add(done.strategy_updates, Ordering::Relaxed);
            pruned_actions.fetch_add(done.pruned_actions, Ordering::Relaxed);
        };
        let iteration = |i: u64| share.first + i * share.stride;
        let walk_one = |i: u64| -> Result<(), CfrError> {
            record(self.walk(iteration(i), None)?);
            Ok(())
        };
        // With walks taking turns, each thread takes the iterations in
        // runs of this many: long enough that its open walks are rarely
        // fewer, short enough for the threads to share the work evenly.
        let walks = self.walks_per_thread;
        let run_length = RUN_PER_WALK * walks as u64;
        let walk_run = |run: u64| -> Result<(), CfrError> {
            let next = Cell::new(run * run_length);
            let end = (run * run_length + run_length).min(share.count);
            let failed = Cell::new(false);
            take_turns(walks, &|turns| {
                while !failed.get() && next.get() < end {
                    let i = next.get();
                    next.set(i + 1);
                    match self.walk(iteration(i), Some(turns)) {
                        Ok(done) => record(done),
                        Err(error) => {
                            failed.set(true);
                            return Err(error);
                        }
                    }
                }
                Ok(())
            })
        };
        let runs = share.count.div_ceil(run_length);
        match (&self.pool, self.interleaves()) {
            (None, false) => (0..share.count).try_for_each(walk_one)?,
            (None, true) => (0..runs).try_for_each(walk_run)?,
            (Some(pool), false) => {
                pool.install(|| (0..share.count).into_par_iter().try_for_each(walk_one))?;
            }
            (Some(pool), true) => {
                pool.install(|| (0..runs).into_par_iter().try_for_each(walk_run))?;
            }
        }
        Ok(BatchStats {
            iterations: share.count,
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
        self.walk(iteration, None)
    }

    /// [`Self::iteration`], pausing at its lookups for the thread's other
    /// walks when it has `turns` to give up.
    fn walk(&self, iteration: u64, turns: Option<&Turns<'_>>) -> Result<BatchStats, CfrError> {
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
            turns,
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
