//! How one session trains: the settings `trainer resume` may change, and
//! the thread count.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::*;

/// Threads a core past which a thread count is a typo, not a choice: the
/// workers only compete for the cores, and thousands of them stall the
/// machine (each also holds a stack and its own caches).
pub const MAX_THREADS_PER_CORE: usize = 8;

/// Refuses a thread count no machine of this size can use.
pub fn check_threads(threads: usize) -> Result<(), ConfigError> {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let most = MAX_THREADS_PER_CORE * cores;
    if threads > most {
        return Err(ConfigError::TooManyThreads {
            threads,
            most,
            per_core: MAX_THREADS_PER_CORE,
            cores,
        });
    }
    Ok(())
}

/// `--threads` as clap parses it: a count, bounded by [`check_threads`].
pub fn parse_threads(text: &str) -> Result<usize, String> {
    let threads: usize = text
        .parse()
        .map_err(|_| format!("'{text}' is not a thread count: give 0 (one a core) or a number"))?;
    check_threads(threads).map_err(|error| error.to_string())?;
    Ok(threads)
}

/// The threads a `threads` setting asks for: 0 means every core.
pub fn worker_threads(requested: usize) -> usize {
    if requested == 0 {
        std::thread::available_parallelism().map_or(1, usize::from)
    } else {
        requested
    }
}

/// Why this process runs fewer threads than its machine has cores, when
/// its threads were left to the default and its CPU affinity limits it:
/// `mpirun` binds each rank to one core unless started with
/// `--bind-to none`, and the default thread count follows the affinity.
pub fn bound_cores_warning(requested: usize) -> Option<String> {
    if requested != 0 {
        return None;
    }
    let usable = std::thread::available_parallelism().ok()?.get();
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|list| cpu_count(list.trim()))?;
    (usable < online).then(|| {
        format!(
            "this process may use {usable} of this machine's {online} cores (its CPU affinity: mpirun binds each rank to one core by default), so it trains on {usable} thread(s); start mpirun with --bind-to none, or pass --threads"
        )
    })
}

/// The number of CPUs in a kernel CPU list such as `0-15` or `0,2-5`.
fn cpu_count(list: &str) -> Option<usize> {
    list.split(',').try_fold(0, |count, part| {
        let (first, last) = part.split_once('-').unwrap_or((part, part));
        let (first, last): (usize, usize) = (first.parse().ok()?, last.parse().ok()?);
        Some(count + last.checked_sub(first)? + 1)
    })
}

/// How a session runs: free to change between sessions of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionSettings {
    /// Worker threads; 0 means every core.
    pub threads: usize,
    /// Iterations to run in this session; `None` for no limit.
    pub iterations: Option<u64>,
    /// Stop once the run's total reaches this many iterations.
    pub until: Option<u64>,
    /// Wall-clock budget for this session.
    pub duration: Option<Duration>,
    /// Also checkpoint every N iterations, where asked; `None` checkpoints
    /// by time alone. Not by default: a count of iterations is minutes on
    /// one laptop but seconds on a cluster of many ranks and threads, where
    /// every checkpoint idles every rank.
    #[serde(default, deserialize_with = "saved_checkpoint_every")]
    pub checkpoint_every_iterations: Option<u64>,
    pub checkpoint_every_minutes: f64,
    /// Iterations between progress updates and stop checks.
    pub batch: u64,
    pub lmdb_cache_records: usize,
    /// How the mmap store writes its changes: this session's choice, never
    /// saved with the run.
    #[serde(skip)]
    pub mmap_writeback: MmapWriteback,
    /// Export the policy and say what it learned when the session ends.
    pub export: bool,
    pub log: LogSettings,
    /// Measure a learning curve while training; `None` for no curve.
    #[serde(default)]
    pub curve: Option<CurveSettings>,
    /// Regret-based pruning; `None` explores every action.
    #[serde(default)]
    pub pruning: Option<PruningSettings>,
    /// Fresh infostates seeded with the heuristic's move; `None` starts
    /// them at zero.
    #[serde(default)]
    pub warm_start: Option<WarmStartSettings>,
    /// The traverser samples its own actions past its first decisions;
    /// `None` explores them all.
    #[serde(default)]
    pub traverser_sampling: Option<TraverserSamplingSettings>,
    /// The exported policy the run learns a best response to; `None`
    /// trains towards an equilibrium.
    #[serde(default)]
    pub best_response_to: Option<BestResponseSettings>,
    /// How much opening the store checks: this session's choice
    /// (`--skip-checksums`), never saved with the run.
    #[serde(skip)]
    pub verify: store::Verify,
    /// When the ranks sync under `mpirun`: this session's choice, never
    /// saved (a run may resume on one machine or many).
    #[serde(skip)]
    pub sync: SyncSettings,
}

