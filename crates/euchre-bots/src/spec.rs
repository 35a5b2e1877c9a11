//! The spec strings that name a bot on a command line (`heuristic`,
//! `pimc:50`, `policy:FILE+pimc:50`, …). It sits above every bot, since it
//! builds any of them; the bots themselves know nothing of specs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use euchre_game::engine::rules::Rules;
use thiserror::Error;

use crate::bot::Bot;
use crate::bots::heuristic::Heuristic;
use crate::bots::pimc::Pimc;
use crate::bots::policy::{PolicyBot, Sampling, Unseen};
use crate::bots::random::RandomBot;
use crate::bots::search::{BidsBy, Lead, SearchBot, SearchError, SearchOptions, WorldValues};
use crate::bots::split::SplitBot;
use crate::policy_file::{PolicyFile, PolicyFileError};
use std::time::Duration;

/// The bot specs `--a`, `--b` and `--opponents` accept.
pub const SPEC_HELP: &str = "random | heuristic | pimc:WORLDS (pimc:WORLDS,game plays for the game: it values each outcome by the chance of winning from the score) | policy:FILE | policy-argmax:FILE, \
     either policy followed by +BOT for the decisions past its phase (policy:FILE+pimc:50), \
     or search:FILE | search:WORLDS:FILE (the policy's bids, then PIMC over worlds weighted by \
     what the bids reveal; 200 worlds by default), or search-bids:FILE | search-bids:WORLDS:FILE \
     (the same, with each bid the policy is not sure of searched over those worlds too; \
     after WORLDS, ',playout' or ',blend' values each world by a full-play table's own play of the rest, \
     alone or with the open-hand solve, ',bids=N' searches bids over N worlds, ',lead=N' the opening lead over N (',lead=table': the table's card, unsearched), ',every-bid' searches every bid (a full-play table is sure of all its bids), ',trust=P' trusts the inference P% (90 by default), ',ahead' chooses the next card once per history the bot would see rather than per world (a full-play table answers in between), ',continuations' values each searched bid with each side finishing the auction in the way (the blueprint's bids, bolder or warier) that suits it, ',game' values each world's outcome by the chance of winning the game from the score (',game,endgame-bids' also searches the bids the blueprint is sure of once either side is within two points of winning), and ',ms=N' stops at N milliseconds a decision: \
     search-bids:400,playout,ms=100:FILE), \
     or bids:BOT+BOT (the first bot's bids, the second's card play: bids:pimc:50+policy-argmax:FILE)";

/// Every bot a spec may name: the grammar ([`SPEC_HELP`]) and the named
/// recipes over a run directory ([`crate::recipes`]).
pub fn help() -> String {
    format!("{SPEC_HELP}.\n\n{}", crate::recipes::help())
}

/// Worlds solved per card by `search:FILE`: as many as the strongest PIMC
/// yardstick, so a match against `pimc:200` compares inference, not effort.
pub const DEFAULT_SEARCH_WORLDS: usize = 200;

