//! Exact best response and exploitability for two-player zero-sum games.
//!
//! A best response must pick one action per *infostate*, weighing every
//! node in it by how likely the opponent and chance are to reach it. It is
//! computed on demand: deciding an infostate evaluates its nodes' subtrees,
//! which decides deeper infostates first. With perfect recall a deeper
//! infostate never depends on a shallower one, so each node's value under
//! the best response is computed once and memoised.

use store::MAX_ACTIONS;

use crate::error::CfrError;
use crate::policy::Policy;
use crate::tree::{NodeKind, Tree};

struct BestResponse<'a> {
    tree: &'a Tree,
    responder: usize,
    /// The fixed strategy of every infostate (responder's entries unused).
    strategy: Vec<[f64; MAX_ACTIONS]>,
    /// Probability that chance and the other player reach each node.
    reach: Vec<f64>,
    value: Vec<Option<f64>>,
    choice: Vec<Option<usize>>,
}

impl BestResponse<'_> {
    fn compute_reach(&mut self) {
        // Nodes are stored parent before child, so one forward pass suffices.
        self.reach[0] = 1.0;
        for node in 0..self.tree.nodes.len() {
            let reach = self.reach[node];
            let kind = self.tree.nodes[node].kind;
            for (action, edge) in self.tree.children(node as u32).enumerate() {
                let child = self.tree.edges[edge] as usize;
                self.reach[child] = match kind {
                    NodeKind::Chance => reach * self.tree.edge_probability[edge],
                    NodeKind::Decision { player, infoset } if player as usize != self.responder => {
                        reach * self.strategy[infoset as usize][action]
                    }
                    _ => reach,
                };
            }
        }
    }

    fn decide(&mut self, infoset: usize) -> usize {
        if let Some(action) = self.choice[infoset] {
            return action;
        }
        let tree = self.tree;
        let info = &tree.infosets[infoset];
        let mut totals = [0.0; MAX_ACTIONS];
        for &node in &info.nodes {
            let reach = self.reach[node as usize];
            for (action, edge) in tree.children(node).enumerate() {
                totals[action] += reach * self.node_value(tree.edges[edge]);
            }
        }
        let best = (0..info.num_actions)
            .max_by(|&a, &b| totals[a].total_cmp(&totals[b]))
            .unwrap_or(0);
        self.choice[infoset] = Some(best);
        best
    }

    fn node_value(&mut self, node: u32) -> f64 {
        if let Some(value) = self.value[node as usize] {
            return value;
        }
        let tree = self.tree;
        let value = match tree.nodes[node as usize].kind {
            NodeKind::Terminal { payoff_offset } => tree.payoff(payoff_offset, self.responder),
            NodeKind::Chance => tree
                .children(node)
                .map(|edge| tree.edge_probability[edge] * self.node_value(tree.edges[edge]))
                .sum(),
            NodeKind::Decision { player, infoset } if player as usize == self.responder => {
                let action = self.decide(infoset as usize);
                let edge = tree.children(node).start + action;
                self.node_value(tree.edges[edge])
            }
            NodeKind::Decision { infoset, .. } => {
                let mut total = 0.0;
                for (action, edge) in tree.children(node).enumerate() {
                    let probability = self.strategy[infoset as usize][action];
                    if probability > 0.0 {
                        total += probability * self.node_value(tree.edges[edge]);
                    }
                }
                total
            }
        };
        self.value[node as usize] = Some(value);
        value
    }
}

fn tabulate(tree: &Tree, policy: &dyn Policy) -> Vec<[f64; MAX_ACTIONS]> {
    tree.infosets
        .iter()
        .map(|info| {
            let mut row = [0.0; MAX_ACTIONS];
            policy.probabilities(info.key, &mut row[..info.num_actions]);
            row
        })
        .collect()
}

/// The value `responder` gets by best-responding to `policy`.
pub fn best_response_value(tree: &Tree, policy: &dyn Policy, responder: usize) -> f64 {
    let mut search = BestResponse {
        tree,
        responder,
        strategy: tabulate(tree, policy),
        reach: vec![0.0; tree.nodes.len()],
        value: vec![None; tree.nodes.len()],
        choice: vec![None; tree.infosets.len()],
    };
    search.compute_reach();
    search.node_value(0)
}

/// Each player's expected payoff when everyone plays `policy`.
pub fn expected_values(tree: &Tree, policy: &dyn Policy) -> Vec<f64> {
    let strategy = tabulate(tree, policy);
    let mut values = vec![0.0; tree.num_players];
    let mut reach = vec![0.0; tree.nodes.len()];
    reach[0] = 1.0;
    for node in 0..tree.nodes.len() {
        let kind = tree.nodes[node].kind;
        if let NodeKind::Terminal { payoff_offset } = kind {
            for (player, value) in values.iter_mut().enumerate() {
                *value += reach[node] * tree.payoff(payoff_offset, player);
            }
        }
        for (action, edge) in tree.children(node as u32).enumerate() {
            let probability = match kind {
                NodeKind::Chance => tree.edge_probability[edge],
                NodeKind::Decision { infoset, .. } => strategy[infoset as usize][action],
                NodeKind::Terminal { .. } => 0.0,
            };
            reach[tree.edges[edge] as usize] = reach[node] * probability;
        }
    }
    values
}

/// Exploitability, NashConv / 2: how much the two best responses gain on
/// average. Zero exactly at a Nash equilibrium.
pub fn exploitability(tree: &Tree, policy: &dyn Policy) -> Result<f64, CfrError> {
    if tree.num_players != 2 {
        return Err(CfrError::NotTwoPlayer(tree.num_players));
    }
    let values = expected_values(tree, policy);
    let nash_conv: f64 = (0..2)
        .map(|p| best_response_value(tree, policy, p) - values[p])
        .sum();
    Ok(nash_conv / 2.0)
}
