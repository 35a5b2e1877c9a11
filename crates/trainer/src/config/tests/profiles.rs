//! Profiles: what they may say, and how a bad one is explained.

use super::{chain, resolve_flags};

use crate::config::*;
use euchre_bots::phase::Phase;
use store::Backend;

#[test]
fn every_shipped_profile_parses() {
    for (name, text) in [
        (
            "example",
            include_str!("../../../../../configs/example.toml"),
        ),
        ("quick", include_str!("../../../../../configs/quick.toml")),
        (
            "bidding",
            include_str!("../../../../../configs/bidding.toml"),
        ),
        ("play-2", include_str!("../../../../../configs/play-2.toml")),
        (
            "full-play",
            include_str!("../../../../../configs/full-play.toml"),
        ),
        (
            "bids-20m",
            include_str!("../../../../../configs/bids-20m.toml"),
        ),
    ] {
        let profile = parse_profile(text, name).unwrap();
        resolve_flags(profile, RunOptions::default()).unwrap();
    }
    // Step 2 of fixed-bid full play needs step 1's policy: without it,
    // the profile parses and the error names the missing file.
    let text = include_str!("../../../../../configs/full-play-fixed-bids.toml");
    let profile = parse_profile(text, "full-play-fixed-bids").unwrap();
    let error = resolve_flags(profile, RunOptions::default()).unwrap_err();
    assert!(
        chain(&error).contains("runs/bids-20m/policy.bin"),
        "{}",
        chain(&error)
    );
}

#[test]
fn unknown_keys_are_named() {
    let error = parse_profile("[rules]\nstick_the_deler = true\n", "test.toml").unwrap_err();
    let message = chain(&error);
    assert!(message.contains("stick_the_deler"), "{message}");
    assert!(message.contains("test.toml"), "{message}");
    let error = parse_profile("[rulez]\n", "test.toml").unwrap_err();
    assert!(chain(&error).contains("rulez"));
    let error = parse_profile("[rules]\nlone_defender = 3\n", "test.toml").unwrap_err();
    assert!(chain(&error).contains("lone_defender"));
    let error = parse_profile("[run]\nphase = \"play-40\"\n", "test.toml").unwrap_err();
    assert!(chain(&error).contains("play-N"), "{error:?}");
    let error = parse_profile("[run]\nstore = \"redis\"\n", "test.toml").unwrap_err();
    assert!(chain(&error).contains("redis"), "{error:?}");
    let error = parse_profile("[solver]\nschedule = \"dcfr\"\nalpa = 1\n", "t").unwrap_err();
    assert!(chain(&error).contains("alpa"), "{error:?}");
}

#[test]
fn flags_override_the_profile() {
    let profile = parse_profile(
        "[run]\nphase = \"play-2\"\nstore = \"lmdb\"\nthreads = 2\nseed = 5\n",
        "t",
    )
    .unwrap();
    let flags = RunOptions {
        store: Some(Backend::Mmap),
        seed: Some(9),
        ..RunOptions::default()
    };
    let (identity, session, _) = resolve_flags(profile, flags).unwrap();
    assert_eq!(identity.phase, Phase::Play(2));
    assert_eq!(identity.store, Backend::Mmap);
    assert_eq!(identity.seed, 9);
    assert_eq!(session.threads, 2);
}

#[test]
fn bad_values_are_explained() {
    // Refused when the profile is read, or when it is resolved.
    let bad = |text: &str| match parse_profile(text, "t") {
        Ok(profile) => chain(&resolve_flags(profile, RunOptions::default()).unwrap_err()),
        Err(error) => chain(&error),
    };
    // The exponents are DCFR's; linear CFR, the default, has none.
    assert!(bad("[solver]\nschedule = \"dcfr\"\nalpha = -3\n").contains("schedule"));
    assert!(bad("[run]\nprune = -3\n").contains("positive number"));
    assert!(bad("[run]\nfor = \"soon\"\n").contains("duration"));
    assert!(bad("[run]\niterations = 0\n").contains("at least 1"));
    assert!(bad("[log]\nlevel = \"loud\"\n").contains("loud"));
    assert!(
        bad("[solver]\nopponent_bids = \"heuristic:7\"\n")
            .contains("'heuristic:7' is not an opponent-bids setting")
    );
    // Keys the [run] table once took and ignored are now refused by name.
    let message = bad("[run]\nleaves = \"heuristic-play\"\nthreds = 2\n");
    assert!(
        message.contains("'leaves'") && message.contains("'threds'"),
        "{message}"
    );
    assert!(message.contains("configs/example.toml"), "{message}");
}

