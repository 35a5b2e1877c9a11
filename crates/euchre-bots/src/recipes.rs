//! The bots this project recommends, by short names over a run directory
//! (`strongest:runs/full-play-mmap`), each written here once as the spec
//! it stands for. A recipe is only a name: [`expand`] turns it into the
//! spec grammar's text ([`crate::spec`]), which is then read as any other
//! spec, so a recipe plays exactly as its spelled-out spec does.
//!
//! A full-play run made by the bare command holds what the recipes read:
//! `RUN/bidding/policy.bin` (its bidding stage's export) and
//! `RUN/policy.bin` (`trainer export`, with or without `trainer
//! search-bids`).

use std::fmt::Write as _;

use thiserror::Error;

/// A recipe's name used the wrong way.
#[derive(Debug, Error)]
#[error("bot '{text}': {why}")]
pub struct RecipeError {
    pub text: String,
    pub why: &'static str,
}

/// A named bot over a run directory.
#[derive(Clone, Copy, Debug)]
pub struct Recipe {
    /// The name before the `:`.
    pub name: &'static str,
    /// What it is and what it costs to play (measured on this project's
    /// 2-core machine: docs/results.md), for `--help`.
    pub about: &'static str,
    /// The spec it stands for over run directory `run`; `game`: the same
    /// bot playing for the game (`NAME,game:RUN`), where the recipe
    /// searches.
    spell: fn(run: &str, game: bool) -> Option<String>,
}

/// The card play of the strongest bot: 400 worlds weighted half by the
/// table's reading of the other seats, each valued by the open-hand solve
/// and the table's own play of the rest (docs/results.md, "Current best").
const STRONGEST_CARDS: &str = "search:400,blend,trust=50";

/// The search option that plays for the game, or nothing.
fn game_option(game: bool) -> &'static str {
    if game { ",game" } else { "" }
}

/// Every recipe, in the order `--help` lists them.
pub const RECIPES: [Recipe; 3] = [
    Recipe {
        name: "strongest",
        about: "the strongest bot: bids searched over the run's bidding stage (200 worlds), cards by search on its table; about 3 ms a decision at the median and 40 ms at the 99th percentile on 2 cores, both files (about 1 GB) in memory",
        spell: |run, game| {
            let game = game_option(game);
            Some(format!(
                "bids:search-bids:200{game}:{run}/bidding/policy.bin+{STRONGEST_CARDS}{game}:{run}/policy.bin"
            ))
        },
    },
    Recipe {
        name: "table",
        about: "the run's export alone, one lookup a decision (its most likely action): microseconds, the file (about 1 GB after 2 hours) in memory",
        spell: |run, game| (!game).then(|| format!("policy-argmax:{run}/policy.bin")),
    },
    Recipe {
        name: "cfr0",
        about: "the published \"cfr0\" recipe: the run's bidding-stage bids (most likely), then PIMC-50's card play; 0.1 ms a decision at the median and 8 ms at the 99th percentile, the bidding file (about 46 MB) in memory",
        spell: |run, game| {
            let game = game_option(game);
            Some(format!(
                "policy-argmax:{run}/bidding/policy.bin+pimc:50{game}"
            ))
        },
    },
];

/// The spec `text` stands for if it names a recipe (`NAME:RUN` or
/// `NAME,game:RUN`); `None` if it names none, so that it is read as a spec.
pub fn expand(text: &str) -> Option<Result<String, RecipeError>> {
    let (head, run) = text.split_once(':')?;
    let (name, game) = match head.split_once(',') {
        Some((name, "game")) => (name, true),
        Some((name, _)) => (name, false),
        None => (head, false),
    };
    let recipe = RECIPES.iter().find(|recipe| recipe.name == name)?;
    let refuse = |why: &'static str| {
        Some(Err(RecipeError {
            text: text.to_owned(),
            why,
        }))
    };
    if head != name && !game {
        return refuse("after the name, only ',game' may come (the same bot playing for the game)");
    }
    let run = run.trim_end_matches('/');
    if run.is_empty() {
        return refuse("name a run directory, as in strongest:runs/full-play-mmap");
    }
    match (recipe.spell)(run, game) {
        Some(spec) => Some(Ok(spec)),
        None => refuse("this recipe has no values to play for the game with; drop ',game'"),
    }
}

/// The recipes as `--help` lists them: a line each with its name, what it
/// is and costs, and the spec it stands for.
pub fn help() -> String {
    let mut text = String::from("Recipes over a run directory (NAME:RUN):");
    for recipe in &RECIPES {
        let spelled = (recipe.spell)("RUN", false).unwrap_or_default();
        let _ = write!(
            text,
            "\n  {}:RUN: {} ({spelled})",
            recipe.name, recipe.about
        );
    }
    text.push_str("\n  NAME,game:RUN (strongest, cfr0): the same bot playing for the game");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spelled(text: &str) -> String {
        expand(text).expect("a recipe").expect("well formed")
    }

    #[test]
    fn each_recipe_spells_the_spec_it_stands_for() {
        assert_eq!(
            spelled("strongest:runs/fp"),
            "bids:search-bids:200:runs/fp/bidding/policy.bin+search:400,blend,trust=50:runs/fp/policy.bin"
        );
        assert_eq!(
            spelled("strongest,game:runs/fp/"),
            "bids:search-bids:200,game:runs/fp/bidding/policy.bin+search:400,blend,trust=50,game:runs/fp/policy.bin"
        );
        assert_eq!(spelled("table:runs/fp"), "policy-argmax:runs/fp/policy.bin");
        assert_eq!(
            spelled("cfr0,game:runs/fp"),
            "policy-argmax:runs/fp/bidding/policy.bin+pimc:50,game"
        );
        // Not a recipe: read as a spec.
        assert!(expand("pimc:50,game").is_none() && expand("heuristic").is_none());
    }

    #[test]
    fn a_recipe_misused_is_refused_with_the_fix() {
        let refusal = |text: &str| expand(text).unwrap().unwrap_err().to_string();
        assert!(refusal("table,game:r").contains("drop ',game'"));
        assert!(refusal("strongest,fast:r").contains("only ',game'"));
        assert!(refusal("strongest:").contains("name a run directory"));
    }

    #[test]
    fn the_help_spells_out_every_recipe() {
        let help = help();
        for recipe in &RECIPES {
            assert!(help.contains(&format!("{}:RUN", recipe.name)), "{help}");
        }
        assert!(help.contains("search:400,blend,trust=50:RUN/policy.bin"));
    }
}
