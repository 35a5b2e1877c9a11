//! Games the exact solvers cannot walk are refused by type, and no solver
//! lets a decision spill past the width of the table's records.

use cfr::exact::ExactSolver;
use cfr::mccfr::ExternalSampling;
use cfr::{CfrError, Game, Node, Schedule};
use rand::{Rng, RngExt};
use store::{MemoryTable, RecordEncoding, RecordLayout, Table};

/// Nature draws a 64-bit seed (too many outcomes to list), then player 0
/// picks one of `width` actions; action `seed % width` wins 1, others lose 1.
#[derive(Clone, Debug)]
struct SeededGuess {
    width: usize,
    seed: Option<u64>,
    guess: Option<usize>,
}

impl SeededGuess {
    fn new(width: usize) -> SeededGuess {
        SeededGuess {
            width,
            seed: None,
            guess: None,
        }
    }
}

impl Game for SeededGuess {
    fn num_players(&self) -> usize {
        2
    }

    fn node(&self) -> Node {
        match (self.seed, self.guess) {
            (None, _) => Node::SampledChance,
            (Some(_), None) => Node::Decision(0),
            (Some(_), Some(_)) => Node::Terminal,
        }
    }

    fn num_actions(&self) -> usize {
        self.width
    }

    fn apply(&mut self, action: usize) {
        match self.seed {
            None => self.seed = Some(action as u64),
            Some(_) => self.guess = Some(action),
        }
    }

    fn info_key(&self) -> u128 {
        1
    }

    fn payoff(&self, player: usize) -> f64 {
        let won = self
            .seed
            .zip(self.guess)
            .is_some_and(|(seed, guess)| seed % self.width as u64 == guess as u64);
        let value = if won { 1.0 } else { -1.0 };
        if player == 0 { value } else { -value }
    }

    fn sample_chance<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        rng.random::<u64>() as usize
    }
}

#[test]
fn full_tree_solvers_refuse_sampled_chance_and_sampling_solvers_pass_it() {
    let table = MemoryTable::new();
    let error = ExactSolver::new(&SeededGuess::new(3), &table, Schedule::CFR_PLUS).unwrap_err();
    assert!(matches!(error, CfrError::SampledChance), "{error}");
    assert!(error.to_string().contains("sampling solver"), "{error}");

    let solver = ExternalSampling::new(SeededGuess::new(3), &table, Schedule::DCFR, 1, 1).unwrap();
    let stats = solver.run(1, 100).unwrap();
    assert_eq!(
        stats.regret_updates, 100,
        "one decision per traversal of player 0"
    );
    assert_eq!(table.len(), 1);
}

#[test]
fn a_decision_wider_than_the_tables_records_is_refused() {
    let narrow = MemoryTable::with_layout(RecordLayout::new(5, RecordEncoding::F32).unwrap());
    assert_eq!(narrow.max_actions(), 5);
    let solver = ExternalSampling::new(SeededGuess::new(6), &narrow, Schedule::DCFR, 1, 1).unwrap();
    let error = solver.run(1, 1).unwrap_err();
    assert!(
        matches!(error, CfrError::TooManyActions { actions: 6, max: 5 }),
        "{error}"
    );
    assert_eq!(
        narrow.len(),
        0,
        "nothing was stored for the refused decision"
    );
    // The widest records take the widest decision.
    let solver = ExternalSampling::new(SeededGuess::new(5), &narrow, Schedule::DCFR, 1, 1).unwrap();
    solver.run(1, 10).unwrap();
    assert_eq!(narrow.len(), 1);
}
