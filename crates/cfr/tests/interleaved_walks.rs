//! Several iterations walked at once on each thread, taking turns at their
//! lookups: what they learn, that they stay reproducible, and that every
//! lookup pauses at each of its rounds of misses.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use cfr::CfrError;
use cfr::Schedule;
use cfr::best_response::exploitability;
use cfr::games::leduc::Leduc;
use cfr::mccfr::{ExternalSampling, MAX_WALKS_PER_THREAD};
use cfr::policy::AveragePolicy;
use cfr::tree::Tree;
use common::record_bits;
use store::{Key, MemoryTable, Record, SlotId, StoreError, Table};

/// A memory table whose lookups say they miss the cache in two rounds, as
/// the mmap store's do, and that counts how it is asked.
#[derive(Default)]
struct Pausing {
    table: MemoryTable,
    /// Calls of `slot` and of `slots`.
    plain_lookups: AtomicU64,
    /// Calls of `slots_taking_turns`, and the pauses they made.
    turn_lookups: AtomicU64,
    pauses: AtomicU64,
}

impl Table for Pausing {
    fn max_actions(&self) -> usize {
        self.table.max_actions()
    }
    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.plain_lookups.fetch_add(1, Ordering::Relaxed);
        self.table.slot(key)
    }
    fn slots(&self, keys: &[Key], slots: &mut [Option<SlotId>]) -> Result<(), StoreError> {
        self.plain_lookups.fetch_add(1, Ordering::Relaxed);
        self.table.slots(keys, slots)
    }
    fn find(&self, key: Key) -> Option<SlotId> {
        self.table.find(key)
    }
    fn lookup_rounds(&self) -> usize {
        2
    }
    fn slots_taking_turns(
        &self,
        keys: &[Key],
        slots: &mut [Option<SlotId>],
        pause: &mut dyn FnMut(),
    ) -> Result<(), StoreError> {
        self.turn_lookups.fetch_add(1, Ordering::Relaxed);
        for _ in 0..self.lookup_rounds() {
            self.pauses.fetch_add(1, Ordering::Relaxed);
            pause();
        }
        self.table.slots(keys, slots)
    }
    fn read(&self, slot: SlotId) -> Result<Record, StoreError> {
        self.table.read(slot)
    }
    fn update(&self, slot: SlotId, change: &mut dyn FnMut(&mut Record)) -> Result<(), StoreError> {
        self.table.update(slot, change)
    }
    fn key(&self, slot: SlotId) -> Result<Key, StoreError> {
        self.table.key(slot)
    }
    fn len(&self) -> u64 {
        self.table.len()
    }
    fn for_each(&self, visit: &mut dyn FnMut(Key, &Record)) -> Result<(), StoreError> {
        self.table.for_each(visit)
    }
}

fn train(table: &impl Table, walks: usize, seed: u64, first: u64, count: u64) {
    ExternalSampling::new(Leduc::new(), table, Schedule::VANILLA, seed, 1)
        .unwrap()
        .with_walks_per_thread(walks)
        .unwrap()
        .run(first, count)
        .unwrap();
}

#[test]
fn interleaved_walks_converge_on_leduc_as_one_walk_does() {
    let table = Pausing::default();
    train(&table, 4, 42, 1, 100_000);
    let tree = Tree::build(&Leduc::new()).unwrap();
    let policy = AveragePolicy::load(&table.table).unwrap();
    let exploitability = exploitability(&tree, &policy).unwrap();
    // The bound the one-walk solver is held to (tests/leduc.rs).
    assert!(exploitability <= 0.07, "exploitability {exploitability}");
}

#[test]
fn every_lookup_pauses_at_each_round_where_walks_share_the_thread() {
    let table = Pausing::default();
    train(&table, 4, 7, 1, 2_000);
    let lookups = table.turn_lookups.load(Ordering::Relaxed);
    assert!(lookups > 0);
    assert_eq!(table.plain_lookups.load(Ordering::Relaxed), 0);
    assert_eq!(table.pauses.load(Ordering::Relaxed), 2 * lookups);
    // One walk a thread has no one to give its turn to.
    let alone = Pausing::default();
    train(&alone, 1, 7, 1, 2_000);
    assert!(alone.plain_lookups.load(Ordering::Relaxed) > 0);
    assert_eq!(alone.turn_lookups.load(Ordering::Relaxed), 0);
}

#[test]
fn interleaved_walks_on_one_thread_are_reproducible_and_resume_exactly() {
    let run = |halves: bool| {
        let table = Pausing::default();
        if halves {
            // A restart after a whole number of the thread's runs of
            // iterations (64 at 4 walks) continues the same turns.
            train(&table, 4, 5, 1, 2_048);
            train(&table, 4, 5, 2_049, 2_048);
        } else {
            train(&table, 4, 5, 1, 4_096);
        }
        record_bits(&table.table)
    };
    let once = run(false);
    assert_eq!(once, run(false));
    assert_eq!(once, run(true));
    // And the turns do change the order of the updates.
    let one_walk = Pausing::default();
    train(&one_walk, 1, 5, 1, 4_096);
    assert_ne!(once, record_bits(&one_walk.table));
}

#[test]
fn a_table_whose_lookups_do_not_miss_walks_in_order_whatever_the_width() {
    // The memory table asks for no prefetch rounds, so no walk pauses and
    // four open walks run one after another: the same updates as one.
    let (four, one) = (MemoryTable::new(), MemoryTable::new());
    train(&four, 4, 3, 1, 3_000);
    train(&one, 1, 3, 1, 3_000);
    assert_eq!(record_bits(&four), record_bits(&one));
}

#[test]
fn walks_per_thread_outside_its_range_is_refused_with_the_range() {
    let table = MemoryTable::new();
    for walks in [0, MAX_WALKS_PER_THREAD + 1] {
        let error = ExternalSampling::new(Leduc::new(), &table, Schedule::VANILLA, 1, 1)
            .unwrap()
            .with_walks_per_thread(walks)
            .unwrap_err();
        assert!(matches!(error, CfrError::WalksPerThread(w) if w == walks));
        assert!(
            error
                .to_string()
                .contains(&format!("1 to {MAX_WALKS_PER_THREAD}"))
        );
    }
}
