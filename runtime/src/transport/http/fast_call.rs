//! A lean path for the common stateless `tools/call` over Streamable HTTP, beside rmcp's.
//!
//! rmcp answers each stateless POST by parsing the message into its model (an untagged enum of
//! every request, tried in turn) and serving it with a service of its own (a task, a `Peer`,
//! channels): about a third of a call's cost. A POST whose body is one plain `tools/call` and whose
//! headers are the plainly accepted case is answered here instead, through the same call as rmcp's
//! handler ([`crate::transport::server::call`]), and written as rmcp writes it: ahead of axum's router
//! (front.rs), or with OAuth in `/mcp`'s handler behind the gate (transport.rs). Anything else, or
//! anything unusual (a batch, another method, a progress token, protocol metadata, a protocol
//! version header that is unknown or asks for the 2026-07-28 checks, session or `Mcp-*` headers, an
//! `Origin`, a `Host` or `Accept` rmcp would refuse, `--confirm`), goes to rmcp unchanged: this
//! path never answers what rmcp would answer differently.
//!
//! `MCPGEN_NO_FAST_CALL=1` (read once at start, for tests and benchmarks) turns it off.

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use rmcp::model::{CallToolResponse, ProtocolVersion, RequestId, ServerJsonRpcMessage, ServerResult};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use crate::transport::server::McpServer;

/// The environment variable that turns the fast path off.
pub const DISABLE: &str = "MCPGEN_NO_FAST_CALL";

/// What the fast path needs of rmcp's configuration to accept exactly what rmcp accepts.
pub struct FastCall {
    server: McpServer,
    /// rmcp's allowed `Host`s, parsed once (rmcp parses them for every request).
    hosts: Vec<(String, Option<u16>)>,
    /// The same written as a `Host` header names them (`host:port`, or `host` when any port
    /// goes): a header equal to one, or to one of the latter with a port, needs no parsing.
    host_headers: Vec<String>,
    /// rmcp's body size limit (larger bodies: 413 from rmcp).
    max_body: usize,
    /// rmcp's configuration: its cancellation token cuts calls in flight at the end of the
    /// shutdown grace, as rmcp's do.
    config: StreamableHttpServerConfig,
}

/// A call the fast path answers, parsed from the body.
struct Call<'a> {
    id: RequestId,
    name: Cow<'a, str>,
    arguments: Map<String, Value>,
}

impl FastCall {
    /// The fast path for `server` behind rmcp's `config`; `None` when it must not be used (the
    /// confirmation gate asks the user through rmcp's peer; turned off by [`DISABLE`]).
    pub fn new(server: McpServer, config: &StreamableHttpServerConfig) -> Option<FastCall> {
        if server.confirms() || std::env::var_os(DISABLE).is_some_and(|v| !v.is_empty() && v != "0") {
            return None;
        }
        // What rmcp does with these: allow everything when there are none. Keep to its stateless
        // JSON mode and no-empty-Origin-list semantics, or not at all.
        if config.allowed_hosts.is_empty() || config.legacy_session_mode || !config.json_response {
            return None;
        }
        let hosts: Vec<_> = config.allowed_hosts.iter().filter_map(|h| allowed_authority(h)).collect();
        let host_headers = hosts.iter().map(|(host, port)| host_header(host, *port)).collect();
        let max_body = config.max_request_body_bytes;
        Some(FastCall { server, hosts, host_headers, max_body, config: config.clone() })
    }

