//! The MPI transport (Open MPI through rsmpi). Collectives are called only
//! from the thread that runs the command; the solver's worker threads never
//! touch MPI. MPI's default error handler aborts the whole job when a peer
//! dies, so a failed rank stops every rank (and `mpirun` says which). A
//! rank that vanishes without dying is found by [`liveness`]: every
//! collective here is started immediate and waited for by polling.

mod liveness;

pub use liveness::RANK_GONE_EXIT;

use cfr::distributed::{Collective, CollectiveError};
use mpi::Count;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

use liveness::Liveness;

/// Elements of one MPI call: MPI counts and displacements are `int`.
const MOST_PER_CALL: usize = 1 << 30;

/// This process's place in `MPI_COMM_WORLD`.
pub struct MpiGroup {
    world: SimpleCommunicator,
    rank: usize,
    size: usize,
    liveness: Liveness,
}

impl std::fmt::Debug for MpiGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiGroup")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .finish()
    }
}

/// Starts MPI. The universe finalises MPI when dropped: keep it for the
/// life of the process. `None` if MPI could not start.
pub fn join() -> Option<(Universe, MpiGroup)> {
    let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)?;
    let world = universe.world();
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let liveness = Liveness::new(&world);
    Some((
        universe,
        MpiGroup {
            world,
            rank,
            size,
            liveness,
        },
    ))
}

impl MpiGroup {
    /// Elements per call such that the whole gather's displacements fit in
    /// an `int`.
    fn per_call(&self) -> usize {
        (MOST_PER_CALL / self.size.max(1)).max(1)
    }
}

impl MpiGroup {
    /// Every rank's length, on every rank.
    fn lengths(&self, mine: &[u8]) -> Vec<u64> {
        let mut lengths = vec![0u64; self.size];
        let length = mine.len() as u64;
        mpi::request::scope(|scope| {
            let request = self
                .world
                .immediate_all_gather_into(scope, &length, &mut lengths[..]);
            self.liveness.wait(request);
        });
        lengths
    }

    /// The calls a gather of `lengths` takes.
    fn rounds(&self, lengths: &[u64]) -> usize {
        let longest = lengths.iter().copied().max().unwrap_or(0) as usize;
        longest.div_ceil(self.per_call())
    }
}

/// Buffers for every rank's bytes.
fn receivers(lengths: &[u64]) -> Vec<Vec<u8>> {
    lengths
        .iter()
        .map(|&length| Vec::with_capacity(length as usize))
        .collect()
}

/// One call's share of each rank's bytes, laid out as MPI's variable-count
/// collectives take them.
struct Pieces {
    ranges: Vec<std::ops::Range<usize>>,
    counts: Vec<Count>,
    displacements: Vec<Count>,
}

impl Pieces {
    fn of(lengths: &[u64], round: usize, per_call: usize) -> Pieces {
        let ranges: Vec<_> = lengths
            .iter()
            .map(|&length| {
                let length = length as usize;
                (round * per_call).min(length)..((round + 1) * per_call).min(length)
            })
            .collect();
        let counts: Vec<Count> = ranges.iter().map(|range| range.len() as Count).collect();
        let displacements = counts
            .iter()
            .scan(0, |at, &count| {
                let here = *at;
                *at += count;
                Some(here)
            })
            .collect();
        Pieces {
            ranges,
            counts,
            displacements,
        }
    }

    fn mine(&self, rank: usize) -> std::ops::Range<usize> {
        self.ranges[rank].clone()
    }

    fn total(&self) -> usize {
        self.counts.iter().map(|&count| count as usize).sum()
    }

    /// Appends each rank's piece of `received` to its buffer.
    fn append(&self, received: &[u8], everyone: &mut [Vec<u8>]) {
        for (rank, theirs) in everyone.iter_mut().enumerate() {
            let start = self.displacements[rank] as usize;
            theirs.extend_from_slice(&received[start..start + self.counts[rank] as usize]);
        }
    }
}

impl Collective for MpiGroup {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn expect_everyone(&self, within: Option<std::time::Duration>) {
        self.liveness.expect_everyone(within);
    }

    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, CollectiveError> {
        let lengths = self.lengths(mine);
        let mut everyone = receivers(&lengths);
        for round in 0..self.rounds(&lengths) {
            let pieces = Pieces::of(&lengths, round, self.per_call());
            let mut received = vec![0u8; pieces.total()];
            {
                let mut partition = PartitionMut::new(
                    &mut received[..],
                    &pieces.counts[..],
                    &pieces.displacements[..],
                );
                let sent = &mine[pieces.mine(self.rank)];
                mpi::request::scope(|scope| {
                    let request =
                        self.world
                            .immediate_all_gather_varcount_into(scope, sent, &mut partition);
                    self.liveness.wait(request);
                });
            }
            pieces.append(&received, &mut everyone);
        }
        Ok(everyone)
    }

    fn gather(&self, root: usize, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, CollectiveError> {
        let lengths = self.lengths(mine);
        let receiver = self.world.process_at_rank(root as i32);
        let mut everyone = (self.rank == root).then(|| receivers(&lengths));
        for round in 0..self.rounds(&lengths) {
            let pieces = Pieces::of(&lengths, round, self.per_call());
            let sent = &mine[pieces.mine(self.rank)];
            match &mut everyone {
                None => mpi::request::scope(|scope| {
                    let request = receiver.immediate_gather_varcount_into(scope, sent);
                    self.liveness.wait(request);
                }),
                Some(everyone) => {
                    let mut received = vec![0u8; pieces.total()];
                    {
                        let mut partition = PartitionMut::new(
                            &mut received[..],
                            &pieces.counts[..],
                            &pieces.displacements[..],
                        );
                        mpi::request::scope(|scope| {
                            let request = receiver.immediate_gather_varcount_into_root(
                                scope,
                                sent,
                                &mut partition,
                            );
                            self.liveness.wait(request);
                        });
                    }
                    pieces.append(&received, everyone);
                }
            }
        }
        Ok(everyone)
    }

    fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) -> Result<(), CollectiveError> {
        let sender = self.world.process_at_rank(root as i32);
        let mut length = bytes.len() as u64;
        mpi::request::scope(|scope| {
            let request = sender.immediate_broadcast_into(scope, &mut length);
            self.liveness.wait(request);
        });
        bytes.resize(length as usize, 0);
        for piece in bytes.chunks_mut(MOST_PER_CALL) {
            mpi::request::scope(|scope| {
                let request = sender.immediate_broadcast_into(scope, piece);
                self.liveness.wait(request);
            });
        }
        Ok(())
    }

    fn all_reduce_sum(&self, values: &mut [f32]) -> Result<(), CollectiveError> {
        let mut sums = vec![0f32; values.len().min(MOST_PER_CALL)];
        for piece in values.chunks_mut(MOST_PER_CALL) {
            let sums = &mut sums[..piece.len()];
            mpi::request::scope(|scope| {
                let request = self.world.immediate_all_reduce_into(
                    scope,
                    &*piece,
                    &mut *sums,
                    SystemOperation::sum(),
                );
                self.liveness.wait(request);
            });
            piece.copy_from_slice(sums);
        }
        Ok(())
    }
}
