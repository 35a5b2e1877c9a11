//! Training end to end: the play phases, the play key, card play under a
//! fixed bidding blueprint, and full play's staged bids.

mod support;

use std::path::Path;

use support::{
    RunPaths, TempDir, digest, full_play_in, ok, refused, text, train_bidding as train, trainer,
};

#[test]
fn play_phases_train_on_the_mmap_store_and_agree_with_memory() {
    // play-1: bidding plus the opening lead, so the perfect hash covers the
    // streamed play-key universe as well as the bidding keys.
    let temp = TempDir::new("mmap-play");
    let run = |store: &str, name: &str, iterations: &str| {
        let dir = temp.run(name);
        ok(&trainer(&[
            "train",
            "--phase",
            "play-1",
            "--store",
            store,
            "--threads",
            "1",
            "--seed",
            "3",
            "--run-dir",
            &dir,
            "--iterations",
            iterations,
        ]));
        dir
    };
    let mmap = run("mmap", "mmap", "150");
    let again = ok(&trainer(&[
        "resume",
        "--run-dir",
        &mmap,
        "--iterations",
        "150",
    ]));
    assert!(again.contains("at iteration 150"), "{again}");
    let memory = run("memory", "memory", "300");
    let (mmap, memory) = (digest(&mmap), digest(&memory));
    assert_eq!(mmap, memory, "mmap 150 + 150 vs memory 300");
    // Pinned as in the bidding test above (DCFR, before linear CFR became
    // the default: 9216b058; linear, before the children were walked
    // together: d0a32895).
    assert!(
        memory.ends_with("3,954 trained, digest cb6d04cb"),
        "training changed: {memory}"
    );
}

/// Trains a play-N run under a play key on one thread and returns its
/// directory.
fn train_keyed(
    temp: &TempDir,
    name: &str,
    phase: &str,
    store: &str,
    abstraction: &str,
    seed: &str,
    iterations: &str,
) -> String {
    let dir = temp.run(name);
    ok(&trainer(&[
        "train",
        "--phase",
        phase,
        "--store",
        store,
        "--abstraction",
        abstraction,
        "--threads",
        "1",
        "--seed",
        seed,
        "--run-dir",
        &dir,
        "--iterations",
        iterations,
    ]));
    dir
}

/// Exports `run_dir`'s policy, checks it says it was keyed under
/// `abstraction`, and decodes every play key in it.
fn exported_play_keys(
    temp: &TempDir,
    run_dir: &str,
    abstraction: euchre_game::keys::play::PlayAbstraction,
) -> Vec<euchre_game::keys::play::PlayKeyParts> {
    use euchre_game::keys::InfoKey;
    use euchre_game::keys::play::{PLAY_KIND, PlayKeyParts};

    let out = temp.run("policy.bin");
    ok(&trainer(&["export", "--run-dir", run_dir, "--out", &out]));
    let policy =
        euchre_bots::policy_file::PolicyFile::load(Path::new(&out)).expect("the policy loads");
    assert_eq!(policy.meta.recipe.play_abstraction, abstraction);
    let keys: Vec<PlayKeyParts> = policy
        .entries()
        .map(|(key, _)| key)
        .filter(|&key| (key >> 120) as u8 == PLAY_KIND)
        .map(|key| PlayKeyParts::decode(InfoKey(key)).expect("a play key decodes"))
        .collect();
    assert!(!keys.is_empty(), "no play keys in the policy");
    keys
}

