//! The sync: every rank's changes of an epoch exchanged and summed into
//! every replica, from a delta buffer or from the records as they were.

use std::sync::PoisonError;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;
use store::{ExactRecords, Key, Record, StoreError, Table};

use super::apply::Retire;
use super::records::{add_difference, add_values, is_zero};
use super::{Address, DRAIN_CHUNK, ReplicatedTable, SHARDS, StrategySums, SyncStats};
use crate::distributed::collective::Collective;
use crate::distributed::in_place::ChangedRecords;
use crate::distributed::wire::{self, Values};
use crate::error::CfrError;
use crate::regret::floor_regrets;

impl<'a, T: Table + ?Sized> ReplicatedTable<'a, T> {
    /// Exchanges every rank's pending changes and applies their sum to the
    /// replica, after discounting it to iteration `now` (the epoch's last).
    /// Every rank must call it with the same `now`; afterwards every
    /// replica holds the same records, bit for bit. With
    /// [`StrategySums::Deferred`] only the regrets travel; the strategy
    /// sums wait on this rank for [`ReplicatedTable::settle`].
    pub fn sync(&self, group: &dyn Collective, now: u64) -> Result<SyncStats, CfrError> {
        if let Some((changed, exact)) = &self.in_place {
            return self.sync_in_place(group, (changed, *exact), now);
        }
        self.close_epoch(now)?;
        self.finish(group, false)
    }

    /// Ends this rank's epoch at iteration `now` without syncing it yet:
    /// its changes go in flight and the next epoch's go to empty buffers,
    /// so that the next epoch can train while [`Self::finish_sync`] syncs
    /// this one. Until a record's sum is applied this rank still reads its
    /// own changes to it; the other ranks' arrive with the apply, one
    /// epoch later than with [`Self::sync`]. Every replica still applies
    /// the same sums in the same order, so the replicas stay identical;
    /// what the next epoch's training reads of them meanwhile depends on
    /// timing, as with any reads beside other threads' updates. Not for
    /// [`Reads::Frozen`](super::Reads::Frozen), whose epochs must not see the replica move.
    pub fn close_epoch(&self, now: u64) -> Result<(), CfrError> {
        if self.in_place.is_some() {
            return Err(CfrError::Replica(
                "a replica training in place syncs between epochs, not beside them".into(),
            ));
        }
        if self.in_flight() {
            return Err(CfrError::Replica(
                "an epoch was closed while the last one's sync was still in flight".into(),
            ));
        }
        for (in_flight, current) in self.in_flight.iter().zip(&self.shards) {
            let mut in_flight = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            let mut current = current.lock().unwrap_or_else(PoisonError::into_inner);
            std::mem::swap(&mut *in_flight, &mut *current);
            // No more capacity than the epoch just closed needed: a
            // shrinking epoch (as the held sums fill a rank's room) frees
            // its memory.
            current.shrink_to(in_flight.len());
        }
        self.in_flight_through.store(now.max(1), Ordering::Release);
        Ok(())
    }

    /// Syncs the epoch [`Self::close_epoch`] put in flight, as
    /// [`Self::sync`] does, while this rank's next epoch may be training:
    /// each record's changes leave this rank's reads as its sum is applied,
    /// under the same lock, so a read sees them once, before or after. A
    /// no-op when nothing is in flight; every rank must call it together.
    pub fn finish_sync(&self, group: &dyn Collective) -> Result<SyncStats, CfrError> {
        if !self.in_flight() {
            return Ok(SyncStats::default());
        }
        self.finish(group, true)
    }

