//! Several iterations walked at once on each thread, taking turns at their
//! lookups: what they learn, that they stay reproducible, and that each
//! lookup asks for its cache lines before it pauses.

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

/// A memory table that says its lookups take two prefetch rounds, as the
/// mmap store's do, and counts the rounds it is asked for.
#[derive(Default)]
struct Prefetching {
    table: MemoryTable,
    rounds: [AtomicU64; 2],
    lookups: AtomicU64,
}

impl Table for Prefetching {
    fn max_actions(&self) -> usize {
        self.table.max_actions()
    }
    fn slot(&self, key: Key) -> Result<SlotId, StoreError> {
        self.lookups.fetch_add(1, Ordering::Relaxed);
        self.table.slot(key)
    }
    fn find(&self, key: Key) -> Option<SlotId> {
        self.table.find(key)
    }
    fn lookup_stages(&self) -> usize {
        2
    }
    fn prefetch(&self, _key: Key, stage: usize) {
        self.rounds[stage].fetch_add(1, Ordering::Relaxed);
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
    let table = Prefetching::default();
    train(&table, 4, 42, 1, 100_000);
    let tree = Tree::build(&Leduc::new()).unwrap();
    let policy = AveragePolicy::load(&table.table).unwrap();
    let exploitability = exploitability(&tree, &policy).unwrap();
    // The bound the one-walk solver is held to (tests/leduc.rs).
    assert!(exploitability <= 0.07, "exploitability {exploitability}");
}

#[test]
fn every_lookup_asks_for_each_round_before_it_is_answered() {
    let table = Prefetching::default();
    train(&table, 4, 7, 1, 2_000);
    let lookups = table.lookups.load(Ordering::Relaxed);
    assert!(lookups > 0);
    for round in &table.rounds {
        assert_eq!(round.load(Ordering::Relaxed), lookups);
    }
    // One walk a thread does not pause, so it asks for nothing.
    let alone = Prefetching::default();
    train(&alone, 1, 7, 1, 2_000);
    assert!(alone.lookups.load(Ordering::Relaxed) > 0);
    assert_eq!(alone.rounds[0].load(Ordering::Relaxed), 0);
}

#[test]
fn interleaved_walks_on_one_thread_are_reproducible_and_resume_exactly() {
    let run = |halves: bool| {
        let table = Prefetching::default();
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
    let one_walk = Prefetching::default();
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