#[test]
fn the_play_key_is_a_run_setting_that_the_store_and_the_policy_carry() {
    use euchre_game::keys::play::PlayAbstraction;

    // play-1 keys the opening lead, so the mmap store's universe holds
    // maker-seat play keys and the policy has some to carry.
    let temp = TempDir::new("play-key");
    let run = |store: &str, name: &str, abstraction: &str, iterations: &str| {
        train_keyed(&temp, name, "play-1", store, abstraction, "3", iterations)
    };
    let mmap = run("mmap", "mmap", "maker-seat", "150");
    let settings = std::fs::read_to_string(format!("{mmap}/settings.toml")).expect("settings");
    assert!(
        settings.contains("abstraction = \"maker-seat\""),
        "{settings}"
    );
    let status = ok(&trainer(&["status", "--run-dir", &mmap]));
    assert!(status.contains("play key   maker-seat"), "{status}");
    // `resume` keeps the run's play key without being told it.
    let again = ok(&trainer(&[
        "resume",
        "--run-dir",
        &mmap,
        "--iterations",
        "150",
    ]));
    assert!(again.contains("at iteration 150"), "{again}");
    let memory = run("memory", "memory", "maker-seat", "300");
    let plain = run("memory", "plain", "plain", "300");
    let (mmap_digest, memory_digest) = (digest(&mmap), digest(&memory));
    assert_eq!(mmap_digest, memory_digest, "mmap 150 + 150 vs memory 300");
    assert_ne!(
        memory_digest,
        digest(&plain),
        "the play key changed nothing"
    );

    // A run cannot change its key: its records mean the old key's infostates.
    let output = trainer(&["train", "--abstraction", "plain", "--run-dir", &mmap]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(
        error.contains("play key: the run has maker-seat, this command asks for plain"),
        "{error}"
    );
    let output = trainer(&["train", "--abstraction", "bids-too", "--run-dir", &mmap]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(
        error.contains("expected one of plain, maker-seat, trump-voids"),
        "{error}"
    );

    // The policy says how it was keyed, and every play key in it keeps the
    // maker's seat: a bot playing it keys its decisions the same way.
    for parts in exported_play_keys(&temp, &mmap, PlayAbstraction::MakerSeat) {
        assert!(parts.maker_offset.is_some(), "{parts:?} has no maker seat");
    }
}

#[test]
fn trump_voids_change_training_and_the_policy_keeps_them() {
    use euchre_game::keys::play::PlayAbstraction;

    // play-3 keys the first trick's first three cards: the third can
    // follow a trump lead that the second seat did not.
    let temp = TempDir::new("trump-voids");
    let run = |store: &str, name: &str, abstraction: &str| {
        train_keyed(&temp, name, "play-3", store, abstraction, "5", "200")
    };
    // The memory store: play-3's trump-void universe is 11 M keys, an
    // mmap store of it too slow to build in a debug test.
    let voids = run("memory", "voids", "trump-voids");
    let plain = run("memory", "plain", "plain");
    assert_ne!(digest(&voids), digest(&plain), "the voids changed nothing");
    let status = ok(&trainer(&["status", "--run-dir", &voids]));
    assert!(status.contains("play key   trump-voids"), "{status}");

    let shown: Vec<u8> = exported_play_keys(&temp, &voids, PlayAbstraction::TrumpVoids)
        .into_iter()
        .map(|parts| {
            parts
                .trump_voids
                .expect("every play key keeps the trump voids")
        })
        .collect();
    assert!(
        shown.iter().any(|&voids| voids != 0),
        "no key saw a seat fail to follow a trump lead"
    );
}

#[test]
fn card_play_trains_under_a_fixed_bidding_blueprint_that_the_run_guards() {
    use euchre_bots::policy_file::PolicyFile;
    use euchre_bots::policy_file::is_bidding_key;

    let temp = TempDir::new("blueprint");
    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "1000", "--export"]);
    let blueprint = format!("{bidding}/policy.bin");
    let play = temp.run("play");
    let play_args = |extra: &[&str]| {
        let mut args = vec![
            "train",
            "--phase",
            "play-2",
            "--store",
            "memory",
            "--threads",
            "1",
            "--run-dir",
            &play,
        ];
        args.extend_from_slice(extra);
        trainer(&args)
    };
    let stdout = ok(&play_args(&[
        "--iterations",
        "300",
        "--bidding-from",
        &blueprint,
        "--fixed-bids",
        "average",
        "--export",
    ]));
    assert!(
        stdout.contains("The bids come from the blueprint"),
        "{stdout}"
    );
    let status = ok(&trainer(&["status", "--run-dir", &play]));
    assert!(
        status.contains("bids       fixed, from the blueprint"),
        "{status}"
    );

    // The exported policy plays the blueprint's bids, row for row, and card
    // plays of its own; the run never trained a bid.
    let bids = bidding_rows;
    let source = PolicyFile::load(blueprint.as_ref()).expect("blueprint");
    let exported = PolicyFile::load(format!("{play}/policy.bin").as_ref()).expect("policy");
    assert!(!bids(&source).is_empty());
    assert_eq!(bids(&source), bids(&exported));
    assert!(exported.entries().any(|(key, _)| !is_bidding_key(key)));
    let recorded = exported
        .meta
        .recipe
        .bidding_from
        .expect("the file names its bids' source");
    assert_eq!(recorded.checksum, source.checksum());

    // Argmax bids, the default, put all weight on the blueprint's most
    // likely bid, as `policy-argmax:` plays it.
    let argmax_run = temp.run("argmax");
    ok(&trainer(&[
        "train",
        "--phase",
        "play-2",
        "--store",
        "memory",
        "--iterations",
        "50",
        "--run-dir",
        &argmax_run,
        "--bidding-from",
        &blueprint,
        "--export",
    ]));
    let argmax = PolicyFile::load(format!("{argmax_run}/policy.bin").as_ref()).expect("policy");
    assert_eq!(bids(&argmax), argmax_bidding_rows(&source));
    let error = refused(&play_args(&["--fixed-bids", "argmax"]));
    assert!(
        error.contains("name the blueprint with --bidding-from"),
        "{error}"
    );

    // A command that says nothing of the bids goes on with the run's own;
    // one that asks for other bids is told what differs.
    let stdout = ok(&play_args(&["--iterations", "10"]));
    assert!(stdout.contains("resumed"), "{stdout}");
    let status = ok(&trainer(&["status", "--run-dir", &play]));
    assert!(
        status.contains("bids       fixed, from the blueprint"),
        "{status}"
    );
    let error = refused(&play_args(&["--iterations", "10", "--bids", "trained"]));
    assert!(error.contains("bidding blueprint: the run has"), "{error}");

    // The bidding phase has nothing left to train with fixed bids.
    let error = refused(&trainer(&[
        "train",
        "--bidding-from",
        &blueprint,
        "--run-dir",
        &temp.run("bids"),
    ]));
    assert!(
        error.contains("--bidding-from fixes the bids of a card-play run"),
        "{error}"
    );

    // A missing file, and a file of other rules, are named.
    let missing = temp.run("missing.bin");
    let play_under = |blueprint: &str, run: &str| {
        refused(&trainer(&[
            "train",
            "--phase",
            "play-2",
            "--bidding-from",
            blueprint,
            "--run-dir",
            &temp.run(run),
        ]))
    };
    let error = play_under(&missing, "missing");
    assert!(error.contains("missing.bin"), "{error}");
    let lone = temp.run("lone.toml");
    std::fs::write(&lone, "[rules]\nlone_defender = true\n").expect("profile");
    let lone_bidding = temp.run("lone-bidding");
    train(
        &lone_bidding,
        "memory",
        &["--iterations", "100", "--export", "--config", &lone],
    );
    let error = play_under(&format!("{lone_bidding}/policy.bin"), "lone-play");
    assert!(error.contains("trained under other rules"), "{error}");

    // A blueprint replaced since the run started stops resume and export.
    train(&bidding, "memory", &["--iterations", "200", "--export"]);
    for command in [
        vec!["resume", "--run-dir", &play, "--iterations", "10"],
        vec!["export", "--run-dir", &play],
    ] {
        let error = refused(&trainer(&command));
        assert!(error.contains("changed since this run started"), "{error}");
    }
}

