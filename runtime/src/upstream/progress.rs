//! What the upstream client reports of a response as it arrives: a task-local [`Tracker`] that
//! the engine's progress notifications read (see `engine/progress.rs`). The reports go nowhere
//! outside [`Tracker::scope`], so a request carries no progress parameter.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// `total` when the body's length is unknown (or no body has started).
const UNKNOWN: u64 = u64::MAX;

/// What one call's upstream response has delivered so far.
#[derive(Debug)]
pub struct Tracker {
    received: AtomicU64,
    total: AtomicU64,
    /// The counts are a Rust tool's steps, not bytes of a body.
    steps: AtomicBool,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker { received: AtomicU64::new(0), total: AtomicU64::new(UNKNOWN), steps: AtomicBool::new(false) }
    }
}

tokio::task_local! {
    static TRACKER: Arc<Tracker>;
}

impl Tracker {
    /// Runs `call` with this tracker receiving its upstream reports.
    pub fn scope<F: Future>(self: Arc<Self>, call: F) -> impl Future<Output = F::Output> {
        TRACKER.scope(self, call)
    }

    /// The bytes received so far, and the body's length when it is known.
    pub fn delivered(&self) -> (u64, Option<u64>) {
        let total = self.total.load(Ordering::Relaxed);
        (self.received.load(Ordering::Relaxed), (total != UNKNOWN).then_some(total))
    }

    /// Whether [`Tracker::delivered`] counts a Rust tool's steps rather than bytes.
    pub fn counts_steps(&self) -> bool {
        self.steps.load(Ordering::Relaxed)
    }
}

/// A Rust tool has done `done` of `total` steps: from now on the call's progress counts steps
/// (the bytes of the API responses it reads no longer move it).
pub fn steps(done: u64, total: Option<u64>) {
    let _ = TRACKER.try_with(|t| {
        t.steps.store(true, Ordering::Relaxed);
        t.received.store(done, Ordering::Relaxed);
        t.total.store(total.unwrap_or(UNKNOWN), Ordering::Relaxed);
    });
}

/// A response's body begins: `total` bytes are expected when known (retries start again).
pub fn body_started(total: Option<u64>) {
    let _ = TRACKER.try_with(|t| {
        if t.counts_steps() {
            return;
        }
        t.received.store(0, Ordering::Relaxed);
        t.total.store(total.unwrap_or(UNKNOWN), Ordering::Relaxed);
    });
}

/// `bytes` of the body have arrived in all.
pub fn received(bytes: u64) {
    let _ = TRACKER.try_with(|t| {
        if !t.counts_steps() {
            t.received.store(bytes, Ordering::Relaxed);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reports_reach_the_tracker_only_inside_a_call() {
        received(5); // outside: nowhere, no panic
        let t = Arc::new(Tracker::default());
        t.clone()
            .scope(async {
                body_started(Some(10));
                received(4);
            })
            .await;
        assert_eq!(t.delivered(), (4, Some(10)));
    }

    #[tokio::test]
    async fn a_rust_tools_steps_are_not_moved_by_bytes() {
        let t = Arc::new(Tracker::default());
        t.clone()
            .scope(async {
                steps(1, Some(3));
                body_started(Some(10));
                received(4);
            })
            .await;
        assert_eq!(t.delivered(), (1, Some(3)));
        assert!(t.counts_steps());
    }
}
