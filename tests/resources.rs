//! Resources end to end with rmcp's client against `mcpgen serve` and the recording mock: the API
//! description (always), `--resources` route maps (GET operations as resources and templates,
//! read through the engine), caching hints, and the errors of unknown or missing resources.

use crate::common;

use common::{Connected, Mock, Reply, ServerCommand, Transport, connect, fixture_spec, start_mock};
use rmcp::model::{
    ArgumentInfo, CacheScope, CompleteRequestParams, PaginatedRequestParams, ReadResourceRequestParams, Reference,
    ResourceContents,
};
use serde_json::{Value, json};

async fn serve(mock: &Mock, extra: &[&str]) -> (Connected, tempfile::TempPath) {
    let spec = fixture_spec("resources.yaml", mock);
    let mut args = vec!["serve", spec.to_str().unwrap()];
    args.extend_from_slice(extra);
    (connect(&ServerCommand::mcpgen(&args), Transport::Stdio).await, spec)
}

async fn read(c: &Connected, uri: &str) -> Result<rmcp::model::ReadResourceResult, rmcp::ServiceError> {
    c.client.read_resource(ReadResourceRequestParams::new(uri)).await
}

fn text_of(contents: &ResourceContents) -> (&str, Option<&str>) {
    match contents {
        ResourceContents::TextResourceContents { text, mime_type, .. } => (text, mime_type.as_deref()),
        other => panic!("expected text contents, got {other:?}"),
    }
}

/// The JSON-RPC error of a failed request: its code and data.
fn error_of(e: rmcp::ServiceError) -> (i32, Option<Value>) {
    match e {
        rmcp::ServiceError::McpError(e) => (e.code.0, e.data),
        other => panic!("expected a JSON-RPC error, got {other}"),
    }
}

#[tokio::test]
async fn the_api_description_is_a_resource_even_without_route_maps() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &[]).await;
    let listed = c.client.list_all_resources().await.unwrap();
    assert_eq!(listed.iter().map(|r| r.uri.as_str()).collect::<Vec<_>>(), ["mcpgen://description"]);
    assert!(c.client.list_all_resource_templates().await.unwrap().is_empty());
    let read = read(&c, "mcpgen://description").await.unwrap();
    let (text, mime) = text_of(&read.contents[0]);
    assert_eq!(mime, Some("text/markdown"));
    assert!(text.starts_with("# Pet resources") && text.contains("Pets to read as resources."), "{text}");
    assert!(text.contains("- `getPet` (GET /pets/{petId}): One pet."), "{text}");
    assert!(mock.requests().is_empty(), "the description is made from the config, not the API");
}

#[tokio::test]
async fn route_maps_list_gets_without_required_arguments_as_resources_and_path_only_ones_as_templates() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources"]).await;
    let resources = c.client.list_all_resources().await.unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["mcpgen://description", "api://pets"]);
    let templates = c.client.list_all_resource_templates().await.unwrap();
    let templates: Vec<(&str, &str)> = templates.iter().map(|t| (t.uri_template.as_str(), t.name.as_str())).collect();
    // A required query parameter (searchPets) or a body (addPet) cannot be said in a URI.
    assert_eq!(templates, [("api://kinds/{kind}/pets", "petsOfKind"), ("api://pets/{petId}", "getPet")]);
}

