//! Whether the other ranks are still there, asked while this rank waits in
//! a collective.
//!
//! MPI's own error handler ends the job when a rank's process dies, but a
//! machine that vanishes (power, a cable, a frozen kernel) closes nothing:
//! its peers would wait in the next collective until TCP gives up on the
//! connection, about 15 minutes on Linux. So every wait here polls its
//! request and, meanwhile, answers the other ranks' pings. When every rank
//! is expected in the same collectives ([`Collective::expect_everyone`],
//! as in a sync) and nothing has finished for that long, the waiting rank
//! pings every other rank on a communicator of its own (so pings never
//! match the table's traffic): a rank that answers is there, however slow
//! the exchange; a rank that does not is taken as gone. The rank that finds
//! it tells the ranks that answered, and each says which rank is gone and
//! ends. It cannot return an error instead: MPI cannot take back the
//! buffers of a collective that will never finish, so the process must not
//! free them, and ending it is the one safe way out (as MPI's error handler
//! ends it on a dead peer).
//!
//! [`Collective::expect_everyone`]: cfr::distributed::Collective::expect_everyone

use std::cell::Cell;
use std::time::{Duration, Instant};

use mpi::Tag;
use mpi::point_to_point::{Destination, MatchedReceiveVec, Source, Status};
use mpi::request::{Request, Scope, StaticScope};
use mpi::topology::{Communicator, SimpleCommunicator};

/// "Are you there?"
const PING: Tag = 1;
/// "I am."
const PONG: Tag = 2;
/// "These ranks are gone": the ranks found silent, sent to the others.
const GONE: Tag = 3;

/// The exit status of a rank that ends because another rank is gone:
/// `EX_TEMPFAIL`, since the same command resumes the run.
pub const RANK_GONE_EXIT: i32 = 75;

/// The longest a roll call waits for answers: a rank waiting in a
/// collective answers within a millisecond or so.
const LONGEST_ROLL_CALL: Duration = Duration::from_secs(10);

/// How often a wait tests its request: a busy loop at first, so short
/// collectives finish at once, then a short sleep, so a long wait (a
/// follower while rank 0 checkpoints) leaves the core to the training.
struct Pacing {
    started: Instant,
}

impl Pacing {
    const SPIN: Duration = Duration::from_millis(50);
    const NAP: Duration = Duration::from_micros(200);

    fn new() -> Pacing {
        Pacing {
            started: Instant::now(),
        }
    }

    fn pause(&self) {
        if self.started.elapsed() < Self::SPIN {
            std::thread::yield_now();
        } else {
            std::thread::sleep(Self::NAP);
        }
    }
}

/// This rank's side of the liveness checks.
pub(super) struct Liveness {
    /// A duplicate of the world: the pings' own channel.
    watch: SimpleCommunicator,
    rank: usize,
    size: usize,
    /// How long a silence means a rank is gone, while every rank is
    /// expected; `None` otherwise.
    within: Cell<Option<Duration>>,
}

impl Liveness {
    pub(super) fn new(world: &SimpleCommunicator) -> Liveness {
        Liveness {
            watch: world.duplicate(),
            rank: world.rank() as usize,
            size: world.size() as usize,
            within: Cell::new(None),
        }
    }

    pub(super) fn expect_everyone(&self, within: Option<Duration>) {
        self.within.set(within);
    }

    /// Waits for `request`, answering the other ranks meanwhile; ends this
    /// process if, while every rank is expected, a roll call finds one
    /// silent.
    pub(super) fn wait<'a, D: ?Sized, S: Scope<'a>>(&self, mut request: Request<'a, D, S>) {
        let pacing = Pacing::new();
        let mut quiet_since = Instant::now();
        loop {
            match request.test() {
                Ok(_) => return,
                Err(pending) => request = pending,
            }
            self.answer();
            if let Some(within) = self.within.get()
                && quiet_since.elapsed() >= within
            {
                let silent = self.roll_call(within.min(LONGEST_ROLL_CALL));
                if !silent.is_empty() {
                    self.give_up(&silent, within);
                }
                // Every rank is there: the exchange is slow, not stuck.
                quiet_since = Instant::now();
            }
            pacing.pause();
        }
    }

    /// Answers every ping waiting, and ends this process if another rank
    /// found one gone.
    fn answer(&self) {
        while let Some(probed) = self
            .watch
            .any_process()
            .immediate_matched_probe_with_tag(PING)
        {
            let (_, status): (Vec<u8>, Status) = probed.matched_receive_vec();
            // One byte, sent eagerly, to a rank that is waiting for it.
            self.watch
                .process_at_rank(status.source_rank())
                .send_with_tag(&0u8, PONG);
        }
        if let Some(probed) = self
            .watch
            .any_process()
            .immediate_matched_probe_with_tag(GONE)
        {
            let (silent, status): (Vec<u64>, Status) = probed.matched_receive_vec();
            let silent: Vec<usize> = silent.into_iter().map(|rank| rank as usize).collect();
            end(&verdict(
                self.rank,
                &silent,
                Some(status.source_rank() as usize),
                None,
            ));
        }
    }