/// A policy's bidding rows, in key order.
fn bidding_rows(policy: &euchre_bots::policy_file::PolicyFile) -> Vec<(u128, Vec<u16>)> {
    policy
        .entries()
        .filter(|&(key, _)| euchre_bots::policy_file::is_bidding_key(key))
        .map(|(key, row)| (key, row.to_vec()))
        .collect()
}

/// The bidding rows a run plays under argmax fixed bids from `policy`:
/// all weight on each key's most likely bid.
fn argmax_bidding_rows(policy: &euchre_bots::policy_file::PolicyFile) -> Vec<(u128, Vec<u16>)> {
    bidding_rows(policy)
        .into_iter()
        .map(|(key, row)| {
            let weights: Vec<f64> = row.iter().map(|&p| f64::from(p)).collect();
            let mut hot = vec![0; row.len()];
            hot[euchre_bots::policy_file::most_likely(&weights)] = u16::MAX;
            (key, hot)
        })
        .collect()
}

#[test]
fn full_play_trains_its_bids_first_and_the_same_command_resumes_either_stage() {
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("staged");
    let run = temp.run("run");
    let full_play = |extra: &[&str]| full_play_in(&run, extra);

    // A session whose time runs out inside the bidding stage leaves card
    // play unstarted, says so, and status and export say where it stands.
    let stdout = ok(&full_play(&[
        "--bidding-iterations",
        "50000000",
        "--for",
        "1s",
    ]));
    assert!(
        stdout.contains("card play starts after it. Run the same command to go on."),
        "{stdout}"
    );
    assert!(!Path::new(&run).join("store").exists());
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(
        status.contains("bids       stage 1 of 2: the bidding stage in")
            && status.contains("of its 50,000,000 iterations checkpointed"),
        "{status}"
    );
    let error = refused(&trainer(&["export", "--run-dir", &run]));
    assert!(error.contains("has not started card play"), "{error}");
    // `resume` goes on with the stage, the same command too.
    let stage_total = |status: &str| -> u64 {
        let after = status.split("has ").nth(1).expect("a stage line");
        after
            .split(' ')
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    let before = stage_total(&status);
    assert!(before > 0, "{status}");
    ok(&trainer(&["resume", "--run-dir", &run, "--for", "1s"]));
    let resumed = stage_total(&ok(&trainer(&["status", "--run-dir", &run])));
    assert!(resumed > before, "{before} then {resumed}");
    // Another stage length is another run.
    let error = refused(&full_play(&[
        "--bidding-iterations",
        "3000",
        "--iterations",
        "10",
    ]));
    assert!(
        error.contains("bids: the run has a bidding stage of 50,000,000"),
        "{error}"
    );

    // A stage short enough to end: the bids are exported, then card play
    // trains under their argmax in the same command.
    let run2 = temp.run("run2");
    let staged = |extra: &[&str]| {
        let mut args = vec!["--bidding-iterations", "3000"];
        args.extend_from_slice(extra);
        full_play_in(&run2, &args)
    };
    let stdout = ok(&staged(&["--iterations", "200", "--export"]));
    assert!(
        stdout.contains("stage 2 of 2: card play under the bids of"),
        "{stdout}"
    );
    // The export measures card play as well as the bids, and status says
    // both.
    assert!(
        stdout.contains("local best response (one card play, 32 worlds each"),
        "{stdout}"
    );
    let status = ok(&trainer(&["status", "--run-dir", &run2]));
    assert!(
        status.contains("bids       trained in the run's bidding stage, then fixed")
            && status.contains("checkpoint iteration 200"),
        "{status}"
    );
    assert!(
        status.contains("round-1 bids) at iteration 200")
            && status.contains("card plays) at iteration 200"),
        "{status}"
    );
    // Any exported file can be measured after the fact.
    let measured = ok(&trainer(&[
        "exploit",
        "--policy",
        &format!("{run2}/policy.bin"),
        "--deals",
        "200",
        "--worlds",
        "4",
    ]));
    assert!(
        measured.contains("(200 deals,") && measured.contains("card plays)"),
        "{measured}"
    );
    let stage_policy =
        PolicyFile::load(format!("{run2}/bidding/policy.bin").as_ref()).expect("the bids");
    assert_eq!(stage_policy.meta.iterations, 3000);
    let exported = PolicyFile::load(format!("{run2}/policy.bin").as_ref()).expect("policy");
    let one_hot = argmax_bidding_rows(&stage_policy);
    assert!(!one_hot.is_empty());
    assert_eq!(
        bidding_rows(&exported),
        one_hot,
        "card play ran under the stage's argmax bids"
    );
    assert_eq!(
        exported
            .meta
            .recipe
            .bidding_from
            .expect("the file names its bids")
            .checksum,
        stage_policy.checksum()
    );
    // Run again, the same command resumes card play; the stage is not
    // trained again.
    let stdout = ok(&staged(&["--iterations", "100"]));
    assert!(
        stdout.contains("resumed") && stdout.contains("run total 300 iterations"),
        "{stdout}"
    );
    assert!(!stdout.contains("stage 2 of 2"), "{stdout}");

    // A run made before staging was full play's default (bids trained with
    // card play) goes on as it was made when the command does not choose.
    let joint = temp.run("joint");
    let joint_args = |extra: &[&str]| {
        let mut args = vec!["--iterations", "100"];
        args.extend_from_slice(extra);
        full_play_in(&joint, &args)
    };
    ok(&joint_args(&["--bids", "trained"]));
    let stdout = ok(&joint_args(&[]));
    assert!(stdout.contains("run total 200 iterations"), "{stdout}");
    assert!(!Path::new(&joint).join("bidding").exists());
    let error = refused(&joint_args(&["--bids", "staged"]));
    assert!(
        error.contains("bids: the run has no bidding stage"),
        "{error}"
    );
}

#[test]
fn a_full_play_curve_point_carries_the_card_play_local_best_response() {
    let temp = TempDir::new("curve-full-play");
    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "1000", "--export"]);
    let run = temp.run("full-play");
    ok(&trainer(&[
        "train",
        "--phase",
        "full-play",
        "--store",
        "memory",
        "--bidding-from",
        &format!("{bidding}/policy.bin"),
        "--threads",
        "1",
        "--for",
        "2s",
        "--eval-every",
        "2s",
        "--eval-hands",
        "40",
        "--run-dir",
        &run,
    ]));
    let csv = std::fs::read_to_string(Path::new(&run).join("curve.csv")).expect("curve.csv");
    let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    let gain: f64 = last[6].parse().unwrap_or_else(|_| panic!("{csv}"));
    let interval: f64 = last[7].parse().unwrap_or_else(|_| panic!("{csv}"));
    assert!(interval > 0.0 && gain.abs() < 1.0, "{csv}");
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(status.contains("card-play local best response"), "{status}");
}

