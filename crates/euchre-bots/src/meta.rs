//! What a trained policy is, as plain data: its [`Recipe`] (the phase, the
//! rules, the leaves, the play key, where fixed bids and a card-play table
//! came from, the opponent model) and, in [`PolicyMeta`], how long it
//! trained and which strategy it kept. The policy file records it, the
//! trainer builds the recipe from a run's settings in one place, and bots
//! read it to know what follows them. It imports nothing else from this
//! crate but the two names it is made of ([`Phase`], [`OpponentBids`]):
//! the code that reads files (loading a blueprint, probing a table) lives
//! with those files, so describing a policy never depends on loading one.
//!
//! Who plays past a policy's horizon has five names, one a job:
//! [`Leaves`] is the run's setting (open-hand, heuristic-play,
//! pimc-calibrated, table-play); `crate::leaves::LeafValuer` is that
//! setting ready to value positions (with the table it plays, if any);
//! [`CardPlay`] is the kind of card play a bot brings, to check that a
//! policy is followed by the player its leaves assumed;
//! `crate::card_play_table::CardPlayTable` is a loaded full-play table;
//! [`CardPlaySource`] is where that table came from, as files record it.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use euchre_game::engine::rules::Rules;
use euchre_game::keys::play::PlayAbstraction;
use serde::{Deserialize, Serialize};

use crate::opponent_bids::OpponentBids;
use crate::phase::Phase;

/// What a policy was trained as: the game and the phase, how positions
/// past the phase were valued, how card play was keyed, where fixed bids
/// and a card-play table came from, and what the bids assumed of the
/// opponents'. Two policies with one recipe trained the same thing, for
/// however long. A run's settings hold the same facts in the shape of its
/// own options (a bidding stage, a profile's `[solver]` table); the
/// trainer's `Identity::recipe` is the one place they become a recipe, so
/// a setting a policy must record is written here once.
#[derive(Clone, Debug, PartialEq)]
pub struct Recipe {
    pub phase: Phase,
    pub rules: Rules,
    /// What the training valued positions past the phase with.
    pub leaves: Leaves,
    /// How card play was keyed.
    pub play_abstraction: PlayAbstraction,
    /// Where the bids come from when the run played them from a fixed
    /// blueprint rather than training them.
    pub bidding_from: Option<BlueprintSource>,
    /// The card-play table whose play valued the leaves, for table-play
    /// leaves: the bids are refit to that card play.
    pub card_play_from: Option<CardPlaySource>,
    /// What the bids assumed of the opponents' bids.
    pub opponent_bids: OpponentBids,
    /// What the bids were trained to win: the hand's points, or the game,
    /// with one bid a score context.
    pub bids_for: BidsFor,
    /// The score-blind bids that bids for the game started from.
    pub bids_prior: Option<BlueprintSource>,
}

impl Recipe {
    /// `phase` under `rules` with every other setting as a run makes it by
    /// default: open-hand leaves, the plain play key, trained bids, no
    /// card-play table and equilibrium bids.
    pub fn new(phase: Phase, rules: Rules) -> Recipe {
        Recipe {
            phase,
            rules,
            leaves: Leaves::default(),
            play_abstraction: PlayAbstraction::default(),
            bidding_from: None,
            card_play_from: None,
            opponent_bids: OpponentBids::Equilibrium,
            bids_for: BidsFor::Points,
            bids_prior: None,
        }
    }
}

/// What a policy's bids were trained to win.
///
/// With [`BidsFor::Game`], each bidding view is trained once per score
/// context ([`euchre_game::game::context`]): the hand is dealt at a score
/// drawn from that context, and the hand's end is valued by the dealing
/// side's chance of winning the game from the score it leaves
/// ([`crate::game_outcomes::reference`]'s model, to 10), not by its points.
/// The file keys each context's bids apart
/// ([`euchre_game::keys::bidding::in_context`]); a view without a score
/// plays the context where both sides have three or more to go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum BidsFor {
    /// The hand's points, whatever the score: every policy before the
    /// setting existed.
    #[default]
    Points,
    /// The chance of winning the game, one bid a score context.
    Game,
}

impl BidsFor {
    pub fn is_points(&self) -> bool {
        *self == BidsFor::Points
    }
}

impl fmt::Display for BidsFor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BidsFor::Points => "points",
            BidsFor::Game => "game",
        })
    }
}

