//! Code mode end to end: `mcpgen serve --tool-mode code` with rmcp's client over stdio and
//! Streamable HTTP against the recording mock. A script's calls reach the upstream exactly as
//! direct calls do; a validation error is thrown and caught in the script; every limit stops a
//! script with a clear error and the next one runs; a destructive call asks the user; nothing
//! but the API is reachable from a script.

use crate::common;

use common::{Mock, ServerCommand, TRANSPORTS, Transport, connect, fixture_spec, start_mock, text};
use rmcp::model::CallToolResult;
use serde_json::{Value, json};

const KEY_ENV: &str = "CODE_HUB_KEY";

fn serve(spec: &tempfile::TempPath, extra: &[&str]) -> ServerCommand {
    let mut args = vec!["serve", spec.to_str().unwrap(), "--tool-mode", "code"];
    args.extend_from_slice(extra);
    ServerCommand::mcpgen(&args).env(KEY_ENV, "k-secret")
}

/// Two repositories, the first with two open bugs.
fn seed(mock: &Mock) {
    mock.route(
        "GET",
        "/orgs/octo/repos",
        200,
        json!([{"name": "alpha", "open_issues": 2}, {"name": "beta", "open_issues": 0}]),
    );
    mock.route(
        "GET",
        "/repos/octo/alpha/issues",
        200,
        json!([{"number": 1, "title": "crash"}, {"number": 4, "title": "leak"}]),
    );
    mock.route("GET", "/repos/octo/beta/issues", 200, json!([]));
}

/// List, then one call per item, then a count: what a model would write for "which of my
/// repositories have open bugs, and how many each?".
const PER_REPO: &str = r#"
const repos = await api.repos_list_for_org({org: "octo", per_page: 100});
const counts = {};
for (const r of repos) {
  const bugs = await api.issues_list_for_repo({owner: "octo", repo: r.name, labels: "bug", state: "open"});
  counts[r.name] = bugs.length;
}
return counts;
"#;

async fn run(c: &common::Connected, code: &str) -> CallToolResult {
    c.call("run_script", json!({ "code": code })).await
}

/// What the upstream received: method, path, query, and the credential header.
fn received(mock: &Mock) -> Vec<(String, String, Option<String>, Option<String>)> {
    mock.requests()
        .iter()
        .map(|r| (r.method.clone(), r.path.clone(), r.query.clone(), r.header("x-key").map(str::to_string)))
        .collect()
}

async fn lists_then_calls_per_item_as_direct_calls_would(transport: Transport) {
    let mock = start_mock().await;
    seed(&mock);
    let spec = fixture_spec("code.yaml", &mock);
    let c = connect(&serve(&spec, &[]), transport).await;
    let listed: Vec<String> = c.client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(listed, ["search_tools", "describe_tools", "run_script"]);
    let instructions = c.client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    assert!(instructions.contains("run_script") && instructions.contains("api."), "{instructions}");

    let r = run(&c, PER_REPO).await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    assert_eq!(serde_json::from_str::<Value>(&text(&r)).unwrap(), json!({"alpha": 2, "beta": 0}));
    let by_script = received(&mock);

    // The same steps as direct calls of the tools (every tool stays callable by name).
    mock.clear();
    let repos = c.call("repos_list-for-org", json!({"org": "octo", "per_page": 100})).await;
    assert_ne!(repos.is_error, Some(true), "{}", text(&repos));
    for repo in ["alpha", "beta"] {
        let args = json!({"owner": "octo", "repo": repo, "labels": "bug", "state": "open"});
        c.call("issues_list-for-repo", args).await;
    }
    assert_eq!(by_script, received(&mock), "a script's requests are the direct calls' requests");
    assert_eq!(by_script.len(), 3);
    assert_eq!(by_script[1].2.as_deref(), Some("labels=bug&state=open"));
    assert_eq!(by_script[0].3.as_deref(), Some("k-secret"), "the server's credentials go upstream");
}

#[tokio::test]
async fn lists_then_calls_per_item_as_direct_calls_would_over_stdio() {
    lists_then_calls_per_item_as_direct_calls_would(Transport::Stdio).await;
}

#[tokio::test]
async fn lists_then_calls_per_item_as_direct_calls_would_over_http() {
    lists_then_calls_per_item_as_direct_calls_would(Transport::Http).await;
}

