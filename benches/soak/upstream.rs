//! The faulty upstream: hyper on 127.0.0.1, answering each request id healthily or with the fault
//! the scenario gives it (HTTP 500, connection reset, too slow, truncated body, invalid JSON,
//! 10 MB body).

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, RawFd};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use serde_json::{Value, json};

use crate::scenario::{Fault, Op, QUERY, fault_of, healthy, limit_of, note_of, op_of, qty_of};

/// The slow fault answers after this, past the server's `--timeout` ([`crate::TIMEOUT_SECS`]).
const SLOW: Duration = Duration::from_millis(1500);
/// The size of the big fault's body.
const BIG: usize = 10 * 1024 * 1024;
/// The truncated fault announces this many bytes and sends `TRUNCATED_SENT`.
const TRUNCATED_LENGTH: usize = 4096;
const TRUNCATED_SENT: usize = 1000;

type Body = http_body_util::combinators::BoxBody<Bytes, std::io::Error>;

fn body(chunks: Vec<Bytes>) -> Body {
    StreamBody::new(futures::stream::iter(chunks.into_iter().map(|c| Ok(Frame::data(c))))).boxed()
}

/// `first`, then (once hyper has flushed it, while the body waits) an error, on which hyper
/// closes the connection: the response breaks off after `first`.
fn broken_body(first: Bytes) -> Body {
    let steps = futures::stream::unfold(0, move |step| {
        let first = first.clone();
        async move {
            match step {
                0 => Some((Ok(Frame::data(first)), 1)),
                1 => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Some((Err(std::io::Error::other("injected truncation")), 2))
                }
                _ => None,
            }
        }
    });
    StreamBody::new(steps).boxed()
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let text = Bytes::from(value.to_string());
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .header("content-length", text.len())
        .body(body(vec![text]))
        .expect("a response")
}

/// What the upstream saw.
#[derive(Default)]
pub(crate) struct UpstreamCounts {
    pub(crate) requests: AtomicU64,
    pub(crate) by_fault: [AtomicU64; 7],
    pub(crate) bad_requests: AtomicU64,
}

/// The service's error: the connection is to be reset.
#[derive(Debug)]
struct ResetConnection;

impl std::fmt::Display for ResetConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("injected connection reset")
    }
}

impl std::error::Error for ResetConnection {}

/// Makes the next close of `fd` send a TCP RST (SO_LINGER with a zero timeout).
fn linger_zero(fd: RawFd) {
    let linger = libc::linger { l_onoff: 1, l_linger: 0 };
    // SAFETY: `fd` is the connection's socket, owned by the hyper connection whose service is
    // running this, so it is open; the option value is a valid `linger` of the size given.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_LINGER,
            (&raw const linger).cast(),
            std::mem::size_of::<libc::linger>() as libc::socklen_t,
        )
    };
    assert_eq!(rc, 0, "setsockopt(SO_LINGER): {}", std::io::Error::last_os_error());
}

/// The request id of a request, from its path, query or JSON body.
async fn request_id(req: Request<Incoming>) -> Option<u64> {
    let path = req.uri().path().to_string();
    let query: BTreeMap<String, String> =
        url::form_urlencoded::parse(req.uri().query().unwrap_or("").as_bytes()).into_owned().collect();
    match (req.method().as_str(), path.as_str()) {
        ("GET", "/stats") => Some(0),
        ("GET", p) if p.starts_with("/items/r") => {
            let rid = p["/items/r".len()..].parse().ok()?;
            (op_of(rid) == Op::GetItem).then_some(rid)
        }
        ("GET", "/search") => {
            let rid: u64 = query.get("rid")?.parse().ok()?;
            let ok = op_of(rid) == Op::SearchItems
                && query.get("q").map(String::as_str) == Some(QUERY)
                && query.get("limit").and_then(|l| l.parse().ok()) == Some(limit_of(rid));
            ok.then_some(rid)
        }
        ("POST", "/orders") => {
            let json = req.headers().get("content-type").is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
            let bytes = req.into_body().collect().await.ok()?.to_bytes();
            let v: Value = serde_json::from_slice(&bytes).ok()?;
            let rid = v["rid"].as_u64()?;
            let ok = json
                && op_of(rid) == Op::CreateOrder
                && v["qty"].as_u64() == Some(qty_of(rid))
                && v["note"].as_str() == Some(&note_of(rid));
            ok.then_some(rid)
        }
        _ => None,
    }
}

