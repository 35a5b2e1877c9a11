//! Resolution: the flags over the profile, the phase's defaults, and
//! the combinations refused.

use super::{chain, resolve_flags};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::config::curve::{DEFAULT_EVAL_AGAINST, FULL_PLAY_EVAL_EVERY, FULL_PLAY_EVAL_HANDS};
use crate::config::*;
use euchre_bots::meta::BidChoice;
use euchre_bots::meta::BlueprintSource;
use euchre_bots::meta::Leaves;
use euchre_bots::opponent_bids::OpponentBids;
use euchre_bots::phase::Phase;
use euchre_game::engine::rules::{LonerLead, Rules};
use euchre_game::keys::play::PlayAbstraction;
use store::Backend;

#[test]
fn the_bare_full_play_command_is_the_laptop_profile() {
    let bare = RunOptions {
        phase: Some(Phase::FullPlay),
        store: Some(Backend::Mmap),
        ..RunOptions::default()
    };
    let (identity, session, dir) = resolve_flags(RunProfile::default(), bare).unwrap();
    assert_eq!(identity.encoding, EncodingName::I16);
    assert_eq!(
        identity.bids.stage(),
        Some(BiddingStage {
            iterations: DEFAULT_BIDDING_STAGE_ITERATIONS,
            choice: BidChoice::Argmax
        }),
        "full play trains its bids in a stage of their own first"
    );
    assert_eq!(session.iterations, None, "full play trains until stopped");
    assert_eq!((session.until, session.duration), (None, None));
    assert_eq!(dir, None, "the default run directory, runs/full-play-mmap");

    let profile =
        parse_profile(include_str!("../../../../../configs/full-play.toml"), "f").unwrap();
    let (profile_identity, profile_session, profile_dir) =
        resolve_flags(profile, RunOptions::default()).unwrap();
    assert_eq!(profile_identity, identity);
    assert_eq!(profile_session, session);
    assert_eq!(
        profile_dir.as_deref(),
        Some(Path::new("runs/full-play-mmap"))
    );

    let (bidding, bidding_session, _) =
        resolve_flags(RunProfile::default(), RunOptions::default()).unwrap();
    assert_eq!(bidding.encoding, EncodingName::F32);
    assert_eq!(bidding_session.iterations, Some(DEFAULT_ITERATIONS));

    let f32_full_play = TrainOptions {
        run: RunOptions {
            phase: Some(Phase::FullPlay),
            ..RunOptions::default()
        },
        store: StoreOptions {
            encoding: Some(EncodingName::F32),
            ..StoreOptions::default()
        },
        ..TrainOptions::default()
    };
    let (identity, _, _) = resolve_flags(RunProfile::default(), f32_full_play).unwrap();
    assert_eq!(identity.encoding, EncodingName::F32);
    let profile = parse_profile(
        "[run]\nphase = \"full-play\"\n[store]\nencoding = \"f32\"\n",
        "t",
    );
    let (identity, _, _) = resolve_flags(profile.unwrap(), RunOptions::default()).unwrap();
    assert_eq!(identity.encoding, EncodingName::F32);
}

