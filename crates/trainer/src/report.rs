//! What a trained policy has learned, in terms a euchre player reads.

use euchre_game::engine::action::Action;
use euchre_game::engine::card::Rank;
use euchre_game::engine::rules::Rules;
use euchre_game::engine::seat::Seat;
use euchre_game::engine::state::Deal;
use euchre_game::engine::trump::cards_of_suit;
use euchre_game::game::context::ScoreContext;
use euchre_game::keys::bidding::{BiddingDecision, BiddingKeyParts, in_context};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use rustc_hash::FxHashMap;

use crate::format::thousands;
use euchre_bots::policy_file::PolicyFile;

/// Seats in the order they bid, relative to the dealer.
const SEATS: [(u8, &str); 4] = [
    (1, "left of dealer"),
    (2, "dealer's partner"),
    (3, "right of dealer"),
    (0, "dealer"),
];

/// Mean probability and the deals behind it.
#[derive(Clone, Copy, Debug, Default)]
struct Mean {
    total: f64,
    count: u64,
}

impl Mean {
    fn add(&mut self, value: f64) {
        self.total += value;
        self.count += 1;
    }

    /// The mean as a percentage; `None` with nothing behind it.
    fn percent(self) -> Option<f64> {
        (self.count > 0).then(|| 100.0 * self.total / self.count as f64)
    }

    fn show(self) -> String {
        self.percent()
            .map_or_else(|| "-".into(), |percent| format!("{percent:.0}%"))
    }
}

/// Deals the summary is averaged over: enough for every row to hold
/// hundreds of hands (four trumps is about 1 hand in 60).
const REPORT_DEALS: u64 = 40_000;

/// Round 1 of bidding summarised: how often each seat orders the upcard
/// up, by trumps held and with the right bower turned up.
///
/// The averages are over random deals, so each hand counts as often as it
/// is dealt. Averaging over distinct keys instead would let the rarest
/// hands, the least trained, dominate. A hand whose key was never trained
/// is left out, and how many were is printed.
#[derive(Debug)]
pub struct BiddingReport {
    /// The rules the keys were trained under, which say what each slot of
    /// a round-1 row bids (Canadian loners leave the dealer's partner two).
    rules: Rules,
    /// Probability of ordering up (alone or not), and of ordering up
    /// alone, by canonical round-1 key (with its score context, if any).
    order_by_key: FxHashMap<u128, [f64; 2]>,
}

/// What the report found over its deals: what is printed.
#[derive(Debug, Default)]
pub struct BiddingSummary {
    by_trumps: [[Mean; 4]; 6],
    right_bower_up: [Mean; 4],
    hands: u64,
    untrained: u64,
}

impl BiddingReport {
    pub fn new(rules: Rules) -> BiddingReport {
        BiddingReport {
            rules,
            order_by_key: FxHashMap::default(),
        }
    }

    /// Adds one infostate with its action probabilities (any scale, in the
    /// key's canonical action order); all but round-1 bids are ignored.
    pub fn add(&mut self, key: u128, probabilities: &[f64]) {
        let Some(bids) = self.round1_bids(key) else {
            return;
        };
        let Some(probabilities) = probabilities.get(..bids.len()) else {
            return;
        };
        let total: f64 = probabilities.iter().sum();
        if total <= 0.0 {
            return;
        }
        let mut order = [0.0; 2];
        for (bid, p) in bids.iter().zip(probabilities) {
            if let Action::Order { alone } = bid {
                order[0] += p / total;
                if *alone {
                    order[1] += p / total;
                }
            }
        }
        self.order_by_key.insert(key, order);
    }

    /// Adds one infostate from a training record's regrets: its current
    /// strategy, regret matching over the key's legal bids.
    pub fn add_regrets(&mut self, key: u128, regrets: &[f32]) {
        let Some(bids) = self.round1_bids(key) else {
            return;
        };
        let Some(regrets) = regrets.get(..bids.len()) else {
            return;
        };
        let mut wide = [0.0; Action::MAX_LEGAL];
        for (wide, &regret) in wide.iter_mut().zip(regrets) {
            *wide = f64::from(regret);
        }
        let mut strategy = [0.0; Action::MAX_LEGAL];
        let n = regrets.len();
        cfr::regret::regret_matching(&wide[..n], &mut strategy[..n]);
        self.add(key, &strategy[..n]);
    }