impl SessionSettings {
    /// A resumed run's saved session with this command's flags over it:
    /// threads, a new budget (all three limits together), checkpoints,
    /// export, pruning, the warm start, traverser sampling, the best
    /// response and the curve.
    pub fn with_flags(
        mut self,
        flags: &SessionOptions,
        curve_flags: CurveOptions,
    ) -> Result<SessionSettings, ConfigError> {
        if let Some(threads) = flags.threads {
            self.threads = threads;
        }
        if flags.sets_budget() {
            self.iterations = flags.iterations;
            self.until = flags.until;
            self.duration = flags.duration;
        }
        if let Some(every) = flags.checkpoint_every_iterations {
            self.checkpoint_every_iterations = Some(every.max(1));
        }
        self.export |= flags.export.unwrap_or(false);
        if let Some(regret) = flags.prune {
            self.pruning = PruningSettings::from_flags(regret, flags.prune_after)?;
        }
        if let Some(weight) = flags.warm_start {
            self.warm_start = WarmStartSettings::from_flag(weight)?;
        }
        if let Some(given) = &flags.sample_own_after {
            self.traverser_sampling = TraverserSamplingSettings::from_flag(given)?;
        }
        if let Some(given) = &flags.best_response_to {
            self.best_response_to = BestResponseSettings::from_flag(given)?;
        }
        self.curve = curve_flags.or(self.curve.take().into()).settings();
        self.verify = flags.verify();
        self.mmap_writeback = flags.mmap_writeback.unwrap_or_default();
        self.sync = flags.cluster.settings()?;
        Ok(self)
    }
}

/// The iteration count a run saved before checkpoints came by time alone
/// wrote out for every run that did not choose one.
const OLD_DEFAULT_CHECKPOINT_EVERY: u64 = 1_000_000;

/// A saved run's iteration cadence: the old default, which every run saved
/// before it was dropped wrote out whether chosen or not, is read as no
/// iteration cadence, so an old run resumed on a cluster checkpoints by time
/// as a new one does (`--checkpoint-every 1000000` brings it back).
fn saved_checkpoint_every<'de, D: serde::Deserializer<'de>>(
    saved: D,
) -> Result<Option<u64>, D::Error> {
    let every = Option::<u64>::deserialize(saved)?;
    Ok(every.filter(|&every| every != OLD_DEFAULT_CHECKPOINT_EVERY))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Deserialize)]
    struct Saved {
        #[serde(default, deserialize_with = "saved_checkpoint_every")]
        every: Option<u64>,
    }

    fn saved(text: &str) -> Option<u64> {
        toml::from_str::<Saved>(text).unwrap().every
    }

    #[test]
    fn old_runs_saved_default_iteration_cadence_reads_as_checkpoints_by_time_alone() {
        assert_eq!(saved("every = 1000000"), None);
        assert_eq!(saved(""), None);
        assert_eq!(saved("every = 150000"), Some(150_000));
    }

    #[test]
    fn cpu_lists_count_their_cpus() {
        assert_eq!(cpu_count("0"), Some(1));
        assert_eq!(cpu_count("0-15"), Some(16));
        assert_eq!(cpu_count("0,2-5,7"), Some(6));
        assert_eq!(cpu_count("x"), None);
        assert_eq!(cpu_count("5-2"), None);
    }
}
