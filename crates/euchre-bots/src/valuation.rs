//! What a searching bot maximises over its worlds: the points its side
//! scores in the hand (score-blind, as every yardstick plays), or its
//! side's chance of winning the game from the score it sees
//! ([`euchre_game::game::win`]). Near the end of a game the two differ: at
//! 9 points a make wins as surely as a march, and a euchre that hands the
//! other side the game costs more than its two points.

use euchre_game::engine::seat::Team;
use euchre_game::engine::state::Outcome;
use euchre_game::game::GameScore;
use euchre_game::game::win::{HandOutcomes, WinModel};

/// Chances are tallied as whole millionths, so that a bot's tallies stay
/// integers (sums of many worlds add exactly, and ties break the same way
/// on every machine).
const CHANCE_UNIT: f64 = 1e6;

/// How a bot values the end of a hand.
#[derive(Clone, Debug, PartialEq)]
pub enum Valuation {
    /// Its side's points minus the other side's: score-blind.
    Points,
    /// Its side's chance of winning the game, from a model solved from
    /// these hand outcomes; points where the view carries no score.
    Game(HandOutcomes),
}

impl Valuation {
    /// This valuation, or the other unit's: a bot already playing for the
    /// game keeps its outcomes, and one playing for points takes the
    /// reference outcomes every `,game` bot is built with.
    pub(crate) fn toward(&self, for_the_game: bool) -> Valuation {
        match (self, for_the_game) {
            (Valuation::Game(_), true) => self.clone(),
            (Valuation::Points, true) => Valuation::Game(crate::game_outcomes::reference()),
            (_, false) => Valuation::Points,
        }
    }
}

/// A valuation fixed for one decision: the model solved for the game's
/// target and the score as the hand was dealt.
#[derive(Clone, Debug)]
pub(crate) enum Valuer {
    Points,
    Game { model: WinModel, score: GameScore },
}

impl Valuer {
    /// The valuer of a decision whose view shows `score`.
    pub(crate) fn new(valuation: &Valuation, score: Option<GameScore>) -> Valuer {
        match (valuation, score) {
            (Valuation::Game(outcomes), Some(score)) => match WinModel::new(score.target, outcomes)
            {
                Ok(model) => Valuer::Game { model, score },
                // Outcomes that were checked when the bot was built always
                // solve; a target out of range plays by points.
                Err(_) => Valuer::Points,
            },
            _ => Valuer::Points,
        }
    }

    /// `team`'s value of a hand that ends with `outcome`, in the unit
    /// [`Self::scale`] converts from.
    pub(crate) fn value(&self, outcome: &Outcome, team: Team) -> i64 {
        match self {
            Valuer::Points => i64::from(outcome.payoff(team)),
            Valuer::Game { model, score } => {
                (model.chance_after(score, team, outcome) * CHANCE_UNIT).round() as i64
            }
        }
    }

    /// Divides a value into points, or into a chance between 0 and 1.
    pub(crate) fn scale(&self) -> f64 {
        match self {
            Valuer::Points => 1.0,
            Valuer::Game { .. } => CHANCE_UNIT,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_game::engine::seat::Seat;

    fn coin() -> HandOutcomes {
        HandOutcomes::even(0.0)
    }

    #[test]
    fn a_game_valuer_prices_outcomes_by_the_chance_they_leave_and_points_without_a_score() {
        let score = GameScore {
            points: [9, 8],
            dealer: Seat::North,
            target: 10,
        };
        let made = Outcome {
            points: [1, 0],
            tricks: [3, 2],
        };
        let marched = Outcome {
            points: [2, 0],
            tricks: [5, 0],
        };
        let euchred = Outcome {
            points: [0, 2],
            tricks: [2, 3],
        };
        let game = Valuer::new(&Valuation::Game(coin()), Some(score));
        let team = Team::NorthSouth;
        assert_eq!(game.value(&made, team), 1_000_000);
        assert_eq!(game.value(&marched, team), game.value(&made, team));
        assert_eq!(
            game.value(&euchred, team),
            0,
            "a euchre at 9-8 loses the game"
        );
        assert_eq!(game.scale(), 1e6);
        let blind = Valuer::new(&Valuation::Game(coin()), None);
        assert_eq!(blind.value(&marched, team), 2);
        assert_eq!(blind.value(&euchred, team), -2);
        let points = Valuer::new(&Valuation::Points, Some(score));
        assert_eq!(points.value(&marched, team), 2);
    }
}