/// What a policy file holds: its recipe, how long it trained, and which of
/// its strategies it kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "MetaOnDisk", into = "MetaOnDisk")]
pub struct PolicyMeta {
    pub recipe: Recipe,
    pub iterations: u64,
    pub strategy: Strategy,
    /// The bids a search decided once per key and kept beside the
    /// blueprint's (`trainer search-bids`); `None` in a plain export.
    pub searched_bids: Option<SearchedBids>,
    /// The opening leads a search decided once per key and kept under the
    /// lead's own key (`trainer search-leads`); `None` in a plain export.
    pub searched_leads: Option<SearchedLeads>,
}

/// What a policy file's searched leads are: the opening-lead keys met most
/// often when the policy's own bids finish dealt auctions, decided once by
/// `bot` and kept under each key (`euchre_game::keys::lead`), so that one
/// lookup plays the search's lead; every other lead is the table's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchedLeads {
    /// The searching bot's spec, its table named by file name.
    pub bot: String,
    /// The keys decided.
    pub keys: u64,
    /// Of those, the keys where the search leads another card than the
    /// table's most likely one.
    pub changed: u64,
    /// The hands dealt to weigh the keys, and the share of their opening
    /// leads that the decided keys cover.
    pub deals: u64,
    pub mass: f64,
}

/// What a policy file's searched bids are: each bidding key the blueprint
/// was unsure of, decided once by `bot` and kept at the key's searched tag
/// (`euchre_game::keys::bidding::searched`), so that one lookup plays the
/// search's bid and the blueprint's rows stay as they were.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SearchedBids {
    /// The searching bot's spec, its blueprint named by file name.
    pub bot: String,
    /// The blueprint searched over (the bids the other seats are read by).
    pub blueprint: BlueprintSource,
    /// The keys decided.
    pub keys: u64,
    /// Of those, the keys where the search bids otherwise than the
    /// blueprint's most likely bid.
    pub changed: u64,
}

impl PolicyMeta {
    /// A policy of `phase` under `rules` after `iterations`, every other
    /// setting as a run makes it by default ([`Recipe::new`]), holding the
    /// average strategy.
    pub fn new(phase: Phase, rules: Rules, iterations: u64) -> PolicyMeta {
        PolicyMeta {
            recipe: Recipe::new(phase, rules),
            iterations,
            strategy: Strategy::default(),
            searched_bids: None,
            searched_leads: None,
        }
    }
}

/// [`PolicyMeta`] as policy files hold it (JSON), field for field and in
/// the order files have always been written: every file ever written
/// still reads, and a policy is written byte for byte as before.
#[derive(Serialize, Deserialize)]
struct MetaOnDisk {
    phase: Phase,
    rules: Rules,
    iterations: u64,
    /// Files written before the setting existed were open-hand.
    #[serde(default)]
    leaves: Leaves,
    /// Files written before the choice existed hold the average.
    #[serde(default)]
    strategy: Strategy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bidding_from: Option<BlueprintSource>,
    /// Files written before the choice existed (and every plain one) were
    /// plain.
    #[serde(default, skip_serializing_if = "PlayAbstraction::is_plain")]
    play_abstraction: PlayAbstraction,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    card_play_from: Option<CardPlaySource>,
    /// Files written before the setting existed (and every equilibrium
    /// one) were equilibrium.
    #[serde(default, skip_serializing_if = "OpponentBids::is_equilibrium")]
    opponent_bids: OpponentBids,
    /// Files written before the setting existed (and every score-blind
    /// one) bid for points.
    #[serde(default, skip_serializing_if = "BidsFor::is_points")]
    bids_for: BidsFor,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bids_prior: Option<BlueprintSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    searched_bids: Option<SearchedBids>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    searched_leads: Option<SearchedLeads>,
}

impl From<MetaOnDisk> for PolicyMeta {
    fn from(disk: MetaOnDisk) -> PolicyMeta {
        PolicyMeta {
            recipe: Recipe {
                phase: disk.phase,
                rules: disk.rules,
                leaves: disk.leaves,
                play_abstraction: disk.play_abstraction,
                bidding_from: disk.bidding_from,
                card_play_from: disk.card_play_from,
                opponent_bids: disk.opponent_bids,
                bids_for: disk.bids_for,
                bids_prior: disk.bids_prior,
            },
            iterations: disk.iterations,
            strategy: disk.strategy,
            searched_bids: disk.searched_bids,
            searched_leads: disk.searched_leads,
        }
    }
}

