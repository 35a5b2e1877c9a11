//! Several walks on one thread, taking turns at their lookups.
//!
//! A walk's lookups wait for memory: the perfect hash's line, then the
//! record's, each a cache miss that the next decision depends on. One walk
//! cannot start its next lookup before its last is answered, but another
//! walk can: so a thread keeps `width` walks open, each asks for the lines
//! of its next lookup ([`store::Table::prefetch`]) and pauses, and the
//! thread polls the next walk, round robin, while those lines arrive. By
//! the time a walk is polled again its lines are in cache.
//!
//! The walks are futures polled by hand with a waker that does nothing: a
//! paused walk is ready to go on as soon as it is polled again (a pause is
//! a turn given up, not a wait for an event), so there is no scheduler, no
//! allocation per turn and no thread besides the caller's.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

/// Gives up the thread's turn once; see [`pause`].
pub(super) struct Pause {
    paused: bool,
}

/// A point where a walk lets the thread's other walks run: pending the
/// first time it is polled, ready the next.
pub(super) fn pause() -> Pause {
    Pause { paused: false }
}

impl Future for Pause {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.paused {
            Poll::Ready(())
        } else {
            self.paused = true;
            Poll::Pending
        }
    }
}

/// Runs every walk `walks` yields, at most `width` open at once, each
/// polled in turn until it finishes, a finished one replaced by the next.
/// Stops at the first error, with the other open walks dropped unfinished.
/// The order of turns depends only on the walks, so a run on one thread
/// is reproducible.
pub(super) fn run_interleaved<W, E>(
    width: usize,
    walks: impl IntoIterator<Item = W>,
) -> Result<(), E>
where
    W: Future<Output = Result<(), E>>,
{
    let mut context = Context::from_waker(Waker::noop());
    let mut walks = walks.into_iter();
    let mut open: Vec<Pin<Box<W>>> = walks.by_ref().take(width.max(1)).map(Box::pin).collect();
    let mut turn = 0;
    while !open.is_empty() {
        if turn >= open.len() {
            turn = 0;
        }
        match open[turn].as_mut().poll(&mut context) {
            Poll::Pending => turn += 1,
            Poll::Ready(result) => {
                result?;
                match walks.next() {
                    Some(walk) => {
                        open[turn] = Box::pin(walk);
                        turn += 1;
                    }
                    None => {
                        open.remove(turn);
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// A walk that records each step it takes, pausing between steps.
    async fn steps(name: char, count: usize, log: &RefCell<Vec<char>>) -> Result<(), ()> {
        for step in 0..count {
            if step > 0 {
                pause().await;
            }
            log.borrow_mut().push(name);
        }
        Ok(())
    }

    #[test]
    fn open_walks_take_turns_and_a_finished_one_makes_room_for_the_next() {
        let log = RefCell::new(Vec::new());
        let walks = [('a', 3), ('b', 1), ('c', 2)].map(|(name, count)| steps(name, count, &log));
        run_interleaved(2, walks).unwrap();
        // a and b open; b finishes at once and c takes its place.
        assert_eq!(log.into_inner(), vec!['a', 'b', 'a', 'c', 'a', 'c']);
    }

    #[test]
    fn one_walk_wide_runs_the_walks_one_after_another() {
        let log = RefCell::new(Vec::new());
        let walks = [('a', 2), ('b', 2)].map(|(name, count)| steps(name, count, &log));
        run_interleaved(1, walks).unwrap();
        assert_eq!(log.into_inner(), vec!['a', 'a', 'b', 'b']);
    }

    #[test]
    fn the_first_error_stops_the_run() {
        let log = RefCell::new(Vec::new());
        let failing = async { Err::<(), char>('x') };
        let walks: Vec<Pin<Box<dyn Future<Output = Result<(), char>> + '_>>> = vec![
            Box::pin(failing),
            Box::pin(async {
                log.borrow_mut().push('z');
                Ok(())
            }),
        ];
        assert_eq!(run_interleaved(1, walks), Err('x'));
        assert!(log.borrow().is_empty(), "a walk ran after the error");
    }
}
