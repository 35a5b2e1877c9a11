//! The trainer over MPI on loopback: `mpirun -np N trainer …`, ranks
//! oversubscribed on this machine's cores. Built only with `--features
//! mpi`; `./test` installs Open MPI and runs these.
#![cfg(feature = "mpi")]

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::{TempDir, bidding_policy, ok, refused, text, trainer};

/// `mpirun` with the settings a test machine needs: root allowed (CI runs
/// as root), more ranks than cores, and idle ranks yielding their core.
fn mpirun(ranks: usize) -> Command {
    mpirun_with(ranks, &[])
}

/// `mpirun` with options of its own (before the program) on `ranks` ranks.
fn mpirun_with(ranks: usize, options: &[&str]) -> Command {
    let mut command = Command::new("mpirun");
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_mpi_yield_when_idle", "1")
        .env("RUST_BACKTRACE", "0")
        .args(["--oversubscribe", "-np", &ranks.to_string()])
        .args(options)
        .arg(env!("CARGO_BIN_EXE_trainer"))
        .stdin(Stdio::null());
    command
}

fn run_on(ranks: usize, args: &[&str]) -> Output {
    mpirun(ranks)
        .args(args)
        .output()
        .expect("mpirun runs (install Open MPI: ./test does)")
}

fn both(output: &Output) -> String {
    format!("{}{}", text(&output.stdout), text(&output.stderr))
}

fn bidding_args<'a>(run: &'a str, iterations: &'a str) -> Vec<&'a str> {
    vec![
        "train",
        "--phase",
        "bidding",
        "--store",
        "memory",
        "--threads",
        "1",
        "--iterations",
        iterations,
        "--run-dir",
        run,
    ]
}

/// The digests rank 0 logged, one per sync, each one the same on every
/// rank (the run fails otherwise).
fn synced_digests(log: &str) -> Vec<String> {
    log.lines()
        .filter(|line| line.contains("every replica has digest"))
        .map(str::to_owned)
        .collect()
}

#[test]
fn replicas_are_identical_after_every_sync_on_2_and_3_ranks() {
    let temp = TempDir::new("cluster-digests");
    for (ranks, reads, sums, overlap) in [
        (2, "live", "each-sync", "on"),
        (3, "live", "at-checkpoint", "on"),
        (3, "frozen", "at-checkpoint", "on"),
        (2, "live", "at-checkpoint", "off"),
    ] {
        let run = temp
            .join(format!("{ranks}-{reads}-{overlap}"))
            .display()
            .to_string();
        let mut args = bidding_args(&run, "3000");
        args.extend([
            "--sync-iterations",
            "500",
            "--sync-check",
            "--sync-reads",
            reads,
            "--sync-strategy-sums",
            sums,
            "--sync-overlap",
            overlap,
        ]);
        let output = run_on(ranks, &args);
        let log = both(&output);
        assert!(output.status.success(), "{ranks} ranks, {reads}:\n{log}");
        // Frozen reads never train beside a sync.
        assert_eq!(
            log.contains("epochs training beside the syncs"),
            reads == "live" && overlap == "on",
            "{log}"
        );
        // Held-back strategy sums are settled before the checkpoint.
        assert_eq!(
            log.contains("settles of the strategy sums"),
            sums == "at-checkpoint",
            "{log}"
        );
        let digests = synced_digests(&log);
        assert_eq!(
            digests.len(),
            6,
            "one checked sync per 500 iterations:\n{log}"
        );
        assert!(log.contains(&format!("{ranks} ranks")), "{log}");
        // Rank 0's store holds what every replica held at the last sync.
        let status = ok(&trainer(&["status", "--run-dir", &run]));
        assert!(status.contains("iteration 3,000"), "{status}");
        // The per-rank telemetry: logged, and kept for status, one line a rank.
        assert!(log.contains("cluster telemetry over 6 syncs"), "{log}");
        assert!(status.contains("slowest rank"), "{status}");
        for rank in 0..ranks {
            assert!(status.contains(&format!("rank {rank}: ")), "{status}");
        }
        assert!(status.contains("resident"), "{status}");
    }
}

