//! How each side's hands end, by where its game stood when they were
//! dealt: what a bot that plays for the game changes (it orders on thinner
//! hands when the other side is about to win, goes alone less when a make
//! already wins), which points a hand cannot show.

use std::fmt::Write;

use euchre_game::engine::seat::Team;
use euchre_game::engine::state::GameState;
use euchre_game::game::GameScore;
use serde::{Deserialize, Serialize};

/// Where a game stands for one side, as the hand is dealt. "Near" is two
/// points or fewer from the target: one made hand away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScoreBand {
    /// Both sides at least five points from the target.
    Early,
    /// Neither side near, one of them closer than five.
    Middle,
    /// This side near the target, the other not.
    NearWin,
    /// The other side near the target, this one not.
    NearLoss,
    /// Both near.
    BothNear,
}

impl ScoreBand {
    pub const ALL: [ScoreBand; 5] = [
        ScoreBand::Early,
        ScoreBand::Middle,
        ScoreBand::NearWin,
        ScoreBand::NearLoss,
        ScoreBand::BothNear,
    ];

    /// `team`'s band at `score`.
    pub fn of(score: &GameScore, team: Team) -> ScoreBand {
        let (ours, theirs) = score.of(team);
        let to_go = |points: u8| score.target.saturating_sub(points);
        match (to_go(ours) <= 2, to_go(theirs) <= 2) {
            (true, true) => ScoreBand::BothNear,
            (true, false) => ScoreBand::NearWin,
            (false, true) => ScoreBand::NearLoss,
            (false, false) if to_go(ours) >= 5 && to_go(theirs) >= 5 => ScoreBand::Early,
            (false, false) => ScoreBand::Middle,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            ScoreBand::Early => "both 5 or more to go",
            ScoreBand::Middle => "neither within 2",
            ScoreBand::NearWin => "within 2 of winning",
            ScoreBand::NearLoss => "the other side within 2",
            ScoreBand::BothNear => "both within 2",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// One side's hands in one band.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BandTally {
    pub hands: u64,
    /// Hands in which this side made trump.
    pub made_trump: u64,
    pub alone: u64,
    /// Of its contracts, those that took all five tricks, and those
    /// euchred.
    pub marched: u64,
    pub euchred: u64,
}

impl BandTally {
    fn add(&mut self, other: &BandTally) {
        self.hands += other.hands;
        self.made_trump += other.made_trump;
        self.alone += other.alone;
        self.marched += other.marched;
        self.euchred += other.euchred;
    }
}

/// Each side's tallies by band: `[band][side]`, side 0 being A.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutcomesByScore {
    pub tallies: [[BandTally; 2]; ScoreBand::ALL.len()],
}

impl OutcomesByScore {
    /// Counts a finished hand `state`, dealt at `score`, with A seated as
    /// `a_team`.
    pub fn record(&mut self, score: &GameScore, state: &GameState, a_team: Team) {
        for (side, team) in [a_team, a_team.other()].into_iter().enumerate() {
            let tally = &mut self.tallies[ScoreBand::of(score, team).index()][side];
            tally.hands += 1;
            let Some(contract) = state.contract() else {
                continue;
            };
            if contract.maker.team() != team {
                continue;
            }
            tally.made_trump += 1;
            tally.alone += u64::from(contract.alone);
            if let Some(outcome) = state.outcome() {
                let tricks = outcome.tricks[team.index()];
                tally.marched += u64::from(tricks == 5);
                tally.euchred += u64::from(tricks < 3);
            }
        }
    }

    pub fn merge(mut self, other: &OutcomesByScore) -> OutcomesByScore {
        for (mine, theirs) in self.tallies.iter_mut().zip(&other.tallies) {
            for (side, other_side) in mine.iter_mut().zip(theirs) {
                side.add(other_side);
            }
        }
        self
    }

    /// `side`'s tally in `band`.
    pub fn get(&self, band: ScoreBand, side: usize) -> &BandTally {
        &self.tallies[band.index()][side]
    }

    /// Whether no hand has been counted.
    pub fn is_empty(&self) -> bool {
        self.tallies.iter().flatten().all(|tally| tally.hands == 0)
    }

    /// The tallies as a text table, the sides named `sides` (A, then B):
    /// how often each made trump and went alone (of its hands in the
    /// band), and how many of its contracts marched or were euchred.
    pub fn table(&self, sides: [&str; 2]) -> String {
        let width = sides.iter().map(|s| s.len()).max().unwrap_or(4).max(4);
        let mut out = format!(
            "{:<25} {:<width$} {:>7} {:>6} {:>6} {:>6} {:>6}\n",
            "score band", "side", "hands", "makes", "alone", "march", "euch."
        );
        let percent = |part: u64, whole: u64| {
            if whole == 0 {
                "-".to_owned()
            } else {
                format!("{:.1}%", 100.0 * part as f64 / whole as f64)
            }
        };
        for band in ScoreBand::ALL {
            for (side, name) in sides.into_iter().enumerate() {
                let tally = self.get(band, side);
                let _ = writeln!(
                    out,
                    "{:<25} {:<width$} {:>7} {:>6} {:>6} {:>6} {:>6}",
                    if side == 0 { band.label() } else { "" },
                    name,
                    tally.hands,
                    percent(tally.made_trump, tally.hands),
                    percent(tally.alone, tally.hands),
                    percent(tally.marched, tally.made_trump),
                    percent(tally.euchred, tally.made_trump),
                );
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use euchre_game::engine::seat::Seat;

    fn score(points: [u8; 2]) -> GameScore {
        GameScore {
            points,
            dealer: Seat::North,
            target: 10,
        }
    }

    #[test]
    fn bands_are_seen_from_each_side() {
        let ns = Team::NorthSouth;
        let ew = Team::EastWest;
        assert_eq!(ScoreBand::of(&score([0, 5]), ns), ScoreBand::Early);
        assert_eq!(ScoreBand::of(&score([0, 6]), ns), ScoreBand::Middle);
        assert_eq!(ScoreBand::of(&score([8, 3]), ns), ScoreBand::NearWin);
        assert_eq!(ScoreBand::of(&score([8, 3]), ew), ScoreBand::NearLoss);
        assert_eq!(ScoreBand::of(&score([9, 8]), ew), ScoreBand::BothNear);
        assert_eq!(ScoreBand::of(&score([7, 7]), ew), ScoreBand::Middle);
    }
}
