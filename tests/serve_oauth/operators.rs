//! What operators meet: contradictory flags refused, tokens kept out of the log, and metrics
//! on their own listener.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::common::*;
use crate::idp::*;
use crate::server::*;

// Flags and logs

#[test]
fn contradictory_flags_are_refused() {
    let spec = "tests/fixtures/oauth.yaml";
    let cases: [(&[&str], &str); 5] = [
        (
            &["--transport", "http", "--oauth-issuer", "https://idp.example.com", "--auth-token", "t"],
            "exclude each other",
        ),
        (&["--transport", "stdio", "--oauth-issuer", "https://idp.example.com"], "needs --transport http"),
        (&["--transport", "http", "--upstream-auth", "passthrough"], "needs --oauth-issuer"),
        (&["--transport", "http", "--oauth-audience", "x"], "need --oauth-issuer"),
        (&["--transport", "http", "--oauth-issuer", "http://idp.example.com"], "must be an https URL"),
    ];
    for (args, says) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["serve", spec, "--base-url", "http://127.0.0.1:9", "--bind", "127.0.0.1:0"])
            .args(args)
            .env_remove("MCPGEN_AUTH_TOKEN")
            .env_remove("MCPGEN_OAUTH_ISSUER")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_never_reach_the_log() {
    use tokio::io::AsyncBufReadExt;
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let mock = start_mock().await;
    let spec = fixture_spec("oauth.yaml", &mock);
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", spec.to_str().unwrap(), "--transport", "http", "--bind", "127.0.0.1:0"])
        .args(["--oauth-issuer", &idp.url, "--upstream-auth", "passthrough"])
        .env("MCPGEN_LOG", "trace")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
        if let Some(i) = line.find("http://").filter(|_| line.contains("serving")) {
            break line[i..].split_whitespace().next().unwrap().to_string();
        }
    };
    let log = Arc::new(Mutex::new(String::new()));
    let sink = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            sink.lock().unwrap().push_str(&line);
        }
    });
    let server = Server { _child: None, url, mock, _spec: spec };
    let good = key.token(&claims(&idp, &server.url, "pets:read"));
    let mut expired = claims(&idp, &server.url, "pets:read");
    expired["exp"] = json!(now() - 3600);
    let bad = key.token(&expired);
    server.post(Some(&bad), INIT).await;
    server.post(Some(&good), &call("createPet", json!({}))).await;
    let client = server.client(&good).await;
    let params = rmcp::model::CallToolRequestParams::new("listPets").with_arguments(Default::default());
    client.call_tool(params).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = log.lock().unwrap().clone();
    assert!(log.contains("refused"), "the refusals are logged: {log}");
    for t in [&good, &bad] {
        let signature = t.rsplit('.').next().unwrap();
        assert!(!log.contains(signature), "a token in the log");
    }
    drop(child);
}

// Metrics under OAuth

/// No token a scraper could hold: /metrics is not on /mcp's listener, only on --metrics-bind,
/// where a call refused for its scopes counts as `forbidden`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_forbidden_calls_on_their_own_listener() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let mock = start_mock().await;
    let spec = fixture_spec("oauth.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--oauth-issuer", &idp.url])
        .env("SCOPED_PETS_KEY", "server-key");
    let (_child, url, logs) = spawn_http_logged(&cmd, &["--metrics-bind", "127.0.0.1:0"]).await;
    let metrics = wait_for_url(&logs, "/metrics").await;
    let origin = url.trim_end_matches("/mcp");
    let on_mcp_listener = reqwest::get(format!("{origin}/metrics")).await.unwrap();
    assert_eq!(on_mcp_listener.status(), 404, "/metrics is not served beside /mcp under OAuth");

    let reader = key.token(&claims(&idp, &url, "pets:read"));
    let r = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .header("authorization", format!("Bearer {reader}"))
        .body(call("createPet", json!({"name": "Rex"})))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let text = reqwest::get(&metrics).await.unwrap().text().await.unwrap();
    assert!(text.lines().any(|l| l == r#"mcpgen_tool_calls_total{tool="createPet",outcome="forbidden"} 1"#), "{text}");
    assert!(mock.requests().is_empty());
}
