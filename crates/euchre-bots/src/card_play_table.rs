//! A trained card-play policy that values bidding's leaves.
//!
//! The bidding blueprint is trained with open-hand leaves: every contract
//! is worth what it scores when both sides see every card. The exported
//! full-play policy does not play that way. It plays its own table, which
//! takes and concedes tricks that an open-handed player would not, so the
//! blueprint's bids are an equilibrium of a game that the export never
//! plays. A bidding run given such a table (`--leaves table-play
//! --card-play-from FILE`) values each leaf by the table's own play of the
//! hand at all four seats, so its bids are an equilibrium of the game the
//! export does play: the blueprint's bids, refit to its card play.
//!
//! The playout is deterministic: every seat plays the table's most likely
//! card (what `policy-argmax:` plays), and a key the table never trained is
//! played by the heuristic's card rules. So a leaf's value is exact for
//! the deal, as an open-hand solve is, and is cached the same way.

use std::cell::RefCell;
use std::path::{Path, PathBuf};

use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::state::{GameState, Outcome, Stage};
use rustc_hash::FxHashMap;

use thiserror::Error;

use crate::bots::heuristic;
use crate::leaves::position::{boundary_key, team_payoffs};
use crate::meta::CardPlaySource;
use crate::meta::PolicyMeta;
use crate::phase::Phase;
use crate::pinned::{Pinned, PinnedError, PinnedHeader};
use crate::policy_file::{PolicyFile, most_likely};
use crate::seen::Seen;

impl CardPlaySource {
    /// What a new run under `rules` records of the table at `path`, read
    /// from the file's header alone: a table may be a gigabyte, and the
    /// session loads and verifies it once, by [`CardPlayTable::reopen`].
    pub fn probe(path: &Path, rules: Rules) -> Result<CardPlaySource, CardPlayError> {
        let PinnedHeader { path, header } = Pinned::probe(path, rules, ROLE)?;
        CardPlaySource::of(path, &header.meta, header.checksum)
    }

    fn of(
        path: PathBuf,
        meta: &PolicyMeta,
        checksum: u32,
    ) -> Result<CardPlaySource, CardPlayError> {
        if meta.recipe.phase != Phase::FullPlay {
            return Err(CardPlayError::NotFullPlay {
                path,
                phase: meta.recipe.phase,
            });
        }
        Ok(CardPlaySource {
            path,
            checksum,
            iterations: meta.iterations,
        })
    }
}

/// Why a card-play table cannot be used. Each message names the file and
/// what to do about it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CardPlayError {
    #[error(transparent)]
    Pinned(#[from] PinnedError),
    #[error(
        "the card-play table {} is a {phase} policy, which does not play a whole hand; export a full-play run (`trainer --phase full-play`, then `trainer export`)",
        path.display()
    )]
    NotFullPlay { path: PathBuf, phase: Phase },
}

/// What a run uses a table as, in messages about it.
const ROLE: &str = "card-play table";

/// A loaded full-play policy: only its card plays are ever read.
#[derive(Debug)]
pub struct CardPlayTable {
    source: CardPlaySource,
    policy: PolicyFile,
}

/// Positions already played out on this thread, as each team's payoff:
/// MCCFR replays one deal for each seat's walk in an iteration, and many
/// bidding histories reach the same first lead. Keyed by the table's
/// checksum, the trick-boundary position and the maker's seat (a play key
/// may tell the makers apart, where the open-hand value does not).
type PlayoutCache = FxHashMap<(u32, u128, u8), [f64; 2]>;

const PLAYOUT_CACHE_LIMIT: usize = 1 << 16;

thread_local! {
    static PLAYOUTS: RefCell<PlayoutCache> = RefCell::new(PlayoutCache::default());
}

impl CardPlayTable {
    /// Loads a table for a new run under `rules`.
    pub fn load(path: &Path, rules: Rules) -> Result<CardPlayTable, CardPlayError> {
        CardPlayTable::from_pinned(Pinned::open(path, rules, ROLE)?)
    }

    /// Loads the table a run was started with, refusing a file that has
    /// changed since: bids refit to one card play must not go on under
    /// another.
    pub fn reopen(source: &CardPlaySource, rules: Rules) -> Result<CardPlayTable, CardPlayError> {
        let pinned = Pinned::reopen(&source.path, source.checksum, rules, ROLE)?;
        CardPlayTable::from_pinned(pinned)
    }

