//! Full-tree CFR, CFR+ and DCFR for games small enough to walk whole.
//!
//! Updates alternate between players: player 0's regrets are updated with
//! a full traversal, then player 1's against player 0's new strategy. Within
//! a traversal the current strategy is fixed: regret and strategy-sum
//! increments go to flat per-infostate buffers, and are written to the
//! table once at the end, through the same lazy-discounting path as MCCFR.

use store::{MAX_ACTIONS, SlotId, Table};

use crate::discount::{Discounter, Schedule};
use crate::error::CfrError;
use crate::game::Game;
use crate::regret::{floor_regrets, regret_matching};
use crate::tree::{NodeKind, Tree};

pub struct ExactSolver<'t, T: Table + ?Sized> {
    tree: Tree,
    table: &'t T,
    slots: Vec<SlotId>,
    discounter: Discounter,
    iteration: u32,
    strategy: Vec<[f64; MAX_ACTIONS]>,
    regret_delta: Vec<[f64; MAX_ACTIONS]>,
    strategy_delta: Vec<[f64; MAX_ACTIONS]>,
}

impl<T: Table + ?Sized> std::fmt::Debug for ExactSolver<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactSolver")
            .field("infosets", &self.tree.infosets.len())
            .field("iteration", &self.iteration)
            .finish()
    }
}

impl<'t, T: Table + ?Sized> ExactSolver<'t, T> {
    /// Builds the tree and claims a slot for every infostate. Iterations
    /// count from zero, so the table should be fresh: records left by an
    /// earlier solver would be discounted as if they were this one's.
    pub fn new<G: Game>(root: &G, table: &'t T, schedule: Schedule) -> Result<Self, CfrError> {
        let tree = Tree::build(root)?;
        let slots = tree
            .infosets
            .iter()
            .map(|info| table.slot(info.key))
            .collect::<Result<Vec<_>, _>>()?;
        let count = tree.infosets.len();
        Ok(ExactSolver {
            tree,
            table,
            slots,
            discounter: Discounter::new(schedule)?,
            iteration: 0,
            strategy: vec![[0.0; MAX_ACTIONS]; count],
            regret_delta: vec![[0.0; MAX_ACTIONS]; count],
            strategy_delta: vec![[0.0; MAX_ACTIONS]; count],
        })
    }

    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// Iterations completed.
    pub fn iteration(&self) -> u32 {
        self.iteration
    }

    /// Runs one iteration: a traversal and update for each player in turn.
    pub fn iterate(&mut self) -> Result<(), CfrError> {
        self.iteration += 1;
        let now = u64::from(self.iteration);
        for player in 0..self.tree.num_players {
            self.load_strategies(now)?;
            for row in self
                .regret_delta
                .iter_mut()
                .chain(self.strategy_delta.iter_mut())
            {
                *row = [0.0; MAX_ACTIONS];
            }
            let mut walk = Walk {
                tree: &self.tree,
                strategy: &self.strategy,
                regret_delta: &mut self.regret_delta,
                strategy_delta: &mut self.strategy_delta,
                traverser: player,
            };
            walk.node(0, 1.0, 1.0);
            self.store_updates(player, now)?;
        }
        Ok(())
    }

    fn load_strategies(&mut self, now: u64) -> Result<(), CfrError> {
        let mut regrets = [0.0; MAX_ACTIONS];
        for (index, info) in self.tree.infosets.iter().enumerate() {
            let record = self.table.read(self.slots[index])?;
            let n = info.num_actions;
            self.discounter
                .current_regrets(&record, now, &mut regrets[..n]);
            regret_matching(&regrets[..n], &mut self.strategy[index][..n]);
        }
        Ok(())
    }