/// A run that keeps no average in card play trains the same regrets (the
/// same draws from the same current strategies, nothing written where the
/// sums were), so its export is the average run's bids beside the average
/// run's current card play, row for row; it says so in its settings and
/// its policy, refuses an average it never kept, and the bidding phase,
/// which has no card play, refuses the setting.
#[test]
fn card_play_without_an_average_exports_the_bids_average_and_card_plays_current_strategy() {
    use euchre_bots::meta::Strategy;
    use euchre_bots::policy_file::{PolicyFile, is_bidding_key};

    let temp = TempDir::new("card-play-current");
    // Vanilla CFR: no discount to catch up, so the regrets of the two runs
    // are the same floats whether or not an opponent's visit writes.
    let profile = |name: &str, card_play: &str| {
        let path = temp.run(name);
        std::fs::write(
            &path,
            format!("[solver]\nschedule = \"vanilla\"\n{card_play}"),
        )
        .unwrap();
        path
    };
    let kept = profile("average.toml", "");
    let not_kept = profile("current.toml", "card_play_strategy = \"current\"\n");
    let train = |name: &str, config: &str| {
        let dir = temp.run(name);
        ok(&trainer(&[
            "train",
            "--config",
            config,
            "--phase",
            "play-1",
            "--threads",
            "1",
            "--seed",
            "3",
            "--run-dir",
            &dir,
            "--iterations",
            "400",
        ]));
        dir
    };
    let average = train("average", &kept);
    let current = train("current", &not_kept);
    let settings = std::fs::read_to_string(format!("{current}/settings.toml")).unwrap();
    assert!(
        settings.contains("card_play_strategy = \"current\""),
        "{settings}"
    );
    let settings = std::fs::read_to_string(format!("{average}/settings.toml")).unwrap();
    assert!(!settings.contains("card_play_strategy"), "{settings}");
    let status = ok(&trainer(&["status", "--run-dir", &current]));
    assert!(status.contains("card play  keeps no average"), "{status}");
    assert_ne!(digest(&current), digest(&average), "the sums were kept");

    let export = |dir: &str, name: &str, strategy: Option<&str>| {
        let out = temp.run(name);
        let mut args = vec!["export", "--run-dir", dir, "--out", &out];
        if let Some(strategy) = strategy {
            args.extend(["--strategy", strategy]);
        }
        ok(&trainer(&args));
        PolicyFile::load(Path::new(&out)).expect("the policy loads")
    };
    let mixed = export(&current, "mixed.bin", None);
    assert_eq!(mixed.meta.strategy, Strategy::CurrentCardPlay);
    let (bids, card_play): (Vec<_>, Vec<_>) = mixed
        .entries()
        .map(|(key, row)| (key, row.to_vec()))
        .partition(|(key, _)| is_bidding_key(*key));
    assert!(!bids.is_empty() && !card_play.is_empty());
    let rows = |policy: &PolicyFile, bidding: bool| -> Vec<(u128, Vec<u16>)> {
        policy
            .entries()
            .filter(|(key, _)| is_bidding_key(*key) == bidding)
            .map(|(key, row)| (key, row.to_vec()))
            .collect()
    };
    assert_eq!(bids, rows(&export(&average, "average.bin", None), true));
    assert_eq!(
        card_play,
        rows(
            &export(&average, "average-current.bin", Some("current")),
            false
        )
    );

    let error = refused(&trainer(&[
        "export",
        "--run-dir",
        &current,
        "--strategy",
        "average",
    ]));
    assert!(error.contains("keeps no average in card play"), "{error}");
    let error = refused(&trainer(&[
        "train",
        "--config",
        &kept,
        "--phase",
        "play-1",
        "--seed",
        "3",
        "--card-play-strategy",
        "average",
        "--run-dir",
        &current,
        "--iterations",
        "10",
    ]));
    assert!(
        error.contains("card play's strategy: the run has current, this command asks for average"),
        "{error}"
    );
    let error = refused(&trainer(&[
        "train",
        "--phase",
        "bidding",
        "--card-play-strategy",
        "current",
        "--run-dir",
        &temp.run("bidding"),
    ]));
    assert!(
        error.contains("the bidding phase has no card play"),
        "{error}"
    );
}

