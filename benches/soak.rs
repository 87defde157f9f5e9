//! Soak under faults (issue 14): `mcpgen serve --transport http --watch` in front of a local
//! upstream that answers 5 % of requests badly (HTTP 500, connection reset, too slow, truncated
//! body, invalid JSON, 10 MB body), called by concurrent MCP clients; the spec is edited halfway,
//! so the server reloads while the calls go on.
//!
//! Every result is classified: the healthy answer for its request id, or the outcome that names
//! the fault the upstream injected for that id. Anything else (a wrong answer, a protocol error, a
//! call that hangs, a panic in the server's log, RSS growing beyond 10 % after warm-up, open file
//! descriptors growing) is a failure: the bench prints examples and exits with 1. One exception,
//! counted apart: the upstream runs in this process, so when the machine does not schedule it
//! for a second (a watchdog task sees the pause), mcpgen rightly answers "timed out" where
//! another answer was due.
//!
//! `cargo bench --bench soak` (the release build of `mcpgen`); `SOAK_CALLS` (100000) and
//! `SOAK_CLIENTS` (32) change its size; `SOAK_SAMPLES=FILE` keeps the RSS and fd samples as CSV,
//! `SOAK_SERVER_LOG=FILE` the server's log. See docs/soak.md.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt;

/// `--timeout` of the server, in seconds; the slow fault answers after `SLOW`.
const TIMEOUT_SECS: u64 = 1;
const SLOW: Duration = Duration::from_millis(1500);
/// `--max-response-bytes` (mcpgen's default), and the size of the big fault's body.
const CAP: usize = 1024 * 1024;
const BIG: usize = 10 * 1024 * 1024;
/// The truncated fault announces this many bytes and sends `TRUNCATED_SENT`.
const TRUNCATED_LENGTH: usize = 4096;
const TRUNCATED_SENT: usize = 1000;
/// A call that takes longer than this counts as a hang (the slowest expected one is a reset GET:
/// two attempts and a backoff of at most 300 ms).
const HANG: Duration = Duration::from_secs(10);
/// A pause of this process longer than this is a stall (a 20 ms sleep that took this long).
const STALL: Duration = Duration::from_millis(250);
/// Faulty answers per thousand.
const FAULTS_PER_MILLE: u64 = 50;

/// What the upstream does with a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    None,
    Status500,
    Reset,
    Slow,
    Truncated,
    BadJson,
    Big,
}

const FAULTS: [Fault; 6] = [Fault::Status500, Fault::Reset, Fault::Slow, Fault::Truncated, Fault::BadJson, Fault::Big];

impl Fault {
    fn name(self) -> &'static str {
        match self {
            Fault::None => "healthy",
            Fault::Status500 => "HTTP 500",
            Fault::Reset => "reset",
            Fault::Slow => "timeout",
            Fault::Truncated => "truncated body",
            Fault::BadJson => "bad JSON",
            Fault::Big => "10 MB body",
        }
    }
}

/// splitmix64: request ids to well-spread bits, the same in the client and the upstream.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The fault the upstream injects for request `rid`: 5 %, spread over the six kinds.
fn fault_of(rid: u64) -> Fault {
    let h = mix(rid) % 1000;
    if h < FAULTS_PER_MILLE { FAULTS[(h % 6) as usize] } else { Fault::None }
}

/// The operations of the spec; the request id travels in the path, the query or the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    GetItem,
    SearchItems,
    CreateOrder,
}

fn op_of(rid: u64) -> Op {
    match (mix(rid) >> 32) % 3 {
        0 => Op::GetItem,
        1 => Op::SearchItems,
        _ => Op::CreateOrder,
    }
}

const QUERY: &str = "soak & ünïcode/?=";

fn limit_of(rid: u64) -> u64 {
    1 + rid % 5
}

fn qty_of(rid: u64) -> u64 {
    1 + rid % 7
}

fn note_of(rid: u64) -> String {
    format!("order r{rid} \u{2014} \"quoted\"")
}

