//! Hot reload (`mcpgen serve --watch`, SIGHUP) end to end with the rmcp client: the spec changes
//! under a running server, over stdio and HTTP; broken edits; a call in flight during the swap.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::watching::{Stdio, save_by_rename, stdio, tool_names, until_logged, until_tools};
use common::{Logs, Mock, Reply, ServerCommand, spawn_http_logged, start_mock, text};
use rmcp::model::{CallToolRequestParams, ProtocolVersion, SubscriptionFilter};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// An API with a GET operation per `(path, operationId)`, upstream at the mock.
fn spec(mock: &Mock, ops: &[(&str, &str)]) -> String {
    let mut s = format!(
        "openapi: 3.0.3\ninfo: {{title: Reload API, version: 1.0.0}}\nservers: [{{url: \"{}/api\"}}]\npaths:\n",
        mock.url()
    );
    for (path, id) in ops {
        s.push_str(&format!(
            "  {path}:\n    get: {{operationId: {id}, responses: {{\"200\": {{description: ok}}}}}}\n"
        ));
    }
    s
}

const PETS: (&str, &str) = ("/pets", "listPets");
const OWNERS: (&str, &str) = ("/owners", "listOwners");

/// The spec in a folder of its own (the watcher watches the folder).
fn spec_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("api.yaml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// An HTTP server on `spec` with `extra`, and a client of it.
async fn http(spec: &Path, extra: &[&str]) -> (tokio::process::Child, String, Logs, RunningService<RoleClient, ()>) {
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap()]);
    let (child, url, logs) = spawn_http_logged(&cmd, extra).await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url.clone());
    let client = ().serve(transport).await.expect("initialize over HTTP");
    (child, url, logs, client)
}

async fn call(peer: &Peer<RoleClient>, name: &str) -> Result<Value, rmcp::ServiceError> {
    let result = peer.call_tool(CallToolRequestParams::new(name.to_string())).await?;
    assert_ne!(result.is_error, Some(true), "{name}: {}", text(&result));
    Ok(serde_json::from_str(&text(&result)).expect("a JSON result"))
}

