//! Several walks on one thread, taking turns at their lookups.
//!
//! A walk's lookups wait for memory: the perfect hash's line, then the
//! record's, each a cache miss that the walk's next decision depends on.
//! One walk cannot start its next lookup before its last is answered, but
//! another walk can. So a thread keeps several walks open: each asks for
//! the lines of its next lookup ([`store::Table::prefetch`]) and pauses,
//! and the thread resumes the next walk while those lines arrive. By the
//! time a walk's turn comes round again, its lines are in cache. A core
//! keeps about 14 misses in flight; one walk keeps fewer than one
//! (docs/experiments/full-play-interleaved-walks.md).
//!
//! Each walk runs on its own stack, a stackful coroutine
//! ([`corosensei`]): a pause is a switch of stacks, with nothing allocated
//! and nothing rebuilt, and the walk's recursion stays the plain recursion
//! it is with one walk. (Walks written as futures paid for re-entering
//! every level of their nested state machines at each resumption, and for
//! a boxed future per decision, and lost more than the misses gave back.)

use corosensei::stack::DefaultStack;
use corosensei::{CoroutineResult, ScopedCoroutine, ScopedCoroutineRef, Yielder};

use crate::error::CfrError;

/// A walk's stack. The walk recurses once per decision of a game (a few
/// dozen levels in euchre, each holding its children's states); the pages
/// are reserved, not touched, so room to spare costs nothing.
const STACK_BYTES: usize = 8 << 20;

/// What a walk calls to give up its turn ([`Turns::pause`]).
pub(crate) struct Turns<'y> {
    yielder: &'y Yielder<(), ()>,
}

impl Turns<'_> {
    /// Lets the thread's other walks run, each up to its next pause; the
    /// caller goes on when its turn comes round again.
    pub(crate) fn pause(&self) {
        self.yielder.suspend(());
    }
}

type Walker<'r> = ScopedCoroutineRef<'r, (), (), Result<(), CfrError>, DefaultStack>;
type ClosedWalker<'c> = ScopedCoroutine<'c, (), (), Result<(), CfrError>, DefaultStack>;

/// Runs `width` walkers on this thread, each on its own stack, taking
/// turns: each runs until it pauses, then the next in order resumes, round
/// and round, until every walker has returned. The walkers share out their
/// work through what `walker` captures. Returns the first error in the
/// order the walkers returned; the others still run to their end (a
/// walker should stop taking work once one has failed).
///
/// The order of turns depends only on the walkers, so a run on one thread
/// is reproducible.
pub(crate) fn take_turns(
    width: usize,
    walker: &dyn Fn(&Turns<'_>) -> Result<(), CfrError>,
) -> Result<(), CfrError> {
    // Opened last to first, so that the first opened is the first to run.
    let mut closed = Vec::with_capacity(width);
    for _ in 0..width {
        let stack = DefaultStack::new(STACK_BYTES)
            .map_err(|error| CfrError::WalkStack(error.to_string()))?;
        closed.push(ScopedCoroutine::with_stack(
            stack,
            move |yielder: &Yielder<(), ()>, ()| walker(&Turns { yielder }),
        ));
    }
    open_all(closed, Vec::with_capacity(width), &mut round_robin)
}

/// Opens each closed walker's scope, one inside the other, and drives the
/// open walkers inside the innermost.
fn open_all<R>(
    mut closed: Vec<ClosedWalker<'_>>,
    open: Vec<Walker<'_>>,
    drive: &mut dyn FnMut(Vec<Walker<'_>>) -> R,
) -> R {
    match closed.pop() {
        None => drive(open),
        Some(next) => next.scope(|walker| {
            let mut open: Vec<Walker<'_>> = open;
            open.push(walker);
            open_all(closed, open, drive)
        }),
    }
}

fn round_robin(mut walkers: Vec<Walker<'_>>) -> Result<(), CfrError> {
    let mut first_error = None;
    let mut running = walkers.len();
    while running > 0 {
        for walker in &mut walkers {
            if walker.done() {
                continue;
            }
            if let CoroutineResult::Return(result) = walker.resume(()) {
                running -= 1;
                if let Err(error) = result {
                    first_error.get_or_insert(error);
                }
            }
        }
    }
    first_error.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;

    #[test]
    fn walkers_take_turns_in_order_between_pauses() {
        let log = RefCell::new(Vec::new());
        let next = Cell::new(0);
        take_turns(3, &|turns| {
            let name = next.get();
            next.set(name + 1);
            for step in 0..name + 1 {
                if step > 0 {
                    turns.pause();
                }
                log.borrow_mut().push((name, step));
            }
            Ok(())
        })
        .unwrap();
        // Walker 0 finishes in its first turn, 1 in its second, 2 in its
        // third.
        assert_eq!(
            log.into_inner(),
            vec![(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (2, 2)]
        );
    }

    #[test]
    fn one_walker_runs_alone_through_its_pauses() {
        let steps = Cell::new(0);
        take_turns(1, &|turns| {
            for _ in 0..5 {
                steps.set(steps.get() + 1);
                turns.pause();
            }
            Ok(())
        })
        .unwrap();
        assert_eq!(steps.get(), 5);
    }

    #[test]
    fn the_first_error_is_returned_after_the_others_finish() {
        let next = Cell::new(0);
        let finished = Cell::new(0);
        let result = take_turns(3, &|turns| {
            let name = next.get();
            next.set(name + 1);
            turns.pause();
            if name == 1 {
                return Err(CfrError::WalkStack(format!("walker {name}")));
            }
            turns.pause();
            finished.set(finished.get() + 1);
            Ok(())
        });
        assert!(matches!(result, Err(CfrError::WalkStack(ref which)) if which == "walker 1"));
        assert_eq!(
            finished.get(),
            2,
            "the walkers that did not fail ran to their end"
        );
    }
}
