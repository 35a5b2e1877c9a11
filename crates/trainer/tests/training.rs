//! Training end to end, through real `trainer` processes: resume equals one
//! long run on every backend, backends agree, kill -9 and Ctrl-C never cost
//! more than the work since the last checkpoint, and bad requests are
//! refused with a reason.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use support::{ok, refused, text, trainer};

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the trainer binary runs")
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path =
            std::env::temp_dir().join(format!("trainer-training-{name}-{}", std::process::id()));
        std::fs::remove_dir_all(&path).ok();
        TempDir(path)
    }

    fn run(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// The digest line of `status --digest`: the trained records, backend-free.
fn digest(run: &str) -> String {
    let stdout = ok(&trainer(&["status", "--run-dir", run, "--digest"]));
    stdout
        .lines()
        .find(|line| line.starts_with("records"))
        .unwrap_or_else(|| panic!("no digest in {stdout}"))
        .to_string()
}

fn train(run: &str, store: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "train",
        "--phase",
        "bidding",
        "--store",
        store,
        "--threads",
        "1",
        "--seed",
        "7",
        "--run-dir",
        run,
    ];
    args.extend_from_slice(extra);
    ok(&trainer(&args))
}

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
fn export_writes_a_policy_and_says_what_was_learned() {
    let temp = TempDir::new("export");
    let run = temp.run("run");
    train(&run, "memory", &["--iterations", "300"]);
    let out = temp.run("policy.bin");
    let stdout = ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
    assert!(stdout.contains("exported"), "{stdout}");
    assert!(stdout.contains("right bower turned up"), "{stdout}");
    assert!(std::fs::metadata(&out).expect("a policy file").len() > 1000);

    // The exported bidding policy plays (the heuristic takes its card play)...
    let spec = format!("policy:{out}");
    let played = ok(&trainer(&[
        "eval", "--a", &spec, "--b", "random", "--hands", "200",
    ]));
    assert!(
        played.contains("past the phase's horizon (played by heuristic)"),
        "{played}"
    );
    // Open-hand leaves assume open-hand play: a heuristic after the policy
    // is a mismatch the match reports before its result.
    let warned = text(&trainer(&["eval", "--a", &spec, "--b", "random", "--hands", "2"]).stderr);
    assert!(
        warned.contains("trained on open-hand leaves, but heuristic plays past its phase"),
        "{warned}"
    );
    // A composite bot hands the decisions past the horizon to the bot
    // after the `+`, which may be any bot, a composite included.
    let composite = format!("policy:{out}+pimc:3");
    let played = ok(&trainer(&[
        "eval",
        "--a",
        &composite,
        "--b",
        "heuristic",
        "--hands",
        "40",
    ]));
    assert!(played.contains("+pimc:3"), "{played}");
    assert!(
        !text(&trainer(&["eval", "--a", &composite, "--b", "random", "--hands", "2"]).stderr)
            .contains("warning"),
        "open-hand leaves followed by PIMC is the matching pairing"
    );
    assert!(
        played.contains("past the phase's horizon (played by pimc:3)"),
        "{played}"
    );
    let nested = format!("policy-argmax:{out}+policy:{out}+random");
    let played = ok(&trainer(&[
        "eval", "--a", &nested, "--b", "random", "--hands", "20",
    ]));
    assert!(played.contains("(played by policy:"), "{played}");
    for (bad, expected) in [
        (
            format!("policy:{out}+pimc:x"),
            "pimc needs a number of worlds",
        ),
        (format!("policy:{out}+"), "unknown bot"),
        ("policy:+heuristic".to_owned(), "before the '+'"),
    ] {
        let refused = trainer(&["eval", "--a", &bad, "--b", "random", "--hands", "2"]);
        assert!(!refused.status.success(), "{bad}");
        let stderr = text(&refused.stderr);
        assert!(stderr.contains(expected), "{bad}: {stderr}");
    }
    // ...but not under rules it was never trained for.
    let profile = temp.run("lone.toml");
    std::fs::write(&profile, "[rules]\nlone_defender = true\n").expect("a profile");
    let refused = trainer(&["eval", "--a", &spec, "--b", "random", "--config", &profile]);
    assert!(!refused.status.success());
    let stderr = text(&refused.stderr);
    assert!(
        stderr.contains("was trained under") && stderr.contains("--config"),
        "{stderr}"
    );
}

