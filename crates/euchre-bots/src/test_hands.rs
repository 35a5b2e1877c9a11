//! Hands the unit tests drive by hand.

use euchre_game::engine::action::Action;
use euchre_game::engine::state::GameState;

/// Orders the upcard up at the first chance and otherwise takes the first
/// legal action, so a test's hand reaches its cards at once.
pub(crate) fn order_up_at_once(state: &GameState) -> Action {
    let legal = state.legal_actions();
    legal
        .iter()
        .copied()
        .find(|action| matches!(action, Action::Order { alone: false }))
        .unwrap_or(legal[0])
}
