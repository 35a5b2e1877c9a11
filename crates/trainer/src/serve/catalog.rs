//! The bots a client of `trainer serve` may seat, fixed when the server
//! starts. A client chooses among the bots the command line offered (by
//! label or number) or a built-in bot whose cost is bounded; it never names
//! a file, so no request can make the server read one, learn whether one
//! exists, or load one more policy into memory.

use std::path::Path;
use std::sync::Arc;

use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::spec::{BotSpecError, LoadedPolicies, Spec, build, from_spec_sharing};
use euchre_game::engine::rules::Rules;
use thiserror::Error;

/// The most worlds a client's `pimc:N` may ask for: PIMC-200, the strongest
/// yardstick, takes a few milliseconds a decision, so a hand of bot moves
/// stays well inside a request's time limit.
pub const MAX_CLIENT_PIMC_WORLDS: usize = 200;

/// The bot that judges a game on the analysis page unless the person
/// chooses another: PIMC-50 values every move in about a millisecond.
pub const DEFAULT_JUDGE: &str = "pimc:50";

/// The built-in rungs of the difficulty ladder, weakest first: a name a
/// player reads, the spec it stands for, and what it is. Every one is
/// score-blind and reads no file.
const BUILT_IN_LADDER: [(&str, &str, &str); 4] = [
    (
        "Novice",
        "heuristic",
        "plays by the rules of thumb a club player is taught; instant",
    ),
    (
        "Club",
        "pimc:20",
        "imagines 20 deals of the cards it cannot see and plays the move that does best across them",
    ),
    (
        "Strong",
        "pimc:50",
        "the same over 50 deals: PIMC-50, the yardstick published euchre bots are measured against",
    ),
    (
        "Expert",
        "pimc:200",
        "the same over 200 deals: the strongest yardstick, a moment a move",
    ),
];

/// One rung of the difficulty ladder the new-game page offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Level {
    /// What a player calls it ("Expert").
    pub name: String,
    /// What the form sends for it: a built-in spec or an offered label.
    pub choice: String,
    /// What it is, in a sentence.
    pub about: String,
}

impl Level {
    /// How the table and a saved game name a bot at this level:
    /// "Expert (pimc:200)", the name with the exact bot beside it.
    pub fn shown(&self) -> String {
        format!("{} ({})", self.name, self.choice)
    }
}

/// A bot the command line offered, under a label that names no directory.
struct Offered {
    label: String,
    bot: Arc<dyn Bot>,
}

/// The bots of one server.
pub struct BotCatalog {
    offered: Vec<Offered>,
    /// The table's rules, for the built-ins a client chooses.
    rules: Rules,
    unseen: Unseen,
}

impl std::fmt::Debug for BotCatalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.offered.iter().map(|offered| &offered.label))
            .finish()
    }
}

/// A choice no bot of this server answers to.
#[derive(Debug, Error)]
#[error(
    "no bot '{choice}' here: choose one this server offers ({offered}), or random, heuristic or pimc:N with N from 1 to {MAX_CLIENT_PIMC_WORLDS} (pimc:N,game plays for the game)"
)]
pub struct UnknownChoice {
    pub choice: String,
    pub offered: String,
}

impl BotCatalog {
    /// Builds every offered bot now, so a missing or foreign policy file
    /// stops the server at start with the file named. The first is the
    /// default of new games and the bot of the API.
    pub fn new(specs: &[String], rules: Rules, unseen: Unseen) -> Result<BotCatalog, BotSpecError> {
        let mut offered: Vec<Offered> = Vec::with_capacity(specs.len());
        // Bots over one run share its files: loaded once, not once a bot.
        let loaded = LoadedPolicies::default();
        for spec in specs {
            let bot = from_spec_sharing(spec, rules, unseen, &loaded)?;
            let mut label = public_label(spec);
            if offered.iter().any(|other| other.label == label) {
                label = format!("{label} ({})", offered.len() + 1);
            }
            offered.push(Offered { label, bot });
        }
        Ok(BotCatalog {
            offered,
            rules,
            unseen,
        })
    }

    /// The default bot: the first offered.
    pub fn default_bot(&self) -> (&str, &Arc<dyn Bot>) {
        let first = &self.offered[0];
        (&first.label, &first.bot)
    }

    /// The labels of the offered bots, in order.
    pub fn labels(&self) -> impl Iterator<Item = &str> {
        self.offered.iter().map(|offered| offered.label.as_str())
    }

    /// The difficulty ladder, weakest first: the built-in rungs from the
    /// heuristic to PIMC-200, then each bot this server offers (by its
    /// recipe's name where it names one), which a host offers because it is
    /// stronger. An offered bot that is a built-in rung is listed once.
    pub fn ladder(&self) -> Vec<Level> {
        let mut levels: Vec<Level> = BUILT_IN_LADDER
            .iter()
            .map(|(name, spec, about)| Level {
                name: (*name).to_owned(),
                choice: (*spec).to_owned(),
                about: (*about).to_owned(),
            })
            .collect();
        for offered in &self.offered {
            if levels.iter().any(|level| level.choice == offered.label) {
                continue;
            }
            let (name, about) = offered_level(&offered.label);
            levels.push(Level {
                name,
                choice: offered.label.clone(),
                about,
            });
        }
        levels
    }

    /// How a chosen bot is named at the table and in saved games: its
    /// rung's name beside the exact bot, or the bot alone off the ladder.
    pub fn shown_name(&self, choice: &str) -> String {
        self.ladder()
            .into_iter()
            .find(|level| level.choice == choice)
            .map_or_else(|| choice.to_owned(), |level| level.shown())
    }

