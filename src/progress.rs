//! Progress on stderr for work that takes a while (Microsoft Graph beta: 5 s to load): a spinner
//! that names the stage, shown only when stderr is a terminal and only after a second, and
//! cleared when the work is done. Nothing at all when stderr is not a terminal.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long work runs before its progress shows.
const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A spinner for one piece of work; dropped, it clears itself.
pub(crate) struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Starts tracking; shows after [`SHOW_AFTER`] if stderr is a terminal and `enabled`.
    pub(crate) fn start(enabled: bool, message: &str) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(message.to_string());
        let shown = bar.clone();
        let _ = std::thread::Builder::new().name("mcpgen-progress".into()).spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            if !shown.is_finished() {
                shown.set_draw_target(ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Progress { bar: Some(bar) }
    }

    /// Names the stage now under way.
    pub(crate) fn stage(&self, message: impl Into<String>) {
        if let Some(bar) = &self.bar {
            bar.set_message(message.into());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn nothing_without_a_terminal() {
        // Test runs capture stderr: never a terminal here.
        let p = super::Progress::start(true, "loading");
        assert!(p.bar.is_none());
        p.stage("converting");
    }
}
