//! How long Open MPI lets ranks live after Ctrl-C at `mpirun`.
//!
//! Open MPI 4.1's `mpirun` answers SIGINT by waiting
//! `odls_base_sigkill_timeout` seconds (1 by default), sending every rank
//! SIGTERM, waiting as long again and sending SIGKILL (measured here with
//! a rank that logs its signals). Rank 0 needs longer than one second to
//! end its epoch and checkpoint a large table, so Ctrl-C at a job started
//! with the default loses the work since its last checkpoint (the store
//! stays safe: it recovers as from kill -9). Two ways out: SIGUSR1, which
//! `mpirun` forwards at once and rank 0 answers by checkpointing and
//! ending the job, and a longer timeout, which `mpirun --mca
//! odls_base_sigkill_timeout 60` puts in every rank's environment, which
//! is how rank 0 can tell.

use std::time::Duration;

/// The environment variable `mpirun --mca odls_base_sigkill_timeout S`
/// sets in every rank.
pub const SIGKILL_TIMEOUT_VARIABLE: &str = "OMPI_MCA_odls_base_sigkill_timeout";

/// The variable Open MPI sets in every rank it starts.
const OPEN_MPI_MARKER: &str = "OMPI_COMM_WORLD_SIZE";

/// Open MPI's own default, in seconds.
const OPEN_MPI_DEFAULT_SECONDS: u64 = 1;

/// The grace below which the warning is given: time enough to finish an
/// epoch of the default length, sync it and write a checkpoint of a
/// laptop-sized table.
pub const ENOUGH: Duration = Duration::from_secs(60);

/// The grace Open MPI gives after Ctrl-C, read from the setting's value
/// as rank 0 sees it; `None` when the setting is not a whole number of
/// seconds (Open MPI itself would refuse it).
pub fn grace_after_interrupt(setting: Option<&str>) -> Option<Duration> {
    match setting {
        None => Some(Duration::from_secs(OPEN_MPI_DEFAULT_SECONDS)),
        Some(text) => text.trim().parse().ok().map(Duration::from_secs),
    }
}

/// The warning rank 0 logs when Ctrl-C would kill the job before it can
/// checkpoint, or `None` when the grace is long enough.
pub fn warning(setting: Option<&str>) -> Option<String> {
    let grace = grace_after_interrupt(setting);
    if grace.is_some_and(|grace| grace >= ENOUGH) {
        return None;
    }
    let given = match (setting, grace) {
        (None, _) => format!("{OPEN_MPI_DEFAULT_SECONDS} s (Open MPI's default)"),
        (Some(_), Some(grace)) => format!("{} s", grace.as_secs()),
        (Some(text), None) => format!("an unreadable {text:?}"),
    };
    Some(format!(
        "Ctrl-C at mpirun gives the ranks {given} between SIGTERM and SIGKILL, too little \
         to checkpoint: the work since the last checkpoint would be lost. To stop this job, \
         send `kill -USR1 <mpirun's pid>` (rank 0 checkpoints and ends the job); to make \
         Ctrl-C checkpoint, start mpirun with `--mca odls_base_sigkill_timeout 60`."
    ))
}

/// [`warning`] for this process, when Open MPI started it.
pub fn warning_for_this_process() -> Option<String> {
    std::env::var_os(OPEN_MPI_MARKER)?;
    warning(std::env::var(SIGKILL_TIMEOUT_VARIABLE).ok().as_deref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_mpis_default_grace_is_too_short_and_the_warning_says_how_to_fix_it() {
        assert_eq!(grace_after_interrupt(None), Some(Duration::from_secs(1)));
        let text = warning(None).unwrap();
        assert!(text.contains("1 s (Open MPI's default)"), "{text}");
        assert!(text.contains("kill -USR1"), "{text}");
        assert!(
            text.contains("--mca odls_base_sigkill_timeout 60`"),
            "{text}"
        );
    }

    #[test]
    fn a_long_enough_grace_gives_no_warning() {
        assert_eq!(warning(Some("600")), None);
        assert_eq!(warning(Some("60")), None);
        let short = warning(Some("10")).unwrap();
        assert!(short.contains("gives the ranks 10 s"), "{short}");
    }

    #[test]
    fn an_unreadable_setting_is_named_in_the_warning() {
        assert_eq!(grace_after_interrupt(Some("soon")), None);
        let text = warning(Some("soon")).unwrap();
        assert!(text.contains("an unreadable \"soon\""), "{text}");
    }
}