/// The tool call for request `rid`.
fn call_for(rid: u64) -> CallToolRequestParams {
    let (name, args) = match op_of(rid) {
        Op::GetItem => ("getItem", json!({"id": format!("r{rid}")})),
        Op::SearchItems => ("searchItems", json!({"q": QUERY, "limit": limit_of(rid), "rid": rid})),
        Op::CreateOrder => ("createOrder", json!({"rid": rid, "qty": qty_of(rid), "note": note_of(rid)})),
    };
    CallToolRequestParams::new(name).with_arguments(args.as_object().cloned().expect("an object"))
}

/// The upstream's healthy answer to request `rid` (what the client expects as structured content).
fn healthy(rid: u64) -> Value {
    match op_of(rid) {
        Op::GetItem => json!({"id": format!("r{rid}"), "stock": mix(rid ^ 1) % 1000, "tags": ["soak", "item"]}),
        Op::SearchItems => json!({
            "q": QUERY,
            "rid": rid,
            "items": (0..limit_of(rid)).map(|i| json!({"id": rid * 10 + i})).collect::<Vec<_>>(),
        }),
        Op::CreateOrder => json!({"rid": rid, "qty": qty_of(rid), "note": note_of(rid), "status": "created"}),
    }
}

fn spec(upstream: &str, with_stats: bool) -> String {
    let mut s = format!(
        r#"openapi: 3.0.3
info: {{title: Soak API, version: 1.0.0}}
servers: [{{url: "{upstream}"}}]
paths:
  /items/{{id}}:
    get:
      operationId: getItem
      parameters: [{{name: id, in: path, required: true, schema: {{type: string}}}}]
      responses: {{"200": {{description: the item}}}}
  /search:
    get:
      operationId: searchItems
      parameters:
        - {{name: q, in: query, required: true, schema: {{type: string}}}}
        - {{name: limit, in: query, schema: {{type: integer}}}}
        - {{name: rid, in: query, required: true, schema: {{type: integer}}}}
      responses: {{"200": {{description: matches}}}}
  /orders:
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/json:
            schema:
              type: object
              required: [rid, qty]
              properties: {{rid: {{type: integer}}, qty: {{type: integer}}, note: {{type: string}}}}
      responses: {{"201": {{description: created}}}}
"#
    );
    if with_stats {
        s.push_str("  /stats:\n    get: {operationId: getStats, responses: {\"200\": {description: counters}}}\n");
    }
    s
}

