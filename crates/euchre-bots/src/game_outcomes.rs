//! How often a hand scores each way when one bot plays all four seats:
//! the figures a [`euchre_game::game::win::WinModel`] is solved from. Each
//! deal is played once (the first of the arena's two tables: the second
//! is the same bot in the same seats), its dealer rotating with the deal's
//! number as in every match here.

use std::sync::Arc;

use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::game::win::{GAINS, HandOutcomes, OutcomeError};

use crate::arena::run_match;
use crate::bot::Bot;

/// The outcomes of `hands` deals of `bot` against itself, tallied from the
/// dealing side's point of view.
pub fn self_play_outcomes(
    bot: &Arc<dyn Bot>,
    rules: Rules,
    hands: u64,
    seed: u64,
    on_hand: &(dyn Fn() + Sync),
) -> Result<HandOutcomes, OutcomeError> {
    let results = run_match(bot, bot, rules, hands, seed, on_hand);
    let mut dealers = [0u64; 3];
    let mut others = [0u64; 3];
    let mut nothing = 0u64;
    for (index, deal) in results.iter().enumerate() {
        // At the first table the bot called A sits north-south.
        let hand = &deal.tables[0];
        let dealer_team = Seat::from_index((index % 4) as u8).team();
        let points_of = |team: Team| hand.points[team.index()];
        let (dealing, other) = (points_of(dealer_team), points_of(dealer_team.other()));
        match (dealing, other) {
            (0, 0) => nothing += 1,
            (gain, 0) => dealers[gain_index(gain)] += 1,
            (0, gain) => others[gain_index(gain)] += 1,
            _ => unreachable!("a hand scores for one side at most"),
        }
    }
    HandOutcomes::from_counts(
        dealers,
        others,
        nothing,
        format!("{} against itself, {hands} hands, seed {seed}", bot.name()),
    )
}

/// The outcomes every bot that plays for the game values by, unless told
/// otherwise: `pimc:50` against itself over 20,000 hands (seed 1, the
/// default rules), `trainer win-model --bot pimc:50 --hands 20000`, as
/// that command printed them, to 0.1% (the dealer's side scores 1, 2, 4:
/// 43.7%, 20.2%, 4.5%; the other side 16.6%, 14.2%, 0.9%; an edge of
/// +0.537 points a hand to the dealer's side). PIMC-50 is the yardstick
/// the field reports against; the heuristic's own hands give chances
/// within a few points of these (`docs/experiments/win-model.md`).
pub fn reference() -> HandOutcomes {
    HandOutcomes::from_counts(
        [437, 202, 45],
        [166, 142, 9],
        0,
        "pimc:50 against itself, 20,000 hands (seed 1), to 0.1%",
    )
    .expect("a distribution")
}

fn gain_index(gain: u8) -> usize {
    GAINS
        .iter()
        .position(|&g| g == gain)
        .expect("a hand scores 1, 2 or 4")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::heuristic::Heuristic;

    #[test]
    fn the_reference_outcomes_are_a_distribution_favouring_the_dealer() {
        let reference = reference();
        assert!(reference.clone().checked().is_ok());
        assert!((reference.dealers_edge() - 0.537).abs() < 0.01);
    }

    #[test]
    fn the_heuristics_hands_mostly_make_and_favour_no_impossible_score() {
        let bot: Arc<dyn Bot> = Arc::new(Heuristic);
        let outcomes = self_play_outcomes(&bot, Rules::default(), 2000, 3, &|| {}).unwrap();
        let total: f64 =
            outcomes.dealers.iter().chain(&outcomes.others).sum::<f64>() + outcomes.nothing;
        assert!((total - 1.0).abs() < 1e-12);
        assert_eq!(outcomes.nothing, 0.0, "stick the dealer: every hand scores");
        // Makes (1 point) are the commonest outcome for either side.
        assert!(
            outcomes.dealers[0] + outcomes.others[0] > 0.4,
            "{outcomes:?}"
        );
        assert!(outcomes.source.contains("2000 hands"));
    }
}
