//! What can go wrong with a store, in words that say how to fix it.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error(
        "the table is full: it holds {capacity} records; raise the capacity or use a backend that grows"
    )]
    Full { capacity: u64 },
    #[error("key {key:#034x} is not in this table's key universe")]
    UnknownKey { key: u128 },
    #[error("records hold at most {max} actions; {requested} were asked for")]
    TooManyActions { requested: usize, max: usize },
}