impl From<PolicyMeta> for MetaOnDisk {
    fn from(meta: PolicyMeta) -> MetaOnDisk {
        let Recipe {
            phase,
            rules,
            leaves,
            play_abstraction,
            bidding_from,
            card_play_from,
            opponent_bids,
            bids_for,
            bids_prior,
        } = meta.recipe;
        MetaOnDisk {
            phase,
            rules,
            iterations: meta.iterations,
            leaves,
            strategy: meta.strategy,
            bidding_from,
            play_abstraction,
            card_play_from,
            opponent_bids,
            bids_for,
            bids_prior,
            searched_bids: meta.searched_bids,
            searched_leads: meta.searched_leads,
        }
    }
}

/// Which strategy of a table a policy file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Strategy {
    /// The average strategy: what CFR's guarantees are about.
    #[default]
    #[serde(rename = "average")]
    Average,
    /// The current strategy, regret matching on the regrets as they stand:
    /// the last iterate, which moves first and may play better or worse.
    #[serde(rename = "current")]
    Current,
    /// The bids' average strategy and card play's current one: what a run
    /// that keeps no average in card play holds (its trainer's
    /// `card_play_strategy = "current"`).
    #[serde(rename = "current-card-play")]
    CurrentCardPlay,
}

impl Strategy {
    /// Whether a decision is read from its current strategy rather than its
    /// average.
    pub fn is_current_at(self, bidding: bool) -> bool {
        match self {
            Strategy::Average => false,
            Strategy::Current => true,
            Strategy::CurrentCardPlay => !bidding,
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Average => "average",
            Strategy::Current => "current",
            Strategy::CurrentCardPlay => "bids' average and card play's current",
        })
    }
}

/// The leaf evaluator of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Leaves {
    /// Both sides play the rest perfectly with every hand face up.
    #[default]
    #[serde(rename = "open-hand")]
    OpenHand,
    /// Every seat plays the rest by the heuristic's rules.
    #[serde(rename = "heuristic-play")]
    HeuristicPlay,
    /// The open-hand trick count, mapped to the points PIMC's card play
    /// scores on average from positions with that count ([`crate::leaves::calibration`]);
    /// lone contracts keep open-hand values.
    #[serde(rename = "pimc-calibrated")]
    PimcCalibrated,
    /// Every seat plays the rest by a trained full-play table's most likely
    /// card: the run names the table (`--card-play-from`).
    #[serde(rename = "table-play")]
    TablePlay,
}

/// The kind of card play a bot brings, as far as leaves are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardPlay {
    /// Open-hand solves of sampled worlds (PIMC and the search bot).
    OpenHandSearch,
    /// The heuristic's card rules.
    Heuristic,
    /// A trained full-play table.
    Table,
}

impl Leaves {
    pub const ALL: [Leaves; 4] = [
        Leaves::OpenHand,
        Leaves::HeuristicPlay,
        Leaves::PimcCalibrated,
        Leaves::TablePlay,
    ];

    /// The card play these leaves assume follows the policy.
    pub fn assumed_play(self) -> CardPlay {
        match self {
            Leaves::OpenHand | Leaves::PimcCalibrated => CardPlay::OpenHandSearch,
            Leaves::HeuristicPlay => CardPlay::Heuristic,
            Leaves::TablePlay => CardPlay::Table,
        }
    }

    /// The bot spec whose card play matches these leaves.
    pub fn matching_player(self) -> &'static str {
        match self.assumed_play() {
            CardPlay::OpenHandSearch => "pimc:N",
            CardPlay::Heuristic => "heuristic",
            CardPlay::Table => "policy-argmax:CARD-PLAY-FILE",
        }
    }
}

impl fmt::Display for Leaves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Leaves::OpenHand => "open-hand",
            Leaves::HeuristicPlay => "heuristic-play",
            Leaves::PimcCalibrated => "pimc-calibrated",
            Leaves::TablePlay => "table-play",
        })
    }
}

/// A leaves name that names no evaluator.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown leaves '{0}': use open-hand, heuristic-play, pimc-calibrated or table-play")]
pub struct UnknownLeaves(pub String);

impl FromStr for Leaves {
    type Err = UnknownLeaves;

