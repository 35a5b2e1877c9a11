//! Tables that live in a directory and survive restarts.

use crate::error::StoreError;
use crate::table::Table;

/// A [`Table`] backed by files. Everything updated before `checkpoint`
/// returns is on disk when it returns; a crash afterwards loses only what
/// came later.
pub trait DurableTable: Table {
    /// Makes every update so far durable, together with `client_state`: an
    /// opaque string (the trainer's iteration count and settings) that
    /// [`Self::committed_state`] returns after a reopen. Both commit in one
    /// atomic step, so they can never disagree.
    fn checkpoint(&self, client_state: &str) -> Result<(), StoreError>;

    /// The `client_state` of the last checkpoint; empty before the first.
    fn committed_state(&self) -> String;

    /// Bytes the store occupies on disk now.
    fn disk_bytes(&self) -> u64;
}
