//! The direct client's connections (direct.rs): plain HTTP/1.1 connections to the upstream, kept
//! open between requests in a list per thread and per origin.
//!
//! hyper-util's pooled client did this before, with one pool shared by every thread: a lock, and
//! the origin hashed with SipHash three times a request; a task spawned after each response to put
//! the connection back; the `Host` header formatted for each request. A list per thread needs no
//! lock, and an HTTP worker (workers.rs) runs a call and its connections on one thread anyway: 6 %
//! more calls a second (docs/performance.md, "Sixth look"). What the pooled client did for
//! correctness, this does the same:
//!
//! - A connection is taken again only once hyper says it can carry a request. One the upstream
//!   closed while idle is dropped then, and another taken or opened.
//! - A request that a reused connection turned away before sending it (closed in that instant) is
//!   sent again on another: the upstream never saw it.
//! - A connection idle for [`IDLE_TIMEOUT`] is closed, not reused.
//! - The connect timeout is shared between the addresses a name resolves to, each tried in turn.
//! - `Host` is set when the request has none: the host, and the port unless it is 80.
//!
//! Each connection's I/O runs in a task of its own on the runtime that opened it, as with the
//! pooled client. How many are open is bounded by the upstream's concurrency permits.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Full;
use hyper::client::conn::http1::{self, SendRequest};
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use reqwest::Url;
use reqwest::header::{self, HeaderValue};

use crate::upstream::SendError;

/// The sending half of a connection (its I/O runs in a task of its own).
type Sender = SendRequest<Full<Bytes>>;

/// How long an idle connection is kept (hyper-util's pooled client's default).
const IDLE_TIMEOUT: Duration = Duration::from_secs(90);

/// The connections of every thread, and how to open more.
pub(crate) struct Connections {
    idle: thread_local::ThreadLocal<RefCell<Vec<Origin>>>,
    connect_timeout: Duration,
}

/// One origin's idle connections on one thread, the last put back at the end.
struct Origin {
    host: String,
    port: u16,
    /// The `Host` header for it; also what [`Connections::put_back`] finds the origin by.
    host_header: HeaderValue,
    idle: Vec<Idle>,
}

struct Idle {
    sender: Sender,
    since: Instant,
}

/// A connection carrying one request; goes back with [`Connections::put_back`] once its response
/// is read, or closes when dropped before.
pub(crate) struct Conn {
    sender: Sender,
    host_header: HeaderValue,
}

impl Connections {
    pub(crate) fn new(connect_timeout: Duration) -> Connections {
        Connections { idle: thread_local::ThreadLocal::new(), connect_timeout }
    }

    /// Sends `request` (in origin form) to `url`'s origin on an idle connection, or a new one.
    /// Returns the response's head and the connection, to put back once the body is read.
    pub(crate) async fn send(
        &self,
        url: &Url,
        mut request: Request<Full<Bytes>>,
    ) -> Result<(Response<hyper::body::Incoming>, Conn), SendError> {
        let (Some(host), Some(port)) = (url.host(), url.port_or_known_default()) else {
            return Err(SendError::Other(format!("{url} has no host")));
        };
        let host_str = url.host_str().unwrap_or_default();
        loop {
            let (idle, host_header) = self.take(host_str, port)?;
            let reused = idle.is_some();
            let mut sender = match idle {
                Some(mut sender) => match sender.ready().await {
                    Ok(()) => sender,
                    // Closed while idle: try the next one.
                    Err(_) => continue,
                },
                None => self.open(&host, port).await?,
            };
            request.headers_mut().entry(header::HOST).or_insert_with(|| host_header.clone());
            match sender.try_send_request(request).await {
                Ok(response) => return Ok((response, Conn { sender, host_header })),
                Err(mut e) => match e.take_message() {
                    // Turned away unsent by a connection that had served before: again, elsewhere.
                    Some(unsent) if reused => request = unsent,
                    _ => return Err(classify(&e.into_error())),
                },
            }
        }
    }