/// Trains 300 bidding iterations with `leaves`, checks that the run
/// records them, and exports the policy; returns the run and policy paths.
fn train_with_leaves(temp: &TempDir, leaves: &str) -> (String, String) {
    let run = temp.run("run");
    let trained = train(&run, "memory", &["--iterations", "300", "--leaves", leaves]);
    assert!(trained.contains("300 iterations"), "{trained}");
    let settings = std::fs::read_to_string(format!("{run}/settings.toml")).expect("settings");
    assert!(
        settings.contains(&format!("leaves = \"{leaves}\"")),
        "{settings}"
    );
    let out = temp.run("policy.bin");
    ok(&trainer(&["export", "--run-dir", &run, "--out", &out]));
    (run, out)
}

/// What `eval` warns about the policy at `policy` followed by `beyond`.
fn eval_warnings(policy: &str, beyond: &str) -> String {
    let output = trainer(&[
        "eval",
        "--a",
        &format!("policy:{policy}+{beyond}"),
        "--b",
        "random",
        "--hands",
        "2",
    ]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    text(&output.stderr)
}

/// `--out` with a bare file name writes into the current directory; the
/// directory sync after the rename once tried to open the empty path and
/// failed after the file was written.
#[test]
fn export_to_a_bare_file_name_writes_into_the_current_directory() {
    let temp = TempDir::new("bare-out");
    let run = temp.run("run");
    train(&run, "memory", &["--iterations", "100"]);
    let output = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["export", "--run-dir", "run", "--out", "bare.bin"])
        .current_dir(&temp.0)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("the trainer binary runs");
    ok(&output);
    let policy = euchre_bots::policy_file::PolicyFile::load(&temp.0.join("bare.bin"));
    assert!(policy.is_ok(), "{policy:?}");
}

#[test]
fn heuristic_play_leaves_are_a_run_setting_recorded_in_the_policy() {
    let temp = TempDir::new("leaves");
    let (run, out) = train_with_leaves(&temp, "heuristic-play");
    // `resume` keeps the run's leaves without being told them.
    let resumed = ok(&trainer(&[
        "resume",
        "--run-dir",
        &run,
        "--iterations",
        "100",
    ]));
    assert!(resumed.contains("run total 400 iterations"), "{resumed}");

    let matching = eval_warnings(&out, "heuristic");
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let warning = eval_warnings(&out, "pimc:2");
    assert!(
        warning.contains("trained on heuristic-play leaves, but pimc:2 plays past its phase"),
        "{warning}"
    );

    let refused = trainer(&[
        "train",
        "--leaves",
        "rollouts",
        "--run-dir",
        &temp.run("other"),
    ]);
    assert!(!refused.status.success());
    let error = text(&refused.stderr);
    assert!(
        error.contains("open-hand, heuristic-play, pimc-calibrated or table-play"),
        "{error}"
    );
}