// ---------------------------------------------------------------------------------------------
// The upstream

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
struct UpstreamCounts {
    requests: AtomicU64,
    by_fault: [AtomicU64; 7],
    bad_requests: AtomicU64,
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
async fn upstream(counts: Arc<UpstreamCounts>) -> String {
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

// ---------------------------------------------------------------------------------------------
// Classification

/// How one call ended.
#[derive(Clone, Debug)]
enum Outcome {
    /// As expected for its fault.
    Correct(Fault),
    /// Anything else, with what was seen.
    Failure { fault: Fault, what: String },
    /// mcpgen said the upstream timed out where no timeout was due: a failure, unless this
    /// process (which holds the upstream) stalled meanwhile (see `Stalls`).
    TimedOut { fault: Fault, what: String },
}

fn text_of(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

fn excerpt(s: &str) -> String {
    let cut: String = s.chars().take(300).collect();
    if cut.len() < s.len() { format!("{cut}...") } else { cut }
}

/// Whether a result is what mcpgen must answer for request `rid`. Four faults are tool errors
/// (`isError`) named in the text; two still carry data, so mcpgen answers them as results whose
/// text says what is wrong (src/runtime/response.rs): invalid JSON comes back as raw text after
/// "the API declared JSON but sent invalid JSON", a body over `--max-response-bytes` cut with a
/// "[... truncated" marker.
fn check(rid: u64, r: &CallToolResult) -> Result<(), String> {
    let fault = fault_of(rid);
    let text = text_of(r);
    let error = r.is_error == Some(true);
    let want_error = matches!(fault, Fault::Status500 | Fault::Reset | Fault::Slow | Fault::Truncated);
    if error != want_error {
        return Err(format!("isError {:?}: {}", r.is_error, excerpt(&text)));
    }
    if fault != Fault::None && r.structured_content.is_some() {
        return Err(format!("structured content for a faulty answer: {}", excerpt(&text)));
    }
    let ok = match fault {
        Fault::None => {
            let want = healthy(rid);
            if r.structured_content.as_ref() != Some(&want) {
                return Err(format!("structured content {:?}, want {want}", r.structured_content));
            }
            serde_json::from_str::<Value>(&text).ok() == Some(want)
        }
        Fault::Status500 => text.contains("HTTP 500") && text.contains(&format!("injected failure for r{rid}\"")),
        // mcpgen's words for a connection closed before the status came, with the cause (a RST:
        // "connection reset by peer"); not "could not connect", since the API was reached.
        Fault::Reset => {
            text.contains("the connection was closed before the response came")
                && text.to_ascii_lowercase().contains("reset")
                && !text.contains("could not connect")
        }
        Fault::Slow => text.contains(&format!("timed out after {TIMEOUT_SECS} s")),
        Fault::Truncated => text.contains("HTTP 20") && text.contains("broke off"),
        Fault::BadJson => {
            text.contains("sent invalid JSON") && text.contains(&format!(r#"{{"id": "r{rid}", "oops": }}"#))
        }
        Fault::Big => {
            text.starts_with(&format!(r#"{{"rid":{rid},"blob":"xxxx"#))
                && text.contains("[... truncated")
                && text.len() >= CAP
                && text.len() < CAP + 1024
        }
    };
    if ok { Ok(()) } else { Err(excerpt(&text)) }
}

// ---------------------------------------------------------------------------------------------
// The server under test

struct Server {
    child: tokio::process::Child,
    pid: u32,
    url: String,
    log: Arc<Mutex<Log>>,
    log_done: tokio::task::JoinHandle<()>,
}

/// What the server wrote on stderr.
#[derive(Default)]
struct Log {
    lines: usize,
    panics: Vec<String>,
    reloads: Vec<String>,
    /// ERROR and WARN lines: how many, and the first 20.
    warnings: usize,
    errors: Vec<String>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("its address").port()
}

// `--retries 1` (the default) is kept on purpose: connection errors on GETs are retried once,
// which the soak exercises (the retry of a reset hits the same fault, since faults follow the
// request id, so the classification is the same; the upstream sees one more request for each
// reset GET, which the report checks). The other faults are never retried: a 500 is not one of
// 429/502/503/504, a timeout or a broken body is not a connection error, and POST is not
// idempotent.
async fn start_server(spec: &Path) -> Server {
    let port = free_port();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .arg("serve")
        .arg(spec)
        .args(["--transport", "http", "--bind", &format!("127.0.0.1:{port}"), "--watch"])
        .args(["--timeout", &TIMEOUT_SECS.to_string(), "--retries", "1"])
        // The default log filter (warn, and mcpgen's info: start-up and reloads), as in production.
        .env_remove("MCPGEN_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start mcpgen (cargo bench builds it)");
    let pid = child.id().expect("mcpgen's pid");
    let log = Arc::new(Mutex::new(Log::default()));
    let mut lines = tokio::io::BufReader::new(child.stderr.take().expect("stderr")).lines();
    let sink = log.clone();
    // SOAK_SERVER_LOG=FILE keeps the server's whole log.
    let mut keep = std::env::var_os("SOAK_SERVER_LOG")
        .map(|p| std::io::BufWriter::new(std::fs::File::create(p).expect("create SOAK_SERVER_LOG")));
    let log_done = tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if let Some(f) = &mut keep {
                let _ = writeln!(f, "{line}");
            }
            let mut log = sink.lock().expect("log lock");
            log.lines += 1;
            if line.contains("panicked") {
                log.panics.push(line);
            } else if line.contains("reloaded") || line.contains("reload of") {
                log.reloads.push(line);
            } else if line.contains(" ERROR ") || line.contains(" WARN ") {
                log.warnings += 1;
                if log.errors.len() < 20 {
                    log.errors.push(line);
                }
            }
        }
    });
    let url = format!("http://127.0.0.1:{port}/mcp");
    let health = format!("http://127.0.0.1:{port}/health");
    let http = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if http.get(&health).send().await.is_ok_and(|r| r.status().is_success()) {
            break;
        }
        assert!(Instant::now() < deadline, "mcpgen did not answer /health within 30 s");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Server { child, pid, url, log, log_done }
}

type Client = RunningService<RoleClient, ()>;

async fn client(url: &str) -> Client {
    ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string()))
        .await
        .expect("initialize over HTTP")
}

/// Saves as editors do: a new file renamed over the old one.
fn save_by_rename(path: &Path, text: &str) {
    let tmp = path.with_extension("yaml.tmp");
    std::fs::write(&tmp, text).expect("write the new spec");
    std::fs::rename(&tmp, path).expect("rename it over the old one");
}

// ---------------------------------------------------------------------------------------------
// Sampling

#[derive(Clone, Copy, Debug)]
struct Sample {
    at: Duration,
    done: usize,
    rss_kb: u64,
    fds: usize,
}

fn rss_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find(|l| l.starts_with("VmRSS:"))?.split_whitespace().nth(1)?.parse().ok()
}

fn fd_count(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

// ---------------------------------------------------------------------------------------------
// The run

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

/// What the clients saw, merged.
#[derive(Default)]
struct Tally {
    correct: BTreeMap<Fault, usize>,
    failures: BTreeMap<Fault, usize>,
    examples: Vec<(u64, Fault, String)>,
    healthy_us: Vec<u32>,
    /// Unexpected timeouts, with when the call was made, until the stalls are known.
    timed_out: Vec<(u64, Fault, Instant, Instant, String)>,
    /// Unexpected timeouts during stalls of this process, by the fault that was due.
    stalled: BTreeMap<Fault, usize>,
}

impl Tally {
    fn record(&mut self, rid: u64, outcome: Outcome, started: Instant) {
        match outcome {
            Outcome::Correct(fault) => {
                *self.correct.entry(fault).or_default() += 1;
                if fault == Fault::None {
                    self.healthy_us.push(started.elapsed().as_micros().min(u32::MAX as u128) as u32);
                }
            }
            Outcome::Failure { fault, what } => self.fail(rid, fault, what),
            Outcome::TimedOut { fault, what } => self.timed_out.push((rid, fault, started, Instant::now(), what)),
        }
    }

    fn fail(&mut self, rid: u64, fault: Fault, what: String) {
        *self.failures.entry(fault).or_default() += 1;
        if self.examples.len() < 20 {
            self.examples.push((rid, fault, what));
        }
    }

    /// Sorts the unexpected timeouts: those during which this process stalled for at least half
    /// the timeout are counted apart, the others are failures.
    fn resolve(&mut self, stalls: &[(Instant, Instant)]) {
        for (rid, fault, from, to, what) in std::mem::take(&mut self.timed_out) {
            let overlap: Duration = stalls.iter().map(|&(s, e)| to.min(e).saturating_duration_since(from.max(s))).sum();
            if overlap * 2 >= Duration::from_secs(TIMEOUT_SECS) {
                *self.stalled.entry(fault).or_default() += 1;
            } else {
                self.fail(rid, fault, what);
            }
        }
    }

    fn merge(&mut self, other: Tally) {
        for (k, v) in other.correct {
            *self.correct.entry(k).or_default() += v;
        }
        for (k, v) in other.failures {
            *self.failures.entry(k).or_default() += v;
        }
        let room = 20usize.saturating_sub(self.examples.len());
        self.examples.extend(other.examples.into_iter().take(room));
        self.healthy_us.extend(other.healthy_us);
        self.timed_out.extend(other.timed_out);
    }

    fn failed(&self) -> usize {
        self.failures.values().sum()
    }
}

/// One client: takes request ids until `calls` are taken.
async fn run_client(url: String, next: Arc<AtomicU64>, calls: u64, done: Arc<AtomicUsize>) -> Tally {
    let mut tally = Tally::default();
    let client = client(&url).await;
    loop {
        let rid = next.fetch_add(1, Ordering::Relaxed) + 1;
        if rid > calls {
            break;
        }
        let started = Instant::now();
        let outcome = match tokio::time::timeout(HANG, client.call_tool(call_for(rid))).await {
            Err(_) => Outcome::Failure { fault: fault_of(rid), what: format!("no answer within {HANG:?}") },
            Ok(Err(e)) => Outcome::Failure { fault: fault_of(rid), what: format!("protocol error: {e}") },
            Ok(Ok(r)) => match check(rid, &r) {
                Ok(()) => Outcome::Correct(fault_of(rid)),
                Err(what) if text_of(&r).contains(&format!("timed out after {TIMEOUT_SECS} s")) => {
                    Outcome::TimedOut { fault: fault_of(rid), what }
                }
                Err(what) => Outcome::Failure { fault: fault_of(rid), what },
            },
        };
        tally.record(rid, outcome, started);
        done.fetch_add(1, Ordering::Relaxed);
    }
    let _ = client.cancel().await;
    tally
}

/// What happened around the reload.
struct ReloadReport {
    at_call: usize,
    visible_after: Duration,
    calls_meanwhile: usize,
    stats_call: Result<(), String>,
}

/// Halfway, adds an operation to the spec; a fresh client waits for it in `tools/list`, then
/// calls it.
async fn reload_midway(
    url: String,
    spec_path: PathBuf,
    spec_text: String,
    done: Arc<AtomicUsize>,
    calls: usize,
) -> Result<ReloadReport, String> {
    while done.load(Ordering::Relaxed) < calls / 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let at_call = done.load(Ordering::Relaxed);
    let edited = Instant::now();
    save_by_rename(&spec_path, &spec_text);
    let deadline = edited + Duration::from_secs(15);
    let visible_after = loop {
        let fresh = client(&url).await;
        let tools = fresh.list_all_tools().await.map_err(|e| format!("tools/list: {e}"))?;
        let _ = fresh.cancel().await;
        if tools.iter().any(|t| t.name == "getStats") {
            break edited.elapsed();
        }
        if Instant::now() > deadline {
            return Err(format!(
                "getStats not listed 15 s after the edit: {:?}",
                tools.iter().map(|t| &t.name).collect::<Vec<_>>()
            ));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let calls_meanwhile = done.load(Ordering::Relaxed) - at_call;
    let fresh = client(&url).await;
    let stats_call = match fresh.call_tool(CallToolRequestParams::new("getStats")).await {
        Ok(r) if r.structured_content == Some(json!({"stats": "ok"})) => Ok(()),
        Ok(r) => Err(format!("getStats answered {}", excerpt(&text_of(&r)))),
        Err(e) => Err(format!("getStats: {e}")),
    };
    let _ = fresh.cancel().await;
    Ok(ReloadReport { at_call, visible_after, calls_meanwhile, stats_call })
}

fn pct(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize] as f64 / 1000.0
}

#[tokio::main]
async fn main() {
    mcpgen::runtime::install_crypto_provider();
    let calls = env_usize("SOAK_CALLS", 100_000);
    let clients = env_usize("SOAK_CLIENTS", 32);
    assert!(calls >= 10 && clients >= 1, "SOAK_CALLS must be at least 10 and SOAK_CLIENTS at least 1");

    let counts = Arc::new(UpstreamCounts::default());
    let base = upstream(counts.clone()).await;
    let dir = tempfile::tempdir().expect("a temp dir");
    let spec_path = dir.path().join("soak.yaml");
    std::fs::write(&spec_path, spec(&base, false)).expect("write the spec");
    let mut server = start_server(&spec_path).await;
    let fds_before = fd_count(server.pid).unwrap_or(0);
    println!(
        "soak: {calls} calls from {clients} clients; mcpgen pid {} at {}, upstream {base}, --timeout {TIMEOUT_SECS} --retries 1",
        server.pid, server.url
    );

    let done = Arc::new(AtomicUsize::new(0));
    let finished = Arc::new(AtomicBool::new(false));
    let started = Instant::now();

    // RSS and open fds every second.
    let sampler = {
        let (done, finished, pid) = (done.clone(), finished.clone(), server.pid);
        tokio::spawn(async move {
            let mut samples = Vec::new();
            let mut tick = tokio::time::interval(Duration::from_secs(1));
            while !finished.load(Ordering::Relaxed) {
                tick.tick().await;
                if let (Some(rss_kb), Some(fds)) = (rss_kb(pid), fd_count(pid)) {
                    samples.push(Sample { at: started.elapsed(), done: done.load(Ordering::Relaxed), rss_kb, fds });
                }
            }
            samples
        })
    };

    // Progress every 10 %.
    let progress = {
        let (done, finished) = (done.clone(), finished.clone());
        tokio::spawn(async move {
            let mut shown = 0;
            while !finished.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(200)).await;
                let d = done.load(Ordering::Relaxed);
                if d * 10 / calls > shown {
                    shown = d * 10 / calls;
                    eprintln!("  {d} calls in {:.1} s", started.elapsed().as_secs_f64());
                }
            }
        })
    };

    let reload =
        tokio::spawn(reload_midway(server.url.clone(), spec_path.clone(), spec(&base, true), done.clone(), calls));

    // Stalls of this process: the upstream lives here, so while it is not scheduled (a busy
    // shared machine), mcpgen rightly times out calls that were due a healthy answer.
    let watchdog = {
        let finished = finished.clone();
        tokio::spawn(async move {
            let mut stalls = Vec::new();
            let mut last = Instant::now();
            while !finished.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let now = Instant::now();
                if now - last > STALL {
                    stalls.push((last, now));
                }
                last = now;
            }
            stalls
        })
    };