    /// This thread's most recently used idle connection to the origin, if any, and its `Host`.
    fn take(&self, host: &str, port: u16) -> Result<(Option<Sender>, HeaderValue), SendError> {
        let mut origins = self.idle.get_or_default().borrow_mut();
        let i = match origins.iter().position(|o| o.port == port && o.host == host) {
            Some(i) => i,
            None => {
                origins.push(Origin::new(host, port)?);
                origins.len() - 1
            }
        };
        let origin = &mut origins[i];
        if !origin.idle.is_empty() {
            origin.close_expired(Instant::now());
        }
        Ok((origin.idle.pop().map(|idle| idle.sender), origin.host_header.clone()))
    }

    /// Keeps `conn` for the next request to its origin, unless it is closed.
    pub(crate) fn put_back(&self, conn: Conn) {
        if conn.sender.is_closed() {
            return;
        }
        let mut origins = self.idle.get_or_default().borrow_mut();
        let i = match origins.iter().position(|o| o.host_header == conn.host_header) {
            Some(i) => i,
            // Taken on another thread (a work-stealing runtime moved the request).
            None => match Origin::of_host_header(&conn.host_header) {
                Some(origin) => {
                    origins.push(origin);
                    origins.len() - 1
                }
                None => return,
            },
        };
        let now = Instant::now();
        let origin = &mut origins[i];
        origin.close_expired(now);
        origin.idle.push(Idle { sender: conn.sender, since: now });
    }

    /// A new connection to `host:port`, its I/O in a task of its own.
    async fn open(&self, host: &url::Host<&str>, port: u16) -> Result<Sender, SendError> {
        let stream = self.connect(host, port).await?;
        let _ = stream.set_nodelay(true);
        let (sender, connection) = http1::handshake(TokioIo::new(stream)).await.map_err(|e| classify(&e))?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("upstream connection: {e}");
            }
        });
        Ok(sender)
    }

    /// Connects to the first of the host's addresses that answers, each given an equal share of
    /// the connect timeout; the last address's failure otherwise.
    async fn connect(&self, host: &url::Host<&str>, port: u16) -> Result<tokio::net::TcpStream, SendError> {
        let addrs: Vec<SocketAddr> = match host {
            url::Host::Ipv4(ip) => vec![SocketAddr::from((*ip, port))],
            url::Host::Ipv6(ip) => vec![SocketAddr::from((*ip, port))],
            url::Host::Domain(name) => {
                let found = tokio::time::timeout(self.connect_timeout, tokio::net::lookup_host((*name, port))).await;
                match found {
                    Err(_) => return Err(SendError::Timeout),
                    Ok(Err(e)) => return Err(SendError::Connect(e.to_string())),
                    Ok(Ok(addrs)) => addrs.collect(),
                }
            }
        };
        let share = self.connect_timeout / u32::try_from(addrs.len().max(1)).unwrap_or(u32::MAX);
        let mut failure = SendError::Connect(format!("{host} has no address"));
        for addr in addrs {
            match tokio::time::timeout(share, tokio::net::TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => return Ok(stream),
                Ok(Err(e)) if e.kind() == std::io::ErrorKind::TimedOut => failure = SendError::Timeout,
                Ok(Err(e)) => failure = SendError::Connect(e.to_string()),
                Err(_) => failure = SendError::Timeout,
            }
        }
        Err(failure)
    }
}

impl Origin {
    fn new(host: &str, port: u16) -> Result<Origin, SendError> {
        let value = if port == 80 { host.to_string() } else { format!("{host}:{port}") };
        let host_header = HeaderValue::from_str(&value).map_err(|e| SendError::Other(e.to_string()))?;
        Ok(Origin { host: host.to_string(), port, host_header, idle: Vec::new() })
    }

    /// The origin a `Host` header of [`Origin::new`] names.
    fn of_host_header(value: &HeaderValue) -> Option<Origin> {
        let text = value.to_str().ok()?;
        let (host, port) = match text.rsplit_once(':') {
            Some((host, port)) if !port.contains(']') => (host, port.parse().ok()?),
            _ => (text, 80),
        };
        Some(Origin { host: host.to_string(), port, host_header: value.clone(), idle: Vec::new() })
    }

