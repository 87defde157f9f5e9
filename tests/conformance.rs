//! The official MCP conformance suite (`@modelcontextprotocol/conformance`) against `mcpgen serve
//! --transport http`, for the 2026-07-28 and 2025-11-25 requirement sets, with a baseline of
//! expected failures (`tests/conformance/baseline-*.yaml`, each with its reason).
//!
//! The server serves `tests/conformance/fixture.yaml` with `--resources --resource-scheme test
//! --confirm destructive --watch` (so `subscriptions/listen` is offered)
//! over a small upstream started here, whose responses make mcpgen's ordinary mapping produce
//! what the scenarios expect of their fixed tools and resources.
//!
//! The suite runs on Node 24: `MCPGEN_CONFORMANCE_NODE` is the `node` binary and
//! `MCPGEN_CONFORMANCE_DIR` the installed package's directory
//! (`.../node_modules/@modelcontextprotocol/conformance`); `.ci/run` installs both. Without them
//! the test says so and passes, unless `MCPGEN_REQUIRE_CONFORMANCE=1` (set by `.ci/run`).
//! The suite itself fails the run on a failure the baseline does not name, and on a baselined
//! scenario that now passes (the baseline must shrink).

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use axum::extract::Path as UrlPath;
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::IntoResponse;
use axum::routing::get;
use base64::Engine as _;
use common::{ServerCommand, found_or_skip, spawn_http};

struct Suite {
    node: PathBuf,
    package: PathBuf,
}

fn suite() -> Option<Suite> {
    let var = |name: &str| std::env::var_os(name).map(PathBuf::from).filter(|p| p.exists());
    let found = var("MCPGEN_CONFORMANCE_NODE")
        .zip(var("MCPGEN_CONFORMANCE_DIR"))
        .map(|(node, package)| Suite { node, package })
        .filter(|s| s.package.join("dist/index.js").exists());
    found_or_skip(
        found,
        "MCPGEN_REQUIRE_CONFORMANCE",
        "the MCP conformance suite is not installed (set MCPGEN_CONFORMANCE_NODE to a Node 24 binary and \
         MCPGEN_CONFORMANCE_DIR to node_modules/@modelcontextprotocol/conformance; see .ci/run)",
    )
}

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

fn png() -> Vec<u8> {
    base64::engine::general_purpose::STANDARD.decode(PNG).expect("the PNG constant")
}

/// A WAV of 8 silent 8-bit mono samples at 8 kHz.
fn wav() -> Vec<u8> {
    let samples = [128u8; 8];
    let mut w = Vec::new();
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + samples.len() as u32).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes());
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&8000u32.to_le_bytes());
    w.extend_from_slice(&8000u32.to_le_bytes()); // bytes per second
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&(samples.len() as u32).to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

/// Bytes that are not UTF-8, as a PDF starts (its second line marks it binary).
const PDF: &[u8] = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n";

fn multipart() -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(b"--part\r\nContent-Type: text/plain\r\n\r\nMultiple content types test:\r\n");
    body.extend_from_slice(b"--part\r\nContent-Type: image/png\r\n\r\n");
    body.extend_from_slice(&png());
    body.extend_from_slice(
        b"\r\n--part\r\nContent-Type: application/json\r\nContent-Disposition: attachment; filename=\"data.json\"\r\n\r\n\
          {\"test\":\"data\",\"value\":123}\r\n--part--\r\n",
    );
    body
}

/// A body of 6 chunks of 100 bytes, one each 250 ms, with its length (mcpgen reports the bytes).
fn slow_report() -> axum::response::Response {
    let stream = futures::stream::unfold(0, |i| async move {
        if i == 6 {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
        Some((Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b'.'; 100])), i + 1))
    });
    axum::response::Response::builder()
        .header(CONTENT_TYPE, "text/plain")
        .header(axum::http::header::CONTENT_LENGTH, "600")
        .body(axum::body::Body::from_stream(stream))
        .unwrap_or_default()
}

/// The fixture API's upstream; its base URL.
async fn start_upstream() -> String {
    let app = axum::Router::new()
        .route("/test_simple_text", get(|| async { "This is a simple text response for testing." }))
        .route("/test_image_content", get(|| async { ([(CONTENT_TYPE, "image/png")], png()) }))
        .route("/test_audio_content", get(|| async { ([(CONTENT_TYPE, "audio/wav")], wav()) }))
        .route(
            "/test_embedded_resource",
            get(|| async {
                ([(CONTENT_TYPE, "application/pdf"), (CONTENT_DISPOSITION, "inline; filename=\"doc.pdf\"")], PDF)
            }),
        )
        .route(
            "/test_multiple_content_types",
            get(|| async { ([(CONTENT_TYPE, "multipart/mixed; boundary=part")], multipart()) }),
        )
        .route(
            "/test_error_handling",
            get(|| async {
                let body =
                    axum::Json(serde_json::json!({"error": "This tool intentionally returns an error for testing"}));
                (axum::http::StatusCode::INTERNAL_SERVER_ERROR, body).into_response()
            }),
        )
        .route("/test_tool_with_progress", get(|| async { slow_report() }))
        // Reached only once the user confirmed (the request-state scenario looks for "state-ok").
        .route(
            "/confirmed/{name}",
            axum::routing::delete(|UrlPath(name): UrlPath<String>| async move { format!("state-ok: {name} done") }),
        )
        .route("/static-text", get(|| async { "This is the content of the static text resource." }))
        .route("/static-binary", get(|| async { ([(CONTENT_TYPE, "image/png")], png()) }))
        .route(
            "/template/{id}/data",
            get(|UrlPath(id): UrlPath<String>| async move {
                axum::Json(serde_json::json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the fixture upstream");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")
}

/// Runs the suite's `requirements` set against the fixture server with its baseline; fails with
/// the suite's report when it exits non-zero.
async fn run_suite(requirements: &str) {
    let Some(suite) = suite() else { return };
    let upstream = start_upstream().await;
    let fixture = fixture_dir().join("fixture.yaml");
    let cmd = ServerCommand::mcpgen(&["serve", fixture.to_str().expect("a UTF-8 path")]);
    let (_server, url) = spawn_http(
        &cmd,
        &["--base-url", &upstream, "--resources", "--resource-scheme", "test", "--confirm", "destructive", "--watch"],
    )
    .await;
    // Kept after the run: each scenario's checks.json tells what failed and why.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("conformance-{requirements}"));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("a results directory");
    let baseline = fixture_dir().join(format!("baseline-{requirements}.yaml"));
    let run = tokio::process::Command::new(&suite.node)
        .arg(suite.package.join("dist/index.js"))
        .args(["server", "--url", &url, "--requirements", requirements, "--expected-failures"])
        .arg(&baseline)
        .arg("-o")
        .arg(&out)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(240), run)
        .await
        .expect("the suite finished within 4 minutes")
        .expect("the suite ran");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    // The score, for the log (docs/serving.md quotes it).
    let summary = stdout.find("=== SUMMARY ===").map_or("", |i| &stdout[i..]);
    eprintln!("conformance {requirements} (checks in {}):\n{summary}", out.display());
    assert!(
        output.status.success(),
        "the conformance suite ({requirements}) failed: a failure the baseline does not name, or a baselined \
         scenario that now passes (remove it from {}).\n{stdout}\n{stderr}",
        baseline.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suite_2026_07_28_fails_only_what_the_baseline_names() {
    run_suite("2026-07-28").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn suite_2025_11_25_fails_only_what_the_baseline_names() {
    run_suite("2025-11-25").await;
}
