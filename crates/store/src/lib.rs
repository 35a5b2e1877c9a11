//! Storage for CFR tables: fixed-size records addressed by infostate key.
//!
//! This crate knows nothing of euchre or of CFR. So far it defines the
//! record layouts and their size arithmetic; the backends (memory, LMDB,
//! mmap + perfect hash) build on them.

pub mod layout;

pub use layout::{RecordEncoding, RecordLayout};