/// Bids trained against the heuristic's bids are a run setting: saved,
/// kept by `resume`, named by `status`, carried by the policy and by a
/// full-play run's bidding stage; the run guards it, and every setting
/// that cannot be met is refused by name.
#[test]
fn bids_trained_against_the_heuristics_bids_are_a_run_setting_that_the_policy_carries() {
    use euchre_bots::opponent_bids::OpponentBids;
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("opponent-bids");
    let modelled = temp.run("modelled");
    let plain = temp.run("plain");
    let model = ["--opponent-bids", "heuristic:0.5"];
    train(
        &modelled,
        "memory",
        &[&["--iterations", "2000"][..], &model].concat(),
    );
    train(&plain, "memory", &["--iterations", "2000"]);
    let settings = std::fs::read_to_string(format!("{modelled}/settings.toml")).unwrap();
    assert!(
        settings.contains("opponent_bids = \"heuristic:0.5\""),
        "{settings}"
    );
    // An equilibrium run's settings are written as they always were.
    let settings = std::fs::read_to_string(format!("{plain}/settings.toml")).unwrap();
    assert!(!settings.contains("opponent_bids"), "{settings}");
    assert_ne!(digest(&modelled), digest(&plain));
    let status = ok(&trainer(&["status", "--run-dir", &modelled]));
    assert!(
        status.contains("opponents  bids trained against heuristic:0.5"),
        "{status}"
    );
    let status = ok(&trainer(&["status", "--run-dir", &plain]));
    assert!(!status.contains("opponents"), "{status}");

    // `resume` keeps it; another model is another run.
    let resumed = ok(&trainer(&[
        "resume",
        "--run-dir",
        &modelled,
        "--iterations",
        "100",
    ]));
    assert!(resumed.contains("run total 2,100 iterations"), "{resumed}");
    let error = refused(&trainer(&[
        "train",
        "--seed",
        "7",
        "--run-dir",
        &modelled,
        "--opponent-bids",
        "heuristic:1",
    ]));
    assert!(
        error.contains(
            "opponents' bids: the run has heuristic:0.5, this command asks for heuristic:1"
        ),
        "{error}"
    );

    let out = temp.run("modelled.bin");
    ok(&trainer(&["export", "--run-dir", &modelled, "--out", &out]));
    let policy = PolicyFile::load(out.as_ref()).expect("policy");
    assert_eq!(
        policy.meta.opponent_bids,
        OpponentBids::Heuristic { share: 0.5 }
    );
    let plain_out = temp.run("plain.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        &plain,
        "--out",
        &plain_out,
    ]));
    let policy = PolicyFile::load(plain_out.as_ref()).expect("policy");
    assert_eq!(policy.meta.opponent_bids, OpponentBids::Equilibrium);

    // Full play's bidding stage trains against the model too.
    let staged = temp.run("staged");
    ok(&full_play_in(
        &staged,
        &[
            &["--bidding-iterations", "300", "--iterations", "20"][..],
            &model,
        ]
        .concat(),
    ));
    let stage = std::fs::read_to_string(format!("{staged}/bidding/settings.toml")).unwrap();
    assert!(
        stage.contains("opponent_bids = \"heuristic:0.5\""),
        "{stage}"
    );

    // Fixed bids have nothing to train against a model; bad models are
    // explained.
    let error = refused(&full_play_in(
        &temp.run("fixed"),
        &[&["--bidding-from", &out][..], &model].concat(),
    ));
    assert!(
        error.contains("--bidding-from fixes every bid; drop one of the two"),
        "{error}"
    );
    for bad in ["heuristic:0", "heuristic:2", "pimc:50"] {
        let error = refused(&trainer(&[
            "train",
            "--run-dir",
            &temp.run("bad"),
            "--opponent-bids",
            bad,
        ]));
        assert!(
            error.contains(&format!("'{bad}' is not an opponent-bids setting"))
                && error.contains("heuristic:SHARE"),
            "{error}"
        );
    }
}

/// The user's command trains its bidding stage against the heuristic's
/// bids without being told; `--opponent-bids equilibrium` trains the plain
/// blueprint; a run made before the default changed goes on as it was made
/// when the command does not say, and the bidding phase stays an
/// equilibrium.
#[test]
fn full_plays_bids_model_the_heuristics_by_default_and_old_runs_resume_as_made() {
    use euchre_bots::opponent_bids::OpponentBids;
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("default-opponent-bids");
    let budget = ["--bidding-iterations", "300", "--iterations", "20"];
    let fresh = temp.run("fresh");
    ok(&full_play_in(&fresh, &budget));
    for settings in [
        format!("{fresh}/bidding/settings.toml"),
        format!("{fresh}/settings.toml"),
    ] {
        let settings = std::fs::read_to_string(settings).unwrap();
        assert!(
            settings.contains("opponent_bids = \"heuristic:0.9\""),
            "{settings}"
        );
    }
    let status = ok(&trainer(&["status", "--run-dir", &fresh]));
    assert!(
        status.contains("opponents  bids trained against heuristic:0.9"),
        "{status}"
    );
    let blueprint = PolicyFile::load(format!("{fresh}/bidding/policy.bin").as_ref()).unwrap();
    assert_eq!(
        blueprint.meta.opponent_bids,
        OpponentBids::Heuristic { share: 0.9 }
    );

    // As the run was made before the default: an equilibrium, recorded
    // by leaving the setting out.
    let old = temp.run("old");
    let equilibrium = ["--opponent-bids", "equilibrium"];
    ok(&full_play_in(&old, &[&budget[..], &equilibrium].concat()));
    let settings = std::fs::read_to_string(format!("{old}/settings.toml")).unwrap();
    assert!(!settings.contains("opponent_bids"), "{settings}");
    let resumed = ok(&full_play_in(&old, &["--iterations", "20"]));
    assert!(resumed.contains("run total 40 iterations"), "{resumed}");
    let settings = std::fs::read_to_string(format!("{old}/settings.toml")).unwrap();
    assert!(!settings.contains("opponent_bids"), "{settings}");
    // Saying another model is still another run.
    let error = refused(&full_play_in(
        &old,
        &["--iterations", "20", "--opponent-bids", "heuristic:0.9"],
    ));
    assert!(
        error.contains(
            "opponents' bids: the run has equilibrium, this command asks for heuristic:0.9"
        ),
        "{error}"
    );

    // The bidding phase's blueprint is the equilibrium it always was.
    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "300"]);
    let settings = std::fs::read_to_string(format!("{bidding}/settings.toml")).unwrap();
    assert!(!settings.contains("opponent_bids"), "{settings}");
}