/// A run whose card play keeps no average trains in place on every rank
/// (on the mmap store naming records by slot, on the memory store by key)
/// and its replicas stay identical after every sync; with syncs beside
/// training it goes through the delta buffer.
#[test]
fn ranks_train_in_place_when_card_play_keeps_no_average() {
    let temp = TempDir::new("cluster-in-place");
    for (store, overlap, in_place, by_slot) in [
        ("mmap", "off", true, true),
        ("memory", "off", true, false),
        ("mmap", "on", false, false),
    ] {
        let run = temp
            .join(format!("{store}-{overlap}"))
            .display()
            .to_string();
        let output = run_on(
            2,
            &[
                "train",
                "--phase",
                "play-1",
                "--store",
                store,
                "--card-play-strategy",
                "current",
                "--threads",
                "1",
                "--iterations",
                "3000",
                "--run-dir",
                &run,
                "--sync-iterations",
                "500",
                "--sync-check",
                "--sync-overlap",
                overlap,
            ],
        );
        let log = both(&output);
        assert!(
            output.status.success(),
            "{store}, overlap {overlap}:\n{log}"
        );
        assert_eq!(
            log.contains("every rank trains in place"),
            in_place,
            "{log}"
        );
        assert_eq!(
            log.contains("names the records a sync sends by slot"),
            by_slot,
            "{log}"
        );
        assert_eq!(synced_digests(&log).len(), 6, "{log}");
        let exported = ok(&trainer(&["export", "--run-dir", &run]));
        assert!(
            exported.contains("bids' average and card play's current strategy"),
            "{exported}"
        );
    }
}

/// The local best response of the bids after 40,000 iterations, from the
/// `--export` report: `(value, 95% half-width)`.
fn bidding_lbr(output: &Output) -> (f64, f64) {
    let stdout = ok(output);
    let line = stdout
        .lines()
        .find(|line| line.starts_with("local best response"))
        .unwrap_or_else(|| panic!("no local best response in:\n{stdout}"));
    let figures = line.split("): ").nth(1).unwrap();
    let mut parts = figures.split_whitespace();
    let value: f64 = parts.next().unwrap().parse().unwrap();
    assert_eq!(parts.next(), Some("±"), "{line}");
    let half_width: f64 = parts.next().unwrap().parse().unwrap();
    (value, half_width)
}

/// Two ranks at an equal total of iterations must leave the bids no more
/// exploitable than one process, within the estimates' own noise (both
/// are measured on the same 4,000 deals, so the bound is the two 95%
/// half-widths combined).
#[test]
fn two_ranks_bid_no_worse_than_one_process_at_equal_iterations() {
    let temp = TempDir::new("cluster-lbr");
    let alone = temp.join("alone").display().to_string();
    let pair = temp.join("pair").display().to_string();
    let mut args = bidding_args(&alone, "40000");
    args.push("--export");
    let (one, one_noise) = bidding_lbr(&trainer(&args));
    let mut args = bidding_args(&pair, "40000");
    args.extend(["--export", "--sync-every", "2s"]);
    let (two, two_noise) = bidding_lbr(&run_on(2, &args));
    let noise = one_noise.hypot(two_noise);
    eprintln!(
        "local best response: one process {one:+.3} ± {one_noise:.3}, two ranks {two:+.3} ± {two_noise:.3}"
    );
    assert!(
        two <= one + noise,
        "two ranks {two:+.3} against one process {one:+.3} (noise {noise:.3})"
    );
}

fn checkpointed_iterations(run: &str) -> u64 {
    let status = ok(&trainer(&["status", "--run-dir", run]));
    let line = status
        .lines()
        .find(|line| line.starts_with("checkpoint"))
        .unwrap_or_else(|| panic!("{status}"));
    line.split_whitespace()
        .nth(2)
        .unwrap()
        .replace(',', "")
        .parse()
        .unwrap()
}

