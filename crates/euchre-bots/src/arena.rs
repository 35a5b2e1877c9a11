//! Duplicate matches: every deal is played twice, with the two bots'
//! seats swapped, so the luck of the cards cancels and what is left is
//! play.
//!
//! Deal `i` (dealer rotating) and every bot's random stream are derived
//! from the seed and `i` alone, so a match gives the same numbers for a
//! seed whatever the thread count.
//!
//! **Where the points come from.** Until a deal's two tables first differ,
//! they play the same actions from the same states, so whatever the deal
//! nets is owed to the bots' choices from that decision on (duplicate
//! bridge's reading of a board). [`Parting`] names that decision and
//! [`partings`] adds the deals' nets up by it: the rows sum to the match's
//! points a hand, so they say whether a bot wins its points in the bidding
//! or in which trick of the play.

use std::sync::Arc;

use euchre_game::engine::action::Action;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::{Seat, Team};
use euchre_game::engine::state::{Deal, GameState, Outcome, Stage};
use euchre_game::game::GameScore;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rayon::prelude::*;

use crate::bot::Bot;
use crate::seen::Seen;

/// Which team each side of a match sits as, at one table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seating {
    ANorthSouth,
    AEastWest,
}

/// One played hand, from side A's point of view.
#[derive(Clone, Copy, Debug, Default)]
pub struct HandResult {
    pub points: [u8; 2],
    pub made_trump: [bool; 2],
    pub alone: [bool; 2],
    pub euchred: [bool; 2],
    pub defended_alone: [bool; 2],
}

/// Both tables of one deal: A as north-south, then as east-west.
#[derive(Clone, Copy, Debug)]
pub struct DealResult {
    pub tables: [HandResult; 2],
    /// The first decision at which the two tables played differently.
    pub parted_at: Parting,
    /// What A and B chose there (the same seat, the same state), in that
    /// order; `None` when the tables never parted.
    pub choices: Option<[Action; 2]>,
}

/// A kind of decision, as the first one at which a deal's two tables
/// differed. Ordered as a hand goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Parting {
    /// Pass or order up (alone or not).
    RoundOneBid,
    /// The dealer's discard after picking up.
    Discard,
    /// Pass or name a suit (alone or not).
    RoundTwoBid,
    /// A defender's choice to defend alone against a lone maker.
    DefendAlone,
    /// A card of trick `trick` (1 to 5): its lead, or (`follow`) a later
    /// card.
    Play { trick: u8, follow: bool },
    /// Both tables played the same hand, so the deal nets zero.
    Never,
}

impl Parting {
    /// The kind of decision `state` asks of the seat to act.
    fn of(state: &GameState) -> Parting {
        match state.stage() {
            Stage::BiddingRound1 => Parting::RoundOneBid,
            Stage::DealerDiscard => Parting::Discard,
            Stage::BiddingRound2 => Parting::RoundTwoBid,
            Stage::DefendAlone => Parting::DefendAlone,
            Stage::Play | Stage::Finished => Parting::Play {
                trick: state.tricks_played() + 1,
                follow: state.trick().played_mask != 0,
            },
        }
    }

    /// The first decision at which two tables' histories of one deal
    /// differ, and the actions the two tables took there, in their order.
    fn between(first: &[Decided], second: &[Decided]) -> (Parting, Option<(Seat, [Action; 2])>) {
        first
            .iter()
            .zip(second)
            .find(|(one, other)| one.action != other.action)
            .map_or((Parting::Never, None), |(one, other)| {
                (one.parting, Some((one.seat, [one.action, other.action])))
            })
    }
}

/// One decision of a played hand, as [`Parting::between`] compares them.
#[derive(Clone, Copy, Debug)]
struct Decided {
    parting: Parting,
    seat: Seat,
    action: Action,
}

/// A bid with its suit left out: what a deal's two tables can part on in
/// the bidding, from the side of the seat that chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BidChoice {
    Pass,
    OrderUp,
    OrderUpAlone,
    NameSuit,
    NameSuitAlone,
    DefendAlone,
}

