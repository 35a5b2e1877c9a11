//! Euchre as the solver sees it: a [`cfr::Game`] over the engine, with the
//! phase deciding where the solver stops and the open-hand evaluator
//! values the position.
//!
//! - The root is a chance node whose outcome is a 64-bit deal seed; the
//!   dealer is always North, which loses nothing because every key is
//!   relative to the dealer or to the actor.
//! - Players are the four seats; a seat's payoff is its team's points minus
//!   the other team's, so the game is zero-sum between teams and one
//!   seat-relative table serves all four seats.
//! - Decisions use the canonical keys of `euchre_game`: perfect recall in
//!   bidding, the rank-compressed key in play. Actions are in the key's
//!   canonical order, so action `i` means the same at every state of a key.
//! - Where the solver stops, a [`LeafValuer`] values the position:
//!   open-handed by default, by the heuristic's play, or open-handed and
//!   calibrated to what PIMC's card play scores.
//! - With a fixed bidding blueprint ([`EuchreGame::with_fixed_bids`]),
//!   every bidding decision is a chance node with the blueprint's
//!   probabilities: the solver samples it and never stores it.
//! - A warm start ([`cfr::WarmStart`]) seeds each fresh infostate with
//!   the heuristic's move ([`Game::suggested_action`]).
//! - With modelled bids ([`EuchreGame::with_modelled_bids`]), the
//!   heuristic's bid is the model of an opponent's bid
//!   ([`Game::modelled_action`]) that a [`cfr::OpponentModel`] plays.
//! - With modelled opponents ([`EuchreGame::with_modelled_opponents`]), a
//!   bot (an exported policy, for a learned best response) is the model
//!   of every opponent's decision, bids and cards alike.
//! - With bids for the game ([`EuchreGame::with_bids_for_game`]), each
//!   hand is dealt at a score drawn from its seed, its bidding keys carry
//!   the score's context and its end is valued by the chance of winning
//!   the game ([`for_game`]).
//! - Exact solvers cannot walk this tree (the deal is one outcome among
//!   2^64); it is meant for sampling solvers such as external-sampling MCCFR.

use cfr::{Game, Node};
use euchre_game::engine::action::{Action, ActionList};
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::{Deal, GameState, Stage};
use euchre_game::keys::bidding::{bidding_decision, in_context};
use euchre_game::keys::play::PlayAbstraction;
use euchre_game::keys::{Decision, InfoKey, decision_with};
use rand::rngs::SmallRng;
use rand::{Rng, RngExt, SeedableRng};
use store::MAX_ACTIONS;

use euchre_bots::blueprint::BiddingBlueprint;
use euchre_bots::bot::Bot;
use euchre_bots::bots::heuristic;
use euchre_bots::leaves::LeafValuer;
use euchre_bots::leaves::position::team_payoffs;
use euchre_bots::phase::Phase;
use euchre_bots::policy_file::is_bidding_key;
use euchre_bots::seen::Seen;
use for_game::{DealtAt, ForGame};

pub mod for_game;

/// Tricks played before the solver stops pruning: the fourth trick (the
/// last with a choice) and the fifth are always walked in full.
const PRUNING_STOPS_AT_TRICK: u8 = 3;

/// A hand in progress, or the deal still to come.
///
/// The blueprint is borrowed, not shared through an `Arc`: solvers clone a
/// state at every node, and a reference count bumped by every thread on
/// every clone would contend for one cache line.
#[derive(Clone, Debug)]
pub struct EuchreGame<'b> {
    rules: Rules,
    /// Cards of play the solver owns; `None` for all of them.
    horizon: Option<u32>,
    leaves: LeafValuer<'b>,
    /// Bids played from a fixed policy rather than trained.
    fixed_bids: Option<&'b BiddingBlueprint>,
    state: Option<GameState>,
    /// The decision at `state`, computed once per state change.
    decision: Option<Decision>,
    /// Each team's payoff once the hand is over or its leaf is valued.
    payoffs: Option<[f64; 2]>,
    /// How card-play decisions are keyed.
    abstraction: PlayAbstraction,
    /// Whether the heuristic's bids model the opponents' bids.
    modelled_bids: bool,
    /// The bot that models every opponent's decision, if one does.
    modelled_opponents: Option<ModelledOpponents<'b>>,
    /// Whether card-play decisions keep their average strategy.
    card_play_average: bool,
    /// With bids for the game: the model hands are valued by.
    for_game: Option<&'b ForGame>,
    /// The score this hand was dealt at, with bids for the game.
    dealt_at: Option<DealtAt>,
}

