//! What the upstream client reports of a response as it arrives: a task-local [`Tracker`] that
//! the engine's progress notifications read (see `engine/progress.rs`). The reports go nowhere
//! outside [`Tracker::scope`], so a request carries no progress parameter.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// `total` when the body's length is unknown (or no body has started).
const UNKNOWN: u64 = u64::MAX;

/// What one call's upstream response has delivered so far.
#[derive(Debug)]
pub struct Tracker {
    received: AtomicU64,
    total: AtomicU64,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker { received: AtomicU64::new(0), total: AtomicU64::new(UNKNOWN) }
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
}

/// A response's body begins: `total` bytes are expected when known (retries start again).
pub fn body_started(total: Option<u64>) {
    let _ = TRACKER.try_with(|t| {
        t.received.store(0, Ordering::Relaxed);
        t.total.store(total.unwrap_or(UNKNOWN), Ordering::Relaxed);
    });
}

/// `bytes` of the body have arrived in all.
pub fn received(bytes: u64) {
    let _ = TRACKER.try_with(|t| t.received.store(bytes, Ordering::Relaxed));
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
}