/// Every run's bids are an equilibrium unless a flag or a profile names
/// a model of the opponents' bids (full play's staged bids modelled the
/// heuristic's by default until the panel showed the gain was only
/// against the heuristic).
#[test]
fn bids_are_an_equilibrium_unless_a_model_is_named() {
    let opponents = |profile: &str, flags: TrainOptions| {
        let profile = parse_profile(profile, "t").unwrap();
        resolve_flags(profile, flags)
            .unwrap()
            .0
            .solver
            .opponent_bids
    };
    let phase = |phase: Phase| {
        TrainOptions::from(RunOptions {
            phase: Some(phase),
            ..RunOptions::default()
        })
    };
    assert_eq!(
        opponents("", phase(Phase::FullPlay)),
        OpponentBids::Equilibrium
    );
    assert_eq!(
        opponents("", phase(Phase::Bidding)),
        OpponentBids::Equilibrium
    );
    assert_eq!(
        opponents("", phase(Phase::Play(2))),
        OpponentBids::Equilibrium
    );
    let joint = TrainOptions::from(RunOptions {
        phase: Some(Phase::FullPlay),
        bids: Some(BidsName::Trained),
        ..RunOptions::default()
    });
    assert_eq!(opponents("", joint), OpponentBids::Equilibrium);
    // A profile's choice is a choice; a flag overrides it.
    let modelled = "[solver]\nopponent_bids = \"heuristic:0.9\"\n";
    assert_eq!(
        opponents(modelled, phase(Phase::FullPlay)),
        OpponentBids::Heuristic { share: 0.9 }
    );
    let flagged = TrainOptions {
        solver: SolverOptions {
            opponent_bids: Some(OpponentBids::Equilibrium),
            ..SolverOptions::default()
        },
        ..phase(Phase::FullPlay)
    };
    assert_eq!(opponents(modelled, flagged), OpponentBids::Equilibrium);
    // A `[solver]` table without the key leaves the default.
    assert_eq!(
        opponents("[solver]\nschedule = \"linear\"\n", phase(Phase::FullPlay)),
        OpponentBids::Equilibrium
    );
}

#[test]
fn where_the_bids_come_from_is_resolved_and_conflicts_are_explained() {
    let with = |phase: Phase, flags: RunOptions| {
        resolve_flags(
            RunProfile::default(),
            RunOptions {
                phase: Some(phase),
                ..flags
            },
        )
    };
    let stage = |flags: RunOptions| with(Phase::FullPlay, flags).unwrap().0.bids.stage();
    assert_eq!(
        stage(RunOptions {
            bidding_iterations: Some(5000),
            fixed_bids: Some(BidChoice::Average),
            ..RunOptions::default()
        }),
        Some(BiddingStage {
            iterations: 5000,
            choice: BidChoice::Average
        })
    );
    assert_eq!(
        stage(RunOptions {
            bids: Some(BidsName::Trained),
            ..RunOptions::default()
        }),
        None
    );
    let play = with(Phase::Play(2), RunOptions::default()).unwrap().0;
    assert_eq!(
        play.bids,
        Bids::Trained,
        "play-N trains its bids unless asked"
    );
    let staged_play = with(
        Phase::Play(2),
        RunOptions {
            bids: Some(BidsName::Staged),
            ..RunOptions::default()
        },
    );
    assert!(staged_play.unwrap().0.bids.stage().is_some());
    let profile = parse_profile("[run]\nphase = \"full-play\"\nbids = \"trained\"\n", "t");
    let (identity, _, _) = resolve_flags(profile.unwrap(), RunOptions::default()).unwrap();
    assert_eq!(identity.bids, Bids::Trained);

    let refused = |phase: Phase, flags: RunOptions| chain(&with(phase, flags).unwrap_err());
    let message = refused(
        Phase::Bidding,
        RunOptions {
            bids: Some(BidsName::Staged),
            ..RunOptions::default()
        },
    );
    assert!(
        message.contains("the bidding phase trains only bids"),
        "{message}"
    );
    let message = refused(
        Phase::FullPlay,
        RunOptions {
            bids: Some(BidsName::Staged),
            bidding_from: Some(PathBuf::from("any.bin")),
            ..RunOptions::default()
        },
    );
    assert!(message.contains("keep one of the two"), "{message}");
    let message = refused(
        Phase::FullPlay,
        RunOptions {
            bids: Some(BidsName::Trained),
            bidding_iterations: Some(100),
            ..RunOptions::default()
        },
    );
    assert!(message.contains("this run has none"), "{message}");
    let message = refused(
        Phase::FullPlay,
        RunOptions {
            bidding_iterations: Some(0),
            ..RunOptions::default()
        },
    );
    assert!(message.contains("at least 1 iteration"), "{message}");
    let message = refused(
        Phase::FullPlay,
        RunOptions {
            bids: Some(BidsName::Trained),
            fixed_bids: Some(BidChoice::Argmax),
            ..RunOptions::default()
        },
    );
    assert!(message.contains("--bids staged"), "{message}");
}

