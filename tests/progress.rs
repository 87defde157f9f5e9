//! Progress and cancellation end to end with rmcp's client against `mcpgen serve` and a slow mock
//! upstream: a slow call sends `notifications/progress` (bytes of the declared length), and a
//! cancelled call (`notifications/cancelled` over stdio, a closed HTTP request) closes its
//! upstream connection before the body ends.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Mock, Reply, ServerCommand, fixture_spec, spawn_http, start_mock};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, ProgressNotificationParam, ProgressToken, RequestMetaObject,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RunningService};
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;

/// A client that keeps the progress notifications it gets.
#[derive(Clone, Default)]
struct Watcher {
    seen: Arc<Mutex<Vec<ProgressNotificationParam>>>,
}

impl rmcp::ClientHandler for Watcher {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.seen.lock().unwrap().push(params);
    }
}

async fn stdio(mock: &Mock, watcher: &Watcher) -> (RunningService<RoleClient, Watcher>, tempfile::TempPath) {
    mcpgen::runtime::install_crypto_provider();
    let spec = fixture_spec("confirm.yaml", mock);
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    c.args(["serve", spec.to_str().unwrap(), "--transport", "stdio"]).kill_on_drop(true);
    c.stderr(std::process::Stdio::null());
    let child = rmcp::transport::TokioChildProcess::new(c).unwrap();
    (watcher.clone().serve(child).await.expect("connect over stdio"), spec)
}

fn slow_call(token: Option<&str>) -> ClientRequest {
    let mut params = CallToolRequestParams::new("slowReport");
    if let Some(token) = token {
        params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(rmcp::model::NumberOrString::String(
            token.to_string().into(),
        ))));
    }
    ClientRequest::CallToolRequest(CallToolRequest::new(params))
}

/// Waits until the mock has counted an aborted body, or fails after a few seconds.
async fn wait_for_abort(mock: &Mock) {
    for _ in 0..50 {
        if mock.aborted() == 1 {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the upstream connection was not closed (aborted bodies: {})", mock.aborted());
}

#[tokio::test]
async fn a_slow_call_reports_bytes_received_of_the_declared_length() {
    let mock = start_mock().await;
    // 8 chunks of 100 bytes, one each 150 ms: about 1.2 s.
    mock.reply_next(Reply::Stream(8, 100, Duration::from_millis(150)));
    let watcher = Watcher::default();
    let (client, _spec) = stdio(&mock, &watcher).await;
    let handle =
        client.peer().send_cancellable_request(slow_call(Some("p-1")), PeerRequestOptions::no_options()).await.unwrap();
    // rmcp's client sends a token of its own in place of the one given.
    let token = handle.progress_token.clone();
    let response = handle.await_response().await.expect("the call answers");
    assert!(matches!(response, rmcp::model::ServerResult::CallToolResult(_)), "{response:?}");
    let seen = watcher.seen.lock().unwrap().clone();
    assert!(seen.len() >= 3, "progress notifications: {seen:?}");
    assert!(seen.windows(2).all(|w| w[0].progress < w[1].progress), "increasing: {seen:?}");
    assert!(seen.iter().all(|p| p.progress_token == token), "every notification carries the call's token");
    assert!(seen.iter().any(|p| p.total == Some(800.0) && p.progress > 0.0), "{seen:?}");
    assert!(seen.iter().all(|p| p.progress <= 800.0));
}

#[tokio::test]
async fn a_cancelled_call_over_stdio_closes_its_upstream_connection() {
    let mock = start_mock().await;
    // 50 chunks, one each 200 ms: 10 s unless cancelled.
    mock.reply_next(Reply::Stream(50, 10, Duration::from_millis(200)));
    let watcher = Watcher::default();
    let (client, _spec) = stdio(&mock, &watcher).await;
    let mut options = PeerRequestOptions::no_options();
    // rmcp's client cancels a request that times out (notifications/cancelled).
    options.timeout = Some(Duration::from_millis(600));
    let handle = client.peer().send_cancellable_request(slow_call(None), options).await.unwrap();
    assert!(handle.await_response().await.is_err(), "the call timed out on the client");
    wait_for_abort(&mock).await;
    assert_eq!(mock.requests().len(), 1);
}

#[tokio::test]
async fn a_closed_http_request_closes_its_upstream_connection() {
    let mock = start_mock().await;
    mock.reply_next(Reply::Stream(50, 10, Duration::from_millis(200)));
    let spec = fixture_spec("confirm.yaml", &mock);
    let (_server, url) = spawn_http(&ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()]), &[]).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "slowReport", "arguments": {},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }});
    let send = reqwest::Client::new()
        .post(&url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "slowReport")
        .json(&body)
        .send();
    // The client gives up after 600 ms: its connection closes.
    assert!(tokio::time::timeout(Duration::from_millis(600), send).await.is_err());
    wait_for_abort(&mock).await;
}
