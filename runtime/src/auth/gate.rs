//! The HTTP side of OAuth (a child module of `auth/`): the middleware of `/mcp` and its
//! sibling paths that checks the access token and the scopes of the tools a message calls, and
//! the metadata endpoint.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::{Principal, ResourceServer};
use crate::config::scopes_allow;
use crate::engine::live::LiveEngine;
use crate::engine::{Engine, Surface};

/// Largest JSON-RPC message read for the scope check (the limit of the endpoint itself).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// What the middleware of an MCP path (`/mcp` and its siblings) and the metadata need: the
/// token check, and the tools' scopes.
pub struct Gate {
    /// The token check and metadata.
    pub server: Arc<ResourceServer>,
    /// The tools and how they are shown (whichever engine is served at each request).
    pub engine: LiveEngine,
    /// What the path shows: whether its `call_tool` is discovery's.
    pub surface: Surface,
}

/// `/mcp` under OAuth: no token or a refused one is a 401 with the metadata's URL; a valid one
/// goes on as a [`Principal`] in the request's extensions, unless the message calls a tool
/// outside its scopes (403 `insufficient_scope`, nothing sent upstream).
pub async fn require_access(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let Some(token) = bearer(&request) else { return gate.server.unauthorized(None) };
    let principal = match gate.server.authenticate(token).await {
        Ok(p) => Arc::new(p),
        Err(refusal) => {
            tracing::debug!("access token refused: {}", refusal.description());
            return gate.server.unauthorized(Some(refusal));
        }
    };
    let (mut parts, body) = request.into_parts();
    let bytes = match to_bytes(body, MAX_BODY).await {
        Ok(b) => b,
        Err(_) => return (StatusCode::PAYLOAD_TOO_LARGE, "the request body is larger than 16 MiB\n").into_response(),
    };
    let engine = gate.engine.load();
    if let Ok(message) = serde_json::from_slice::<Value>(&bytes)
        && let Some((tool, needed)) = outside_scopes(&engine, gate.surface, &message, &principal)
    {
        tracing::debug!(tool = %tool, "tools/call refused: insufficient scope");
        engine.count_forbidden(&tool);
        return gate.server.insufficient_scope(&principal, &tool, &needed);
    }
    parts.extensions.insert(principal);
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// The token of `Authorization: Bearer <token>` (the scheme in any case).
fn bearer(request: &Request) -> Option<&str> {
    let value = request.headers().get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim()).filter(|t| !t.is_empty())
}

/// The first tool that a `tools/call` in `message` (one message or a batch) to `surface` names
/// and the token may not use, with the scopes it needs. Through discovery's `call_tool`, the tool
/// it calls.
fn outside_scopes(
    engine: &Engine,
    surface: Surface,
    message: &Value,
    principal: &Principal,
) -> Option<(String, Vec<Vec<String>>)> {
    let messages = match message {
        Value::Array(list) => list.iter().collect(),
        one => vec![one],
    };
    for m in messages {
        if m.get("method").and_then(Value::as_str) != Some("tools/call") {
            continue;
        }
        let params = m.get("params");
        let Some(mut name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else { continue };
        if engine.serves_meta(surface) && name == crate::engine::exposure::CALL_TOOL {
            match params.and_then(|p| p.get("arguments")).and_then(|a| a.get("name")).and_then(Value::as_str) {
                Some(inner) => name = inner,
                None => continue,
            }
        }
        if let Some(tool) = engine.tool(name)
            && !scopes_allow(&tool.scopes, |s| principal.has(s))
        {
            return Some((name.to_string(), tool.scopes.clone()));
        }
    }
    None
}

/// `GET /.well-known/oauth-protected-resource[/path]`: the metadata, readable from any origin
/// (browser-based clients fetch it cross-origin; it is public).
pub async fn metadata(State(gate): State<Arc<Gate>>) -> Response {
    (
        [(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"), (header::CACHE_CONTROL, "max-age=3600")],
        crate::transport::http::Json(gate.server.metadata(gate.engine.load().scopes())),
    )
        .into_response()
}
