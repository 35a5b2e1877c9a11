//! A fixed bidding strategy that a card-play run trains under.
//!
//! Full play learns its bids against its own card play. Early in a run that
//! card play is weak on both sides, so bold bids pay in self-play, and the
//! policy learns to bid far more than a side that defends well lets it get
//! away with (the 65-minute run of
//! `docs/experiments/full-play-trained-bids.md` made trump in 75% of hands
//! and was euchred in 41%). The bidding phase, valued by open-hand leaves,
//! converges in minutes to bids that hold up against good defence. A run
//! given such a policy with `--bidding-from FILE` plays every bidding
//! decision from it, as a chance node the solver samples and never stores,
//! and spends its whole budget on card play. Its exported policy carries
//! the blueprint's bids, so it plays a whole hand alone.

use std::path::{Path, PathBuf};

use euchre_game::engine::rules::Rules;
use store::Key;
use thiserror::Error;

use crate::meta::{BidChoice, BlueprintSource};
use crate::pinned::{Pinned, PinnedError};
use crate::policy_file::{FixedBids, PolicyFile, is_bidding_key, most_likely};

/// Why a blueprint cannot be used. Each message names the file and what
/// to do about it.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BlueprintError {
    #[error(transparent)]
    Pinned(#[from] PinnedError),
    #[error(
        "the bidding blueprint {} holds no bidding decisions; export a policy of a bidding run (`trainer train --phase bidding --export`)",
        path.display()
    )]
    NoBids { path: PathBuf },
}

/// What a run uses a blueprint as, in messages about it.
const ROLE: &str = "bidding blueprint";

/// A loaded bidding blueprint: only its bidding decisions are ever read.
#[derive(Debug)]
pub struct BiddingBlueprint {
    source: BlueprintSource,
    policy: PolicyFile,
}

impl BiddingBlueprint {
    /// Loads a blueprint for a new run under `rules`, drawing bids by
    /// `choice`.
    pub fn load(
        path: &Path,
        rules: Rules,
        choice: BidChoice,
    ) -> Result<BiddingBlueprint, BlueprintError> {
        BiddingBlueprint::from_pinned(Pinned::open(path, rules, ROLE)?, choice)
    }

    /// Loads the blueprint a run was started with, refusing a file that has
    /// changed since: card play trained under one set of bids must not go
    /// on under another.
    pub fn reopen(
        source: &BlueprintSource,
        rules: Rules,
    ) -> Result<BiddingBlueprint, BlueprintError> {
        let pinned = Pinned::reopen(&source.path, source.checksum, rules, ROLE)?;
        BiddingBlueprint::from_pinned(pinned, source.choice)
    }

    fn from_pinned(pinned: Pinned, choice: BidChoice) -> Result<BiddingBlueprint, BlueprintError> {
        let Pinned { path, policy } = pinned;
        if !policy.entries().any(|(key, _)| is_bidding_key(key)) {
            return Err(BlueprintError::NoBids { path });
        }
        Ok(BiddingBlueprint {
            source: BlueprintSource {
                path,
                checksum: policy.checksum(),
                iterations: policy.meta.iterations,
                choice,
            },
            policy,
        })
    }

    pub fn source(&self) -> &BlueprintSource {
        &self.source
    }

    /// Fills `out` with the run's bid at `key`: the average, or all weight
    /// on its most likely bid. Uniform where the blueprint has none (a
    /// bidding key its training never averaged).
    pub fn probabilities(&self, key: Key, out: &mut [f64]) {
        if self.policy.probabilities(key, out) && self.source.choice == BidChoice::Argmax {
            let best = most_likely(out);
            out.fill(0.0);
            out[best] = 1.0;
        }
    }

    /// These bids as an export writes them in place of a table's.
    pub fn fixed_bids(&self) -> FixedBids<'_> {
        FixedBids {
            source: &self.source,
            rows: self.bids().collect(),
        }
    }

    /// The run's bidding entries, in key order, each row scaled to 65535
    /// as in the policy file: the blueprint's rows, or with argmax bids a
    /// row with all weight on the most likely bid.
    pub fn bids(&self) -> impl Iterator<Item = (Key, Vec<u16>)> {
        self.policy
            .entries()
            .filter(|&(key, _)| is_bidding_key(key))
            .map(|(key, row)| match self.source.choice {
                BidChoice::Average => (key, row.to_vec()),
                BidChoice::Argmax => {
                    let weights: Vec<f64> = row.iter().map(|&p| f64::from(p)).collect();
                    let mut one_hot = vec![0u16; row.len()];
                    one_hot[most_likely(&weights)] = u16::MAX;
                    (key, one_hot)
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use store::Table as _;

    use super::*;
    use crate::meta::PolicyMeta;
    use crate::policy_file::export;

    #[test]
    fn argmax_bids_put_all_weight_on_the_most_likely_bid() {
        // A round-1 key (its top byte is the round-1 tag) and a card play.
        let bid: Key = 1 << 120 | 5;
        let card: Key = 5 << 120 | 9;
        let table = store::MemoryTable::new();
        for key in [bid, card] {
            let slot = table.slot(key).unwrap();
            table
                .update(slot, &mut |record| {
                    record.strategy_sum[..2].copy_from_slice(&[1.0, 3.0]);
                })
                .unwrap();
        }
        let path =
            std::env::temp_dir().join(format!("blueprint-argmax-{}.bin", std::process::id()));
        let meta = PolicyMeta::new(crate::phase::Phase::Bidding, Rules::default(), 4);
        export(&table, &meta, 2, None, &path, &mut |_, _| {}).unwrap();
        let mut out = [0.0; 2];
        let average = BiddingBlueprint::load(&path, Rules::default(), BidChoice::Average).unwrap();
        average.probabilities(bid, &mut out);
        assert!(
            (out[0] - 0.25).abs() < 1e-4 && (out[1] - 0.75).abs() < 1e-4,
            "{out:?}"
        );
        assert_eq!(average.bids().count(), 1, "card plays are not bids");
        let argmax = BiddingBlueprint::load(&path, Rules::default(), BidChoice::Argmax).unwrap();
        argmax.probabilities(bid, &mut out);
        assert_eq!(out, [0.0, 1.0]);
        assert_eq!(
            argmax.bids().collect::<Vec<_>>(),
            vec![(bid, vec![0, u16::MAX])]
        );
        // A key the blueprint never averaged stays uniform either way.
        argmax.probabilities(bid + 1, &mut out);
        assert_eq!(out, [0.5, 0.5]);
        std::fs::remove_file(&path).ok();
    }

    #[test]
    fn a_source_saved_before_the_choice_existed_drew_from_the_average() {
        let saved = r#"{"path":"/runs/bidding/policy.bin","checksum":1,"iterations":2}"#;
        let source: BlueprintSource = serde_json::from_str(saved).unwrap();
        assert_eq!(source.choice, BidChoice::Average);
    }
}