/// Why a bot spec names no bot this table can seat.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BotSpecError {
    #[error(
        "bot '{spec}': pimc needs a number of worlds, as in pimc:50, and may end in ',game' to play for the game (pimc:50,game)"
    )]
    PimcWorlds { spec: String },
    #[error("bot '{spec}': search needs at least one world")]
    SearchWorlds { spec: String },
    #[error(
        "bot '{spec}': unknown search option '{option}'; after the number of worlds come ',playout', ',blend', ',open-hand' or ',bids=WORLDS' (worlds per searched bid), ',lead=WORLDS' (worlds for the opening lead) or ',lead=table' (the table's lead, unsearched), ',every-bid' (search every bid, not only those the blueprint is unsure of), ',infer-bids' (read the other seats' bids by the table's bidding blueprint), ',trust=PERCENT' (how far the inference trusts the blueprint; 90 by default, 0 is PIMC's uniform worlds), ',ahead' (the next card chosen per history seen, not per world), ',continuations' (each searched bid valued with each side finishing the auction in the way that suits it), ',game' (each outcome valued by the chance of winning the game from the score), ',endgame-bids' (with ',game', every bid searched once either side is within two points of winning) or ',ms=MILLISECONDS', as in search-bids:400,playout,ms=100:FILE"
    )]
    SearchOption { spec: String, option: String },
    #[error(
        "bot '{spec}': ',endgame-bids' searches bids by the chance of winning the game; add ',game' before it, as in search-bids:200,game,endgame-bids:FILE"
    )]
    EndgameBidsNeedGame { spec: String },
    #[error("bot '{spec}': {source}")]
    Search {
        spec: String,
        #[source]
        source: SearchError,
    },
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
    #[error("unknown bot '{spec}'; expected one of: {help}", help = help())]
    Unknown { spec: String },
    #[error(transparent)]
    Recipe(#[from] crate::recipes::RecipeError),
    #[error(
        "bot '{spec}' stands for {spelled}: it reads a full-play run's bidding/policy.bin (its bidding stage) and policy.bin (`trainer export`)"
    )]
    RecipeFiles {
        spec: String,
        spelled: String,
        #[source]
        source: Box<BotSpecError>,
    },
    #[error(transparent)]
    Policy(#[from] PolicyFileError),
}

/// A bot spec as parsed, before any file is read: [`parse`] reads the
/// text, [`build`] loads what it names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spec {
    Random,
    Heuristic,
    Pimc {
        worlds: usize,
        /// `,game`: values outcomes by the chance of winning the game.
        game: bool,
    },
    /// A trained policy, and who plays past its horizon (the heuristic by
    /// default).
    Policy {
        text: String,
        sampling: Sampling,
        path: PathBuf,
        beyond: Option<Box<Spec>>,
    },
    /// Search on a blueprint (`search:` bids by the blueprint,
    /// `search-bids:` searches them too).
    Search {
        text: String,
        options: SearchOptions,
        path: PathBuf,
    },
    /// One bot's bids, another's card play.
    Split {
        bidder: Box<Spec>,
        player: Box<Spec>,
    },
}

/// Reads a spec's text; no file is touched.
pub fn parse(spec: &str) -> Result<Spec, BotSpecError> {
    if let Some(spelled) = crate::recipes::expand(spec) {
        return parse(&spelled?);
    }
    let owned = || spec.to_owned();
    let (kind, argument) = spec.split_once(':').unwrap_or((spec, ""));
    Ok(match (kind, argument) {
        ("random", "") => Spec::Random,
        ("heuristic", "") => Spec::Heuristic,
        ("pimc", argument) => {
            let (worlds, game) = match argument.split_once(',') {
                Some((worlds, "game")) => (worlds, true),
                Some(_) => return Err(BotSpecError::PimcWorlds { spec: owned() }),
                None => (argument, false),
            };
            Spec::Pimc {
                worlds: worlds
                    .parse()
                    .ok()
                    .filter(|&w| w > 0)
                    .ok_or_else(|| BotSpecError::PimcWorlds { spec: owned() })?,
                game,
            }
        }
        ("policy" | "policy-argmax", argument) if !argument.is_empty() => {
            // `FILE+BOT`: BOT plays past the policy's horizon. The first `+`
            // splits, so BOT may itself be a composite.
            let (path, beyond) = match argument.split_once('+') {
                Some((path, beyond)) => (path, Some(Box::new(parse(beyond)?))),
                None => (argument, None),
            };
            if path.is_empty() {
                return Err(BotSpecError::NoPolicyFile {
                    spec: owned(),
                    example: "before the '+', as in policy:FILE+pimc:50",
                });
            }
            Spec::Policy {
                text: owned(),
                sampling: if kind == "policy" {
                    Sampling::Sample
                } else {
                    Sampling::Argmax
                },
                path: PathBuf::from(path),
                beyond,
            }
        }
        ("search" | "search-bids", argument) if !argument.is_empty() => {
            let bids = if kind == "search" {
                BidsBy::Blueprint
            } else {
                BidsBy::Search
            };
            // `OPTIONS:FILE` when the text before the first ':' starts with
            // a number of worlds; otherwise all of it names the file.
            let (options, path) = match argument.split_once(':') {
                Some((head, path)) if starts_with_worlds(head) => {
                    (search_options(spec, head, bids)?, path)
                }
                _ => (SearchOptions::new(DEFAULT_SEARCH_WORLDS, bids), argument),
            };
            if path.is_empty() {
                return Err(BotSpecError::NoPolicyFile {
                    spec: owned(),
                    example: "as in search:200:runs/bidding-memory/policy.bin",
                });
            }
            Spec::Search {
                text: owned(),
                options,
                path: PathBuf::from(path),
            }
        }
        ("bids", argument) => {
            // The first `+` splits, so the card player may be a composite
            // (`bids:pimc:50+policy:FILE+heuristic`); the bidder may not.
            let (bidder, player) = argument
                .split_once('+')
                .filter(|(bidder, player)| !bidder.is_empty() && !player.is_empty())
                .ok_or_else(|| BotSpecError::SplitNeedsTwo { spec: owned() })?;
            Spec::Split {
                bidder: Box::new(parse(bidder)?),
                player: Box::new(parse(player)?),
            }
        }
        _ => return Err(BotSpecError::Unknown { spec: owned() }),
    })
}

