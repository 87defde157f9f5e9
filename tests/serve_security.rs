//! The MCP side under attack or misuse: malformed JSON-RPC, unknown methods, wrong Origin or Host,
//! missing or wrong bearer token. The server answers each correctly and keeps serving; the
//! client's own credentials never reach the upstream.

use crate::common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_rpc_over_stdio() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", spec.to_str().unwrap(), "--base-url", &mock.url()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut send = async |line: &str| {
        stdin.write_all(line.as_bytes()).await.unwrap();
        stdin.write_all(b"\n").await.unwrap();
    };
    send(INIT).await;
    let init: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(init["id"], 1);
    send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    for garbage in
        ["{not json", "[1,2", r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":"nope"}"#, "\u{0}\u{1}"]
    {
        send(garbage).await;
    }
    send(r#"{"jsonrpc":"2.0","id":8,"method":"no/such/method"}"#).await;
    send(r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"authNone","arguments":{}}}"#).await;
    send(r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#).await;
    // Read until the answers to 8, 9 and 10 have come; errors for the garbage may come too.
    let mut answers = std::collections::BTreeMap::new();
    while answers.len() < 3 {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("server still answers")
            .unwrap()
            .unwrap();
        let v: Value = serde_json::from_str(&line).expect("stdout carries only JSON-RPC");
        if let Some(id) = v["id"].as_i64().filter(|id| [8, 9, 10].contains(id)) {
            answers.insert(id, v);
        }
    }
    assert_eq!(answers[&8]["error"]["code"], -32601, "{}", answers[&8]);
    assert_eq!(answers[&9]["result"]["isError"], false, "{}", answers[&9]);
    assert_eq!(answers[&10]["result"], json!({}));
    drop(stdin);
    let status =
        tokio::time::timeout(Duration::from_secs(10), child.wait()).await.expect("exits when stdin closes").unwrap();
    assert!(status.success(), "{status:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_checks_origin_host_and_token() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &mock.url()])
        .env("MCPGEN_AUTH_TOKEN", "s3cret");
    let (_child, url) = spawn_http(&cmd, &["--allow-origin", "https://app.example.com"]).await;
    let http = reqwest::Client::new();
    let post = |origin: Option<&str>, host: Option<&str>, token: Option<&str>| {
        let mut r = http
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(INIT);
        if let Some(o) = origin {
            r = r.header("origin", o);
        }
        if let Some(h) = host {
            r = r.header("host", h);
        }
        if let Some(t) = token {
            r = r.header("authorization", format!("Bearer {t}"));
        }
        r.send()
    };
    assert_eq!(post(None, None, None).await.unwrap().status(), 401, "no token");
    let wrong = post(None, None, Some("guess")).await.unwrap();
    assert_eq!((wrong.status().as_u16(), wrong.headers()["www-authenticate"].to_str().unwrap()), (401, "Bearer"));
    assert_eq!(post(None, None, Some("s3cret")).await.unwrap().status(), 200, "right token");
    assert_eq!(post(Some("https://evil.example"), None, Some("s3cret")).await.unwrap().status(), 403, "foreign origin");
    assert_eq!(
        post(Some("https://app.example.com"), None, Some("s3cret")).await.unwrap().status(),
        200,
        "allowed origin"
    );
    assert_eq!(
        post(Some("http://localhost:6274"), None, Some("s3cret")).await.unwrap().status(),
        200,
        "local inspector"
    );
    let rebinding = post(None, Some("attacker.example"), Some("s3cret")).await.unwrap().status();
    assert!(rebinding.is_client_error(), "DNS rebinding Host refused: {rebinding}");
    let garbage = http
        .post(&url)
        .header("authorization", "Bearer s3cret")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{oops")
        .send()
        .await
        .unwrap();
    assert!(garbage.status().is_client_error() || garbage.status().is_success(), "{}", garbage.status());
    let health: Value = http.get(url.replace("/mcp", "/health")).send().await.unwrap().json().await.unwrap();
    assert_eq!(health, json!({"status": "ok", "tools": 24}));

    // The client's bearer token for the MCP server is never sent upstream.
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.clone())
            .auth_header("s3cret"),
    );
    let client = rmcp::ServiceExt::serve((), transport).await.expect("initialize with token");
    let params = rmcp::model::CallToolRequestParams::new("authNone").with_arguments(Default::default());
    let r = client.call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(false));
    let up = mock.last();
    assert!(up.header("authorization").is_none(), "{:?}", up.headers);
    assert!(!format!("{:?}", up.headers).contains("s3cret"));
}

