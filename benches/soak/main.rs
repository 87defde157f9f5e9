//! Soak under faults (issue 14): `mcpgen serve --transport http --watch` in front of a local
//! upstream that answers 5 % of requests badly (HTTP 500, connection reset, too slow, truncated
//! body, invalid JSON, 10 MB body), called by concurrent MCP clients; the spec is edited halfway,
//! so the server reloads while the calls go on.
//!
//! Every result is classified: the healthy answer for its request id, or the outcome that names
//! the fault the upstream injected for that id. Anything else (a wrong answer, a protocol error, a
//! call that hangs, a panic in the server's log, RSS growing beyond 10 % after warm-up, open file
//! descriptors growing) is a failure: the bench prints examples and exits with 1. One exception,
//! counted apart: the upstream runs in this process, so when the machine does not schedule it
//! for a second (a watchdog task sees the pause), mcpgen rightly answers "timed out" where
//! another answer was due.
//!
//! `cargo bench --bench soak` (the release build of `mcpgen`); `SOAK_CALLS` (100000) and
//! `SOAK_CLIENTS` (32) change its size; `SOAK_SAMPLES=FILE` keeps the RSS and fd samples as CSV,
//! `SOAK_SERVER_LOG=FILE` the server's log. See docs/soak.md.

mod classify;
mod clients;
mod monitor;
mod report;
mod scenario;
mod server;
mod upstream;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use classify::Tally;
use report::Run;
use upstream::UpstreamCounts;

/// `--timeout` of the server, in seconds; the slow fault answers after `upstream::SLOW`.
const TIMEOUT_SECS: u64 = 1;
/// `--max-response-bytes` (mcpgen's default), below the big fault's body.
const CAP: usize = 1024 * 1024;
/// A call that takes longer than this counts as a hang (the slowest expected one is a reset GET:
/// two attempts and a backoff of at most 300 ms).
const HANG: Duration = Duration::from_secs(10);
/// A pause of this process longer than this is a stall (a 20 ms sleep that took this long).
const STALL: Duration = Duration::from_millis(250);

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

#[tokio::main]
async fn main() {
    mcpgen::runtime::install_crypto_provider();
    let calls = env_usize("SOAK_CALLS", 100_000);
    let clients = env_usize("SOAK_CLIENTS", 32);
    assert!(calls >= 10 && clients >= 1, "SOAK_CALLS must be at least 10 and SOAK_CLIENTS at least 1");

    let counts = Arc::new(UpstreamCounts::default());
    let base = upstream::upstream(counts.clone()).await;
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec_path = dir.path().join("soak.yaml");
    std::fs::write(&spec_path, scenario::spec(&base, false)).expect("write the spec");
    let server = server::start_server(&spec_path).await;
    let fds_before = monitor::fd_count(server.pid).unwrap_or(0);
    println!(
        "soak: {calls} calls from {clients} clients; mcpgen pid {} at {}, upstream {base}, --timeout {TIMEOUT_SECS} --retries 1",
        server.pid, server.url
    );

    let done = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let sampler = monitor::sampler(server.pid, started, done.clone(), finished.clone());
    let progress = monitor::progress(calls, started, done.clone(), finished.clone());
    let reload = tokio::spawn(clients::reload_midway(
        server.url.clone(),
        spec_path.clone(),
        scenario::spec(&base, true),
        done.clone(),
        calls,
    ));
    let watchdog = monitor::watchdog(finished.clone());

    let next = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..clients)
        .map(|_| tokio::spawn(clients::run_client(server.url.clone(), next.clone(), calls as u64, done.clone())))
        .collect();
    let mut tally = Tally::default();
    for t in tasks {
        tally.merge(t.await.expect("a client task"));
    }
    let duration = started.elapsed();
    finished.store(true, Ordering::Relaxed);
    let samples = sampler.await.expect("the sampler");
    let stalls = watchdog.await.expect("the watchdog");
    // Idle again: what the load opened must have been closed (idle upstream connections kept in
    // reqwest's pool aside: at most one per client).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let fds_after = monitor::fd_count(server.pid).unwrap_or(usize::MAX);
    tally.resolve(&stalls);
    monitor::keep_samples(&samples);
    let _ = progress.await;
    let reload = reload.await.expect("the reload task");
    let server = server.stop().await;

    let run = Run { calls, clients, duration, tally, stalls, counts, reload, samples, fds_before, fds_after, server };
    let problems = report::report(&run);
    if problems.is_empty() {
        println!("\nPASS");
    } else {
        println!("\nFAIL: {}", problems.join("; "));
        std::process::exit(1);
    }
}
