//! Plain functions of a position that both the leaves and the card-play
//! table need: each team's payoff, and the key of a trick-boundary
//! position. Apart from the leaves so that a table, which the leaves may
//! play, does not depend on them.

use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::GameState;

/// Each team's payoff, from a function of the team.
pub fn team_payoffs(payoff: impl Fn(Team) -> f64) -> [f64; 2] {
    [payoff(Team::NorthSouth), payoff(Team::EastWest)]
}

/// Everything the open-hand value of a trick-boundary position depends on;
/// `None` mid-trick. The tricks already won are added in, so two positions
/// with the same key also agree on the trick count. So is the makers' team:
/// the solver's split is exact only as far as the makers' score goes, and
/// a march by one side reads as a plain win if the other side made trump.
pub(crate) fn boundary_key(state: &GameState) -> Option<u128> {
    if state.trick().played_mask != 0 {
        return None;
    }
    let contract = state.contract()?;
    let mut key = 0u128;
    for seat in Seat::ALL {
        key = key << 24 | u128::from(state.hand(seat).bits());
        key = key << 1 | u128::from(state.sits_out(seat));
    }
    key = key << 2 | contract.trump.index() as u128;
    key = key << 1 | contract.maker.team().index() as u128;
    key = key << 2 | state.trick().leader.index() as u128;
    key = key << 3 | u128::from(state.tricks_won(Team::NorthSouth));
    Some(key << 3 | u128::from(state.tricks_won(Team::EastWest)))
}
