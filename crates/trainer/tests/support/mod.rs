//! Helpers shared by the integration tests that need a trained policy or
//! the `trainer` binary.
#![allow(dead_code, unreachable_pub)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn trainer(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .expect("the trainer binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The stderr of a command that must have failed.
pub fn refused(output: &Output) -> String {
    assert!(
        !output.status.success(),
        "expected a refusal: {}",
        text(&output.stdout)
    );
    text(&output.stderr)
}

pub fn ok(output: &Output) -> String {
    assert!(
        output.status.success(),
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

pub use test_support::TempDir;

/// Run directories inside a scratch directory, as the binary's flags take
/// them.
pub trait RunPaths {
    /// The run directory `name` inside, not yet made.
    fn run(&self, name: &str) -> String;
}

impl RunPaths for TempDir {
    fn run(&self, name: &str) -> String {
        self.join(name).to_string_lossy().into_owned()
    }
}

/// A briefly trained bidding run in `dir`, exported; returns the policy.
pub fn bidding_policy(dir: &Path) -> PathBuf {
    bidding_policy_with(dir, &["--iterations", "20000", "--threads", "1"])
}

/// A bidding run in `dir` with `settings` (flags of `trainer train`; a
/// budget among them), exported; returns the policy.
pub fn bidding_policy_with(dir: &Path, settings: &[&str]) -> PathBuf {
    let run = dir.join("run");
    let policy = dir.join("policy.bin");
    let mut args = vec![
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--seed",
        "5",
        "--run-dir",
        run.to_str().unwrap(),
    ];
    args.extend_from_slice(settings);
    ok(&trainer(&args));
    ok(&trainer(&[
        "export",
        "--run-dir",
        run.to_str().unwrap(),
        "--out",
        policy.to_str().unwrap(),
    ]));
    policy
}

/// Runs the trainer with `stdin` written to it, killing it if it has not
/// finished in `limit`: a command that blocks (on a FIFO) or reads without
/// end fails the test.
pub fn trainer_within_fed(args: &[&str], stdin: &str, limit: std::time::Duration) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that refuses at once closes its end first; that is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let started = std::time::Instant::now();
    while started.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.kill().ok();
    child.wait().ok();
    panic!("trainer {args:?} still running after {limit:?}");
}

/// [`trainer_within_fed`] with nothing on stdin.
pub fn trainer_within(args: &[&str], limit: std::time::Duration) -> Output {
    trainer_within_fed(args, "", limit)
}

/// A trainer process with its output piped, for tests that stop it.
pub fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the trainer binary runs")
}

/// The digest line of `status --digest`: the trained records, backend-free.
pub fn digest(run: &str) -> String {
    let stdout = ok(&trainer(&["status", "--run-dir", run, "--digest"]));
    stdout
        .lines()
        .find(|line| line.starts_with("records"))
        .unwrap_or_else(|| panic!("no digest in {stdout}"))
        .to_string()
}

/// A 1-thread bidding run of seed 7 on `store`, with `extra` flags.
pub fn train_bidding(run: &str, store: &str, extra: &[&str]) -> String {
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

/// The full-play command on the memory store, one thread, in `run`.
pub fn full_play_in(run: &str, extra: &[&str]) -> Output {
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
