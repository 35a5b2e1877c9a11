//! Logs go to stderr and to the run's `train.log`. Lines to stderr pass
//! through the progress bar so the two never tear each other.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use indicatif::ProgressBar;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::fmt::writer::MakeWriterExt;

use crate::training::error::TrainingError;

/// Stderr, drawn around the progress bar.
#[derive(Clone)]
struct AroundBar(ProgressBar);

struct BarWriter(ProgressBar);

impl Write for BarWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.suspend(|| std::io::stderr().write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> MakeWriter<'a> for AroundBar {
    type Writer = BarWriter;

    fn make_writer(&'a self) -> BarWriter {
        BarWriter(self.0.clone())
    }
}

/// The log file, shared by every thread.
#[derive(Clone)]
struct LogFile(Arc<Mutex<File>>);

struct LogFileWriter(Arc<Mutex<File>>);

impl Write for LogFileWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .write_all(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .flush()
    }
}

impl<'a> MakeWriter<'a> for LogFile {
    type Writer = LogFileWriter;

    fn make_writer(&'a self) -> LogFileWriter {
        LogFileWriter(self.0.clone())
    }
}

/// Installs the process-wide logger. `file` appends to a log file too.
pub fn init(level: &str, bar: &ProgressBar, file: Option<&Path>) -> Result<(), TrainingError> {
    let level: tracing::Level = level.parse().unwrap_or(tracing::Level::INFO);
    let stderr = AroundBar(bar.clone()).with_max_level(level);
    let builder = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_target(false)
        .with_max_level(level);
    let result = match file {
        Some(path) => {
            let log = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|source| TrainingError::LogFile {
                    path: path.to_path_buf(),
                    source,
                })?;
            let log = LogFile(Arc::new(Mutex::new(log))).with_max_level(level);
            builder.with_writer(stderr.and(log)).try_init()
        }
        None => builder.with_writer(stderr).try_init(),
    };
    // A logger already installed (a second session in one process) is fine.
    drop(result);
    Ok(())
}
