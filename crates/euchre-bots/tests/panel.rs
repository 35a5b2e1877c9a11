//! The crate as a user of it sees it: bots built from specs, a policy file
//! written and played, and a panel rated on shared deals, through the
//! public API only.

use std::sync::Arc;

use euchre_bots::arena::run_deals;
use euchre_bots::bot::Bot;
use euchre_bots::bots::policy::Unseen;
use euchre_bots::meta::PolicyMeta;
use euchre_bots::phase::Phase;
use euchre_bots::policy_file::{PolicyFile, export};
use euchre_bots::round_robin::{PairRecord, deal_points, ratings, summarise_pair};
use euchre_bots::spec::from_spec;
use euchre_game::engine::rules::Rules;
use store::{MemoryTable, RecordEncoding, RecordLayout, Table};

fn bot(spec: &str) -> Arc<dyn Bot> {
    from_spec(spec, Rules::default(), Unseen::Heuristic).unwrap()
}

/// Every pair of `panel` on the same `deals` deals.
fn round_robin(panel: &[Arc<dyn Bot>], deals: u64, seed: u64) -> Vec<PairRecord> {
    let mut pairs = Vec::new();
    for a in 0..panel.len() {
        for b in a + 1..panel.len() {
            let results = run_deals(
                &panel[a],
                &panel[b],
                Rules::default(),
                0..deals,
                seed,
                &|| {},
            );
            pairs.push(PairRecord {
                a,
                b,
                deals: results.iter().map(deal_points).collect(),
                games: Vec::new(),
                games_by_score: Default::default(),
            });
        }
    }
    pairs
}

#[test]
fn a_panel_is_rated_in_the_order_of_its_strength_and_the_same_every_time() {
    let panel = [bot("random"), bot("heuristic"), bot("pimc:3")];
    let pairs = round_robin(&panel, 300, 5);
    let wins: Vec<_> = pairs.iter().map(|pair| pair.deal_wins(300)).collect();
    let rated = ratings(panel.len(), &wins, 300, 100, 5, 0.0);
    // The heuristic and PIMC both beat random clearly: their intervals
    // lie above random's.
    assert!(rated[1].low > rated[0].high, "{rated:?}");
    assert!(rated[2].low > rated[0].high, "{rated:?}");
    let random_vs_heuristic = summarise_pair(&pairs[0], 300);
    assert!(random_vs_heuristic.share + random_vs_heuristic.share_interval < 0.5);
    // Deals depend on the seed and their index alone.
    assert_eq!(pairs, round_robin(&panel, 300, 5));
    assert_ne!(pairs, round_robin(&panel, 300, 6));
}

#[test]
fn an_exported_policy_loads_and_plays_under_its_spec() {
    let layout = RecordLayout::new(7, RecordEncoding::F32).unwrap();
    let table = MemoryTable::with_layout(layout);
    // A few keys with an average strategy: the file holds them; every
    // other decision falls to the `--unseen` player.
    for key in [11u128, 22, 33] {
        let slot = table.slot(key).unwrap();
        table
            .update(slot, &mut |record| record.strategy_sum[1] = 4.0)
            .unwrap();
    }
    let path = std::env::temp_dir().join(format!("euchre-bots-panel-{}.bin", std::process::id()));
    let meta = PolicyMeta::new(Phase::FullPlay, Rules::default(), 3);
    let written = export(&table, &meta, 7, None, &path, &mut |_, _| {}).unwrap();
    assert_eq!(written, 3);
    let loaded = PolicyFile::load(&path).unwrap();
    assert_eq!(loaded.meta, meta);
    let policy = bot(&format!("policy-argmax:{}", path.display()));
    let results = run_deals(&policy, &bot("random"), Rules::default(), 0..50, 1, &|| {});
    assert_eq!(results.len(), 50);
    std::fs::remove_file(&path).ok();
}