    /// The bot a client chose: an offered bot by label or by number (1 is
    /// the first), or a bounded built-in. Building a built-in costs no I/O
    /// and almost no memory, so none is cached.
    pub fn choose(&self, choice: &str) -> Result<(String, Arc<dyn Bot>), UnknownChoice> {
        let choice = choice.trim();
        if let Some(offered) = self
            .offered
            .iter()
            .find(|offered| offered.label == choice)
            .or_else(|| {
                choice
                    .parse::<usize>()
                    .ok()
                    .and_then(|number| number.checked_sub(1))
                    .and_then(|index| self.offered.get(index))
            })
        {
            return Ok((offered.label.clone(), Arc::clone(&offered.bot)));
        }
        // The spec grammar's built-ins that read no file, PIMC capped.
        let built_in = match euchre_bots::spec::parse(choice) {
            Ok(spec @ (Spec::Random | Spec::Heuristic)) => Some(spec),
            Ok(spec @ Spec::Pimc { worlds, .. }) if worlds <= MAX_CLIENT_PIMC_WORLDS => Some(spec),
            _ => None,
        };
        let bot = built_in.and_then(|spec| build(&spec, self.rules, self.unseen).ok());
        bot.map(|bot| (choice.to_owned(), bot))
            .ok_or_else(|| UnknownChoice {
                choice: choice.chars().take(80).collect(),
                offered: self.labels().collect::<Vec<_>>().join(", "),
            })
    }
}

/// The name and description of an offered bot: its recipe's, where its
/// label names one (`strongest:fp`), or its label and that the server
/// offers it.
fn offered_level(label: &str) -> (String, String) {
    let recipe = label
        .split_once(':')
        .map(|(head, _)| head.trim_end_matches(",game"))
        .and_then(|name| {
            euchre_bots::recipes::RECIPES
                .iter()
                .find(|recipe| recipe.name == name)
        });
    match recipe {
        Some(recipe) => {
            let name = match recipe.name {
                "strongest" => "Master",
                "table" => "Trained table",
                _ => "CFR bids",
            };
            (name.to_owned(), recipe.about.to_owned())
        }
        None => (label.to_owned(), "a bot this server offers".to_owned()),
    }
}

/// A spec with every file path cut to its file name, so that neither a
/// page nor an API answer shows where the server's files live.
pub fn public_label(spec: &str) -> String {
    spec.split('+')
        .map(|part| match part.rsplit_once(':') {
            Some((kind, path)) if path.contains('/') || path.contains('\\') => {
                let name = Path::new(path)
                    .file_name()
                    .map_or_else(|| "file".into(), |name| name.to_string_lossy());
                format!("{kind}:{name}")
            }
            _ => part.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("+")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_climbs_from_the_heuristic_to_the_bots_offered() {
        let catalog = BotCatalog::new(
            &["pimc:50".to_owned(), "pimc:7".to_owned()],
            Rules::default(),
            Unseen::Heuristic,
        )
        .unwrap();
        let ladder = catalog.ladder();
        let choices: Vec<&str> = ladder.iter().map(|level| level.choice.as_str()).collect();
        assert_eq!(
            choices,
            ["heuristic", "pimc:20", "pimc:50", "pimc:200", "pimc:7"],
            "an offered built-in is listed once"
        );
        assert_eq!(ladder[0].name, "Novice");
        assert_eq!(catalog.shown_name("pimc:200"), "Expert (pimc:200)");
        assert_eq!(catalog.shown_name("pimc:33"), "pimc:33");
        for level in &ladder {
            assert!(catalog.choose(&level.choice).is_ok(), "{level:?}");
        }
        assert_eq!(
            offered_level("strongest:fp").0,
            "Master",
            "a recipe's rung is named by the recipe"
        );
    }

    #[test]
    fn labels_name_no_directory() {
        assert_eq!(public_label("heuristic"), "heuristic");
        assert_eq!(
            public_label("policy:/home/me/runs/a/policy.bin+pimc:50"),
            "policy:policy.bin+pimc:50"
        );
        assert_eq!(
            public_label("search:200:/srv/x/bids.bin"),
            "search:200:bids.bin"
        );
    }

    #[test]
    fn clients_choose_offered_or_bounded_bots_and_never_a_file() {
        let catalog = BotCatalog::new(
            &["heuristic".to_owned(), "pimc:10".to_owned()],
            Rules::default(),
            Unseen::Heuristic,
        )
        .unwrap();
        assert_eq!(catalog.choose("pimc:10").unwrap().0, "pimc:10");
        assert_eq!(catalog.choose("2").unwrap().0, "pimc:10");
        assert_eq!(catalog.choose("1").unwrap().0, "heuristic");
        assert_eq!(catalog.choose(" pimc:200 ").unwrap().0, "pimc:200");
        let (label, bot) = catalog.choose("pimc:50,game").unwrap();
        assert_eq!(
            (label.as_str(), bot.name()),
            ("pimc:50,game", "pimc:50,game".to_owned())
        );
        for refused in [
            "pimc:201",
            "pimc:201,game",
            "pimc:5,points",
            "pimc:100000000",
            "pimc:0",
            "policy:/dev/zero",
            "policy-argmax:/etc/passwd",
            "search:x.bin",
            "3",
            "",
        ] {
            let Err(error) = catalog.choose(refused) else {
                panic!("'{refused}' was seated");
            };
            let error = error.to_string();
            assert!(error.contains("no bot"), "{refused}: {error}");
            assert!(!error.contains("No such file"), "{error}");
        }
    }
}
