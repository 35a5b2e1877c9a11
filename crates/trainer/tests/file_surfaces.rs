//! Every file the program reads because someone named it, and every file
//! it writes for a user, goes through one reader and one writer
//! (`store::read_bounded`, `store::write_atomically`,
//! `store::check_writable`): regular files only, opened without blocking,
//! the size checked before the read, replaced whole or not at all, no link
//! followed or replaced. The first test finds every place in the sources
//! that opens a file some other way and holds it to a reasoned allow-list;
//! the others run the same hostile matrix through every command that reads
//! or writes such a file, as real processes.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use support::{TempDir, ok, text, trainer, trainer_within_fed};

/// Ways to open a file other than the hardened reader and writer.
const DIRECT_ACCESS: [&str; 9] = [
    "std::fs::read(",
    "fs::read_to_string(",
    "File::open(",
    "File::create(",
    "fs::write(",
    "OpenOptions::new()",
    "SVGBackend::new(",
    "fs::copy(",
    "BitMapBackend::new(",
];

/// Source files that may open files directly, and why.
const ALLOWED: [(&str, &str); 19] = [
    (
        "crates/store/src/regular_file.rs",
        "the hardened reader itself",
    ),
    (
        "crates/store/src/dir.rs",
        "the hardened writer, the directory lock and its pid file",
    ),
    (
        "crates/store/src/verify.rs",
        "checksums of the store's own files, under the directory lock",
    ),
    (
        "crates/store/src/lmdb/file_check.rs",
        "LMDB's data file, walked as untrusted bytes under the directory lock",
    ),
    (
        "crates/store/src/mmap/files.rs",
        "the mmap store's own files, under the directory lock, checked by length and CRC",
    ),
    (
        "crates/store/src/mmap/mod.rs",
        "the mmap store's own files, under the directory lock",
    ),
    (
        "crates/store/src/mmap/spill.rs",
        "the build's spill files, the store's own, in its directory under the directory lock, removed when the build ends",
    ),
    (
        "crates/store/src/mmap/open.rs",
        "the mmap store's own files, under the directory lock",
    ),
    (
        "crates/store/src/mmap/skeleton.rs",
        "the keys file of a store being built, under the directory lock",
    ),
    (
        "crates/store/src/snapshot.rs",
        "the memory store's snapshot, under the directory lock, checked by length and CRC",
    ),
    (
        "crates/store/src/undo.rs",
        "the undo journal, under the directory lock, checked by id and CRC",
    ),
    (
        "crates/trainer/src/commands/search_progress.rs",
        "the searches' progress file (search-bids, search-leads), the run's own, under the run directory's lock, each chunk checked by its CRC",
    ),
    (
        "crates/trainer/src/config/session.rs",
        "/sys: the number of CPUs online",
    ),
    (
        "crates/store/src/usable_memory.rs",
        "/proc and the cgroup files: the machine's memory",
    ),
    (
        "crates/trainer/src/meter.rs",
        "/proc: this process's memory",
    ),
    (
        "crates/trainer/src/training/logging.rs",
        "appends to the log of the run directory the trainer holds locked",
    ),
    (
        "crates/trainer/src/training/curve.rs",
        "appends a point to the curve of the run directory the trainer holds locked (a rename would race a reader)",
    ),
    (
        "crates/trainer/src/training/cluster/telemetry.rs",
        "/proc, and appends to the telemetry of the run directory the trainer holds locked",
    ),
    (
        "crates/trainer/src/training/cluster",
        "ranks' own files in the cluster's run directories and /proc, under the run lock",
    ),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of a source file before its test module (by this project's
/// layout, an inline `#[cfg(test)] mod` comes last), and not a test file
/// of its own (`tests/` folders below `src/`, or a module's `tests.rs`).
fn library_lines(path: &Path, text: &str) -> Vec<(usize, String)> {
    if path.components().any(|part| part.as_os_str() == "tests")
        || path.file_name().is_some_and(|name| name == "tests.rs")
    {
        return Vec::new();
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut kept = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        // The item the attribute is on, past comments and other attributes.
        let next = lines[index + 1..]
            .iter()
            .map(|next| next.trim_start())
            .find(|next| !next.starts_with("//") && !next.starts_with("#["))
            .unwrap_or("");
        if line.trim_start().starts_with("#[cfg(test)]")
            && (next.starts_with("mod ") || next.starts_with("pub(") || next.starts_with("pub mod"))
        {
            break;
        }
        let code = line.split("//").next().unwrap_or("");
        kept.push((index + 1, code.to_owned()));
    }
    kept
}

/// Whether `line` calls `pattern` itself (not a longer name ending in it,
/// such as LMDB's `EnvOpenOptions::new()`).
fn opens_with(line: &str, pattern: &str) -> bool {
    line.match_indices(pattern).any(|(at, _)| {
        !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[test]
fn every_file_the_code_opens_goes_through_the_hardened_reader_and_writer_or_is_allowed_with_a_reason()
 {
    let root = workspace();
    let mut files = Vec::new();
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let src = krate.unwrap().path().join("src");
        if src.is_dir() {
            rust_files(&src, &mut files);
        }
    }
    assert!(files.len() > 50, "found {} source files", files.len());
    let mut stray = Vec::new();
    let mut allowed_used = vec![false; ALLOWED.len()];
    for path in &files {
        let relative = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let relative = relative.trim_start_matches("./").to_owned();
        let text = std::fs::read_to_string(path).unwrap();
        for (number, line) in library_lines(path, &text) {
            if let Some(pattern) = DIRECT_ACCESS.iter().find(|p| opens_with(&line, p)) {
                match ALLOWED
                    .iter()
                    .position(|(allowed, _)| relative.starts_with(allowed))
                {
                    Some(index) => allowed_used[index] = true,
                    None => stray.push(format!("{relative}:{number}: {pattern}")),
                }
            }
        }
    }
    assert!(
        stray.is_empty(),
        "files opened outside store::read_bounded / store::write_atomically; use them, or add the file to ALLOWED with the reason:\n{}",
        stray.join("\n")
    );
    let unused: Vec<&str> = ALLOWED
        .iter()
        .zip(&allowed_used)
        .filter(|(_, used)| !**used)
        .map(|((path, _), _)| *path)
        .collect();
    assert!(
        unused.is_empty(),
        "allow-list entries that no longer open files (remove them): {unused:?}"
    );
}

/// Exit status 1 (never a signal or a panic) with the reason on stderr.
fn refused_with_1(output: &Output, what: &str) -> String {
    assert_eq!(
        output.status.code(),
        Some(1),
        "{what}: expected exit 1, got {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stderr)
}

fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// A character device of its own (the null device's numbers) where the
/// machine lets this user make one; `None` otherwise.
fn device_node(path: &Path) -> Option<PathBuf> {
    Command::new("mknod")
        .arg(path)
        .args(["c", "1", "3"])
        .status()
        .ok()
        .filter(|status| status.success())
        .map(|_| path.to_path_buf())
}

/// A read-only folder (a read-only tmpfs where this user may mount one:
/// as root, permission bits alone do not stop a write); `None` otherwise.
fn read_only_folder(path: &Path) -> Option<PathBuf> {
    std::fs::create_dir_all(path).unwrap();
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", "ro,size=1m", "tmpfs"])
        .arg(path)
        .status()
        .ok()
        .filter(|status| status.success())
        .map(|_| path.to_path_buf())
}

struct Unmount(Option<PathBuf>);

impl Drop for Unmount {
    fn drop(&mut self) {
        if let Some(path) = &self.0 {
            Command::new("umount").arg(path).status().ok();
        }
    }
}

/// Each command that reads a file an operator names, with that file at
/// `{}`.
const READERS: [&[&str]; 6] = [
    &["analyze", "{}"],
    &["act", "--bot", "policy:{}"],
    &["train", "--config", "{}", "--run-dir", "{run}"],
    &["serve", "--port", "0", "--policy", "{}"],
    &["play", "--partner", "policy:{}"],
    &[
        "eval",
        "--a",
        "policy:{}",
        "--b",
        "heuristic",
        "--hands",
        "4",
    ],
];

fn args_for<'a>(template: &[&str], file: &'a str, run: &'a str) -> Vec<String> {
    template
        .iter()
        .map(|arg| arg.replace("{run}", run).replace("{}", file))
        .collect()
}

/// A FIFO, a device, a link to a device, a file larger than any such file
/// and a missing file, named to every reader: each is refused with exit 1
/// within seconds, naming what it is, and nothing blocks or reads on.
#[test]
fn every_reader_refuses_a_fifo_a_device_a_link_to_one_an_oversized_and_a_missing_file() {
    let temp = TempDir::new("surfaces-readers");
    let fifo = temp.join("fifo");
    mkfifo(&fifo);
    let link = temp.join("link-to-zero");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let large = temp.join("large");
    std::fs::write(&large, vec![b' '; 200 << 20]).unwrap();
    let missing = temp.join("missing");
    let run = temp.join("run");
    let cases: [(&Path, &str); 5] = [
        (&fifo, "FIFO"),
        (Path::new("/dev/zero"), "device"),
        (&link, "device"),
        (&large, ""),
        (&missing, ""),
    ];
    for template in READERS {
        for (file, kind) in cases {
            let args = args_for(template, file.to_str().unwrap(), run.to_str().unwrap());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let started = Instant::now();
            let output = trainer_within_fed(&args, "", Duration::from_secs(20));
            let stderr = refused_with_1(&output, &format!("{args:?}"));
            assert!(stderr.contains(kind), "{args:?}: {stderr}");
            let name = file.file_name().unwrap().to_string_lossy();
            assert!(
                stderr.contains(&*name),
                "{args:?} does not name the file: {stderr}"
            );
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{args:?} took {:?}",
                started.elapsed()
            );
        }
    }
}

/// A bidding run of 300 iterations in `run`, to export from.
fn small_run(run: &Path) {
    ok(&trainer(&[
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--run-dir",
        run.to_str().unwrap(),
        "--iterations",
        "300",
        "--threads",
        "1",
        "--seed",
        "1",
    ]));
}

/// Each command that writes a user's file, with the file at `{}`: asked
/// to write where it must not, it refuses before doing its work.
fn writers(run: &Path) -> Vec<Vec<String>> {
    let run = run.to_str().unwrap();
    [
        &["play", "--save", "{}"][..],
        &["export", "--run-dir", run, "--out", "{}"],
        &[
            "arena",
            "--bot",
            "heuristic",
            "--bot",
            "random",
            "--hands",
            "4",
            "--dir",
            "{dir}",
        ],
    ]
    .iter()
    .map(|args| args.iter().map(|arg| (*arg).to_owned()).collect())
    .collect()
}

/// `template` with the file at `file`: the arena writes `arena.md` in
/// its folder, so it is given the folder and the file is that report.
fn writer_args(template: &[String], file: &Path) -> Vec<String> {
    template
        .iter()
        .map(|arg| {
            arg.replace("{dir}", file.parent().unwrap().to_str().unwrap())
                .replace("{}", file.to_str().unwrap())
        })
        .collect()
}

/// A FIFO, a device node, a link to a user's file, a read-only folder and
/// a missing folder, as the target of every writer: each is refused with
/// exit 1 before the command's work, naming the problem, and what was
/// there is left as it was (a link is not followed, its target unchanged).
#[test]
fn every_writer_refuses_a_fifo_a_device_a_link_a_read_only_and_a_missing_folder_up_front() {
    let temp = TempDir::new("surfaces-writers");
    let run = temp.join("run");
    small_run(&run);
    let read_only = read_only_folder(&temp.join("read-only"));
    let _unmount = Unmount(read_only.clone());
    for (index, template) in writers(&run).iter().enumerate() {
        let folder = temp.join(format!("writer-{index}"));
        std::fs::create_dir_all(&folder).unwrap();
        let target = folder.join("users-file.txt");
        std::fs::write(&target, b"keep me").unwrap();
        let name = if template[0] == "arena" {
            "arena.md"
        } else {
            "out.egn"
        };
        let mut cases: Vec<(PathBuf, &str)> = Vec::new();
        let fifo = folder.join("fifo").join(name);
        std::fs::create_dir_all(fifo.parent().unwrap()).unwrap();
        mkfifo(&fifo);
        cases.push((fifo, "FIFO"));
        let link = folder.join("link").join(name);
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&target, &link).unwrap();
        cases.push((link, "symbolic link"));
        let device_dir = folder.join("device");
        std::fs::create_dir_all(&device_dir).unwrap();
        if let Some(device) = device_node(&device_dir.join(name)) {
            cases.push((device, "device"));
        }
        if let Some(folder) = &read_only {
            cases.push((folder.join(name), "does not take new files"));
        }
        cases.push((folder.join("no-such-folder").join(name), "does not exist"));
        for (file, problem) in &cases {
            if template[0] == "arena" && *problem == "does not exist" {
                continue; // the arena makes its folder
            }
            let before = std::fs::symlink_metadata(file).ok().map(|m| m.file_type());
            let args = writer_args(template, file);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let output = trainer_within_fed(&args, "q\n", Duration::from_secs(60));
            let stderr = refused_with_1(&output, &format!("{args:?}"));
            assert!(stderr.contains(problem), "{args:?}: {stderr}");
            assert!(
                !text(&output.stdout).contains("Trick"),
                "{args:?}: refused only after playing"
            );
            let after = std::fs::symlink_metadata(file).ok().map(|m| m.file_type());
            assert_eq!(before, after, "{args:?}: what was there changed");
        }
        assert_eq!(std::fs::read(&target).unwrap(), b"keep me");
    }
}

/// A link planted where the writer makes its temporary file is removed,
/// not written through: the export succeeds and the link's target is
/// unchanged.
#[test]
fn a_link_planted_at_the_temporary_name_is_not_written_through() {
    let temp = TempDir::new("surfaces-planted");
    let run = temp.join("run");
    small_run(&run);
    let victim = temp.join("victim");
    std::fs::write(&victim, b"keep me").unwrap();
    let out = temp.join("out.bin");
    std::os::unix::fs::symlink(&victim, temp.join("out.tmp")).unwrap();
    ok(&trainer(&[
        "export",
        "--run-dir",
        run.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(std::fs::metadata(&out).unwrap().is_file());
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
}
