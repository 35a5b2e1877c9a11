//! Applying what the ranks exchanged: the sums gathered per key in rank
//! order, and the arithmetic of a record's changes.

use std::sync::PoisonError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use store::{ExactRecords, Key, Record, SlotId, StoreError, Table};

use super::{Address, ReplicatedTable, SHARDS, SyncStats};
use crate::discount::Discounter;
use crate::distributed::collective::Collective;
use crate::distributed::in_place::{Before, ChangedRecords};
use crate::distributed::wire::{self, Values};
use crate::error::CfrError;

impl<'a, T: Table + ?Sized> ReplicatedTable<'a, T> {
    /// The slot a received entry names: by its key, or by its slot number
    /// on a shared layout, which must be inside this table.
    pub(super) fn slot_named(&self, name: Key, address: Address) -> Result<SlotId, CfrError> {
        match address {
            Address::Key => Ok(self.base.slot(name)?),
            Address::Slot if name < Key::from(self.base.len()) => Ok(SlotId::at(name as u64)),
            Address::Slot => Err(CfrError::Replica(format!(
                "a rank named record {name}, past this table's {} records: do all ranks share \
                 rank 0's store skeleton?",
                self.base.len()
            ))),
        }
    }

    /// All-gathers `sent` (a sync's changes and seeds, in sections), sums
    /// every rank's entries per key in rank order (every rank adds the same
    /// floats in the same order), and applies each sum with `apply`, after
    /// catching the record up to iteration `now`; `retire` says when this
    /// rank's own changes in flight leave its reads.
    pub(super) fn exchange_and_apply(
        &self,
        group: &dyn Collective,
        sent: &[u8],
        values: Values,
        address: Address,
        (now, retire): (u64, Retire),
        apply: impl Fn(&mut Record, &Record) + Sync,
    ) -> Result<SyncStats, CfrError> {
        let started = Instant::now();
        let everyone = group.all_gather(sent)?;
        let exchanged = Instant::now();
        let parts = everyone
            .iter()
            .enumerate()
            .map(|(rank, bytes)| {
                wire::split_sections(bytes)
                    .and_then(|parts| <[&[u8]; 2]>::try_from(parts).ok())
                    .map(|[changes, seeds]| (changes, seeds))
                    .ok_or_else(|| {
                        CfrError::Replica(format!(
                            "rank {rank} sent {} bytes that are not a sync's changes and seeds: \
                             is every rank running the same trainer?",
                            bytes.len()
                        ))
                    })
            })
            .collect::<Result<Vec<_>, CfrError>>()?;
        let applied =
            self.apply_gathered(&parts, group.rank(), values, address, (now, retire), apply)?;
        Ok(SyncStats {
            bytes_sent: sent.len() as u64,
            exchange_seconds: (exchanged - started).as_secs_f64(),
            ..applied
        })
    }

