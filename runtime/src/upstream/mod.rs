//! Sending requests to the upstream API: per-call timeout, same-origin redirects only, retries with
//! exponential backoff and jitter for idempotent calls, a cap on concurrent requests and an
//! optional requests-per-second limit, and response bodies read up to a size cap.

pub(crate) mod conns;
pub(crate) mod credentials;
pub(crate) mod direct;
pub mod encode;
pub(crate) mod exchange;
pub mod identity;
pub mod progress;
pub mod request;
pub(crate) mod target;
#[cfg(feature = "user-auth")]
pub mod user;

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::header::HeaderValue;
use tokio::sync::{Mutex, Semaphore};

use crate::error::{Error, Result, UpstreamFault};
use crate::metrics::Metrics;
use crate::upstream::direct::{Direct, DirectResponse};
use crate::upstream::request::PreparedRequest;

/// How hard the engine leans on the upstream.
#[derive(Debug, Clone)]
pub struct UpstreamPolicy {
    /// Per-attempt request timeout (connecting: at most 10 s of it); retries wait at most this
    /// long.
    pub timeout: Duration,
    /// Response body bytes read at most; the rest is cut off and the response marked truncated.
    pub max_response_bytes: u64,
    /// Extra attempts after a connection error (none made, or one closed before the response), 429
    /// or 502/503/504.
    pub retries: u32,
    /// Retry POST and PATCH too (off: they may not be safe to repeat).
    pub retry_non_idempotent: bool,
    /// Upstream requests in flight at most (at least 1); others wait.
    pub max_concurrency: usize,
    /// Requests per second toward the upstream; `None` for no limit.
    pub rate_limit: Option<f64>,
}

impl Default for UpstreamPolicy {
    fn default() -> Self {
        UpstreamPolicy {
            timeout: Duration::from_secs(30),
            max_response_bytes: 1024 * 1024,
            retries: 1,
            retry_non_idempotent: false,
            max_concurrency: 32,
            rate_limit: None,
        }
    }
}

/// A response as far as it was read.
#[derive(Debug)]
pub struct UpstreamResponse {
    /// The HTTP status.
    pub status: reqwest::StatusCode,
    /// The `Content-Type` header; `None` when absent or not text.
    pub content_type: Option<String>,
    /// The `Retry-After` header as sent; `None` when absent or not text.
    pub retry_after: Option<String>,
    /// The `Link` header (RFC 8288: the next page's URL, for one); `None` when absent or not text.
    pub link: Option<String>,
    /// The body, up to the size cap.
    pub body: Vec<u8>,
    /// The body was longer than the cap and was cut.
    pub truncated: bool,
}

/// The HTTP client toward the API, with its policy: concurrency permits and the rate limit's
/// next free slot.
pub struct Upstream {
    /// A reqwest client per thread ([`Upstream::http`]), each with its own connection pool.
    clients: thread_local::ThreadLocal<reqwest::Client>,
    /// The first client built: the constructing thread's, and any thread's whose own failed.
    first: reqwest::Client,
    policy: UpstreamPolicy,
    permits: Arc<Semaphore>,
    next_slot: Mutex<Instant>,
    metrics: Arc<Metrics>,
    /// Plain-`http://` requests without reqwest (`None`: everything through reqwest).
    direct: Option<Direct>,
}

/// mcpgen's `User-Agent` upstream.
const USER_AGENT: &str = concat!("mcpgen/", env!("CARGO_PKG_VERSION"));

/// The connect timeout: the policy's, at most 10 s.
fn connect_timeout(policy: &UpstreamPolicy) -> Duration {
    policy.timeout.min(Duration::from_secs(10))
}

/// A client with the policy's timeouts, same-origin redirects only (at most 5) and mcpgen's
/// `User-Agent`.
fn client(policy: &UpstreamPolicy) -> reqwest::Result<reqwest::Client> {
    reqwest::Client::builder()
        .timeout(policy.timeout)
        .connect_timeout(connect_timeout(policy))
        .redirect(reqwest::redirect::Policy::custom(|attempt| {
            // Only to the same origin: a redirect must not carry credentials elsewhere.
            let same = attempt.previous().first().is_some_and(|first| first.origin() == attempt.url().origin());
            if same && attempt.previous().len() < 5 { attempt.follow() } else { attempt.stop() }
        }))
        .user_agent(USER_AGENT)
        .build()
}

/// Installs the ring crypto provider for rustls. reqwest is built without a default one (aws-lc
/// costs minutes of compile time) and would panic without it. Safe to call many times.
pub fn install_crypto_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

impl Upstream {
    /// A client with this policy that counts its requests, retries and waits in `metrics`; fails
    /// only when the HTTP client cannot be built.
    pub fn new(policy: UpstreamPolicy, metrics: Arc<Metrics>) -> Result<Self> {
        let direct = Direct::new(connect_timeout(&policy), USER_AGENT);
        Self::with_direct(policy, metrics, direct)
    }

