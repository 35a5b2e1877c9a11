//! The settle: strategy sums deferred on each rank, added to every
//! replica a round of keys at a time.

use std::sync::PoisonError;
use std::time::Instant;

use rayon::prelude::*;
use store::{Key, Record, StoreError, Table};

use super::apply::Retire;
use super::records::{add_strategy_sums, round_of};
use super::{Address, ROOT, ReplicatedTable, StrategySums, SyncStats, halves, whole};
use crate::distributed::collective::Collective;
use crate::distributed::wire::{self, Values};
use crate::error::CfrError;

impl<'a, T: Table + ?Sized> ReplicatedTable<'a, T> {
    /// Brings every rank's deferred strategy sums, discounted to iteration
    /// `now` (the last sync's), to rank 0, which adds them to its replica:
    /// afterwards it holds the sums it would have held had they travelled
    /// with every sync, up to rounding. Only rank 0 checkpoints, measures
    /// and exports, so only it needs them; the other ranks never read
    /// strategy sums, and theirs go stale. Every rank must call it with the
    /// same `now`; a checkpoint, a curve point or an export must follow it.
    ///
    /// Memory stays flat in the number of ranks: the keys are split into
    /// rounds of about [`SETTLE_ROUND_BYTES`](super::SETTLE_ROUND_BYTES) over all ranks, a rank sends
    /// and drops one round's sums at a time, and rank 0 holds one round's.
    /// Rank 0 catches each record it adds to up to `now`, which discounts
    /// its regrets too; it sends the round's keys to the others, who catch
    /// the same records up, so the replicas' regrets and iteration stamps
    /// stay identical bit for bit. With [`StrategySums::EachSync`] there is
    /// nothing to settle and no rank communicates.
    pub fn settle(&self, group: &dyn Collective, now: u64) -> Result<SyncStats, CfrError> {
        if self.in_flight() {
            return Err(CfrError::Replica(
                "a settle while a sync was in flight: finish the sync first".into(),
            ));
        }
        if self.strategy_sums == StrategySums::EachSync {
            return Ok(SyncStats::default());
        }
        let width = self.base.max_actions();
        let started = Instant::now();
        self.name_held()?;
        let held = self.deferred();
        let everyone_held: u64 = group
            .all_gather(&held.to_le_bytes())?
            .iter()
            .map(|bytes| wire::count(bytes))
            .sum::<Option<u64>>()
            .ok_or_else(|| {
                CfrError::Replica("a rank sent a malformed count of held sums".into())
            })?;
        let entry = wire::delta_bytes(width, Values::StrategySums) as u64;
        let rounds = (everyone_held * entry)
            .div_ceil(self.settle_round_bytes)
            .max(1);
        let mut stats = SyncStats {
            rounds,
            ..SyncStats::default()
        };
        for round in 0..rounds {
            let outgoing = self.take_held(now, |key| round_of(key, rounds) == round);
            stats.records_sent += (outgoing.len() as u64) / entry;
            stats.bytes_sent += outgoing.len() as u64;
            let gathered = group.gather(ROOT, &outgoing)?;
            drop(outgoing);
            let mut keys = Vec::new();
            let round_stats = match gathered {
                Some(everyone) => {
                    let parts: Vec<(&[u8], &[u8])> =
                        everyone.iter().map(|bytes| (&bytes[..], &[][..])).collect();
                    let applied = self.apply_gathered(
                        &parts,
                        group.rank(),
                        Values::StrategySums,
                        Address::Key,
                        (now, Retire::AtEnd),
                        add_strategy_sums,
                    )?;
                    let mut touched: Vec<Key> = everyone
                        .iter()
                        .flat_map(|bytes| wire::delta_keys(bytes, width, Values::StrategySums))
                        .collect();
                    touched.par_sort_unstable();
                    touched.dedup();
                    wire::put_keys(&mut keys, &touched);
                    applied
                }
                None => SyncStats::default(),
            };
            stats.apply_seconds += round_stats.apply_seconds;
            stats.records_applied += round_stats.records_applied;
            let mut received = round_stats.bytes_received;
            group.broadcast(ROOT, &mut keys)?;
            if group.rank() != ROOT {
                received += keys.len() as u64;
                let caught_up = Instant::now();
                let touched = wire::keys(&keys).ok_or_else(|| {
                    CfrError::Replica(format!(
                        "rank 0 sent {} bytes of settled keys, not a whole number of keys",
                        keys.len()
                    ))
                })?;
                stats.records_applied += touched.len() as u64;
                self.catch_up_keys(&touched, now)?;
                stats.apply_seconds += caught_up.elapsed().as_secs_f64();
            }
            stats.bytes_received += received;
            stats.largest_round_bytes = stats.largest_round_bytes.max(received);
        }
        for shard in &self.deferred {
            shard
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .shrink_to_fit();
        }
        stats.exchange_seconds = started.elapsed().as_secs_f64() - stats.apply_seconds;
        Ok(stats)
    }

    /// Reads the keys of the held sums that have none yet (records changed
    /// in place), shard by shard on every core.
    pub(super) fn name_held(&self) -> Result<(), StoreError> {
        self.deferred.par_iter().try_for_each(|shard| {
            let mut shard = shard.lock().unwrap_or_else(PoisonError::into_inner);
            for (&slot, held) in shard.iter_mut() {
                if held.key.is_none() {
                    held.key = Some(halves(self.base.key(slot)?));
                }
            }
            Ok(())
        })
    }

    /// Removes the held sums of the keys `this_round` picks, discounted to
    /// `now`, as wire entries. Every held sum must have its key
    /// ([`Self::name_held`]).
    pub(super) fn take_held(&self, now: u64, this_round: impl Fn(Key) -> bool) -> Vec<u8> {
        let width = self.base.max_actions();
        let mut outgoing = Vec::new();
        for shard in &self.deferred {
            shard
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .retain(|_, held| {
                    let Some(key) = held.key.map(whole) else {
                        return true;
                    };
                    if !this_round(key) {
                        return true;
                    }
                    self.discount_held(held, now);
                    let change = Record {
                        strategy_sum: held.sums,
                        ..Record::default()
                    };
                    wire::put_delta(&mut outgoing, key, &change, width, Values::StrategySums);
                    false
                });
        }
        outgoing
    }

    /// Catches the records of `keys` up to `now`, as rank 0 did when it
    /// added their sums.
    pub(super) fn catch_up_keys(&self, keys: &[Key], now: u64) -> Result<(), StoreError> {
        let discounter = &self.discounter;
        keys.par_iter().try_for_each(|&key| {
            let slot = self.base.slot(key)?;
            self.base
                .update(slot, &mut |record| discounter.catch_up(record, now))
        })
    }
}
