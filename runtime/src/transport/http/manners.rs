//! How the HTTP endpoint treats what is not a Streamable HTTP client: a browser gets a page that
//! says what this is and how to connect; a body that is not JSON gets a JSON-RPC parse error
//! (HTTP 400, -32700); a client of the old HTTP+SSE transport is told how to switch.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::engine::live::LiveEngine;
use crate::transport::server::McpServer;

/// Largest JSON-RPC message read (the limit rmcp applies too).
pub(crate) const MAX_BODY: usize = 16 * 1024 * 1024;

/// What the page says about the server: the title, tool counts and tool mode of the engine
/// served when it is asked for.
pub struct About {
    live: LiveEngine,
}

impl About {
    /// What the page says about `server`.
    pub fn new(server: &McpServer) -> About {
        About { live: server.live_engine().clone() }
    }
}

/// For clients of the 2024-11-05 HTTP+SSE transport.
const SWITCH: &str = "This MCP server speaks the Streamable HTTP transport: POST JSON-RPC messages to /mcp. \
Clients of the old HTTP+SSE transport (GET /sse): switch the client to Streamable HTTP (Python SDK: \
streamablehttp_client; TypeScript SDK: StreamableHTTPClientTransport; VS Code: \"type\": \"http\"; \
MCP Inspector: transport \"Streamable HTTP\"), or start the server with --legacy-sse.\n";

/// `GET /mcp`: a page for browsers, directions for SSE clients; `POST /mcp`: JSON or a parse error.
pub async fn mcp_manners(State(about): State<Arc<About>>, request: Request, next: Next) -> Response {
    let accept = request.headers().get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    match *request.method() {
        Method::GET if accept.contains("text/html") => page(&about, &request).into_response(),
        Method::GET => (StatusCode::METHOD_NOT_ALLOWED, [(header::ALLOW, "POST")], SWITCH).into_response(),
        Method::POST => {
            let (parts, body) = request.into_parts();
            let bytes = match to_bytes(body, MAX_BODY).await {
                Ok(b) => b,
                Err(_) => return unreadable_body(),
            };
            if let Err(e) = serde_json::from_slice::<Json>(&bytes) {
                return parse_error(&format!("the body is not JSON: {e}"));
            }
            next.run(Request::from_parts(parts, Body::from(bytes))).await
        }
        _ => next.run(request).await,
    }
}

/// Any JSON value, checked as a `serde_json::Value` is parsed (syntax, strings and their escapes,
/// numbers, nesting depth: the same errors) and kept nowhere: rmcp parses the message itself, and
/// a tree built here would be thrown away.
struct Json;

impl<'de> serde::Deserialize<'de> for Json {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(Json)
    }
}

impl<'de> serde::de::Visitor<'de> for Json {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Json, E> {
        Ok(Json)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Json, E> {
        Ok(Json)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Json, E> {
        Ok(Json)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Json, E> {
        Ok(Json)
    }
    fn visit_str<E>(self, _: &str) -> Result<Json, E> {
        Ok(Json)
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        while seq.next_element::<Json>()?.is_some() {}
        Ok(Json)
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        while map.next_key::<Json>()?.is_some() {
            map.next_value::<Json>()?;
        }
        Ok(Json)
    }
}

/// `GET /sse` when the legacy transport is off.
pub async fn old_sse_client() -> Response {
    (StatusCode::NOT_FOUND, SWITCH).into_response()
}

/// A body that cannot be read, or not within [`MAX_BODY`].
pub(crate) fn unreadable_body() -> Response {
    parse_error("the request body is unreadable or larger than 16 MiB")
}

fn parse_error(message: &str) -> Response {
    let body = serde_json::json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": format!("Parse error: {message}")}});
    (StatusCode::BAD_REQUEST, super::Json(body)).into_response()
}

fn page(about: &About, request: &Request) -> impl IntoResponse {
    let host = request.headers().get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("127.0.0.1");
    let url = escape(&format!("http://{host}/mcp"));
    let engine = about.live.load();
    let info = &engine.info;
    let title = escape(info.title.as_deref().unwrap_or(&info.name));
    let html = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>{title} (MCP server)</title></head><body>\
<h1>{title}</h1><p>This is an MCP server (Model Context Protocol, Streamable HTTP) with {tools} tools; \
<code>tools/list</code> shows {listed}. {mode}.</p>\
<p>Beside it, <code>{url}/tools</code> lists every tool (for clients that search tools themselves: Claude Code, \
Codex, VS Code){discovery}.</p>\
<p>Connect an MCP client to <code>{url}</code>:</p><ul>\
<li>Claude Code: <code>claude mcp add --transport http mcp-server {url}</code></li>\
<li>VS Code (<code>.vscode/mcp.json</code>): <code>{{\"servers\": {{\"api\": {{\"type\": \"http\", \"url\": \"{url}\"}}}}}}</code></li>\
<li>Cursor (<code>.cursor/mcp.json</code>): <code>{{\"mcpServers\": {{\"api\": {{\"url\": \"{url}\"}}}}}}</code></li>\
<li>MCP Inspector: <code>npx @modelcontextprotocol/inspector</code>, transport Streamable HTTP, URL <code>{url}</code></li></ul>\
</body></html>\n",
        discovery = if cfg!(feature = "discovery") {
            format!(" and <code>{url}/discovery</code> lists search_tools, describe_tools and call_tool")
        } else {
            String::new()
        },
        tools = engine.tool_count(),
        listed = engine.listed_count(),
        mode = escape(&engine.exposure().reason),
    );
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html)
}

/// Text for HTML: the API's title may hold anything.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    /// The check says what a `serde_json::Value` parse says, for good and bad bodies alike.
    #[test]
    fn json_check_agrees_with_value() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let bodies: [&[u8]; 16] = [
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"x":[1,-2,3.5e9,true,null]}}}"#,
            b"",
            b"   ",
            b"{",
            b"{\"a\":}",
            b"[1,2,]",
            b"{\"a\":1}x",
            b"\"\\ud800\"",
            b"\"\\ud800\\u0041\"",
            b"\"\\x\"",
            b"\"\xff\xfe\"",
            b"{\"\xff\":1}",
            b"1e999",
            b"-",
            b"\"tab\there\"",
            deep.as_bytes(),
        ];
        for body in bodies {
            let ours = serde_json::from_slice::<super::Json>(body).err().map(|e| e.to_string());
            let value = serde_json::from_slice::<serde_json::Value>(body).err().map(|e| e.to_string());
            assert_eq!(ours, value, "{:?}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn html_is_escaped() {
        assert_eq!(super::escape("<script>\"a&b'</script>"), "&lt;script&gt;&quot;a&amp;b&#39;&lt;/script&gt;");
    }
}
