//! The floor every other bot is measured from.

use euchre_game::engine::action::Action;
use rand::RngExt;
use rand::rngs::SmallRng;

use crate::bot::Bot;
use crate::seen::Seen;

/// Uniform over the legal actions.
#[derive(Debug)]
pub struct RandomBot;

impl Bot for RandomBot {
    fn name(&self) -> String {
        "random".to_owned()
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        legal[rng.random_range(0..legal.len())]
    }
}
