//! A bot that times its own decisions: the arena states each bot's time
//! per decision (median and 99th percentile) beside its strength, since a
//! stronger bot that takes too long is no use at a table.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use euchre_game::engine::action::Action;
use euchre_game::game::GameScore;
use rand::rngs::SmallRng;

use crate::bot::{ActionValue, Bot};
use crate::meta::CardPlay;
use crate::seen::Seen;

/// Wraps a bot, recording how long each decision with a choice took.
pub struct Timed {
    inner: Arc<dyn Bot>,
    /// Microseconds of each decision with more than one legal action.
    micros: Mutex<Vec<u32>>,
}

impl std::fmt::Debug for Timed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Timed")
            .field("bot", &self.inner.name())
            .finish()
    }
}

/// The times of a bot's decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DecisionTimes {
    pub decisions: u64,
    pub median_ms: f64,
    pub p99_ms: f64,
    pub mean_ms: f64,
}

impl Timed {
    pub fn new(inner: Arc<dyn Bot>) -> Timed {
        Timed {
            inner,
            micros: Mutex::new(Vec::new()),
        }
    }

    /// The decisions timed so far.
    pub fn times(&self) -> DecisionTimes {
        let mut micros = self
            .micros
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        if micros.is_empty() {
            return DecisionTimes::default();
        }
        micros.sort_unstable();
        let at = |q: f64| f64::from(micros[((micros.len() - 1) as f64 * q).round() as usize]) / 1e3;
        DecisionTimes {
            decisions: micros.len() as u64,
            median_ms: at(0.5),
            p99_ms: at(0.99),
            mean_ms: micros.iter().map(|&m| f64::from(m)).sum::<f64>() / micros.len() as f64 / 1e3,
        }
    }
}

impl Bot for Timed {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn act(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Action {
        let choice = seen.legal().len() > 1;
        let started = Instant::now();
        let action = self.inner.act(seen, rng);
        if choice {
            let micros = u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX);
            self.micros
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(micros);
        }
        action
    }

    fn values(&self, seen: &Seen<'_>, rng: &mut SmallRng) -> Option<Vec<ActionValue>> {
        self.inner.values(seen, rng)
    }

    fn probabilities(&self, seen: &Seen<'_>) -> Option<Vec<(Action, f64)>> {
        self.inner.probabilities(seen)
    }

    fn plays_for_the_game(&self) -> bool {
        self.inner.plays_for_the_game()
    }

    /// The inner bot's, untimed: a twin judges, it does not play.
    fn valuing(&self, for_the_game: bool) -> Option<Arc<dyn Bot>> {
        self.inner.valuing(for_the_game)
    }

    fn values_beside(
        &self,
        seen: &Seen<'_>,
        twin_score: Option<GameScore>,
        rng: &mut SmallRng,
    ) -> Option<[Vec<ActionValue>; 2]> {
        self.inner.values_beside(seen, twin_score, rng)
    }

    fn report(&self) -> Option<String> {
        self.inner.report()
    }

    fn card_play(&self) -> Option<CardPlay> {
        self.inner.card_play()
    }

    fn warnings(&self) -> Vec<String> {
        self.inner.warnings()
    }

    fn warnings_followed_by(&self, player: &dyn Bot) -> Vec<String> {
        self.inner.warnings_followed_by(player)
    }
}