/// The user's command keeps no card-play average without being told, and
/// says so in its settings, its status and its export; a run made while
/// the average was the default (nothing recorded) goes on keeping it when
/// the command does not say, and a profile's choice counts as a flag's.
#[test]
fn full_plays_card_play_keeps_no_average_by_default_and_average_runs_resume_as_made() {
    use euchre_bots::meta::Strategy;
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("card-play-default");
    let budget = ["--bidding-iterations", "300", "--iterations", "20"];
    let recorded = "card_play_strategy = \"current\"";
    let settings = |run: &str| std::fs::read_to_string(format!("{run}/settings.toml")).unwrap();
    let exported = |run: &str| {
        let out = format!("{run}/policy.bin");
        ok(&trainer(&["export", "--run-dir", run, "--out", &out]));
        PolicyFile::load(Path::new(&out)).expect("the policy loads")
    };

    let fresh = temp.run("fresh");
    ok(&full_play_in(&fresh, &budget));
    assert!(settings(&fresh).contains(recorded), "{}", settings(&fresh));
    let bidding_stage = std::fs::read_to_string(format!("{fresh}/bidding/settings.toml")).unwrap();
    assert!(
        !bidding_stage.contains("card_play_strategy"),
        "{bidding_stage}"
    );
    let status = ok(&trainer(&["status", "--run-dir", &fresh]));
    assert!(status.contains("card play  keeps no average"), "{status}");
    assert_eq!(exported(&fresh).meta.strategy, Strategy::CurrentCardPlay);

    // As a run was made under the average default: nothing recorded.
    let old = temp.run("old");
    ok(&full_play_in(
        &old,
        &[&budget[..], &["--card-play-strategy", "average"]].concat(),
    ));
    assert!(
        !settings(&old).contains("card_play_strategy"),
        "{}",
        settings(&old)
    );
    let resumed = ok(&full_play_in(&old, &["--iterations", "20"]));
    assert!(resumed.contains("run total 40 iterations"), "{resumed}");
    assert!(
        !settings(&old).contains("card_play_strategy"),
        "{}",
        settings(&old)
    );
    assert_eq!(exported(&old).meta.strategy, Strategy::Average);
    let error = refused(&full_play_in(
        &old,
        &["--iterations", "20", "--card-play-strategy", "current"],
    ));
    assert!(
        error.contains("card play's strategy: the run has average, this command asks for current"),
        "{error}"
    );

    // A profile that names the average is a choice, as the flag is.
    let profile = temp.run("average.toml");
    std::fs::write(&profile, "[solver]\ncard_play_strategy = \"average\"\n").unwrap();
    let chosen = temp.run("chosen");
    ok(&full_play_in(
        &chosen,
        &[&budget[..], &["--config", &profile]].concat(),
    ));
    assert!(
        !settings(&chosen).contains("card_play_strategy"),
        "{}",
        settings(&chosen)
    );
    assert_eq!(exported(&chosen).meta.strategy, Strategy::Average);
}

