//! A restricted Nash response (Johanson, Zinkevich and Bowling 2007): a
//! strategy that exploits a known model of its opponents while staying
//! hard to exploit itself.
//!
//! An equilibrium assumes nothing about its opponents, so against a
//! particular weak player it leaves points on the table; a best response
//! to that player takes them, and may lose badly to anyone else. With
//! this set, in a `share` of each traverser's walks the traverser's
//! opponents (every player not on its side, [`Game::same_side`]) play the
//! game's model ([`Game::modelled_action`]) wherever it has one, and in
//! the rest they play their own current strategy as usual. The solver then
//! converges towards a strategy that is best against opponents who play
//! the model that share of the time and their own best the rest: `share`
//! 0 is the equilibrium, 1 a best response to the model, and values
//! between trade what is won from the model against what can be lost to
//! anyone else.
//!
//! A modelled decision is neither looked up nor stored: it adds nothing
//! to the strategy sums, so the average strategy is built from the other
//! walks and from the traverser's partners (who always play their own
//! strategy). In a two-player game with `share` 1, the modelled player's
//! average is built only from the walks where it is not the traverser's
//! opponent, which is to say, where it has no model.
//!
//! The coin for each walk comes from a stream of its own, so a run without
//! a model draws exactly what it drew before.
//!
//! [`Game::same_side`]: crate::Game::same_side
//! [`Game::modelled_action`]: crate::Game::modelled_action

use rand::RngExt;
use rand::rngs::SmallRng;

use crate::error::CfrError;

/// How often the traverser's opponents play the game's model.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpponentModel {
    /// The share of walks, in `(0, 1]`, in which they do.
    pub share: f64,
}

/// Keeps the model's coin apart from the iteration's other streams.
pub(crate) const MODEL_STREAM: u64 = 0x4d4f_4445_4c4c_4544;

impl OpponentModel {
    pub fn validate(&self) -> Result<(), CfrError> {
        if !(self.share > 0.0 && self.share <= 1.0) {
            return Err(CfrError::OpponentModel(format!(
                "share {} must be above 0 and at most 1 (no model at all is the equilibrium)",
                self.share
            )));
        }
        Ok(())
    }

    /// Whether this walk's opponents play the model.
    pub(crate) fn plays_model(&self, coin: &mut SmallRng) -> bool {
        coin.random::<f64>() < self.share
    }
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

    use super::*;

    #[test]
    fn a_share_outside_zero_to_one_is_refused() {
        for share in [0.0, -0.5, 1.5, f64::NAN] {
            assert!(OpponentModel { share }.validate().is_err(), "{share}");
        }
        for share in [0.25, 1.0] {
            assert!(OpponentModel { share }.validate().is_ok(), "{share}");
        }
    }

    #[test]
    fn the_coin_lands_on_the_model_about_share_of_the_time() {
        let mut coin = SmallRng::seed_from_u64(7);
        let model = OpponentModel { share: 0.3 };
        let hits = (0..100_000)
            .filter(|_| model.plays_model(&mut coin))
            .count();
        assert!((29_000..31_000).contains(&hits), "{hits}");
        let always = OpponentModel { share: 1.0 };
        assert!((0..1000).all(|_| always.plays_model(&mut coin)));
    }
}
