//! A run's identity: what is fixed when it starts and checked on every
//! resume, as `settings.toml` records it.

use std::collections::{BTreeMap, BTreeSet};

use euchre_game::engine::rules::Rules;
use serde::{Deserialize, Serialize};
use store::Backend;

use euchre_bots::meta::BlueprintSource;
use euchre_bots::meta::CardPlaySource;
use euchre_bots::phase::Phase;

use super::*;
use euchre_bots::meta::{PolicyMeta, Recipe, Strategy};

/// What a run is, fixed when it starts: resuming with any of these changed
/// would mix two different trainings in one store.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "IdentityOnDisk", into = "IdentityOnDisk")]
pub struct Identity {
    pub phase: Phase,
    pub store: Backend,
    pub rules: Rules,
    pub solver: SolverSettings,
    pub encoding: EncodingName,
    pub seed: u64,
    pub bids: Bids,
    /// The card-play table that values table-play leaves.
    pub card_play_from: Option<CardPlaySource>,
    /// The score-blind bids that bids for the game start from.
    pub bids_prior: Option<BlueprintSource>,
}

/// [`Identity`] as `settings.toml` holds it, the bids as two optional
/// fields, so that every run directory ever written still opens.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct IdentityOnDisk {
    phase: Phase,
    store: Backend,
    rules: Rules,
    solver: SolverSettings,
    encoding: EncodingName,
    seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bidding_from: Option<BlueprintSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bidding_stage: Option<BiddingStage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    card_play_from: Option<CardPlaySource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bids_prior: Option<BlueprintSource>,
}

impl From<IdentityOnDisk> for Identity {
    fn from(disk: IdentityOnDisk) -> Identity {
        Identity {
            phase: disk.phase,
            store: disk.store,
            rules: disk.rules,
            solver: disk.solver,
            encoding: disk.encoding,
            seed: disk.seed,
            bids: bids::BidsOnDisk {
                bidding_from: disk.bidding_from,
                bidding_stage: disk.bidding_stage,
            }
            .into(),
            card_play_from: disk.card_play_from,
            bids_prior: disk.bids_prior,
        }
    }
}

impl From<Identity> for IdentityOnDisk {
    fn from(identity: Identity) -> IdentityOnDisk {
        let bids = bids::BidsOnDisk::from(identity.bids);
        IdentityOnDisk {
            phase: identity.phase,
            store: identity.store,
            rules: identity.rules,
            solver: identity.solver,
            encoding: identity.encoding,
            seed: identity.seed,
            bidding_from: bids.bidding_from,
            bidding_stage: bids.bidding_stage,
            card_play_from: identity.card_play_from,
            bids_prior: identity.bids_prior,
        }
    }
}

impl Identity {
    /// What this run trains, as a policy exported from it records it: the
    /// one place a run's settings become a policy's description.
    pub fn recipe(&self) -> Recipe {
        Recipe {
            phase: self.phase,
            rules: self.rules,
            leaves: self.solver.leaves,
            play_abstraction: self.solver.abstraction,
            bidding_from: self.bids.blueprint().cloned(),
            card_play_from: self.card_play_from.clone(),
            opponent_bids: self.solver.opponent_bids,
            bids_for: self.solver.bids_for,
            bids_prior: self.bids_prior.clone(),
        }
    }

    /// The strategy this run's exports hold: the average, unless card play
    /// keeps none ([`CardPlayStrategy::Current`]).
    pub fn exported_strategy(&self) -> Strategy {
        match self.solver.card_play_strategy {
            CardPlayStrategy::Average => Strategy::Average,
            CardPlayStrategy::Current => Strategy::CurrentCardPlay,
        }
    }

    /// What a policy exported from this run after `iterations` records.
    pub fn policy_meta(&self, iterations: u64, strategy: Strategy) -> PolicyMeta {
        PolicyMeta {
            recipe: self.recipe(),
            iterations,
            strategy,
            searched_bids: None,
            searched_leads: None,
        }
    }