impl<'b> EuchreGame<'b> {
    pub fn root(rules: Rules, phase: Phase, leaves: LeafValuer<'b>) -> EuchreGame<'b> {
        EuchreGame {
            rules,
            horizon: phase.horizon(),
            leaves,
            fixed_bids: None,
            state: None,
            decision: None,
            payoffs: None,
            abstraction: PlayAbstraction::Plain,
            modelled_bids: false,
            modelled_opponents: None,
            card_play_average: true,
            for_game: None,
            dealt_at: None,
        }
    }

    /// Trains the bids for the game: each hand dealt at a score, its
    /// bidding keyed by the score's context, its end valued by the chance
    /// of winning ([`for_game`]).
    pub fn with_bids_for_game(self, for_game: &'b ForGame) -> EuchreGame<'b> {
        EuchreGame {
            for_game: Some(for_game),
            ..self
        }
    }

    /// Keys card play under `abstraction` instead of the plain key.
    pub fn with_play_abstraction(self, abstraction: PlayAbstraction) -> EuchreGame<'b> {
        EuchreGame {
            abstraction,
            ..self
        }
    }

    /// Plays every bidding decision from `blueprint` instead of training it.
    pub fn with_fixed_bids(self, blueprint: &'b BiddingBlueprint) -> EuchreGame<'b> {
        EuchreGame {
            fixed_bids: Some(blueprint),
            ..self
        }
    }

    /// Names the heuristic's bid as the model of every bid
    /// ([`Game::modelled_action`]); card play has no model.
    pub fn with_modelled_bids(self) -> EuchreGame<'b> {
        EuchreGame {
            modelled_bids: true,
            ..self
        }
    }

    /// Names `bot`'s move as the model of every decision
    /// ([`Game::modelled_action`]): with a [`cfr::OpponentModel`] of share
    /// 1 the solver learns a best response to `bot`. The bot sees what the
    /// actor sees, score-blind, and is given a generator seeded by the
    /// decision's key, so a bot that draws plays one fixed draw a key (a
    /// policy played by its most likely action draws nothing).
    pub fn with_modelled_opponents(self, bot: &'b dyn Bot) -> EuchreGame<'b> {
        EuchreGame {
            modelled_opponents: Some(ModelledOpponents(bot)),
            ..self
        }
    }

    /// Keeps no average strategy in card play ([`Game::keeps_average`]):
    /// only the bids' average is exported; card play's current strategy
    /// stands for it.
    pub fn without_card_play_average(self) -> EuchreGame<'b> {
        EuchreGame {
            card_play_average: false,
            ..self
        }
    }

    /// Whether the decision here is a bid that a blueprint plays.
    fn is_fixed_bid(&self) -> bool {
        self.fixed_bids.is_some()
            && self
                .decision
                .is_some_and(|decision| is_bidding_key(decision.key.0))
    }

    /// The blueprint's probabilities at this fixed bid, one per legal action.
    fn fixed_bid_probabilities(&self, out: &mut [f64]) {
        if let (Some(blueprint), Some(decision)) = (self.fixed_bids, self.decision) {
            blueprint.probabilities(decision.key.0, out);
        }
    }

    /// The deal a chance outcome stands for.
    pub fn deal(outcome: u64) -> Deal {
        Deal::random(Seat::North, &mut SmallRng::seed_from_u64(outcome))
    }

    /// Finds what follows the state just reached: its decision, or its
    /// payoffs once the hand is over or the horizon reached. Works on
    /// `self.state` in place: training calls this at every node, and
    /// moving the state (48 bytes) out of the game and back by value cost
    /// full play about a seventh of its rate, in copies whose loads waited
    /// on the stores just before them (docs/experiments/full-play-node-copies.md).
    fn settle(&mut self) {
        self.decision = None;
        let Some(state) = self.state.as_ref() else {
            return;
        };
        let points = if let Some(outcome) = state.outcome() {
            team_payoffs(|team| f64::from(outcome.payoff(team)))
        } else if state.stage() == Stage::Play
            && self
                .horizon
                .is_some_and(|cards| state.played().len() >= cards)
        {
            self.leaves.evaluate(state)
        } else {
            self.decision = forced_play(state).or_else(|| decision_with(state, self.abstraction));
            if let (Some(at), Some(decision)) = (self.dealt_at, self.decision.as_mut()) {
                decision.key = in_context(decision.key, at.context);
            }
            return;
        };
        self.payoffs = Some(match (self.for_game, &self.dealt_at) {
            (Some(for_game), Some(at)) => for_game.payoffs(at, points),
            _ => points,
        });
    }
}

/// The bot that plays the opponents' decisions in a best response's walks.
#[derive(Clone, Copy)]
struct ModelledOpponents<'b>(&'b dyn Bot);