    let next = Arc::new(AtomicU64::new(0));
    let tasks: Vec<_> = (0..clients)
        .map(|_| tokio::spawn(run_client(server.url.clone(), next.clone(), calls as u64, done.clone())))
        .collect();
    let mut tally = Tally::default();
    for t in tasks {
        tally.merge(t.await.expect("a client task"));
    }
    let duration = started.elapsed();
    finished.store(true, Ordering::Relaxed);
    let samples = sampler.await.expect("the sampler");
    let stalls = watchdog.await.expect("the watchdog");
    // Idle again: what the load opened must have been closed (idle upstream connections kept in
    // reqwest's pool aside: at most one per client).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let fds_after = fd_count(server.pid).unwrap_or(usize::MAX);
    tally.resolve(&stalls);
    // SOAK_SAMPLES=FILE keeps the samples as CSV.
    if let Some(path) = std::env::var_os("SOAK_SAMPLES") {
        let mut csv = String::from("seconds,calls,rss_kb,fds\n");
        for s in &samples {
            csv.push_str(&format!("{:.1},{},{},{}\n", s.at.as_secs_f64(), s.done, s.rss_kb, s.fds));
        }
        std::fs::write(path, csv).expect("write SOAK_SAMPLES");
    }
    let _ = progress.await;
    let reload = reload.await.expect("the reload task");