    /// The sync of the epoch in flight; `beside_training`: whether reads
    /// may come meanwhile, so that entries leave one by one as applied.
    pub(super) fn finish(
        &self,
        group: &dyn Collective,
        beside_training: bool,
    ) -> Result<SyncStats, CfrError> {
        let now = self.in_flight_through.load(Ordering::Acquire);
        let width = self.base.max_actions();
        let started = Instant::now();
        let values = match self.strategy_sums {
            StrategySums::EachSync => Values::Both,
            StrategySums::Deferred => Values::Regrets,
        };
        // Each shard is drained on its own thread into its own pieces (the
        // drain was serial, and at a cluster's epochs of millions of
        // records it took as long as the apply); the pieces are joined in
        // shard order. A record's entry sits in one shard and each rank
        // sends a record once, so the order changes no sum. The changes
        // form the first section; the seeds, once per record and few, the
        // second. Beside training the entries stay readable until applied.
        // Not beside training, a shard is emptied as it is drained.
        let pieces: Vec<(Vec<u8>, Vec<u8>, u64, u64)> = self
            .in_flight
            .par_iter()
            .enumerate()
            .map(|(index, shard)| {
                let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
                // The held sums are sharded by the same slot modulus: one
                // lock for the whole shard, not one per entry.
                let mut held = (values == Values::Regrets).then(|| {
                    self.deferred[index]
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                });
                let entries = shard.len() as u64;
                let (mut changes, mut seeds, mut sent) = (Vec::new(), Vec::new(), 0);
                for (&slot, pending) in shard.iter() {
                    if pending.last_update == 0 {
                        continue;
                    }
                    let key = pending.key();
                    if let Some(seed) = pending.seed.as_deref()
                        && !is_zero(seed, width)
                    {
                        // Regrets and sums alike, whatever `values`: a seed
                        // is once per record and small.
                        wire::put_delta(&mut seeds, key, seed, width, Values::Both);
                    }
                    if let Some(held) = held.as_deref_mut() {
                        if pending.change.strategy_sum[..width]
                            .iter()
                            .any(|&d| d != 0.0)
                        {
                            self.defer(held, (slot, Some(key)), &pending.change, now, width);
                        }
                        if pending.change.regrets[..width].iter().all(|&d| d == 0.0) {
                            continue;
                        }
                    }
                    wire::put_delta(&mut changes, key, &pending.change, width, values);
                    sent += 1;
                }
                if !beside_training {
                    shard.clear();
                }
                (changes, seeds, sent, entries)
            })
            .collect();
        let mut outgoing = wire::open_first_section();
        outgoing.reserve(pieces.iter().map(|(changes, ..)| changes.len()).sum());
        let mut seeds = Vec::new();
        let (mut records_sent, mut entries_drained) = (0, 0);
        for (changes, shard_seeds, sent, entries) in pieces {
            outgoing.extend_from_slice(&changes);
            seeds.extend_from_slice(&shard_seeds);
            records_sent += sent;
            entries_drained += entries;
        }
        wire::close_first_section(&mut outgoing);
        wire::push_section(&mut outgoing, &seeds);
        let drain_seconds = started.elapsed().as_secs_f64();
        let floor = self.floor;
        let retire = if beside_training {
            Retire::EachRecord
        } else {
            Retire::AtEnd
        };
        let stats = self.exchange_and_apply(
            group,
            &outgoing,
            values,
            Address::Key,
            (now, retire),
            |record, change| {
                add_values(record, change);
                if floor {
                    floor_regrets(&mut record.regrets[..width]);
                }
            },
        )?;
        // What is left in flight was not sent (no regret changed, or only
        // looked up): nothing more of it to read. Not beside training,
        // nothing touched the current buffer during the sync, so the
        // emptied one, with its capacity, takes its place and the spare is
        // freed (see `shards`).
        for (in_flight, current) in self.in_flight.iter().zip(&self.shards) {
            let mut in_flight = in_flight.lock().unwrap_or_else(PoisonError::into_inner);
            in_flight.clear();
            if !beside_training {
                let mut current = current.lock().unwrap_or_else(PoisonError::into_inner);
                if current.is_empty() {
                    std::mem::swap(&mut *in_flight, &mut *current);
                    in_flight.shrink_to(0);
                }
            }
        }
        self.in_flight_through.store(0, Ordering::Release);
        Ok(SyncStats {
            records_sent,
            drain_seconds,
            entries_drained,
            held_entries: self.deferred(),
            ..stats
        })
    }