impl BidChoice {
    /// The kind of `action` if it is a bid (not a discard or a card).
    pub fn of(action: Action) -> Option<BidChoice> {
        match action {
            Action::Pass => Some(BidChoice::Pass),
            Action::Order { alone: false } => Some(BidChoice::OrderUp),
            Action::Order { alone: true } => Some(BidChoice::OrderUpAlone),
            Action::Call { alone: false, .. } => Some(BidChoice::NameSuit),
            Action::Call { alone: true, .. } => Some(BidChoice::NameSuitAlone),
            Action::DefendAlone => Some(BidChoice::DefendAlone),
            Action::Discard(_) | Action::Play(_) => None,
        }
    }
}

impl std::fmt::Display for BidChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BidChoice::Pass => "pass",
            BidChoice::OrderUp => "order up",
            BidChoice::OrderUpAlone => "order up alone",
            BidChoice::NameSuit => "name a suit",
            BidChoice::NameSuitAlone => "name a suit alone",
            BidChoice::DefendAlone => "defend alone",
        })
    }
}

impl std::fmt::Display for Parting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Parting::RoundOneBid => f.write_str("round-1 bid"),
            Parting::Discard => f.write_str("dealer's discard"),
            Parting::RoundTwoBid => f.write_str("round-2 bid"),
            Parting::DefendAlone => f.write_str("defend alone"),
            Parting::Play {
                trick,
                follow: false,
            } => write!(f, "trick {trick}, lead"),
            Parting::Play {
                trick,
                follow: true,
            } => write!(f, "trick {trick}, later cards"),
            Parting::Never => f.write_str("the same play at both tables"),
        }
    }
}

/// Plays one hand with `bots` by seat; returns the outcome and the history.
pub fn play_hand(
    deal: Deal,
    rules: Rules,
    bots: [&dyn Bot; 4],
    rng: &mut SmallRng,
    observe: impl FnMut(&GameState, Seat, Action),
) -> (GameState, Option<Outcome>) {
    play_hand_at(deal, rules, None, bots, rng, observe)
}

/// [`play_hand`] within a game standing at `score` (`None`: score-blind),
/// which every bot sees.
pub fn play_hand_at(
    deal: Deal,
    rules: Rules,
    score: Option<GameScore>,
    bots: [&dyn Bot; 4],
    rng: &mut SmallRng,
    mut observe: impl FnMut(&GameState, Seat, Action),
) -> (GameState, Option<Outcome>) {
    let mut state = GameState::new(deal, rules);
    let mut history: Vec<(Seat, Action)> = Vec::with_capacity(32);
    while let Some(seat) = state.to_act() {
        let seen = match score {
            Some(score) => Seen::in_game(&state, &history, score),
            None => Seen::new(&state, &history),
        };
        let action = bots[seat.index()].act(&seen, rng);
        let action = if state.legal_actions().contains(action) {
            action
        } else {
            // A bot bug must not end a long match; the first legal action
            // stands in, and debug builds say so.
            debug_assert!(
                false,
                "{} chose the illegal {action}",
                bots[seat.index()].name()
            );
            state.legal_actions()[0]
        };
        observe(&state, seat, action);
        state.apply(action);
        history.push((seat, action));
    }
    (state, state.outcome())
}

fn hand_result(state: &GameState, outcome: Option<Outcome>, a_team: Team) -> HandResult {
    let side = |team: Team| usize::from(team != a_team);
    let mut result = HandResult::default();
    if let Some(outcome) = outcome {
        for team in [Team::NorthSouth, Team::EastWest] {
            result.points[side(team)] = outcome.points[team.index()];
        }
    }
    if let Some(contract) = state.contract() {
        let makers = side(contract.maker.team());
        result.made_trump[makers] = true;
        result.alone[makers] = contract.alone;
        let maker_tricks = outcome.map_or(0, |o| o.tricks[contract.maker.team().index()]);
        result.euchred[makers] = maker_tricks < 3;
        result.defended_alone[1 - makers] = state.lone_defender().is_some();
    }
    result
}

