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
