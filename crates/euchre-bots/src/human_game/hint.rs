//! A hint for the person's move: what the hint bot makes of each option,
//! and the one sentence a player reads first (the best move, by how much,
//! and what it does on the table).

use euchre_game::engine::action::Action;
use euchre_game::engine::move_effect::move_effect;
use euchre_game::engine::state::GameState;
use euchre_game::engine::words::{Glyphs, action_words};

use crate::bot::ActionValue;

/// What a bot makes of the person's options (see
/// [`super::HumanGame::hint`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// Each move's value in points per hand for the person's side.
    Values(Vec<ActionValue>),
    /// Each move's chance of winning the game for the person's side, from
    /// the score: the hint bot plays for the game.
    Chances(Vec<ActionValue>),
    Probabilities(Vec<(Action, f64)>),
    Choice(Action),
}

impl Hint {
    /// The move the hint recommends: the highest value or probability, or
    /// the bot's choice.
    pub fn best(&self) -> Option<Action> {
        match self {
            Hint::Values(values) | Hint::Chances(values) => values
                .iter()
                .max_by(|a, b| a.value.total_cmp(&b.value))
                .map(|value| value.action),
            Hint::Probabilities(probabilities) => probabilities
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(action, _)| *action),
            Hint::Choice(action) => Some(*action),
        }
    }

    /// "Best: play A♠ (+0.42 a hand, 0.31 more than lead K♥): it wins the
    /// trick: no card still out beats it." The margin is over the next best
    /// option where the bot values moves; what the move does is read from
    /// the cards the person sees ([`move_effect`]).
    pub fn advice(&self, state: &GameState, glyphs: &dyn Glyphs) -> Option<String> {
        let best = self.best()?;
        let words = action_words(best, glyphs);
        let margin = match self {
            Hint::Values(values) => margin(
                values,
                best,
                glyphs,
                |value| format!("{value:+.2} points a hand"),
                |difference| format!("{difference:.2}"),
            ),
            Hint::Chances(values) => margin(
                values,
                best,
                glyphs,
                |value| format!("{:.1}% to win the game", 100.0 * value),
                |difference| format!("{:.1} points of chance", 100.0 * difference),
            ),
            Hint::Probabilities(probabilities) => probabilities
                .iter()
                .find(|(action, _)| *action == best)
                .map(|(_, p)| format!(" (the bot plays it {:.0}% of the time)", 100.0 * p))
                .unwrap_or_default(),
            Hint::Choice(_) => String::new(),
        };
        Some(format!(
            "Best: {words}{margin}: it {}.",
            move_effect(state, best, glyphs)
        ))
    }
}

/// " (+0.42 points a hand, 0.31 more than pass)": the best move's value
/// and its lead over the next best, in the hint's unit.
fn margin(
    values: &[ActionValue],
    best: Action,
    glyphs: &dyn Glyphs,
    value: impl Fn(f64) -> String,
    difference: impl Fn(f64) -> String,
) -> String {
    let Some(top) = values.iter().find(|option| option.action == best) else {
        return String::new();
    };
    let runner_up = values
        .iter()
        .filter(|option| option.action != best)
        .max_by(|a, b| a.value.total_cmp(&b.value));
    match runner_up {
        // Within what the hint shows: level, not better.
        Some(next) if difference(top.value - next.value) == difference(0.0) => format!(
            " ({}, as good as {})",
            value(top.value),
            action_words(next.action, glyphs)
        ),
        Some(next) => format!(
            " ({}, {} more than {})",
            value(top.value),
            difference(top.value - next.value),
            action_words(next.action, glyphs)
        ),
        None => format!(" ({}, the only move)", value(top.value)),
    }
}
