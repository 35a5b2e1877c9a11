//! Training end to end, through real `trainer` processes: resume equals one
//! long run on every backend, backends agree, kill -9 and Ctrl-C never cost
//! more than the work since the last checkpoint, the learning curve and
//! pruning, and bad requests are refused with a reason.

mod support;

use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use support::{RunPaths, TempDir, digest, ok, spawn, text, train_bidding as train, trainer};

#[test]
fn resuming_equals_one_long_run_and_every_backend_agrees() {
    let temp = TempDir::new("resume");
    let mut digests = Vec::new();
    for store in ["memory", "lmdb", "mmap"] {
        let whole = temp.run(&format!("whole-{store}"));
        train(&whole, store, &["--iterations", "400"]);
        let halves = temp.run(&format!("halves-{store}"));
        train(&halves, store, &["--iterations", "200"]);
        let resumed = ok(&trainer(&[
            "resume",
            "--run-dir",
            &halves,
            "--iterations",
            "200",
        ]));
        assert!(
            resumed.contains("resumed") && resumed.contains("at iteration 200"),
            "{resumed}"
        );
        let (one, two) = (digest(&whole), digest(&halves));
        assert_eq!(one, two, "{store}: 400 in one go vs 200 + 200");
        digests.push(one);
    }
    assert_eq!(digests[0], digests[1], "memory vs lmdb");
    assert_eq!(digests[0], digests[2], "memory vs mmap");
    // Pinned. A change that means to alter training (a new sampling
    // scheme, a new key) updates it deliberately, and says so: this one
    // moved when linear CFR became the default schedule (issue 13), and
    // again when the traverser's children came to be walked together
    // through the other seats' decisions (issue 28): the same samples from
    // the same distributions, drawn from the stream in another order.
    assert!(
        digests[0].ends_with("3,393 trained, digest a3f408ca"),
        "training changed: {}",
        digests[0]
    );
    // DCFR, the default before, still trains what it trained at the
    // engineering refactor of issue 12, but for the children walked
    // together (issue 28), which moved it as it moved the default.
    let dcfr = temp.run("dcfr");
    let profile = temp.run("dcfr.toml");
    std::fs::write(&profile, "[solver]\nschedule = \"dcfr\"\n").expect("profile");
    train(
        &dcfr,
        "memory",
        &["--iterations", "400", "--config", &profile],
    );
    assert!(
        digest(&dcfr).ends_with("3,393 trained, digest dbbe066d"),
        "DCFR training changed: {}",
        digest(&dcfr)
    );
}

