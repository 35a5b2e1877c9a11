//! Ctrl-C and SIGTERM: the first asks the session to stop after its batch
//! and checkpoint; the second exits at once, losing only the work since the
//! last checkpoint.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::training::error::TrainingError;

static SIGNALS: AtomicU32 = AtomicU32::new(0);

/// The exit status of a process killed by SIGINT, by shell convention.
const INTERRUPTED: i32 = 130;

static INSTALLED: std::sync::Once = std::sync::Once::new();

/// Installs the handler once per process; later calls do nothing.
pub fn install() -> Result<(), TrainingError> {
    let mut result = Ok(());
    INSTALLED.call_once(|| result = set_handler());
    result
}

fn set_handler() -> Result<(), TrainingError> {
    ctrlc::set_handler(|| {
        if SIGNALS.fetch_add(1, Ordering::SeqCst) >= 1 {
            eprintln!("\nsecond interrupt: exiting now; the run resumes from its last checkpoint");
            std::process::exit(INTERRUPTED);
        }
        eprintln!(
            "\ninterrupt: finishing this batch and checkpointing (interrupt again to quit at once)"
        );
    })
    .map_err(TrainingError::Signals)
}

pub fn stop_requested() -> bool {
    SIGNALS.load(Ordering::SeqCst) > 0
}