/// `settings.toml` keeps the two bid fields it has always had, so run
/// directories made before `Bids` existed open unchanged.
#[test]
fn the_bids_are_saved_as_they_always_were() {
    let base = resolve_flags(RunProfile::default(), RunOptions::default())
        .unwrap()
        .0;
    let source = BlueprintSource {
        path: PathBuf::from("/runs/x/bidding/policy.bin"),
        checksum: 7,
        iterations: 100,
        choice: BidChoice::Argmax,
    };
    let stage = BiddingStage {
        iterations: 100,
        choice: BidChoice::Argmax,
    };
    for (bids, from, staged) in [
        (Bids::Trained, false, false),
        (Bids::Fixed(source.clone()), true, false),
        (
            Bids::Staged {
                stage,
                blueprint: None,
            },
            false,
            true,
        ),
        (
            Bids::Staged {
                stage,
                blueprint: Some(source.clone()),
            },
            true,
            true,
        ),
    ] {
        let identity = Identity {
            bids,
            ..base.clone()
        };
        let text = toml::to_string(&identity).unwrap();
        assert_eq!(text.contains("[bidding_from]"), from, "{text}");
        assert_eq!(text.contains("[bidding_stage]"), staged, "{text}");
        assert_eq!(toml::from_str::<Identity>(&text).unwrap(), identity);
    }
}

#[test]
fn a_staged_run_names_a_changed_stage_but_not_its_own_blueprint_before_it_exists() {
    let staged = |iterations| Identity {
        bids: Bids::Staged {
            stage: BiddingStage {
                iterations,
                choice: BidChoice::Argmax,
            },
            blueprint: None,
        },
        ..resolve_flags(RunProfile::default(), RunOptions::default())
            .unwrap()
            .0
    };
    let mut finished = staged(100);
    if let Bids::Staged { blueprint, .. } = &mut finished.bids {
        *blueprint = Some(BlueprintSource {
            path: PathBuf::from("/runs/x/bidding/policy.bin"),
            checksum: 7,
            iterations: 100,
            choice: BidChoice::Argmax,
        });
    }
    assert!(staged(100).differences(&finished).is_empty());
    assert!(finished.differences(&staged(100)).is_empty());
    let changed = staged(200).differences(&finished);
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert!(changed[0].starts_with("bids: the run has a bidding stage of 100 iterations"));
    let mut joint = staged(100);
    joint.bids = Bids::Trained;
    assert_eq!(
        joint.differences(&finished).len(),
        2,
        "the stage and its blueprint"
    );
}

#[test]
fn a_new_full_play_run_measures_a_curve_unless_told_not_to() {
    let curve = |phase: Phase, every: Option<&str>| {
        let every = every.map(|text| options::parse_curve_interval(text).unwrap());
        let flags = TrainOptions {
            run: RunOptions {
                phase: Some(phase),
                ..RunOptions::default()
            },
            curve: CurveOptions {
                every,
                ..CurveOptions::default()
            },
            ..TrainOptions::default()
        };
        resolve(RunProfile::default(), flags).unwrap().session.curve
    };
    let default = curve(Phase::FullPlay, None).unwrap();
    assert_eq!(default.every, FULL_PLAY_EVAL_EVERY);
    assert_eq!(default.against, "heuristic");
    assert_eq!(default.hands, FULL_PLAY_EVAL_HANDS);
    assert_eq!(
        curve(Phase::FullPlay, Some("10m")).unwrap().every,
        Duration::from_secs(600)
    );
    assert_eq!(curve(Phase::FullPlay, Some("off")), None);
    assert_eq!(curve(Phase::Bidding, None), None);
    assert_eq!(
        curve(Phase::Bidding, Some("5m")).unwrap().against,
        DEFAULT_EVAL_AGAINST
    );
}

