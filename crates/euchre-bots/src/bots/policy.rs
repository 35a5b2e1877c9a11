//! The trained bot: plays an exported average strategy.
//!
//! **Unseen keys.** A key missing from the policy file was never averaged in
//! training. By default ([`Unseen::Heuristic`]) such decisions are handed
//! to the [`Heuristic`] bot; [`Unseen::Uniform`] plays them uniformly at
//! random instead, which is what the untrained average strategy is, and
//! measures the policy with no outside help.
//!
//! **Composite bots.** Decisions past the phase's horizon (card play for a
//! `bidding` policy, cards after the N-th for `play-N`) go to the bot named
//! after a `+` in the spec, as in `policy:FILE+pimc:50`, and to the
//! heuristic when none is named. A bidding policy trained on open-hand
//! leaves is meant to be followed by open-hand search, which is how the
//! published euchre bots are judged. Every case is counted, and
//! [`Bot::report`] prints the counts after a match, so a result always
//! says how much of it was the policy's own play.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use euchre_game::engine::action::Action;
use euchre_game::engine::state::Stage;
use rand::RngExt;
use rand::rngs::SmallRng;

use crate::bot::Bot;
use crate::bots::heuristic::Heuristic;
use crate::meta::CardPlay;
use crate::phase::Phase;
use crate::policy_file::{PolicyFile, PolicyFileError};
use crate::seen::Seen;

/// How the bot turns the average strategy into an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// Draw from the average strategy, as the equilibrium prescribes.
    Sample,
    /// Take its most likely action.
    Argmax,
}

/// Who plays a key the policy never trained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Unseen {
    Heuristic,
    Uniform,
}

pub struct PolicyBot {
    /// Shared with every other bot built over the same file (a spec's
    /// halves, a search and the table it searches on): a full-play policy
    /// is a gigabyte.
    file: Arc<PolicyFile>,
    name: String,
    sampling: Sampling,
    unseen: Unseen,
    /// Plays the decisions past the policy's horizon.
    beyond: Arc<dyn Bot>,
    counts: Counts,
}

impl std::fmt::Debug for PolicyBot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyBot")
            .field("name", &self.name)
            .field("beyond", &self.beyond.name())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Default)]
struct Counts {
    from_policy: AtomicU64,
    unseen: AtomicU64,
    past_horizon: AtomicU64,
}

impl PolicyBot {
    /// The policy in `path`, with `beyond` playing past its horizon.
    pub fn load(
        path: &Path,
        sampling: Sampling,
        unseen: Unseen,
        beyond: Arc<dyn Bot>,
    ) -> Result<PolicyBot, PolicyFileError> {
        let file = Arc::new(PolicyFile::load(path)?);
        Ok(PolicyBot::over(file, path, sampling, unseen, beyond))
    }

    /// The policy `file`, already loaded from `path` (which names the bot),
    /// with `beyond` playing past its horizon.
    pub fn over(
        file: Arc<PolicyFile>,
        path: &Path,
        sampling: Sampling,
        unseen: Unseen,
        beyond: Arc<dyn Bot>,
    ) -> PolicyBot {
        let prefix = match sampling {
            Sampling::Sample => "policy",
            Sampling::Argmax => "policy-argmax",
        };
        let mut name = format!("{prefix}:{} ({})", path.display(), file.meta.recipe.phase);
        if file.meta.recipe.phase != Phase::FullPlay {
            name = format!("{name}+{}", beyond.name());
        }
        PolicyBot {
            name,
            file,
            sampling,
            unseen,
            beyond,
            counts: Counts::default(),
        }
    }

    /// A card player after the policy that its leaves did not assume: the
    /// policy's bids were tuned for other play, so a match measures the
    /// pairing, not the policy.
    fn leaves_mismatch(&self, player: &dyn Bot) -> Option<String> {
        if self.file.meta.recipe.phase == Phase::FullPlay {
            return None;
        }
        let leaves = self.file.meta.recipe.leaves;
        if player.card_play() == Some(leaves.assumed_play()) {
            return None;
        }
        Some(format!(
            "{} was trained on {leaves} leaves, but {} plays past its phase; the policy's bids assume {} play (pass +{} after the file, or train with --leaves to match)",
            self.name,
            player.name(),
            leaves.matching_player(),
            leaves.matching_player()
        ))
    }

    /// The rules the policy was trained under.
    pub fn rules(&self) -> euchre_game::engine::rules::Rules {
        self.file.meta.recipe.rules
    }

    /// The loaded policy file, for bots that reason with the policy rather
    /// than play it.
    pub fn file(&self) -> &PolicyFile {
        &self.file
    }

    /// Whether the policy's phase trained this decision at all.
    pub(crate) fn trained_here(&self, seen: &Seen<'_>) -> bool {
        if seen.stage() != Stage::Play {
            return true;
        }
        match self.file.meta.recipe.phase {
            Phase::Bidding => false,
            Phase::Play(cards) => seen.played().len() < u32::from(cards),
            Phase::FullPlay => true,
        }
    }
}