    /// The bids of a round-1 key in its slot order; `None` for any other.
    fn round1_bids(&self, key: u128) -> Option<&'static [Action]> {
        let view = BiddingKeyParts::decode(euchre_game::keys::InfoKey(key))?;
        (view.decision == BiddingDecision::Round1)
            .then(|| self.rules.round1_bids(view.actor_offset))
    }

    pub fn from_policy(policy: &PolicyFile) -> BiddingReport {
        let mut report = BiddingReport::new(policy.meta.recipe.rules);
        let mut row = Vec::new();
        for (key, scaled) in policy.entries() {
            row.clear();
            row.extend(scaled.iter().map(|&p| f64::from(p)));
            report.add(key, &row);
        }
        report
    }

    /// Every seat's round-1 bid on the same fixed deals, whoever the deals
    /// are summarised for.
    pub fn summarise(&self) -> BiddingSummary {
        let mut summary = BiddingSummary::default();
        let mut rng = SmallRng::seed_from_u64(REPORT_SEED);
        for _ in 0..REPORT_DEALS {
            let deal = Deal::random(Seat::North, &mut rng);
            let trump = deal.upcard.suit();
            for (column, &(offset, _)) in SEATS.iter().enumerate() {
                let seat = Seat::from_index(deal.dealer.index() as u8 + offset);
                let hand = deal.hands[seat.index()];
                let view = BiddingKeyParts {
                    decision: BiddingDecision::Round1,
                    actor_offset: offset,
                    hand,
                    upcard: deal.upcard,
                    own_discard: None,
                    contract: None,
                };
                summary.hands += 1;
                let Some(&[order, _]) = self.order_by_key.get(&view.canonical().0.0) else {
                    summary.untrained += 1;
                    continue;
                };
                let trumps = hand.intersection(cards_of_suit(trump, trump)).len() as usize;
                summary.by_trumps[trumps.min(5)][column].add(order);
                if deal.upcard.rank() == Rank::Jack {
                    summary.right_bower_up[column].add(order);
                }
            }
        }
        summary
    }
}

/// Round 1 of a policy whose bids play for the game, by score context:
/// how often each seat orders up, and how often alone, over the report's
/// deals, each read as a bot reads it (the context's bid, else the plain
/// key's).
#[derive(Debug)]
pub struct ContextSummary {
    rows: Vec<(ScoreContext, [[Mean; 2]; 4])>,
}

impl BiddingReport {
    pub fn summarise_by_context(&self) -> ContextSummary {
        let mut rows: Vec<(ScoreContext, [[Mean; 2]; 4])> = ScoreContext::ALL
            .into_iter()
            .map(|context| (context, Default::default()))
            .collect();
        let mut rng = SmallRng::seed_from_u64(REPORT_SEED);
        for _ in 0..REPORT_DEALS {
            let deal = Deal::random(Seat::North, &mut rng);
            for (column, &(offset, _)) in SEATS.iter().enumerate() {
                let seat = Seat::from_index(deal.dealer.index() as u8 + offset);
                let plain = BiddingKeyParts {
                    decision: BiddingDecision::Round1,
                    actor_offset: offset,
                    hand: deal.hands[seat.index()],
                    upcard: deal.upcard,
                    own_discard: None,
                    contract: None,
                }
                .canonical()
                .0;
                for (context, means) in &mut rows {
                    let scored = in_context(plain, *context);
                    let found = self
                        .order_by_key
                        .get(&scored.0)
                        .or_else(|| self.order_by_key.get(&plain.0));
                    if let Some(&[order, alone]) = found {
                        means[column][0].add(order);
                        means[column][1].add(alone);
                    }
                }
            }
        }
        ContextSummary { rows }
    }
}

impl ContextSummary {
    pub fn print(&self, title: &str) {
        println!("{title}");
        print!("{:<40}", "points to go: dealer's side, other side");
        for (_, name) in SEATS {
            print!("{name:>18}");
        }
        println!();
        for (context, means) in &self.rows {
            print!(
                "{:<40}",
                format!("{}, {}", context.dealers.label(), context.others.label())
            );
            for [order, alone] in means {
                print!("{:>18}", format!("{} ({})", order.show(), alone.show()));
            }
            println!();
        }
        println!(
            "(each seat's share of orders, and of orders alone in brackets, over the same {} deals)",
            thousands(REPORT_DEALS)
        );
    }
}