    /// Sums the entries of `everyone` (every rank's, in rank order) per
    /// key in rank order, and applies each sum with `apply` after catching
    /// the record up to iteration `now`. `me` is this rank, whose own bytes
    /// do not count as received; with [`Retire::EachRecord`] its changes in
    /// flight to a record leave with the record's apply, under the lock
    /// its reads take first.
    pub(super) fn apply_gathered(
        &self,
        everyone: &[(&[u8], &[u8])],
        me: usize,
        values: Values,
        address: Address,
        (now, retire): (u64, Retire),
        apply: impl Fn(&mut Record, &Record) + Sync,
    ) -> Result<SyncStats, CfrError> {
        let width = self.base.max_actions();
        let started = Instant::now();
        // Every rank's entries, each tagged with its rank and its place in
        // that rank's list, then sorted by slot and tag: a record's entries
        // come together in rank order, so every rank adds the same floats in
        // the same order, and the whole apply runs on every core (a map
        // summing the entries was serial, and at a large cluster's unions of
        // millions of records it would be most of the sync). Slot order also
        // walks a disk store's pages in file order. A rank's seeds follow
        // its changes, tagged apart, and only the first rank's counts.
        let mut entries: Vec<(Key, u64, Record)> = Vec::new();
        for (rank, &(changes, seeds)) in everyone.iter().enumerate() {
            let rank_tag = (rank as u64) << 40;
            for (bytes, values, tag) in [
                (changes, values, rank_tag),
                (seeds, Values::Both, rank_tag | SEED),
            ] {
                let decoded = wire::deltas(bytes, width, values).ok_or_else(|| {
                    CfrError::Replica(format!(
                        "rank {rank} sent {} bytes of changes, not a whole number of {}-byte \
                         entries: is every rank running the same trainer with the same flags?",
                        bytes.len(),
                        wire::delta_bytes(width, values)
                    ))
                })?;
                entries.extend(
                    decoded
                        .into_iter()
                        .enumerate()
                        .map(|(place, (key, change))| (key, tag | place as u64, change)),
                );
            }
        }
        let mut entries = entries
            .into_par_iter()
            .map(|(key, tag, change)| Ok((self.slot_named(key, address)?, tag, change)))
            .collect::<Result<Vec<(SlotId, u64, Record)>, CfrError>>()?;
        entries.par_sort_unstable_by_key(|&(slot, tag, _)| (slot, tag));
        let records_applied = AtomicU64::new(0);
        let discounter = &self.discounter;
        entries
            .par_chunk_by(|a, b| a.0 == b.0)
            .try_for_each(|same_record| {
                // The sum with the first seed, for a record still fresh, and
                // without: with syncs beside training, a record seeded in
                // the last sync may be seeded again by a rank that met it
                // before that sync's apply, and it is seeded once.
                let (mut sum, mut unseeded) = (Record::default(), Record::default());
                let mut seeded = false;
                for (_, tag, change) in same_record {
                    if tag & SEED != 0 {
                        if seeded {
                            continue;
                        }
                        seeded = true;
                    } else {
                        add_values(&mut unseeded, change);
                    }
                    add_values(&mut sum, change);
                }
                records_applied.fetch_add(1, Ordering::Relaxed);
                let slot = same_record[0].0;
                let in_flight = match retire {
                    Retire::EachRecord => Some(
                        self.in_flight[slot.index() % SHARDS]
                            .lock()
                            .unwrap_or_else(PoisonError::into_inner),
                    ),
                    Retire::AtEnd => None,
                };
                self.base.update(slot, &mut |record| {
                    let fresh = record.stamp == 0;
                    discounter.catch_up(record, now);
                    apply(record, if fresh { &sum } else { &unseeded });
                })?;
                if let Some(mut in_flight) = in_flight {
                    in_flight.remove(&slot);
                }
                Ok::<(), StoreError>(())
            })?;
        let bytes_received = everyone
            .iter()
            .enumerate()
            .filter(|&(rank, _)| rank != me)
            .map(|(_, (changes, seeds))| (changes.len() + seeds.len()) as u64)
            .sum();
        Ok(SyncStats {
            bytes_received,
            records_applied: records_applied.into_inner(),
            apply_seconds: started.elapsed().as_secs_f64(),
            ..SyncStats::default()
        })
    }
}

/// When a rank's changes in flight leave its reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Retire {
    /// Each with its record's apply: the next epoch trains meanwhile.
    EachRecord,
    /// All at the end of the sync: nothing reads meanwhile.
    AtEnd,
}

/// The tag bit of a seed's entry in a sync: below the rank's bits, above
/// any place in a rank's list.
const SEED: u64 = 1 << 39;

/// Whether the first `width` regrets and sums of `record` are all zero.
pub(super) fn is_zero(record: &Record, width: usize) -> bool {
    record.regrets[..width]
        .iter()
        .chain(&record.strategy_sum[..width])
        .all(|&value| value == 0.0)
}

/// Which of `rounds` rounds of a settle carries `key`: by a hash, so a
/// round's share is even whatever the keys' structure.
pub(super) fn round_of(key: Key, rounds: u64) -> u64 {
    crate::distributed::digest::mix(
        key as u64 ^ crate::distributed::digest::mix((key >> 64) as u64),
    ) % rounds
}

