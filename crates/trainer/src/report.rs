//! What a trained policy has learned, in terms a euchre player reads.

use euchre_game::engine::card::{Rank, Suit};
use euchre_game::engine::trump::cards_of_suit;
use euchre_game::keys::bidding::{BiddingDecision, BiddingView};

use crate::policy_file::PolicyFile;

/// Seats in the order they bid, relative to the dealer.
const SEATS: [(u8, &str); 4] = [
    (1, "left of dealer"),
    (2, "dealer's partner"),
    (3, "right of dealer"),
    (0, "dealer"),
];

/// Mean probability and count of hands behind it.
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

    fn show(self) -> String {
        if self.count == 0 {
            "-".into()
        } else {
            format!(
                "{:.0}% ({})",
                100.0 * self.total / self.count as f64,
                self.count
            )
        }
    }
}

/// Round 1 of bidding summarised: how often each seat orders the upcard
/// up, by trumps held and with the right bower turned up. Averages are over
/// distinct hands (canonical keys), each counted once.
#[derive(Debug, Default)]
pub struct BiddingReport {
    by_trumps: [[Mean; 4]; 6],
    right_bower_up: [Mean; 4],
}

impl BiddingReport {
    /// Adds one infostate with its action probabilities (any scale, in the
    /// key's canonical action order).
    pub fn add(&mut self, key: u128, probabilities: &[f64]) {
        let Some(view) = BiddingView::decode(euchre_game::keys::InfoKey(key)) else {
            return;
        };
        if view.decision != BiddingDecision::Round1 || probabilities.len() < 3 {
            return;
        }
        let total: f64 = probabilities[..3].iter().sum();
        if total <= 0.0 {
            return;
        }
        // Actions in canonical order: pass, order up, order up alone.
        let order = (probabilities[1] + probabilities[2]) / total;
        let trump: Suit = view.upcard.suit();
        let trumps = view.hand.intersection(cards_of_suit(trump, trump)).len() as usize;
        let seat = SEATS
            .iter()
            .position(|&(offset, _)| offset == view.actor_offset)
            .unwrap_or(0);
        self.by_trumps[trumps.min(5)][seat].add(order);
        if view.upcard.rank() == Rank::Jack {
            self.right_bower_up[seat].add(order);
        }
    }

    pub fn from_policy(policy: &PolicyFile) -> BiddingReport {
        let mut report = BiddingReport::default();
        let mut row = Vec::new();
        for (key, scaled) in policy.entries() {
            row.clear();
            row.extend(scaled.iter().map(|&p| f64::from(p)));
            report.add(key, &row);
        }
        report
    }

    pub fn print(&self, title: &str) {
        println!("{title}");
        print!("{:<22}", "trumps in hand");
        for (_, name) in SEATS {
            print!("{name:>20}");
        }
        println!();
        for (trumps, row) in self.by_trumps.iter().enumerate() {
            if row.iter().all(|mean| mean.count == 0) {
                continue;
            }
            print!("{trumps:<22}");
            for mean in row {
                print!("{:>20}", mean.show());
            }
            println!();
        }
        print!("{:<22}", "right bower turned up");
        for mean in self.right_bower_up {
            print!("{:>20}", mean.show());
        }
        println!();
    }
}
