//! Tables that live in a directory and survive restarts.

use crate::error::StoreError;
use crate::table::Table;

/// A [`Table`] backed by files. Everything updated before `checkpoint`
/// returns is on disk when it returns; a crash afterwards loses only what
/// came later.
pub trait DurableTable: Table {
    fn checkpoint(&self) -> Result<(), StoreError>;

    /// Bytes the store occupies on disk now.
    fn disk_bytes(&self) -> u64;
}
