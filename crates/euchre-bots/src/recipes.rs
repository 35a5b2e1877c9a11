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

use crate::spec::BotSpecError;

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

/// Every recipe, in the order `--help` lists them.
pub const RECIPES: [Recipe; 3] = [
    Recipe {
        name: "strongest",
        about: "the strongest bot: bids searched over the run's bidding stage (200 worlds), cards by search on its table; about 3 ms a decision at the median and 40 ms at the 99th percentile on 2 cores, both files (about 1 GB) in memory",
        spell: |run, game| {
            let game = if game { ",game" } else { "" };
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
            let game = if game { ",game" } else { "" };
            Some(format!(
                "policy-argmax:{run}/bidding/policy.bin+pimc:50{game}"
            ))
        },
    },
];

/// The spec `text` stands for if it names a recipe (`NAME:RUN` or
/// `NAME,game:RUN`); `None` if it names none, so that it is read as a spec.
pub fn expand(text: &str) -> Option<Result<String, BotSpecError>> {
    let (head, run) = text.split_once(':')?;
    let (name, game) = match head.split_once(',') {
        Some((name, "game")) => (name, true),
        Some((name, _)) => (name, false),
        None => (head, false),
    };
    let recipe = RECIPES.iter().find(|recipe| recipe.name == name)?;
    let refuse = |why: &str| {
        Some(Err(BotSpecError::Recipe {
            spec: text.to_owned(),
            why: why.to_owned(),
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
    use crate::spec::{Spec, parse};

    #[test]
    fn each_recipe_reads_as_the_spec_it_stands_for() {
        assert_eq!(
            parse("strongest:runs/fp").unwrap(),
            parse("bids:search-bids:200:runs/fp/bidding/policy.bin+search:400,blend,trust=50:runs/fp/policy.bin").unwrap()
        );
        assert_eq!(
            parse("strongest,game:runs/fp/").unwrap(),
            parse("bids:search-bids:200,game:runs/fp/bidding/policy.bin+search:400,blend,trust=50,game:runs/fp/policy.bin").unwrap()
        );
        assert_eq!(
            parse("table:runs/fp").unwrap(),
            parse("policy-argmax:runs/fp/policy.bin").unwrap()
        );
        assert_eq!(
            parse("cfr0,game:runs/fp").unwrap(),
            parse("policy-argmax:runs/fp/bidding/policy.bin+pimc:50,game").unwrap()
        );
        let Spec::Split { bidder, player } = parse("strongest,game:r").unwrap() else {
            panic!("the strongest bot is a split bot");
        };
        for part in [bidder, player] {
            let Spec::Search { options, .. } = *part else {
                panic!("both halves search");
            };
            assert!(options.game, "both halves play for the game");
        }
    }

    #[test]
    fn a_recipe_misused_is_refused_with_the_fix() {
        let refusal = |text: &str| parse(text).unwrap_err().to_string();
        assert!(refusal("table,game:r").contains("drop ',game'"));
        assert!(refusal("strongest,fast:r").contains("only ',game'"));
        assert!(refusal("strongest:").contains("name a run directory"));
        // Not a recipe at all: the grammar's own error, which lists them.
        assert!(refusal("strongst:r").contains("strongest:RUN"));
    }

    #[test]
    fn a_recipe_over_a_directory_without_its_files_names_them() {
        let dir = std::env::temp_dir().join(format!("recipe-{}", std::process::id()));
        let text = format!("strongest:{}", dir.display());
        let error = crate::spec::from_spec(
            &text,
            euchre_game::engine::rules::Rules::default(),
            crate::bots::policy::Unseen::Uniform,
        )
        .err()
        .expect("no such run");
        let mut chain = error.to_string();
        let mut cause = std::error::Error::source(&error);
        while let Some(inner) = cause {
            chain.push_str(&format!(": {inner}"));
            cause = inner.source();
        }
        assert!(
            chain.contains("full-play run's bidding/policy.bin"),
            "{chain}"
        );
        assert!(chain.contains("bidding/policy.bin"), "{chain}");
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
