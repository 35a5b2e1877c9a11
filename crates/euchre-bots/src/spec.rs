//! The spec strings that name a bot on a command line (`heuristic`,
//! `pimc:50`, `policy:FILE+pimc:50`, …). It sits above every bot, since it
//! builds any of them; the bots themselves know nothing of specs.

use std::path::PathBuf;
use std::sync::Arc;

use euchre_game::engine::rules::Rules;
use thiserror::Error;

use crate::bot::Bot;
use crate::bots::heuristic::Heuristic;
use crate::bots::pimc::Pimc;
use crate::bots::policy::{PolicyBot, Sampling, Unseen};
use crate::bots::random::RandomBot;
use crate::bots::search::{BidsBy, SearchBot};
use crate::bots::split::SplitBot;
use crate::policy_file::PolicyFileError;

/// The bot specs `--a`, `--b` and `--opponents` accept.
pub const SPEC_HELP: &str = "random | heuristic | pimc:WORLDS | policy:FILE | policy-argmax:FILE, \
     either policy followed by +BOT for the decisions past its phase (policy:FILE+pimc:50), \
     or search:FILE | search:WORLDS:FILE (the policy's bids, then PIMC over worlds weighted by \
     what the bids reveal; 200 worlds by default), or search-bids:FILE | search-bids:WORLDS:FILE \
     (the same, with each bid the policy is not sure of searched over those worlds too), \
     or bids:BOT+BOT (the first bot's bids, the second's card play: bids:pimc:50+policy-argmax:FILE)";

/// Worlds solved per card by `search:FILE`: as many as the strongest PIMC
/// yardstick, so a match against `pimc:200` compares inference, not effort.
pub const DEFAULT_SEARCH_WORLDS: usize = 200;

/// Why a bot spec names no bot this table can seat.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BotSpecError {
    #[error("bot '{spec}': pimc needs a number of worlds, as in pimc:50")]
    PimcWorlds { spec: String },
    #[error("bot '{spec}': search needs at least one world")]
    SearchWorlds { spec: String },
    #[error("bot '{spec}': name the policy file {example}")]
    NoPolicyFile { spec: String, example: &'static str },
    #[error(
        "bot '{spec}' was trained under {trained} but this table plays {table}; pass the run's profile with --config"
    )]
    RulesDiffer {
        spec: String,
        trained: String,
        table: String,
    },
    #[error(
        "bot '{spec}': name the bidder and the card player, as in bids:pimc:50+policy-argmax:FILE"
    )]
    SplitNeedsTwo { spec: String },
    #[error("unknown bot '{spec}'; expected one of: {SPEC_HELP}")]
    Unknown { spec: String },
    #[error(transparent)]
    Policy(#[from] PolicyFileError),
}

/// Builds the bot a spec names for a table playing `rules`; `unseen` says
/// who plays a policy's untrained keys.
pub fn from_spec(spec: &str, rules: Rules, unseen: Unseen) -> Result<Arc<dyn Bot>, BotSpecError> {
    let owned = || spec.to_owned();
    let same_rules = |trained: Rules| {
        if trained == rules {
            Ok(())
        } else {
            Err(BotSpecError::RulesDiffer {
                spec: owned(),
                trained: trained.to_string(),
                table: rules.to_string(),
            })
        }
    };
    let (kind, argument) = spec.split_once(':').unwrap_or((spec, ""));
    Ok(match (kind, argument) {
        ("random", "") => Arc::new(RandomBot),
        ("heuristic", "") => Arc::new(Heuristic),
        ("pimc", worlds) => {
            let worlds: usize = worlds
                .parse()
                .ok()
                .filter(|&w| w > 0)
                .ok_or_else(|| BotSpecError::PimcWorlds { spec: owned() })?;
            Arc::new(Pimc::new(worlds))
        }
        ("policy", argument) | ("policy-argmax", argument) if !argument.is_empty() => {
            let sampling = if kind == "policy" {
                Sampling::Sample
            } else {
                Sampling::Argmax
            };
            // `FILE+BOT`: BOT plays past the policy's horizon. The first `+`
            // splits, so BOT may itself be a composite.
            let (path, beyond) = match argument.split_once('+') {
                Some((path, beyond)) => (path, from_spec(beyond, rules, unseen)?),
                None => (argument, Arc::new(Heuristic) as Arc<dyn Bot>),
            };
            if path.is_empty() {
                return Err(BotSpecError::NoPolicyFile {
                    spec: owned(),
                    example: "before the '+', as in policy:FILE+pimc:50",
                });
            }
            let bot = PolicyBot::load(&PathBuf::from(path), sampling, unseen, beyond)?;
            // Keys mean different things under other rules: refuse rather
            // than play a policy on a game it never saw.
            same_rules(bot.rules())?;
            Arc::new(bot)
        }
        ("search" | "search-bids", argument) if !argument.is_empty() => {
            let (worlds, path) = match argument.split_once(':') {
                Some((worlds, path)) if worlds.parse::<usize>().is_ok() => {
                    let worlds = worlds.parse::<usize>().ok().filter(|&w| w > 0);
                    let worlds =
                        worlds.ok_or_else(|| BotSpecError::SearchWorlds { spec: owned() })?;
                    (worlds, path)
                }
                _ => (DEFAULT_SEARCH_WORLDS, argument),
            };
            if path.is_empty() {
                return Err(BotSpecError::NoPolicyFile {
                    spec: owned(),
                    example: "as in search:200:runs/bidding-memory/policy.bin",
                });
            }
            let blueprint = PolicyBot::load(
                &PathBuf::from(path),
                Sampling::Argmax,
                unseen,
                Arc::new(Heuristic),
            )?;
            same_rules(blueprint.rules())?;
            let bids = if kind == "search" {
                BidsBy::Blueprint
            } else {
                BidsBy::Search
            };
            Arc::new(SearchBot::new(blueprint, worlds, bids, path.to_owned()))
        }
        ("bids", argument) => {
            // The first `+` splits, so the card player may be a composite
            // (`bids:pimc:50+policy:FILE+heuristic`); the bidder may not.
            let (bidder, player) = argument
                .split_once('+')
                .filter(|(bidder, player)| !bidder.is_empty() && !player.is_empty())
                .ok_or_else(|| BotSpecError::SplitNeedsTwo { spec: owned() })?;
            Arc::new(SplitBot::new(
                from_spec(bidder, rules, unseen)?,
                from_spec(player, rules, unseen)?,
            ))
        }
        _ => return Err(BotSpecError::Unknown { spec: owned() }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(spec: &str) -> String {
        match from_spec(spec, Rules::default(), Unseen::Heuristic) {
            Ok(bot) => panic!("{spec} was accepted as {}", bot.name()),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn a_split_spec_names_its_bidder_and_its_card_player() {
        let bot = from_spec("bids:heuristic+random", Rules::default(), Unseen::Heuristic)
            .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(bot.name(), "bids:heuristic+random");
        let nested = from_spec(
            "bids:random+bids:heuristic+random",
            Rules::default(),
            Unseen::Heuristic,
        )
        .unwrap_or_else(|error| panic!("{error}"));
        assert_eq!(nested.name(), "bids:random+bids:heuristic+random");
        for spec in ["bids:", "bids:heuristic", "bids:+random", "bids:heuristic+"] {
            assert!(
                refusal(spec).contains("name the bidder and the card player, as in bids:pimc:50+"),
                "{spec}: {}",
                refusal(spec)
            );
        }
        assert!(refusal("bids:wizard+random").contains("unknown bot 'wizard'"));
        assert!(refusal("bids:heuristic+pimc:0").contains("pimc needs a number of worlds"));
    }
}