/// `trainer search-leads` weighs the opening leads by dealing hands,
/// decides the most common, keeps them in the run's policy (which says so
/// and plays), and asked for more keys goes on from its progress; a
/// bidding policy and a progress file another search wrote are refused
/// with the fix named; exported again, the table gets its leads back.
#[test]
fn searched_leads_are_kept_in_the_policy_and_more_keys_go_on_from_the_progress() {
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("searched-leads");
    let run = temp.run("run");
    ok(&full_play_in(
        &run,
        &[
            "--bidding-iterations",
            "300",
            "--iterations",
            "200",
            "--eval-every",
            "off",
            "--export",
        ],
    ));
    let search = |run: &str, keys: &str| {
        trainer(&[
            "search-leads",
            "--run-dir",
            run,
            "--worlds",
            "4",
            "--deals",
            "2000",
            "--keys",
            keys,
            "--quiet",
        ])
    };
    let policy = Path::new(&run).join("policy.bin");
    let searched = || {
        PolicyFile::read_header(&policy)
            .unwrap()
            .meta
            .searched_leads
            .expect("the file says what it holds")
    };
    let first = ok(&search(&run, "20"));
    assert!(
        first.contains("weighed the opening leads of 2,000 hands dealt"),
        "{first}"
    );
    assert!(first.contains("decided 20 leads"), "{first}");
    let after_first = searched();
    assert_eq!(after_first.keys, 20);
    assert!(after_first.mass > 0.0 && after_first.mass < 1.0);
    assert_eq!(after_first.deals, 2000);
    let second = ok(&search(&run, "30"));
    assert!(second.contains("(20 already decided)"), "{second}");
    assert!(second.contains("decided 10 leads"), "{second}");
    assert_eq!(searched().keys, 30);
    assert!(searched().mass > after_first.mass);
    let spec = format!("policy-argmax:{}", policy.display());
    ok(&trainer(&[
        "eval", "--a", &spec, "--b", "random", "--hands", "20",
    ]));

    // The progress is kept under the table's iterations and the worlds:
    // the same table exported again names it, and the leads come back
    // with none decided again.
    let iterations = PolicyFile::read_header(&policy).unwrap().meta.iterations;
    let name = format!("search-leads-{iterations}it-4w.progress");
    let exported = ok(&trainer(&["export", "--run-dir", &run]));
    assert!(
        PolicyFile::read_header(&policy)
            .unwrap()
            .meta
            .searched_leads
            .is_none()
    );
    assert!(
        exported.contains(&format!("{name} keeps what `trainer search-leads` decided")),
        "{exported}"
    );
    let again = ok(&search(&run, "30"));
    assert!(again.contains("(30 already decided)"), "{again}");
    assert!(again.contains("decided 0 leads"), "{again}");
    assert_eq!(searched().keys, 30);
    // A file there whose header names another search is refused.
    let progress = Path::new(&run).join(name);
    let mut bytes = std::fs::read(&progress).unwrap();
    bytes[16] ^= 1;
    std::fs::write(&progress, bytes).unwrap();
    let stderr = refused(&search(&run, "30"));
    assert!(stderr.contains("delete it to start over"), "{stderr}");

    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "50"]);
    ok(&trainer(&["export", "--run-dir", &bidding]));
    let stderr = refused(&search(&bidding, "5"));
    assert!(stderr.contains("full-play table"), "{stderr}");
}