#[test]
fn pimc_calibrated_leaves_train_bidding_pair_with_pimc_and_refuse_other_phases() {
    let temp = TempDir::new("calibrated");
    let (run, out) = train_with_leaves(&temp, "pimc-calibrated");
    // Other leaves on the same run directory are a different run.
    let other = trainer(&["train", "--leaves", "open-hand", "--run-dir", &run]);
    assert!(!other.status.success());
    assert!(
        text(&other.stderr)
            .contains("the run has pimc-calibrated, this command asks for open-hand"),
        "{}",
        text(&other.stderr)
    );

    // Calibrated to PIMC's play, so PIMC after the policy is the pairing.
    let matching = eval_warnings(&out, "pimc:2");
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let mismatched = eval_warnings(&out, "heuristic");
    assert!(
        mismatched
            .contains("trained on pimc-calibrated leaves, but heuristic plays past its phase"),
        "{mismatched}"
    );

    // The calibration was measured at the first lead: it cannot value a
    // play-N or full-play leaf, and says what to do instead.
    let refused = trainer(&[
        "train",
        "--phase",
        "play-2",
        "--leaves",
        "pimc-calibrated",
        "--run-dir",
        &temp.run("play"),
    ]);
    assert!(!refused.status.success());
    let error = text(&refused.stderr);
    assert!(
        error.contains("use --phase bidding, or --leaves open-hand for play-2"),
        "{error}"
    );
}