impl Bot for PolicyBot {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let legal = seen.legal();
        if legal.len() == 1 {
            return legal[0];
        }
        if !self.trained_here(seen) {
            self.counts.past_horizon.fetch_add(1, Ordering::Relaxed);
            return self.beyond.act(seen, rng);
        }
        let Some(decision) = seen.decision_for(&self.file) else {
            return self.beyond.act(seen, rng);
        };
        let mut probabilities = [0.0f64; Action::MAX_LEGAL];
        let width = decision.actions.len();
        if !self
            .file
            .probabilities(decision.key.0, &mut probabilities[..width])
        {
            self.counts.unseen.fetch_add(1, Ordering::Relaxed);
            return match self.unseen {
                Unseen::Heuristic => Heuristic.act(seen, rng),
                Unseen::Uniform => legal[rng.random_range(0..legal.len())],
            };
        }
        self.counts.from_policy.fetch_add(1, Ordering::Relaxed);
        let index = match self.sampling {
            Sampling::Argmax => crate::policy_file::most_likely(&probabilities[..width]),
            Sampling::Sample => {
                let mut draw: f64 = rng.random::<f64>();
                let mut chosen = width - 1;
                for (index, &p) in probabilities[..width].iter().enumerate() {
                    if draw < p {
                        chosen = index;
                        break;
                    }
                    draw -= p;
                }
                chosen
            }
        };
        decision.actions[index]
    }

    /// The average strategy's probabilities (an argmax bot plays the
    /// largest); past the horizon, whatever the bot there states; for an
    /// unseen key, uniform if that is how it is played.
    fn probabilities(&self, seen: &Seen<'_>) -> Option<Vec<(Action, f64)>> {
        let legal = seen.legal();
        if !self.trained_here(seen) {
            return self.beyond.probabilities(seen);
        }
        let decision = seen.decision_for(&self.file)?;
        let width = decision.actions.len();
        let mut probabilities = [0.0f64; Action::MAX_LEGAL];
        if self
            .file
            .probabilities(decision.key.0, &mut probabilities[..width])
        {
            return Some(
                decision
                    .actions
                    .iter()
                    .copied()
                    .zip(probabilities[..width].iter().copied())
                    .collect(),
            );
        }
        match self.unseen {
            Unseen::Uniform => {
                let share = 1.0 / legal.len() as f64;
                Some(legal.iter().map(|&action| (action, share)).collect())
            }
            Unseen::Heuristic => None,
        }
    }

    fn report(&self) -> Option<String> {
        let from_policy = self.counts.from_policy.load(Ordering::Relaxed);
        let unseen = self.counts.unseen.load(Ordering::Relaxed);
        let past = self.counts.past_horizon.load(Ordering::Relaxed);
        let total = (from_policy + unseen + past).max(1) as f64;
        let mut report = format!(
            "{}: {} decisions with a choice: {:.1}% from the policy, {:.1}% unseen keys (played by {}) and {:.1}% past the phase's horizon (played by {})",
            self.name,
            from_policy + unseen + past,
            100.0 * from_policy as f64 / total,
            100.0 * unseen as f64 / total,
            match self.unseen {
                Unseen::Heuristic => "the heuristic",
                Unseen::Uniform => "uniform random choice",
            },
            100.0 * past as f64 / total,
            self.beyond.name(),
        );
        if let Some(inner) = self.beyond.report() {
            report = format!("{report}\n  {inner}");
        }
        Some(report)
    }

    /// A bidding or play-N policy plays the cards like whoever follows it.
    fn card_play(&self) -> Option<CardPlay> {
        if self.file.meta.recipe.phase == Phase::FullPlay {
            Some(CardPlay::Table)
        } else {
            self.beyond.card_play()
        }
    }

    fn warnings(&self) -> Vec<String> {
        let mut warnings = self.warnings_followed_by(self.beyond.as_ref());
        warnings.extend(self.beyond.warnings());
        warnings
    }

    fn warnings_followed_by(&self, player: &dyn Bot) -> Vec<String> {
        self.leaves_mismatch(player).into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use euchre_game::engine::rules::Rules;
    use euchre_game::engine::seat::Seat;
    use euchre_game::engine::state::{Deal, GameState};
    use euchre_game::keys::decision_with;
    use euchre_game::keys::play::PlayAbstraction;
    use rand::SeedableRng;
    use store::{MemoryTable, Table};

    use super::*;
    use crate::bots::random::RandomBot;
    use crate::meta::PolicyMeta;
    use crate::policy_file::export;

    /// The first card-play decision of a deal whose bids all take the
    /// first legal action.
    fn first_card_play() -> GameState {
        let mut rng = SmallRng::seed_from_u64(11);
        let mut state = GameState::new(Deal::random(Seat::North, &mut rng), Rules::default());
        while state.stage() != Stage::Play {
            state.apply(state.legal_actions()[0]);
        }
        state
    }

    /// `table` exported under `meta` to a file named after `name`, loaded
    /// as an argmax bot (the file removed once read).
    fn argmax_bot_of(table: &MemoryTable, meta: &PolicyMeta, name: &str) -> PolicyBot {
        let path = std::env::temp_dir().join(format!("policy-{name}-{}.bin", std::process::id()));
        export(table, meta, 7, None, &path, &mut |_, _| {}).unwrap();
        let bot = PolicyBot::load(
            &path,
            Sampling::Argmax,
            Unseen::Uniform,
            Arc::new(RandomBot),
        )
        .unwrap();
        std::fs::remove_file(&path).ok();
        bot
    }

    #[test]
    fn a_policy_is_played_under_the_play_key_it_was_trained_with() {
        let state = first_card_play();
        let enriched = decision_with(&state, PlayAbstraction::MakerSeat).unwrap();
        let plain = decision_with(&state, PlayAbstraction::Plain).unwrap();
        assert_ne!(enriched.key, plain.key);
        assert!(enriched.actions.len() >= 2, "a forced lead tests nothing");
        // The policy plays the enriched key's last action for sure.
        let chosen = enriched.actions.len() - 1;
        let table = MemoryTable::new();
        let slot = table.slot(enriched.key.0).unwrap();
        table
            .update(slot, &mut |record| record.strategy_sum[chosen] = 5.0)
            .unwrap();
        let mut meta = PolicyMeta::new(Phase::FullPlay, Rules::default(), 1);
        meta.recipe.play_abstraction = PlayAbstraction::MakerSeat;
        let bot = argmax_bot_of(&table, &meta, "keyed");
        assert_eq!(
            bot.file().meta.recipe.play_abstraction,
            PlayAbstraction::MakerSeat
        );
        assert_eq!(bot.file().decision(&state), Some(enriched));
        let seen = Seen::new(&state, &[]);
        let mut rng = SmallRng::seed_from_u64(1);
        for _ in 0..20 {
            assert_eq!(bot.act(&seen, &mut rng), enriched.actions[chosen]);
        }
        assert_eq!(bot.counts.from_policy.load(Ordering::Relaxed), 20);
        assert_eq!(bot.counts.unseen.load(Ordering::Relaxed), 0);
    }

    /// A policy whose bids play for the game reads, in a game, the bid of
    /// the score's context, and the plain key's bid without a score, at a
    /// context the file never trained, or when its bids play for points.
    #[test]
    fn bids_for_the_game_are_read_by_the_scores_context_and_fall_back_to_the_plain_key() {
        use crate::meta::BidsFor;
        use euchre_game::game::GameScore;
        use euchre_game::game::context::ScoreContext;
        use euchre_game::keys::bidding::in_context;

        let state = GameState::new(
            Deal::random(Seat::North, &mut SmallRng::seed_from_u64(3)),
            Rules::default(),
        );
        let plain = decision_with(&state, PlayAbstraction::Plain).unwrap();
        let width = plain.actions.len();
        assert!(width >= 2);
        // North deals at 9-3 to north-south: the dealer's side one to go.
        let near = GameScore {
            points: [9, 3],
            dealer: Seat::North,
            target: 10,
        };
        let near_context = ScoreContext::of(&near);
        assert_ne!(near_context, ScoreContext::OPEN);
        let table = MemoryTable::new();
        let prefer = |key: u128, action: usize| {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| record.strategy_sum[action] = 5.0)
                .unwrap();
        };
        prefer(plain.key.0, 0);
        prefer(in_context(plain.key, near_context).0, width - 1);
        let play = |bids_for: BidsFor, score: Option<GameScore>| {
            let mut meta = PolicyMeta::new(Phase::Bidding, Rules::default(), 1);
            meta.recipe.bids_for = bids_for;
            let bot = argmax_bot_of(&table, &meta, &format!("for-game-{bids_for}"));
            let seen = match score {
                Some(score) => Seen::in_game(&state, &[], score),
                None => Seen::new(&state, &[]),
            };
            bot.act(&seen, &mut SmallRng::seed_from_u64(1))
        };
        let far = GameScore::start(Seat::North, 10);
        // The other side one to go: a context the file has no bid for.
        let untrained = GameScore {
            points: [3, 9],
            ..near
        };
        assert_eq!(play(BidsFor::Game, Some(near)), plain.actions[width - 1]);
        assert_eq!(play(BidsFor::Game, None), plain.actions[0]);
        assert_eq!(play(BidsFor::Game, Some(far)), plain.actions[0]);
        assert_eq!(play(BidsFor::Game, Some(untrained)), plain.actions[0]);
        assert_eq!(play(BidsFor::Points, Some(near)), plain.actions[0]);
    }
}