    fn from_pinned(pinned: Pinned) -> Result<CardPlayTable, CardPlayError> {
        let Pinned { path, policy } = pinned;
        Ok(CardPlayTable {
            source: CardPlaySource::of(path, &policy.meta, policy.checksum())?,
            policy,
        })
    }

    pub fn source(&self) -> &CardPlaySource {
        &self.source
    }

    /// The card the table plays at `state`, a card play: see [`table_card`].
    pub fn play(&self, state: &GameState) -> Action {
        table_card(&self.policy, state)
    }

    /// Each team's payoff with the rest of `state`, a position in play,
    /// played by the table at every seat.
    pub fn play_out(&self, state: &GameState) -> [f64; 2] {
        let key = boundary_key(state)
            .zip(state.contract())
            .map(|(key, contract)| (self.source.checksum, key, contract.maker.index() as u8));
        if let Some(payoffs) =
            key.and_then(|key| PLAYOUTS.with_borrow(|cache| cache.get(&key).copied()))
        {
            return payoffs;
        }
        let payoffs = play_out(&self.policy, state);
        if let Some(key) = key {
            PLAYOUTS.with_borrow_mut(|cache| {
                if cache.len() >= PLAYOUT_CACHE_LIMIT {
                    cache.clear();
                }
                cache.insert(key, payoffs);
            });
        }
        payoffs
    }
}

/// The card a full-play `policy` plays at `state`, a card play: its most
/// likely card (what `policy-argmax:` plays), or the heuristic's where the
/// policy never trained the key.
pub fn table_card(policy: &PolicyFile, state: &GameState) -> Action {
    let legal = state.legal_actions();
    if legal.len() == 1 {
        return legal[0];
    }
    if let Some(decision) = policy.decision(state) {
        let width = decision.actions.len();
        let mut probabilities = [0.0f64; Action::MAX_LEGAL];
        if policy.probabilities(decision.key.0, &mut probabilities[..width]) {
            return decision.actions[most_likely(&probabilities[..width])];
        }
    }
    Action::Play(heuristic::play(&Seen::new(state, &[])))
}

/// Each team's payoff with the rest of `state`, a position in play (or a
/// finished hand), played by [`table_card`] at every seat.
pub fn play_out(policy: &PolicyFile, state: &GameState) -> [f64; 2] {
    play_out_outcome(policy, state).map_or([0.0; 2], |outcome| {
        team_payoffs(|team| f64::from(outcome.payoff(team)))
    })
}

