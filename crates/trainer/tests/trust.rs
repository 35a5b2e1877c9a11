//! What an outside tester tried against the release binary, each as a
//! real process on real files: damaged stores, foreign files, files that
//! are not regular, settings out of range, another run's store. Every
//! refusal is exit status 1 (never a signal) with the reason, and a
//! refused file is left byte for byte as it was.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{TempDir, ok, text, trainer, trainer_within};

fn s(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// The stderr of a command that must have refused with exit status 1: a
/// signal (SIGSEGV, SIGBUS) or a panic (101) fails the test.
fn refused_with_1(output: &Output) -> String {
    assert_eq!(
        output.status.code(),
        Some(1),
        "expected exit 1, got {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stderr)
}

fn bidding_run(dir: &Path, store: &str, iterations: &str, seed: &str) {
    ok(&trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        store,
        "--threads",
        "1",
        "--seed",
        seed,
        "--iterations",
        iterations,
        "--run-dir",
        s(dir),
    ]));
}

fn all_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if !path.to_string_lossy().ends_with(".lock") {
                files.push((path.clone(), std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::remove_dir_all(to).ok();
    for (path, bytes) in all_files(from) {
        let target = to.join(path.strip_prefix(from).unwrap());
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        std::fs::write(target, bytes).unwrap();
    }
}

/// 64 bytes flipped at `percent` of the file's length.
fn flip_at(path: &Path, percent: u64) {
    let mut bytes = std::fs::read(path).unwrap();
    let at = (bytes.len() as u64 * percent / 100).min(bytes.len() as u64 - 64) as usize;
    for byte in &mut bytes[at..at + 64] {
        *byte ^= 0xA5;
    }
    std::fs::write(path, bytes).unwrap();
}

const POSITIONS: [u64; 10] = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95];

/// Every data file of every backend, 64 bytes flipped at ten positions:
/// `status` (and, for LMDB, whose damage used to crash every command,
/// `resume`) refuses with exit 1 naming the file, and no file changes.
#[test]
fn a_damaged_store_file_is_refused_by_name_with_exit_1_and_never_written() {
    let temp = TempDir::new("damage");
    let cases: [(&str, &[&str]); 3] = [
        ("memory", &["store/memory-snapshot-1.bin"]),
        ("lmdb", &["store/lmdb/data.mdb"]),
        (
            "mmap",
            &[
                "store/mmap-records.dat",
                "store/mmap-keys.dat",
                "store/mmap-phf.bin",
            ],
        ),
    ];
    for (store, files) in cases {
        let clean = temp.join(format!("clean-{store}"));
        bidding_run(&clean, store, "3000", "1");
        for file in files {
            for percent in POSITIONS {
                let damaged = temp.join("damaged");
                copy_dir(&clean, &damaged);
                flip_at(&damaged.join(file), percent);
                // The store as it was; the run's log may note the refusal.
                let before = all_files(&damaged.join("store"));
                let mut commands = vec![vec!["status", "--run-dir", s(&damaged)]];
                if store == "lmdb" {
                    commands.push(vec![
                        "resume",
                        "--run-dir",
                        s(&damaged),
                        "--iterations",
                        "10",
                    ]);
                }
                for command in commands {
                    let output = trainer(&command);
                    // `status` prints the check (naming the file) on stdout.
                    let said = refused_with_1(&output) + &text(&output.stdout);
                    let name = Path::new(file).file_name().unwrap().to_str().unwrap();
                    assert!(
                        said.contains(name),
                        "{file} at {percent}%, {command:?}: {said}"
                    );
                    assert!(
                        before == all_files(&damaged.join("store")),
                        "{file} at {percent}%, {command:?}: a refusing command wrote"
                    );
                }
            }
        }
    }
}

/// `export --out` writes a regular file or a new path, never replacing a
/// FIFO, a symbolic link or a directory with a file.
#[test]
fn export_replaces_only_a_regular_file() {
    let temp = TempDir::new("export-out");
    let run = temp.join("run");
    bidding_run(&run, "memory", "300", "1");
    let target = temp.join("target.bin");
    std::fs::write(&target, b"keep me").unwrap();
    let link = temp.join("link.bin");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = temp.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for (out, kind) in [
        (&link, "symbolic link"),
        (&fifo, "FIFO"),
        (&temp.0, "directory"),
    ] {
        let stderr = refused_with_1(&trainer_within(
            &["export", "--run-dir", s(&run), "--out", s(out)],
            Duration::from_secs(60),
        ));
        assert!(stderr.contains(kind), "{stderr}");
    }
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &std::fs::metadata(&fifo).unwrap().file_type()
    ));
    assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    let fresh = temp.join("fresh.bin");
    ok(&trainer(&[
        "export",
        "--run-dir",
        s(&run),
        "--out",
        s(&fresh),
    ]));
    assert!(std::fs::metadata(&fresh).unwrap().is_file());
}

