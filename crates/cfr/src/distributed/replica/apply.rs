//! Applying what the ranks exchanged: the sums gathered per key in rank
//! order, and the arithmetic of a record's changes.

use std::sync::PoisonError;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use store::{Key, Record, SlotId, StoreError, Table};

use super::records::add_values;
use super::{Address, ReplicatedTable, SHARDS, SyncStats};
use crate::distributed::collective::Collective;
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
        // its changes, tagged apart, and only the first rank's counts. The
        // sections are checked whole first, then every entry is decoded and
        // named by its slot on every core (decoding them all on one thread
        // first was the apply's serial part).
        let mut sections = Vec::with_capacity(2 * everyone.len());
        for (rank, &(changes, seeds)) in everyone.iter().enumerate() {
            let rank_tag = (rank as u64) << 40;
            for (bytes, values, tag) in [
                (changes, values, rank_tag),
                (seeds, Values::Both, rank_tag | SEED),
            ] {
                let size = wire::delta_bytes(width, values);
                if !bytes.len().is_multiple_of(size) {
                    return Err(CfrError::Replica(format!(
                        "rank {rank} sent {} bytes of changes, not a whole number of {size}-byte \
                         entries: is every rank running the same trainer with the same flags?",
                        bytes.len(),
                    )));
                }
                sections.push((bytes, size, values, tag));
            }
        }
        let mut entries = sections
            .into_par_iter()
            .flat_map(|(bytes, size, values, tag)| {
                bytes
                    .par_chunks_exact(size)
                    .enumerate()
                    .map(move |(place, entry)| {
                        (wire::delta(entry, width, values), tag | place as u64)
                    })
            })
            .map(|((key, change), tag)| Ok((self.slot_named(key, address)?, tag, change)))
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