/// How the hand ends with the rest of `state` played by [`table_card`] at
/// every seat; `None` for a hand nobody bid.
pub fn play_out_outcome(policy: &PolicyFile, state: &GameState) -> Option<Outcome> {
    let mut playout = *state;
    while playout.stage() == Stage::Play {
        playout.apply(table_card(policy, &playout));
    }
    playout.outcome()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use euchre_game::engine::seat::Seat;
    use euchre_game::engine::state::Deal;
    use euchre_game::keys::decision;
    use rand::rngs::SmallRng;
    use rand::{RngExt, SeedableRng};
    use store::Table as _;

    use super::*;
    use crate::bot::Bot;
    use crate::bots::policy::{PolicyBot, Sampling, Unseen};
    use crate::bots::random::RandomBot;
    use crate::meta::PolicyMeta;
    use crate::policy_file::export;

    /// A position at the first lead: bids drawn at random until someone
    /// makes trump (`None` if all eight pass).
    fn first_lead(rng: &mut SmallRng) -> Option<GameState> {
        let mut state = GameState::new(Deal::random(Seat::North, rng), Rules::default());
        while matches!(
            state.stage(),
            Stage::BiddingRound1 | Stage::BiddingRound2 | Stage::DealerDiscard
        ) {
            let legal = state.legal_actions();
            state.apply(legal[rng.random_range(0..legal.len())]);
        }
        (state.stage() == Stage::Play).then_some(state)
    }

    /// A full-play policy that has trained a random preference at the card
    /// plays of random hands, and left every other key unseen.
    fn partly_trained_table(path: &Path) -> CardPlayTable {
        let table = store::MemoryTable::new();
        let mut rng = SmallRng::seed_from_u64(3);
        for _ in 0..400 {
            let Some(mut state) = first_lead(&mut rng) else {
                continue;
            };
            while state.stage() == Stage::Play {
                let legal = state.legal_actions();
                if legal.len() > 1
                    && let Some(decision) = decision(&state)
                {
                    let slot = table.slot(decision.key.0).unwrap();
                    let weights: Vec<f32> = (0..legal.len()).map(|_| rng.random::<f32>()).collect();
                    table
                        .update(slot, &mut |record| {
                            record.strategy_sum[..weights.len()].copy_from_slice(&weights);
                        })
                        .unwrap();
                }
                state.apply(legal[rng.random_range(0..legal.len())]);
            }
        }
        let meta = PolicyMeta::new(Phase::FullPlay, Rules::default(), 1);
        export(&table, &meta, 7, None, path, &mut |_, _| {}).unwrap();
        CardPlayTable::load(path, Rules::default()).unwrap()
    }

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("card-play-table-{name}-{}.bin", std::process::id()))
    }

    #[test]
    fn a_leaf_scores_what_the_exported_bot_scores_playing_every_seat() {
        let path = temp("bot");
        let table = partly_trained_table(&path);
        // The bot users play: the table's argmax, the heuristic where a key
        // is unseen.
        let bot = PolicyBot::load(
            &path,
            Sampling::Argmax,
            Unseen::Heuristic,
            Arc::new(RandomBot),
        )
        .unwrap();
        std::fs::remove_file(&path).ok();
        let mut rng = SmallRng::seed_from_u64(11);
        let mut compared = 0;
        for _ in 0..300 {
            let Some(start) = first_lead(&mut rng) else {
                continue;
            };
            let mut state = start;
            while state.stage() == Stage::Play {
                let action = bot.act(&Seen::new(&state, &[]), &mut rng);
                state.apply(action);
            }
            let outcome = state.outcome().unwrap();
            let expected = team_payoffs(|team| f64::from(outcome.payoff(team)));
            // Twice: the second answer comes from the cache.
            assert_eq!(table.play_out(&start), expected);
            assert_eq!(table.play_out(&start), expected);
            compared += 1;
        }
        assert!(compared > 200);
        let report = bot.report().unwrap();
        assert!(
            report.contains("% from the policy")
                && !report.contains(": 0.0% from the policy")
                && !report.contains(": 100.0% from the policy"),
            "the playouts met both trained and unseen keys: {report}"
        );
    }

    #[test]
    fn only_a_full_play_policy_of_the_same_rules_is_a_table_and_a_replaced_one_is_refused() {
        let path = temp("checks");
        let table = partly_trained_table(&path);
        let source = table.source().clone();
        assert_eq!(source.checksum, PolicyFile::load(&path).unwrap().checksum());

        let lone = Rules {
            lone_defender: true,
            ..Rules::default()
        };
        let error = CardPlayTable::load(&path, lone).unwrap_err();
        assert!(
            error.to_string().contains("trained under other rules"),
            "{error}"
        );

        let bidding = temp("bidding");
        let meta = PolicyMeta::new(Phase::Bidding, Rules::default(), 1);
        export(
            &store::MemoryTable::new(),
            &meta,
            7,
            None,
            &bidding,
            &mut |_, _| {},
        )
        .unwrap();
        let error = CardPlayTable::load(&bidding, Rules::default()).unwrap_err();
        assert!(
            error.to_string().contains("does not play a whole hand"),
            "{error}"
        );
        std::fs::remove_file(&bidding).ok();

        // The same file reopens; another file at its path does not.
        CardPlayTable::reopen(&source, Rules::default()).unwrap();
        let other = store::MemoryTable::new();
        let mut meta = meta;
        meta.recipe.phase = Phase::FullPlay;
        export(&other, &meta, 7, None, &path, &mut |_, _| {}).unwrap();
        let error = CardPlayTable::reopen(&source, Rules::default()).unwrap_err();
        assert!(
            error.to_string().contains("changed since this run started"),
            "{error}"
        );
        std::fs::remove_file(&path).ok();
        let error = CardPlayTable::load(&path, Rules::default()).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("cannot resolve the card-play table's path"),
            "{error}"
        );
    }
}
