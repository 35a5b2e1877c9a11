//! The solver's levers and durations, as flags give them.

use super::resolve_flags;
use std::time::Duration;

use crate::config::*;
use euchre_bots::phase::Phase;

#[test]
fn traverser_sampling_is_a_count_of_explored_decisions_or_off() {
    let sample = |given: &str| {
        resolve_flags(
            RunProfile::default(),
            RunOptions {
                phase: Some(Phase::FullPlay),
                session: SessionOptions {
                    sample_own_after: Some(given.to_string()),
                    ..SessionOptions::default()
                },
                ..RunOptions::default()
            },
        )
        .map(|(_, session, _)| session.traverser_sampling)
    };
    assert_eq!(
        sample("2").unwrap(),
        Some(TraverserSamplingSettings {
            explored_decisions: 2,
            exploration: TRAVERSER_EXPLORATION
        })
    );
    assert_eq!(sample("off").unwrap(), None);
    let error = sample("two").unwrap_err().to_string();
    assert!(error.contains("--sample-own-after \"two\""), "{error}");
    assert!(error.contains("`off`"), "{error}");
    // Off unless asked for, in every phase.
    let default = resolve_flags(
        RunProfile::default(),
        RunOptions {
            phase: Some(Phase::FullPlay),
            ..RunOptions::default()
        },
    )
    .unwrap()
    .1;
    assert_eq!(default.traverser_sampling, None);
    // A resumed run keeps it unless the session's flag says otherwise.
    let kept = SessionSettings {
        traverser_sampling: sample("1").unwrap(),
        ..default
    };
    let resumed = kept
        .clone()
        .with_flags(&SessionOptions::default(), CurveOptions::default())
        .unwrap();
    assert_eq!(resumed.traverser_sampling, kept.traverser_sampling);
    let off = kept
        .with_flags(
            &SessionOptions {
                sample_own_after: Some("off".into()),
                ..SessionOptions::default()
            },
            CurveOptions::default(),
        )
        .unwrap();
    assert_eq!(off.traverser_sampling, None);
}

#[test]
fn a_best_response_names_a_policy_file_or_off_and_is_kept_until_turned_off() {
    let best_response = |given: &str| {
        resolve_flags(
            RunProfile::default(),
            RunOptions {
                phase: Some(Phase::FullPlay),
                session: SessionOptions {
                    best_response_to: Some(given.to_string()),
                    ..SessionOptions::default()
                },
                ..RunOptions::default()
            },
        )
        .map(|(_, session, _)| session.best_response_to)
    };
    // Kept as an absolute path: a resumed run may start from elsewhere.
    let named = best_response("runs/full-play-mmap/policy.bin")
        .unwrap()
        .unwrap();
    assert!(named.policy.is_absolute(), "{}", named.policy.display());
    assert!(named.policy.ends_with("runs/full-play-mmap/policy.bin"));
    assert_eq!(best_response("off").unwrap(), None);
    let error = best_response(" ").unwrap_err().to_string();
    assert!(error.contains("--best-response-to"), "{error}");
    assert!(error.contains("`off`"), "{error}");
    let default = resolve_flags(
        RunProfile::default(),
        RunOptions {
            phase: Some(Phase::FullPlay),
            ..RunOptions::default()
        },
    )
    .unwrap()
    .1;
    assert_eq!(default.best_response_to, None);
    let kept = SessionSettings {
        best_response_to: Some(named),
        ..default
    };
    let resumed = kept
        .clone()
        .with_flags(&SessionOptions::default(), CurveOptions::default())
        .unwrap();
    assert_eq!(resumed.best_response_to, kept.best_response_to);
    // It is saved with the run and read back.
    let saved = toml::to_string(&kept).unwrap();
    let read: SessionSettings = toml::from_str(&saved).unwrap();
    assert_eq!(read.best_response_to, kept.best_response_to);
    let off = kept
        .with_flags(
            &SessionOptions {
                best_response_to: Some("off".into()),
                ..SessionOptions::default()
            },
            CurveOptions::default(),
        )
        .unwrap();
    assert_eq!(off.best_response_to, None);
}

#[test]
fn a_warm_start_is_a_positive_weight_or_off() {
    let warm = |weight| {
        resolve_flags(
            RunProfile::default(),
            RunOptions {
                session: SessionOptions {
                    warm_start: Some(weight),
                    ..SessionOptions::default()
                },
                ..RunOptions::default()
            },
        )
        .map(|(_, session, _)| session.warm_start)
    };
    assert_eq!(warm(2.0).unwrap(), Some(WarmStartSettings { weight: 2.0 }));
    assert_eq!(warm(0.0).unwrap(), None);
    // By default full play starts warm and the other phases cold.
    let default = |phase| {
        resolve_flags(
            RunProfile::default(),
            RunOptions {
                phase: Some(phase),
                ..RunOptions::default()
            },
        )
        .unwrap()
        .1
        .warm_start
    };
    assert_eq!(
        default(Phase::FullPlay),
        Some(WarmStartSettings {
            weight: FULL_PLAY_WARM_START
        })
    );
    assert_eq!(default(Phase::Bidding), None);
    assert_eq!(default(Phase::Play(3)), None);
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        let message = warm(bad).unwrap_err().to_string();
        assert!(message.contains("--warm-start"), "{message}");
    }
}

#[test]
fn durations_parse() {
    assert_eq!(parse_duration("90s").unwrap(), Duration::from_secs(90));
    assert_eq!(parse_duration("1h30m").unwrap(), Duration::from_secs(5400));
    assert_eq!(parse_duration("2d").unwrap(), Duration::from_secs(172_800));
    for bad in ["", "5", "h", "3x", "0s", "9999999999999999999h"] {
        assert!(parse_duration(bad).is_err(), "{bad}");
    }
}
