//! Plain-`http://` upstream requests on hyper's HTTP/1.1 connections directly, without reqwest: a
//! fifth more calls per second (docs/performance.md, "Fourth look"), and 6 % more again with
//! connections kept per thread (conns.rs). reqwest keeps everything this does not take
//! ([`Direct::takes`]): `https://` (its TLS roots and ALPN), a proxy from the environment,
//! multipart bodies.
//!
//! What reqwest does, this does the same: `Accept: */*` and mcpgen's `User-Agent` unless set, the
//! total timeout over connect, redirects and body, the connect timeout, and the redirect policy of
//! [`crate::upstream`] (same origin only, at most five URLs; a POST after 301/302 and all but HEAD
//! after 303 turn into a GET without body, 307/308 keep both; `Referer`). The tests below send each
//! case through both clients, and `tests/e2e.rs` checks both at the byte level.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};

use crate::upstream::SendError;
use crate::upstream::conns::{Conn, Connections};
use crate::upstream::request::{PreparedBody, PreparedRequest};

/// `MCPGEN_UPSTREAM_CLIENT=reqwest` sends everything through reqwest (for comparisons).
const SWITCH: &str = "MCPGEN_UPSTREAM_CLIENT";

/// The direct client: its connections and the `User-Agent` it sends.
pub(crate) struct Direct {
    conns: Connections,
    user_agent: HeaderValue,
}

/// A response whose head has come; the body is read by [`DirectResponse::chunk`], and the
/// connection goes back to `conns` at its end.
pub(crate) struct DirectResponse<'a> {
    pub head: hyper::http::response::Parts,
    body: hyper::body::Incoming,
    deadline: Deadline,
    conn: Option<Conn>,
    conns: &'a Connections,
}

/// The total timeout: one timer for the whole request (redirects, head, every piece of the
/// body), registered once rather than once for each wait.
type Deadline = std::pin::Pin<Box<tokio::time::Sleep>>;

impl Direct {
    /// `None` when reqwest must send everything: a proxy is set for `http://` URLs, or the switch.
    pub(crate) fn new(connect_timeout: Duration, user_agent: &'static str) -> Option<Direct> {
        let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
        let proxied = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"].iter().any(|n| set(n));
        if proxied || std::env::var(SWITCH).as_deref() == Ok("reqwest") {
            return None;
        }
        Some(Direct { conns: Connections::new(connect_timeout), user_agent: HeaderValue::from_static(user_agent) })
    }

    /// Whether this request is one to send here.
    pub(crate) fn takes(req: &PreparedRequest) -> bool {
        req.url.scheme() == "http" && !matches!(req.body, Some(PreparedBody::Multipart(_)))
    }

    /// Sends `req` with `headers` (the request's, with its cookie), following same-origin
    /// redirects, until a response's head comes or `timeout` has passed since the start.
    pub(crate) async fn send(
        &self,
        req: &PreparedRequest,
        mut headers: HeaderMap,
        timeout: Duration,
    ) -> Result<DirectResponse<'_>, SendError> {
        let mut deadline = Box::pin(tokio::time::sleep(timeout));
        // reqwest's default headers: only where the request has none of its own (`--header`).
        headers.entry(header::ACCEPT).or_insert_with(|| HeaderValue::from_static("*/*"));
        headers.entry(header::USER_AGENT).or_insert_with(|| self.user_agent.clone());
        let mut body = match &req.body {
            Some(PreparedBody::Bytes { content_type, bytes }) => {
                let ct = HeaderValue::from_str(content_type).map_err(|e| SendError::Other(e.to_string()))?;
                headers.append(header::CONTENT_TYPE, ct);
                Some(Bytes::from(bytes.clone()))
            }
            _ => None,
        };
        let (mut method, mut url) = (req.method.clone(), req.url.clone());
        let mut visited = 1;
        loop {
            let request = build(&method, &url, &headers, body.clone())?;
            // As `tokio::time::timeout`: the request first, then the timer.
            let (resp, conn) = tokio::select! {
                biased;
                sent = self.conns.send(&url, request) => sent?,
                () = &mut deadline => return Err(SendError::Timeout),
            };
            let (head, incoming) = resp.into_parts();
            let Some(next) = redirect_target(&head, &url, &req.url, visited) else {
                let conn = Some(conn);
                return Ok(DirectResponse { head, body: incoming, deadline, conn, conns: &self.conns });
            };
            // tower-http's rules, which reqwest follows: a POST after 301/302, and anything but
            // a HEAD after 303, become a GET without body.
            let (to_get, drop_body) = match head.status {
                StatusCode::MOVED_PERMANENTLY | StatusCode::FOUND => (method == Method::POST, method == Method::POST),
                StatusCode::SEE_OTHER => (method != Method::HEAD, true),
                _ => (false, false),
            };
            if to_get {
                method = Method::GET;
            }
            if drop_body {
                body = None;
                for name in
                    [header::CONTENT_TYPE, header::CONTENT_LENGTH, header::CONTENT_ENCODING, header::TRANSFER_ENCODING]
                {
                    headers.remove(name);
                }
            }
            if let Some(referer) = referer(&url) {
                headers.insert(header::REFERER, referer);
            }
            url = next;
            visited += 1;
        }
    }
}

