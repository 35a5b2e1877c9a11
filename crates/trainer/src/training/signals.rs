//! Stop requests from outside the process.
//!
//! Ctrl-C, SIGTERM and SIGHUP: the first asks the session to stop after
//! its batch and checkpoint; the second exits at once, losing only the
//! work since the last checkpoint.
//!
//! SIGUSR1 asks for the same checkpointed stop and never exits at once. It
//! is the way to stop a job under `mpirun`, which forwards SIGUSR1 to
//! every rank immediately but answers Ctrl-C by sending SIGTERM only after
//! `odls_base_sigkill_timeout` seconds and SIGKILL as long again later
//! (see `cluster::grace`).

use std::sync::atomic::{AtomicU32, Ordering};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1};
use signal_hook::iterator::Signals;

use crate::training::error::TrainingError;

/// The signals a training process answers.
const STOP_SIGNALS: [i32; 4] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1];

static REQUESTS: AtomicU32 = AtomicU32::new(0);

/// The exit status of a process killed by SIGINT, by shell convention.
const INTERRUPTED: i32 = 130;

static INSTALLED: std::sync::Once = std::sync::Once::new();

/// Installs the handler once per process; later calls do nothing.
pub fn install() -> Result<(), TrainingError> {
    let mut result = Ok(());
    INSTALLED.call_once(|| result = listen(answer));
    result
}

/// Makes the stop signals do nothing in this process: a follower rank
/// stops when rank 0 dismisses it, after rank 0's checkpoint; dying on a
/// signal first would take the job down before that checkpoint.
pub fn ignore() -> Result<(), TrainingError> {
    let mut result = Ok(());
    INSTALLED.call_once(|| result = listen(|_| {}));
    result
}

/// Runs `respond` on a thread of its own for every stop signal, so it may
/// print and exit, which a signal handler itself may not.
fn listen(respond: fn(i32)) -> Result<(), TrainingError> {
    let mut signals = Signals::new(STOP_SIGNALS).map_err(TrainingError::Signals)?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                respond(signal);
            }
        })
        .map_err(TrainingError::Signals)?;
    Ok(())
}

fn answer(signal: i32) {
    let earlier = REQUESTS.fetch_add(1, Ordering::SeqCst);
    if signal == SIGUSR1 {
        eprintln!("\nstop requested (SIGUSR1): finishing this batch and checkpointing");
    } else if earlier >= 1 {
        eprintln!("\nsecond interrupt: exiting now; the run resumes from its last checkpoint");
        std::process::exit(INTERRUPTED);
    } else {
        eprintln!(
            "\ninterrupt: finishing this batch and checkpointing (interrupt again to quit at once)"
        );
    }
}

pub fn stop_requested() -> bool {
    REQUESTS.load(Ordering::SeqCst) > 0
}
