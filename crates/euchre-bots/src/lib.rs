//! Everything that plays euchre, apart from everything that trains.
//!
//! A policy is trained by the `trainer` crate and reaches this crate only as
//! a file ([`policy_file`]); nothing here knows how it was trained, so a
//! program that plays (a match, the bot API, the web table) links no store
//! backend and no training loop.
//!
//! - [`bot`]: the [`bot::Bot`] trait, and [`seen`], what one seat has seen;
//! - [`bots`]: random, heuristic, PIMC, the trained policy, the search bot;
//! - [`spec`]: the strings that name a bot (`pimc:50`, `policy:FILE+pimc:50`);
//! - [`arena`]: duplicate matches with confidence intervals;
//! - [`local_best_response`]: how far one seat gains by deviating alone;
//! - [`policy_file`] and [`blueprint`]: the exported policy, and its bids
//!   as a fixed bidding policy for card-play runs; [`card_play_table`]: its
//!   card play as the leaves of a bidding run; [`pinned`], how a run holds
//!   on to either;
//! - [`phase`] and [`leaves`]: how far a policy's tree reaches, and who
//!   plays (or what values) the hand past it;
//! - [`human_game`]: a game to a target score between a person and three
//!   bots, the model behind the web table and the terminal game;
//! - [`api`]: one seat's view in, a move out (JSON);
//! - [`analysis`]: a recorded game (EGN), each decision judged by a bot;
//! - [`features`]: a seat's view as a fixed-length vector, for learning agents.

pub mod analysis;
pub mod api;
pub mod arena;
pub mod blueprint;
pub mod bot;
pub mod bots;
pub mod card_play_table;
pub mod features;
pub mod game_outcomes;
pub mod games;
pub mod human_game;
pub mod json_lines;
pub mod leaves;
pub mod local_best_response;
pub mod meta;
pub mod opponent_bids;
pub mod phase;
pub mod pinned;
pub mod policy_file;
pub mod recipes;
pub mod round_robin;
pub mod searched_bids;
pub mod searched_leads;
pub mod seen;
pub mod spec;
pub mod stop;
#[cfg(test)]
mod test_hands;
pub mod valuation;
