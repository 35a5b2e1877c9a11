//! Resident memory as the kernel reports it, for progress lines and
//! benchmarks.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Peak anonymous and file-backed resident memory, sampled every 20 ms.
/// File-backed pages of the mmap are page cache the kernel can reclaim;
/// anonymous memory is what the process truly holds.
#[derive(Debug)]
pub struct MemorySampler {
    stop: std::sync::Arc<AtomicBool>,
    peak_anon: std::sync::Arc<AtomicU64>,
    peak_file: std::sync::Arc<AtomicU64>,
    handle: Option<std::thread::JoinHandle<()>>,
}

/// A `/proc/self/status` field in KiB, or 0 where unknown.
pub fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|line| line.starts_with(field))
        .and_then(|line| line.split_whitespace().nth(1))
        .and_then(|value| value.parse().ok())
        .unwrap_or(0)
}

impl MemorySampler {
    pub fn start() -> MemorySampler {
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let peak_anon = std::sync::Arc::new(AtomicU64::new(0));
        let peak_file = std::sync::Arc::new(AtomicU64::new(0));
        let (s, a, f) = (stop.clone(), peak_anon.clone(), peak_file.clone());
        let handle = std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                a.fetch_max(status_kib("RssAnon:") * 1024, Ordering::Relaxed);
                f.fetch_max(status_kib("RssFile:") * 1024, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        MemorySampler {
            stop,
            peak_anon,
            peak_file,
            handle: Some(handle),
        }
    }

    pub fn finish(mut self) -> (u64, u64) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            handle.join().ok();
        }
        (
            self.peak_anon.load(Ordering::Relaxed),
            self.peak_file.load(Ordering::Relaxed),
        )
    }
}

/// Resident memory now, anonymous plus file-backed, in bytes.
pub fn resident_bytes() -> u64 {
    (status_kib("RssAnon:") + status_kib("RssFile:")) * 1024
}

/// Anonymous resident memory now: what the process holds beyond page cache.
pub fn anonymous_bytes() -> u64 {
    status_kib("RssAnon:") * 1024
}