#[tokio::test]
async fn describe_tools_declares_functions_by_tool_or_script_name() {
    let mock = start_mock().await;
    let spec = fixture_spec("code.yaml", &mock);
    let c = connect(&serve(&spec, &[]), Transport::Stdio).await;
    let r = c.call("describe_tools", json!({"names": ["issues_list-for-repo", "repos_delete", "nope"]})).await;
    let t = text(&r);
    assert!(t.contains("declare const api: {"), "{t}");
    assert!(
        t.contains("issues_list_for_repo(args: { owner: string; repo: string; labels?: string; state?: \"open\" | \"closed\" | \"all\" })"),
        "{t}"
    );
    assert!(t.contains("Promise<{ number; title }[]>"), "{t}");
    assert!(t.contains("repos_delete(args: { owner: string; repo: string })"), "{t}");
    assert!(t.contains("Unknown function `nope`"), "{t}");
    let found = c.call("search_tools", json!({"query": "delete a repository"})).await;
    assert!(text(&found).contains("repos_delete"), "{}", text(&found));
}

async fn a_validation_error_is_caught_in_the_script(transport: Transport) {
    let mock = start_mock().await;
    let spec = fixture_spec("code.yaml", &mock);
    let c = connect(&serve(&spec, &[]), transport).await;
    let r = run(
        &c,
        r#"try { await api.issues_list_for_repo({owner: "octo", state: "shut"}); return "sent" }
           catch (e) { return {name: e.name, tool: e.tool, message: e.message} }"#,
    )
    .await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let caught: Value = serde_json::from_str(&text(&r)).unwrap();
    assert_eq!(caught["name"], "ApiError");
    assert_eq!(caught["tool"], "issues_list_for_repo");
    let direct = c.call("issues_list-for-repo", json!({"owner": "octo", "state": "shut"})).await;
    assert_eq!(direct.is_error, Some(true));
    assert_eq!(caught["message"], text(&direct), "the same message as a direct call");
    assert!(mock.requests().is_empty(), "an invalid call reaches nothing");
    // Calls never sent (an unknown function, arguments the schema refuses) are not counted made.
    for code in ["await api.no_such_function({})", r#"await api.issues_list_for_repo({owner: "octo", state: "shut"})"#]
    {
        let r = run(&c, code).await;
        assert_eq!(r.is_error, Some(true), "{code}: {}", text(&r));
        assert!(text(&r).contains("(0 API calls made.)"), "{code}: {}", text(&r));
    }
    assert!(mock.requests().is_empty());
    // A syntax error says where, as a runtime error does.
    let r = run(&c, "const a = 1;\nif (a > ) {}\nreturn a;").await;
    assert!(text(&r).contains("SyntaxError") && text(&r).contains("(at line 2:9)"), "{}", text(&r));
}

#[tokio::test]
async fn a_validation_error_is_caught_in_the_script_over_stdio() {
    a_validation_error_is_caught_in_the_script(Transport::Stdio).await;
}

#[tokio::test]
async fn a_validation_error_is_caught_in_the_script_over_http() {
    a_validation_error_is_caught_in_the_script(Transport::Http).await;
}

/// Each limit stops its script with an error that names it; the next script runs.
async fn limits_stop_scripts_and_the_server_goes_on(transport: Transport) {
    let mock = start_mock().await;
    seed(&mock);
    let spec = fixture_spec("code.yaml", &mock);
    let limits =
        ["--script-timeout", "1", "--script-memory", "32", "--script-max-calls", "50", "--script-max-output", "100000"];
    let c = connect(&serve(&spec, &limits), transport).await;
    let cases = [
        ("while (true) {}", "time limit (1 s)"),
        ("for (;;) { new Array(1e6).fill(1) }", "time limit (1 s)"),
        ("const a = []; for (;;) a.push(new Array(1e5).fill(7));", "memory limit (32 MiB)"),
        (
            "for (let i = 0; i < 10000; i++) { try { await api.repos_list_for_org({org: 'octo'}) } catch (e) {} } return 'done'",
            "limit of 50 API calls",
        ),
        ("return 'x'.repeat(10 * 1024 * 1024)", "output limit (100000 characters)"),
        ("for (;;) console.log('y'.repeat(1000))", "output limit (100000 characters)"),
    ];
    for (code, says) in cases {
        mock.clear();
        let started = std::time::Instant::now();
        let r = run(&c, code).await;
        assert_eq!(r.is_error, Some(true), "{code}: {}", text(&r));
        assert!(text(&r).contains(says), "{code}: {}", text(&r));
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{code}: {:?}", started.elapsed());
        if says.contains("API calls") {
            assert_eq!(mock.requests().len(), 50, "the 51st call never left");
        }
        let next = run(&c, PER_REPO).await;
        assert_ne!(next.is_error, Some(true), "after {code}: {}", text(&next));
    }
}

#[tokio::test]
async fn limits_stop_scripts_and_the_server_goes_on_over_stdio() {
    limits_stop_scripts_and_the_server_goes_on(Transport::Stdio).await;
}

#[tokio::test]
async fn limits_stop_scripts_and_the_server_goes_on_over_http() {
    limits_stop_scripts_and_the_server_goes_on(Transport::Http).await;
}

/// A script reaches nothing but the API: no other host (through any global or an argument), no
/// file, no environment variable.
#[tokio::test]
async fn nothing_but_the_api_is_reachable() {
    let mock = start_mock().await;
    let elsewhere = start_mock().await;
    let spec = fixture_spec("code.yaml", &mock);
    for transport in TRANSPORTS {
        let c = connect(&serve(&spec, &[]), transport).await;
        let other = elsewhere.url();
        let probes = [
            format!("return await fetch('{other}/x')"),
            format!("const x = new XMLHttpRequest(); x.open('GET', '{other}/x')"),
            format!("return await import('{other}/x.js')"),
            "return await import('/etc/passwd')".to_string(),
            "return std.loadFile('/etc/passwd')".to_string(),
            "return os.getenv('CODE_HUB_KEY')".to_string(),
            "return process.env.CODE_HUB_KEY".to_string(),
            "return require('fs').readFileSync('/etc/passwd', 'utf8')".to_string(),
            "return Deno.env.get('CODE_HUB_KEY')".to_string(),
            "return new Date().toString()".to_string(),
        ];
        for probe in &probes {
            let r = run(&c, probe).await;
            assert_eq!(r.is_error, Some(true), "{probe}: {}", text(&r));
            assert!(!text(&r).contains("k-secret") && !text(&r).contains("root:"), "{probe}: {}", text(&r));
        }
        // Arguments go into the path and query, encoded: never to another host.
        let r = run(
            &c,
            &format!(
                "await api.repos_list_for_org({{org: '{other}/x'}}); await api.repos_list_for_org({{org: '@{}'}}); \
                 return 'sent'",
                elsewhere.addr
            ),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        let secret = run(&c, "return JSON.stringify(globalThis).includes('k-secret')").await;
        assert_eq!(text(&secret), "false");
    }
    assert!(elsewhere.requests().is_empty(), "{:?}", elsewhere.requests());
    assert!(mock.requests().iter().all(|r| r.path.starts_with("/orgs/")), "{:?}", mock.requests());
}

#[tokio::test]
async fn discovery_offers_run_script_with_the_flag() {
    let mock = start_mock().await;
    seed(&mock);
    let spec = fixture_spec("code.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--tool-mode", "discovery", "--run-script"])
        .env(KEY_ENV, "k-secret");
    let c = connect(&cmd, Transport::Stdio).await;
    let listed: Vec<String> = c.client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(listed, ["search_tools", "describe_tools", "call_tool", "run_script"]);
    let instructions = c.client.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
    assert!(instructions.contains("run_script runs one JavaScript script"), "{instructions}");
    // A tool by its own name, as discovery shows it.
    let r = run(&c, "return (await api[\"repos_list-for-org\"]({org: 'octo'})).length").await;
    assert_eq!(text(&r), "2", "{}", text(&r));
    let r = run(&c, PER_REPO).await;
    assert_eq!(serde_json::from_str::<Value>(&text(&r)).unwrap(), json!({"alpha": 2, "beta": 0}), "{}", text(&r));
    // Without the flag, discovery has no run_script.
    let plain = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--tool-mode", "discovery"]);
    let c = connect(&plain, Transport::Stdio).await;
    assert!(c.try_call("run_script", json!({"code": "return 1"})).await.is_err());
}

#[tokio::test]
async fn a_long_answer_is_reduced_to_the_result_budget() {
    let mock = start_mock().await;
    let spec = fixture_spec("code.yaml", &mock);
    let c = connect(&serve(&spec, &["--max-result-chars", "2000"]), Transport::Stdio).await;
    let r = run(&c, "return Array.from({length: 500}, (_, i) => ({i, name: 'item ' + i}))").await;
    assert_ne!(r.is_error, Some(true), "{}", text(&r));
    let first = r.content[0].as_text().unwrap().text.clone();
    assert!(first.chars().count() <= 2000, "{}", first.len());
    assert!(text(&r).contains("the first") && text(&r).contains("of 500 items"), "{}", text(&r));
}