    // Still alive? Then a graceful stop, and its log to its end.
    let alive = matches!(server.child.try_wait(), Ok(None));
    if alive {
        // SAFETY: kill(2) on the pid of our own child, which has not been reaped.
        unsafe { libc::kill(server.pid as libc::pid_t, libc::SIGTERM) };
    }
    let exit = tokio::time::timeout(Duration::from_secs(10), server.child.wait()).await;
    let stopped_cleanly = alive && matches!(exit, Ok(Ok(s)) if s.success());
    let _ = tokio::time::timeout(Duration::from_secs(5), &mut server.log_done).await;
    let log = server.log.lock().expect("log lock");

    // ---- The report
    let mut problems: Vec<String> = Vec::new();
    let stalled: usize = tally.stalled.values().sum();
    let total: usize = tally.correct.values().sum::<usize>() + tally.failed() + stalled;
    println!();
    println!(
        "calls        {total} in {:.1} s: {:.0} calls/s ({clients} clients)",
        duration.as_secs_f64(),
        total as f64 / duration.as_secs_f64()
    );
    let mut line = String::new();
    for fault in std::iter::once(Fault::None).chain(FAULTS) {
        let ok = tally.correct.get(&fault).copied().unwrap_or(0);
        let bad = tally.failures.get(&fault).copied().unwrap_or(0);
        line.push_str(&format!("{}: {ok}", fault.name()));
        if bad > 0 {
            line.push_str(&format!(" (+{bad} FAILED)"));
        }
        line.push_str(", ");
    }
    println!("correct      {}", line.trim_end_matches(", "));
    let faulty: usize = FAULTS.iter().map(|f| tally.correct.get(f).copied().unwrap_or(0)).sum();
    println!(
        "             {faulty} faulty answers named correctly ({:.2} % of calls)",
        faulty as f64 * 100.0 / total.max(1) as f64
    );
    let longest = stalls.iter().map(|(s, e)| *e - *s).max().unwrap_or_default();
    let stalled_for: Duration = stalls.iter().map(|(s, e)| *e - *s).sum();
    println!(
        "stalls       this process (upstream and clients) paused {} times over {} ms (longest {} ms, {:.1} s in all); \
         {stalled} calls timed out across them{}",
        stalls.len(),
        STALL.as_millis(),
        longest.as_millis(),
        stalled_for.as_secs_f64(),
        if stalled > 0 {
            let due: Vec<String> = tally.stalled.iter().map(|(f, n)| format!("{n} {}", f.name())).collect();
            format!(" (due: {}), counted apart", due.join(", "))
        } else {
            String::new()
        }
    );
    // A few are the machine's; more would make the run meaningless.
    if stalled * 1000 > calls {
        problems.push(format!("{stalled} calls timed out in stalls of the bench: the machine is too busy"));
    }
    if total != calls {
        problems.push(format!("{total} calls classified, {calls} made"));
    }
    if tally.failed() > 0 {
        problems.push(format!("{} calls failed", tally.failed()));
    }

