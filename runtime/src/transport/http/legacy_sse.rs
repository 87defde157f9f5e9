//! The 2024-11-05 HTTP+SSE transport, for clients that never moved to Streamable HTTP (older
//! n8n and Dify plugins; the MCP Inspector CLI's default for a URL). `GET /sse` opens a session:
//! its first event names the endpoint (`/messages?session_id=...`) where the client POSTs its
//! JSON-RPC messages; the server's messages come back as `message` events on the stream. Each
//! session runs the same MCP server over an in-memory transport. Off unless `--legacy-sse`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures::channel::mpsc::{UnboundedSender, unbounded};
use futures::{StreamExt, stream};
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};

use crate::transport::server::McpServer;

/// Open sessions: where each one's client messages go.
pub struct LegacySse {
    server: McpServer,
    sessions: Mutex<HashMap<String, UnboundedSender<ClientJsonRpcMessage>>>,
}

impl LegacySse {
    /// No sessions yet; each `GET /sse` runs `server` over a new one.
    pub fn new(server: McpServer) -> Arc<LegacySse> {
        Arc::new(LegacySse { server, sessions: Mutex::new(HashMap::new()) })
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, UnboundedSender<ClientJsonRpcMessage>>> {
        // A panic elsewhere while holding the lock leaves the map usable.
        self.sessions.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// `GET /sse`: a new session and its event stream.
pub async fn connect(State(legacy): State<Arc<LegacySse>>) -> Response {
    let id = rmcp::transport::common::server_side_http::session_id().to_string();
    let (to_server, from_client) = unbounded::<ClientJsonRpcMessage>();
    let (to_client, for_client) = unbounded::<ServerJsonRpcMessage>();
    legacy.sessions().insert(id.clone(), to_server);
    let server = legacy.server.clone();
    let (state, session) = (legacy.clone(), id.clone());
    tokio::spawn(async move {
        match server.serve((to_client, from_client)).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(e) => tracing::debug!("legacy SSE session ended before initialize: {e}"),
        }
        state.sessions().remove(&session);
    });
    // The session ends when its stream does (the client went away): dropping its sender ends the
    // server's input, even if the client never sent a message.
    let guard = SessionGuard { legacy, id: id.clone() };
    let endpoint = stream::once(async move { format!("event: endpoint\ndata: /messages?session_id={id}\n\n") });
    let messages = for_client.map(move |m| {
        let _alive = &guard;
        let json = serde_json::to_string(&m).unwrap_or_default();
        format!("event: message\ndata: {json}\n\n")
    });
    let body = endpoint.chain(messages).map(|event| Ok::<_, std::convert::Infallible>(Bytes::from(event)));
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(body))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Removes its session when the event stream is dropped.
struct SessionGuard {
    legacy: Arc<LegacySse>,
    id: String,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.legacy.sessions().remove(&self.id);
    }
}

/// `POST /messages?session_id=...`: one client message into its session (answered on the stream).
pub async fn message(State(legacy): State<Arc<LegacySse>>, uri: axum::http::Uri, body: Bytes) -> Response {
    let session = url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .find(|(k, _)| k == "session_id")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_default();
    let message: ClientJsonRpcMessage = match serde_json::from_slice(&body) {
        Ok(m) => m,
        Err(e) => {
            let error = serde_json::json!({"jsonrpc": "2.0", "id": null,
                "error": {"code": -32700, "message": format!("Parse error: {e}")}});
            return (StatusCode::BAD_REQUEST, super::Json(error)).into_response();
        }
    };
    let sender = legacy.sessions().get(&session).cloned();
    match sender {
        Some(tx) if tx.unbounded_send(message).is_ok() => (StatusCode::ACCEPTED, "Accepted").into_response(),
        _ => (StatusCode::NOT_FOUND, "no such session: open one with GET /sse\n").into_response(),
    }
}

/// The `Host` and `Origin` values the legacy routes accept (the same lists as `/mcp`'s).
pub struct Allowed {
    /// Host names (without port) a request's `Host` must be one of.
    pub hosts: Vec<String>,
    /// Origins a request's `Origin`, when sent, must match; `http://localhost:*` allows any port.
    pub origins: Vec<String>,
}

/// Refuses requests whose `Host` or `Origin` is not allowed (DNS rebinding, cross-site pages).
pub async fn guard(
    State(allowed): State<Arc<Allowed>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).map(host_name).unwrap_or_default();
    if !allowed.hosts.iter().any(|h| h.eq_ignore_ascii_case(&host)) {
        return (StatusCode::FORBIDDEN, "Host not allowed (see --allow-host)\n").into_response();
    }
    if let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok())
        && !allowed.origins.iter().any(|pattern| origin_matches(pattern, origin))
    {
        return (StatusCode::FORBIDDEN, "Origin not allowed (see --allow-origin)\n").into_response();
    }
    next.run(request).await
}

/// `127.0.0.1:8080` -> `127.0.0.1`; `[::1]:8080` -> `[::1]`.
fn host_name(host: &str) -> String {
    if host.starts_with('[') {
        return host.split_once(']').map(|(h, _)| format!("{h}]")).unwrap_or_else(|| host.to_string());
    }
    host.rsplit_once(':')
        .filter(|(_, port)| port.bytes().all(|b| b.is_ascii_digit()))
        .map_or(host, |(h, _)| h)
        .to_string()
}

/// `http://localhost:*` allows `http://localhost` with any port; other patterns match exactly.
fn origin_matches(pattern: &str, origin: &str) -> bool {
    match pattern.strip_suffix(":*") {
        Some(base) => {
            origin == base
                || origin
                    .strip_prefix(base)
                    .and_then(|rest| rest.strip_prefix(':'))
                    .is_some_and(|port| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
        }
        None => pattern == origin,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        assert_eq!(host_name("127.0.0.1:8080"), "127.0.0.1");
        assert_eq!(host_name("[::1]:80"), "[::1]");
        assert_eq!(host_name("example.com"), "example.com");
        assert!(origin_matches("http://localhost:*", "http://localhost:5173"));
        assert!(origin_matches("http://localhost:*", "http://localhost"));
        assert!(!origin_matches("http://localhost:*", "http://localhost.evil.com"));
        assert!(!origin_matches("http://localhost:*", "http://localhost:80x"));
        assert!(origin_matches("https://app.example.com", "https://app.example.com"));
    }
}