impl std::fmt::Debug for ModelledOpponents<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ModelledOpponents")
            .field(&self.0.name())
            .finish()
    }
}

/// The key kind of a forced card play, past the kinds of `euchre_game`'s
/// keys (bidding 1 to 4, play 5).
const FORCED_PLAY_KIND: u8 = 6;

/// A card play with one legal card, keyed by its kind and the actor's seat
/// only. Solvers learn nothing at a forced move and never store it, yet
/// every path ends in four of them (each seat's last card), and more come
/// from a single card of the led suit; building the rank-compressed key
/// there cost full play about an eighth of its iterations per second
/// (docs/experiments/full-play-forced-and-lanes.md). The seat keeps
/// different players' keys apart, as [`Game::info_key`] asks.
fn forced_play(state: &GameState) -> Option<Decision> {
    if state.stage() != Stage::Play {
        return None;
    }
    let playable = state.playable_cards();
    if playable.len() != 1 {
        return None;
    }
    let seat = state.to_act()?;
    let mut actions = ActionList::new();
    actions.push(Action::Play(playable.iter().next()?));
    Some(Decision {
        key: InfoKey(u128::from(FORCED_PLAY_KIND) << 120 | u128::from(seat.index() as u8)),
        actions,
    })
}

impl Game for EuchreGame<'_> {
    fn num_players(&self) -> usize {
        4
    }

    fn node(&self) -> Node {
        match (&self.state, &self.decision) {
            (None, _) => Node::SampledChance,
            (Some(_), Some(_)) if self.is_fixed_bid() => Node::Chance,
            (Some(state), Some(_)) => Node::Decision(state.to_act().map_or(0, Seat::index)),
            (Some(_), None) => Node::Terminal,
        }
    }

    /// The deal is sampled, never listed, so it has no action count.
    fn num_actions(&self) -> usize {
        self.decision.map_or(0, |decision| decision.actions.len())
    }

    /// Only fixed bids are listed chance nodes.
    fn chance_probability(&self, outcome: usize) -> f64 {
        let mut probabilities = [0.0; MAX_ACTIONS];
        let width = self.num_actions();
        self.fixed_bid_probabilities(&mut probabilities[..width]);
        probabilities[outcome]
    }

    fn apply(&mut self, action: usize) {
        match (&mut self.state, &self.decision) {
            (None, _) => {
                self.state = Some(GameState::new(EuchreGame::deal(action as u64), self.rules));
                self.dealt_at = self.for_game.map(|for_game| for_game.draw(action as u64));
            }
            (Some(state), Some(decision)) => state.apply(decision.actions[action]),
            (Some(_), None) => {
                debug_assert!(false, "apply at a terminal state");
                return;
            }
        }
        self.settle();
    }

    fn info_key(&self) -> u128 {
        self.decision.map_or(0, |decision| decision.key.0)
    }

    fn payoff(&self, player: usize) -> f64 {
        let team = Seat::from_index(player as u8).team();
        self.payoffs.map_or(0.0, |payoffs| payoffs[team.index()])
    }

    /// The last two tricks are never pruned: they hold the last choice of
    /// the hand, whose values every earlier regret is built from (Pluribus
    /// likewise never prunes its last betting round).
    fn prunable(&self) -> bool {
        self.state.is_none_or(|state| {
            state.stage() != Stage::Play || state.tricks_played() < PRUNING_STOPS_AT_TRICK
        })
    }

    /// Bids always do; card play unless the run keeps none
    /// ([`EuchreGame::without_card_play_average`]).
    fn keeps_average(&self) -> bool {
        self.card_play_average || self.state.is_none_or(|state| state.stage() != Stage::Play)
    }

    /// The heuristic's move: a warm start seeds a fresh infostate with it.
    /// The heuristic reads only what the actor sees, so this depends on
    /// nothing the key hides but the detail that rank compression drops
    /// (which card exactly, who played it); the first state visited under a
    /// key seeds it. A best response starts from the move of the policy it
    /// answers instead: it then begins level with that policy and learns
    /// only where it can beat it.
    fn suggested_action(&self) -> Option<usize> {
        if self.modelled_opponents.is_some() {
            return self.modelled_action();
        }
        let (state, decision) = (self.state.as_ref()?, self.decision?);
        // Bids for the game start from the prior's bid at the plain key.
        if let Some(for_game) = self.for_game
            && let Some(plain) = bidding_decision(state)
            && let Some(bid) = for_game.prior_bid(&plain)
        {
            return Some(bid);
        }
        let chosen = heuristic::choose(&Seen::new(state, &[]));
        decision.actions.iter().position(|&action| action == chosen)
    }

    /// The modelled opponents' move, if a bot models them; else the
    /// heuristic's bid, with modelled bids: the bidder that PIMC models the
    /// other seats as, and the yardstick most players meet.
    fn modelled_action(&self) -> Option<usize> {
        if let Some(ModelledOpponents(bot)) = self.modelled_opponents {
            let (state, decision) = (self.state.as_ref()?, self.decision?);
            let key = decision.key.0;
            let mut rng = SmallRng::seed_from_u64((key as u64) ^ ((key >> 64) as u64));
            let chosen = bot.act(&Seen::new(state, &[]), &mut rng);
            return decision.actions.iter().position(|&action| action == chosen);
        }
        let bidding = self
            .decision
            .is_some_and(|decision| is_bidding_key(decision.key.0));
        if self.modelled_bids && bidding {
            self.suggested_action()
        } else {
            None
        }
    }

    /// Seats across the table are partners.
    fn same_side(&self, a: usize, b: usize) -> bool {
        let team = |player: usize| Seat::from_index(player as u8).team();
        team(a) == team(b)
    }

    /// A deal is one of 2^64 seeds, drawn uniformly; a fixed bid is drawn
    /// from the blueprint.
    fn sample_chance<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        if self.state.is_none() {
            return rng.random::<u64>() as usize;
        }
        let mut probabilities = [0.0; MAX_ACTIONS];
        let width = self.num_actions();
        self.fixed_bid_probabilities(&mut probabilities[..width]);
        let mut remaining = rng.random::<f64>();
        for (outcome, &probability) in probabilities[..width].iter().enumerate() {
            remaining -= probability;
            if remaining < 0.0 {
                return outcome;
            }
        }
        width - 1
    }
}

