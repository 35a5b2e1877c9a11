//! The reading commands work on a read-only run directory (a backup, a
//! read-only mount): `status --digest` and `export --out` read every
//! backend's store without writing a byte, `export` into the directory
//! says to use `--out`, and `train` refuses. The directory is made
//! read-only with a read-only bind mount, which binds root as well (file
//! permissions do not), so this test needs `mount`; it runs alone in its
//! own binary because it forks.

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use support::{TempDir, ok, refused, trainer};

/// A read-only view of `source` at `target`, unmounted when dropped.
struct ReadOnlyMount(PathBuf);

impl ReadOnlyMount {
    fn new(source: &Path, target: &Path) -> ReadOnlyMount {
        std::fs::create_dir_all(target).unwrap();
        let run = |args: &[&str]| {
            let status = Command::new("mount").args(args).status().unwrap();
            assert!(
                status.success(),
                "mount {args:?} failed: this test needs to bind-mount a directory read-only (root, as in CI)"
            );
        };
        run(&[
            "--bind",
            &source.display().to_string(),
            &target.display().to_string(),
        ]);
        let mount = ReadOnlyMount(target.to_path_buf());
        run(&["-o", "remount,bind,ro", &target.display().to_string()]);
        mount
    }
}

impl Drop for ReadOnlyMount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn digest_line(status: &str) -> String {
    status
        .lines()
        .find(|line| line.starts_with("records"))
        .unwrap_or_else(|| panic!("no digest in {status}"))
        .to_owned()
}

#[test]
fn reading_commands_work_on_a_read_only_run_directory() {
    let temp = TempDir::new("read-only");
    for store in ["memory", "lmdb", "mmap"] {
        let run = temp.join(store);
        ok(&trainer(&[
            "train",
            "--phase",
            "bidding",
            "--store",
            store,
            "--threads",
            "1",
            "--iterations",
            "300",
            "--run-dir",
            &run.display().to_string(),
        ]));
        let writable = ok(&trainer(&[
            "status",
            "--run-dir",
            &run.display().to_string(),
            "--digest",
        ]));
        let view = temp.join(format!("{store}-read-only"));
        let _mount = ReadOnlyMount::new(&run, &view);
        let view_arg = view.display().to_string();
        let before: Vec<_> = std::fs::read_dir(run.join("store"))
            .unwrap()
            .flatten()
            .map(|entry| (entry.file_name(), entry.metadata().unwrap().len()))
            .collect();

        let status = ok(&trainer(&["status", "--run-dir", &view_arg, "--digest"]));
        assert_eq!(digest_line(&status), digest_line(&writable), "{store}");
        assert!(status.contains("check      verified"), "{store}: {status}");

        let out = temp.join(format!("{store}-policy.bin"));
        let exported = ok(&trainer(&[
            "export",
            "--run-dir",
            &view_arg,
            "--out",
            &out.display().to_string(),
        ]));
        assert!(
            exported.contains("exported the average strategy"),
            "{exported}"
        );
        assert!(out.is_file());

        let error = refused(&trainer(&["export", "--run-dir", &view_arg]));
        assert!(error.contains("--out"), "{store}: {error}");
        let error = refused(&trainer(&[
            "resume",
            "--run-dir",
            &view_arg,
            "--iterations",
            "10",
        ]));
        assert!(
            error.contains("Read-only") || error.contains("read-only"),
            "{store}: {error}"
        );

        let after: Vec<_> = std::fs::read_dir(run.join("store"))
            .unwrap()
            .flatten()
            .map(|entry| (entry.file_name(), entry.metadata().unwrap().len()))
            .collect();
        assert_eq!(before, after, "{store}: the reading commands wrote");
    }
}
