//! A small game's whole tree in flat arrays, built once from the [`Game`]
//! trait, so that exact solvers and best responses run over indices instead
//! of re-deriving states and keys every iteration.

use std::collections::HashMap;

use store::MAX_ACTIONS;

use crate::error::CfrError;
use crate::game::{Game, Node};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Payoffs start at `payoff_offset` in [`Tree::payoffs`], one per player.
    Terminal {
        payoff_offset: u32,
    },
    Chance,
    Decision {
        player: u32,
        infoset: u32,
    },
}

#[derive(Clone, Copy, Debug)]
pub struct TreeNode {
    pub kind: NodeKind,
    /// Children are `edges[first_edge .. first_edge + num_children]`.
    pub first_edge: u32,
    pub num_children: u32,
}

/// One infostate: its key, owner, width, and every node in it.
#[derive(Clone, Debug)]
pub struct Infoset {
    pub key: u128,
    pub player: usize,
    pub num_actions: usize,
    pub nodes: Vec<u32>,
}

#[derive(Clone, Debug)]
pub struct Tree {
    pub num_players: usize,
    pub nodes: Vec<TreeNode>,
    /// Child node of each edge.
    pub edges: Vec<u32>,
    /// Chance probability of each edge (1 for decision edges).
    pub edge_probability: Vec<f64>,
    pub payoffs: Vec<f64>,
    pub infosets: Vec<Infoset>,
}

impl Tree {
    pub fn build<G: Game>(root: &G) -> Result<Tree, CfrError> {
        let mut tree = Tree {
            num_players: root.num_players(),
            nodes: Vec::new(),
            edges: Vec::new(),
            edge_probability: Vec::new(),
            payoffs: Vec::new(),
            infosets: Vec::new(),
        };
        let mut by_key = HashMap::new();
        tree.add(root, &mut by_key)?;
        Ok(tree)
    }

    fn add<G: Game>(
        &mut self,
        state: &G,
        by_key: &mut HashMap<u128, u32>,
    ) -> Result<u32, CfrError> {
        let id = self.nodes.len() as u32;
        let kind = match state.node() {
            Node::Terminal => {
                let payoff_offset = self.payoffs.len() as u32;
                self.payoffs
                    .extend((0..self.num_players).map(|p| state.payoff(p)));
                NodeKind::Terminal { payoff_offset }
            }
            Node::Chance => NodeKind::Chance,
            Node::SampledChance => return Err(CfrError::SampledChance),
            Node::Decision(player) => {
                let num_actions = state.num_actions();
                if num_actions > MAX_ACTIONS {
                    return Err(CfrError::TooManyActions {
                        actions: num_actions,
                        max: MAX_ACTIONS,
                    });
                }
                let key = state.info_key();
                let next = self.infosets.len() as u32;
                let infoset = *by_key.entry(key).or_insert(next);
                if infoset == next {
                    self.infosets.push(Infoset {
                        key,
                        player,
                        num_actions,
                        nodes: Vec::new(),
                    });
                }
                self.infosets[infoset as usize].nodes.push(id);
                NodeKind::Decision {
                    player: player as u32,
                    infoset,
                }
            }
        };
        let num_children = if matches!(kind, NodeKind::Terminal { .. }) {
            0
        } else {
            state.num_actions()
        };
        self.nodes.push(TreeNode {
            kind,
            first_edge: 0,
            num_children: num_children as u32,
        });
        let mut children = Vec::with_capacity(num_children);
        for action in 0..num_children {
            let mut child = state.clone();
            let probability = if kind == NodeKind::Chance {
                state.chance_probability(action)
            } else {
                1.0
            };
            child.apply(action);
            children.push((self.add(&child, by_key)?, probability));
        }
        self.nodes[id as usize].first_edge = self.edges.len() as u32;
        for (child, probability) in children {
            self.edges.push(child);
            self.edge_probability.push(probability);
        }
        Ok(id)
    }

    /// The edge range of `node`'s children.
    #[inline]
    pub fn children(&self, node: u32) -> std::ops::Range<usize> {
        let node = &self.nodes[node as usize];
        node.first_edge as usize..(node.first_edge + node.num_children) as usize
    }

    #[inline]
    pub fn payoff(&self, payoff_offset: u32, player: usize) -> f64 {
        self.payoffs[payoff_offset as usize + player]
    }
}