#[cfg(test)]
mod tests {
    use euchre_game::engine::double_dummy::DoubleDummy;
    use euchre_game::engine::seat::Team;
    use euchre_game::engine::state::score;

    use super::*;

    fn walk_randomly(phase: Phase, seed: u64) -> (EuchreGame<'static>, u32) {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut game = EuchreGame::root(Rules::default(), phase, LeafValuer::OpenHand);
        let mut decisions = 0;
        loop {
            match game.node() {
                Node::Chance | Node::SampledChance => {
                    let outcome = game.sample_chance(&mut rng);
                    game.apply(outcome);
                }
                Node::Decision(_) => {
                    decisions += 1;
                    let count = game.num_actions();
                    assert!((1..=7).contains(&count));
                    game.apply(rng.random_range(0..count));
                }
                Node::Terminal => return (game, decisions),
            }
        }
    }

    #[test]
    fn payoffs_are_zero_sum_between_teams() {
        for phase in [Phase::Bidding, Phase::Play(3), Phase::FullPlay] {
            for seed in 0..300 {
                let (game, _) = walk_randomly(phase, seed);
                for seat in 0..4 {
                    let partner = (seat + 2) % 4;
                    let opponent = (seat + 1) % 4;
                    assert_eq!(game.payoff(seat), game.payoff(partner));
                    assert_eq!(game.payoff(seat), -game.payoff(opponent));
                }
                assert!(game.payoff(0).abs() <= 4.0);
            }
        }
    }