/// The trainer processes mpirun started, with their ranks.
fn ranks_of(mpirun: &Child) -> Vec<(u32, usize)> {
    let children = std::fs::read_to_string(format!("/proc/{0}/task/{0}/children", mpirun.id()))
        .unwrap_or_default();
    children
        .split_whitespace()
        .filter_map(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
            let rank = environ
                .split(|&byte| byte == 0)
                .find_map(|entry| entry.strip_prefix(b"OMPI_COMM_WORLD_RANK="))?;
            Some((pid.parse().ok()?, text(rank).parse().ok()?))
        })
        .collect()
}

#[test]
fn a_job_with_a_killed_rank_stops_and_resumes_on_any_number_of_ranks() {
    let temp = TempDir::new("cluster-kill");
    let run = temp.join("run").display().to_string();
    let mut args = bidding_args(&run, "100000000");
    args.extend(["--checkpoint-every", "2000", "--sync-iterations", "1000"]);
    // Wait for two checkpoints, then kill rank 1 as a crash would.
    let (mut job, mut log, follower) = after_two_checkpoints(2, &args, 1);
    Command::new("kill")
        .args(["-9", &follower.to_string()])
        .status()
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut log, &mut rest).unwrap();
    let status = job.wait().unwrap();
    assert!(!status.success(), "the job must stop when a rank dies");
    assert!(
        rest.contains("signal 9") || rest.contains("Killed") || rest.contains("exited"),
        "mpirun says a rank died:\n{rest}"
    );
    let saved = checkpointed_iterations(&run);
    assert!(saved >= 4000, "checkpoint at {saved}");

    // The same run resumes on 3 ranks, then on one process.
    for ranks in [3, 1] {
        let before = checkpointed_iterations(&run);
        let resume = [
            "resume",
            "--run-dir",
            &run,
            "--iterations",
            "3000",
            "--threads",
            "1",
            "--sync-iterations",
            "1000",
            "--sync-check",
        ];
        let output = if ranks == 1 {
            trainer(&resume)
        } else {
            run_on(ranks, &resume)
        };
        let log = both(&output);
        assert!(output.status.success(), "resume on {ranks}:\n{log}");
        assert!(log.contains("resuming from the checkpoint"), "{log}");
        assert_eq!(checkpointed_iterations(&run), before + 3000, "{log}");
        if ranks > 1 {
            assert_eq!(synced_digests(&log).len(), 3, "{log}");
        }
    }
}

/// Starts `args` on `ranks` ranks, waits for two of its checkpoints, and
/// returns the job, its log and the process id of rank `rank`.
fn after_two_checkpoints(
    ranks: usize,
    args: &[&str],
    rank: usize,
) -> (Child, BufReader<std::process::ChildStderr>, u32) {
    let mut job = mpirun(ranks)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(job.stderr.take().unwrap());
    after_checkpoints(&mut log, 2);
    let (pid, _) = ranks_of(&job)
        .into_iter()
        .find(|&(_, found)| found == rank)
        .unwrap_or_else(|| panic!("rank {rank} is a child of mpirun"));
    (job, log, pid)
}

/// Waits for `checkpoints` of the job's checkpoints in its log (at most two
/// minutes), and returns the log read so far.
fn after_checkpoints(log: &mut impl BufRead, checkpoints: usize) -> String {
    let (mut seen, mut read, mut line) = (0, String::new(), String::new());
    let started = Instant::now();
    while seen < checkpoints && started.elapsed() < Duration::from_secs(120) {
        line.clear();
        if log.read_line(&mut line).unwrap() == 0 {
            break;
        }
        seen += usize::from(line.contains("checkpoint at iteration"));
        read.push_str(&line);
    }
    assert_eq!(seen, checkpoints, "the job checkpointed:\n{read}");
    read
}