    /// Pings every other rank and waits up to `grace` for the answers;
    /// returns the ranks that gave none.
    fn roll_call(&self, grace: Duration) -> Vec<usize> {
        static ASK: u8 = 0;
        let asked: Vec<Request<'static, u8, StaticScope>> = self
            .others()
            .map(|rank| {
                self.watch
                    .process_at_rank(rank as i32)
                    .immediate_send_with_tag(StaticScope, &ASK, PING)
            })
            .collect();
        let mut answered = vec![false; self.size];
        answered[self.rank] = true;
        let started = Instant::now();
        let pacing = Pacing::new();
        while answered.contains(&false) && started.elapsed() < grace {
            self.answer();
            while let Some(probed) = self
                .watch
                .any_process()
                .immediate_matched_probe_with_tag(PONG)
            {
                let (_, status): (Vec<u8>, Status) = probed.matched_receive_vec();
                answered[status.source_rank() as usize] = true;
            }
            pacing.pause();
        }
        let silent = silent_ranks(&answered);
        if silent.is_empty() {
            // Every ping was received: each send completes.
            for request in asked {
                request.wait();
            }
        } else {
            // A ping to a silent rank may never complete; its byte is
            // static, so leaving the request is safe, and this rank ends.
            std::mem::forget(asked);
        }
        silent
    }

    /// Tells every rank that answered which ranks are silent, then ends.
    fn give_up(&self, silent: &[usize], within: Duration) -> ! {
        let told: &'static [u64] = Box::leak(
            silent
                .iter()
                .map(|&rank| rank as u64)
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        let mut telling: Vec<Request<'static, [u64], StaticScope>> = self
            .others()
            .filter(|rank| !silent.contains(rank))
            .map(|rank| {
                self.watch
                    .process_at_rank(rank as i32)
                    .immediate_send_with_tag(StaticScope, told, GONE)
            })
            .collect();
        // Give the news a moment to leave before this process ends.
        let started = Instant::now();
        while !telling.is_empty() && started.elapsed() < Duration::from_secs(2) {
            telling = telling
                .into_iter()
                .filter_map(|request| request.test().err())
                .collect();
            std::thread::sleep(Duration::from_millis(1));
        }
        std::mem::forget(telling);
        end(&verdict(self.rank, silent, None, Some(within)))
    }

    fn others(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.size).filter(move |&rank| rank != self.rank)
    }
}

/// The ranks that did not answer a roll call.
fn silent_ranks(answered: &[bool]) -> Vec<usize> {
    answered
        .iter()
        .enumerate()
        .filter(|(_, answered)| !**answered)
        .map(|(rank, _)| rank)
        .collect()
}

/// What a rank says as it ends because `silent` are gone: found by itself
/// after `within` of silence, or told by `told_by`.
fn verdict(
    me: usize,
    silent: &[usize],
    told_by: Option<usize>,
    within: Option<Duration>,
) -> String {
    let names = match silent {
        [one] => format!("rank {one} stopped answering"),
        many => format!(
            "ranks {} stopped answering",
            many.iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let found = match (told_by, within) {
        (Some(finder), _) => format!(" (found by rank {finder})"),
        (None, Some(within)) => format!(
            " after {:.0} s with every rank expected in a sync",
            within.as_secs_f64()
        ),
        (None, None) => String::new(),
    };
    format!(
        "rank {me}: {names}{found}: its machine or process stopped, or it runs far slower than the others (then raise --rank-timeout). This rank ends; the same command resumes the run from rank 0's last checkpoint, on the machines left"
    )
}

/// Says `why` and ends this process, leaving MPI's buffers untouched.
fn end(why: &str) -> ! {
    tracing::error!("{why}");
    if !tracing::dispatcher::has_been_set() {
        eprintln!("Error: {why}");
    }
    std::process::exit(RANK_GONE_EXIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ranks_that_gave_no_answer_are_the_silent_ones() {
        assert_eq!(silent_ranks(&[true, false, true, false]), vec![1, 3]);
        assert!(silent_ranks(&[true, true]).is_empty());
    }

    #[test]
    fn the_verdict_names_the_silent_ranks_who_found_them_and_the_way_on() {
        let found = verdict(0, &[2], None, Some(Duration::from_secs(60)));
        assert!(
            found.starts_with("rank 0: rank 2 stopped answering after 60 s"),
            "{found}"
        );
        assert!(found.contains("--rank-timeout"), "{found}");
        assert!(
            found.contains("resumes the run from rank 0's last checkpoint"),
            "{found}"
        );
        let told = verdict(1, &[2, 3], Some(0), None);
        assert!(
            told.starts_with("rank 1: ranks 2, 3 stopped answering (found by rank 0)"),
            "{told}"
        );
    }
}