    /// Each setting that differs from `saved`, as "name: theirs, ours":
    /// by a reader's name where one is written below, and otherwise by its
    /// key in `settings.toml`, so a setting added to the
    /// identity without a check of its own still stops a resume.
    pub fn differences(&self, saved: &Identity) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |name: &str, now: String, then: String| {
            if now != then {
                out.push(format!(
                    "{name}: the run has {then}, this command asks for {now}"
                ));
            }
        };
        check("phase", self.phase.to_string(), saved.phase.to_string());
        check("store", self.store.to_string(), saved.store.to_string());
        check("rules", self.rules.to_string(), saved.rules.to_string());
        check("solver", self.solver.to_string(), saved.solver.to_string());
        check(
            "leaves",
            self.solver.leaves.to_string(),
            saved.solver.leaves.to_string(),
        );
        check(
            "play key",
            self.solver.abstraction.to_string(),
            saved.solver.abstraction.to_string(),
        );
        check(
            "card play's strategy",
            self.solver.card_play_strategy.to_string(),
            saved.solver.card_play_strategy.to_string(),
        );
        check(
            "opponents' bids",
            self.solver.opponent_bids.to_string(),
            saved.solver.opponent_bids.to_string(),
        );
        check(
            "bids for",
            self.solver.bids_for.to_string(),
            saved.solver.bids_for.to_string(),
        );
        check(
            "store encoding",
            self.encoding.to_string(),
            saved.encoding.to_string(),
        );
        check("seed", self.seed.to_string(), saved.seed.to_string());
        let describe_stage = |stage: Option<BiddingStage>| {
            stage.map_or_else(|| "no bidding stage".to_owned(), |stage| stage.to_string())
        };
        check(
            "bids",
            describe_stage(self.bids.stage()),
            describe_stage(saved.bids.stage()),
        );
        let describe = |source: Option<&BlueprintSource>| {
            source.map_or_else(|| "bids trained by the run".to_owned(), ToString::to_string)
        };
        // A stage's blueprint is the run's own, known only once the stage
        // has ended: before that, either side may not have it yet.
        let stage_unfinished = self.bids.stage().is_some()
            && (self.bids.blueprint().is_none() || saved.bids.blueprint().is_none());
        if !stage_unfinished {
            check(
                "bidding blueprint",
                describe(self.bids.blueprint()),
                describe(saved.bids.blueprint()),
            );
        }
        let describe_table = |source: Option<&CardPlaySource>| {
            source.map_or_else(|| "no card-play table".to_owned(), ToString::to_string)
        };
        check(
            "card-play table",
            describe_table(self.card_play_from.as_ref()),
            describe_table(saved.card_play_from.as_ref()),
        );
        let describe_prior = |source: Option<&BlueprintSource>| {
            source.map_or_else(|| "no prior".to_owned(), ToString::to_string)
        };
        check(
            "bids' prior",
            describe_prior(self.bids_prior.as_ref()),
            describe_prior(saved.bids_prior.as_ref()),
        );
        if out.is_empty() {
            out = changed_keys(self, saved, stage_unfinished);
        }
        out
    }
}

/// Every setting `now` and `then` record differently in `settings.toml`,
/// by its dotted key, leaving out the bidding blueprint where
/// `blueprint_unknown` (a stage that has not ended has none yet).
fn changed_keys(now: &Identity, then: &Identity, blueprint_unknown: bool) -> Vec<String> {
    let flat = |identity: &Identity| {
        let mut keys = BTreeMap::new();
        // An identity always serialises: every field is a plain value.
        if let Ok(value) = toml::Value::try_from(identity) {
            flatten("", &value, &mut keys);
        }
        keys
    };
    let (now, then) = (flat(now), flat(then));
    let keys: BTreeSet<&String> = now.keys().chain(then.keys()).collect();
    let absent = "nothing".to_owned();
    keys.into_iter()
        .filter(|key| !(blueprint_unknown && key.starts_with("bidding_from")))
        .filter(|&key| now.get(key) != then.get(key))
        .map(|key| {
            format!(
                "{key}: the run has {}, this command asks for {}",
                then.get(key).unwrap_or(&absent),
                now.get(key).unwrap_or(&absent)
            )
        })
        .collect()
}

/// `value`'s leaves by dotted key under `prefix`.
fn flatten(prefix: &str, value: &toml::Value, out: &mut BTreeMap<String, String>) {
    match value {
        toml::Value::Table(table) => {
            for (key, value) in table {
                let key = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&key, value, out);
            }
        }
        leaf => {
            out.insert(prefix.to_owned(), leaf.to_string());
        }
    }
}
