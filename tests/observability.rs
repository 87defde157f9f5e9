//! What `mcpgen serve` tells its operator: `/metrics` after a known sequence of calls (exact
//! counts, valid OpenMetrics text, discovery mode), JSON log lines with a request id per call and
//! no secret, `/health` and `/ready`, and the separate metrics listener (`--metrics-bind`), stdio
//! included.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::process::Stdio;
use std::time::Duration;

use common::*;
use rmcp::ServiceExt;
use serde_json::{Value, json};

const SECRET: &str = "s3cr3t-header-key-4711";

fn serve(mock: &Mock, spec: &tempfile::TempPath) -> ServerCommand {
    ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &format!("{}/api", mock.url())])
        .env("E2E_TEST_API_HEADER_KEY", SECRET)
}

async fn client(url: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string())).await.expect("initialize")
}

async fn call(c: &rmcp::service::RunningService<rmcp::RoleClient, ()>, name: &str, args: Value) -> Option<bool> {
    let params = rmcp::model::CallToolRequestParams::new(name.to_string())
        .with_arguments(args.as_object().cloned().unwrap_or_default());
    c.call_tool(params).await.ok().map(|r| r.is_error.unwrap_or(false))
}

async fn get(url: &str, token: Option<&str>) -> (u16, String, String) {
    let mut req = reqwest::Client::new().get(url);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    let status = resp.status().as_u16();
    let ct = resp.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    (status, ct, resp.text().await.unwrap())
}

/// The samples of an exposition: `name{labels}` -> value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').unwrap();
            (series.to_string(), value.parse().unwrap())
        })
        .collect()
}

