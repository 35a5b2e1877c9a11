//! Storage for CFR tables: fixed-size records addressed by infostate key.
//!
//! This crate knows nothing of euchre and runs no CFR algorithm. Its record
//! is shaped for CFR, because that is what makes it fixed-size plain data:
//! a [`Record`] holds regrets and strategy sums padded to a fixed width,
//! plus the iteration of the last update (for lazy discounting). The store
//! owns that shape; the solver owns what the numbers mean.
//!
//! A [`Table`] maps 128-bit keys to dense slot ids, and each slot holds one
//! record. Many threads read and update records at once; each update is
//! atomic for its record, and no lock is ever held across more than one
//! slot. Every read and update returns a `Result`: a disk backend that
//! cannot read a record says so, and never hands out a fresh one instead.
//!
//! Backends:
//! - [`MemoryTable`]: the reference backend that the solver's tests use,
//!   and [`SnapshotTable`], the same made durable by snapshot files;
//! - [`LmdbTable`] (feature `lmdb`): LMDB through heed, with a bounded
//!   write-back cache;
//! - [`MmapTable`] (feature `mmap`): a minimal perfect hash over a fixed
//!   key universe and a memory-mapped file that may exceed RAM.
//!
//! The durable ones ([`DurableTable`]) live in a locked directory whose
//! manifest names the backend, the record layout and the key universe, and
//! checkpoint the records together with the caller's [`ClientState`].

mod client_state;
mod dir;
mod durable;
mod error;
#[cfg(feature = "mmap")]
mod held_pages;
mod index;
mod layout;
#[cfg(feature = "lmdb")]
mod lmdb;
mod memory;
#[cfg(feature = "mmap")]
mod mmap;
mod power_loss;
#[cfg(all(test, feature = "lmdb", feature = "mmap"))]
mod power_loss_tests;
mod record;
mod regular_file;
mod snapshot;
pub mod stamp;
mod table;
#[cfg(feature = "mmap")]
mod undo;
mod usable_memory;
mod verify;

pub use client_state::ClientState;
pub use dir::{
    Backend, FORMAT_VERSION, Fingerprint, MANIFEST_FILE, Manifest, StoreDir, UnknownBackend,
    check_writable, classify_write_error, is_writable, write_atomically,
};
pub use durable::DurableTable;
pub use error::StoreError;
#[cfg(feature = "mmap")]
pub use held_pages::Writeback;
pub use layout::{
    KEY_BYTES, MEMORY_INDEX_BYTES_PER_KEY, PHF_BITS_PER_KEY_MAX, RecordEncoding, RecordLayout,
    WidthError,
};
#[cfg(feature = "lmdb")]
pub use lmdb::LmdbTable;
pub use memory::MemoryTable;
#[cfg(feature = "mmap")]
pub use mmap::{KEYS_FILE, KeyUniverse, MmapTable, PHF_FILE, RECORDS_FILE, Skeleton};
pub use record::{MAX_ACTIONS, Record};
pub use regular_file::{
    Links, RegularFileError, kind_of, open_regular, open_regular_with, read_bounded,
    read_bounded_with, read_text_bounded, read_text_bounded_with,
};
pub use snapshot::SnapshotTable;
pub use table::{ExactRecords, Key, SlotId, StoredRecord, Table};
pub use usable_memory::usable_memory;
pub use verify::{Checksum, Verification, Verify};