impl DirectResponse<'_> {
    /// The length of the body when known, as reqwest tells it (0 for a HEAD's).
    pub(crate) fn content_length(&self) -> Option<u64> {
        hyper::body::Body::size_hint(&self.body).exact()
    }

    /// The body's next piece; `Ok(None)` at its end. `Err` carries reqwest's words for the fault.
    pub(crate) async fn chunk(&mut self) -> Result<Option<Bytes>, String> {
        loop {
            let frame = tokio::select! {
                biased;
                frame = self.body.frame() => frame,
                () = &mut self.deadline => return Err("operation timed out".into()),
            };
            match frame {
                None => {
                    if let Some(conn) = self.conn.take() {
                        self.conns.put_back(conn);
                    }
                    return Ok(None);
                }
                Some(Err(e)) => return Err(crate::upstream::describe_error(&e)),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
            }
        }
    }
}

fn build(
    method: &Method,
    url: &Url,
    headers: &HeaderMap,
    body: Option<Bytes>,
) -> Result<hyper::Request<Full<Bytes>>, SendError> {
    // Origin form, as sent on a connection to the origin itself.
    let target = &url[url::Position::BeforePath..url::Position::AfterQuery];
    let uri = hyper::Uri::try_from(target).map_err(|e| SendError::Other(e.to_string()))?;
    let mut request = hyper::Request::new(Full::new(body.unwrap_or_default()));
    *request.method_mut() = method.clone();
    *request.uri_mut() = uri;
    *request.headers_mut() = headers.clone();
    Ok(request)
}

/// Where a redirect leads, when the policy follows it: the same origin as the first URL, and at
/// most five URLs in all (reqwest's `Policy::custom` in upstream.rs sees `visited` of them).
fn redirect_target(head: &hyper::http::response::Parts, current: &Url, first: &Url, visited: usize) -> Option<Url> {
    let follows = matches!(
        head.status,
        StatusCode::MOVED_PERMANENTLY
            | StatusCode::FOUND
            | StatusCode::SEE_OTHER
            | StatusCode::TEMPORARY_REDIRECT
            | StatusCode::PERMANENT_REDIRECT
    );
    if !follows {
        return None;
    }
    let location = head.headers.get(header::LOCATION)?;
    let next = std::str::from_utf8(location.as_bytes()).ok().and_then(|l| current.join(l).ok())?;
    (next.origin() == first.origin() && visited < 5).then_some(next)
}