    /// [`Upstream::new`] with plain-`http://` requests sent by `direct` (`None`: by reqwest).
    pub(crate) fn with_direct(policy: UpstreamPolicy, metrics: Arc<Metrics>, direct: Option<Direct>) -> Result<Self> {
        install_crypto_provider();
        let first = client(&policy).map_err(|e| Error::Config(format!("HTTP client: {e}")))?;
        let permits = Arc::new(Semaphore::new(policy.max_concurrency.max(1)));
        let clients = thread_local::ThreadLocal::new();
        let _ = clients.get_or(|| first.clone());
        Ok(Upstream { clients, first, policy, permits, next_slot: Mutex::new(Instant::now()), metrics, direct })
    }

    /// The client of this thread: the policy's timeout, same-origin redirects only (at most 5),
    /// mcpgen's `User-Agent`. Also fetches OAuth2 tokens. One per thread, because a pooled
    /// connection lives on the runtime that opened it: shared between the HTTP workers (each its
    /// own runtime), every request would hand off to another thread and back.
    pub fn http(&self) -> &reqwest::Client {
        // The first was built with the same policy, so building again does not fail in practice.
        self.clients.get_or(|| client(&self.policy).unwrap_or_else(|_| self.first.clone()))
    }

    /// Sends a request, retrying where that is safe. `Err` carries a message for the model.
    pub async fn send(&self, req: &PreparedRequest) -> Result<UpstreamResponse> {
        let idempotent = !matches!(req.method, reqwest::Method::POST | reqwest::Method::PATCH);
        let retries = if idempotent || self.policy.retry_non_idempotent { self.policy.retries } else { 0 };
        let mut attempt = 0;
        loop {
            let outcome = self.send_once(req).await;
            let retry_after = match &outcome {
                Ok(r) if matches!(r.status.as_u16(), 429 | 502 | 503 | 504) => {
                    Some(parse_retry_after(r.retry_after.as_deref()))
                }
                Err(SendError::Connect(_) | SendError::Closed(_)) => Some(None),
                _ => None,
            };
            match retry_after {
                Some(wait) if attempt < retries => {
                    attempt += 1;
                    self.metrics.retry();
                    let backoff = wait.unwrap_or_else(|| backoff(attempt)).min(self.policy.timeout);
                    tracing::debug!(attempt, ?backoff, "retrying upstream request");
                    tokio::time::sleep(backoff).await;
                }
                _ => return outcome.map_err(|e| e.into_error(req, &self.policy)),
            }
        }
    }

    /// One attempt, timed from after the waits for a permit and for the rate limit.
    async fn send_once(&self, req: &PreparedRequest) -> Result<UpstreamResponse, SendError> {
        let _permit = self.permits.acquire().await.map_err(|_| SendError::Other("shutting down".into()))?;
        self.pace().await;
        let started = Instant::now();
        let outcome = self.attempt(req).await;
        match &outcome {
            Ok(resp) => self.metrics.upstream_response(resp.status.as_u16(), started.elapsed()),
            Err(e) => self.metrics.upstream_error(e.fault(), started.elapsed()),
        }
        outcome
    }

    async fn attempt(&self, req: &PreparedRequest) -> Result<UpstreamResponse, SendError> {
        let cookie = if req.cookies.is_empty() {
            None
        } else {
            let joined = HeaderValue::from_str(&req.cookies.join("; "));
            Some(joined.map_err(|_| SendError::Other("invalid cookie".into()))?)
        };
        let mut resp = match &self.direct {
            Some(direct) if Direct::takes(req) => {
                let mut headers = req.headers.clone();
                if let Some(cookie) = cookie {
                    headers.append(reqwest::header::COOKIE, cookie);
                }
                let sent = direct.send(req, headers, self.policy.timeout).await;
                Response::Direct(sent?)
            }
            _ => {
                let mut builder = self.http().request(req.method.clone(), req.url.clone()).headers(req.headers.clone());
                if let Some(cookie) = cookie {
                    builder = builder.header(reqwest::header::COOKIE, cookie);
                }
                if let Some(body) = &req.body {
                    builder = body.apply(builder).map_err(|e| SendError::Other(e.to_string()))?;
                }
                Response::Reqwest(builder.send().await.map_err(classify)?)
            }
        };
        let header = |name: reqwest::header::HeaderName| {
            resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_string)
        };
        let content_type = header(reqwest::header::CONTENT_TYPE);
        let retry_after = header(reqwest::header::RETRY_AFTER);
        let link = header(reqwest::header::LINK);
        let status = resp.status();
        let cap = self.policy.max_response_bytes as usize;
        // Sized from the declared length up to the cap: no chain of doublings up to a big body.
        let declared = resp.content_length().unwrap_or(0).min(cap as u64);
        let mut body = Vec::with_capacity(declared as usize);
        let mut truncated = false;
        crate::upstream::progress::body_started(resp.content_length());
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len() + chunk.len() > cap {
                        body.extend_from_slice(&chunk[..cap - body.len()]);
                        truncated = true;
                        break;
                    }
                    body.extend_from_slice(&chunk);
                    crate::upstream::progress::received(body.len() as u64);
                }
                Ok(None) => break,
                Err(words) => return Err(SendError::Body(words, status)),
            }
        }
        Ok(UpstreamResponse { status, content_type, retry_after, link, body, truncated })
    }

    /// Waits for the next free slot of the requests-per-second limit.
    async fn pace(&self) {
        let Some(rps) = self.policy.rate_limit.filter(|r| *r > 0.0) else { return };
        let interval = Duration::from_secs_f64(1.0 / rps);
        let wait = {
            let mut next = self.next_slot.lock().await;
            let now = Instant::now();
            let slot = (*next).max(now);
            *next = slot + interval;
            slot - now
        };
        if !wait.is_zero() {
            self.metrics.rate_limit_wait(wait);
            tokio::time::sleep(wait).await;
        }
    }
}