/// Files an operator names are opened only as regular files and checked
/// before they are read: a device, a FIFO, a large file of another kind.
#[test]
fn operator_named_files_are_regular_files_checked_before_they_are_read() {
    let temp = TempDir::new("operator-files");
    let fifo = temp.join("fifo");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = temp.join("big.bin");
    std::fs::write(&big, vec![b'x'; 100 << 20]).unwrap();
    let big_toml = temp.join("big.toml");
    std::fs::write(&big_toml, vec![b'#'; 2 << 20]).unwrap();
    let limit = Duration::from_secs(10);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["act".into(), "--bot".into(), "policy:/dev/zero".into()],
            "device",
        ),
        (
            vec![
                "act".into(),
                "--bot".into(),
                format!("policy:{}", fifo.display()),
            ],
            "FIFO",
        ),
        (
            vec![
                "act".into(),
                "--bot".into(),
                format!("policy:{}", big.display()),
            ],
            "not a policy",
        ),
        (
            vec![
                "serve".into(),
                "--port".into(),
                "0".into(),
                "--policy".into(),
                "/dev/zero".into(),
            ],
            "device",
        ),
        (
            vec!["train".into(), "--config".into(), "/dev/zero".into()],
            "device",
        ),
        (
            vec!["train".into(), "--config".into(), s(&fifo).into()],
            "FIFO",
        ),
        (
            vec!["train".into(), "--config".into(), s(&big_toml).into()],
            "more than",
        ),
        (
            vec![
                "train".into(),
                "--phase".into(),
                "full-play".into(),
                "--bidding-from".into(),
                "/dev/zero".into(),
            ],
            "device",
        ),
        (
            vec![
                "train".into(),
                "--bids-for".into(),
                "game".into(),
                "--bids-prior".into(),
                "/dev/zero".into(),
            ],
            "device",
        ),
        (
            vec![
                "train".into(),
                "--bids-for".into(),
                "game".into(),
                "--bids-prior".into(),
                s(&fifo).into(),
            ],
            "FIFO",
        ),
    ];
    for (args, reason) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let started = Instant::now();
        let stderr = refused_with_1(&trainer_within(&args, limit));
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{args:?} took {:?}",
            started.elapsed()
        );
    }
}

/// Settings that cannot mean what they say are refused with the valid
/// range before a run directory is made.
#[test]
fn settings_out_of_range_are_refused_with_the_range() {
    let temp = TempDir::new("settings");
    let run = temp.join("run");
    let base = ["train", "--phase", "bidding", "--run-dir", s(&run)];
    let cases: [(&[&str], &str); 3] = [
        (&["--checkpoint-every", "0"], "at least 1 iteration"),
        (&["--until", "0"], "stops before any training"),
        (&["--threads", "100000"], "give 1 to"),
    ];
    for (extra, reason) in cases {
        let args: Vec<&str> = base.iter().chain(extra).copied().collect();
        let stderr = text(&trainer(&args).stderr);
        assert!(stderr.contains(reason), "{extra:?}: {stderr}");
        assert!(!run.exists(), "{extra:?} made a run directory");
    }
    let profile = temp.join("bad.toml");
    for (body, reason) in [
        (
            "[run]\ncheckpoint_every_iterations = 0\n",
            "at least 1 iteration",
        ),
        ("[run]\nthreads = 100000\n", "give 1 to"),
        (
            "# iterations\n[run]\nphase = \"bidding\"\niterations = \"many\"\n",
            "line 4: [run] iterations",
        ),
        ("[run]\niterations = -5\n", "line 2: [run] iterations"),
    ] {
        std::fs::write(&profile, body).unwrap();
        let stderr = refused_with_1(&trainer(&[
            "train",
            "--config",
            s(&profile),
            "--run-dir",
            s(&run),
        ]));
        assert!(stderr.contains(reason), "{body}: {stderr}");
        assert!(!run.exists(), "{body} made a run directory");
    }
}

/// A store carries the identity of the run that trained it: another
/// run's store under a run's settings, or a store whose settings.toml was
/// deleted and then trained with other settings, is refused.
#[test]
fn a_store_is_refused_under_another_runs_settings() {
    let temp = TempDir::new("identity");
    let one = temp.join("one");
    let two = temp.join("two");
    bidding_run(&one, "memory", "300", "1");
    bidding_run(&two, "memory", "300", "2");
    std::fs::remove_dir_all(two.join("store")).unwrap();
    copy_dir(&one.join("store"), &two.join("store"));
    for command in [
        vec!["resume", "--run-dir", s(&two), "--iterations", "10"],
        vec![
            "export",
            "--run-dir",
            s(&two),
            "--out",
            s(&temp.join("p.bin")),
        ],
    ] {
        let stderr = refused_with_1(&trainer(&command));
        assert!(
            stderr.contains("trained by a run with other settings"),
            "{stderr}"
        );
        assert!(stderr.contains("seed"), "{stderr}");
    }
    std::fs::remove_file(one.join("settings.toml")).unwrap();
    let stderr = refused_with_1(&trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--threads",
        "1",
        "--seed",
        "99",
        "--iterations",
        "10",
        "--run-dir",
        s(&one),
    ]));
    assert!(stderr.contains("seed"), "{stderr}");
}

/// `status --digest` while a trainer holds the run says it did not read
/// the records, and fails, rather than exiting 0 without a digest.
#[test]
fn a_digest_asked_for_while_a_trainer_runs_is_refused_with_the_reason() {
    let temp = TempDir::new("digest-busy");
    let run = temp.join("run");
    let mut training = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args([
            "train",
            "--phase",
            "bidding",
            "--store",
            "memory",
            "--threads",
            "1",
            "--iterations",
            "100000000",
            "--run-dir",
            s(&run),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let output = loop {
        let output = trainer(&["status", "--run-dir", s(&run), "--digest"]);
        if text(&output.stdout).contains("trainer    ")
            && !text(&output.stdout).contains("none running")
            || started.elapsed() > Duration::from_secs(30)
        {
            break output;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    training.kill().ok();
    training.wait().ok();
    let stderr = refused_with_1(&output);
    assert!(
        text(&output.stdout).contains("no digest"),
        "{}",
        text(&output.stdout)
    );
    assert!(stderr.contains("once it stops"), "{stderr}");
}
