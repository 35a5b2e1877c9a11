//! A hint for the person's move: what the hint bot makes of each option,
//! and the one sentence a player reads first (the best move, by how much,
//! and what it does on the table).

use euchre_game::engine::action::Action;
use euchre_game::engine::move_effect::move_effect;
use euchre_game::engine::state::GameState;
use euchre_game::engine::words::{Glyphs, action_words};

use crate::analysis::LossUnit;
use crate::bot::ActionValue;

/// What a bot makes of the person's options (see
/// [`super::HumanGame::hint`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Hint {
    /// Each move's value for the person's side in `unit`: points per
    /// hand, or the chance of winning the game where the hint bot plays
    /// for it and the person's view shows the score. `beside` values the
    /// same moves in the other unit, by the bot's twin
    /// ([`crate::bot::Bot::valuing`]), where it can: the chance of winning
    /// the game needs the score.
    Values {
        unit: LossUnit,
        values: Vec<ActionValue>,
        beside: Option<Vec<ActionValue>>,
    },
    Probabilities(Vec<(Action, f64)>),
    Choice(Action),
}

impl Hint {
    /// The move the hint recommends: the highest value (in the hint's
    /// unit) or probability, or the bot's choice.
    pub fn best(&self) -> Option<Action> {
        match self {
            Hint::Values { values, .. } => highest(values),
            Hint::Probabilities(probabilities) => probabilities
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(action, _)| *action),
            Hint::Choice(action) => Some(*action),
        }
    }

    /// The moves' values in `unit`, where the hint has them.
    pub fn values_in(&self, unit: LossUnit) -> Option<&[ActionValue]> {
        let Hint::Values {
            unit: main,
            values,
            beside,
        } = self
        else {
            return None;
        };
        if *main == unit {
            Some(values)
        } else {
            beside.as_deref()
        }
    }

    /// `action`'s value in `unit`, where the hint has it.
    pub fn value_of(&self, unit: LossUnit, action: Action) -> Option<&ActionValue> {
        self.values_in(unit)?
            .iter()
            .find(|value| value.action == action)
    }

    /// "Best: play A♠ (+0.42 a hand, 0.31 more than lead K♥; 53.1% to win
    /// the game): it wins the trick: no card still out beats it." The
    /// margin is over the next best option where the bot values moves,
    /// with the move's value in the other unit beside it (and the move
    /// that unit prefers, where it is another); what the move does is read
    /// from the cards the person sees ([`move_effect`]).
    pub fn advice(&self, state: &GameState, glyphs: &dyn Glyphs) -> Option<String> {
        let best = self.best()?;
        let words = action_words(best, glyphs);
        let margin = match self {
            Hint::Values {
                unit,
                values,
                beside,
            } => {
                let said = margin(values, best, glyphs, *unit);
                let beside = beside
                    .as_deref()
                    .map(|beside| beside_note(beside, best, glyphs, unit.other()))
                    .unwrap_or_default();
                format!(" ({said}{beside})")
            }
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

/// The move with the highest value.
fn highest(values: &[ActionValue]) -> Option<Action> {
    values
        .iter()
        .max_by(|a, b| a.value.total_cmp(&b.value))
        .map(|value| value.action)
}

/// A value in `unit` as a player reads it: "+0.42 points a hand", "53.1%
/// to win the game".
pub fn value_words(unit: LossUnit, value: f64) -> String {
    match unit {
        LossUnit::Points => format!("{value:+.2} points a hand"),
        LossUnit::Chance => format!("{:.1}% to win the game", 100.0 * value),
    }
}

/// A difference of values in `unit`: "0.31", "1.2 points of chance".
fn difference_words(unit: LossUnit, difference: f64) -> String {
    match unit {
        LossUnit::Points => format!("{difference:.2}"),
        LossUnit::Chance => format!("{:.1} points of chance", 100.0 * difference),
    }
}

/// "; 53.1% to win the game" for the best move in the other unit, and
/// where that unit prefers another move: "; for the game, pass is better:
/// 54.0% against 53.1%".
fn beside_note(
    beside: &[ActionValue],
    best: Action,
    glyphs: &dyn Glyphs,
    unit: LossUnit,
) -> String {
    let Some(top) = beside.iter().find(|value| value.action == best) else {
        return String::new();
    };
    let preferred = beside
        .iter()
        .filter(|value| value.action != best)
        .max_by(|a, b| a.value.total_cmp(&b.value))
        .filter(|other| {
            difference_words(unit, other.value - top.value) != difference_words(unit, 0.0)
        })
        .filter(|other| other.value > top.value);
    let aim = match unit {
        LossUnit::Points => "for points",
        LossUnit::Chance => "for the game",
    };
    match preferred {
        Some(other) => format!(
            "; {aim}, {} is better: {} against {}",
            action_words(other.action, glyphs),
            value_words(unit, other.value),
            value_words(unit, top.value)
        ),
        None => format!("; {}", value_words(unit, top.value)),
    }
}

/// "+0.42 points a hand, 0.31 more than pass": the best move's value and
/// its lead over the next best, in `unit`.
fn margin(values: &[ActionValue], best: Action, glyphs: &dyn Glyphs, unit: LossUnit) -> String {
    let Some(top) = values.iter().find(|option| option.action == best) else {
        return String::new();
    };
    let value = value_words(unit, top.value);
    let runner_up = values
        .iter()
        .filter(|option| option.action != best)
        .max_by(|a, b| a.value.total_cmp(&b.value));
    let difference = |d: f64| difference_words(unit, d);
    match runner_up {
        // Within what the hint shows: level, not better.
        Some(next) if difference(top.value - next.value) == difference(0.0) => {
            format!("{value}, as good as {}", action_words(next.action, glyphs))
        }
        Some(next) => format!(
            "{value}, {} more than {}",
            difference(top.value - next.value),
            action_words(next.action, glyphs)
        ),
        None => format!("{value}, the only move"),
    }
}
