//! Test harness: a recording mock upstream (axum on 127.0.0.1) and launchers that run an MCP
//! server command (mcpgen serve, or a generated crate's binary) over stdio or Streamable HTTP,
//! driven by the official Rust SDK client.
#![allow(dead_code)]

pub mod checks;
pub mod nginx;
pub mod redis;
pub mod results;
pub mod watching;

use std::collections::BTreeMap;
use std::io::BufRead;
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, Uri};
use axum::response::Response;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{Value, json};

/// One request as the upstream received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: Option<String>,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// What the mock answers next (then it goes back to echoing).
#[derive(Debug, Clone)]
pub enum Reply {
    /// `{"ok": true, "method", "path"}`, 200.
    Echo,
    Json(u16, Value),
    /// JSON with extra headers (a `Link`, say).
    JsonWith(u16, Value, Vec<(&'static str, String)>),
    Raw(u16, &'static str, Vec<u8>),
    /// Headers at once, then nothing for this long.
    Slow(Duration),
    /// Declares a long body, sends a little, then drops the connection.
    ResetMidBody,
    /// Sends the body in chunks with pauses (a slow but complete body).
    Trickle(usize, Duration),
    /// A body of this many bytes of JSON.
    Huge(usize),
    /// 302 to this location.
    Redirect(String),
    /// `chunks` pieces of `size` bytes, one per pause, with their `Content-Length`; a body the
    /// client stops reading before its end is counted ([`Mock::aborted`]).
    Stream(usize, usize, Duration),
}

#[derive(Default)]
struct MockState {
    requests: Vec<Recorded>,
    next: Option<Reply>,
    tokens_issued: usize,
    aborted: usize,
    /// Standing replies by method and path (after `next`).
    routes: BTreeMap<(String, String), (u16, Value)>,
}

#[derive(Clone)]
pub struct Mock {
    pub addr: SocketAddr,
    state: Arc<Mutex<MockState>>,
}

impl Mock {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().requests.clone()
    }
    /// The last request to a path other than the token endpoint.
    pub fn last(&self) -> Recorded {
        self.requests().into_iter().rev().find(|r| r.path != "/oauth/token").expect("a request reached the upstream")
    }
    pub fn clear(&self) {
        self.state.lock().unwrap().requests.clear();
    }
    pub fn reply_next(&self, reply: Reply) {
        self.state.lock().unwrap().next = Some(reply);
    }
    /// Answers every `method path` with this JSON from now on (a reply set by
    /// [`Mock::reply_next`] goes first).
    pub fn route(&self, method: &str, path: &str, status: u16, body: Value) {
        self.state.lock().unwrap().routes.insert((method.to_string(), path.to_string()), (status, body));
    }
    pub fn tokens_issued(&self) -> usize {
        self.state.lock().unwrap().tokens_issued
    }
    /// How many [`Reply::Stream`] bodies the client stopped reading (closed the connection).
    pub fn aborted(&self) -> usize {
        self.state.lock().unwrap().aborted
    }
}

/// Counts a streamed body dropped before its end.
struct EndGuard {
    state: Arc<Mutex<MockState>>,
    done: bool,
}

impl Drop for EndGuard {
    fn drop(&mut self) {
        if !self.done {
            self.state.lock().unwrap().aborted += 1;
        }
    }
}

pub async fn start_mock() -> Mock {
    // Tests talk to servers with reqwest too: its TLS provider must be chosen first.
    mcpgen::runtime::install_crypto_provider();
    let state = Arc::new(Mutex::new(MockState::default()));
    let app = axum::Router::new().fallback(handle).with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Mock { addr, state }
}

async fn handle(
    State(state): State<Arc<Mutex<MockState>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let rec = Recorded {
        method: method.to_string(),
        path: uri.path().to_string(),
        query: uri.query().map(str::to_string),
        headers,
        body,
    };
    let reply = {
        let mut s = state.lock().unwrap();
        s.requests.push(rec.clone());
        if rec.path == "/oauth/token" {
            s.tokens_issued += 1;
            let n = s.tokens_issued;
            return json_response(
                200,
                json!({"access_token": format!("tok-{n}"), "token_type": "Bearer", "expires_in": 3600}),
            );
        }
        let routed = s.routes.get(&(rec.method.clone(), rec.path.clone())).map(|(st, v)| Reply::Json(*st, v.clone()));
        s.next.take().or(routed).unwrap_or(Reply::Echo)
    };
    match reply {
        Reply::Echo => json_response(200, json!({"ok": true, "method": rec.method, "path": rec.path})),
        Reply::Json(status, v) => json_response(status, v),
        Reply::JsonWith(status, v, headers) => {
            let mut r = json_response(status, v);
            for (k, v) in headers {
                r.headers_mut().insert(k, v.parse().unwrap());
            }
            r
        }
        Reply::Raw(status, ct, bytes) => {
            Response::builder().status(status).header("content-type", ct).body(Body::from(bytes)).unwrap()
        }
        Reply::Slow(d) => {
            tokio::time::sleep(d).await;
            json_response(200, json!({"late": true}))
        }
        Reply::ResetMidBody => reset_mid_body(),
        Reply::Trickle(chunks, pause) => trickle(chunks, pause),
        Reply::Stream(chunks, size, pause) => stream_of_spaces(&state, chunks, size, pause),
        Reply::Redirect(to) => Response::builder().status(302).header("location", to).body(Body::empty()).unwrap(),
        Reply::Huge(n) => {
            let mut body = Vec::with_capacity(n);
            body.extend_from_slice(b"{\"data\": \"");
            body.resize(n - 2, b'x');
            body.extend_from_slice(b"\"}");
            Response::builder().status(200).header("content-type", "application/json").body(Body::from(body)).unwrap()
        }
    }
}

/// A JSON body that breaks off: the first chunk is flushed, then the connection breaks.
fn reset_mid_body() -> Response {
    let stream = futures::stream::unfold(0, |i| async move {
        match i {
            0 => Some((Ok::<_, std::io::Error>(Bytes::from_static(b"{\"partial\": ")), 1)),
            1 => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                Some((Err(std::io::Error::other("reset")), 2))
            }
            _ => None,
        }
    });
    Response::builder()
        .status(200)
        .header("content-type", "application/json")
        .header("content-length", "1000")
        .body(Body::from_stream(stream))
        .unwrap()
}

/// A JSON array of `chunks` pieces, one every `pause`.
fn trickle(chunks: usize, pause: Duration) -> Response {
    let stream = futures::stream::unfold(0usize, move |i| async move {
        if i > chunks {
            return None;
        }
        tokio::time::sleep(pause).await;
        let piece = if i == 0 {
            "[".to_string()
        } else if i == chunks {
            "0]".to_string()
        } else {
            format!("{i},")
        };
        Some((Ok::<_, std::io::Error>(Bytes::from(piece)), i + 1))
    });
    Response::builder().status(200).header("content-type", "application/json").body(Body::from_stream(stream)).unwrap()
}

/// `chunks` chunks of `size` spaces, one every `pause`; a body dropped before its end is counted.
fn stream_of_spaces(state: &Arc<Mutex<MockState>>, chunks: usize, size: usize, pause: Duration) -> Response {
    let guard = EndGuard { state: state.clone(), done: false };
    let stream = futures::stream::unfold((0usize, guard), move |(i, mut guard)| async move {
        if i == chunks {
            guard.done = true;
            drop(guard);
            return None;
        }
        tokio::time::sleep(pause).await;
        Some((Ok::<_, std::io::Error>(Bytes::from(vec![b' '; size])), (i + 1, guard)))
    });
    Response::builder()
        .status(200)
        .header("content-type", "text/plain")
        .header("content-length", (chunks * size).to_string())
        .body(Body::from_stream(stream))
        .unwrap()
}

fn json_response(status: u16, v: Value) -> Response {
    Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(Body::from(v.to_string()))
        .unwrap()
}

/// A file of the corpus of real API descriptions (`../shared/corpus/fetch.sh`, in `$MCPGEN_CORPUS`
/// or `~/.cache/mcpgen-corpus`), by its path under `node_modules`; `None` with a message when it
/// is not there, so that the test can skip.
pub fn corpus_file(rel: &str) -> Option<std::path::PathBuf> {
    let root = std::env::var_os("MCPGEN_CORPUS").map(std::path::PathBuf::from).unwrap_or_else(|| {
        std::path::PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus")
    });
    let path = root.join("node_modules").join(rel);
    if path.exists() {
        return Some(path);
    }
    eprintln!("skipped: {} not found (../shared/corpus/fetch.sh)", path.display());
    None
}

/// `found`, or `None` after a "skipped: {missing}" message; a test of something a developer may
/// not have installed passes without it. Unless `require_var` is set (CI), which makes it fail.
pub fn found_or_skip<T>(found: Option<T>, require_var: &str, missing: &str) -> Option<T> {
    if found.is_none() {
        assert!(std::env::var_os(require_var).is_none(), "{require_var} is set, but {missing}");
        eprintln!("skipped: {missing}");
    }
    found
}

/// The tests' search model directory (`MCPGEN_TEST_SEARCH_MODEL`, from
/// scripts/fetch-search-model.sh); `None` skips with a message, unless
/// `MCPGEN_REQUIRE_SEARCH_MODEL` is set (CI), which fails.
pub fn search_model_dir() -> Option<std::path::PathBuf> {
    found_or_skip(
        std::env::var_os("MCPGEN_TEST_SEARCH_MODEL").map(std::path::PathBuf::from),
        "MCPGEN_REQUIRE_SEARCH_MODEL",
        "no search model (MCPGEN_TEST_SEARCH_MODEL; scripts/fetch-search-model.sh)",
    )
}

/// GitHub's REST API description in the corpus.
pub const GITHUB: &str = "@octokit/openapi/generated/api.github.com.json";

/// The e2e spec with the mock's address in it, written to a temp file.
pub fn e2e_spec(mock: &Mock) -> tempfile::TempPath {
    fixture_spec("e2e.yaml", mock)
}

/// A fixture of tests/fixtures with the mock's address for `MOCK_URL`, written to a temp file.
pub fn fixture_spec(name: &str, mock: &Mock) -> tempfile::TempPath {
    let text = std::fs::read_to_string(format!("tests/fixtures/{name}")).unwrap().replace("MOCK_URL", &mock.url());
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f.into_temp_path()
}

/// How to start a server: a program and its arguments (a transport flag is appended).
#[derive(Debug, Clone)]
pub struct ServerCommand {
    pub program: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
}

impl ServerCommand {
    pub fn mcpgen(args: &[&str]) -> Self {
        ServerCommand {
            program: env!("CARGO_BIN_EXE_mcpgen").to_string(),
            args: args.iter().map(|s| s.to_string()).collect(),
            env: BTreeMap::new(),
        }
    }
    pub fn env(mut self, k: &str, v: &str) -> Self {
        self.env.insert(k.into(), v.into());
        self
    }
    fn command(&self, extra: &[&str]) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(&self.program);
        c.args(&self.args)
            .args(extra)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .envs(&self.env);
        c.kill_on_drop(true);
        c
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
}

pub const TRANSPORTS: [Transport; 2] = [Transport::Stdio, Transport::Http];

/// A connected client; for HTTP also the server process and its URL.
pub struct Connected {
    pub client: RunningService<RoleClient, ()>,
    pub http: Option<(tokio::process::Child, String)>,
}

impl Connected {
    pub async fn call(&self, name: &str, args: Value) -> CallToolResult {
        let params =
            CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().cloned().unwrap_or_default());
        self.client.call_tool(params).await.unwrap_or_else(|e| panic!("tools/call {name}: {e}"))
    }
    pub async fn try_call(&self, name: &str, args: Value) -> Result<CallToolResult, rmcp::ServiceError> {
        let params =
            CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().cloned().unwrap_or_default());
        self.client.call_tool(params).await
    }
    pub fn url(&self) -> &str {
        &self.http.as_ref().expect("an HTTP server").1
    }
    /// The names discovery's `search_tools` finds for `query` by its words or meaning; none when
    /// it only has the closest by spelling (`"closest": true`).
    pub async fn found(&self, query: &str) -> Vec<String> {
        let r = self.call("search_tools", serde_json::json!({ "query": query })).await;
        let found = r.structured_content.filter(|s| s["closest"] != true);
        let tools = found.map(|s| s["tools"].clone()).unwrap_or_default();
        tools.as_array().into_iter().flatten().filter_map(|t| t["name"].as_str().map(String::from)).collect()
    }
    /// [`Connected::found`] once the search model has made the tools' vectors (in the
    /// background; words answer meanwhile, here with only the closest by spelling), within two
    /// minutes.
    pub async fn found_by_meaning(&self, query: &str) -> Vec<String> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
        let mut names = self.found(query).await;
        while names.is_empty() && std::time::Instant::now() < deadline {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            names = self.found(query).await;
        }
        names
    }
}