impl BiddingSummary {
    /// What the table shows, in words drawn from its own numbers: how far
    /// training has moved the bids from the untrained 67% (pass, order up
    /// and order up alone start equally likely), weak hands against strong.
    pub fn describe(&self) -> String {
        let range = |row: &[Mean; 4]| {
            let values: Vec<f64> = row.iter().filter_map(|mean| mean.percent()).collect();
            let low = values.iter().copied().fold(f64::INFINITY, f64::min);
            let high = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            format!("{low:.0}% to {high:.0}%")
        };
        let with_two = &self.by_trumps[2];
        let others = with_two[..3]
            .iter()
            .filter_map(|mean| mean.percent())
            .fold(0.0, f64::max);
        let dealer_note = if with_two[3].percent().is_some_and(|dealer| dealer > others) {
            "The dealer, who keeps the upcard, orders more than any other seat with two trumps."
        } else {
            "The dealer does not yet order more than the others with two trumps, as it should: it keeps the upcard."
        };
        format!(
            "Untrained, every seat orders 67% of the time (pass, order up and order up alone start equally likely). \
             Training has moved that to {} with no trumps and {} with three. {dealer_note} \
             Each hand needs many visits: a longer run keeps sharpening this (docs/experiments/bidding-hour.md shows an hour's).",
            range(&self.by_trumps[0]),
            range(&self.by_trumps[3]),
        )
    }

    pub fn print(&self, title: &str) {
        println!("{title}");
        print!("{:<22}", "trumps in hand");
        for (_, name) in SEATS {
            print!("{name:>18}");
        }
        println!();
        for (trumps, row) in self.by_trumps.iter().enumerate() {
            if row.iter().all(|mean| mean.count == 0) {
                continue;
            }
            print!("{trumps:<22}");
            for mean in row {
                print!("{:>18}", mean.show());
            }
            println!();
        }
        print!("{:<22}", "right bower turned up");
        for mean in self.right_bower_up {
            print!("{:>18}", mean.show());
        }
        println!();
        println!(
            "({} deals; {:.1}% of the hands dealt had a key the policy never trained and are left out)",
            thousands(REPORT_DEALS),
            100.0 * self.untrained as f64 / self.hands.max(1) as f64
        );
    }
}

/// The report's deals are the same for every run, so two tables compare.
const REPORT_SEED: u64 = 0x5EED_DEA1;

#[cfg(test)]
mod tests {
    use super::*;

    /// A row's slots mean the bids the rules give the key's seat: under
    /// Canadian loners the dealer's partner's second slot orders alone.
    #[test]
    fn a_round1_row_is_read_by_the_bids_the_rules_give_its_seat() {
        let key = |actor_offset| {
            BiddingKeyParts {
                decision: BiddingDecision::Round1,
                actor_offset,
                hand: "9C TC JC QD KH".parse().unwrap(),
                upcard: "AC".parse().unwrap(),
                own_discard: None,
                contract: None,
            }
            .canonical()
            .0
            .0
        };
        let canadian = Rules {
            canadian_loners: true,
            ..Rules::default()
        };
        let read = |rules, actor_offset| {
            let mut report = BiddingReport::new(rules);
            report.add(key(actor_offset), &[0.5, 0.5, 0.0]);
            report.order_by_key[&key(actor_offset)]
        };
        assert_eq!(read(Rules::default(), 2), [0.5, 0.0]);
        assert_eq!(read(canadian, 2), [0.5, 0.5], "the partner orders alone");
        assert_eq!(read(canadian, 1), [0.5, 0.0], "the other seats as before");
        // From regrets, the current strategy spreads over the legal bids
        // only: with none positive, half each for the partner's two.
        let mut report = BiddingReport::new(canadian);
        report.add_regrets(key(2), &[-1.0, -1.0, 0.0]);
        assert_eq!(report.order_by_key[&key(2)], [0.5, 0.5]);
    }
}