/// Whether a search spec's text before its first ':' is options (a number
/// of worlds first) rather than part of a file's name.
fn starts_with_worlds(head: &str) -> bool {
    head.split(',')
        .next()
        .is_some_and(|first| !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads `WORLDS[,OPTION]*` (see [`SPEC_HELP`]).
fn search_options(spec: &str, head: &str, bids: BidsBy) -> Result<SearchOptions, BotSpecError> {
    let mut parts = head.split(',');
    let positive = |count: &str| count.parse::<usize>().ok().filter(|&count| count > 0);
    let worlds = parts
        .next()
        .and_then(positive)
        .ok_or_else(|| BotSpecError::SearchWorlds {
            spec: spec.to_owned(),
        })?;
    let mut options = SearchOptions::new(worlds, bids);
    for part in parts {
        let unknown = || BotSpecError::SearchOption {
            spec: spec.to_owned(),
            option: part.to_owned(),
        };
        if let Some(values) = WorldValues::ALL.into_iter().find(|v| v.word() == part) {
            options.values = values;
        } else if part == "every-bid" {
            options.bids = BidsBy::SearchEvery;
        } else if part == "infer-bids" {
            options.infer_bids = true;
        } else if part == "ahead" {
            options.ahead = true;
        } else if part == "continuations" {
            options.continuations = true;
        } else if part == "game" {
            options.game = true;
        } else if part == "endgame-bids" {
            options.endgame_bids = true;
        } else if let Some(worlds) = part.strip_prefix("bids=") {
            options.bid_worlds = positive(worlds).ok_or_else(unknown)?;
        } else if part == "lead=table" {
            options.lead = Lead::ByTable;
        } else if let Some(worlds) = part.strip_prefix("lead=") {
            options.lead = Lead::Searched(positive(worlds).ok_or_else(unknown)?);
        } else if let Some(percent) = part.strip_prefix("trust=") {
            options.trust_percent = percent
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= 100)
                .ok_or_else(unknown)?;
        } else if let Some(millis) = part.strip_prefix("ms=") {
            let millis = millis
                .parse::<u64>()
                .ok()
                .filter(|&ms| ms > 0)
                .ok_or_else(unknown)?;
            options.budget = Some(Duration::from_millis(millis));
        } else {
            return Err(unknown());
        }
    }
    if options.endgame_bids && !options.game {
        return Err(BotSpecError::EndgameBidsNeedGame {
            spec: spec.to_owned(),
        });
    }
    Ok(options)
}

/// Builds the bot `spec` names for a table playing `rules`, loading the
/// files it names; `unseen` says who plays a policy's untrained keys.
pub fn build(spec: &Spec, rules: Rules, unseen: Unseen) -> Result<Arc<dyn Bot>, BotSpecError> {
    build_sharing(spec, rules, unseen, &LoadedPolicies::default())
}

/// Policy files loaded for the bots being built, each once: a spec that
/// names a file twice (a split's halves, a search and its table), or a
/// command that builds several bots over one run, holds one copy of it in
/// memory, and a file a caller has already loaded is not read again.
#[derive(Default)]
pub struct LoadedPolicies(Mutex<HashMap<PathBuf, Arc<PolicyFile>>>);

impl std::fmt::Debug for LoadedPolicies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.files().keys()).finish()
    }
}