    /// The call in a POST to `/mcp` when this path may answer it exactly as rmcp would; `None`:
    /// rmcp answers.
    fn accept<'a>(&self, parts: &Parts, body: &'a [u8]) -> Option<Call<'a>> {
        if body.len() > self.max_body || !self.plain_headers(&parts.headers) {
            return None;
        }
        // Cheap before parsing: most other messages name another method.
        if !contains(body, b"\"tools/call\"") {
            return None;
        }
        let message: Message<'a> = serde_json::from_slice(body).ok()?;
        if message.jsonrpc != "2.0" || message.method != "tools/call" {
            return None;
        }
        let Params { name, arguments, .. } = message.params;
        Some(Call { id: message.id.0, name, arguments: arguments.unwrap_or_default() })
    }

    /// The fast path's answer to the POST of `parts` and `body` when it may answer it; else the
    /// request, whole again, for rmcp (or the router in front of it).
    pub async fn answer_or_return(&self, parts: Parts, body: Bytes) -> Result<Response, Request> {
        match self.accept(&parts, &body) {
            Some(call) => Ok(self.answer(&parts, call).await),
            None => Err(Request::from_parts(parts, Body::from(body))),
        }
    }

    /// Answers `call`: the engine's result or error as rmcp's stateless JSON response.
    async fn answer(&self, parts: &Parts, call: Call<'_>) -> Response {
        tracing::trace!("tools/call on the fast path");
        let caller = crate::engine::caller::caller_of(self.server.checks_tokens(), Some(parts));
        // The engine of the moment, held to the end of the call even if a reload replaces it.
        let engine = self.server.engine();
        let outcome = tokio::select! {
            // The call first (no random pick): the token is rarely cancelled.
            biased;
            outcome = crate::transport::server::call(&engine, self.server.surface(), &call.name, call.arguments, &caller) => outcome,
            () = self.config.cancellation_token.cancelled() => {
                let e = "no response message received from handler";
                tracing::error!("Internal server error when empty response: {e}");
                return status_text(StatusCode::INTERNAL_SERVER_ERROR, format!("Encounter an error when empty response: {e}"));
            }
        };
        let message = match outcome {
            Ok(result) => {
                // What rmcp's handler does to a result for a peer before 2026-07-28.
                let mut result = ServerResult::from(CallToolResponse::from(result));
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
                ServerJsonRpcMessage::response(result, call.id)
            }
            Err(error) => ServerJsonRpcMessage::error(error, Some(call.id)),
        };
        match serde_json::to_vec(&message) {
            Ok(body) => {
                let mut response = Response::new(Body::from(body));
                response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                response
            }
            Err(e) => {
                tracing::error!("Internal server error when serialize json response: {e}");
                status_text(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("Encounter an error when serialize json response: {e}"),
                )
            }
        }
    }

    /// The headers of a POST rmcp's stateless path accepts with no further check.
    fn plain_headers(&self, headers: &HeaderMap) -> bool {
        // Browsers send `Origin`: rmcp checks it against the allowed origins.
        if headers.contains_key(header::ORIGIN) || !self.host_allowed(headers) {
            return false;
        }
        // Session ids, SEP-2243's `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*`, anything new: rmcp's.
        if headers.keys().any(|k| k.as_str().starts_with("mcp-") && k.as_str() != "mcp-protocol-version") {
            return false;
        }
        accepts_json_and_sse(headers) && content_type_is_json(headers) && legacy_protocol_version(headers)
    }

    /// rmcp's Host check (DNS rebinding), with the allowed list parsed once.
    fn host_allowed(&self, headers: &HeaderMap) -> bool {
        host_allowed(&self.hosts, &self.host_headers, headers.get(header::HOST))
    }
}

/// Whether a `Host` header names one of `hosts`: at once when it is written as one of
/// `host_headers` (with a port, for an entry that allows any), else parsed as rmcp parses it.
fn host_allowed(hosts: &[(String, Option<u16>)], host_headers: &[String], value: Option<&HeaderValue>) -> bool {
    if let Some(v) = value
        && hosts.iter().zip(host_headers).any(|((_, port), h)| written_as(v.as_bytes(), h.as_bytes(), port.is_none()))
    {
        return true;
    }
    let Some(authority) =
        value.and_then(|h| h.to_str().ok()).and_then(|h| axum::http::uri::Authority::try_from(h).ok())
    else {
        return false;
    };
    let host = normalize_host(authority.host());
    let port = authority.port_u16();
    hosts.iter().any(|(h, p)| *h == host && p.is_none_or(|p| Some(p) == port))
}