/// Plays `deals` duplicate deals between `a` and `b`; results in deal order.
pub fn run_match(
    a: &Arc<dyn Bot>,
    b: &Arc<dyn Bot>,
    rules: Rules,
    deals: u64,
    seed: u64,
    on_deal: &(dyn Fn() + Sync),
) -> Vec<DealResult> {
    run_deals(a, b, rules, 0..deals, seed, on_deal)
}

/// Plays the duplicate deals `deals` (by index) between `a` and `b`:
/// deal `i` is the same for every pair of bots and every call, so a long
/// match can be played in pieces and resumed.
pub fn run_deals(
    a: &Arc<dyn Bot>,
    b: &Arc<dyn Bot>,
    rules: Rules,
    deals: std::ops::Range<u64>,
    seed: u64,
    on_deal: &(dyn Fn() + Sync),
) -> Vec<DealResult> {
    deals
        .into_par_iter()
        .map(|index| {
            let mut deal_rng = SmallRng::seed_from_u64(mix(seed, index, 0));
            let dealer = Seat::from_index((index % 4) as u8);
            let deal = Deal::random(dealer, &mut deal_rng);
            let tables = [Seating::ANorthSouth, Seating::AEastWest].map(|seating| {
                let (north_south, east_west) = match seating {
                    Seating::ANorthSouth => (a.as_ref(), b.as_ref()),
                    Seating::AEastWest => (b.as_ref(), a.as_ref()),
                };
                let bots = [north_south, east_west, north_south, east_west];
                let table = 1 + seating as u64;
                let mut rng = SmallRng::seed_from_u64(mix(seed, index, table));
                let mut decisions = Vec::with_capacity(32);
                let (state, outcome) =
                    play_hand(deal, rules, bots, &mut rng, |state, seat, action| {
                        decisions.push(Decided {
                            parting: Parting::of(state),
                            seat,
                            action,
                        });
                    });
                let a_team = match seating {
                    Seating::ANorthSouth => Team::NorthSouth,
                    Seating::AEastWest => Team::EastWest,
                };
                (hand_result(&state, outcome, a_team), decisions)
            });
            on_deal();
            let [(first, first_decisions), (second, second_decisions)] = tables;
            let (parted_at, actions) = Parting::between(&first_decisions, &second_decisions);
            // A sits north-south at the first table, east-west at the second.
            let choices = actions.map(|(seat, [at_first, at_second])| {
                if seat.team() == Team::NorthSouth {
                    [at_first, at_second]
                } else {
                    [at_second, at_first]
                }
            });
            DealResult {
                tables: [first, second],
                parted_at,
                choices,
            }
        })
        .collect()
}

