//! The load: MCP clients over Streamable HTTP calling the tools by request id, and the edit of the
//! spec halfway that makes the server reload while they go on.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;

use crate::classify::{Outcome, Tally, check, excerpt, text_of};
use crate::scenario::{call_for, fault_of};
use crate::{HANG, TIMEOUT_SECS};

type Client = RunningService<RoleClient, ()>;

/// An initialized MCP client of the server at `url`.
async fn client(url: &str) -> Client {
    ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string()))
        .await
        .expect("initialize over HTTP")
}

/// Saves as editors do: a new file renamed over the old one.
fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_extension("yaml.tmp");
    std::fs::write(&tmp, text).expect("write the new spec");
    std::fs::rename(&tmp, path).expect("rename it over the old one");
}

/// One client: takes request ids until `calls` are taken.
pub(crate) async fn run_client(url: String, next: Arc<AtomicU64>, calls: u64, done: Arc<AtomicUsize>) -> Tally {
    let mut tally = Tally::default();
    let client = client(&url).await;
    loop {
        let rid = next.fetch_add(1, Ordering::Relaxed) + 1;
        if rid > calls {
            break;
        }
        let started = Instant::now();
        let outcome = match tokio::time::timeout(HANG, client.call_tool(call_for(rid))).await {
            Err(_) => Outcome::Failure { fault: fault_of(rid), what: format!("no answer within {HANG:?}") },
            Ok(Err(e)) => Outcome::Failure { fault: fault_of(rid), what: format!("protocol error: {e}") },
            Ok(Ok(r)) => match check(rid, &r) {
                Ok(()) => Outcome::Correct(fault_of(rid)),
                Err(what) if text_of(&r).contains(&format!("timed out after {TIMEOUT_SECS} s")) => {
                    Outcome::TimedOut { fault: fault_of(rid), what }
                }
                Err(what) => Outcome::Failure { fault: fault_of(rid), what },
            },
        };
        tally.record(rid, outcome, started);
        done.fetch_add(1, Ordering::Relaxed);
    }
    let _ = client.cancel().await;
    tally
}

/// What happened around the reload.
pub(crate) struct ReloadReport {
    pub(crate) at_call: usize,
    pub(crate) visible_after: Duration,
    pub(crate) calls_meanwhile: usize,
    pub(crate) stats_call: Result<(), String>,
}

/// Halfway, adds an operation to the spec; a fresh client waits for it in `tools/list`, then
/// calls it.
pub(crate) async fn reload_midway(
    url: String,
    spec_path: PathBuf,
    spec_text: String,
    done: Arc<AtomicUsize>,
    calls: usize,
) -> Result<ReloadReport, String> {
    while done.load(Ordering::Relaxed) < calls / 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let at_call = done.load(Ordering::Relaxed);
    let edited = Instant::now();
    save_by_rename(&spec_path, &spec_text);
    let deadline = edited + Duration::from_secs(15);
    let visible_after = loop {
        let fresh = client(&url).await;
        let tools = fresh.list_all_tools().await.map_err(|e| format!("tools/list: {e}"))?;
        let _ = fresh.cancel().await;
        if tools.iter().any(|t| t.name == "getStats") {
            break edited.elapsed();
        }
        if Instant::now() > deadline {
            return Err(format!(
                "getStats not listed 15 s after the edit: {:?}",
                tools.iter().map(|t| &t.name).collect::<Vec<_>>()
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let calls_meanwhile = done.load(Ordering::Relaxed) - at_call;
    let fresh = client(&url).await;
    let stats_call = match fresh.call_tool(CallToolRequestParams::new("getStats")).await {
        Ok(r) if r.structured_content == Some(json!({"stats": "ok"})) => Ok(()),
        Ok(r) => Err(format!("getStats answered {}", excerpt(&text_of(&r)))),
        Err(e) => Err(format!("getStats: {e}")),
    };
    let _ = fresh.cancel().await;
    Ok(ReloadReport { at_call, visible_after, calls_meanwhile, stats_call })
}