/// A rank that stops without dying (SIGSTOP: as a machine that vanished,
/// it closes no connection, so MPI notices nothing) is named within the
/// timeout by the ranks left, each of which ends saying so; rank 0's last
/// checkpoint is intact and the run resumes from it. The rank is stopped
/// at whatever moment of its epoch it is in, training or mid-sync: either
/// way the others wait for it in a sync.
#[test]
fn a_rank_that_stops_answering_is_named_by_every_other_and_the_run_resumes() {
    let temp = TempDir::new("cluster-vanish");
    let run = temp.join("run").display().to_string();
    let mut args = bidding_args(&run, "100000000");
    args.extend([
        "--checkpoint-every",
        "2000",
        "--sync-iterations",
        "1000",
        "--rank-timeout",
        "3s",
    ]);
    let (mut job, mut log, vanished) = after_two_checkpoints(3, &args, 2);
    Command::new("kill")
        .args(["-STOP", &vanished.to_string()])
        .status()
        .unwrap();
    let stopped = Instant::now();
    // The job must end by itself; if it does not, end it so the test fails
    // rather than hangs.
    let watchdog = std::thread::spawn(move || {
        while stopped.elapsed() < Duration::from_secs(90) {
            if std::fs::metadata(format!("/proc/{vanished}")).is_err() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        let _ = Command::new("kill")
            .args(["-9", &vanished.to_string()])
            .status();
        true
    });
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut log, &mut rest).unwrap();
    let status = job.wait().unwrap();
    let ended_in = stopped.elapsed();
    assert!(
        !watchdog.join().unwrap(),
        "the job did not end by itself:\n{rest}"
    );
    assert!(!status.success(), "the job must stop when a rank vanishes");
    for survivor in [0, 1] {
        let said = format!("rank {survivor}: rank 2 stopped answering");
        assert!(rest.contains(&said), "{said}:\n{rest}");
    }
    assert!(rest.contains("--rank-timeout"), "{rest}");
    assert!(
        ended_in < Duration::from_secs(60),
        "found within the 3 s timeout and a roll call, not TCP's minutes: {ended_in:?}\n{rest}"
    );
    let saved = checkpointed_iterations(&run);
    assert!(saved >= 4000, "checkpoint at {saved}");

    let resume = [
        "resume",
        "--run-dir",
        &run,
        "--iterations",
        "2000",
        "--threads",
        "1",
        "--sync-iterations",
        "1000",
        "--sync-check",
    ];
    let output = run_on(2, &resume);
    let log = both(&output);
    assert!(output.status.success(), "resume on 2:\n{log}");
    assert!(log.contains("resuming from the checkpoint"), "{log}");
    assert_eq!(checkpointed_iterations(&run), saved + 2000, "{log}");
}

#[test]
fn ranks_started_differently_stop_the_job_before_training() {
    let temp = TempDir::new("cluster-disagree");
    let run = temp.join("run").display().to_string();
    let one = bidding_args(&run, "1000");
    let other = bidding_args(&run, "2000");
    let output = mpirun(1)
        .args(&one)
        .arg(":")
        .args(["-np", "1", env!("CARGO_BIN_EXE_trainer")])
        .args(&other)
        .output()
        .unwrap();
    let log = refused(&output);
    assert!(log.contains("rank 1 was started differently"), "{log}");
    assert!(
        !temp.join("run").exists(),
        "nothing trained, nothing written"
    );
}

