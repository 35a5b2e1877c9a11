//! Everything that can be wrong with a run's settings, each message
//! saying what to change.

use std::path::PathBuf;

use cfr::CfrError;
use thiserror::Error;

use euchre_bots::blueprint::BlueprintError;

use euchre_bots::card_play_table::CardPlayError;
use euchre_bots::leaves::LeavesError;
use euchre_bots::opponent_bids::UnknownOpponentBids;
use euchre_bots::phase::Phase;
use euchre_bots::spec::BotSpecError;

use super::*;

/// Why a profile or the flags on top of it make no valid run. Each message
/// names the setting and says what would be valid.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("cannot read the config file {}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: store::RegularFileError,
    },
    #[error(
        "{origin}, line {line}: [run] {key}: {message} (configs/example.toml documents every key)"
    )]
    RunKey {
        origin: String,
        key: String,
        line: usize,
        message: String,
    },
    #[error("{origin} is not a valid run profile (see configs/example.toml)")]
    Profile {
        origin: String,
        #[source]
        source: toml::de::Error,
    },
    #[error(
        "{origin}: [run] has no setting {}; see configs/example.toml for every key",
        keys.iter().map(|key| format!("'{key}'")).collect::<Vec<_>>().join(", ")
    )]
    UnknownRunKeys { origin: String, keys: Vec<String> },
    #[error("the [solver] table is not a valid discount schedule")]
    Schedule(#[source] CfrError),
    #[error(
        "pimc-calibrated leaves are measured at the first lead, so they value only the bidding phase's leaves; use --phase bidding, or --leaves open-hand for {phase}"
    )]
    CalibratedLeavesPhase { phase: Phase },
    #[error(
        "table-play leaves value the positions past a phase's horizon, and full play has none; train bids with --phase bidding --leaves table-play --card-play-from POLICY"
    )]
    TablePlayPhase,
    #[error(transparent)]
    Leaves(#[from] LeavesError),
    #[error(
        "--opponent-bids says what trained bids assume of the opponents' bids, but --bidding-from fixes every bid; drop one of the two (a staged or bidding run trains bids against the model)"
    )]
    OpponentBidsWithFixedBids,
    #[error(
        "--card-play-strategy current (or [solver] card_play_strategy) says what card play keeps, but the bidding phase has no card play in its table; drop it, or train --phase full-play or play-N"
    )]
    CurrentCardPlayInBidding,
    #[error(
        "--bids-for game values a hand by the score it leaves, but pimc-calibrated leaves value it in fractions of a point, which leave no score; use --leaves open-hand (or heuristic-play, table-play)"
    )]
    BidsForGameLeaves,
    #[error(
        "--bids-for game keys each bid once per score context, but the mmap store's perfect hash covers the plain bidding keys only; train the bids on --store memory or lmdb"
    )]
    BidsForGameOnMmap,
    #[error(
        "--bids-for game trains bids, but {phase} here plays them from a blueprint or trains them with card play; use --phase bidding, or --bids staged without --bidding-from (full play's default) so that its bidding stage trains them"
    )]
    BidsForGameUnstaged { phase: Phase },
    #[error(
        "--bids-prior names the score-blind bids that bids for the game start from, but this run bids for points; add --bids-for game, or drop --bids-prior"
    )]
    BidsPriorWithoutGame,
    #[error("[solver] opponent_bids")]
    OpponentBids(#[from] UnknownOpponentBids),
    #[error("opening the card-play table of --card-play-from")]
    CardPlay(#[source] CardPlayError),
    #[error("an iteration budget of 0 trains nothing: give at least 1, or use --for 2h")]
    ZeroIterations,
    #[error("[run] batch must be at least 1")]
    ZeroBatch,
    #[error(
        "--checkpoint-every 0 (checkpoint_every_iterations = 0) would checkpoint after every batch; give at least 1 iteration, or leave it out (checkpoints come every 10 minutes and at Ctrl-C without it)"
    )]
    ZeroCheckpointEvery,
    #[error(
        "--until 0 stops before any training; give the total the run should reach, above its current one (trainer status shows it)"
    )]
    ZeroUntil,
    #[error(
        "--threads {threads} is more than this machine can use: give 1 to {most} ({per_core} a core on its {cores} cores), or 0 for one a core"
    )]
    TooManyThreads {
        threads: usize,
        most: usize,
        per_core: usize,
        cores: usize,
    },
    #[error("--sync-every 0 would sync without training: give a period such as 10s")]
    ZeroSyncPeriod,
    #[error("[run] checkpoint_every_minutes must be a positive number of minutes, not {minutes}")]
    CheckpointMinutes { minutes: f64 },
    #[error("[log] level '{level}' is not one of error, warn, info, debug, trace")]
    LogLevel { level: String },
    #[error(
        "--prune {regret}: give how far below zero an action's regret must fall to be skipped, as a positive number (--prune 20), or 0 to turn pruning off"
    )]
    Prune { regret: f64 },
    #[error(
        "--warm-start {weight}: give what the heuristic's move weighs on a fresh infostate as a positive number (--warm-start 1), or 0 to start infostates at zero"
    )]
    WarmStart { weight: f64 },
    #[error(
        "--sample-own-after {given:?}: give how many of the traverser's branching decisions per walk it explores before it samples (--sample-own-after 2), or `off` to explore them all"
    )]
    SampleOwnAfter { given: String },
    #[error(
        "--best-response-to {given:?}: name the exported policy file to train a best response to (--best-response-to runs/full-play-mmap/policy.bin), or `off` to train as usual"
    )]
    BestResponseTo { given: String },
    #[error(transparent)]
    Duration(#[from] DurationError),
    #[error("--eval-hands {hands} must be an even number of at least 2: each deal is played twice")]
    EvalHands { hands: u64 },
    #[error("--eval-every must be a positive duration")]
    EvalEvery,
    #[error("--eval-against '{against}'")]
    EvalAgainst {
        against: String,
        #[source]
        source: BotSpecError,
    },
    #[error(
        "--bidding-from fixes the bids of a card-play run, but the bidding phase trains nothing else; use it with --phase full-play or play-N"
    )]
    BlueprintPhase,
    #[error("--bidding-from")]
    Blueprint(#[source] BlueprintError),
    #[error(
        "--fixed-bids says how bids are drawn from a bidding blueprint; name the blueprint with --bidding-from POLICY, or train one first with --bids staged"
    )]
    FixedBidsWithoutBlueprint,
    #[error(
        "--bids and --bidding-iterations say where a card-play run's bids come from, but the bidding phase trains only bids; use them with --phase full-play or play-N"
    )]
    BidsPhase,
    #[error(
        "--bidding-from already fixes the bids, so --bids cannot also choose them; keep one of the two"
    )]
    BidsWithBlueprint,
    #[error(
        "--bidding-iterations sets the length of a bidding stage, but this run has none (its bids come from --bidding-from, or --bids trained); drop it, or use --bids staged"
    )]
    StageWithoutStage,
    #[error(
        "--bidding-iterations 0 trains no bids; give the stage at least 1 iteration (the default is 8,000,000), or use --bids trained"
    )]
    ZeroBiddingStage,
}
