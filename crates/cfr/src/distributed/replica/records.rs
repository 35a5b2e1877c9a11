//! A record's arithmetic in a sync: the changes of an epoch, their sums,
//! and an update on a replica trained in place. Nothing here knows the
//! replicated table, so that each of its parts may use it.

use store::{ExactRecords, Key, Record, SlotId, StoreError, Table};

use crate::discount::Discounter;
use crate::distributed::in_place::{Before, ChangedRecords};

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