/// A response whose head has come, from reqwest or from the direct client.
enum Response<'a> {
    Reqwest(reqwest::Response),
    Direct(DirectResponse<'a>),
}

impl Response<'_> {
    fn headers(&self) -> &reqwest::header::HeaderMap {
        match self {
            Response::Reqwest(r) => r.headers(),
            Response::Direct(r) => &r.head.headers,
        }
    }
    fn status(&self) -> reqwest::StatusCode {
        match self {
            Response::Reqwest(r) => r.status(),
            Response::Direct(r) => r.head.status,
        }
    }
    fn content_length(&self) -> Option<u64> {
        match self {
            Response::Reqwest(r) => r.content_length(),
            Response::Direct(r) => r.content_length(),
        }
    }
    /// The body's next piece; `Err` has the words of the fault.
    async fn chunk(&mut self) -> Result<Option<bytes::Bytes>, String> {
        match self {
            Response::Reqwest(r) => r.chunk().await.map_err(|e| describe_error(&e)),
            Response::Direct(r) => r.chunk().await,
        }
    }
}

/// Why an attempt failed; the direct client (direct.rs) reports its faults in the same classes.
#[derive(Debug)]
pub(crate) enum SendError {
    Timeout,
    Connect(String),
    /// Connected, then closed or reset before the response's status.
    Closed(String),
    Body(String, reqwest::StatusCode),
    Other(String),
}

impl SendError {
    fn fault(&self) -> UpstreamFault {
        match self {
            SendError::Timeout => UpstreamFault::Timeout,
            SendError::Connect(_) => UpstreamFault::Connect,
            SendError::Closed(_) => UpstreamFault::Closed,
            SendError::Body(..) => UpstreamFault::BrokenBody,
            SendError::Other(_) => UpstreamFault::Other,
        }
    }

    fn into_error(self, req: &PreparedRequest, policy: &UpstreamPolicy) -> Error {
        // Never the query string: it can hold an API key.
        let target = format!("{} {}{}", req.method, req.url.origin().ascii_serialization(), req.url.path());
        let (fault, message) = match self {
            SendError::Timeout => (
                UpstreamFault::Timeout,
                format!(
                    "{target} timed out after {} s; the API may be slow or down: try again, or narrow the request",
                    policy.timeout.as_secs_f64()
                ),
            ),
            SendError::Connect(e) => {
                (UpstreamFault::Connect, format!("{target} failed: could not connect ({e}); the API may be down"))
            }
            SendError::Closed(e) => {
                let acted =
                    if req.method.is_safe() { "" } else { "; the API may have acted on the request before it closed" };
                (
                    UpstreamFault::Closed,
                    format!("{target} failed: the connection was closed before the response came ({e}){acted}"),
                )
            }
            SendError::Body(e, status) => {
                (UpstreamFault::BrokenBody, format!("{target}: HTTP {status}, but the response body broke off ({e})"))
            }
            SendError::Other(e) => (UpstreamFault::Other, format!("{target} failed: {e}")),
        };
        Error::Upstream { fault, message }
    }
}

fn classify(e: reqwest::Error) -> SendError {
    if e.is_timeout() {
        SendError::Timeout
    } else if e.is_connect() {
        SendError::Connect(describe_error(&e))
    } else if e.is_request() {
        // Connected and sent (or sending), then the connection broke: a reset, or a close before
        // the status line. Not "could not connect": the API was reached.
        SendError::Closed(describe_error(&e))
    } else {
        SendError::Other(describe_error(&e))
    }
}