/// The resume guard against every field of the identity: each one changed
/// alone stops a resume, by a reader's name where one is written. The
/// destructurings fail to compile when a field is added, so that it joins
/// this list.
#[test]
fn a_change_to_any_field_of_a_runs_identity_stops_its_resume() {
    let base = resolve_flags(
        RunProfile::default(),
        RunOptions {
            phase: Some(Phase::FullPlay),
            store: Some(Backend::Mmap),
            ..RunOptions::default()
        },
    )
    .unwrap()
    .0;
    let Identity {
        phase: _,
        store: _,
        rules: _,
        solver: _,
        encoding: _,
        seed: _,
        bids: _,
        card_play_from: _,
        bids_prior: _,
    } = &base;
    let Rules {
        stick_the_dealer: _,
        lone_defender: _,
        dealer_may_discard_upcard: _,
        loner_lead: _,
        canadian_loners: _,
    } = base.rules;
    let SolverSettings {
        schedule: _,
        alpha: _,
        beta: _,
        gamma: _,
        leaves: _,
        abstraction: _,
        opponent_bids: _,
        card_play_strategy: _,
        bids_for: _,
    } = &base.solver;
    let table = euchre_bots::meta::CardPlaySource {
        path: PathBuf::from("/runs/t/policy.bin"),
        checksum: 3,
        iterations: 9,
    };
    type Change = Box<dyn Fn(&mut Identity)>;
    let changes: Vec<(&str, Change)> = vec![
        ("phase", Box::new(|i| i.phase = Phase::Bidding)),
        ("store", Box::new(|i| i.store = Backend::Lmdb)),
        ("rules", Box::new(|i| i.rules.stick_the_dealer ^= true)),
        ("rules", Box::new(|i| i.rules.lone_defender ^= true)),
        (
            "rules",
            Box::new(|i| i.rules.dealer_may_discard_upcard ^= true),
        ),
        (
            "rules",
            Box::new(|i| {
                i.rules.loner_lead = match i.rules.loner_lead {
                    LonerLead::LeftOfDealer => LonerLead::LeftOfLoner,
                    LonerLead::LeftOfLoner => LonerLead::LeftOfDealer,
                };
            }),
        ),
        ("rules", Box::new(|i| i.rules.canadian_loners ^= true)),
        (
            "solver",
            Box::new(|i| i.solver.schedule = ScheduleName::CfrPlus),
        ),
        // Under the linear schedule the exponents are not read, but a run
        // resumed with others would not be the run it was.
        ("solver.alpha", Box::new(|i| i.solver.alpha += 0.5)),
        ("solver.beta", Box::new(|i| i.solver.beta += 0.5)),
        ("solver.gamma", Box::new(|i| i.solver.gamma += 0.5)),
        (
            "leaves",
            Box::new(|i| i.solver.leaves = Leaves::HeuristicPlay),
        ),
        (
            "play key",
            Box::new(|i| i.solver.abstraction = PlayAbstraction::MakerSeat),
        ),
        (
            "opponents' bids",
            Box::new(|i| i.solver.opponent_bids = OpponentBids::Heuristic { share: 0.9 }),
        ),
        (
            "card play's strategy",
            Box::new(|i| i.solver.card_play_strategy = CardPlayStrategy::Average),
        ),
        (
            "bids for",
            Box::new(|i| i.solver.bids_for = euchre_bots::meta::BidsFor::Game),
        ),
        (
            "store encoding",
            Box::new(|i| i.encoding = EncodingName::F32),
        ),
        ("seed", Box::new(|i| i.seed += 1)),
        ("bids", Box::new(|i| i.bids = Bids::Trained)),
        (
            "card-play table",
            Box::new(move |i| i.card_play_from = Some(table.clone())),
        ),
        (
            "bids' prior",
            Box::new(|i| {
                i.bids_prior = Some(BlueprintSource {
                    path: PathBuf::from("/runs/b/policy.bin"),
                    checksum: 5,
                    iterations: 8,
                    choice: BidChoice::Argmax,
                });
            }),
        ),
    ];
    for (name, change) in &changes {
        let mut changed = base.clone();
        change(&mut changed);
        assert_ne!(changed, base, "{name}: the change changed nothing");
        let differences = changed.differences(&base);
        assert!(
            differences
                .iter()
                .any(|d| d.starts_with(&format!("{name}:"))),
            "{name}: {differences:?}"
        );
        assert!(!base.differences(&changed).is_empty(), "{name}");
    }
    assert!(base.differences(&base.clone()).is_empty());
}