    /// A card play with one legal card is a decision of width 1 whose one
    /// action is that card, keyed apart from every trained key and per
    /// seat; every other card play keeps its rank-compressed key.
    #[test]
    fn forced_card_plays_are_keyed_by_seat_alone() {
        let (mut forced, mut chosen) = (0, 0);
        for seed in 0..300 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut game =
                EuchreGame::root(Rules::default(), Phase::FullPlay, LeafValuer::OpenHand);
            while game.node() != Node::Terminal {
                if let Node::Decision(player) = game.node() {
                    let state = game.state.unwrap();
                    let legal = state.legal_actions();
                    let key = game.info_key();
                    if state.stage() == Stage::Play && legal.len() == 1 {
                        assert_eq!(game.num_actions(), 1);
                        assert_eq!(game.decision.unwrap().actions.as_slice(), legal.as_slice());
                        assert_eq!(key, u128::from(FORCED_PLAY_KIND) << 120 | player as u128);
                        forced += 1;
                    } else {
                        assert_eq!(
                            Some(key),
                            decision_with(&state, game.abstraction).map(|d| d.key.0)
                        );
                        assert!((key >> 120) as u8 != FORCED_PLAY_KIND);
                        chosen += usize::from(state.stage() == Stage::Play);
                    }
                    game.apply(rng.random_range(0..game.num_actions()));
                } else {
                    let outcome = game.sample_chance(&mut rng);
                    game.apply(outcome);
                }
            }
        }
        assert!(
            forced > 1000 && chosen > 1000,
            "{forced} forced, {chosen} chosen"
        );
    }

    /// Plays a hand from `root` for each seed, every decision a uniformly
    /// random legal action, calling `check` at each decision first.
    fn at_every_decision(
        root: &EuchreGame<'_>,
        seeds: std::ops::Range<u64>,
        mut check: impl FnMut(&EuchreGame<'_>, u64),
    ) {
        for seed in seeds {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut game = root.clone();
            loop {
                match game.node() {
                    Node::Terminal => break,
                    Node::Chance | Node::SampledChance => {
                        let outcome = game.sample_chance(&mut rng);
                        game.apply(outcome);
                    }
                    Node::Decision(_) => {
                        check(&game, seed);
                        game.apply(rng.random_range(0..game.num_actions()));
                    }
                }
            }
        }
    }

    /// The suggestion is the heuristic's own move at every decision of
    /// every stage, so a warm-started table first plays as the heuristic.
    #[test]
    fn the_suggested_action_is_the_heuristics_move() {
        use euchre_bots::bot::Bot as _;
        use euchre_bots::bots::heuristic::Heuristic;
        let mut checked = 0;
        let root = EuchreGame::root(Rules::default(), Phase::FullPlay, LeafValuer::OpenHand);
        at_every_decision(&root, 0..200, |game, seed| {
            let state = game.state.unwrap();
            let decision = game.decision.unwrap();
            let heuristic = Heuristic.act(&Seen::new(&state, &[]), &mut SmallRng::seed_from_u64(0));
            let suggested = game.suggested_action().unwrap();
            assert_eq!(decision.actions[suggested], heuristic, "seed {seed}");
            checked += 1;
        });
        assert!(checked > 2000, "{checked} decisions");
    }

    /// With modelled bids, the model of every bid is the heuristic's bid
    /// and card play has none; without them nothing is modelled. Partners
    /// are one side.
    #[test]
    fn the_model_is_the_heuristics_bid_and_only_a_bid() {
        let (mut bids, mut plays) = (0, 0);
        let root = EuchreGame::root(Rules::default(), Phase::FullPlay, LeafValuer::OpenHand)
            .with_modelled_bids();
        at_every_decision(&root, 0..200, |game, _| {
            let unmodelled = EuchreGame {
                modelled_bids: false,
                ..game.clone()
            };
            assert_eq!(unmodelled.modelled_action(), None);
            if game.state.unwrap().stage() == Stage::Play {
                assert_eq!(game.modelled_action(), None);
                plays += 1;
            } else {
                assert_eq!(game.modelled_action(), game.suggested_action());
                assert!(game.modelled_action().is_some());
                bids += 1;
            }
        });
        assert!(bids > 300 && plays > 1000, "{bids} bids, {plays} plays");
        let game = EuchreGame::root(Rules::default(), Phase::Bidding, LeafValuer::OpenHand);
        for (a, b, partners) in [(0, 2, true), (1, 3, true), (0, 1, false), (2, 3, false)] {
            assert_eq!(game.same_side(a, b), partners, "{a} {b}");
        }
    }

    /// With modelled opponents, the model of every decision, bids and cards,
    /// is the bot's own move from the actor's view; a bot that draws gets
    /// the same draw at every visit of a key, so the model is a fixed
    /// strategy, as a best response needs; a warm start seeds the best
    /// response with the model's move.
    #[test]
    fn modelled_opponents_play_the_bots_move_at_every_decision() {
        use euchre_bots::bot::Bot as _;
        use euchre_bots::bots::heuristic::Heuristic;
        use euchre_bots::bots::random::RandomBot;
        let (mut bids, mut plays) = (0, 0);
        let root = EuchreGame::root(Rules::default(), Phase::FullPlay, LeafValuer::OpenHand)
            .with_modelled_opponents(&Heuristic);
        at_every_decision(&root, 0..200, |game, seed| {
            let state = game.state.unwrap();
            let decision = game.decision.unwrap();
            let heuristic = Heuristic.act(&Seen::new(&state, &[]), &mut SmallRng::seed_from_u64(1));
            let modelled = game.modelled_action().expect("every decision is modelled");
            assert_eq!(decision.actions[modelled], heuristic, "seed {seed}");
            // A warm start seeds the best response with the model's move.
            assert_eq!(game.suggested_action(), Some(modelled), "seed {seed}");
            let drawing = EuchreGame {
                modelled_opponents: Some(ModelledOpponents(&RandomBot)),
                ..game.clone()
            };
            let drawn = drawing.modelled_action().unwrap();
            assert_eq!(drawing.modelled_action(), Some(drawn), "seed {seed}");
            if state.stage() == Stage::Play {
                plays += 1;
            } else {
                bids += 1;
            }
        });
        assert!(bids > 300 && plays > 1000, "{bids} bids, {plays} plays");
    }

    /// A blueprint that always takes its first action, at every bidding key
    /// that hands of these seeds reach when every bid is the first action.
    fn first_action_blueprint(seeds: std::ops::Range<u64>) -> BiddingBlueprint {
        blueprint_taking(seeds, |_| 0)
    }

    /// A blueprint that always takes action `pick(width)`, at every bidding
    /// key that hands of these seeds reach when every bid is that action.
    fn blueprint_taking(seeds: std::ops::Range<u64>, pick: fn(usize) -> usize) -> BiddingBlueprint {
        use store::Table as _;
        let table = store::MemoryTable::new();
        for seed in seeds {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut game = EuchreGame::root(Rules::default(), Phase::Bidding, LeafValuer::OpenHand);
            loop {
                match game.node() {
                    Node::Terminal => break,
                    Node::Decision(_) => {
                        let action = pick(game.num_actions());
                        if game.num_actions() > 1 {
                            let slot = table.slot(game.info_key()).unwrap();
                            table
                                .update(slot, &mut |record| record.strategy_sum[action] = 1.0)
                                .unwrap();
                        }
                        game.apply(action);
                    }
                    Node::Chance | Node::SampledChance => {
                        let outcome = game.sample_chance(&mut rng);
                        game.apply(outcome);
                    }
                }
            }
        }
        let path = std::env::temp_dir().join(format!(
            "trainer-blueprint-taking-{}-{}.bin",
            pick(3),
            std::process::id()
        ));
        let meta = euchre_bots::meta::PolicyMeta::new(Phase::Bidding, Rules::default(), 1);
        let width = euchre_bots::phase::RECORD_WIDTH;
        euchre_bots::policy_file::export(&table, &meta, width, None, &path, &mut |_, _| {})
            .unwrap();
        let blueprint =
            BiddingBlueprint::load(&path, Rules::default(), Default::default()).unwrap();
        std::fs::remove_file(&path).ok();
        blueprint
    }

    #[test]
    fn fixed_bids_are_chance_nodes_with_the_blueprints_probabilities() {
        let blueprint = first_action_blueprint(0..50);
        let mut fixed_bids = 0;
        for seed in 0..50 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut game =
                EuchreGame::root(Rules::default(), Phase::FullPlay, LeafValuer::OpenHand)
                    .with_fixed_bids(&blueprint);
            loop {
                let bidding = game
                    .state
                    .is_some_and(|state| !matches!(state.stage(), Stage::Play | Stage::Finished));
                match game.node() {
                    Node::SampledChance => {
                        let outcome = game.sample_chance(&mut rng);
                        game.apply(outcome);
                    }
                    Node::Chance => {
                        // Only bids are listed chance nodes, and the solver
                        // draws each as the blueprint plays it.
                        assert!(bidding, "a card play became a chance node");
                        fixed_bids += 1;
                        let width = game.num_actions();
                        let total: f64 = (0..width).map(|a| game.chance_probability(a)).sum();
                        assert!((total - 1.0).abs() < 1e-9, "{total}");
                        if width > 1 {
                            assert_eq!(game.chance_probability(0), 1.0);
                        }
                        for _ in 0..8 {
                            assert_eq!(game.sample_chance(&mut rng), 0);
                        }
                        game.apply(0);
                    }
                    Node::Decision(_) => {
                        assert!(!bidding, "a bid is still a decision to train");
                        game.apply(rng.random_range(0..game.num_actions()));
                    }
                    Node::Terminal => break,
                }
            }
        }
        assert!(fixed_bids >= 50, "{fixed_bids}");
    }

    #[test]
    fn the_phase_sets_where_the_solver_stops() {
        for seed in 0..200 {
            let (bidding, _) = walk_randomly(Phase::Bidding, seed);
            let state = bidding.state.expect("dealt");
            assert!(state.played().is_empty() || state.is_finished());
            let (play, _) = walk_randomly(Phase::Play(3), seed);
            let state = play.state.expect("dealt");
            assert!(state.played().len() == 3 || state.is_finished());
            let (full, _) = walk_randomly(Phase::FullPlay, seed);
            assert!(full.state.expect("dealt").is_finished());
        }
    }

    #[test]
    fn open_handed_leaves_match_a_fresh_solve() {
        // The cache must never return another position's value.
        for seed in 0..300 {
            let (game, _) = walk_randomly(Phase::Play(4), seed);
            let state = game.state.expect("dealt");
            if state.is_finished() {
                continue;
            }
            let tricks = DoubleDummy::new().solve(&state).expect("in play");
            let contract = state.contract().expect("in play");
            let outcome = score(Some(contract), state.lone_defender().is_some(), tricks);
            assert_eq!(game.payoff(0), f64::from(outcome.payoff(Team::NorthSouth)));
        }
    }

    /// Bids for the game: each bid keyed in its hand's score context, its
    /// fresh keys seeded with the prior's bid at the plain key, and every
    /// hand's end worth between a lost and a won game, zero-sum.
    #[test]
    fn bids_for_the_game_are_keyed_by_context_start_from_the_prior_and_pay_in_games() {
        use euchre_game::game::context::ScoreContext;
        use euchre_game::keys::bidding::context_of;
        let last = |width: usize| width - 1;
        let prior = blueprint_taking(0..200, last);
        let for_game = ForGame::new(Some(prior));
        let mut contexts = std::collections::HashSet::new();
        let mut seeded = 0;
        for seed in 0..200 {
            let mut rng = SmallRng::seed_from_u64(seed);
            let mut game = EuchreGame::root(Rules::default(), Phase::Bidding, LeafValuer::OpenHand)
                .with_bids_for_game(&for_game);
            loop {
                match game.node() {
                    Node::SampledChance | Node::Chance => {
                        let outcome = game.sample_chance(&mut rng);
                        game.apply(outcome);
                    }
                    Node::Decision(_) => {
                        let key = InfoKey(game.info_key());
                        let at = game.dealt_at.expect("every hand is dealt at a score");
                        assert_eq!(context_of(key), Some(at.context));
                        contexts.insert(at.context);
                        if game.num_actions() > 1 {
                            assert_eq!(game.suggested_action(), Some(last(game.num_actions())));
                            seeded += 1;
                        }
                        game.apply(last(game.num_actions()));
                    }
                    Node::Terminal => {
                        let (north, east) = (game.payoff(0), game.payoff(1));
                        assert!((north + east).abs() < 1e-12, "{north} {east}");
                        assert!((-1.0..=1.0).contains(&north), "{north}");
                        break;
                    }
                }
            }
        }
        assert!(seeded >= 200, "{seeded}");
        // With a prior, the open context is the prior's: no hand is dealt
        // there, and every other context is.
        assert!(!contexts.contains(&ScoreContext::OPEN), "{contexts:?}");
        assert_eq!(contexts.len(), 8, "{contexts:?}");
    }
}