/// The innermost cause of an error, which is where the useful words are.
pub fn describe_error(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cause: &dyn std::error::Error = e;
    while let Some(next) = cause.source() {
        cause = next;
    }
    cause.to_string()
}

/// 200 ms, 400 ms, 800 ms, ... with up to 50 % jitter.
fn backoff(attempt: u32) -> Duration {
    let base = 200u64.saturating_mul(1 << attempt.min(8).saturating_sub(1));
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    let jitter = u64::from(nanos) % (base / 2 + 1);
    Duration::from_millis(base + jitter)
}

/// `Retry-After` in seconds (the HTTP-date form is rare for APIs and falls back to backoff).
fn parse_retry_after(v: Option<&str>) -> Option<Duration> {
    v.and_then(|s| s.trim().parse::<f64>().ok()).filter(|s| *s >= 0.0).map(Duration::from_secs_f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn rate_limit_spaces_requests() {
        let metrics = Arc::new(Metrics::new());
        let up = Upstream::new(UpstreamPolicy { rate_limit: Some(20.0), ..UpstreamPolicy::default() }, metrics.clone())
            .unwrap();
        let started = Instant::now();
        for _ in 0..5 {
            up.pace().await;
        }
        // Five slots at 20/s: the first at once, the fifth 200 ms later.
        assert!(started.elapsed() >= Duration::from_millis(190), "{:?}", started.elapsed());
        if cfg!(feature = "metrics") {
            let text = metrics.encode();
            assert!(text.contains("mcpgen_rate_limit_waits_total 4\n"), "{text}");
        }
    }

    /// A server that reads each request's head and closes the connection without answering;
    /// counts the requests.
    async fn closing_server() -> (reqwest::Url, Arc<std::sync::atomic::AtomicUsize>) {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/pets", listener.local_addr().unwrap()).parse().unwrap();
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = seen.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let mut head = Vec::new();
                let mut buf = [0u8; 1024];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                drop(stream);
            }
        });
        (url, seen)
    }

    fn request(method: reqwest::Method, url: reqwest::Url) -> PreparedRequest {
        PreparedRequest { method, url, headers: reqwest::header::HeaderMap::new(), cookies: Vec::new(), body: None }
    }

    /// The soak bench (issue 14) found a connection reset after the request was sent reported as
    /// "could not connect ...; the API may be down", and counted as a connect error.
    #[tokio::test]
    async fn a_connection_closed_before_the_answer_is_not_a_failure_to_connect() {
        let (url, seen) = closing_server().await;
        let metrics = Arc::new(Metrics::new());
        let up = Upstream::new(UpstreamPolicy::default(), metrics.clone()).unwrap();

        let Err(Error::Upstream { fault, message }) = up.send(&request(reqwest::Method::GET, url.clone())).await else {
            panic!("an upstream error")
        };
        assert_eq!(fault, UpstreamFault::Closed);
        assert!(message.contains("GET http://127.0.0.1:"), "{message}");
        assert!(message.contains("the connection was closed before the response came"), "{message}");
        assert!(!message.contains("could not connect") && !message.contains("acted on"), "{message}");
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 2, "a GET is retried once");

        // POST: not retried, and the model is told the API may have acted on it.
        let Err(Error::Upstream { fault, message }) = up.send(&request(reqwest::Method::POST, url)).await else {
            panic!("an upstream error")
        };
        assert_eq!(fault, UpstreamFault::Closed);
        assert!(message.contains("the API may have acted on the request"), "{message}");
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 3);
        if cfg!(feature = "metrics") {
            let text = metrics.encode();
            assert!(text.contains("mcpgen_upstream_errors_total{kind=\"closed\"} 3\n"), "{text}");
            assert!(text.contains("mcpgen_upstream_retries_total 1\n"), "{text}");
        }

        // Nothing listening: that one could not connect.
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        let url = format!("http://{closed}/pets").parse().unwrap();
        let up = Upstream::new(UpstreamPolicy { retries: 0, ..UpstreamPolicy::default() }, metrics).unwrap();
        let Err(Error::Upstream { fault, message }) = up.send(&request(reqwest::Method::GET, url)).await else {
            panic!("an upstream error")
        };
        assert_eq!(fault, UpstreamFault::Connect);
        assert!(message.contains("could not connect"), "{message}");
    }

    #[test]
    fn backoff_grows_with_jitter() {
        let a = backoff(1);
        assert!(a >= Duration::from_millis(200) && a <= Duration::from_millis(300), "{a:?}");
        let c = backoff(3);
        assert!(c >= Duration::from_millis(800) && c <= Duration::from_millis(1200), "{c:?}");
        assert_eq!(parse_retry_after(Some("2")), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(Some("Wed, 21 Oct 2015 07:28:00 GMT")), None);
    }
}