/// The calls of the known sequence, each with what it should come to.
async fn known_sequence(mock: &Mock, c: &rmcp::service::RunningService<rmcp::RoleClient, ()>) {
    assert_eq!(call(c, "fault", json!({})).await, Some(false));
    assert_eq!(call(c, "fault", json!({})).await, Some(false));
    mock.reply_next(Reply::Json(404, json!({"message": "no such pet"})));
    assert_eq!(call(c, "fault", json!({})).await, Some(true));
    mock.reply_next(Reply::Json(500, json!({"message": "boom"})));
    assert_eq!(call(c, "fault", json!({})).await, Some(true));
    // 503, then a retry that gets the echo.
    mock.reply_next(Reply::Json(503, json!({"message": "busy"})));
    assert_eq!(call(c, "fault", json!({})).await, Some(false));
    mock.reply_next(Reply::Slow(Duration::from_secs(3)));
    assert_eq!(call(c, "fault", json!({})).await, Some(true), "times out after 1 s");
    assert_eq!(call(c, "pathSimple", json!({"id": "arg-value-marker"})).await, Some(true), "list and obj missing");
    assert_eq!(call(c, "noSuchTool", json!({})).await, None, "a JSON-RPC error");
    assert_eq!(call(c, "authNone", json!({})).await, Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_a_known_sequence_of_calls() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let (_child, url) = spawn_http(&serve(&mock, &spec), &["--timeout", "1", "--retries", "1"]).await;
    let base = url.trim_end_matches("/mcp");
    let (_, _, before) = get(&format!("{base}/metrics"), None).await;
    assert!(!before.contains("tool=\"fault\""), "no tool's series before its first call:\n{before}");
    let c = client(&url).await;
    known_sequence(&mock, &c).await;
    let (status, content_type, text) = get(&format!("{base}/metrics"), None).await;
    assert_eq!(status, 200);
    assert_eq!(content_type, "application/openmetrics-text; version=1.0.0; charset=utf-8");
    let got = samples(&text);
    let (_, _, health) = get(&format!("{base}/health"), None).await;
    let tools = serde_json::from_str::<Value>(&health).unwrap()["tools"].as_f64().unwrap();
    let expected: &[(&str, f64)] = &[
        (r#"mcpgen_tool_calls_total{tool="fault",outcome="ok"}"#, 3.0),
        (r#"mcpgen_tool_calls_total{tool="fault",outcome="tool_error"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="fault",outcome="upstream_error"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="fault",outcome="transport_error"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="fault",outcome="invalid_arguments"}"#, 0.0),
        (r#"mcpgen_tool_calls_total{tool="pathSimple",outcome="invalid_arguments"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="pathSimple",outcome="ok"}"#, 0.0),
        (r#"mcpgen_tool_calls_total{tool="authNone",outcome="ok"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="",outcome="unknown_tool"}"#, 1.0),
        ("mcpgen_tool_calls_in_flight", 0.0),
        ("mcpgen_tools", tools),
        (r#"mcpgen_upstream_responses_total{status="200"}"#, 4.0),
        (r#"mcpgen_upstream_responses_total{status="404"}"#, 1.0),
        (r#"mcpgen_upstream_responses_total{status="500"}"#, 1.0),
        (r#"mcpgen_upstream_responses_total{status="503"}"#, 1.0),
        (r#"mcpgen_upstream_errors_total{kind="timeout"}"#, 1.0),
        ("mcpgen_upstream_request_duration_seconds_count", 8.0),
        (r#"mcpgen_upstream_request_duration_seconds_bucket{le="+Inf"}"#, 8.0),
        ("mcpgen_upstream_retries_total", 1.0),
        ("mcpgen_rate_limit_waits_total", 0.0),
        ("mcpgen_rate_limit_wait_seconds_total", 0.0),
        (r#"mcpgen_reloads_total{result="ok"}"#, 0.0),
        (r#"mcpgen_reloads_total{result="error"}"#, 0.0),
    ];
    for (series, value) in expected {
        assert_eq!(got.get(*series), Some(value), "{series} in\n{text}");
    }
    let sum = got["mcpgen_upstream_request_duration_seconds_sum"];
    assert!((1.0..3.0).contains(&sum), "the timeout's second is in the sum: {sum}");
    // Nothing but the catalogue's names (and none for the unknown name) labels a series.
    let labelled: BTreeSet<&str> = got
        .keys()
        .filter_map(|k| k.strip_prefix("mcpgen_tool_calls_total{tool=\""))
        .map(|k| &k[..k.find('"').unwrap()])
        .collect();
    assert_eq!(labelled, BTreeSet::from(["", "authNone", "fault", "pathSimple"]));
    assert!(!text.contains("noSuchTool") && !text.contains("arg-value-marker") && !text.contains("/fault"));
}

/// The paths beside `/mcp` count into the same metrics: a call through `call_tool` on
/// `/mcp/discovery` is its API tool's, a direct call there of a tool it does not list is refused
/// like an unknown name.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_on_every_mcp_path_are_counted() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let (_child, url) = spawn_http(&serve(&mock, &spec), &[]).await;
    assert_eq!(call(&client(&url).await, "authNone", json!({})).await, Some(false));
    assert_eq!(call(&client(&format!("{url}/tools")).await, "authNone", json!({})).await, Some(false));
    let discovery = client(&format!("{url}/discovery")).await;
    assert_eq!(call(&discovery, "call_tool", json!({"name": "authNone"})).await, Some(false));
    assert_eq!(call(&discovery, "authNone", json!({})).await, None, "a JSON-RPC error");
    let (_, _, text) = get(&format!("{}/metrics", url.trim_end_matches("/mcp")), None).await;
    let got = samples(&text);
    assert_eq!(got.get(r#"mcpgen_tool_calls_total{tool="authNone",outcome="ok"}"#), Some(&3.0), "{text}");
    assert_eq!(got.get(r#"mcpgen_tool_calls_total{tool="",outcome="unknown_tool"}"#), Some(&1.0), "{text}");
    assert_eq!(mock.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_waits_are_counted() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let (_child, url) = spawn_http(&serve(&mock, &spec), &["--rate-limit", "5"]).await;
    let c = client(&url).await;
    for _ in 0..3 {
        assert_eq!(call(&c, "authNone", json!({})).await, Some(false));
    }
    let (_, _, text) = get(&format!("{}/metrics", url.trim_end_matches("/mcp")), None).await;
    let got = samples(&text);
    assert_eq!(got["mcpgen_rate_limit_waits_total"], 2.0, "{text}");
    let waited = got["mcpgen_rate_limit_wait_seconds_total"];
    assert!((0.2..=0.4).contains(&waited), "two waits of up to 200 ms: {waited}");
}

/// The exposition follows the OpenMetrics text grammar: every sample belongs to the family its
/// `# TYPE` announced, with the suffixes of its type; names and labels are well formed; values
/// are numbers; histogram buckets are cumulative and end at `+Inf` = `_count`; `# EOF` ends it.
fn check_openmetrics(text: &str) {
    let name_ok = |n: &str| {
        !n.is_empty()
            && n.chars()
                .enumerate()
                .all(|(i, c)| c.is_ascii_alphabetic() || c == '_' || c == ':' || (i > 0 && c.is_ascii_digit()))
    };
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "ends with # EOF");
    assert!(text.ends_with("# EOF\n"));
    let mut family: Option<(String, String)> = None;
    let mut seen = BTreeSet::new();
    let mut buckets: Vec<f64> = Vec::new();
    let mut count: Option<f64> = None;
    // A histogram's +Inf bucket holds all its observations.
    let close = |buckets: &[f64], count: Option<f64>| {
        if let Some(count) = count {
            assert_eq!(buckets.last(), Some(&count), "+Inf bucket = count");
        }
    };
    for line in &lines[..lines.len() - 1] {
        if let Some(rest) = line.strip_prefix("# ") {
            let mut parts = rest.splitn(3, ' ');
            let (kind, name, value) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap_or(""));
            assert!(name_ok(name), "metric name {name:?}");
            match kind {
                "TYPE" => {
                    assert!(["counter", "gauge", "histogram", "info", "unknown"].contains(&value), "{line}");
                    assert!(seen.insert(name.to_string()), "one family per name: {line}");
                    family = Some((name.to_string(), value.to_string()));
                    close(&buckets, count.take());
                    buckets.clear();
                }
                "HELP" => assert!(!value.is_empty(), "{line}"),
                "UNIT" => assert!(name.ends_with(&format!("_{value}")), "the unit ends the name: {line}"),
                _ => panic!("unknown comment line {line:?}"),
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("sample without value: {line:?}"));
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("value of {line:?}"));
        let (name, labels) = match series.split_once('{') {
            Some((n, l)) => (n, l.strip_suffix('}').unwrap_or_else(|| panic!("unclosed labels: {line:?}"))),
            None => (series, ""),
        };
        assert!(name_ok(name), "sample name {name:?}");
        let mut label_names = BTreeSet::new();
        let mut rest = labels;
        while !rest.is_empty() {
            let (key, after) = rest.split_once("=\"").unwrap_or_else(|| panic!("label in {line:?}"));
            assert!(name_ok(key) && label_names.insert(key), "label name {key:?} in {line:?}");
            let end = after.find('"').unwrap_or_else(|| panic!("unterminated label value in {line:?}"));
            rest = after[end + 1..].strip_prefix(',').unwrap_or(&after[end + 1..]);
        }
        let (fam, kind) = family.as_ref().unwrap_or_else(|| panic!("sample before any # TYPE: {line:?}"));
        let suffix = name.strip_prefix(fam.as_str()).unwrap_or_else(|| panic!("{name} outside family {fam}"));
        let allowed: &[&str] = match kind.as_str() {
            "counter" => &["_total", "_created"],
            "gauge" => &[""],
            "histogram" => &["_bucket", "_count", "_sum", "_created"],
            _ => &[""],
        };
        assert!(allowed.contains(&suffix), "{name} in a {kind} family {fam}");
        if suffix == "_total" || suffix == "_count" || suffix == "_bucket" {
            assert!(value >= 0.0, "{line}");
        }
        if suffix == "_bucket" {
            assert!(label_names.contains("le"), "{line}");
            assert!(buckets.last().is_none_or(|last| *last <= value), "buckets are cumulative: {line}");
            buckets.push(value);
        }
        if suffix == "_bucket" && labels.contains("le=\"+Inf\"") {
            assert_eq!(buckets.len(), LATENCY_BUCKETS + 1, "{line}");
        }
        if suffix == "_count" && kind == "histogram" {
            count = Some(value);
        }
    }
    close(&buckets, count);
}

/// The finite upper bounds of the upstream latency histogram.
const LATENCY_BUCKETS: usize = 13;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_text_is_valid_openmetrics() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let (_child, url) = spawn_http(&serve(&mock, &spec), &["--timeout", "1"]).await;
    let c = client(&url).await;
    known_sequence(&mock, &c).await;
    let (_, _, text) = get(&format!("{}/metrics", url.trim_end_matches("/mcp")), None).await;
    check_openmetrics(&text);
    assert!(text.contains("# TYPE mcpgen_upstream_request_duration_seconds histogram\n"), "{text}");
    assert!(text.contains("# UNIT mcpgen_upstream_request_duration_seconds seconds\n"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_have_a_request_id_per_call_and_no_secret() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = serve(&mock, &spec).env("MCPGEN_LOG", "info,mcpgen=debug,mcpgen_runtime=debug");
    let (mut child, url, logs) = spawn_http_logged(&cmd, &["--timeout", "1", "--log-format", "json"]).await;
    let c = client(&url).await;
    known_sequence(&mock, &c).await;
    c.cancel().await.unwrap();
    // The lines are written as each call ends; give the reader a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    child.kill().await.unwrap();
    let lines = logs.lock().unwrap().clone();
    let parsed: Vec<Value> =
        lines.iter().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"))).collect();
    for l in &lines {
        assert!(!l.contains(SECRET), "a credential in the log: {l}");
        assert!(!l.contains("arg-value-marker"), "an argument's value in the log: {l}");
    }
    let calls: Vec<&Value> = parsed.iter().filter(|v| v["message"] == "tools/call").collect();
    assert_eq!(calls.len(), 9, "one line per call: {lines:#?}");
    let ids: BTreeSet<&str> = calls.iter().map(|v| v["request_id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 9, "distinct ids");
    assert!(ids.iter().all(|id| id.len() == 16 && id.chars().all(|c| c.is_ascii_hexdigit())), "{ids:?}");
    for v in &calls {
        assert_eq!(v["level"], "INFO");
        assert!(v["timestamp"].is_string() && v["duration_ms"].is_number() && v["outcome"].is_string(), "{v}");
    }
    let summary: Vec<(String, String, Value)> = calls
        .iter()
        .map(|v| {
            (v["tool"].as_str().unwrap().to_string(), v["outcome"].as_str().unwrap().to_string(), v["status"].clone())
        })
        .collect();
    let expected = [
        ("fault", "ok", json!(200)),
        ("fault", "ok", json!(200)),
        ("fault", "tool_error", json!(404)),
        ("fault", "upstream_error", json!(500)),
        ("fault", "ok", json!(200)),
        ("fault", "transport_error", Value::Null),
        ("pathSimple", "invalid_arguments", Value::Null),
        ("noSuchTool", "unknown_tool", Value::Null),
        ("authNone", "ok", json!(200)),
    ];
    let expected: Vec<(String, String, Value)> =
        expected.into_iter().map(|(t, o, s)| (t.to_string(), o.to_string(), s)).collect();
    assert_eq!(summary, expected);
    // What is logged during a call carries its id: the retry after the 503.
    let retry = parsed.iter().find(|v| v["message"] == "retrying upstream request").expect("a retry line");
    assert_eq!(retry["span"]["request_id"], calls[4]["request_id"], "{retry}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_ready_answer_once_started() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let (_child, url) = spawn_http(&serve(&mock, &spec), &["--auth-token", "tok"]).await;
    let base = url.trim_end_matches("/mcp");
    let (status, _, body) = get(&format!("{base}/ready"), None).await;
    assert_eq!((status, serde_json::from_str::<Value>(&body).unwrap()), (200, json!({"status": "ready"})));
    let (status, _, body) = get(&format!("{base}/health"), None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["status"], "ok");
    // /metrics is behind the token, like /mcp.
    assert_eq!(get(&format!("{base}/metrics"), None).await.0, 401);
    assert_eq!(get(&format!("{base}/metrics"), Some("wrong")).await.0, 401);
    let (status, _, text) = get(&format!("{base}/metrics"), Some("tok")).await;
    assert_eq!(status, 200);
    assert!(text.contains("mcpgen_tool_calls_in_flight 0\n"), "{text}");
}

/// `--metrics-bind` serves /metrics, /health and /ready on their own port, without the token and
/// with stdio too; the MCP listener then has no /metrics.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_listener_of_its_own() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = serve(&mock, &spec);

    // Over stdio.
    let mut command = tokio::process::Command::new(&cmd.program);
    command
        .args(&cmd.args)
        .args(["--transport", "stdio", "--metrics-bind", "127.0.0.1:0"])
        .env_clear()
        .envs(&cmd.env)
        .env("MCPGEN_LOG", "info")
        .kill_on_drop(true);
    let (transport, stderr) = rmcp::transport::TokioChildProcess::builder(command)
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn stdio server");
    let logs = read_lines(stderr.unwrap().into_owned_fd().unwrap());
    let c = ().serve(transport).await.expect("initialize over stdio");
    let metrics = wait_for_url(&logs, "/metrics").await;
    assert_eq!(call(&c, "authNone", json!({})).await, Some(false));
    let (status, _, text) = get(&metrics, None).await;
    assert_eq!(status, 200);
    assert_eq!(samples(&text)[r#"mcpgen_tool_calls_total{tool="authNone",outcome="ok"}"#], 1.0, "{text}");
    let base = metrics.trim_end_matches("/metrics");
    assert_eq!(get(&format!("{base}/ready"), None).await.0, 200);
    assert_eq!(get(&format!("{base}/health"), None).await.0, 200);
    c.cancel().await.unwrap();
    let lines = logs.lock().unwrap().clone();
    assert!(!lines.iter().any(|l| l.contains("tools/call")), "text logs a call at debug only: {lines:#?}");

    // Over HTTP with a token: the metrics port asks for none, the MCP port has no /metrics.
    let (_child, url, logs) = spawn_http_logged(&cmd, &["--metrics-bind", "127.0.0.1:0", "--auth-token", "tok"]).await;
    let metrics = wait_for_url(&logs, "/metrics").await;
    assert_ne!(metrics.trim_end_matches("/metrics"), url.trim_end_matches("/mcp"));
    assert_eq!(get(&metrics, None).await.0, 200);
    assert_eq!(get(&format!("{}/metrics", url.trim_end_matches("/mcp")), Some("tok")).await.0, 404);
}

/// In discovery mode a call through `call_tool` counts as the API tool's; the discovery tools
/// count under their own names only when they reach no API tool.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_calls_count_as_the_api_tools() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let (_child, url) = spawn_http(&serve(&mock, &spec), &["--tool-mode", "discovery"]).await;
    let c = client(&url).await;
    assert_eq!(call(&c, "search_tools", json!({"query": "fault"})).await, Some(false));
    assert_eq!(call(&c, "search_tools", json!({})).await, Some(true));
    assert_eq!(call(&c, "call_tool", json!({"name": "fault", "arguments": {}})).await, Some(false));
    assert_eq!(call(&c, "call_tool", json!({"name": "noSuchTool"})).await, Some(true));
    assert_eq!(call(&c, "call_tool", json!({"arguments": {}})).await, Some(true));
    let (_, _, text) = get(&format!("{}/metrics", url.trim_end_matches("/mcp")), None).await;
    let got = samples(&text);
    for (series, value) in [
        (r#"mcpgen_tool_calls_total{tool="search_tools",outcome="ok"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="search_tools",outcome="invalid_arguments"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="fault",outcome="ok"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="",outcome="unknown_tool"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="call_tool",outcome="invalid_arguments"}"#, 1.0),
        (r#"mcpgen_tool_calls_total{tool="call_tool",outcome="ok"}"#, 0.0),
    ] {
        assert_eq!(got.get(series), Some(&value), "{series} in\n{text}");
    }
}