/// A well-spread 64-bit seed for one stream of one deal.
pub(crate) fn mix(seed: u64, index: u64, stream: u64) -> u64 {
    let mut z = seed
        ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl DealResult {
    /// A's points minus B's, a hand, over the deal's two tables.
    pub fn net_per_hand(&self) -> f64 {
        self.tables
            .iter()
            .map(|hand| f64::from(hand.points[0]) - f64::from(hand.points[1]))
            .sum::<f64>()
            / 2.0
    }
}

/// The mean of one value a deal and the half-width of its 95% interval
/// (deals are independent; the duplicate pairing is inside each value).
fn mean_and_interval(per_deal: &[f64]) -> (f64, f64) {
    let deals = per_deal.len().max(1) as f64;
    let mean = per_deal.iter().sum::<f64>() / deals;
    let variance = if per_deal.len() > 1 {
        per_deal.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (deals - 1.0)
    } else {
        0.0
    };
    (mean, 1.96 * (variance / deals).sqrt())
}

/// The deals whose tables first parted at one kind of decision, and what
/// they netted.
#[derive(Clone, Debug, PartialEq)]
pub struct PartingRow {
    pub parting: Parting,
    pub deals: u64,
    /// These deals' nets summed and divided by *all* the match's hands, so
    /// the rows add up to the match's A − B a hand; with the half-width of
    /// its 95% interval over deals.
    pub net_per_hand: f64,
    pub net_interval: f64,
}

/// The match's points a hand split by where each deal's tables parted, in
/// the order a hand goes; kinds no deal parted at are left out.
pub fn partings(results: &[DealResult]) -> Vec<PartingRow> {
    credit_by(results, |deal| Some(deal.parted_at))
        .into_iter()
        .map(|(parting, deals, net_per_hand, net_interval)| PartingRow {
            parting,
            deals,
            net_per_hand,
            net_interval,
        })
        .collect()
}

/// The deals whose tables parted at a bid where A chose one kind and B
/// another, and what they netted.
#[derive(Clone, Debug, PartialEq)]
pub struct BidPartingRow {
    pub parting: Parting,
    /// A's bid and B's, from the same seat and state.
    pub choices: [BidChoice; 2],
    pub deals: u64,
    /// As [`PartingRow::net_per_hand`]: over all the match's hands.
    pub net_per_hand: f64,
    pub net_interval: f64,
}

/// The bidding rows of [`partings`] split by what each side bid where the
/// tables parted: whether a bot wins its points by bidding more or less
/// than its opponent, and at which bid. In the order a hand goes, then by
/// A's bid and B's.
pub fn bid_partings(results: &[DealResult]) -> Vec<BidPartingRow> {
    let bids = |deal: &DealResult| {
        let [a, b] = deal.choices?;
        Some((deal.parted_at, [BidChoice::of(a)?, BidChoice::of(b)?]))
    };
    credit_by(results, bids)
        .into_iter()
        .map(
            |((parting, choices), deals, net_per_hand, net_interval)| BidPartingRow {
                parting,
                choices,
                deals,
                net_per_hand,
                net_interval,
            },
        )
        .collect()
}

/// For each value of `key` (in its order), the deals with it, and their
/// nets summed and divided by all the deals, with its 95% interval: rows
/// that add up to the match's A − B a hand when every deal has a key.
fn credit_by<K: Ord + Copy>(
    results: &[DealResult],
    key: impl Fn(&DealResult) -> Option<K>,
) -> Vec<(K, u64, f64, f64)> {
    let keys: Vec<Option<K>> = results.iter().map(&key).collect();
    let mut kinds: Vec<K> = keys.iter().flatten().copied().collect();
    kinds.sort_unstable();
    kinds.dedup();
    kinds
        .into_iter()
        .map(|kind| {
            let credited: Vec<f64> = results
                .iter()
                .zip(&keys)
                .map(|(deal, key)| {
                    if *key == Some(kind) {
                        deal.net_per_hand()
                    } else {
                        0.0
                    }
                })
                .collect();
            let deals = keys.iter().filter(|key| **key == Some(kind)).count() as u64;
            let (net_per_hand, net_interval) = mean_and_interval(&credited);
            (kind, deals, net_per_hand, net_interval)
        })
        .collect()
}

/// What a match shows, from side A's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSummary {
    pub hands: u64,
    /// A's points minus B's, per hand, and the half-width of its 95%
    /// interval (from the per-deal means, so the duplicate pairing counts).
    pub net_per_hand: f64,
    pub net_interval: f64,
    pub points_per_hand: [f64; 2],
    pub point_share: f64,
    /// Games to 10 won by each side, chaining each table's hands in order.
    pub games_won: [u64; 2],
    pub made_trump: [f64; 2],
    pub alone: [f64; 2],
    pub euchred: [f64; 2],
    pub defended_alone: [f64; 2],
}