    /// [`Self::sync`] for a replica training in place. Each record the
    /// epoch changed is put back as stored before the epoch, bit for bit,
    /// and its change is what the record as it had become, caught up to
    /// `now`, adds to the record as it was, caught up alike, less a warm
    /// start's seed, which travels apart (as the buffered changes' does);
    /// its regrets, and its strategy sums, each count only if an update
    /// moved them.
    /// A change goes to the other ranks as the delta buffer's would: all
    /// of it, or with [`StrategySums::Deferred`] its regrets, when they
    /// moved, its sums held here for the settle.
    pub(super) fn sync_in_place(
        &self,
        group: &dyn Collective,
        (changed, exact): (&ChangedRecords, &dyn ExactRecords),
        now: u64,
    ) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        let values = match self.strategy_sums {
            StrategySums::EachSync => Values::Both,
            StrategySums::Deferred => Values::Regrets,
        };
        let befores = changed.take();
        let discounter = &self.discounter;
        let address = if self.shared_layout {
            Address::Slot
        } else {
            Address::Key
        };
        let pieces = befores
            .shards
            .par_iter()
            .flat_map(|list| list.par_chunks(DRAIN_CHUNK))
            .map(|chunk| {
                let (mut changes, mut seeds, mut sent) = (Vec::new(), Vec::new(), 0);
                for before in chunk {
                    let mut after = self.base.read(before.slot)?;
                    exact.put_back(before.slot, &before.stored)?;
                    let mut was = exact.decode(&before.stored);
                    discounter.catch_up(&mut after, now);
                    discounter.catch_up(&mut was, now);
                    let mut change = Record::default();
                    add_difference(&mut change, &after, &was);
                    let seed = before.seed.as_deref().filter(|seed| !is_zero(seed, width));
                    if let Some(seed) = seed {
                        add_difference(&mut change, &Record::default(), seed);
                    }
                    // Only rounding apart where no update moved them: the
                    // layout's, each time the record was written back.
                    if !before.regrets_moved {
                        change.regrets = [0.0; store::MAX_ACTIONS];
                    }
                    if !before.sums_moved {
                        change.strategy_sum = [0.0; store::MAX_ACTIONS];
                    }
                    let send = if values == Values::Regrets {
                        if change.strategy_sum[..width].iter().any(|&d| d != 0.0) {
                            let mut held = self.deferred[before.slot.index() % SHARDS]
                                .lock()
                                .unwrap_or_else(PoisonError::into_inner);
                            self.defer(&mut held, (before.slot, None), &change, now, width);
                        }
                        before.regrets_moved
                    } else {
                        !is_zero(&change, width)
                    };
                    if !send && seed.is_none() {
                        continue;
                    }
                    let key = match address {
                        Address::Slot => before.slot.index() as Key,
                        Address::Key => self.base.key(before.slot)?,
                    };
                    if let Some(seed) = seed {
                        wire::put_delta(&mut seeds, key, seed, width, Values::Both);
                    }
                    if send {
                        wire::put_delta(&mut changes, key, &change, width, values);
                        sent += 1;
                    }
                }
                Ok((changes, seeds, sent))
            })
            .collect::<Result<Vec<(Vec<u8>, Vec<u8>, u64)>, StoreError>>()?;
        let mut outgoing = wire::open_first_section();
        outgoing.reserve(pieces.iter().map(|(changes, ..)| changes.len()).sum());
        let (mut seeds, mut records_sent) = (Vec::new(), 0);
        for (changes, piece_seeds, sent) in pieces {
            outgoing.extend_from_slice(&changes);
            seeds.extend_from_slice(&piece_seeds);
            records_sent += sent;
        }
        wire::close_first_section(&mut outgoing);
        wire::push_section(&mut outgoing, &seeds);
        let drain_seconds = started.elapsed().as_secs_f64();
        let entries_drained = befores.len() as u64;
        changed.give_back(befores);
        let floor = self.floor;
        let stats = self.exchange_and_apply(
            group,
            &outgoing,
            values,
            address,
            (now, Retire::AtEnd),
            |record, change| {
                add_values(record, change);
                if floor {
                    floor_regrets(&mut record.regrets[..width]);
                }
            },
        )?;
        Ok(SyncStats {
            records_sent,
            drain_seconds,
            entries_drained,
            held_entries: self.deferred(),
            ..stats
        })
    }
}