async fn metrics(url: &str) -> String {
    reqwest::get(url.replace("/mcp", "/metrics")).await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn stdio_clients_are_told_and_list_the_new_tool() {
    let mock = start_mock().await;
    let (_dir, path) = spec_file(&spec(&mock, &[PETS]));
    let Stdio { client, mut changed, logs, .. } = stdio(&path, &["--watch"]).await;
    let caps = client.peer_info().and_then(|i| i.capabilities.tools.clone()).expect("tools capability");
    assert_eq!(caps.list_changed, Some(true), "listChanged is declared");
    assert_eq!(tool_names(client.peer()).await, ["listPets"]);

    save_by_rename(&path, &spec(&mock, &[PETS, OWNERS]));
    tokio::time::timeout(Duration::from_secs(10), changed.recv())
        .await
        .expect("notifications/tools/list_changed within 10 s")
        .unwrap();
    assert_eq!(tool_names(client.peer()).await, ["listOwners", "listPets"]);
    assert_eq!(call(client.peer(), "listOwners").await.unwrap()["path"], "/api/owners");
    assert_eq!(mock.last().path, "/api/owners");
    let line = until_logged(&logs, "reloaded", 1).await.remove(0);
    assert!(line.contains("api.yaml changed): 1 -> 2 tools, took "), "{line}");
}

#[tokio::test]
async fn http_clients_list_the_new_tool_on_their_next_request() {
    let mock = start_mock().await;
    let (_dir, path) = spec_file(&spec(&mock, &[PETS]));
    let (_child, url, _logs, client) = http(&path, &["--watch"]).await;
    assert_eq!(tool_names(client.peer()).await, ["listPets"]);

    std::fs::write(&path, spec(&mock, &[PETS, OWNERS])).unwrap();
    until_tools(client.peer(), &["listOwners", "listPets"]).await;
    assert_eq!(call(client.peer(), "listOwners").await.unwrap()["path"], "/api/owners");
    let health: Value = reqwest::get(url.replace("/mcp", "/health")).await.unwrap().json().await.unwrap();
    assert_eq!(health, json!({"status": "ok", "tools": 2}), "/health counts the tools served now");
}

#[tokio::test]
async fn http_clients_of_2026_07_28_subscribed_are_told() {
    let mock = start_mock().await;
    let (_dir, path) = spec_file(&spec(&mock, &[PETS]));
    let cmd = ServerCommand::mcpgen(&["serve", path.to_str().unwrap()]);
    let (_child, url, _logs) = spawn_http_logged(&cmd, &["--watch"]).await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_uri(url);
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = ().serve_with_lifecycle(transport, lifecycle).await.expect("discover over HTTP");
    let mut filter = SubscriptionFilter::new();
    filter.tools_list_changed = Some(true);
    let mut subscription = client.peer().listen(filter).await.expect("subscriptions/listen is acknowledged");

    save_by_rename(&path, &spec(&mock, &[PETS, OWNERS]));
    let told = tokio::time::timeout(Duration::from_secs(10), subscription.next()).await.expect("told within 10 s");
    assert!(matches!(told, Ok(Some(rmcp::model::ServerNotification::ToolListChangedNotification(_)))), "{told:?}");
    assert_eq!(tool_names(client.peer()).await, ["listOwners", "listPets"]);
}

#[tokio::test]
async fn broken_edits_keep_the_old_tools_and_say_why() {
    let mock = start_mock().await;
    let (_dir, path) = spec_file(&spec(&mock, &[PETS]));
    let (_child, url, logs, client) = http(&path, &["--watch"]).await;

    std::fs::write(&path, "openapi: 3.0.3\npaths: [unclosed\n").unwrap();
    let failed = until_logged(&logs, "reload of", 1).await.remove(0);
    assert!(failed.contains("failed (") && failed.contains("still serving the previous 1 tools"), "{failed}");
    assert!(failed.contains("api.yaml:3:1: invalid YAML"), "the line is named: {failed}");
    assert_eq!(tool_names(client.peer()).await, ["listPets"]);
    assert_eq!(call(client.peer(), "listPets").await.unwrap()["path"], "/api/pets");

    std::fs::write(&path, "hello: world\n").unwrap();
    let failed = until_logged(&logs, "reload of", 2).await.remove(1);
    assert!(failed.contains("not an API description"), "{failed}");
    assert_eq!(tool_names(client.peer()).await, ["listPets"]);
    assert_eq!(call(client.peer(), "listPets").await.unwrap()["path"], "/api/pets");

    std::fs::write(&path, spec(&mock, &[PETS, OWNERS])).unwrap();
    until_tools(client.peer(), &["listOwners", "listPets"]).await;
    let m = metrics(&url).await;
    assert!(m.contains("mcpgen_reloads_total{result=\"error\"} 2\n"), "{m}");
    assert!(m.contains("mcpgen_reloads_total{result=\"ok\"} 1\n"), "{m}");
    assert!(m.contains("mcpgen_tools 2\n"), "{m}");
}

#[tokio::test]
async fn a_change_to_a_referenced_file_reloads() {
    let mock = start_mock().await;
    let (dir, path) = spec_file(&format!("{}  /pets: {{$ref: 'pets.yaml#/pets'}}\n", spec(&mock, &[])));
    let item = |id: &str| format!("{id}:\n  get: {{operationId: {id}, responses: {{'200': {{description: ok}}}}}}\n");
    std::fs::write(dir.path().join("pets.yaml"), item("pets").replace("operationId: pets", "operationId: listPets"))
        .unwrap();
    std::fs::write(dir.path().join("owners.yaml"), item("owners")).unwrap();
    let (_child, _url, _logs, client) = http(&path, &["--watch"]).await;
    assert_eq!(tool_names(client.peer()).await, ["listPets"]);

    save_by_rename(&dir.path().join("pets.yaml"), &item("pets").replace("operationId: pets", "operationId: getPets"));
    until_tools(client.peer(), &["getPets"]).await;

    // A file the spec reaches only after a reload is watched from then on.
    let with_owners =
        format!("{}  /owners: {{$ref: 'owners.yaml#/owners'}}\n", std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, with_owners).unwrap();
    until_tools(client.peer(), &["getPets", "owners"]).await;
    std::fs::write(
        dir.path().join("owners.yaml"),
        item("owners").replace("operationId: owners", "operationId: listOwners"),
    )
    .unwrap();
    until_tools(client.peer(), &["getPets", "listOwners"]).await;
}

#[tokio::test]
async fn a_call_in_flight_during_the_swap_completes_on_the_old_engine() {
    let mock = start_mock().await;
    let (_dir, path) = spec_file(&spec(&mock, &[PETS]));
    let (_child, _url, _logs, client) = http(&path, &["--watch"]).await;

    mock.reply_next(Reply::Slow(Duration::from_secs(2)));
    let peer = client.peer().clone();
    let in_flight = tokio::spawn(async move { call(&peer, "listPets").await });
    let deadline = Instant::now() + Duration::from_secs(10);
    while mock.requests().is_empty() {
        assert!(Instant::now() < deadline, "the slow call never reached the upstream");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // listPets goes away: only the engine the call started on still has it.
    std::fs::write(&path, spec(&mock, &[OWNERS])).unwrap();
    until_tools(client.peer(), &["listOwners"]).await;
    assert!(!in_flight.is_finished(), "the swap came after the call ended: the test proves nothing");

    let result = in_flight.await.unwrap().expect("the call in flight completes");
    assert_eq!(result, json!({"late": true}));
    let gone = call(client.peer(), "listPets").await.expect_err("listPets is gone");
    assert!(gone.to_string().contains("unknown tool `listPets`"), "{gone}");
    assert_eq!(call(client.peer(), "listOwners").await.unwrap()["path"], "/api/owners");
    let paths: Vec<String> = mock.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/api/pets", "/api/owners"]);
}

#[tokio::test]
async fn sighup_reloads_without_watch() {
    let mock = start_mock().await;
    let (_dir, path) = spec_file(&spec(&mock, &[PETS]));
    let Stdio { client, mut changed, logs, pid } = stdio(&path, &[]).await;
    let caps = client.peer_info().and_then(|i| i.capabilities.tools.clone()).expect("tools capability");
    assert_eq!(caps.list_changed, Some(true));

    // Without --watch an edit changes nothing until the signal.
    std::fs::write(&path, spec(&mock, &[PETS, OWNERS])).unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(tool_names(client.peer()).await, ["listPets"]);

    until_logged(&logs, "serving 1 tools", 1).await;
    let status = std::process::Command::new("kill").args(["-HUP", &pid.to_string()]).status().expect("kill");
    assert!(status.success());
    tokio::time::timeout(Duration::from_secs(10), changed.recv()).await.expect("list_changed after SIGHUP").unwrap();
    assert_eq!(tool_names(client.peer()).await, ["listOwners", "listPets"]);
    let line = until_logged(&logs, "reloaded", 1).await.remove(0);
    assert!(line.contains("(SIGHUP): 1 -> 2 tools"), "{line}");
}

async fn refused(args: &[&str]) -> String {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).output().await.unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[tokio::test]
async fn watch_refuses_a_url() {
    let err = refused(&["serve", "http://127.0.0.1:9/openapi.yaml", "--watch"]).await;
    assert!(
        err.contains("--watch watches a file, and the URL http://127.0.0.1:9/openapi.yaml cannot be watched"),
        "{err}"
    );
    assert!(err.contains("send SIGHUP to reload"), "{err}");
}

#[tokio::test]
async fn watch_refuses_stdin() {
    let err = refused(&["serve", "-", "--watch", "--transport", "http"]).await;
    assert!(err.contains("--watch watches a file, and stdin cannot be watched"), "{err}");
}

/// Several APIs in one server: a change to any of them reloads the merged catalogue.
#[tokio::test]
async fn a_change_to_the_second_of_two_apis_reloads_both() {
    let mock = start_mock().await;
    let (_first_dir, first) = spec_file(&spec(&mock, &[PETS]).replace("Reload API", "Pets API"));
    let (_second_dir, second) = spec_file(&spec(&mock, &[PETS]).replace("Reload API", "Owners API"));
    let cmd = ServerCommand::mcpgen(&["serve", first.to_str().unwrap(), second.to_str().unwrap(), "--watch"]);
    let (mut child, url, _logs) = spawn_http_logged(&cmd, &[]).await;
    let client = ().serve(rmcp::transport::StreamableHttpClientTransport::from_uri(url)).await.unwrap();
    assert_eq!(tool_names(client.peer()).await, ["owners_listPets", "pets_listPets"]);

    save_by_rename(&second, &spec(&mock, &[PETS, OWNERS]).replace("Reload API", "Owners API"));
    until_tools(client.peer(), &["owners_listOwners", "owners_listPets", "pets_listPets"]).await;
    assert_eq!(call(client.peer(), "owners_listOwners").await.unwrap()["path"], "/api/owners");
    let _ = child.kill().await;
}