/// Adds `after - before`, value by value, to `sum`.
pub(super) fn add_difference(sum: &mut Record, after: &Record, before: &Record) {
    for (sum, (a, b)) in sum
        .regrets
        .iter_mut()
        .zip(after.regrets.iter().zip(&before.regrets))
    {
        *sum += a - b;
    }
    for (sum, (a, b)) in sum
        .strategy_sum
        .iter_mut()
        .zip(after.strategy_sum.iter().zip(&before.strategy_sum))
    {
        *sum += a - b;
    }
}

/// Adds the sums alone: adding a zero regret would turn a regret of -0.0
/// into +0.0 on rank 0 alone, and the replicas' bits apart.
pub(super) fn add_strategy_sums(record: &mut Record, change: &Record) {
    for (value, delta) in record.strategy_sum.iter_mut().zip(&change.strategy_sum) {
        *value += delta;
    }
}

pub(super) fn add_values(record: &mut Record, change: &Record) {
    for (value, delta) in record.regrets.iter_mut().zip(&change.regrets) {
        *value += delta;
    }
    for (value, delta) in record.strategy_sum.iter_mut().zip(&change.strategy_sum) {
        *value += delta;
    }
}

/// One update of a replica training in place: applied to the record
/// itself, as one process applies it, with a copy of the record as stored
/// noted first if this is the epoch's first change to it. Which update is
/// first is settled under the record's own lock; the copy is taken before
/// that lock (a backend's records are copied under their own), which is
/// sound because every change goes through here: until the first update
/// holds the lock, nothing has changed the record since the sync. Until
/// updates of the epoch have moved both the record's regrets and its
/// strategy sums, each update is checked for what it moved (against the
/// record caught up). A fresh
/// record is seeded as [`ReplicatedTable`]'s buffered updates seed it: the
/// update runs on a twin that is not fresh first, so the seed is told
/// apart, and `change` runs last on the record kept.
pub(super) fn update_in_place<T: Table + ?Sized>(
    (base, discounter): (&T, &Discounter),
    (changed, exact): (&ChangedRecords, &dyn ExactRecords),
    slot: SlotId,
    change: &mut dyn FnMut(&mut Record),
) -> Result<(), StoreError> {
    if changed.regrets_moved.is_set(slot) && changed.sums_moved.is_set(slot) {
        return base.update(slot, change);
    }
    let noted_before = changed.bits.is_set(slot);
    let stored = if noted_before {
        None
    } else {
        Some(exact.stored(slot)?)
    };
    let mut first = None;
    let mut bits = Ok(());
    let updated = base.update(slot, &mut |record| {
        let is_first = match changed.bits.set(slot) {
            Ok(is_first) => is_first,
            Err(error) => {
                bits = Err(error);
                return;
            }
        };
        let before = *record;
        let unseeded = (is_first && record.stamp == 0).then(|| {
            let mut twin = *record;
            twin.stamp = store::stamp::NEVER_DISCOUNTED;
            change(&mut twin);
            twin
        });
        change(record);
        // The twin's regrets, unseeded, say what the update itself did.
        let updated = unseeded.as_ref().unwrap_or(record);
        let mut caught_up = before;
        discounter.catch_up(&mut caught_up, store::stamp::decode(record.stamp));
        for (moved, flag) in [
            (caught_up.regrets != updated.regrets, &changed.regrets_moved),
            (
                caught_up.strategy_sum != updated.strategy_sum,
                &changed.sums_moved,
            ),
        ] {
            if moved && let Err(error) = flag.set(slot) {
                bits = Err(error);
            }
        }
        if let (true, Some(stored)) = (is_first, stored) {
            let seed = unseeded.map(|unseeded| {
                let mut seed = Box::<Record>::default();
                add_difference(&mut seed, record, &unseeded);
                seed
            });
            first = Some(Before {
                slot,
                stored,
                regrets_moved: false,
                sums_moved: false,
                seed,
            });
        }
    });
    // Noted even if the backend failed after the change: the sync then
    // puts the record back as it was, whatever the backend kept.
    if let Some(first) = first {
        changed.push(first);
    }
    bits?;
    updated
}