#[test]
fn bids_refit_to_a_card_play_table_are_valued_by_its_play_and_the_run_guards_it() {
    use euchre_bots::policy_file::PolicyFile;

    let temp = TempDir::new("table-play");
    // A card-play table: full play under a short bidding run's bids.
    let bidding = temp.run("bidding");
    train(&bidding, "memory", &["--iterations", "300", "--export"]);
    let cards = temp.run("cards");
    ok(&full_play_in(
        &cards,
        &[
            "--iterations",
            "200",
            "--bidding-from",
            &format!("{bidding}/policy.bin"),
            "--eval-every",
            "off",
            "--export",
        ],
    ));
    let table = format!("{cards}/policy.bin");
    let table_checksum = PolicyFile::load(table.as_ref()).expect("table").checksum();

    // Bids refit to it: a bidding run whose leaves the table plays out.
    let refit = temp.run("refit");
    train(
        &refit,
        "memory",
        &[
            "--leaves",
            "table-play",
            "--card-play-from",
            &table,
            "--iterations",
            "300",
            "--export",
        ],
    );
    let settings = std::fs::read_to_string(format!("{refit}/settings.toml")).expect("settings");
    assert!(settings.contains("leaves = \"table-play\""), "{settings}");
    assert!(settings.contains("[identity.card_play_from]"), "{settings}");
    let status = ok(&trainer(&["status", "--run-dir", &refit]));
    assert!(
        status.contains("leaves     table-play: every seat plays the rest by the card-play table"),
        "{status}"
    );
    let exported = PolicyFile::load(format!("{refit}/policy.bin").as_ref()).expect("policy");
    let recorded = exported
        .meta
        .card_play_from
        .clone()
        .expect("the file names the table its bids were refit to");
    assert_eq!(recorded.checksum, table_checksum);
    // Other leaves give other bids from the same seed and deals.
    let open_hand = temp.run("open-hand");
    train(&open_hand, "memory", &["--iterations", "300"]);
    assert_ne!(digest(&refit), digest(&open_hand));

    // Played with its table, the refit policy is the pairing its leaves
    // assumed; with PIMC, it is not.
    let refit_policy = format!("{refit}/policy.bin");
    let matching = eval_warnings(&refit_policy, &format!("policy-argmax:{table}"));
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let mismatched = eval_warnings(&refit_policy, "pimc:2");
    assert!(
        mismatched.contains("trained on table-play leaves, but pimc:2 plays past its phase"),
        "{mismatched}"
    );
    // The same in a split, where the split's card player follows the bids.
    let split_warnings = |player: &str| {
        let output = trainer(&[
            "eval",
            "--a",
            &format!("bids:policy-argmax:{refit_policy}+{player}"),
            "--b",
            "random",
            "--hands",
            "2",
        ]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stderr)
    };
    let matching = split_warnings(&format!("policy-argmax:{table}"));
    assert!(!matching.contains("plays past its phase"), "{matching}");
    let mismatched = split_warnings("pimc:2");
    assert!(
        mismatched.contains("trained on table-play leaves, but pimc:2 plays past its phase"),
        "{mismatched}"
    );
    let exploit = ok(&trainer(&[
        "exploit",
        "--policy",
        &refit_policy,
        "--deals",
        "20",
        "--worlds",
        "2",
    ]));
    assert!(
        exploit.contains("local best response (round-1 bids"),
        "{exploit}"
    );

    // Each contradiction is refused by name.
    let error = refused(&trainer(&[
        "train",
        "--leaves",
        "table-play",
        "--run-dir",
        &temp.run("no-table"),
    ]));
    assert!(error.contains("name one with --card-play-from"), "{error}");
    let error = refused(&trainer(&[
        "train",
        "--card-play-from",
        &table,
        "--run-dir",
        &temp.run("unused"),
    ]));
    assert!(error.contains("only table-play leaves read"), "{error}");
    let error = refused(&full_play_in(
        &temp.run("full"),
        &["--leaves", "table-play", "--card-play-from", &table],
    ));
    assert!(error.contains("full play has none"), "{error}");
    let error = refused(&trainer(&[
        "train",
        "--leaves",
        "table-play",
        "--card-play-from",
        &format!("{bidding}/policy.bin"),
        "--run-dir",
        &temp.run("bids-as-table"),
    ]));
    assert!(error.contains("does not play a whole hand"), "{error}");
    // A run pins the table by its header and loads it once, whole: a
    // damaged body is refused when the session opens, before the run
    // records anything.
    let mut damaged = std::fs::read(&table).expect("table");
    let last_entry = damaged.len() - 6;
    damaged[last_entry] ^= 1;
    let damaged_table = temp.run("damaged.bin");
    std::fs::write(&damaged_table, &damaged).expect("write");
    let damaged_run = temp.run("damaged-run");
    let error = refused(&trainer(&[
        "train",
        "--leaves",
        "table-play",
        "--card-play-from",
        &damaged_table,
        "--run-dir",
        &damaged_run,
    ]));
    assert!(
        error.contains("card-play table cannot be read")
            && error.contains("checksum does not match"),
        "{error}"
    );
    assert!(!Path::new(&format!("{damaged_run}/settings.toml")).exists());

    // A table replaced since the run started stops resume and export.
    ok(&full_play_in(
        &cards,
        &["--iterations", "10", "--eval-every", "off", "--export"],
    ));
    assert_ne!(
        PolicyFile::load(table.as_ref()).expect("table").checksum(),
        table_checksum
    );
    for command in [
        vec!["resume", "--run-dir", &refit, "--iterations", "10"],
        vec!["export", "--run-dir", &refit],
    ] {
        let error = refused(&trainer(&command));
        assert!(error.contains("changed since this run started"), "{error}");
    }
}

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
    assert_eq!(policy.meta.play_abstraction, abstraction);
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
    std::fs::create_dir_all(&temp.0).expect("temp dir");
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

#[test]
fn status_before_the_first_checkpoint_says_none_yet() {
    use trainer::config::{CurveOptions, RunOptions, RunProfile, resolve};
    use trainer::training::session::Session;

    let temp = TempDir::new("fresh-status");
    let run = temp.run("run");
    let (identity, settings, _) = resolve(
        RunProfile::default(),
        RunOptions::default(),
        CurveOptions::default(),
    )
    .unwrap();
    // Opening builds the store and saves the settings; nothing is trained.
    drop(Session::open(Path::new(&run), &identity, &settings, &mut ()).unwrap());
    let status = trainer::training::status::RunStatus::read(Path::new(&run), false, None)
        .unwrap()
        .to_string();
    assert!(status.contains("checkpoint none yet"), "{status}");
    assert!(!status.contains("days ago"), "{status}");
}

/// `trainer` full play on the memory store, one thread, in `run`.
fn full_play_in(run: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "--phase",
        "full-play",
        "--store",
        "memory",
        "--threads",
        "1",
        "--run-dir",
        run,
    ];
    args.extend_from_slice(extra);
    trainer(&args)
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
