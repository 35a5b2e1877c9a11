//! Tables that live in a directory and survive restarts.

use crate::client_state::ClientState;
use crate::error::StoreError;
use crate::table::Table;
use crate::verify::Verification;

/// A [`Table`] backed by files. Everything updated before `checkpoint`
/// returns is on disk when it returns; a crash afterwards loses only what
/// came later.
pub trait DurableTable: Table {
    /// Makes every update so far durable, together with `state`: the
    /// caller's progress (the trainer's iteration count), which
    /// [`Self::committed_state`] returns after a reopen. Both commit in one
    /// atomic step, so they can never disagree.
    fn checkpoint(&self, state: &ClientState) -> Result<(), StoreError>;

    /// The state of the last checkpoint; [`ClientState::NONE`] before the first.
    fn committed_state(&self) -> ClientState;

    /// Bytes the store occupies on disk now.
    fn disk_bytes(&self) -> u64;

    /// What opening the store checked against its last checkpoint's
    /// lengths and checksums, and how long that took.
    fn verification(&self) -> Verification;
}