    fn store_updates(&self, player: usize, now: u64) -> Result<(), CfrError> {
        let floor = self.discounter.schedule().floor_regrets;
        for (index, info) in self.tree.infosets.iter().enumerate() {
            if info.player != player {
                continue;
            }
            let (regrets, sums) = (&self.regret_delta[index], &self.strategy_delta[index]);
            self.table.update(self.slots[index], &mut |record| {
                self.discounter.catch_up(record, now);
                for action in 0..info.num_actions {
                    record.regrets[action] =
                        (f64::from(record.regrets[action]) + regrets[action]) as f32;
                    record.strategy_sum[action] =
                        (f64::from(record.strategy_sum[action]) + sums[action]) as f32;
                }
                if floor {
                    floor_regrets(&mut record.regrets[..info.num_actions]);
                }
            })?;
        }
        Ok(())
    }
}

/// One traversal's borrowed state.
struct Walk<'a> {
    tree: &'a Tree,
    strategy: &'a [[f64; MAX_ACTIONS]],
    regret_delta: &'a mut [[f64; MAX_ACTIONS]],
    strategy_delta: &'a mut [[f64; MAX_ACTIONS]],
    traverser: usize,
}

impl Walk<'_> {
    /// The traverser's expected value at `node`, given the traverser's own
    /// reach probability and everyone else's (chance included).
    fn node(&mut self, node: u32, own_reach: f64, others_reach: f64) -> f64 {
        let tree = self.tree;
        match tree.nodes[node as usize].kind {
            NodeKind::Terminal { payoff_offset } => tree.payoff(payoff_offset, self.traverser),
            NodeKind::Chance => tree
                .children(node)
                .map(|edge| {
                    let probability = tree.edge_probability[edge];
                    probability * self.node(tree.edges[edge], own_reach, others_reach * probability)
                })
                .sum(),
            NodeKind::Decision { player, infoset } => {
                let infoset = infoset as usize;
                let sigma = self.strategy[infoset];
                let edges = tree.children(node);
                if player as usize != self.traverser {
                    let mut value = 0.0;
                    for (action, edge) in edges.enumerate() {
                        let child_reach = others_reach * sigma[action];
                        // Subtrees nobody reaches contribute nothing; a subtree
                        // only the traverser reaches still adds to its average.
                        if child_reach > 0.0 || own_reach > 0.0 {
                            value +=
                                sigma[action] * self.node(tree.edges[edge], own_reach, child_reach);
                        }
                    }
                    return value;
                }
                if own_reach == 0.0 && others_reach == 0.0 {
                    return 0.0;
                }
                let mut action_values = [0.0; MAX_ACTIONS];
                let mut value = 0.0;
                for (action, edge) in edges.enumerate() {
                    action_values[action] =
                        self.node(tree.edges[edge], own_reach * sigma[action], others_reach);
                    value += sigma[action] * action_values[action];
                }
                let width = tree.nodes[node as usize].num_children as usize;
                for action in 0..width {
                    self.regret_delta[infoset][action] +=
                        others_reach * (action_values[action] - value);
                    self.strategy_delta[infoset][action] += own_reach * sigma[action];
                }
                value
            }
        }
    }
}

/// The result of [`solve`]: the average strategy's quality.
#[derive(Clone, Debug, PartialEq)]
pub struct Solved {
    pub iterations: u32,
    pub exploitability: f64,
    /// Each player's expected payoff under the average strategy.
    pub values: Vec<f64>,
    pub infosets: usize,
    /// Time spent iterating, excluding tree building and measurement.
    pub iterate_seconds: f64,
}

/// Runs `iterations` of exact CFR under `schedule` on a fresh memory table
/// and measures the average strategy: the common case of tests and benches.
pub fn solve<G: Game>(root: &G, schedule: Schedule, iterations: u32) -> Result<Solved, CfrError> {
    let table = store::MemoryTable::new();
    let mut solver = ExactSolver::new(root, &table, schedule)?;
    let started = std::time::Instant::now();
    for _ in 0..iterations {
        solver.iterate()?;
    }
    let iterate_seconds = started.elapsed().as_secs_f64();
    let policy = crate::policy::AveragePolicy::load(&table)?;
    let tree = solver.tree();
    Ok(Solved {
        iterations,
        exploitability: crate::best_response::exploitability(tree, &policy)?,
        values: crate::best_response::expected_values(tree, &policy),
        infosets: tree.infosets.len(),
        iterate_seconds,
    })
}