pub fn summarise(results: &[DealResult]) -> MatchSummary {
    let deals = results.len().max(1) as f64;
    let hands = 2.0 * deals;
    let per_deal: Vec<f64> = results.iter().map(DealResult::net_per_hand).collect();
    let (mean, interval) = mean_and_interval(&per_deal);
    let mut points = [0.0f64; 2];
    let mut rates = [[0.0f64; 2]; 4];
    for hand in results.iter().flat_map(|deal| &deal.tables) {
        for side in 0..2 {
            points[side] += f64::from(hand.points[side]);
            rates[0][side] += f64::from(u8::from(hand.made_trump[side]));
            rates[1][side] += f64::from(u8::from(hand.alone[side]));
            rates[2][side] += f64::from(u8::from(hand.euchred[side]));
            rates[3][side] += f64::from(u8::from(hand.defended_alone[side]));
        }
    }
    let mut games_won = [0u64; 2];
    for table in 0..2 {
        let mut score = [0u32; 2];
        for deal in results {
            let hand = &deal.tables[table];
            for (total, &points) in score.iter_mut().zip(&hand.points) {
                *total += u32::from(points);
            }
            if let Some(winner) = (0..2).find(|&side| score[side] >= 10) {
                games_won[winner] += 1;
                score = [0, 0];
            }
        }
    }
    let per_hand = |values: [f64; 2]| values.map(|v| v / hands);
    MatchSummary {
        hands: 2 * results.len() as u64,
        net_per_hand: mean,
        net_interval: interval,
        points_per_hand: per_hand(points),
        point_share: if points[0] + points[1] > 0.0 {
            points[0] / (points[0] + points[1])
        } else {
            0.5
        },
        games_won,
        made_trump: per_hand(rates[0]),
        alone: per_hand(rates[1]),
        euchred: per_hand(rates[2]),
        defended_alone: per_hand(rates[3]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::heuristic::Heuristic;
    use crate::bots::random::RandomBot;

    #[test]
    fn a_bot_against_itself_scores_zero_on_every_deal() {
        let bot: Arc<dyn Bot> = Arc::new(Heuristic);
        let results = run_match(&bot, &bot, Rules::default(), 200, 7, &|| {});
        // Duplicate play: the same deterministic bot in both seats of both
        // tables plays the same hands, so each deal nets exactly zero.
        let summary = summarise(&results);
        assert_eq!(summary.net_per_hand, 0.0);
        assert_eq!(summary.net_interval, 0.0);
        assert!((summary.point_share - 0.5).abs() < 1e-12);
        // And the two tables never part.
        let rows = partings(&results);
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!((rows[0].parting, rows[0].deals), (Parting::Never, 200));
    }

    #[test]
    fn the_partings_add_up_to_the_match_and_identical_tables_net_nothing() {
        let a: Arc<dyn Bot> = Arc::new(Heuristic);
        let b: Arc<dyn Bot> = Arc::new(RandomBot);
        let results = run_match(&a, &b, Rules::default(), 400, 5, &|| {});
        let summary = summarise(&results);
        let rows = partings(&results);
        let total: f64 = rows.iter().map(|row| row.net_per_hand).sum();
        assert!((total - summary.net_per_hand).abs() < 1e-12, "{rows:?}");
        assert_eq!(rows.iter().map(|row| row.deals).sum::<u64>(), 400);
        // A random bidder parts from the heuristic in the bidding on most
        // deals, and the heuristic wins its points there.
        let first = &rows[0];
        assert_eq!(first.parting, Parting::RoundOneBid, "{rows:?}");
        assert!(first.deals > 200, "{rows:?}");
        assert!(first.net_per_hand - first.net_interval > 0.0, "{rows:?}");
        assert!(
            rows.windows(2)
                .all(|pair| pair[0].parting < pair[1].parting)
        );
        for deal in &results {
            if deal.parted_at == Parting::Never {
                assert_eq!(deal.net_per_hand(), 0.0);
            }
        }
    }

    #[test]
    fn a_parting_is_the_kind_of_the_first_decision_the_tables_played_differently() {
        let mut rng = SmallRng::seed_from_u64(2);
        let mut state = GameState::new(Deal::random(Seat::North, &mut rng), Rules::default());
        assert_eq!(Parting::of(&state), Parting::RoundOneBid);
        state.apply(Action::Order { alone: false });
        assert_eq!(Parting::of(&state), Parting::Discard);
        let discard = state.legal_actions()[0];
        state.apply(discard);
        let first_trick = |follow| Parting::Play { trick: 1, follow };
        assert_eq!(Parting::of(&state), first_trick(false));
        let lead = state.legal_actions()[0];
        state.apply(lead);
        assert_eq!(Parting::of(&state), first_trick(true));

        let decided = |parting, seat, action| Decided {
            parting,
            seat,
            action,
        };
        let history = [
            decided(Parting::RoundOneBid, Seat::East, Action::Pass),
            decided(
                Parting::RoundOneBid,
                Seat::South,
                Action::Order { alone: false },
            ),
            decided(Parting::Discard, Seat::North, discard),
        ];
        let mut other = history;
        assert_eq!(Parting::between(&history, &other), (Parting::Never, None));
        other[1].action = Action::Pass;
        assert_eq!(
            Parting::between(&history, &other),
            (
                Parting::RoundOneBid,
                Some((Seat::South, [Action::Order { alone: false }, Action::Pass]))
            )
        );
        other[1] = history[1];
        other[2].action = lead;
        assert_eq!(Parting::between(&history, &other).0, Parting::Discard);
        let third = |follow| Parting::Play { trick: 3, follow };
        assert_eq!(third(true).to_string(), "trick 3, later cards");
        assert!(
            third(false) < third(true)
                && third(true)
                    < Parting::Play {
                        trick: 4,
                        follow: false
                    }
        );
    }

    /// Orders up at its first chance; the heuristic otherwise.
    struct OrdersUp;

    impl Bot for OrdersUp {
        fn name(&self) -> String {
            "orders-up".into()
        }

        fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
            let order = Action::Order { alone: false };
            if seen.legal().contains(order) {
                order
            } else {
                Heuristic.act(seen, rng)
            }
        }
    }

    #[test]
    fn the_bidding_rows_split_by_what_each_side_bid_where_the_tables_parted() {
        // A orders up at its first turn, B is the heuristic: wherever the
        // two part in round 1, A ordered and B passed, from A's side
        // whichever team A sat as.
        let a: Arc<dyn Bot> = Arc::new(OrdersUp);
        let b: Arc<dyn Bot> = Arc::new(Heuristic);
        let results = run_match(&a, &b, Rules::default(), 400, 9, &|| {});
        let rows = bid_partings(&results);
        let round_one: Vec<_> = rows
            .iter()
            .filter(|row| row.parting == Parting::RoundOneBid)
            .collect();
        assert_eq!(
            round_one.iter().map(|row| row.choices).collect::<Vec<_>>(),
            [[BidChoice::OrderUp, BidChoice::Pass]],
            "{rows:?}"
        );
        // An indiscriminate order-up loses points where it parts.
        assert!(round_one[0].net_per_hand + round_one[0].net_interval < 0.0);
        // The split adds up to each bidding row of the plain one.
        for parting in partings(&results) {
            if matches!(
                parting.parting,
                Parting::Discard | Parting::Play { .. } | Parting::Never
            ) {
                continue;
            }
            let split: Vec<_> = rows
                .iter()
                .filter(|row| row.parting == parting.parting)
                .collect();
            assert_eq!(
                split.iter().map(|row| row.deals).sum::<u64>(),
                parting.deals
            );
            let net: f64 = split.iter().map(|row| row.net_per_hand).sum();
            assert!((net - parting.net_per_hand).abs() < 1e-12, "{rows:?}");
        }
    }

    #[test]
    fn a_match_is_the_same_for_a_seed_on_any_thread_count() {
        let a: Arc<dyn Bot> = Arc::new(Heuristic);
        let b: Arc<dyn Bot> = Arc::new(RandomBot);
        let run = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a pool");
            pool.install(|| summarise(&run_match(&a, &b, Rules::default(), 300, 11, &|| {})))
        };
        let one = run(1);
        assert_eq!(one, run(2));
        assert_ne!(
            one,
            summarise(&run_match(&a, &b, Rules::default(), 300, 12, &|| {}))
        );
    }

    #[test]
    fn the_heuristic_beats_random_play() {
        let a: Arc<dyn Bot> = Arc::new(Heuristic);
        let b: Arc<dyn Bot> = Arc::new(RandomBot);
        let summary = summarise(&run_match(&a, &b, Rules::default(), 2000, 3, &|| {}));
        assert!(
            summary.net_per_hand - summary.net_interval > 0.0,
            "heuristic vs random: {summary:?}"
        );
    }
}