    let mut us = std::mem::take(&mut tally.healthy_us);
    us.sort_unstable();
    println!(
        "latency      healthy calls p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        pct(&us, 0.5),
        pct(&us, 0.99),
        pct(&us, 1.0)
    );

    let by_fault: Vec<u64> = counts.by_fault.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let reset_gets =
        (1..=calls as u64).filter(|&r| fault_of(r) == Fault::Reset && op_of(r) != Op::CreateOrder).count() as u64;
    let requests = counts.requests.load(Ordering::Relaxed);
    // The calls, the one retry of each reset GET, and getStats. A call that timed out in a stall
    // may have lost its retry, or reached the upstream only after mcpgen gave up on it.
    let want_requests = calls as u64 + reset_gets + 1;
    let slack = 2 * stalled as u64;
    let want =
        if slack > 0 { format!("{}..={want_requests}", want_requests - slack) } else { want_requests.to_string() };
    println!(
        "upstream     {requests} requests ({} resets: the reset calls, and {reset_gets} GETs retried once; want {want}), {} not of the soak",
        by_fault[Fault::Reset as usize],
        counts.bad_requests.load(Ordering::Relaxed)
    );
    if requests > want_requests || requests + slack < want_requests {
        problems.push(format!("the upstream saw {requests} requests, want {want}"));
    }

