//! Ranks on threads of one process: the transport the tests use.

use std::sync::{Arc, Barrier, Mutex, PoisonError};

use super::collective::{Collective, CollectiveError};

#[derive(Debug)]
struct Shared {
    barrier: Barrier,
    slots: Mutex<Vec<Vec<u8>>>,
}

/// One rank of a group of threads. Make the group with
/// [`ThreadGroup::new`] and move one endpoint to each thread.
#[derive(Debug)]
pub struct ThreadGroup {
    rank: usize,
    size: usize,
    shared: Arc<Shared>,
}

impl ThreadGroup {
    /// `size` endpoints, rank 0 first.
    pub fn new(size: usize) -> Vec<ThreadGroup> {
        let shared = Arc::new(Shared {
            barrier: Barrier::new(size),
            slots: Mutex::new(vec![Vec::new(); size]),
        });
        (0..size)
            .map(|rank| ThreadGroup {
                rank,
                size,
                shared: Arc::clone(&shared),
            })
            .collect()
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        self.shared
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Collective for ThreadGroup {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn all_gather(&self, mine: &[u8]) -> Result<Vec<Vec<u8>>, CollectiveError> {
        self.slots()[self.rank] = mine.to_vec();
        self.shared.barrier.wait();
        let all = self.slots().clone();
        // Nobody overwrites a slot until everyone has read them all.
        self.shared.barrier.wait();
        Ok(all)
    }

    fn gather(&self, root: usize, mine: &[u8]) -> Result<Option<Vec<Vec<u8>>>, CollectiveError> {
        self.slots()[self.rank] = mine.to_vec();
        self.shared.barrier.wait();
        let all = (self.rank == root).then(|| self.slots().clone());
        self.shared.barrier.wait();
        Ok(all)
    }

    fn broadcast(&self, root: usize, bytes: &mut Vec<u8>) -> Result<(), CollectiveError> {
        if self.rank == root {
            self.slots()[root].clone_from(bytes);
        }
        self.shared.barrier.wait();
        if self.rank != root {
            bytes.clone_from(&self.slots()[root]);
        }
        self.shared.barrier.wait();
        Ok(())
    }

    fn all_reduce_sum(&self, values: &mut [f32]) -> Result<(), CollectiveError> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let all = self.all_gather(&bytes)?;
        // Summed in rank order on every rank, so every rank gets the same bits.
        for (index, value) in values.iter_mut().enumerate() {
            *value = all
                .iter()
                .map(|rank| {
                    let at = index * 4;
                    f32::from_le_bytes([rank[at], rank[at + 1], rank[at + 2], rank[at + 3]])
                })
                .fold(0.0, |sum, v| sum + v);
        }
        Ok(())
    }
}