/// The upstream's answer to one request: healthy, or its fault.
async fn handle(
    req: Request<Incoming>,
    fd: RawFd,
    counts: Arc<UpstreamCounts>,
    big: Bytes,
) -> Result<Response<Body>, ResetConnection> {
    counts.requests.fetch_add(1, Ordering::Relaxed);
    let Some(rid) = request_id(req).await else {
        counts.bad_requests.fetch_add(1, Ordering::Relaxed);
        return Ok(json_response(StatusCode::BAD_REQUEST, &json!({"error": "not a request of the soak"})));
    };
    if rid == 0 {
        return Ok(json_response(StatusCode::OK, &json!({"stats": "ok"})));
    }
    let fault = fault_of(rid);
    counts.by_fault[fault as usize].fetch_add(1, Ordering::Relaxed);
    let status = if op_of(rid) == Op::CreateOrder { StatusCode::CREATED } else { StatusCode::OK };
    Ok(match fault {
        Fault::None => json_response(status, &healthy(rid)),
        Fault::Status500 => {
            json_response(StatusCode::INTERNAL_SERVER_ERROR, &json!({"error": format!("injected failure for r{rid}")}))
        }
        Fault::Reset => {
            // The request was read; the answer is a RST instead of a response.
            linger_zero(fd);
            return Err(ResetConnection);
        }
        Fault::Slow => {
            tokio::time::sleep(SLOW).await;
            json_response(status, &healthy(rid))
        }
        Fault::Truncated => {
            let text = healthy(rid).to_string();
            let sent = format!("{text}{}", " ".repeat(TRUNCATED_SENT.saturating_sub(text.len())));
            Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .header("content-length", TRUNCATED_LENGTH)
                .body(broken_body(Bytes::from(sent)))
                .expect("a response")
        }
        Fault::BadJson => {
            let text = format!(r#"{{"id": "r{rid}", "oops": }}"#);
            Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .body(body(vec![Bytes::from(text)]))
                .expect("a response")
        }
        Fault::Big => {
            // {"rid":N,"blob":"xxxx...x"} of BIG bytes, from one shared 64 KiB chunk.
            let head = Bytes::from(format!(r#"{{"rid":{rid},"blob":""#));
            let tail = Bytes::from_static(br#""}"#);
            let mut chunks = vec![head.clone()];
            let mut left = BIG - head.len() - tail.len();
            while left > 0 {
                let n = left.min(big.len());
                chunks.push(big.slice(..n));
                left -= n;
            }
            chunks.push(tail);
            Response::builder()
                .status(status)
                .header("content-type", "application/json")
                .header("content-length", BIG)
                .body(body(chunks))
                .expect("a response")
        }
    })
}

/// The upstream on 127.0.0.1: hyper on each accepted socket, so that a handler can reset its own
/// connection.
pub(crate) async fn upstream(counts: Arc<UpstreamCounts>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the upstream");
    let addr = listener.local_addr().expect("the upstream's address");
    let big = Bytes::from(vec![b'x'; 64 * 1024]);
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else { continue };
            let _ = stream.set_nodelay(true);
            let fd = stream.as_raw_fd();
            let (counts, big) = (counts.clone(), big.clone());
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req| handle(req, fd, counts.clone(), big.clone()));
                // Errors are the faults at work (resets, truncation, clients gone after a timeout).
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    format!("http://{addr}")
}
