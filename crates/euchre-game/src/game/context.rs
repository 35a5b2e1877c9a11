//! The score as bids that play for the game tell it apart: how far each
//! side is from winning, the dealer's side first.
//!
//! A policy file cannot hold a bid for every score (100 scores a target of
//! 10, times every bidding key), and most scores do not change a bid: far
//! from the end, a hand's points are what count. What changes bids is a
//! side one or two points from the target, where a make wins as surely as
//! a march (one to go) or a euchre ends the game (the other side two to
//! go). So a score-aware policy keeps one bid per key for each of nine
//! contexts: each side one, two, or more points to go. The context goes
//! into the bidding key ([`crate::keys::bidding::in_context`]); the
//! context where both sides have more to go is the plain key, so a
//! score-blind reader of a score-aware file plays its mid-game bids.

use crate::game::GameScore;

/// How many points a side needs to win, as far as bids tell it apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToGo {
    /// Three or more: a hand's points count as points.
    More,
    /// One: any make wins.
    One,
    /// Two: a march or a euchre wins.
    Two,
}

impl ToGo {
    pub const ALL: [ToGo; 3] = [ToGo::More, ToGo::One, ToGo::Two];

    /// The class of `points` short of `target`.
    pub fn of(points: u8, target: u8) -> ToGo {
        match target.saturating_sub(points) {
            0 | 1 => ToGo::One,
            2 => ToGo::Two,
            _ => ToGo::More,
        }
    }

    fn index(self) -> u8 {
        self as u8
    }

    /// `1`, `2` or `3+`.
    pub fn label(self) -> &'static str {
        match self {
            ToGo::More => "3+",
            ToGo::One => "1",
            ToGo::Two => "2",
        }
    }
}

/// Each side's points to go as a hand is dealt, the dealer's side first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScoreContext {
    pub dealers: ToGo,
    pub others: ToGo,
}

impl ScoreContext {
    /// Both sides three or more points to go: the plain key's context.
    pub const OPEN: ScoreContext = ScoreContext {
        dealers: ToGo::More,
        others: ToGo::More,
    };

    /// Every context, [`ScoreContext::OPEN`] first, in tag order.
    pub const ALL: [ScoreContext; 9] = {
        let mut all = [ScoreContext::OPEN; 9];
        let mut i = 0;
        while i < 9 {
            all[i] = ScoreContext {
                dealers: ToGo::ALL[i / 3],
                others: ToGo::ALL[i % 3],
            };
            i += 1;
        }
        all
    };

    /// The context of a hand dealt at `score` (whose dealer deals it).
    pub fn of(score: &GameScore) -> ScoreContext {
        let (dealers, others) = score.of(score.dealer.team());
        ScoreContext {
            dealers: ToGo::of(dealers, score.target),
            others: ToGo::of(others, score.target),
        }
    }

    /// A small number naming the context, 0 for [`ScoreContext::OPEN`]:
    /// what a bidding key carries.
    pub fn tag(self) -> u8 {
        self.dealers.index() * 3 + self.others.index()
    }

    /// The context a tag names.
    pub fn from_tag(tag: u8) -> Option<ScoreContext> {
        ScoreContext::ALL.get(usize::from(tag)).copied()
    }

    /// The points a side of this class has, to `target`: exact for one or
    /// two to go; for more, `more` (any score from 0 to `target` − 3,
    /// which the caller chooses: training draws one at random).
    pub fn points(to_go: ToGo, target: u8, more: u8) -> u8 {
        match to_go {
            ToGo::One => target.saturating_sub(1),
            ToGo::Two => target.saturating_sub(2),
            ToGo::More => more.min(target.saturating_sub(3)),
        }
    }
}

impl std::fmt::Display for ScoreContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "dealer's side {} to go, other side {}",
            self.dealers.label(),
            self.others.label()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::seat::Seat;

    #[test]
    fn every_context_has_its_own_tag_and_the_open_one_is_zero() {
        assert_eq!(ScoreContext::OPEN.tag(), 0);
        for (index, context) in ScoreContext::ALL.into_iter().enumerate() {
            assert_eq!(usize::from(context.tag()), index);
            assert_eq!(ScoreContext::from_tag(context.tag()), Some(context));
        }
        assert_eq!(ScoreContext::from_tag(9), None);
    }

    #[test]
    fn the_context_is_seen_from_the_dealer_whichever_seat_deals() {
        // North-south at 9 and east-west at 8, to 10.
        let score = |dealer| GameScore {
            points: [9, 8],
            dealer,
            target: 10,
        };
        let north_deals = ScoreContext::of(&score(Seat::North));
        assert_eq!(
            (north_deals.dealers, north_deals.others),
            (ToGo::One, ToGo::Two)
        );
        let east_deals = ScoreContext::of(&score(Seat::East));
        assert_eq!(
            (east_deals.dealers, east_deals.others),
            (ToGo::Two, ToGo::One)
        );
        assert_eq!(
            ScoreContext::of(&GameScore::start(Seat::South, 10)),
            ScoreContext::OPEN
        );
        // Seven to go is more; a side already at the target counts as one to go.
        assert_eq!(ToGo::of(7, 10), ToGo::More);
        assert_eq!(ToGo::of(5, 5), ToGo::One);
    }

    #[test]
    fn points_of_a_class_fall_in_that_class() {
        for to_go in ToGo::ALL {
            for more in 0..=20 {
                let points = ScoreContext::points(to_go, 10, more);
                assert_eq!(ToGo::of(points, 10), to_go, "{to_go:?} {more}");
            }
        }
    }
}