pub async fn connect(cmd: &ServerCommand, transport: Transport) -> Connected {
    mcpgen::runtime::install_crypto_provider();
    match transport {
        Transport::Stdio => {
            let mut c = cmd.command(&["--transport", "stdio"]);
            c.stderr(Stdio::null());
            let child = rmcp::transport::TokioChildProcess::new(c).expect("spawn stdio server");
            let client = ().serve(child).await.expect("initialize over stdio");
            Connected { client, http: None }
        }
        Transport::Http => {
            let (child, url) = spawn_http(cmd, &[]).await;
            let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
            let client = ().serve(transport).await.expect("initialize over HTTP");
            Connected { client, http: Some((child, url)) }
        }
    }
}

/// An MCP client of the Streamable HTTP endpoint at `url` (`/mcp` or a sibling path).
pub async fn connect_url(url: &str) -> RunningService<RoleClient, ()> {
    mcpgen::runtime::install_crypto_provider();
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.to_string());
    ().serve(transport).await.unwrap_or_else(|e| panic!("initialize at {url}: {e}"))
}

/// The names of `tools`, in order.
pub fn tool_names(tools: &[rmcp::model::Tool]) -> Vec<String> {
    tools.iter().map(|t| t.name.to_string()).collect()
}

/// Starts an HTTP server on a free port and returns it with its `/mcp` URL (read from its log).
pub async fn spawn_http(cmd: &ServerCommand, extra: &[&str]) -> (tokio::process::Child, String) {
    let (child, url, _) = spawn_http_logged(cmd, extra).await;
    (child, url)
}