    fn from_str(text: &str) -> Result<Leaves, UnknownLeaves> {
        Leaves::ALL
            .into_iter()
            .find(|leaves| leaves.to_string() == text)
            .ok_or_else(|| UnknownLeaves(text.to_owned()))
    }
}

/// Which file a run's bids come from, as the run's settings and its policy
/// file record it: enough to find the file again and to notice that it was
/// replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlueprintSource {
    /// Absolute, so that a run resumed from another directory finds it.
    pub path: PathBuf,
    /// The policy file's own CRC-32.
    pub checksum: u32,
    /// The iterations the blueprint was trained for.
    pub iterations: u64,
    /// How a bid is drawn from the blueprint's average strategy. Runs saved
    /// before the choice existed drew from the average.
    #[serde(default = "BidChoice::before_the_choice")]
    pub choice: BidChoice,
}

/// How a run draws its fixed bids from the blueprint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum BidChoice {
    /// The blueprint's most likely bid at every key: what `policy-argmax:`
    /// plays. The bidding runs measured in `docs/experiments/` take about 3 points
    /// of share more with it than with the sampled average, against
    /// PIMC-50, PIMC-200 and the heuristic alike.
    #[default]
    Argmax,
    /// A draw from the blueprint's average strategy: what `policy:` plays.
    Average,
}

impl BidChoice {
    /// What a run saved before the choice existed did.
    pub(crate) fn before_the_choice() -> BidChoice {
        BidChoice::Average
    }
}

impl fmt::Display for BidChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BidChoice::Argmax => "argmax",
            BidChoice::Average => "average",
        })
    }
}

impl fmt::Display for BlueprintSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({} bids; checksum {:08x}, {} iterations)",
            self.path.display(),
            self.choice,
            self.checksum,
            self.iterations
        )
    }
}

/// Which card-play table a run's leaves come from, as the run's settings
/// and its exported policy record it: enough to find the file again and to
/// notice that it was replaced.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardPlaySource {
    /// Absolute, so that a run resumed from another directory finds it.
    pub path: PathBuf,
    /// The policy file's own CRC-32.
    pub checksum: u32,
    /// The iterations the table was trained for.
    pub iterations: u64,
}

impl fmt::Display for CardPlaySource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (checksum {:08x}, {} iterations)",
            self.path.display(),
            self.checksum,
            self.iterations
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy's metadata as the binary before [`Recipe`] wrote it (a
    /// full-play export with fixed bids and modelled opponents' bids),
    /// byte for byte: the recipe changed how the code holds it, not what
    /// files say.
    const WRITTEN_BEFORE_THE_RECIPE: &str = r#"{"phase":"full-play","rules":{"stick_the_dealer":true,"lone_defender":false,"dealer_may_discard_upcard":true,"loner_lead":"left-of-dealer"},"iterations":200,"leaves":"open-hand","strategy":"average","bidding_from":{"path":"/tmp/recipe-old/run/bidding/policy.bin","checksum":2153533317,"iterations":300,"choice":"argmax"},"opponent_bids":"heuristic:0.5"}"#;

    #[test]
    fn the_metadata_reads_and_writes_as_files_always_held_it() {
        let meta: PolicyMeta = serde_json::from_str(WRITTEN_BEFORE_THE_RECIPE).unwrap();
        assert_eq!(meta.recipe.phase, Phase::FullPlay);
        assert_eq!(meta.iterations, 200);
        assert_eq!(
            meta.recipe.opponent_bids,
            OpponentBids::Heuristic { share: 0.5 }
        );
        let source = meta.recipe.bidding_from.as_ref().unwrap();
        assert_eq!((source.checksum, source.iterations), (2153533317, 300));
        assert_eq!(
            serde_json::to_string(&meta).unwrap(),
            WRITTEN_BEFORE_THE_RECIPE
        );
        // The defaults a plain file leaves out are still left out.
        let plain = PolicyMeta::new(Phase::Bidding, Rules::default(), 5);
        let json = serde_json::to_string(&plain).unwrap();
        assert!(!json.contains("opponent_bids") && !json.contains("bidding_from"));
        assert!(!json.contains("play_abstraction") && !json.contains("card_play_from"));
        assert!(!json.contains("bids_for"));
        assert_eq!(serde_json::from_str::<PolicyMeta>(&json).unwrap(), plain);
    }
}