/// The MCP paths: `/mcp` and its siblings, as suffixes of its URL.
const MCP_PATHS: [&str; 3] = ["", "/tools", "/discovery"];

/// A POST of `body` to `url` with these headers (and the ones every MCP POST carries).
async fn post_with(url: &str, headers: &[(&str, &str)], body: &str) -> reqwest::Response {
    let mut r = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(body.to_string());
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.send().await.unwrap()
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"authNone","arguments":{}}}"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_origin_is_refused_on_every_mcp_path() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &mock.url()]);
    let (_child, url) = spawn_http(&cmd, &["--allow-origin", "https://app.example.com"]).await;
    for path in MCP_PATHS {
        let url = format!("{url}{path}");
        for body in [INIT, CALL] {
            let evil = post_with(&url, &[("origin", "https://evil.example")], body).await;
            assert_eq!(evil.status(), 403, "{url}: {body}");
            let allowed = post_with(&url, &[("origin", "https://app.example.com")], body).await;
            assert_eq!(allowed.status(), 200, "{url}: {body}");
        }
        let rebinding = post_with(&url, &[("host", "attacker.example")], CALL).await.status();
        assert!(rebinding.is_client_error(), "{url}: DNS rebinding Host refused: {rebinding}");
    }
    // Only the allowed origin's calls reached the API (one for /mcp, /mcp/tools; /mcp/discovery
    // takes only its own tools, and answered that call with an error).
    assert_eq!(mock.requests().len(), 2, "{:?}", mock.requests());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_or_wrong_token_is_refused_on_every_mcp_path() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &mock.url()])
        .env("MCPGEN_AUTH_TOKEN", "s3cret");
    let (_child, url) = spawn_http(&cmd, &[]).await;
    for path in MCP_PATHS {
        let url = format!("{url}{path}");
        for body in [INIT, CALL] {
            assert_eq!(post_with(&url, &[], body).await.status(), 401, "{url}: no token");
            let wrong = post_with(&url, &[("authorization", "Bearer guess")], body).await;
            assert_eq!(wrong.status(), 401, "{url}: wrong token");
        }
        let right = post_with(&url, &[("authorization", "Bearer s3cret")], INIT).await;
        assert_eq!(right.status(), 200, "{url}: right token");
    }
    assert!(mock.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn config_can_be_edited_and_served() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.mcp.yaml");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["config", spec.to_str().unwrap(), "-o", path.to_str().unwrap(), "--include-path", "/auth/*"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // A user renames a tool and changes a description.
    let text = std::fs::read_to_string(&path).unwrap();
    // The schema it follows first, for editors; then the format's version.
    let first_two: Vec<&str> = text.lines().take(2).collect();
    assert_eq!(
        first_two,
        [
            format!("$schema: {}", mcpgen_config::SCHEMA_ID),
            format!("mcpgen_config: {}", mcpgen_config::CONFIG_FORMAT_VERSION)
        ],
        "{}",
        &text[..100]
    );
    assert!(!text.contains("\"hk\"") && text.contains("E2E_TEST_API_HEADER_KEY"), "env var names, never secrets");
    let edited = text
        .replace("name: authNone", "name: public_ping")
        .replace("description: The mock answers", "description: Edited. The mock answers");
    std::fs::write(&path, edited).unwrap();
    let cmd = ServerCommand::mcpgen(&["serve", path.to_str().unwrap(), "--base-url", &format!("{}/api", mock.url())]);
    let c = connect(&cmd, Transport::Stdio).await;
    let names: Vec<String> = c.client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    assert!(names.contains(&"public_ping".to_string()) && names.len() == 8, "{names:?}");
    let r = c.call("public_ping", json!({})).await;
    assert_eq!(r.is_error, Some(false));
    assert_eq!(mock.last().path, "/api/auth/none");
    c.client.cancel().await.unwrap();

    // A broken config is refused with a clear message.
    std::fs::write(&path, "mcpgen_config: 1\ntools: 5\n").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", path.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not a valid mcpgen runtime config"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_server_shuts_down_gracefully_on_sigterm() {
    use std::io::BufRead;
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args([
            "serve",
            spec.to_str().unwrap(),
            "--base-url",
            &mock.url(),
            "--transport",
            "http",
            "--bind",
            "127.0.0.1:0",
        ])
        .env("MCPGEN_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("the server logs its address").unwrap();
        if let Some(i) = line.find("http://") {
            break line[i..].split_whitespace().next().unwrap().to_string();
        }
    };
    let health = reqwest::get(url.replace("/mcp", "/health")).await.unwrap();
    assert_eq!(health.status(), 200);
    let pid = child.id().to_string();
    let sent = std::time::Instant::now();
    assert!(std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
    let status = tokio::task::spawn_blocking(move || child.wait()).await.unwrap().unwrap();
    let took = sent.elapsed();
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_millis(500), "an idle server exits within half a second: {took:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l.contains("shutting down")), "{rest:?}");
}

/// What is not a Streamable HTTP client gets an answer it can use.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_endpoint_manners() {
    let mock = start_mock().await;
    let spec = e2e_spec(&mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--base-url", &mock.url()]);
    let (_child, url) = spawn_http(&cmd, &[]).await;
    let http = reqwest::Client::new();
    let page = http.get(&url).header("accept", "text/html,application/xhtml+xml").send().await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(
        html.contains("E2E Test API") && html.contains("24 tools") && html.contains("claude mcp add --transport http"),
        "{html}"
    );

    let bad = http
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let body: Value = bad.json().await.unwrap();
    assert_eq!(body["error"]["code"], -32700, "{body}");
    let plain = http.post(&url).header("content-type", "text/plain").body("hello").send().await.unwrap();
    assert_eq!(plain.status(), 400);

    for (path, accept, status) in [("/mcp", "text/event-stream", 405), ("/sse", "text/event-stream", 404)] {
        let r = http.get(url.replace("/mcp", path)).header("accept", accept).send().await.unwrap();
        assert_eq!(r.status(), status, "{path}");
        let text = r.text().await.unwrap();
        assert!(text.contains("Streamable HTTP") && text.contains("--legacy-sse"), "{text}");
    }
}

/// A parameter declared where a security scheme's credential goes (the tenant header of a CRM,
/// an API key in the query, a session cookie) is that credential: no argument of the tool, and
/// the upstream gets the operator's value whatever the model sends. Over stdio and HTTP.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_parameter_is_never_the_models() {
    let mock = start_mock().await;
    let spec = fixture_spec("tenant-header.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()])
        .env("TENANT_TEST_CONSUMER_ID", "tenant-a")
        .env("TENANT_TEST_API_KEY", "key-a")
        .env("TENANT_TEST_SESSION", "session-a");
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let tools = c.client.list_all_tools().await.unwrap();
        let schema = serde_json::to_value(&tools[0].input_schema).unwrap();
        let args: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(args, ["_jq", "filter", "status"], "{transport:?}: {schema}");
        assert!(schema.get("required").is_none(), "{transport:?}: {schema}");
        mock.clear();
        // What a model tries anyway, under each spelling of the names.
        let sneaky = json!({
            "X-APIDECK-CONSUMER-ID": "tenant-b",
            "x_apideck_consumer_id": "tenant-b",
            "api_key": "key-b",
            "session": "session-b",
            "filter": "x",
        });
        let refused = c.call("contactsAll", sneaky).await;
        assert_eq!(refused.is_error, Some(true), "{transport:?}: the credentials are no arguments");
        assert!(text(&refused).contains("unknown argument `X-APIDECK-CONSUMER-ID`"), "{}", text(&refused));
        for r in mock.requests() {
            assert_eq!(r.header("x-apideck-consumer-id"), Some("tenant-a"), "{transport:?}: {r:?}");
            assert_eq!(r.headers.get_all("x-apideck-consumer-id").iter().count(), 1, "{transport:?}");
            let query = r.query.clone().unwrap_or_default();
            assert!(query.contains("api_key=key-a") && !query.contains("key-b"), "{transport:?}: {query}");
            let cookie = r.header("cookie").unwrap_or_default();
            assert!(cookie.contains("session=session-a") && !cookie.contains("session-b"), "{transport:?}: {cookie}");
        }
        let r = c.call("contactsAll", json!({"filter": "x"})).await;
        assert_eq!(r.is_error, Some(false), "{transport:?}: {}", text(&r));
        let sent = mock.last();
        assert_eq!(sent.header("x-apideck-consumer-id"), Some("tenant-a"));
        assert_eq!(sent.query.as_deref(), Some("filter=x&api_key=key-a"));
        assert_eq!(sent.header("cookie"), Some("session=session-a"));
    }
}

/// An argument the tool does not have is refused before anything is sent, naming the closest one
/// (an API that renamed `filter` would otherwise drop the model's filter without a word); `null`
/// still means an optional argument left out.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_argument_is_refused_with_the_closest_name() {
    let mock = start_mock().await;
    let spec = fixture_spec("tenant-header.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        mock.clear();
        let r = c.call("contactsAll", json!({"filtr": "open"})).await;
        assert_eq!(r.is_error, Some(true), "{transport:?}");
        assert!(text(&r).contains("unknown argument `filtr`; did you mean `filter`?"), "{transport:?}: {}", text(&r));
        assert!(mock.requests().is_empty(), "{transport:?}: nothing is sent");
        // A value outside an enum: the closest allowed value first, and all of a short list.
        let r = c.call("contactsAll", json!({"status": "failed"})).await;
        assert_eq!(r.is_error, Some(true), "{transport:?}");
        let said = text(&r);
        assert!(said.contains(r#""failed" is not one of the allowed values: "failure", "#), "{transport:?}: {said}");
        assert!(said.contains(r#""pending""#) && !said.contains("other candidates"), "{transport:?}: {said}");
        assert!(mock.requests().is_empty(), "{transport:?}: nothing is sent");
        let r = c.call("contactsAll", json!({"filter": "open", "where": null})).await;
        assert_eq!(r.is_error, Some(false), "{transport:?}: {}", text(&r));
        assert_eq!(mock.last().query.as_deref().map(|q| q.starts_with("filter=open")), Some(true));
    }
}

/// An API whose description declares no security scheme: the start-up log says its requests carry
/// no credentials and how to give some, and a 401 says the same to the model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_without_a_security_scheme_says_how_to_give_credentials() {
    let mock = start_mock().await;
    let spec = fixture_spec("no-security.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()]);
    let (_child, url, logs) = spawn_http_logged(&cmd, &[]).await;
    let said = logs.lock().unwrap().join("\n");
    assert!(said.contains("declares no security scheme") && said.contains("--auth bearer:ENV_VAR"), "{said}");
    let c = connect_url(&url).await;
    mock.reply_next(Reply::Json(401, json!({"message": "Requires authentication"})));
    let params = rmcp::model::CallToolRequestParams::new("createIssue")
        .with_arguments(json!({"title": "t"}).as_object().cloned().unwrap());
    let r = c.call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(true));
    let text = text(&r);
    assert!(text.contains("declares no credentials for this tool") && text.contains("--auth bearer:ENV_VAR"), "{text}");
}