/// The lines a server wrote to stderr so far.
pub type Logs = Arc<Mutex<Vec<String>>>;

/// Like [`spawn_http`], also keeping what the server writes to stderr.
pub async fn spawn_http_logged(cmd: &ServerCommand, extra: &[&str]) -> (tokio::process::Child, String, Logs) {
    let mut args = vec!["--transport", "http", "--bind", "127.0.0.1:0"];
    args.extend_from_slice(extra);
    let mut c = cmd.command(&args);
    c.stderr(Stdio::piped()).stdout(Stdio::null());
    if !cmd.env.contains_key("MCPGEN_LOG") {
        c.env("MCPGEN_LOG", "info");
    }
    let mut child = c.spawn().expect("spawn http server");
    let logs = read_lines(child.stderr.take().unwrap().into_owned_fd().unwrap());
    let url = wait_for_url(&logs, "/mcp").await;
    (child, url, logs)
}

/// Keeps the lines read from `fd` (a child's stderr), on a thread of their own.
pub fn read_lines(fd: std::os::fd::OwnedFd) -> Logs {
    let logs = Logs::default();
    let kept = logs.clone();
    std::thread::spawn(move || {
        let reader = std::io::BufReader::new(std::fs::File::from(fd));
        for line in reader.lines().map_while(Result::ok) {
            kept.lock().unwrap().push(line);
        }
    });
    logs
}

/// The first `http://` URL ending in `suffix` that the logs name (within 30 s).
pub async fn wait_for_url(logs: &Logs, suffix: &str) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let found = logs.lock().unwrap().iter().find_map(|line| {
            let i = line.find("http://")?;
            let url = line[i..].split(|c: char| c.is_whitespace() || c == '"').next().unwrap_or("");
            url.ends_with(suffix).then(|| url.to_string())
        });
        if let Some(url) = found {
            return url;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the server reported no {suffix} URL: {:?}",
            logs.lock().unwrap()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The text of a result's first content block.
pub fn text(r: &CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}