/// Whether `header` is `written`, or, when `any_port`, `written` and a port (`:` and one to
/// five digits up to 65535, which parsing accepts too: clients write `Host: 127.0.0.1:8080`).
fn written_as(header: &[u8], written: &[u8], any_port: bool) -> bool {
    let Some(rest) = header.strip_prefix(written) else { return false };
    let Some(port) = rest.strip_prefix(b":") else { return rest.is_empty() };
    any_port
        && (1..=5).contains(&port.len())
        && port.iter().all(u8::is_ascii_digit)
        && port.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')) <= u32::from(u16::MAX)
}

/// A response with a text body and no `Content-Type`, as rmcp writes its errors.
pub(crate) fn status_text(status: StatusCode, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response
}

/// rmcp's normalisation of an allowed `Host` entry.
fn allowed_authority(allowed: &str) -> Option<(String, Option<u16>)> {
    let allowed = allowed.trim();
    if allowed.is_empty() {
        return None;
    }
    Some(match axum::http::uri::Authority::try_from(allowed) {
        Ok(a) => (normalize_host(a.host()), a.port_u16()),
        Err(_) => (normalize_host(allowed), None),
    })
}

/// How a `Host` header that names exactly an allowed (normalized) host and port is written.
fn host_header(host: &str, port: Option<u16>) -> String {
    let host = if host.contains(':') { format!("[{host}]") } else { host.to_string() };
    match port {
        Some(port) => format!("{host}:{port}"),
        None => host,
    }
}

fn normalize_host(host: &str) -> String {
    host.trim_matches('[').trim_matches(']').to_ascii_lowercase()
}

/// `Accept` lists both `application/json` and `text/event-stream`, written plainly (no
/// parameters, no quotes: rmcp weighs those; they go to it).
fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { return false };
        if value.contains([';', '"']) {
            return false;
        }
        for essence in value.split(',').map(str::trim) {
            json |= essence.eq_ignore_ascii_case("application/json");
            sse |= essence.eq_ignore_ascii_case("text/event-stream");
        }
    }
    json && sse
}

/// rmcp's `Content-Type` check.
fn content_type_is_json(headers: &HeaderMap) -> bool {
    headers.get(header::CONTENT_TYPE).and_then(|h| h.to_str().ok()).is_some_and(|h| {
        let essence = h.split_once(';').map_or(h, |(essence, _)| essence);
        essence.trim().eq_ignore_ascii_case("application/json")
    })
}

/// No `MCP-Protocol-Version`, or a known one before 2026-07-28 (from which rmcp requires
/// per-request metadata and SEP-2243 headers).
fn legacy_protocol_version(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all("mcp-protocol-version").iter();
    let Some(value) = values.next() else { return true };
    let Ok(version) = value.to_str() else { return false };
    values.next().is_none()
        && version < ProtocolVersion::V_2026_07_28.as_str()
        && ProtocolVersion::KNOWN_VERSIONS.iter().any(|v| v.as_str() == version)
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// One JSON-RPC request; any other member, or a member of another shape, is not the fast path's.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message<'a> {
    #[serde(borrow)]
    jsonrpc: Cow<'a, str>,
    id: Id,
    #[serde(borrow)]
    method: Cow<'a, str>,
    #[serde(borrow)]
    params: Params<'a>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Map<String, Value>>,
    /// Checked, not kept: the call has no use for it.
    #[serde(default)]
    _meta: Meta,
}

/// A request id as rmcp reads it: an `i64` or a string (others: rmcp's to answer).
struct Id(RequestId);

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        deserializer.deserialize_any(IdVisitor)
    }
}

struct IdVisitor;

impl Visitor<'_> for IdVisitor {
    type Value = Id;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an integer or a string")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Id, E> {
        Ok(Id(RequestId::Number(v)))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Id, E> {
        i64::try_from(v).map(|v| Id(RequestId::Number(v))).map_err(|_| E::custom("id out of range"))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Id, E> {
        Ok(Id(RequestId::String(Arc::from(v))))
    }
}

/// `_meta`, an object without a progress token (progress needs rmcp's peer) or protocol
/// metadata (`io.modelcontextprotocol/...`: rmcp negotiates with it).
#[derive(Default)]
struct Meta;

impl<'de> Deserialize<'de> for Meta {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Meta, D::Error> {
        deserializer.deserialize_map(MetaVisitor)
    }
}

struct MetaVisitor;

