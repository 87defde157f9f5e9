//! The floor of our HTTP stack: a tokio + hyper proxy that does the least an MCP server must do, so
//! `throughput.sh` can measure what any server built on this stack gets on the machine.
//!
//! It takes mcpgen's command line (`serve SPEC --transport http --bind ADDR`), so the shared script
//! runs it as it runs mcpgen:
//!
//! ```text
//! cargo build --release --example bare_proxy
//! bash ../shared/bench/throughput.sh target/release/examples/bare_proxy 8 32
//! ```
//!
//! Each POST is answered by one GET to the spec's first server and first path, with `{id}` taken
//! from the request's `arguments`, and the upstream body returned as a `tools/call` result. No
//! session, validation, auth, limits or retries. `BARE_CLIENT=reqwest` sends upstream with reqwest
//! instead of hyper's own pooled client; `BARE_JSON=0` parses no JSON at all: the upstream body is
//! spliced into a fixed reply. `BARE_THREADS=N` serves on N threads, each with its own
//! current-thread runtime, listener (`SO_REUSEPORT`) and upstream pool, instead of one
//! work-stealing runtime. `docs/performance.md` has the figures.

use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioIo};
use serde_json::{Value, json};

/// How the proxy reaches the upstream and how much JSON it handles.
struct Proxy {
    upstream: String,
    hyper: Client<HttpConnector, Full<Bytes>>,
    reqwest: Option<reqwest::Client>,
    json: bool,
}

impl Proxy {
    async fn answer(&self, body: Bytes) -> Result<Vec<u8>, String> {
        let (id, url) = if self.json {
            let call: Value = serde_json::from_slice(&body).map_err(|e| e.to_string())?;
            let arg = match &call["params"]["arguments"]["id"] {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            (call["id"].clone(), self.upstream.replace("{id}", &arg))
        } else {
            (json!(1), self.upstream.replace("{id}", "1"))
        };
        let upstream_body = match &self.reqwest {
            Some(client) => {
                let resp = client.get(&url).send().await.map_err(|e| e.to_string())?;
                resp.bytes().await.map_err(|e| e.to_string())?
            }
            None => {
                let uri = url.parse().map_err(|e: hyper::http::uri::InvalidUri| e.to_string())?;
                let resp = self.hyper.get(uri).await.map_err(|e| e.to_string())?;
                resp.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes()
            }
        };
        if !self.json {
            // Spliced, not encoded: the upstream body goes out as the structured content unread.
            let mut out = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"structuredContent":"#.to_vec();
            out.extend_from_slice(&upstream_body);
            out.extend_from_slice(br#","isError":false}}"#);
            return Ok(out);
        }
        let text = String::from_utf8_lossy(&upstream_body);
        let structured: Value = serde_json::from_slice(&upstream_body).unwrap_or(Value::Null);
        let result =
            json!({"content": [{"type": "text", "text": text}], "structuredContent": structured, "isError": false});
        serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).map_err(|e| e.to_string())
    }
}

/// The spec's first server URL joined with its first path.
fn upstream_of(spec: &Value) -> Option<String> {
    let server = spec["servers"][0]["url"].as_str()?.trim_end_matches('/');
    let path = spec["paths"].as_object()?.keys().next()?;
    Some(format!("{server}{path}"))
}

fn usage() -> ! {
    eprintln!("usage: bare_proxy serve SPEC --transport http --bind ADDR");
    std::process::exit(2)
}

fn main() {
    let threads: usize = std::env::var("BARE_THREADS").ok().and_then(|n| n.parse().ok()).unwrap_or(0);
    if threads == 0 {
        let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
        rt.block_on(run());
        return;
    }
    // Thread per core: each thread its own current-thread runtime, its own SO_REUSEPORT listener and
    // its own upstream pool, so no task ever moves between threads.
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            std::thread::spawn(|| {
                let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
                rt.block_on(run());
            })
        })
        .collect();
    for h in handles {
        let _ = h.join();
    }
}

async fn run() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(spec_path), Some(bind)) =
        (args.get(2), args.iter().position(|a| a == "--bind").and_then(|i| args.get(i + 1)))
    else {
        usage()
    };
    let spec: Value =
        std::fs::read(spec_path).ok().and_then(|bytes| serde_json::from_slice(&bytes).ok()).unwrap_or_else(|| usage());
    let Some(upstream) = upstream_of(&spec) else { usage() };
    let Ok(addr) = bind.parse::<SocketAddr>() else { usage() };
    // reqwest is built without a default crypto provider; mcpgen installs ring the same way.
    mcpgen::runtime::install_crypto_provider();
    let proxy = Arc::new(Proxy {
        upstream,
        hyper: Client::builder(TokioExecutor::new()).build_http(),
        reqwest: (std::env::var("BARE_CLIENT").as_deref() == Ok("reqwest")).then(reqwest::Client::new),
        json: std::env::var("BARE_JSON").as_deref() != Ok("0"),
    });
    let bound = tokio::net::TcpSocket::new_v4().and_then(|socket| {
        socket.set_reuseaddr(true)?;
        socket.set_reuseport(true)?;
        socket.bind(addr)?;
        socket.listen(1024)
    });
    let listener = match bound {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!("bind {addr}: {e}");
            std::process::exit(1)
        }
    };
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let _ = stream.set_nodelay(true);
        let proxy = proxy.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<hyper::body::Incoming>| {
                let proxy = proxy.clone();
                async move {
                    let body = req.into_body().collect().await?.to_bytes();
                    let (status, out) = match proxy.answer(body).await {
                        Ok(out) => (200, out),
                        Err(e) => (502, e.into_bytes()),
                    };
                    let resp = Response::builder().status(status).header("content-type", "application/json");
                    Ok::<_, hyper::Error>(resp.body(Full::new(Bytes::from(out))).unwrap_or_default())
                }
            });
            let _ = http1::Builder::new().serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