/// reqwest's `Referer` on a redirect: the URL left, without credentials or fragment.
fn referer(previous: &Url) -> Option<HeaderValue> {
    let mut url = previous.clone();
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_fragment(None);
    HeaderValue::from_str(url.as_str()).ok()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use axum::extract::Path;
    use axum::http::{HeaderMap as Headers, Method as Verb};
    use axum::response::IntoResponse;
    use serde_json::json;

    use super::*;
    use crate::metrics::Metrics;
    use crate::upstream::{Upstream, UpstreamPolicy, UpstreamResponse};

    /// What the server saw, as JSON: method, path, body and the headers reqwest and hyper set.
    async fn echo(method: Verb, Path(rest): Path<String>, headers: Headers, body: Bytes) -> impl IntoResponse {
        let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        axum::Json(json!({
            "method": method.as_str(), "path": rest, "body": String::from_utf8_lossy(&body),
            "accept": header("accept"), "user-agent": header("user-agent"), "referer": header("referer"),
            "content-type": header("content-type"), "content-length": header("content-length"),
            "cookie": header("cookie"), "x-key": header("x-key"),
        }))
    }

    /// `/redirect/STATUS/N/TARGET...`: answers STATUS toward `/redirect/STATUS/N-1/...`, and at 0
    /// toward TARGET; `/echo/...` echoes.
    async fn redirect(Path((status, n, target)): Path<(u16, u32, String)>) -> impl IntoResponse {
        let location = if n == 0 { format!("/{target}") } else { format!("/redirect/{status}/{}/{target}", n - 1) };
        let status = axum::http::StatusCode::from_u16(status).unwrap_or(axum::http::StatusCode::FOUND);
        (status, [(header::LOCATION, location)])
    }

    /// `/away/PORT`: a redirect to another origin.
    async fn away(Path(port): Path<u16>) -> impl IntoResponse {
        (axum::http::StatusCode::FOUND, [(header::LOCATION, format!("http://127.0.0.1:{port}/echo/x"))])
    }

    async fn slow_head() -> &'static str {
        tokio::time::sleep(Duration::from_secs(3)).await;
        "late"
    }

    /// Its head and a first piece at once, then nothing for 3 s.
    async fn slow_body() -> axum::body::Body {
        let pieces = futures::stream::unfold(0, |n| async move {
            if n > 0 {
                tokio::time::sleep(Duration::from_secs(3)).await;
            }
            (n < 2).then(|| (Ok::<_, std::io::Error>(Bytes::from_static(b"[1,")), n + 1))
        });
        axum::body::Body::from_stream(pieces)
    }

    async fn server() -> Url {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap()).parse().unwrap();
        let app = axum::Router::new()
            .route("/echo/{*rest}", axum::routing::any(echo))
            .route("/redirect/{status}/{n}/{*target}", axum::routing::any(redirect))
            .route("/away/{port}", axum::routing::get(away))
            .route("/slow-head", axum::routing::get(slow_head))
            .route("/slow-body", axum::routing::get(slow_body));
        tokio::spawn(async move { axum::serve(listener, app).await });
        url
    }

    /// One request through both clients: what each got back, which must be the same.
    async fn both(req: PreparedRequest) -> [(u16, String); 2] {
        both_with(req, UpstreamPolicy::default()).await
    }

    async fn both_with(req: PreparedRequest, policy: UpstreamPolicy) -> [(u16, String); 2] {
        crate::upstream::install_crypto_provider();
        let metrics = Arc::new(Metrics::new());
        let direct = Upstream::new(policy.clone(), metrics.clone()).unwrap();
        let reqwest = Upstream::with_direct(policy, metrics, None).unwrap();
        let seen = |r: Result<UpstreamResponse, _>| match r {
            Ok(r) => (r.status.as_u16(), String::from_utf8_lossy(&r.body).into_owned()),
            Err(e) => (0, format!("{e}")),
        };
        [seen(direct.send(&req).await), seen(reqwest.send(&req).await)]
    }

    fn request(method: Method, url: Url, body: Option<&str>) -> PreparedRequest {
        let mut headers = HeaderMap::new();
        headers.insert("x-key", HeaderValue::from_static("k"));
        let body = body.map(|b| PreparedBody::Bytes { content_type: "application/json".into(), bytes: b.into() });
        PreparedRequest { method, url, headers, cookies: vec!["a=1".into(), "b=2".into()], body }
    }

    async fn same(method: Method, path: &str, body: Option<&str>) -> (u16, String) {
        let base = server().await;
        let [direct, reqwest] = both(request(method, base.join(path).unwrap(), body)).await;
        assert_eq!(direct, reqwest, "{path}: hyper-util's client, then reqwest");
        direct
    }

    #[tokio::test]
    async fn a_plain_get_carries_the_same_headers() {
        let (status, body) = same(Method::GET, "echo/pets?limit=2", None).await;
        assert_eq!(status, 200);
        assert!(body.contains(r#""accept":"*/*""#) && body.contains(r#""cookie":"a=1; b=2""#), "{body}");
    }

    #[tokio::test]
    async fn headers_of_its_own_are_kept() {
        let base = server().await;
        let mut req = request(Method::GET, base.join("echo/h").unwrap(), None);
        req.headers.insert(header::USER_AGENT, HeaderValue::from_static("theirs/1"));
        req.headers.insert(header::ACCEPT, HeaderValue::from_static("application/xml"));
        let [direct, reqwest] = both(req).await;
        assert_eq!(direct, reqwest);
        assert!(
            direct.1.contains(r#""user-agent":"theirs/1""#) && direct.1.contains("application/xml"),
            "{}",
            direct.1
        );
    }

    #[tokio::test]
    async fn a_post_carries_the_same_body() {
        let (_, body) = same(Method::POST, "echo/pets", Some(r#"{"name":"rex"}"#)).await;
        assert!(body.contains(r#""content-type":"application/json""#) && body.contains("rex"), "{body}");
    }

    #[tokio::test]
    async fn see_other_turns_a_post_into_a_get_without_body() {
        let (_, body) = same(Method::POST, "redirect/303/0/echo/done", Some(r#"{"a":1}"#)).await;
        assert!(body.contains(r#""method":"GET""#) && body.contains(r#""body":"""#), "{body}");
        assert!(body.contains(r#""content-type":null"#) && body.contains("/redirect/303/0/echo/done"), "{body}");
    }

    #[tokio::test]
    async fn temporary_redirect_keeps_method_and_body() {
        let (_, body) = same(Method::PUT, "redirect/307/1/echo/done", Some(r#"{"a":1}"#)).await;
        assert!(body.contains(r#""method":"PUT""#) && body.contains(r#"{\"a\":1}"#), "{body}");
    }

    #[tokio::test]
    async fn found_keeps_a_delete_and_turns_a_post_into_a_get() {
        let (_, body) = same(Method::DELETE, "redirect/302/0/echo/done", None).await;
        assert!(body.contains(r#""method":"DELETE""#), "{body}");
        let (_, body) = same(Method::POST, "redirect/301/0/echo/done", Some("{}")).await;
        assert!(body.contains(r#""method":"GET""#), "{body}");
        let (_, body) = same(Method::PATCH, "redirect/308/0/echo/done", Some("{}")).await;
        assert!(body.contains(r#""method":"PATCH""#), "{body}");
    }

    #[tokio::test]
    async fn another_origin_is_not_followed() {
        let (base, other) = (server().await, server().await);
        let url = base.join(&format!("away/{}", other.port().unwrap_or(80))).unwrap();
        let [direct, reqwest] = both(request(Method::GET, url, None)).await;
        assert_eq!(direct, reqwest);
        assert_eq!(direct.0, 302);
    }

    #[tokio::test]
    async fn the_redirect_limit_is_the_same() {
        for hops in 2..7 {
            same(Method::GET, &format!("redirect/302/{hops}/echo/done"), None).await;
        }
    }

    #[tokio::test]
    async fn a_refused_connection_reads_the_same() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url: Url = format!("http://{}/x", listener.local_addr().unwrap()).parse().unwrap();
        drop(listener);
        let [direct, reqwest] = both(request(Method::GET, url, None)).await;
        assert_eq!(direct, reqwest);
        assert!(direct.1.contains("could not connect"), "{}", direct.1);
    }

    #[tokio::test]
    async fn timeouts_read_the_same_before_and_during_the_body() {
        let base = server().await;
        let policy = UpstreamPolicy { timeout: Duration::from_millis(300), retries: 0, ..UpstreamPolicy::default() };
        for path in ["slow-head", "slow-body"] {
            let req = request(Method::GET, base.join(path).unwrap(), None);
            let [direct, reqwest] = both_with(req, policy.clone()).await;
            assert_eq!(direct, reqwest, "{path}");
            assert!(direct.1.contains("timed out"), "{path}: {}", direct.1);
        }
    }
}