/// A rank that cannot make its replica (here: the fixed bids rank 0 sends
/// cannot be written to its temporary directory) stops every rank before
/// any trains, and rank 0 says which rank and why.
#[test]
fn a_rank_that_cannot_open_its_replica_stops_the_job_with_the_reason() {
    let temp = TempDir::new("cluster-replica");
    let policy = bidding_policy(&temp.0);
    let run = temp.join("full-play").display().to_string();
    let args = [
        "train",
        "--phase",
        "full-play",
        "--store",
        "memory",
        "--bidding-from",
        policy.to_str().unwrap(),
        "--threads",
        "1",
        "--iterations",
        "200",
        "--run-dir",
        &run,
    ];
    let output = mpirun(1)
        .args(args)
        .arg(":")
        .args(["-np", "1", "-x", "TMPDIR=/nonexistent/trainer-test"])
        .arg(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .output()
        .unwrap();
    let log = both(&output);
    assert!(!output.status.success(), "{log}");
    assert!(log.contains("rank 1 cannot train this run"), "{log}");
    assert!(log.contains("/nonexistent/trainer-test"), "{log}");
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(
        !status.contains("iteration 200"),
        "nothing trained:\n{status}"
    );

    // With both ranks able, the same fixed-bids run trains.
    let output = run_on(2, &args);
    assert!(output.status.success(), "{}", both(&output));
    assert_eq!(checkpointed_iterations(&run), 200);
}

#[test]
fn a_rank_whose_memory_cannot_hold_the_run_refuses_it_before_training() {
    let temp = TempDir::new("cluster-memory");
    let run = temp.join("bidding").display().to_string();
    let mut args = bidding_args(&run, "2000");
    args.extend(["--rank-memory", "100M"]);
    let output = run_on(2, &args);
    let log = both(&output);
    assert!(!output.status.success(), "{log}");
    assert!(log.contains("rank 0 cannot train this run"), "{log}");
    assert!(
        log.contains("it may use 100.0 MiB (--rank-memory)"),
        "{log}"
    );
    assert!(log.contains("give each rank more memory"), "{log}");
    let status = ok(&trainer(&["status", "--run-dir", &run]));
    assert!(
        !status.contains("iteration 2,000"),
        "nothing trained:\n{status}"
    );

    // With room, every rank's plan is logged and the run trains.
    let mut args = bidding_args(&run, "2000");
    args.extend(["--rank-memory", "4G"]);
    let output = run_on(2, &args);
    let log = both(&output);
    assert!(output.status.success(), "{log}");
    for rank in ["rank 0 may use 4.0 GiB", "rank 1 may use 4.0 GiB"] {
        assert!(log.contains(rank), "{log}");
    }
    assert_eq!(checkpointed_iterations(&run), 2000);

    // A size that is not one is refused by the command line, naming how to
    // write one.
    let error = refused(&trainer(
        &bidding_args(&run, "10")
            .into_iter()
            .chain(["--rank-memory", "64"])
            .collect::<Vec<_>>(),
    ));
    assert!(error.contains("like 512M or 64G"), "{error}");
}

#[test]
fn bench_sync_prints_dense_against_sparse() {
    let output = run_on(
        2,
        &["bench", "sync", "--records", "1000,20000", "--tries", "1"],
    );
    let stdout = ok(&output);
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(rows.len(), 2, "{stdout}");
    assert!(rows[1].trim_start().starts_with("20,000"), "{stdout}");
    assert!(rows.iter().all(|row| row.ends_with('×')), "{stdout}");
    let alone = refused(&trainer(&["bench", "sync"]));
    assert!(alone.contains("under mpirun"), "{alone}");
}

/// Starts a long bidding job under `mpirun` with `options`, sends `signal`
/// to `mpirun` once the run has started, and returns what the job printed
/// and the iterations rank 0 checkpointed.
fn stop_with(signal: &str, options: &[&str]) -> (Output, u64) {
    let temp = TempDir::new(&format!("cluster-{}", signal.to_lowercase()));
    let run = temp.join("run").display().to_string();
    let mut args = bidding_args(&run, "100000000");
    args.extend(["--sync-every", "1s"]);
    let job = mpirun_with(2, options)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !temp.join("run").join("settings.toml").exists()
        && started.elapsed() < Duration::from_secs(60)
    {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_secs(3));
    Command::new("kill")
        .args([&format!("-{signal}"), &job.id().to_string()])
        .status()
        .unwrap();
    let output = job.wait_with_output().unwrap();
    let iterations = checkpointed_iterations(&run);
    (output, iterations)
}

/// SIGUSR1 at `mpirun` reaches every rank at once; only rank 0 acts on it:
/// it ends the epoch, checkpoints and dismisses the others, and the job
/// ends as a finished one.
#[test]
fn sigusr1_at_mpirun_checkpoints_and_ends_the_job() {
    let (output, iterations) = stop_with("USR1", &[]);
    let log = both(&output);
    assert!(output.status.success(), "{log}");
    assert!(log.contains("stop requested (SIGUSR1)"), "{log}");
    assert!(log.contains("interrupted and checkpointed"), "{log}");
    assert!(iterations > 0, "{log}");
    // Started with Open MPI's default timeout, rank 0 said how to stop.
    assert!(log.contains("kill -USR1 <mpirun's pid>"), "{log}");
}

/// Ctrl-C at `mpirun` reaches the ranks as SIGTERM after
/// `odls_base_sigkill_timeout` seconds, and SIGKILL follows as long after:
/// with the timeout set, rank 0 has the time to checkpoint however loaded
/// the machine is.
#[test]
fn ctrl_c_at_mpirun_checkpoints_given_the_timeout() {
    let (output, iterations) = stop_with("INT", &["--mca", "odls_base_sigkill_timeout", "15"]);
    // mpirun's own exit status reports the interrupt; what matters is
    // that rank 0 checkpointed before the job ended.
    let log = both(&output);
    assert!(log.contains("interrupted and checkpointed"), "{log}");
    assert!(iterations > 0, "{log}");
    assert!(log.contains("gives the ranks 15 s"), "{log}");
}

/// A run on the mmap store: each follower makes the same kind of store as
/// rank 0 in its temporary directory, from rank 0's keys file and perfect
/// hash (records in rank 0's layout), so that it trains at rank 0's rate
/// in rank 0's memory; the replicas stay identical after every sync, and
/// the follower's store is gone when the job ends.
#[test]
fn followers_of_an_mmap_run_train_on_an_mmap_store_of_their_own() {
    let temp = TempDir::new("cluster-mmap");
    let scratch = temp.join("scratch");
    std::fs::create_dir_all(&scratch).unwrap();
    let run = temp.join("run").display().to_string();
    let mut args = bidding_args(&run, "2000");
    let store = args.iter().position(|&arg| arg == "--store").unwrap() + 1;
    args[store] = "mmap";
    args.extend(["--sync-iterations", "500", "--sync-check"]);
    let output = mpirun(2)
        .env("TMPDIR", &scratch)
        .args(&args)
        .output()
        .expect("mpirun runs");
    let log = both(&output);
    assert!(output.status.success(), "{log}");
    assert_eq!(synced_digests(&log).len(), 4, "{log}");
    assert!(
        log.contains("the store's keys and perfect hash") && log.contains("sent to every rank"),
        "{log}"
    );
    let left: Vec<_> = std::fs::read_dir(&scratch)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "the follower left {left:?}");
    // The follower's store is made in its temporary directory: where none
    // can be made (here a file, not a directory, even for root), the job
    // stops before training and says which rank and where.
    let not_a_dir = temp.join("not-a-dir");
    std::fs::write(&not_a_dir, b"").unwrap();
    // Passed to the ranks only: Open MPI's own launcher needs a real one.
    let ranks_tmpdir = format!("TMPDIR={}", not_a_dir.display());
    let output = mpirun_with(2, &["-x", &ranks_tmpdir])
        .args(&args)
        .output()
        .expect("mpirun runs");
    let log = both(&output);
    assert!(!output.status.success(), "{log}");
    assert!(log.contains("rank 1 cannot train this run"), "{log}");
    assert!(
        log.contains("cannot make its replica's store in") && log.contains("not-a-dir"),
        "{log}"
    );
}
