//! The fast path of plain `tools/call`s over Streamable HTTP (runtime/src/transport/http/fast_call.rs) answers
//! exactly as rmcp does: each request is sent, byte for byte, to a server with the fast path and
//! to one without it (`MCPGEN_NO_FAST_CALL=1`), both in front of the same recording upstream; the
//! status, content type and JSON body must be equal, and so must what the upstream received.

use crate::common;

use common::*;
use serde_json::{Value, json};

const ACCEPT: (&str, &str) = ("accept", "application/json, text/event-stream");
const JSON: (&str, &str) = ("content-type", "application/json");

/// Two servers over one upstream: with the fast path and without.
struct Pair {
    mock: Mock,
    fast: (tokio::process::Child, String, Logs),
    rmcp: (tokio::process::Child, String, Logs),
    _spec: tempfile::TempPath,
}

async fn pair() -> Pair {
    pair_with_token(None).await
}

/// A pair whose clients must send `token` (`--auth-token`, from `MCPGEN_AUTH_TOKEN`).
async fn pair_with_token(token: Option<&str>) -> Pair {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let args = ["serve", spec.to_str().unwrap(), "--base-url", &mock.url()];
    // The fast path says when it answers (trace), so each case can tell which path served it.
    let log = "info,mcpgen_runtime::transport::http::fast_call=trace";
    let command = || {
        let c = ServerCommand::mcpgen(&args).env("MCPGEN_LOG", log);
        match token {
            Some(t) => c.env("MCPGEN_AUTH_TOKEN", t),
            None => c,
        }
    };
    let fast = spawn_http_logged(&command(), &[]).await;
    let rmcp = spawn_http_logged(&command().env("MCPGEN_NO_FAST_CALL", "1"), &[]).await;
    Pair { mock, fast, rmcp, _spec: spec }
}

/// What a client and the upstream saw of one request.
#[derive(Debug, PartialEq)]
struct Seen {
    status: u16,
    content_type: Option<String>,
    /// The JSON body, or the text of one that is not JSON.
    body: Value,
    upstream: Vec<Upstream>,
}

/// Method, path, query, headers but `host`, body.
type Upstream = (String, String, Option<String>, Vec<(String, String)>, String);

