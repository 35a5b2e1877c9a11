//! A game: hands played until a side reaches the target (10 by default),
//! the deal passing to the left after each hand. [`GameScore`] is the
//! state between hands; [`win`] turns a distribution of hand outcomes into
//! the chance of winning from any score and dealer.

pub mod context;
pub mod win;

use crate::engine::seat::{Seat, Team};
use crate::engine::state::Outcome;

/// The points that win a game unless a record or a table says otherwise.
pub const DEFAULT_TARGET: u8 = 10;

/// Where a game stands between hands: each side's points, who deals the
/// next hand, and the points that win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameScore {
    /// Points by [`Team::index`].
    pub points: [u8; 2],
    /// The dealer of the next hand.
    pub dealer: Seat,
    pub target: u8,
}

impl GameScore {
    /// A new game to `target` with `dealer` dealing first.
    pub fn start(dealer: Seat, target: u8) -> GameScore {
        GameScore {
            points: [0, 0],
            dealer,
            target,
        }
    }

    /// The side that has reached the target, if one has.
    pub fn winner(&self) -> Option<Team> {
        [Team::NorthSouth, Team::EastWest]
            .into_iter()
            .find(|team| self.points[team.index()] >= self.target)
    }

    /// The score after a hand ended with `outcome`: its points added (a
    /// side's total stops at the target, which is all that counts) and the
    /// deal passed to the left.
    pub fn after(&self, outcome: &Outcome) -> GameScore {
        self.after_points(outcome.points)
    }

    /// The score after a hand in which each side scored `won` (by
    /// [`Team::index`]): [`GameScore::after`] for a hand known only by
    /// its points.
    pub fn after_points(&self, won: [u8; 2]) -> GameScore {
        let mut points = self.points;
        for (total, &won) in points.iter_mut().zip(&won) {
            *total = total.saturating_add(won).min(self.target);
        }
        GameScore {
            points,
            dealer: self.dealer.left(),
            target: self.target,
        }
    }

    /// `team`'s points and the other side's.
    pub fn of(&self, team: Team) -> (u8, u8) {
        (self.points[team.index()], self.points[team.other().index()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_adds_its_points_and_passes_the_deal_left() {
        let start = GameScore::start(Seat::North, 10);
        let marched = Outcome {
            points: [0, 2],
            tricks: [0, 5],
        };
        let next = start.after(&marched);
        assert_eq!(next.points, [0, 2]);
        assert_eq!(next.dealer, Seat::North.left());
        assert_eq!(next.winner(), None);
        let close = GameScore {
            points: [9, 8],
            dealer: Seat::East,
            target: 10,
        };
        let loner = Outcome {
            points: [4, 0],
            tricks: [5, 0],
        };
        let done = close.after(&loner);
        assert_eq!(done.points, [10, 8], "a total stops at the target");
        assert_eq!(done.winner(), Some(Team::NorthSouth));
        assert_eq!(done.of(Team::EastWest), (8, 10));
    }
}