impl<'de> Visitor<'de> for MetaVisitor {
    type Value = Meta;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Meta, A::Error> {
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "progressToken" || key.starts_with("io.modelcontextprotocol/") {
                return Err(de::Error::custom("rmcp's to handle"));
            }
            map.next_value::<IgnoredAny>()?;
        }
        Ok(Meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Option<(RequestId, String, Map<String, Value>)> {
        let m: Message = serde_json::from_str(body).ok()?;
        (m.jsonrpc == "2.0" && m.method == "tools/call")
            .then(|| (m.id.0, m.params.name.into_owned(), m.params.arguments.unwrap_or_default()))
    }

    #[test]
    fn plain_calls_are_parsed() {
        let (id, name, args) =
            parse(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a\u0062","arguments":{"x":1}}}"#)
                .unwrap();
        assert_eq!((id, name.as_str(), args["x"].clone()), (RequestId::Number(7), "ab", Value::from(1)));
        let (id, _, args) =
            parse(r#"{"params":{"name":"a","_meta":{"x":[1]}},"method":"tools/call","id":"s-1","jsonrpc":"2.0"}"#)
                .unwrap();
        assert_eq!(id, RequestId::String("s-1".into()));
        assert!(args.is_empty());
    }

    #[test]
    fn anything_unusual_is_left_to_rmcp() {
        for body in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":[1]}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","task":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":1}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"a"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"extra":1}"#,
        ] {
            assert!(parse(body).is_none(), "{body}");
        }
    }

    #[test]
    fn only_plain_accept_headers() {
        let h = |values: &[&str]| {
            let mut m = HeaderMap::new();
            for v in values {
                m.append(header::ACCEPT, v.parse().unwrap());
            }
            accepts_json_and_sse(&m)
        };
        assert!(h(&["application/json, text/event-stream"]));
        assert!(h(&["Application/JSON", "text/event-stream"]));
        assert!(!h(&["application/json"]));
        assert!(!h(&["application/json;q=0, text/event-stream"]));
        assert!(!h(&[]));
    }

    #[test]
    fn protocol_versions_before_2026_07_28_only() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert("mcp-protocol-version", v.parse().unwrap());
            legacy_protocol_version(&m)
        };
        assert!(legacy_protocol_version(&HeaderMap::new()));
        assert!(h("2025-06-18") && h("2025-11-25") && h("2024-11-05"));
        assert!(!h("2026-07-28") && !h("2025-01-01") && !h("junk"));
    }

    /// A `Host` header written as an allowed entry is allowed without parsing, and only then:
    /// the same answers as parsing every header.
    #[test]
    fn host_headers_written_as_allowed_are_allowed_as_parsing_would() {
        let allowed = ["localhost", "127.0.0.1:8080", "[::1]", "::1", "API.Example:443", "[::1]:3000"];
        let hosts: Vec<_> = allowed.iter().filter_map(|h| allowed_authority(h)).collect();
        let written: Vec<_> = hosts.iter().map(|(h, p)| host_header(h, *p)).collect();
        assert_eq!(written, ["localhost", "127.0.0.1:8080", "[::1]", "[::1]", "api.example:443", "[::1]:3000"]);
        let headers = [
            "localhost",
            "localhost:9",
            "LOCALHOST",
            "127.0.0.1:8080",
            "127.0.0.1:8081",
            "127.0.0.1",
            "[::1]",
            "[::1]:5",
            "[::1]:3000",
            "api.example:443",
            "api.example",
            "evil.example",
            "",
            "localhost:",
            "localhost:65535",
            "localhost:65536",
            "localhost:00080",
            "localhost:123456",
            "localhost:1x",
            "localhost:+1",
            "127.0.0.1:8080:1",
            "[::1]:",
            "localhost.:80",
        ];
        for header in headers {
            let value = HeaderValue::from_str(header).unwrap();
            let parsed = host_allowed(&hosts, &[], Some(&value));
            assert_eq!(host_allowed(&hosts, &written, Some(&value)), parsed, "{header}");
            if written.iter().any(|w| w == header) {
                assert!(parsed, "{header}");
            }
        }
        assert!(!host_allowed(&hosts, &written, None));
    }
}
