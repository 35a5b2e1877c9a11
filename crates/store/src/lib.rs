//! Storage for CFR tables: fixed-size records addressed by infostate key.
//!
//! This crate knows nothing of euchre or of CFR algorithms. A [`Table`]
//! maps 128-bit keys to dense slot ids, and each slot holds one
//! [`Record`]: regrets and strategy sums padded to a fixed width, plus the
//! iteration of the last update (for lazy discounting). Many threads read
//! and update records at once; each update is atomic for its record, and no
//! lock is ever held across more than one slot.
//!
//! [`MemoryTable`] is the reference backend that the solver's tests use.

pub mod dir;
pub mod durable;
pub mod error;
mod index;
pub mod layout;
pub mod lmdb;
pub mod memory;
pub mod mmap;
pub mod record;
pub mod snapshot;
pub mod table;
mod undo;

pub use dir::{Backend, Fingerprint, Manifest, StoreDir};
pub use durable::DurableTable;
pub use error::StoreError;
pub use layout::{RecordEncoding, RecordLayout};
pub use lmdb::LmdbTable;
pub use memory::MemoryTable;
pub use mmap::{KeyUniverse, MmapTable};
pub use record::{MAX_ACTIONS, Record};
pub use snapshot::SnapshotTable;
pub use table::{Key, SlotId, Table};
