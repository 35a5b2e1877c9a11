//! A game with the solver's optional hooks set by plain functions, so a
//! test gives Kuhn or Leduc a suggestion, a model or sides without
//! restating every method of `Game`.

use cfr::{Game, Node};
use rand::Rng;

/// `G`, answering [`Game::suggested_action`], [`Game::modelled_action`],
/// [`Game::same_side`] and [`Game::keeps_average`] with the given
/// functions and everything else as `G` does.
#[derive(Clone)]
pub(crate) struct Hooked<G> {
    pub game: G,
    pub suggested: fn(&G) -> Option<usize>,
    pub modelled: fn(&G) -> Option<usize>,
    pub same_side: fn(usize, usize) -> bool,
    pub keeps_average: fn(&G) -> bool,
}

impl<G: Game> Hooked<G> {
    /// `game` with no suggestion, no model, every player on its own, and
    /// the average kept everywhere.
    pub(crate) fn new(game: G) -> Hooked<G> {
        Hooked {
            game,
            suggested: |_| None,
            modelled: |_| None,
            same_side: |a, b| a == b,
            keeps_average: |_| true,
        }
    }
}

impl<G: Game> Game for Hooked<G> {
    fn num_players(&self) -> usize {
        self.game.num_players()
    }
    fn node(&self) -> Node {
        self.game.node()
    }
    fn num_actions(&self) -> usize {
        self.game.num_actions()
    }
    fn chance_probability(&self, outcome: usize) -> f64 {
        self.game.chance_probability(outcome)
    }
    fn apply(&mut self, action: usize) {
        self.game.apply(action);
    }
    fn info_key(&self) -> u128 {
        self.game.info_key()
    }
    fn payoff(&self, player: usize) -> f64 {
        self.game.payoff(player)
    }
    fn prunable(&self) -> bool {
        self.game.prunable()
    }
    fn sample_chance<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        self.game.sample_chance(rng)
    }
    fn suggested_action(&self) -> Option<usize> {
        (self.suggested)(&self.game)
    }
    fn modelled_action(&self) -> Option<usize> {
        (self.modelled)(&self.game)
    }
    fn same_side(&self, a: usize, b: usize) -> bool {
        (self.same_side)(a, b)
    }
    fn keeps_average(&self) -> bool {
        (self.keeps_average)(&self.game)
    }
}
