//! Which way the mmap store writes its changes (see [`store::Writeback`]),
//! when the user leaves it to the trainer.
//!
//! Holding changes until checkpoints saves the disk from rewriting the
//! records file many times a minute and the training threads from the page
//! faults that go with it, but the whole records file stays resident. So it is
//! chosen when the whole records file fits in half the memory this
//! process may use (the machine's, or its cgroup's limit if lower), and
//! the kernel's continuous writeback otherwise, which lets the file exceed
//! RAM.

use serde::{Deserialize, Serialize};
use store::Writeback;

/// The setting as users give it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
pub enum MmapWriteback {
    /// At checkpoints when the records file fits in half the memory,
    /// continuous otherwise.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Changes held in memory and written at checkpoints.
    #[serde(rename = "at-checkpoint")]
    AtCheckpoint,
    /// The kernel writes changes back as it likes (files larger than RAM).
    #[serde(rename = "continuous")]
    Continuous,
}

impl MmapWriteback {
    /// The way to use for a records file of `file_bytes`, and why.
    pub fn resolve(self, file_bytes: u64) -> (Writeback, String) {
        match self {
            MmapWriteback::AtCheckpoint => (Writeback::AtCheckpoint, "as asked".to_owned()),
            MmapWriteback::Continuous => (Writeback::Continuous, "as asked".to_owned()),
            MmapWriteback::Auto => match store::usable_memory() {
                Some(memory) => choose(file_bytes, memory),
                None => (
                    Writeback::Continuous,
                    "this machine's memory is unknown".to_owned(),
                ),
            },
        }
    }
}

/// The automatic choice for a records file of `file_bytes` with `memory`
/// bytes usable.
fn choose(file_bytes: u64, memory: u64) -> (Writeback, String) {
    let gib = |bytes: u64| bytes as f64 / f64::from(1u32 << 30);
    if file_bytes <= memory / 2 {
        (
            Writeback::AtCheckpoint,
            format!(
                "the {:.1} GiB records file fits in half of {:.1} GiB of memory",
                gib(file_bytes),
                gib(memory)
            ),
        )
    } else {
        (
            Writeback::Continuous,
            format!(
                "the {:.1} GiB records file is more than half of {:.1} GiB of memory",
                gib(file_bytes),
                gib(memory)
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_changes_need_the_file_to_fit_in_half_the_memory() {
        const GIB: u64 = 1 << 30;
        let (laptop, why) = choose(2 * GIB, 16 * GIB);
        assert_eq!(laptop, Writeback::AtCheckpoint);
        assert!(why.contains("2.0 GiB records file fits"), "{why}");
        let (enriched, why) = choose(18 * GIB, 16 * GIB);
        assert_eq!(enriched, Writeback::Continuous);
        assert!(why.contains("more than half"), "{why}");
        assert_eq!(choose(9 * GIB, 16 * GIB).0, Writeback::Continuous);
        assert_eq!(
            MmapWriteback::Continuous.resolve(1).0,
            Writeback::Continuous
        );
        assert_eq!(
            MmapWriteback::AtCheckpoint.resolve(u64::MAX).0,
            Writeback::AtCheckpoint
        );
    }
}