    /// Closes the connections idle longer than [`IDLE_TIMEOUT`] (the first ones: the oldest).
    fn close_expired(&mut self, now: Instant) {
        let expired = self.idle.iter().take_while(|i| now.duration_since(i.since) > IDLE_TIMEOUT).count();
        self.idle.drain(..expired);
    }
}

/// reqwest's classes for hyper's errors: a timeout anywhere in the chain, or a connection that
/// broke.
fn classify(e: &hyper::Error) -> SendError {
    let mut cause: &dyn std::error::Error = e;
    loop {
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::TimedOut
        {
            return SendError::Timeout;
        }
        match cause.source() {
            Some(next) => cause = next,
            None => break,
        }
    }
    SendError::Closed(crate::upstream::describe_error(e))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use http_body_util::BodyExt;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// How the test upstream ends each response.
    #[derive(Clone, Copy)]
    enum Ending {
        /// Keeps the connection open.
        KeepAlive,
        /// Says `Connection: close`, then closes.
        SaysClose,
        /// Closes without a word.
        Closes,
    }

    /// A raw HTTP/1.1 upstream: answers `ok` to each request, counts the connections it accepts
    /// and keeps the last request's head.
    struct Upstream {
        url: Url,
        accepted: Arc<AtomicUsize>,
        last_head: Arc<std::sync::Mutex<String>>,
    }

    async fn upstream(ending: Ending) -> Upstream {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap()).parse().unwrap();
        let accepted = Arc::new(AtomicUsize::new(0));
        let last_head = Arc::new(std::sync::Mutex::new(String::new()));
        let (count, heads) = (accepted.clone(), last_head.clone());
        tokio::spawn(async move {
            loop {
                let (mut stream, _) = listener.accept().await.unwrap();
                count.fetch_add(1, Ordering::SeqCst);
                let heads = heads.clone();
                tokio::spawn(async move {
                    let mut seen = Vec::new();
                    let mut buf = [0u8; 1024];
                    loop {
                        let Ok(n) = stream.read(&mut buf).await else { return };
                        if n == 0 {
                            return;
                        }
                        seen.extend_from_slice(&buf[..n]);
                        let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") else { continue };
                        *heads.lock().unwrap() = String::from_utf8_lossy(&seen[..end]).into_owned();
                        seen.drain(..end + 4);
                        let close = if matches!(ending, Ending::SaysClose) { "Connection: close\r\n" } else { "" };
                        let answer = format!("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n{close}\r\nok");
                        if stream.write_all(answer.as_bytes()).await.is_err() || !matches!(ending, Ending::KeepAlive) {
                            return;
                        }
                    }
                });
            }
        });
        Upstream { url, accepted, last_head }
    }

    /// A GET of `path` through `conns`: the body, with the connection put back at its end.
    async fn get(conns: &Connections, url: &Url, path: &str) -> Result<String, SendError> {
        let request = Request::get(path).body(Full::new(Bytes::new())).unwrap();
        let (response, conn) = conns.send(url, request).await?;
        let body = response.into_body().collect().await.map_err(|e| SendError::Closed(e.to_string()))?.to_bytes();
        conns.put_back(conn);
        Ok(String::from_utf8_lossy(&body).into_owned())
    }

    /// Lets the connections' tasks see what came in (a close) before the next request.
    async fn settle() {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    #[tokio::test]
    async fn one_connection_carries_requests_one_after_another() {
        let up = upstream(Ending::KeepAlive).await;
        let conns = Connections::new(Duration::from_secs(5));
        for _ in 0..5 {
            assert_eq!(get(&conns, &up.url, "/x").await.unwrap(), "ok");
        }
        assert_eq!(up.accepted.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn requests_at_once_open_a_connection_each_then_reuse_them() {
        let up = upstream(Ending::KeepAlive).await;
        let conns = Connections::new(Duration::from_secs(5));
        for _ in 0..3 {
            let all = futures::future::join_all((0..4).map(|_| get(&conns, &up.url, "/x"))).await;
            assert!(all.iter().all(|r| r.as_deref().is_ok_and(|b| b == "ok")));
        }
        assert_eq!(up.accepted.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn a_connection_the_upstream_closed_is_not_taken_again() {
        for ending in [Ending::SaysClose, Ending::Closes] {
            let up = upstream(ending).await;
            let conns = Connections::new(Duration::from_secs(5));
            for _ in 0..4 {
                assert_eq!(get(&conns, &up.url, "/x").await.unwrap(), "ok");
                settle().await;
            }
            assert_eq!(up.accepted.load(Ordering::SeqCst), 4);
        }
    }

    #[tokio::test]
    async fn the_request_line_is_in_origin_form_and_host_names_the_port() {
        let up = upstream(Ending::KeepAlive).await;
        let conns = Connections::new(Duration::from_secs(5));
        get(&conns, &up.url, "/items/1?x=a%20b").await.unwrap();
        let head = up.last_head.lock().unwrap().clone();
        let port = up.url.port().unwrap();
        assert!(head.starts_with("GET /items/1?x=a%20b HTTP/1.1\r\n"), "{head}");
        assert!(head.to_ascii_lowercase().contains(&format!("host: 127.0.0.1:{port}")), "{head}");
    }

    #[tokio::test]
    async fn a_host_header_of_the_request_is_kept() {
        let up = upstream(Ending::KeepAlive).await;
        let conns = Connections::new(Duration::from_secs(5));
        let request = Request::get("/").header("host", "api.example").body(Full::new(Bytes::new())).unwrap();
        let (response, _conn) = conns.send(&up.url, request).await.unwrap();
        response.into_body().collect().await.unwrap();
        assert!(up.last_head.lock().unwrap().contains("host: api.example"));
    }

    #[tokio::test]
    async fn a_connection_dropped_before_its_body_ends_is_not_reused() {
        let up = upstream(Ending::KeepAlive).await;
        let conns = Connections::new(Duration::from_secs(5));
        let request = Request::get("/").body(Full::new(Bytes::new())).unwrap();
        drop(conns.send(&up.url, request).await.unwrap());
        assert_eq!(get(&conns, &up.url, "/").await.unwrap(), "ok");
        assert_eq!(up.accepted.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn connections_idle_too_long_are_closed_oldest_first() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let up = upstream(Ending::KeepAlive).await;
            let conns = Connections::new(Duration::from_secs(5));
            let _ = futures::future::join_all((0..3).map(|_| get(&conns, &up.url, "/"))).await;
            let mut origins = conns.idle.get_or_default().borrow_mut();
            let origin = &mut origins[0];
            assert_eq!(origin.idle.len(), 3);
            let now = Instant::now();
            origin.idle[0].since = now - IDLE_TIMEOUT - Duration::from_secs(1);
            origin.idle[1].since = now - IDLE_TIMEOUT - Duration::from_secs(1);
            origin.close_expired(now);
            assert_eq!(origin.idle.len(), 1);
        });
    }

    #[tokio::test]
    async fn a_refused_connection_is_a_connect_error() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url: Url = format!("http://{}/", listener.local_addr().unwrap()).parse().unwrap();
        drop(listener);
        let conns = Connections::new(Duration::from_secs(5));
        assert!(matches!(get(&conns, &url, "/").await, Err(SendError::Connect(words)) if words.contains("refused")));
    }

    #[test]
    fn an_origin_comes_back_from_its_host_header() {
        for (host, port) in [("127.0.0.1", 8080), ("api.example", 80), ("[::1]", 3000), ("[::1]", 80)] {
            let origin = Origin::new(host, port).unwrap();
            let back = Origin::of_host_header(&origin.host_header).unwrap();
            assert_eq!((back.host.as_str(), back.port), (host, port));
        }
    }
}
