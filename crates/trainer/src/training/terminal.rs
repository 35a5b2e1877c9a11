//! A session watched by a person: a progress bar on stderr (when enabled),
//! log lines drawn around it, and Ctrl-C to stop with a checkpoint.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use store::DurableTable;

use crate::format::{bytes, thousands};
use crate::meter::{anonymous_bytes, resident_bytes};
use crate::training::error::TrainingError;
use crate::training::looping::Watcher;
use crate::training::signals;

/// Styles `bar` with an indicatif template. The templates are literals of
/// this crate, tested below, so a bad one keeps the default style rather
/// than stopping a run.
pub fn set_template(bar: &ProgressBar, template: &str) {
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
}

const SPINNER: &str = "{elapsed_precise} {spinner} {pos} it, {per_sec} | {msg}";
const BAR: &str = "{elapsed_precise} [{bar:30}] {pos}/{len} it, {per_sec}, eta {eta} | {msg}";

/// The progress bar and Ctrl-C of `trainer train`.
#[derive(Debug)]
pub struct TerminalWatcher {
    bar: ProgressBar,
}

impl TerminalWatcher {
    /// A spinner until the session's length is known; hidden unless
    /// `progress`. Installs the Ctrl-C handler.
    pub fn new(progress: bool) -> Result<TerminalWatcher, TrainingError> {
        signals::install()?;
        let target = if progress {
            ProgressDrawTarget::stderr_with_hz(4)
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        set_template(&bar, SPINNER);
        // Building an mmap store's perfect hash takes minutes at full
        // scale: the spinner turns, naming each stage, while it runs.
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Ok(TerminalWatcher { bar })
    }

    /// The bar, for the logger to draw its lines around.
    pub fn bar(&self) -> &ProgressBar {
        &self.bar
    }

    /// Back to a turning spinner for a session's next stage, whose store
    /// may take minutes to build.
    pub fn restart(&self) {
        self.bar.set_position(0);
        set_template(&self.bar, SPINNER);
        self.bar
            .enable_steady_tick(std::time::Duration::from_millis(200));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Watcher for TerminalWatcher {
    fn next_stage(&mut self) {
        self.restart();
    }

    fn opening(&mut self, step: &str) {
        self.bar.set_message(format!("store: {step}"));
    }

    fn started(&mut self, length: Option<u64>) {
        self.bar.disable_steady_tick();
        if let Some(length) = length {
            self.bar.set_length(length);
            set_template(&self.bar, BAR);
        }
    }

    fn batch(&mut self, done: u64, table: &dyn DurableTable) {
        self.bar.set_position(done);
        self.bar.set_message(format!(
            "{} infostates, disk {}, resident {} (anon {})",
            thousands(table.len()),
            bytes(table.disk_bytes()),
            bytes(resident_bytes()),
            bytes(anonymous_bytes()),
        ));
    }

    fn should_stop(&self) -> bool {
        signals::stop_requested()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_templates_parse() {
        for template in [SPINNER, BAR] {
            assert!(ProgressStyle::with_template(template).is_ok(), "{template}");
        }
    }
}