    match &reload {
        Ok(r) => {
            println!(
                "reload       spec edited at call {}; getStats listed {:.0} ms later, {} calls completed meanwhile; getStats {}",
                r.at_call,
                r.visible_after.as_secs_f64() * 1e3,
                r.calls_meanwhile,
                match &r.stats_call {
                    Ok(()) => "answered".to_string(),
                    Err(e) => e.clone(),
                }
            );
            if let Err(e) = &r.stats_call {
                problems.push(e.clone());
            }
            if r.calls_meanwhile == 0 {
                problems.push("no call completed during the reload".into());
            }
        }
        Err(e) => {
            println!("reload       FAILED: {e}");
            problems.push(e.clone());
        }
    }
    for l in &log.reloads {
        println!("             log: {}", excerpt(l));
    }
    // One edit; the watcher settles bursts, but a second reload of the same file would be harmless.
    if !log.reloads.iter().any(|l| l.contains("3 -> 4 tools")) || log.reloads.iter().any(|l| l.contains("reload of")) {
        problems.push(format!("want a reload from 3 to 4 tools and no failed one in the log, got {:?}", log.reloads));
    }

    let warm: Vec<Sample> = samples.iter().copied().filter(|s| s.done * 10 >= calls).collect();
    if warm.is_empty() {
        println!("memory       too few samples after warm-up ({} in all)", samples.len());
    } else {
        let min = warm.iter().map(|s| s.rss_kb).min().unwrap_or(0);
        let max = warm.iter().map(|s| s.rss_kb).max().unwrap_or(0);
        let spread = (max - min) as f64 * 100.0 / min.max(1) as f64;
        // Single samples swing by a few MB with the 1 MiB answers of the 10 MB fault in flight
        // (the body read, its text, the JSON-RPC message), so flatness is judged on the trend: a
        // least-squares line through the samples, its rise from the first to the last sample as
        // a share of the mean. A leak is a rising line.
        let n = warm.len() as f64;
        let (t, y): (Vec<f64>, Vec<f64>) = warm.iter().map(|s| (s.at.as_secs_f64(), s.rss_kb as f64)).unzip();
        let (tm, ym) = (t.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
        let var: f64 = t.iter().map(|t| (t - tm).powi(2)).sum();
        let slope = if var > 0.0 { t.iter().zip(&y).map(|(t, y)| (t - tm) * (y - ym)).sum::<f64>() / var } else { 0.0 };
        let span = t.last().unwrap_or(&0.0) - t.first().unwrap_or(&0.0);
        let trend = slope * span * 100.0 / ym.max(1.0);
        // A short run (a few samples) cannot tell a trend from the swing: not judged.
        let judged = warm.len() >= 30;
        let flat = !judged || trend.abs() <= 10.0;
        // The curve: the median of each quarter of the samples.
        let quarters: Vec<String> = (0..4)
            .filter_map(|q| {
                let mut w: Vec<&Sample> = warm[warm.len() * q / 4..warm.len() * (q + 1) / 4].iter().collect();
                let at = w.first()?.at;
                w.sort_by_key(|s| s.rss_kb);
                Some(format!("from {:.0} s {:.1}", at.as_secs_f64(), w[w.len() / 2].rss_kb as f64 / 1024.0))
            })
            .collect();
        let mb = |kb: u64| kb as f64 / 1024.0;
        println!(
            "RSS          {} samples after warm-up (first 10 % of calls excluded): min {:.1} MB, max {:.1} MB ({spread:.1} % apart), mean {:.1} MB",
            warm.len(),
            mb(min),
            mb(max),
            ym / 1024.0,
        );
        println!(
            "             trend {:+.1} MB over {span:.0} s ({trend:+.1} %) -> {}; medians by quarter: {} MB",
            slope * span / 1024.0,
            match (judged, flat) {
                (false, _) => "too few samples to judge",
                (true, true) => "flat within 10 %",
                (true, false) => "NOT flat",
            },
            quarters.join(", ")
        );
        if !flat {
            problems.push(format!("RSS trend {trend:+.1} % after warm-up"));
        }
        let fmin = warm.iter().map(|s| s.fds).min().unwrap_or(0);
        let fmax = warm.iter().map(|s| s.fds).max().unwrap_or(0);
        let all_max = samples.iter().map(|s| s.fds).max().unwrap_or(0);
        // Bounded: the listener, the watcher and a few files, one socket per MCP client and
        // connections to the upstream (at most the client count plus idle ones kept in the pool).
        let bound = 3 * clients + 32;
        let last = warm.last().map_or(0, |s| s.fds);
        println!(
            "fds          after warm-up min {fmin}, max {fmax} (whole run max {all_max}); at the end {last}; bound {bound}"
        );
        if fmax > bound {
            problems.push(format!("{fmax} open fds, more than {bound}"));
        }
    }
    println!("             idle: {fds_before} fds before the calls, {fds_after} after");
    if fds_after > fds_before + clients {
        problems.push(format!("{fds_after} fds open after the calls, {fds_before} before"));
    }
    println!(
        "server log   {} lines, {} with \"panicked\"; {} ERROR or WARN lines; {}",
        log.lines,
        log.panics.len(),
        log.warnings,
        if stopped_cleanly {
            "alive at the end, stopped cleanly on SIGTERM".to_string()
        } else {
            format!("alive at the end: {alive}, exit {exit:?}")
        }
    );
    for l in log.panics.iter().take(5) {
        println!("             {}", excerpt(l));
    }
    for l in log.errors.iter().take(5) {
        println!("             {}", excerpt(l));
    }
    if !log.panics.is_empty() {
        problems.push(format!("{} panics in the server's log", log.panics.len()));
    }
    if !stopped_cleanly {
        problems.push("the server was not alive at the end, or did not stop cleanly".into());
    }

    if !tally.examples.is_empty() {
        println!("\nfailed calls (first {}):", tally.examples.len());
        for (rid, fault, what) in &tally.examples {
            println!("  r{rid} {:?} {}: {what}", op_of(*rid), fault.name());
        }
    }
    if problems.is_empty() {
        println!("\nPASS");
    } else {
        println!("\nFAIL: {}", problems.join("; "));
        std::process::exit(1);
    }
}