#[tokio::test]
async fn reading_a_template_calls_the_api_with_the_uri_arguments() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources", "--resource-scheme", "petstore"]).await;
    let read = read(&c, "petstore://pets/7").await.unwrap();
    assert_eq!(mock.last().path, "/pets/7");
    let (text, mime) = text_of(&read.contents[0]);
    assert_eq!(mime, Some("application/json"));
    assert_eq!(serde_json::from_str::<Value>(text).unwrap(), json!({"ok": true, "method": "GET", "path": "/pets/7"}));
    match &read.contents[0] {
        ResourceContents::TextResourceContents { uri, .. } => assert_eq!(uri, "petstore://pets/7"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn lists_keep_for_the_list_ttl_and_api_data_is_stale_at_once_both_public_without_oauth() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources", "--list-ttl", "120"]).await;
    let tools = c.client.list_tools(Some(PaginatedRequestParams::default())).await.unwrap();
    assert_eq!((tools.ttl_ms, tools.cache_scope), (Some(120_000), Some(CacheScope::Public)));
    let resources = c.client.list_resources(Some(PaginatedRequestParams::default())).await.unwrap();
    assert_eq!((resources.ttl_ms, resources.cache_scope), (Some(120_000), Some(CacheScope::Public)));
    let templates = c.client.list_resource_templates(Some(PaginatedRequestParams::default())).await.unwrap();
    assert_eq!((templates.ttl_ms, templates.cache_scope), (Some(120_000), Some(CacheScope::Public)));
    let description = read(&c, "mcpgen://description").await.unwrap();
    assert_eq!((description.ttl_ms, description.cache_scope), (Some(120_000), Some(CacheScope::Public)));
    let data = read(&c, "api://pets").await.unwrap();
    assert_eq!((data.ttl_ms, data.cache_scope), (Some(0), Some(CacheScope::Public)));
}

#[tokio::test]
async fn an_unknown_uri_is_invalid_params_naming_the_uri() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources"]).await;
    for uri in ["test://nonexistent", "api://pets/seven", "api://search"] {
        let (code, data) = error_of(read(&c, uri).await.unwrap_err());
        assert_eq!((code, data), (-32602, Some(json!({"uri": uri}))), "{uri}");
    }
    assert!(mock.requests().is_empty(), "nothing reaches the API");
}

#[tokio::test]
async fn a_404_from_the_api_is_resource_not_found() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources"]).await;
    mock.reply_next(Reply::Json(404, json!({"message": "no such pet"})));
    let (code, data) = error_of(read(&c, "api://pets/99").await.unwrap_err());
    assert_eq!((code, data), (-32602, Some(json!({"uri": "api://pets/99"}))));
}

#[tokio::test]
async fn a_failing_api_is_an_internal_error_with_its_message() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources"]).await;
    mock.reply_next(Reply::Json(500, json!({"message": "database down"})));
    let e = read(&c, "api://pets").await.unwrap_err();
    let rmcp::ServiceError::McpError(e) = e else { panic!("{e}") };
    assert_eq!(e.code.0, -32603);
    assert!(e.message.contains("HTTP 500") && e.message.contains("database down"), "{}", e.message);
}

#[tokio::test]
async fn completion_offers_the_enum_values_of_a_template_variable() {
    let mock = start_mock().await;
    let (c, _spec) = serve(&mock, &["--resources"]).await;
    let request =
        CompleteRequestParams::new(Reference::for_resource("api://kinds/{kind}/pets"), ArgumentInfo::new("kind", "ca"));
    let completion = c.client.complete(request).await.unwrap().completion;
    assert_eq!(completion.values, ["cat", "canary"]);
    assert_eq!((completion.total, completion.has_more), (Some(2), Some(false)));
}

#[tokio::test]
async fn mcpgen_config_records_the_route_maps_and_serve_follows_them() {
    let mock = start_mock().await;
    let spec = fixture_spec("resources.yaml", &mock);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("pets.mcp.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["config", spec.to_str().unwrap(), "--resources", "--resource-scheme", "pets", "-o"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert_eq!(written["resources"], json!({"route_maps": true, "scheme": "pets"}));
    let c = connect(&ServerCommand::mcpgen(&["serve", config.to_str().unwrap()]), Transport::Stdio).await;
    let templates = c.client.list_all_resource_templates().await.unwrap();
    assert!(templates.iter().any(|t| t.uri_template == "pets://pets/{petId}"), "{templates:?}");
}