/// Bids for the game train in a bidding run (memory or LMDB) or in full
/// play's bidding stage, and reach the stage and the policy's recipe;
/// everywhere else they are refused by name.
#[test]
fn bids_for_the_game_train_where_bids_train_and_are_refused_elsewhere() {
    use euchre_bots::meta::BidsFor;
    let with = |phase, store, more: fn(TrainOptions) -> TrainOptions| {
        resolve_flags(
            RunProfile::default(),
            more(TrainOptions {
                run: RunOptions {
                    phase: Some(phase),
                    store: Some(store),
                    ..RunOptions::default()
                },
                solver: SolverOptions {
                    bids_for: Some(BidsFor::Game),
                    ..SolverOptions::default()
                },
                ..TrainOptions::default()
            }),
        )
    };
    let bidding = with(Phase::Bidding, Backend::Memory, |o| o).unwrap().0;
    assert_eq!(bidding.recipe().bids_for, BidsFor::Game);
    let full_play = with(Phase::FullPlay, Backend::Mmap, |o| o).unwrap().0;
    let stage = crate::training::bidding_stage::stage_identity(&full_play);
    assert_eq!(stage.solver.bids_for, BidsFor::Game);
    assert_eq!(stage.store, Backend::Memory);
    type Refusal = (
        Phase,
        Backend,
        fn(TrainOptions) -> TrainOptions,
        &'static str,
    );
    let refusals: [Refusal; 4] = [
        (
            Phase::Bidding,
            Backend::Mmap,
            |o| o,
            "--store memory or lmdb",
        ),
        (
            Phase::Bidding,
            Backend::Memory,
            |mut o| {
                o.solver.leaves = Some(Leaves::PimcCalibrated);
                o
            },
            "--leaves open-hand",
        ),
        (
            Phase::FullPlay,
            Backend::Mmap,
            |mut o| {
                o.run.bids = Some(BidsName::Trained);
                o
            },
            "--bids staged",
        ),
        (Phase::Play(4), Backend::Memory, |o| o, "--bids staged"),
    ];
    for (phase, store, more, fix) in refusals {
        let error = with(phase, store, more).unwrap_err();
        assert!(chain(&error).contains(fix), "{phase} {store}: {error}");
    }
    let prior_alone = resolve_flags(
        RunProfile::default(),
        RunOptions {
            bids_prior: Some(PathBuf::from("/no/such/policy.bin")),
            ..RunOptions::default()
        },
    )
    .unwrap_err();
    assert!(
        chain(&prior_alone).contains("add --bids-for game"),
        "{prior_alone}"
    );
    // Points, the default, is what a run made before the setting has.
    let blind = resolve_flags(RunProfile::default(), RunOptions::default())
        .unwrap()
        .0;
    assert_eq!(blind.solver.bids_for, BidsFor::Points);
    let saved = toml::to_string(&blind).unwrap();
    assert!(!saved.contains("bids_for"), "{saved}");
}