impl LoadedPolicies {
    /// `file`, already loaded from `path`, for the bots built next.
    pub fn insert(&self, path: &Path, file: Arc<PolicyFile>) {
        self.files().insert(Self::identity(path), file);
    }

    /// The policy in `path`, loaded on first use (under the lock, so two
    /// builders never read one file twice).
    fn load(&self, path: &Path) -> Result<Arc<PolicyFile>, PolicyFileError> {
        let identity = Self::identity(path);
        let mut files = self.files();
        if let Some(file) = files.get(&identity) {
            return Ok(Arc::clone(file));
        }
        let file = Arc::new(PolicyFile::load(path)?);
        files.insert(identity, Arc::clone(&file));
        Ok(file)
    }

    fn files(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Arc<PolicyFile>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// One name for a file however it is spelled (a relative path, a
    /// link); the path as given where it cannot be resolved (the load then
    /// names the problem).
    fn identity(path: &Path) -> PathBuf {
        std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
    }
}

/// [`build`], loading each policy file through `loaded`.
pub fn build_sharing(
    spec: &Spec,
    rules: Rules,
    unseen: Unseen,
    loaded: &LoadedPolicies,
) -> Result<Arc<dyn Bot>, BotSpecError> {
    // Keys mean different things under other rules: refuse rather than
    // play a policy on a game it never saw.
    let same_rules = |text: &str, trained: Rules| {
        if trained.same_keys(&rules) {
            Ok(())
        } else {
            Err(BotSpecError::RulesDiffer {
                spec: text.to_owned(),
                trained: trained.to_string(),
                table: rules.to_string(),
            })
        }
    };
    Ok(match spec {
        Spec::Random => Arc::new(RandomBot),
        Spec::Heuristic => Arc::new(Heuristic),
        Spec::Pimc {
            worlds,
            game: false,
        } => Arc::new(Pimc::new(*worlds)),
        Spec::Pimc { worlds, game: true } => {
            Arc::new(Pimc::for_game(*worlds, crate::game_outcomes::reference()))
        }
        Spec::Policy {
            text,
            sampling,
            path,
            beyond,
        } => {
            let beyond = match beyond {
                Some(beyond) => build_sharing(beyond, rules, unseen, loaded)?,
                None => Arc::new(Heuristic) as Arc<dyn Bot>,
            };
            let bot = PolicyBot::over(loaded.load(path)?, path, *sampling, unseen, beyond);
            same_rules(text, bot.rules())?;
            Arc::new(bot)
        }
        Spec::Search {
            text,
            options,
            path,
        } => {
            let blueprint = PolicyBot::over(
                loaded.load(path)?,
                path,
                Sampling::Argmax,
                unseen,
                Arc::new(Heuristic),
            );
            same_rules(text, blueprint.rules())?;
            let label = path.to_string_lossy().into_owned();
            let bot = SearchBot::new(blueprint, *options, label).map_err(|source| {
                BotSpecError::Search {
                    spec: text.clone(),
                    source,
                }
            })?;
            Arc::new(bot)
        }
        Spec::Split { bidder, player } => Arc::new(SplitBot::new(
            build_sharing(bidder, rules, unseen, loaded)?,
            build_sharing(player, rules, unseen, loaded)?,
        )),
    })
}

/// Builds the bot a spec names for a table playing `rules`; `unseen` says
/// who plays a policy's untrained keys.
pub fn from_spec(spec: &str, rules: Rules, unseen: Unseen) -> Result<Arc<dyn Bot>, BotSpecError> {
    from_spec_sharing(spec, rules, unseen, &LoadedPolicies::default())
}

/// [`from_spec`], loading each policy file through `loaded`.
pub fn from_spec_sharing(
    spec: &str,
    rules: Rules,
    unseen: Unseen,
    loaded: &LoadedPolicies,
) -> Result<Arc<dyn Bot>, BotSpecError> {
    // A recipe is expanded once; a file it needs that cannot be read is
    // named with the recipe that asked for it.
    let Some(spelled) = crate::recipes::expand(spec) else {
        return build_sharing(&parse(spec)?, rules, unseen, loaded);
    };
    let spelled = spelled?;
    build_sharing(&parse(&spelled)?, rules, unseen, loaded).map_err(|source| {
        BotSpecError::RecipeFiles {
            spec: spec.to_owned(),
            spelled,
            source: Box::new(source),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file a spec names twice is read once, and one a caller has already
    /// loaded is not read again (a full-play policy is a gigabyte).
    #[test]
    fn each_policy_file_is_loaded_once_however_often_it_is_named() {
        use crate::meta::PolicyMeta;
        use crate::phase::Phase;
        use crate::policy_file::export;
        let path = std::env::temp_dir().join(format!("spec-shared-{}.bin", std::process::id()));
        let meta = PolicyMeta::new(Phase::FullPlay, Rules::default(), 1);
        export(
            &store::MemoryTable::new(),
            &meta,
            7,
            None,
            &path,
            &mut |_, _| {},
        )
        .unwrap();
        let loaded = LoadedPolicies::default();
        let twice = format!("bids:policy-argmax:{0}+policy:{0}", path.display());
        let bot = from_spec_sharing(&twice, Rules::default(), Unseen::Heuristic, &loaded).unwrap();
        assert_eq!(loaded.files().len(), 1, "{loaded:?}");
        let file = loaded.load(&path).unwrap();
        assert_eq!(
            Arc::strong_count(&file),
            4,
            "the cache, both halves and this"
        );
        drop(bot);
        // Already loaded, the file is not read again: gone from the disk,
        // it still builds.
        std::fs::remove_file(&path).unwrap();
        let again = format!("policy-argmax:{}", path.display());
        assert!(from_spec_sharing(&again, Rules::default(), Unseen::Heuristic, &loaded).is_ok());
        assert!(from_spec(&again, Rules::default(), Unseen::Heuristic).is_err());
    }

    /// A recipe reads exactly as the spec it stands for
    /// ([`crate::recipes`]).
    #[test]
    fn a_recipe_reads_as_its_spelled_out_spec() {
        assert_eq!(
            parse("strongest,game:runs/fp").unwrap(),
            parse("bids:search-bids:200,game:runs/fp/bidding/policy.bin+search:400,blend,trust=50,game:runs/fp/policy.bin").unwrap()
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
        assert!(
            parse("table,game:r")
                .unwrap_err()
                .to_string()
                .contains("drop ',game'")
        );
        // Not a recipe at all: the grammar's error, which lists them.
        assert!(
            parse("strongst:r")
                .unwrap_err()
                .to_string()
                .contains("strongest:RUN")
        );
    }

    /// A recipe over a directory without its files names them.
    #[test]
    fn a_recipe_over_a_directory_without_its_files_names_them() {
        let dir = std::env::temp_dir().join(format!("recipe-{}", std::process::id()));
        let error = from_spec(
            &format!("strongest:{}", dir.display()),
            Rules::default(),
            Unseen::Uniform,
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
        assert!(chain.contains("recipe-"), "{chain}");
    }

    #[test]
    fn pimc_plays_for_the_game_only_when_asked() {
        assert_eq!(
            parse("pimc:50").unwrap(),
            Spec::Pimc {
                worlds: 50,
                game: false
            }
        );
        assert_eq!(
            parse("pimc:50,game").unwrap(),
            Spec::Pimc {
                worlds: 50,
                game: true
            }
        );
        let rules = Rules::default();
        let unseen = Unseen::Heuristic;
        assert_eq!(
            from_spec("pimc:50", rules, unseen).unwrap().name(),
            "pimc:50"
        );
        assert_eq!(
            from_spec("pimc:50,game", rules, unseen).unwrap().name(),
            "pimc:50,game"
        );
    }

    #[test]
    fn a_spec_is_parsed_without_reading_a_file() {
        assert_eq!(
            parse("bids:pimc:50+policy-argmax:/no/such/file.bin+heuristic").unwrap(),
            Spec::Split {
                bidder: Box::new(Spec::Pimc {
                    worlds: 50,
                    game: false,
                }),
                player: Box::new(Spec::Policy {
                    text: "policy-argmax:/no/such/file.bin+heuristic".to_owned(),
                    sampling: Sampling::Argmax,
                    path: PathBuf::from("/no/such/file.bin"),
                    beyond: Some(Box::new(Spec::Heuristic)),
                }),
            }
        );
        assert_eq!(
            parse("search-bids:7:/no/such/file.bin").unwrap(),
            Spec::Search {
                text: "search-bids:7:/no/such/file.bin".to_owned(),
                options: SearchOptions::new(7, BidsBy::Search),
                path: PathBuf::from("/no/such/file.bin"),
            }
        );
        assert_eq!(
            parse("search:400,blend,bids=900,lead=1600,every-bid,trust=50,ms=25,infer-bids,ahead,continuations,game,endgame-bids:runs/a:b/policy.bin")
                .unwrap(),
            Spec::Search {
                text: "search:400,blend,bids=900,lead=1600,every-bid,trust=50,ms=25,infer-bids,ahead,continuations,game,endgame-bids:runs/a:b/policy.bin"
                    .to_owned(),
                options: SearchOptions {
                    worlds: 400,
                    lead: Lead::Searched(1600),
                    bid_worlds: 900,
                    bids: BidsBy::SearchEvery,
                    values: WorldValues::Blend,
                    trust_percent: 50,
                    budget: Some(Duration::from_millis(25)),
                    infer_bids: true,
                    ahead: true,
                    continuations: true,
                    game: true,
                    endgame_bids: true,
                },
                path: PathBuf::from("runs/a:b/policy.bin"),
            }
        );
        // A file name with no options before it keeps the default worlds.
        assert!(matches!(
            parse("search:runs/x/policy.bin").unwrap(),
            Spec::Search { options: SearchOptions { worlds: DEFAULT_SEARCH_WORLDS, .. }, path, .. }
                if path.as_path() == Path::new("runs/x/policy.bin")
        ));
        for (text, wrong) in [
            ("pimc:0", "pimc needs"),
            ("pimc:50,points", "',game'"),
            ("pimc:0,game", "pimc needs"),
            ("policy:+pimc:5", "name the policy file"),
            ("bids:heuristic", "name the bidder"),
            ("search:0,playout:f.bin", "at least one world"),
            ("search:50,rollout:f.bin", "unknown search option 'rollout'"),
            ("search:50,ms=0:f.bin", "unknown search option 'ms=0'"),
            ("search:50,ms=x:f.bin", "unknown search option 'ms=x'"),
            ("search:50,bids=0:f.bin", "unknown search option 'bids=0'"),
            ("search:50,lead=0:f.bin", "unknown search option 'lead=0'"),
            (
                "search:50,trust=101:f.bin",
                "unknown search option 'trust=101'",
            ),
            ("search-bids:50,endgame-bids:f.bin", "add ',game' before it"),
            ("wizard", "unknown bot"),
        ] {
            let error = parse(text).unwrap_err().to_string();
            assert!(error.contains(wrong), "{text}: {error}");
        }
    }

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
