//! The trait a game implements to be solved.

use rand::{Rng, RngExt};

/// What happens at a state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Terminal,
    /// Nature picks one of `num_actions` outcomes with `chance_probability`:
    /// a chance node that full-tree solvers can enumerate.
    Chance,
    /// Nature draws an outcome from a space too large to list (a shuffled
    /// deck): only [`Game::sample_chance`] is called here, so only sampling
    /// solvers can pass it, and full-tree solvers refuse the game.
    SampledChance,
    /// The player with this index (0-based) picks an action.
    Decision(usize),
}

/// A game state. Solvers clone states rather than undo moves, so a state
/// should be small plain data.
///
/// Actions are indices `0..num_actions()`. At a decision node, index `i`
/// must mean the same action at every state that shares an infostate key:
/// a game that canonicalises keys under a symmetry must order its actions
/// canonically too.
pub trait Game: Clone + Send + Sync {
    fn num_players(&self) -> usize;

    fn node(&self) -> Node;

    /// Legal actions at a decision, outcomes at a [`Node::Chance`]; never
    /// called at a [`Node::SampledChance`].
    fn num_actions(&self) -> usize;

    /// The probability of outcome `outcome` of a [`Node::Chance`]. Uniform
    /// unless the game says otherwise.
    fn chance_probability(&self, outcome: usize) -> f64 {
        let _ = outcome;
        1.0 / self.num_actions() as f64
    }

    fn apply(&mut self, action: usize);

    /// The acting player's infostate key; only called at decisions. Keys of
    /// different players' infostates must differ.
    fn info_key(&self) -> u128;

    /// The payoff of `player`; only called at terminal states.
    fn payoff(&self, player: usize) -> f64;

    /// Whether regret-based pruning ([`crate::Pruning`]) may skip actions at
    /// this decision. A game keeps the decisions nearest its payoffs
    /// unpruned, as Pluribus keeps its last betting round, so that the
    /// values every earlier regret is built from stay fully trained.
    fn prunable(&self) -> bool {
        true
    }

    /// Whether the average strategy is kept at this decision: where not,
    /// another player's visit reads its current strategy without adding
    /// to its strategy sums (only what the current strategy plays is
    /// then exported from there).
    fn keeps_average(&self) -> bool {
        true
    }

    /// An action a trusted player (a rule-based bot, say) would take here,
    /// for a [`crate::WarmStart`] to seed a fresh infostate with. It may
    /// read the whole state, but should depend only on what the actor
    /// knows: states that share a key share the seed of whichever is
    /// visited first. Only called at decisions, and only on an
    /// infostate's first visit.
    fn suggested_action(&self) -> Option<usize> {
        None
    }

    /// What a model of this decision's player plays here, for an
    /// [`crate::OpponentModel`] to play when the player is the traverser's
    /// opponent; `None` where the model has no say (the player's own
    /// strategy plays). It may read the whole state, but a model of a real
    /// player should depend only on what the actor knows.
    fn modelled_action(&self) -> Option<usize> {
        None
    }

    /// Whether players `a` and `b` play for one side, as partners in a team
    /// game do: an [`crate::OpponentModel`] models only the traverser's
    /// opponents, never its partners.
    fn same_side(&self, a: usize, b: usize) -> bool {
        a == b
    }

    /// Samples a chance outcome, which [`Game::apply`] then takes. The
    /// default walks the cumulative distribution of a [`Node::Chance`]; a
    /// game with [`Node::SampledChance`] must provide its own.
    fn sample_chance<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let mut remaining = rng.random::<f64>();
        let count = self.num_actions();
        for outcome in 0..count {
            remaining -= self.chance_probability(outcome);
            if remaining < 0.0 {
                return outcome;
            }
        }
        count - 1
    }
}
