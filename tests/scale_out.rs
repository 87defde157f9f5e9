//! Scale-out behind a real load balancer: three `mcpgen serve --transport http` replicas behind
//! nginx on 127.0.0.1, 16 concurrent MCP clients (rmcp), one replica stopped midway (SIGTERM, as
//! Kubernetes stops a pod). Every call must reach the upstream exactly once with the exact request,
//! or fail with a transport error that one retry resolves without a duplicate.
//!
//! nginx comes from Debian's packages (`.ci/run` installs it). Without it the test says so and
//! passes, unless `MCPGEN_REQUIRE_NGINX=1` (set by `.ci/run`) makes its absence a failure.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::nginx::{Nginx, backend, nginx};
use common::{Mock, ServerCommand, spawn_http, start_mock};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

const CLIENTS: usize = 16;
const CALLS_PER_CLIENT: usize = 125; // 2,000 calls in all
const REPLICAS: usize = 3;

#[derive(Debug, Default)]
struct Outcome {
    ok: usize,
    retried: usize,
    failed: Vec<String>,
}

/// `clients` MCP clients, each making `calls` calls of `postNote` with a unique body; a transport
/// failure is retried once. `halfway` runs once, when half of all calls are done.
async fn drive(url: &str, clients: usize, calls: usize, halfway: Option<Box<dyn FnOnce() + Send>>) -> Outcome {
    let done = Arc::new(AtomicUsize::new(0));
    let halfway = Arc::new(std::sync::Mutex::new(halfway));
    let total = clients * calls;
    let mut tasks = Vec::new();
    for c in 0..clients {
        let url = url.to_string();
        let done = done.clone();
        let halfway = halfway.clone();
        tasks.push(tokio::spawn(async move {
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
            let client = ().serve(transport).await.expect("initialize through nginx");
            let mut out = Outcome::default();
            for i in 0..calls {
                let note = format!("note c{c} i{i}");
                let params = CallToolRequestParams::new("postNote")
                    .with_arguments(json!({"body": note}).as_object().cloned().unwrap_or_default());
                let mut result = client.call_tool(params.clone()).await;
                if result.is_err() {
                    out.retried += 1;
                    result = client.call_tool(params).await;
                }
                match result {
                    Ok(r) if r.is_error != Some(true) => out.ok += 1,
                    Ok(r) => out.failed.push(format!("{note}: isError {:?}", r.content)),
                    Err(e) => out.failed.push(format!("{note}: {e}")),
                }
                if done.fetch_add(1, Ordering::SeqCst) + 1 == total / 2
                    && let Some(f) = halfway.lock().unwrap().take()
                {
                    f();
                }
            }
            let _ = client.cancel().await;
            out
        }));
    }
    let mut all = Outcome::default();
    for t in tasks {
        let o = t.await.expect("client task");
        all.ok += o.ok;
        all.retried += o.retried;
        all.failed.extend(o.failed);
    }
    all
}

/// How many times the upstream received each note body.
fn receipts(mock: &Mock) -> BTreeMap<String, usize> {
    let mut seen = BTreeMap::new();
    for r in mock.requests() {
        assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/note"), "only postNote calls");
        assert_eq!(r.header("content-type"), Some("text/plain"), "the exact request");
        *seen.entry(String::from_utf8_lossy(&r.body).into_owned()).or_insert(0) += 1;
    }
    seen
}

async fn replicas(mock: &Mock, spec: &Path, n: usize) -> Vec<(tokio::process::Child, String)> {
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &mock.url()]);
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(spawn_http(&cmd, &[]).await);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn three_replicas_behind_nginx_lose_and_duplicate_nothing_when_one_stops() {
    let Some(nginx_bin) = nginx() else { return };
    let mock = start_mock().await;
    let spec = common::e2e_spec(&mock);

    // One replica directly, for the baseline figure.
    let single = replicas(&mock, &spec, 1).await;
    let started = Instant::now();
    let baseline = drive(&single[0].1, CLIENTS, CALLS_PER_CLIENT / 5, None).await;
    let one_rate = (baseline.ok as f64) / started.elapsed().as_secs_f64();
    assert!(baseline.failed.is_empty(), "{:?}", baseline.failed);
    drop(single);
    mock.clear();

    let mut servers = replicas(&mock, &spec, REPLICAS).await;
    let lb = Nginx::start(&nginx_bin, &servers.iter().map(|(_, url)| backend(url)).collect::<Vec<_>>());
    let victim = servers[0].0.id().expect("the replica's pid");
    let stop: Box<dyn FnOnce() + Send> = Box::new(move || {
        let status = std::process::Command::new("kill").args(["-TERM", &victim.to_string()]).status();
        assert!(status.is_ok_and(|s| s.success()), "kill -TERM {victim}");
    });
    let started = Instant::now();
    let outcome = drive(&lb.url, CLIENTS, CALLS_PER_CLIENT, Some(stop)).await;
    let elapsed = started.elapsed();
    let three_rate = (outcome.ok as f64) / elapsed.as_secs_f64();

    // The stopped replica is gone; the others still run.
    let exit = tokio::time::timeout(Duration::from_secs(10), servers[0].0.wait()).await;
    assert!(matches!(exit, Ok(Ok(_))), "the stopped replica exited: {exit:?}");
    for (child, _) in &mut servers[1..] {
        assert!(child.try_wait().unwrap().is_none(), "the other replicas keep running");
    }

    let total = CLIENTS * CALLS_PER_CLIENT;
    assert!(outcome.failed.is_empty(), "{} calls failed after a retry: {:?}", outcome.failed.len(), outcome.failed);
    assert_eq!(outcome.ok, total);
    let seen = receipts(&mock);
    assert_eq!(seen.len(), total, "every call reached the upstream");
    let duplicated: Vec<_> = seen.iter().filter(|(_, n)| **n > 1).collect();
    assert!(duplicated.is_empty(), "non-idempotent requests sent twice: {duplicated:?}");
    eprintln!(
        "scale-out: {total} calls through nginx to {REPLICAS} replicas (one stopped midway) in {:.2} s: \
         {three_rate:.0} calls/s, {} retried once; one replica direct: {one_rate:.0} calls/s",
        elapsed.as_secs_f64(),
        outcome.retried
    );
}