/// Every flag of `trainer train` is also a key of one profile table, so a
/// setting is written once and a profile can say whatever a command line
/// can. The exceptions are named here with their reason; a new flag with
/// no key (or a key under another name) fails until it joins them.
#[test]
fn every_flag_of_train_is_a_key_of_a_profile_table() {
    use clap::Args;
    /// Flags of one session, or of where the profile itself is.
    const FLAG_ONLY: [&str; 10] = [
        "until",
        "skip-checksums",
        "sync-every",
        "sync-iterations",
        "sync-reads",
        "sync-strategy-sums",
        "sync-check",
        "rank-memory",
        "sync-overlap",
        "rank-timeout",
    ];
    /// Flags whose key has another name: (flag, table, key).
    const RENAMED: [(&str, &str, &str); 5] = [
        ("run-dir", "run", "dir"),
        ("checkpoint-every", "run", "checkpoint_every_iterations"),
        ("eval-every", "eval", "every"),
        ("eval-against", "eval", "against"),
        ("eval-hands", "eval", "hands"),
    ];
    // Whether `[table] key` names a setting: a value of the wrong type
    // is then refused for its value, not as an unknown key.
    let is_key = |table: &str, key: &str| {
        let text = format!("[{table}]\n{key} = [[]]\n");
        match parse_profile(&text, "t") {
            Ok(_) => true,
            Err(error) => {
                let message = chain(&error);
                !message.contains("unknown field") && !message.contains("no setting")
            }
        }
    };
    assert!(!is_key("run", "no_such_key") && !is_key("solver", "no_such_key"));
    let command = TrainOptions::augment_args(clap::Command::new("train"));
    let mut checked = 0;
    for argument in command.get_arguments() {
        let Some(flag) = argument.get_long() else {
            continue;
        };
        if FLAG_ONLY.contains(&flag) {
            continue;
        }
        let found = match RENAMED.iter().find(|(renamed, ..)| *renamed == flag) {
            Some((_, table, key)) => is_key(table, key),
            None => {
                let key = flag.replace('-', "_");
                ["run", "solver", "store", "eval"]
                    .iter()
                    .any(|table| is_key(table, &key))
            }
        };
        assert!(found, "--{flag} has no profile key");
        checked += 1;
    }
    assert!(checked >= 25, "only {checked} flags were found");
}

/// A flag and its profile key are one setting: each given either way
/// resolves to the same run.
#[test]
fn a_setting_given_as_a_flag_or_as_a_profile_key_resolves_alike() {
    use euchre_bots::meta::{BidsFor, Leaves};
    use euchre_bots::opponent_bids::OpponentBids;
    use euchre_game::keys::play::PlayAbstraction;
    let full_play = |more: fn(&mut TrainOptions)| {
        let mut options = TrainOptions::from(RunOptions {
            phase: Some(Phase::FullPlay),
            ..RunOptions::default()
        });
        more(&mut options);
        options
    };
    let cases: [(&str, TrainOptions); 6] = [
        (
            "[solver]\nleaves = \"heuristic-play\"\n",
            full_play(|o| o.solver.leaves = Some(Leaves::HeuristicPlay)),
        ),
        (
            "[solver]\nabstraction = \"maker-seat\"\n",
            full_play(|o| o.solver.abstraction = Some(PlayAbstraction::MakerSeat)),
        ),
        (
            "[solver]\nopponent_bids = \"heuristic:0.5\"\n",
            full_play(|o| o.solver.opponent_bids = Some(OpponentBids::Heuristic { share: 0.5 })),
        ),
        (
            "[solver]\ncard_play_strategy = \"average\"\n",
            full_play(|o| o.solver.card_play_strategy = Some(CardPlayStrategy::Average)),
        ),
        (
            "[solver]\nbids_for = \"game\"\n",
            full_play(|o| o.solver.bids_for = Some(BidsFor::Game)),
        ),
        (
            "[store]\nencoding = \"f32\"\n",
            full_play(|o| o.store.encoding = Some(EncodingName::F32)),
        ),
    ];
    let (plain, _, _) = resolve_flags(RunProfile::default(), full_play(|_| {})).unwrap();
    for (text, flags) in cases {
        let profile = parse_profile(&format!("[run]\nphase = \"full-play\"\n{text}"), "t").unwrap();
        let (from_profile, _, _) = resolve_flags(profile, TrainOptions::default()).unwrap();
        let (from_flags, _, _) = resolve_flags(RunProfile::default(), flags).unwrap();
        assert_eq!(from_profile, from_flags, "{text}");
        assert_ne!(from_profile, plain, "{text} changed nothing");
    }
}
