//! Progress and cancellation of `tools/call`s: when the client sends a `progressToken`, a slow call
//! reports `notifications/progress` at most every [`TICK`] (bytes of the upstream's body received
//! of its `Content-Length` when known, else seconds elapsed); when the client cancels the request
//! (`notifications/cancelled`, or closes its HTTP request) the call's future is dropped, which
//! drops the upstream request and closes its connection.
//!
//! The upstream client reports what it receives through its task-local [`Tracker`], so the
//! engine carries no progress parameter: outside [`run`] the reports go nowhere.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::ProgressNotificationParam;
use rmcp::service::RequestContext;

pub use crate::upstream::progress::Tracker;

/// The shortest time between two progress notifications of one call.
pub const TICK: Duration = Duration::from_millis(250);

/// Runs `call` for the request of `context`: with progress notifications when the client asked
/// for them, and dropped when the request is cancelled (`None`).
pub async fn run<F: Future>(call: F, context: &RequestContext<RoleServer>) -> Option<F::Output> {
    let tracker = Arc::new(Tracker::default());
    let call = tracker.clone().scope(call);
    let report = async {
        match context.meta.get_progress_token() {
            Some(token) => report(&tracker, token, context).await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        out = call => Some(out),
        () = report => None,
        () = context.ct.cancelled() => {
            tracing::debug!("tools/call cancelled by the client: upstream request dropped");
            None
        }
    }
}

/// Sends a notification each [`TICK`] while the value grows; never returns.
async fn report(tracker: &Tracker, token: rmcp::model::ProgressToken, context: &RequestContext<RoleServer>) {
    let started = Instant::now();
    let mut last = 0.0_f64;
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + TICK, TICK);
    loop {
        ticks.tick().await;
        let (progress, total, message) = snapshot(tracker, started.elapsed());
        // Progress must increase from one notification to the next.
        if progress <= last {
            continue;
        }
        last = progress;
        let mut param = ProgressNotificationParam::new(token.clone(), progress);
        param.total = total;
        param.message = Some(message);
        if context.peer.notify_progress(param).await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// The value to report: bytes of a body of known length, else seconds elapsed.
fn snapshot(tracker: &Tracker, elapsed: Duration) -> (f64, Option<f64>, String) {
    let (received, total) = tracker.delivered();
    if tracker.counts_steps() {
        let message = match total {
            Some(total) => format!("{received} of {total} steps done"),
            None => format!("{received} steps done"),
        };
        return (received as f64, total.map(|t| t as f64), message);
    }
    if let Some(total) = total.filter(|t| *t > 0) {
        let message = format!("received {received} of {total} bytes from the API");
        (received as f64, Some(total as f64), message)
    } else {
        let secs = (elapsed.as_millis() as f64 / 100.0).round() / 10.0;
        (secs, None, format!("waiting for the API: {secs} s, {received} bytes received"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::progress::{body_started, received};

    /// A tracker as a response of `total` bytes left it after `bytes`.
    async fn tracker(total: Option<u64>, bytes: u64) -> Arc<Tracker> {
        let t = Arc::new(Tracker::default());
        t.clone()
            .scope(async {
                body_started(total);
                received(bytes);
            })
            .await;
        t
    }

    #[tokio::test]
    async fn a_known_length_reports_bytes() {
        let t = tracker(Some(1000), 250).await;
        let (p, total, m) = snapshot(&t, Duration::from_secs(3));
        assert_eq!((p, total), (250.0, Some(1000.0)));
        assert_eq!(m, "received 250 of 1000 bytes from the API");
    }

    #[test]
    fn an_unknown_length_reports_seconds() {
        let t = Tracker::default();
        let (p, total, _) = snapshot(&t, Duration::from_millis(1260));
        assert_eq!((p, total), (1.3, None));
    }
}
