//! Asking a long decision to stop early. A server runs a bot's decision
//! on a blocking thread; when its client leaves or the server shuts down,
//! the decision should end within a fraction of a second, not after its
//! last world is solved. The caller runs the decision inside
//! [`with_stop`], and the bots' world loops ask [`requested`] between
//! worlds, answering with the best move found so far. A caller that was
//! stopped discards that move (see [`crate::human_game::HumanGame::run_bots`]).
//!
//! A thread-local rather than a parameter of [`crate::bot::Bot::act`]: a
//! decision runs on the thread that asked for it, every bot would otherwise
//! carry an argument only the world loops read, and with no stop installed
//! (training, matches, the yardsticks) [`requested`] is always false, so
//! nothing they compute changes.

use std::cell::RefCell;
use std::sync::Arc;

/// Whether work should stop: asked before each decision and, inside one,
/// between worlds.
pub type StopCheck = Arc<dyn Fn() -> bool + Send + Sync>;

/// A check that never asks to stop: the terminal game, tests.
pub fn never() -> StopCheck {
    Arc::new(|| false)
}

thread_local! {
    static STOP: RefCell<Option<StopCheck>> = const { RefCell::new(None) };
}

/// Runs `decide` with `check` installed as this thread's stop request,
/// then removes it (also if `decide` panics).
pub fn with_stop<R>(check: StopCheck, decide: impl FnOnce() -> R) -> R {
    struct Uninstall(Option<StopCheck>);
    impl Drop for Uninstall {
        fn drop(&mut self) {
            let previous = self.0.take();
            STOP.with_borrow_mut(|stop| *stop = previous);
        }
    }
    let previous = STOP.with_borrow_mut(|stop| stop.replace(check));
    let _uninstall = Uninstall(previous);
    decide()
}

/// The check installed on this thread (one that never stops if none is),
/// to install again with [`with_stop`] on the threads a piece of work
/// fans out to: a thread-local does not follow work onto rayon's threads.
pub fn installed() -> StopCheck {
    STOP.with_borrow(|stop| stop.clone()).unwrap_or_else(never)
}

/// Whether the decision under way on this thread has been asked to stop.
pub fn requested() -> bool {
    STOP.with_borrow(|stop| stop.as_ref().is_some_and(|check| check()))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;

    #[test]
    fn a_stop_is_seen_only_inside_its_decision() {
        assert!(!requested(), "nothing installed: never stopped");
        let flag = Arc::new(AtomicBool::new(false));
        let seen = Arc::clone(&flag);
        let inside = with_stop(Arc::new(move || seen.load(Ordering::Relaxed)), || {
            let before = requested();
            flag.store(true, Ordering::Relaxed);
            (before, requested())
        });
        assert_eq!(inside, (false, true));
        assert!(!requested(), "removed after the decision");
        let carried = Arc::new(AtomicBool::new(true));
        let seen = Arc::clone(&carried);
        let on_another_thread = with_stop(Arc::new(move || seen.load(Ordering::Relaxed)), || {
            let check = installed();
            std::thread::spawn(move || (requested(), with_stop(check, requested)))
                .join()
                .unwrap()
        });
        assert_eq!(
            on_another_thread,
            (false, true),
            "another thread sees the stop only once it is installed there"
        );
    }
}