async fn send(mock: &Mock, url: &str, headers: &[(&str, &str)], body: &str, reply: Option<&Reply>) -> Seen {
    mock.clear();
    if let Some(r) = reply {
        mock.reply_next(r.clone());
    }
    let mut request = reqwest::Client::new().post(url).body(body.to_string());
    for (k, v) in headers {
        request = request.header(*k, *v);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    let upstream = mock
        .requests()
        .into_iter()
        .map(|r| {
            let mut headers: Vec<(String, String)> = r
                .headers
                .iter()
                .filter(|(k, _)| *k != "host")
                .map(|(k, v)| (k.to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
                .collect();
            headers.sort();
            (r.method, r.path, r.query, headers, String::from_utf8_lossy(&r.body).into_owned())
        })
        .collect();
    Seen { status, content_type, body, upstream }
}

fn fast_answers(logs: &Logs) -> usize {
    logs.lock().unwrap().iter().filter(|l| l.contains("tools/call on the fast path")).count()
}

/// Sends the request to both servers and asserts the answers and upstream requests are equal;
/// `fast` says whether the fast path is to answer it (else it falls back to rmcp). Returns the
/// answer.
async fn same(headers: &[(&str, &str)], body: &str, reply: Option<Reply>, fast: bool) -> Seen {
    same_on(pair().await, "", headers, body, reply, fast).await
}

/// [`same`] on the pair `p`, at `/mcp` followed by `suffix`.
async fn same_on(
    p: Pair,
    suffix: &str,
    headers: &[(&str, &str)],
    body: &str,
    reply: Option<Reply>,
    fast: bool,
) -> Seen {
    let with = send(&p.mock, &format!("{}{suffix}", p.fast.1), headers, body, reply.as_ref()).await;
    let without = send(&p.mock, &format!("{}{suffix}", p.rmcp.1), headers, body, reply.as_ref()).await;
    assert_eq!(with, without, "fast path (left) and rmcp (right) differ for {body}");
    // The trace line is written before the call's own log line; give the reader a moment.
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(fast_answers(&p.fast.2), usize::from(fast), "fast path taken for {body}?");
    assert_eq!(fast_answers(&p.rmcp.2), 0, "MCPGEN_NO_FAST_CALL=1 turns the fast path off");
    with
}

fn call(id: Value, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plain_call() {
    let body = call(
        json!(1),
        json!({"name": "updatePet", "arguments": {"id": 7, "name": "q", "body_name": "Rex", "tags": ["a"]}}),
    );
    let seen = same(&[ACCEPT, JSON], &body, None, true).await;
    assert_eq!((seen.status, seen.body["id"].clone()), (200, json!(1)), "{seen:?}");
    assert_eq!(seen.body["result"]["isError"], false, "{seen:?}");
    assert_eq!(seen.upstream.len(), 1);
    assert_eq!(seen.upstream[0].1, "/pets/7");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_tool() {
    let seen = same(&[ACCEPT, JSON], &call(json!(2), json!({"name": "noSuchTool", "arguments": {}})), None, true).await;
    assert_eq!(seen.body["error"]["code"], -32602, "{seen:?}");
    assert!(seen.upstream.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_arguments() {
    let body = call(json!(3), json!({"name": "updatePet", "arguments": {"id": "seven", "name": 5}}));
    let seen = same(&[ACCEPT, JSON], &body, None, true).await;
    assert!(seen.body.get("error").is_some() || seen.body["result"]["isError"] == true, "{seen:?}");
    assert!(seen.upstream.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_404() {
    let reply = Reply::Json(404, json!({"message": "no such thing"}));
    let seen = same(&[ACCEPT, JSON], &call(json!(4), json!({"name": "fault"})), Some(reply), true).await;
    assert_eq!(seen.body["result"]["isError"], true, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upstream_500() {
    let reply = Reply::Raw(500, "text/plain", b"it broke".to_vec());
    let seen =
        same(&[ACCEPT, JSON], &call(json!(5), json!({"name": "fault", "arguments": {}})), Some(reply), true).await;
    assert_eq!(seen.body["result"]["isError"], true, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn string_id() {
    let seen = same(&[ACCEPT, JSON], &call(json!("req-\u{e9}\"1"), json!({"name": "authNone"})), None, true).await;
    assert_eq!(seen.body["id"], "req-\u{e9}\"1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numeric_id() {
    let id = json!(-9_007_199_254_740_993_i64);
    let seen = same(&[ACCEPT, JSON], &call(id.clone(), json!({"name": "authNone", "arguments": {}})), None, true).await;
    assert_eq!(seen.body["id"], id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_missing() {
    let seen = same(&[ACCEPT, JSON], &call(json!(8), json!({"name": "updatePet"})), None, true).await;
    assert!(seen.upstream.is_empty(), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meta_without_progress_token() {
    let body = call(json!(9), json!({"name": "authNone", "arguments": {}, "_meta": {"trace": "abc", "n": [1]}}));
    same(&[ACCEPT, JSON], &body, None, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn meta_with_progress_token_falls_back() {
    let body = call(json!(10), json!({"name": "authNone", "arguments": {}, "_meta": {"progressToken": "p"}}));
    same(&[ACCEPT, JSON], &body, None, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_protocol_version_header() {
    let body = call(json!(11), json!({"name": "authNone", "arguments": {}}));
    same(&[ACCEPT, JSON, ("mcp-protocol-version", "2025-06-18")], &body, None, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_2026_protocol_version_header_falls_back() {
    let body = call(json!(12), json!({"name": "authNone", "arguments": {}}));
    let seen = same(&[ACCEPT, JSON, ("mcp-protocol-version", "2026-07-28")], &body, None, false).await;
    assert_eq!(seen.status, 400, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_protocol_version_header_falls_back() {
    let body = call(json!(13), json!({"name": "authNone", "arguments": {}}));
    let seen = same(&[ACCEPT, JSON, ("mcp-protocol-version", "1999-01-01")], &body, None, false).await;
    assert_eq!(seen.status, 400, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_accept_header() {
    let body = call(json!(14), json!({"name": "authNone", "arguments": {}}));
    let seen = same(&[("accept", "application/json"), JSON], &body, None, false).await;
    assert_eq!(seen.status, 406, "{seen:?}");
    assert!(seen.upstream.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_content_type() {
    let body = call(json!(15), json!({"name": "authNone", "arguments": {}}));
    let seen = same(&[ACCEPT, ("content-type", "text/plain")], &body, None, false).await;
    assert_eq!(seen.status, 415, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_header_falls_back() {
    let body = call(json!(16), json!({"name": "authNone", "arguments": {}}));
    same(&[ACCEPT, JSON, ("mcp-session-id", "abc")], &body, None, false).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disallowed_host_falls_back() {
    let body = call(json!(17), json!({"name": "authNone", "arguments": {}}));
    let seen = same(&[ACCEPT, JSON, ("host", "evil.example:80")], &body, None, false).await;
    assert_eq!(seen.status, 403, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn origin_falls_back() {
    let body = call(json!(18), json!({"name": "authNone", "arguments": {}}));
    same(&[ACCEPT, JSON, ("origin", "http://localhost:3000")], &body, None, false).await;
    let seen = same(&[ACCEPT, JSON, ("origin", "https://evil.example")], &body, None, false).await;
    assert_eq!(seen.status, 403, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_and_other_methods_fall_back() {
    let one = call(json!(19), json!({"name": "authNone", "arguments": {}}));
    same(&[ACCEPT, JSON], &format!("[{one}]"), None, false).await;
    same(&[ACCEPT, JSON], r#"{"jsonrpc":"2.0","id":20,"method":"tools/list","params":{}}"#, None, false).await;
}

// The fast path answers ahead of axum's router (runtime/src/transport/http/front.rs): what the router's layers
// check first, it checks first too, and answers as they do.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_bearer_token_calls_are_fast() {
    let body = call(json!(21), json!({"name": "authNone", "arguments": {}}));
    let p = pair_with_token(Some("s3cret")).await;
    let seen = same_on(p, "", &[ACCEPT, JSON, ("authorization", "Bearer s3cret")], &body, None, true).await;
    assert_eq!((seen.status, seen.body["result"]["isError"].clone()), (200, json!(false)), "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_or_missing_bearer_token_is_refused_before_anything() {
    let body = call(json!(22), json!({"name": "authNone", "arguments": {}}));
    for auth in [Some("Bearer wrong"), Some("s3cret"), None] {
        let mut headers = vec![ACCEPT, JSON];
        headers.extend(auth.map(|a| ("authorization", a)));
        let seen = same_on(pair_with_token(Some("s3cret")).await, "", &headers, &body, None, false).await;
        assert_eq!(seen.status, 401, "{auth:?}: {seen:?}");
        assert!(seen.upstream.is_empty());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_16_mib_is_a_parse_error() {
    let padding = "x".repeat(16 * 1024 * 1024);
    let body = call(json!(23), json!({"name": "authNone", "arguments": {}, "_meta": {"pad": padding}}));
    let seen = same(&[ACCEPT, JSON], &body, None, false).await;
    assert_eq!((seen.status, seen.body["error"]["code"].clone()), (400, json!(-32700)), "{:?}", seen.status);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paths_below_mcp_are_the_routers() {
    let body = call(json!(24), json!({"name": "authNone", "arguments": {}}));
    let seen = same_on(pair().await, "/", &[ACCEPT, JSON], &body, None, false).await;
    // rmcp's, through the router's `/mcp` nesting: the call is made all the same.
    assert_eq!((seen.status, seen.upstream.len()), (200, 1), "{seen:?}");
}

/// With `--confirm`, calls may ask the user through rmcp's peer: the fast path stays off, and the
/// answers are rmcp's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn confirm_turns_the_fast_path_off() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&[
        "serve",
        spec.to_str().unwrap(),
        "--base-url",
        &mock.url(),
        "--confirm",
        "destructive",
    ])
    .env("MCPGEN_LOG", "info,mcpgen_runtime::transport::http::fast_call=trace");
    let (_child, url, logs) = spawn_http_logged(&cmd, &[]).await;
    let seen =
        send(&mock, &url, &[ACCEPT, JSON], &call(json!(1), json!({"name": "authNone", "arguments": {}})), None).await;
    assert_eq!((seen.status, seen.body["result"]["isError"].clone()), (200, json!(false)), "{seen:?}");
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    assert_eq!(fast_answers(&logs), 0);
}

// Each MCP path has its own fast path, which takes what that path's `tools/call` takes (every
// tool on /mcp/tools; discovery's tools and the pinned ones on /mcp/discovery) and answers the
// rest as rmcp does there.

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_path_calls_are_fast() {
    let body = call(json!(25), json!({"name": "authNone", "arguments": {}}));
    let seen = same_on(pair().await, "/tools", &[ACCEPT, JSON], &body, None, true).await;
    assert_eq!((seen.status, seen.body["result"]["isError"].clone()), (200, json!(false)), "{seen:?}");
    assert_eq!(seen.upstream.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_tool_path_has_no_discovery_tools() {
    let body = call(json!(26), json!({"name": "call_tool", "arguments": {"name": "authNone"}}));
    let seen = same_on(pair().await, "/tools", &[ACCEPT, JSON], &body, None, true).await;
    assert_eq!(seen.body["error"]["code"], -32602, "{seen:?}");
    assert!(seen.upstream.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_path_call_tool_is_fast() {
    let body = call(json!(27), json!({"name": "call_tool", "arguments": {"name": "authNone", "arguments": {}}}));
    let seen = same_on(pair().await, "/discovery", &[ACCEPT, JSON], &body, None, true).await;
    assert_eq!((seen.status, seen.body["result"]["isError"].clone()), (200, json!(false)), "{seen:?}");
    assert_eq!(seen.upstream.len(), 1, "the API tool was called");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_path_refuses_a_direct_call() {
    let body = call(json!(28), json!({"name": "authNone", "arguments": {}}));
    let seen = same_on(pair().await, "/discovery", &[ACCEPT, JSON], &body, None, true).await;
    assert_eq!(seen.body["error"]["code"], -32602, "{seen:?}");
    assert!(seen.body["error"]["message"].as_str().unwrap().contains("through call_tool"), "{seen:?}");
    assert!(seen.upstream.is_empty());
}
