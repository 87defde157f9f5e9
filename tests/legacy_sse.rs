//! `--legacy-sse`: the 2024-11-05 HTTP+SSE transport, driven by the official Python SDK's
//! `sse_client` (installed by .ci/run; skipped with a message where `python3 -c "import mcp"`
//! fails).

use crate::common;

use common::*;

fn python_sdk() -> bool {
    let ok = std::process::Command::new("python3")
        .args(["-c", "import mcp.client.sse"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: the Python MCP SDK is not installed (pip install mcp)");
    }
    ok
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sse_client_calls_a_tool() {
    if !python_sdk() {
        return;
    }
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &format!("{}/api", mock.url())])
        .env("E2E_TEST_API_HEADER_KEY", "hk");
    let (_child, url) = spawn_http(&cmd, &["--legacy-sse"]).await;
    let sse = url.replace("/mcp", "/sse");
    let out = tokio::process::Command::new("python3")
        .args(["tests/python/sse_client.py", &sse, "authHeaderKey"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(seen["server"], "e2e_test_api");
    assert_eq!(seen["tools"].as_array().unwrap().len(), 24);
    assert_eq!(seen["isError"], false, "{seen}");
    let req = mock.last();
    assert_eq!((req.path.as_str(), req.header("x-api-key")), ("/api/auth/header", Some("hk")));

    // A message for a session that does not exist, and one that is not JSON.
    mcpgen::runtime::install_crypto_provider();
    let http = reqwest::Client::new();
    let messages = url.replace("/mcp", "/messages?session_id=nope");
    let r = http
        .post(&messages)
        .header("content-type", "application/json")
        .body(r#"{"jsonrpc":"2.0","method":"ping","id":1}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = http.post(&messages).body("{not json").send().await.unwrap();
    assert_eq!(r.status(), 400);
    // Another site's page cannot open a session.
    let r = http.get(&sse).header("origin", "https://evil.example").send().await.unwrap();
    assert_eq!(r.status(), 403);
}