#[test]
fn the_same_command_again_resumes_and_other_settings_are_named() {
    let temp = TempDir::new("again");
    let run = temp.run("run");
    train(&run, "memory", &["--iterations", "50"]);
    let again = train(&run, "memory", &["--iterations", "50"]);
    assert!(again.contains("resumed"), "{again}");
    assert!(again.contains("run total 100 iterations"), "{again}");

    let output = trainer(&[
        "train",
        "--phase",
        "play-2",
        "--store",
        "lmdb",
        "--seed",
        "8",
        "--run-dir",
        &run,
    ]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    for setting in ["phase", "store", "seed", "trainer resume"] {
        assert!(error.contains(setting), "{setting}: {error}");
    }

    // Leaves change what the solver learns, so they are part of the run.
    let output = trainer(&["train", "--leaves", "heuristic-play", "--run-dir", &run]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(
        error.contains("leaves: the run has open-hand, this command asks for heuristic-play"),
        "{error}"
    );

    // So is the record encoding: a run made before full play defaulted to
    // i16 keeps its f32 records, and the message says how to go on.
    let output = trainer(&["train", "--encoding", "i16", "--run-dir", &run]);
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(
        error.contains("store encoding: the run has f32, this command asks for i16"),
        "{error}"
    );
    assert!(error.contains("trainer resume"), "{error}");
}

/// Polls the run's status until its checkpoint reaches `iterations`.
fn wait_for_checkpoint(run: &str, iterations: u64, child: &mut Child) {
    let started = Instant::now();
    loop {
        // Whether it has exited is asked before the manifest is read, so a
        // run that checkpoints and ends between the two reads is still seen
        // to have reached its checkpoint.
        let exited = child.try_wait().expect("the trainer's status");
        let manifest = store::Manifest::read(&Path::new(run).join("store")).expect("a manifest");
        if let Some(manifest) = manifest
            && let Some(progress) = manifest.state.decode::<serde_json::Value>().unwrap()
            && progress["iterations"].as_u64().unwrap_or(0) >= iterations
        {
            return;
        }
        if let Some(status) = exited {
            panic!("the trainer exited early with {status}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no checkpoint came"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn kill_9_at_any_moment_resumes_from_the_last_checkpoint() {
    let temp = TempDir::new("kill");
    let reference = temp.run("reference");
    train(&reference, "memory", &["--until", "1500"]);
    let expected = digest(&reference);
    // The mmap store both ways: changes held until checkpoints (what a
    // store this small gets by default) and written back continuously.
    let attempts = [
        ("memory", "auto", 0u64),
        ("memory", "auto", 113),
        ("mmap", "at-checkpoint", 0),
        ("mmap", "at-checkpoint", 61),
        ("mmap", "at-checkpoint", 173),
        ("mmap", "continuous", 0),
        ("mmap", "continuous", 61),
        ("mmap", "continuous", 173),
        ("lmdb", "auto", 0),
        ("lmdb", "auto", 97),
    ];
    for (attempt, (backend, writeback, delay_ms)) in attempts.into_iter().enumerate() {
        let run = temp.run(&format!("killed-{attempt}"));
        let mut child = spawn(&[
            "train",
            "--mmap-writeback",
            writeback,
            "--phase",
            "bidding",
            "--store",
            backend,
            "--threads",
            "1",
            "--seed",
            "7",
            "--run-dir",
            &run,
            "--until",
            "1500",
            "--checkpoint-every",
            "100",
        ]);
        wait_for_checkpoint(&run, 100, &mut child);
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().expect("SIGKILL");
        child.wait().ok();
        let resumed = ok(&trainer(&["resume", "--run-dir", &run, "--until", "1500"]));
        assert!(resumed.contains("resumed"), "{resumed}");
        assert_eq!(
            digest(&run),
            expected,
            "{backend} ({writeback} writeback) killed {delay_ms} ms after a checkpoint"
        );
    }
}

/// A run with no practical end, returned once its first checkpoint is on
/// disk.
fn spawn_endless_run(run: &str) -> Child {
    let mut child = spawn(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--threads",
        "1",
        "--run-dir",
        run,
        "--iterations",
        "100000000",
        "--checkpoint-every",
        "100",
    ]);
    wait_for_checkpoint(run, 100, &mut child);
    child
}

/// Ctrl-C, SIGTERM, SIGHUP and SIGUSR1 each stop a run after its batch,
/// checkpointed, with a clean exit.
#[test]
fn a_stop_signal_checkpoints_and_exits_cleanly() {
    let temp = TempDir::new("sigint");
    for signal in ["INT", "TERM", "HUP", "USR1"] {
        let run = temp.run(signal);
        let child = spawn_endless_run(&run);
        let pid = child.id().to_string();
        let signalled = Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("kill runs");
        assert!(signalled.success());
        let output = child.wait_with_output().expect("the trainer exits");
        let stdout = ok(&output);
        assert!(
            stdout.contains("stopped on interrupt"),
            "SIG{signal}: {stdout}"
        );
        let status = ok(&trainer(&["status", "--run-dir", &run]));
        let total = stdout
            .split("run total ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .expect("a run total");
        assert!(
            status.contains(&format!("checkpoint iteration {total}")),
            "SIG{signal}: {status}\n{stdout}"
        );
    }
}

#[test]
fn a_second_trainer_on_one_directory_is_refused_with_the_pid() {
    let temp = TempDir::new("second");
    let run = temp.run("run");
    let mut first = spawn_endless_run(&run);
    let output = trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--run-dir",
        &run,
    ]);
    first.kill().ok();
    first.wait().ok();
    assert!(!output.status.success());
    let error = text(&output.stderr);
    assert!(error.contains(&first.id().to_string()), "{error}");
    assert!(error.contains("another trainer"), "{error}");
}

/// The locks are held on the run and store directories themselves, so
/// deleting the lock files while a trainer runs lets no second one in: the
/// mmap records of two trainers once ended up mixed that way.
#[test]
fn deleting_the_lock_files_lets_no_second_trainer_in() {
    let temp = TempDir::new("locks-deleted");
    let run = temp.run("run");
    let mut first = spawn_endless_run(&run);
    for lock in ["run.lock", "store/store.lock"] {
        std::fs::remove_file(Path::new(&run).join(lock)).ok();
    }
    let output = trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--run-dir",
        &run,
        "--iterations",
        "10",
    ]);
    first.kill().ok();
    first.wait().ok();
    let error = text(&output.stderr);
    assert!(!output.status.success(), "{}", text(&output.stdout));
    assert!(error.contains("another trainer"), "{error}");
}

#[test]
fn bad_requests_are_explained() {
    let temp = TempDir::new("bad");
    let cases: [(&[&str], &str); 6] = [
        (&["--phase", "play-40"], "play-N"),
        (&["--store", "redis"], "redis"),
        (&["train", "--for", "soon"], "duration"),
        (
            &["train", "--iterations", "0", "--run-dir", &temp.run("zero")],
            "at least 1",
        ),
        (
            &["resume", "--run-dir", &temp.run("nothing")],
            "holds no run",
        ),
        (
            &["export", "--run-dir", &temp.run("nothing")],
            "holds no run",
        ),
    ];
    for (args, expected) in cases {
        let output = trainer(args);
        assert!(!output.status.success(), "{args:?} succeeded");
        let error = text(&output.stderr);
        assert!(error.contains(expected), "{args:?}: {error}");
        assert!(!error.contains("panicked"), "{args:?}: {error}");
    }
}

#[test]
fn a_run_measures_its_learning_curve_and_status_prints_the_latest_point() {
    let temp = TempDir::new("curve");
    let run = temp.run("run");
    let stdout = train(
        &run,
        "memory",
        &[
            "--for",
            "3s",
            "--eval-every",
            "1s",
            "--eval-against",
            "heuristic",
            "--eval-hands",
            "40",
        ],
    );
    assert!(stdout.contains("session finished"), "{stdout}");
    let csv = std::fs::read_to_string(Path::new(&run).join("curve.csv")).expect("curve.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some(
            "iterations,train_seconds,a_minus_b,interval95,point_share,hands,card_play_lbr,card_play_lbr_interval95,opponent"
        )
    );
    let points: Vec<Vec<&str>> = lines.map(|line| line.split(',').collect()).collect();
    // `--for` counts training time only, so the point due as the budget
    // runs out (at 3 s) is measured too. (A slow batch may step over a
    // point on a busy machine, so only the last one is pinned.)
    let last_seconds: f64 = points.last().expect("a point")[1].parse().unwrap();
    assert!(last_seconds >= 3.0, "the final point is missing: {csv}");
    for (index, point) in points.iter().enumerate() {
        assert_eq!(point.len(), 9, "{csv}");
        let seconds: f64 = point[1].parse().unwrap();
        assert!(
            seconds >= (index + 1) as f64,
            "points fall on the grid: {csv}"
        );
        let share: f64 = point[4].parse().unwrap();
        assert!((0.0..=1.0).contains(&share), "{csv}");
        // A bidding run plays no card it trained: no card-play response.
        assert_eq!(
            (point[5], point[6], point[7], point[8]),
            ("40", "", "", "heuristic"),
            "{csv}"
        );
    }
    let svg = std::fs::read_to_string(Path::new(&run).join("curve.svg")).expect("curve.svg");
    assert!(svg.starts_with("<svg"), "{svg}");
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(
        status.contains("curve") && status.contains("points per hand against heuristic"),
        "{status}"
    );

    for (flags, expected) in [
        (["--eval-against", "pimcc:3"], "pimcc"),
        (["--eval-hands", "41"], "even"),
    ] {
        let mut args = vec![
            "train",
            "--phase",
            "bidding",
            "--run-dir",
            &run,
            "--threads",
            "1",
            "--seed",
            "7",
            "--store",
            "memory",
            "--eval-every",
            "1m",
        ];
        args.extend_from_slice(&flags);
        let refused = trainer(&args);
        assert!(!refused.status.success(), "{flags:?}");
        let stderr = text(&refused.stderr);
        assert!(stderr.contains(expected), "{flags:?}: {stderr}");
    }
}

#[test]
fn pruning_is_a_session_setting_that_resume_keeps_and_bad_values_are_explained() {
    let temp = TempDir::new("prune");
    let run = temp.run("run");
    let profile = temp.run("linear.toml");

    std::fs::write(&profile, "[solver]\nschedule = \"linear\"\n").expect("profile");
    let trained = trainer(&[
        "train",
        "--config",
        &profile,
        "--run-dir",
        &run,
        "--threads",
        "1",
        "--iterations",
        "3000",
        "--prune",
        "0.5",
        "--prune-after",
        "1000",
    ]);
    let log = text(&trained.stderr);
    assert!(trained.status.success(), "{log}");
    assert!(
        log.contains(
            "pruning: 95% of iterations after iteration 1000 skip actions with regret below -0.5"
        ),
        "{log}"
    );
    let skipped: u64 = log
        .split("pruning skipped ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .map(|count| count.replace(',', "").parse().expect("a count"))
        .expect("the session says what it pruned");
    assert!(skipped > 0, "{log}");

    // Resuming keeps it; `--prune 0` turns it off for a session.
    let resumed = trainer(&["resume", "--run-dir", &run, "--iterations", "100"]);
    assert!(text(&resumed.stderr).contains("pruning: 95%"));
    let off = trainer(&[
        "resume",
        "--run-dir",
        &run,
        "--iterations",
        "100",
        "--prune",
        "0",
    ]);
    assert!(off.status.success());
    assert!(
        !text(&off.stderr).contains("pruning"),
        "{}",
        text(&off.stderr)
    );

    let negative = trainer(&["train", "--run-dir", &temp.run("bad"), "--prune=-3"]);
    assert!(!negative.status.success());
    assert!(
        text(&negative.stderr)
            .contains("as a positive number (--prune 20), or 0 to turn pruning off"),
        "{}",
        text(&negative.stderr)
    );
    let orphan = trainer(&["train", "--run-dir", &temp.run("bad"), "--prune-after", "5"]);
    assert!(!orphan.status.success());
    assert!(
        text(&orphan.stderr).contains("--prune"),
        "{}",
        text(&orphan.stderr)
    );
}

#[test]
fn status_before_the_first_checkpoint_says_none_yet() {
    use trainer::config::{RunProfile, TrainOptions, resolve};
    use trainer::training::session::Session;

    let temp = TempDir::new("fresh-status");
    let run = temp.run("run");
    let resolved = resolve(RunProfile::default(), TrainOptions::default()).unwrap();
    let (identity, settings) = (resolved.identity, resolved.session);
    // Opening builds the store and saves the settings; nothing is trained.
    drop(Session::open(Path::new(&run), &identity, &settings, &mut ()).unwrap());
    let status = trainer::training::status::RunStatus::read(Path::new(&run), false, None)
        .unwrap()
        .to_string();
    assert!(status.contains("checkpoint none yet"), "{status}");
    assert!(!status.contains("days ago"), "{status}");
}
