//! Several APIs in one server (`mcpgen serve a.yaml b.yaml`, a multi-API file, a merged runtime
//! config): each API's tools carry its prefix, and each call reaches its own upstream with its
//! own credentials, never the other's.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::*;
use serde_json::{Value, json};

const PETS_KEY: &str = "PETSTORE_API_API_KEY";
const WEATHER_TOKEN: &str = "WEATHER_SERVICE_BEARER_AUTH_TOKEN";

/// Two mock upstreams, one per API, and a folder holding the APIs' descriptions.
struct Two {
    pets: Mock,
    weather: Mock,
    dir: tempfile::TempDir,
}

impl Two {
    async fn start() -> Two {
        let two = Two { pets: start_mock().await, weather: start_mock().await, dir: tempfile::tempdir().unwrap() };
        two.put("pets.yaml", &two.pets);
        two.put("weather.yaml", &two.weather);
        two.put("notes.yaml", &two.weather);
        two
    }

    /// `tests/fixtures/multi/<name>` with `mock`'s address, written to the folder.
    fn put(&self, name: &str, mock: &Mock) {
        let text = std::fs::read_to_string(format!("tests/fixtures/multi/{name}")).unwrap();
        std::fs::write(self.path(name), text.replace("MOCK_URL", &mock.url())).unwrap();
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn arg(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }

    fn write(&self, name: &str, text: &str) -> String {
        std::fs::write(self.path(name), text).unwrap();
        self.arg(name)
    }

    /// `mcpgen serve` of these inputs with each API's credential in the environment.
    fn serve(&self, args: &[&str]) -> ServerCommand {
        let mut all = vec!["serve"];
        all.extend_from_slice(args);
        ServerCommand::mcpgen(&all).env(PETS_KEY, "pets-key").env(WEATHER_TOKEN, "weather-token")
    }
}

fn mcpgen(args: &[&str], cwd: &Path) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen")).args(args).current_dir(cwd).output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

async fn tool_names(c: &Connected) -> Vec<String> {
    c.client.list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect()
}

/// A call to each API reaches its own mock with its own credential, and nothing of it reaches
/// the other mock.
async fn each_call_reaches_its_own_upstream(c: &Connected, two: &Two, pets_tool: &str, weather_tool: &str) {
    two.pets.clear();
    two.weather.clear();
    let r = c.call(pets_tool, json!({"limit": 3})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = two.pets.last();
    assert_eq!((req.method.as_str(), req.path.as_str(), req.query.as_deref()), ("GET", "/api/pets", Some("limit=3")));
    assert_eq!(req.header("x-api-key"), Some("pets-key"));
    assert_eq!(req.header("authorization"), None, "the weather token never goes to the pet store");
    assert!(two.weather.requests().is_empty());

    let r = c.call(weather_tool, json!({"city": "Oslo"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = two.weather.last();
    assert_eq!((req.path.as_str(), req.query.as_deref()), ("/v1/forecast", Some("city=Oslo")));
    assert_eq!(req.header("authorization"), Some("Bearer weather-token"));
    assert_eq!(req.header("x-api-key"), None, "the pet store's key never goes to the weather service");
    assert_eq!(two.pets.requests().len(), 1);
}

const BOTH: [&str; 5] =
    ["petstore_listPets", "petstore_createPet", "petstore_getInventory", "weather_listAlerts", "weather_getForecast"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_apis_over_stdio() {
    let two = Two::start().await;
    let c = connect(&two.serve(&[&two.arg("pets.yaml"), &two.arg("weather.yaml")]), Transport::Stdio).await;
    assert_eq!(tool_names(&c).await, BOTH);
    let info = c.client.peer_info().unwrap();
    let server = info.server_info.as_ref().unwrap();
    assert_eq!(server.name, "mcpgen");
    assert_eq!(server.title.as_deref(), Some("Petstore API + Weather Service"));
    let instructions = info.instructions.as_deref().unwrap();
    assert!(instructions.contains("Weather Service (tools `weather_*`): Forecasts and alerts."), "{instructions}");
    each_call_reaches_its_own_upstream(&c, &two, "petstore_listPets", "weather_getForecast").await;
    c.client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_apis_over_http() {
    let two = Two::start().await;
    let c = connect(&two.serve(&[&two.arg("pets.yaml"), &two.arg("weather.yaml")]), Transport::Http).await;
    assert_eq!(tool_names(&c).await, BOTH);
    each_call_reaches_its_own_upstream(&c, &two, "petstore_listPets", "weather_getForecast").await;
    c.client.cancel().await.unwrap();
}

/// A multi-API file: its own base URL, prefix, headers and filter for one API, credentials for
/// the other; each filter applies to its API only.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_api_file_sets_each_apis_options() {
    let two = Two::start().await;
    let apis = two.write(
        "apis.yaml",
        &format!(
            "mcpgen_apis:\n\
             - spec: pets.yaml\n  prefix: shop\n  base_url: {}/v2\n  include_tag: pets\n  headers: {{X-Tenant: acme}}\n\
             - spec: notes.yaml\n  auth: [bearer:NOTES_TOKEN]\n  method: GET\n",
            two.pets.url()
        ),
    );
    let cmd = ServerCommand::mcpgen(&["serve", &apis]).env(PETS_KEY, "pets-key").env("NOTES_TOKEN", "notes-token");
    let c = connect(&cmd, Transport::Stdio).await;
    assert_eq!(tool_names(&c).await, ["shop_listPets", "shop_createPet", "notes_listNotes"]);

    let r = c.call("shop_createPet", json!({"name": "Rex"})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = two.pets.last();
    assert_eq!((req.method.as_str(), req.path.as_str()), ("POST", "/v2/pets"));
    assert_eq!((req.header("x-api-key"), req.header("x-tenant")), (Some("pets-key"), Some("acme")));
    assert_eq!(req.header("authorization"), None);

    let r = c.call("notes_listNotes", json!({})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = two.weather.last();
    assert_eq!(req.path, "/notes");
    assert_eq!(req.header("authorization"), Some("Bearer notes-token"));
    assert_eq!((req.header("x-api-key"), req.header("x-tenant")), (None, None), "the shop's headers stay with it");
    c.client.cancel().await.unwrap();
}

/// `mcpgen config a.yaml b.yaml -o x.mcp.json`, then `serve x.mcp.json`: the same server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_merged_config_serves_the_same() {
    let two = Two::start().await;
    let out = mcpgen(&["config", "pets.yaml", "weather.yaml", "-o", "both.mcp.json"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let config: Value = serde_json::from_str(&std::fs::read_to_string(two.path("both.mcp.json")).unwrap()).unwrap();
    // Format 2 (definitions stored once); `apis` needed no version of its own, as old readers
    // refuse it as an unknown key.
    assert_eq!(config["mcpgen_config"], 2);
    assert_eq!(config["server"]["name"], "mcpgen");
    assert_eq!(config["upstream"], json!({}));
    assert_eq!(
        config["apis"],
        json!([
            {"name": "petstore", "title": "Petstore API", "version": "1.0.0", "prefix": "petstore_",
             "tags": {"pets": "The pets for sale.", "store": "Stock counts"},
             "upstream": {"base_url": format!("{}/api", two.pets.url())}},
            {"name": "weather", "title": "Weather Service", "version": "2.1", "prefix": "weather_",
             "upstream": {"base_url": format!("{}/v1", two.weather.url())}}
        ])
    );
    assert_eq!(
        config["security_schemes"],
        json!({
            "petstore/apiKey": {"type": "api_key", "location": "header", "name": "X-API-Key", "env": PETS_KEY},
            "weather/bearerAuth": {"type": "bearer", "env": WEATHER_TOKEN}
        })
    );
    let tools = config["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, BOTH);
    assert_eq!(tools[4]["api"], "weather");
    assert_eq!(tools[4]["http"]["security"], json!([["weather/bearerAuth"]]));

    let c = connect(&two.serve(&[&two.arg("both.mcp.json")]), Transport::Stdio).await;
    assert_eq!(tool_names(&c).await, BOTH);
    each_call_reaches_its_own_upstream(&c, &two, "petstore_listPets", "weather_getForecast").await;
    c.client.cancel().await.unwrap();
}

/// Discovery mode: one search covers both APIs, the map groups by API, and `call_tool` reaches
/// the right upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_searches_every_api() {
    let two = Two::start().await;
    let cmd = two.serve(&[&two.arg("pets.yaml"), &two.arg("weather.yaml"), "--tool-mode", "discovery"]);
    let c = connect(&cmd, Transport::Stdio).await;
    assert_eq!(tool_names(&c).await, ["search_tools", "describe_tools", "call_tool"]);
    let instructions = c.client.peer_info().unwrap().instructions.clone().unwrap();
    assert!(
        instructions
            .contains("Tools by API and area:\n- Petstore API (3 tools, names start with petstore_)\n  - pets: 2"),
        "{instructions}"
    );
    let r = c.call("search_tools", json!({"query": "list", "limit": 10})).await;
    let found: Vec<String> = r.structured_content.unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(found.contains(&"petstore_listPets".to_string()), "{found:?}");
    assert!(found.contains(&"weather_listAlerts".to_string()), "{found:?}");

    two.weather.clear();
    let r = c.call("call_tool", json!({"name": "weather_getForecast", "arguments": {"city": "Bergen"}})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    let req = two.weather.last();
    assert_eq!((req.path.as_str(), req.header("authorization")), ("/v1/forecast", Some("Bearer weather-token")));
    let r = c.call("call_tool", json!({"name": "petstore_getInventory", "arguments": {}})).await;
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(two.pets.last().header("x-api-key"), Some("pets-key"));
    assert_eq!(two.weather.requests().len(), 1);
    c.client.cancel().await.unwrap();
}

/// A multi-API file over HTTP: `/mcp/tools` lists every API's tools, `/mcp/discovery` finds and
/// calls them, each call at its own upstream; both maps say what each API's areas are for.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multi_api_file_serves_both_surfaces() {
    let two = Two::start().await;
    let apis = two.write("apis.yaml", "mcpgen_apis:\n- {spec: pets.yaml}\n- {spec: weather.yaml}\n");
    let (_child, url) = spawn_http(&two.serve(&[&apis]), &[]).await;
    let (all, discovery) = (connect_url(&format!("{url}/tools")).await, connect_url(&format!("{url}/discovery")).await);
    assert_eq!(common::tool_names(&all.list_all_tools().await.unwrap()), BOTH);
    assert_eq!(
        common::tool_names(&discovery.list_all_tools().await.unwrap()),
        ["search_tools", "describe_tools", "call_tool"]
    );
    let map = "Tools by API and area:\n- Petstore API (3 tools, names start with petstore_)\n  \
               - pets: 2 — The pets for sale.\n  - store: 1 — Stock counts\n- Weather Service";
    for c in [&all, &discovery] {
        let instructions = c.peer_info().and_then(|i| i.instructions.clone()).unwrap_or_default();
        assert!(instructions.contains(map), "{instructions}");
    }
    let args = json!({"city": "Oslo"});
    let params = |name: &str, args: Value| {
        rmcp::model::CallToolRequestParams::new(name.to_string()).with_arguments(args.as_object().cloned().unwrap())
    };
    let via = discovery
        .call_tool(params("call_tool", json!({"name": "weather_getForecast", "arguments": args})))
        .await
        .unwrap();
    let direct = all.call_tool(params("weather_getForecast", args)).await.unwrap();
    assert_eq!((via.is_error, via.content), (Some(false), direct.content));
    assert_eq!(two.weather.requests().len(), 2);
    assert!(two.weather.requests().iter().all(|r| r.header("authorization") == Some("Bearer weather-token")));
    assert!(two.pets.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_entry_of_a_multi_api_file_is_named() {
    let two = Two::start().await;
    two.write("apis.yaml", "mcpgen_apis:\n- spec: pets.yaml\n- spec: weather.yaml\n  include_op: '[oops'\n");
    let out = mcpgen(&["config", "apis.yaml"], two.dir.path());
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("error: apis.yaml at #/mcpgen_apis/1/include_op/0: invalid glob"), "{e}");

    two.write("missing.yaml", "mcpgen_apis:\n- spec: pets.yaml\n- spec: nowhere.yaml\n");
    let e = stderr(&mcpgen(&["config", "missing.yaml"], two.dir.path()));
    assert!(e.contains("error: missing.yaml at #/mcpgen_apis/1/spec: ") && e.contains("nowhere.yaml"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_apis_with_one_prefix() {
    let two = Two::start().await;
    // Asked for: an error naming the entry.
    two.write("same.yaml", "mcpgen_apis:\n- {spec: pets.yaml, prefix: api}\n- {spec: weather.yaml, prefix: api_}\n");
    let out = mcpgen(&["config", "same.yaml"], two.dir.path());
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(e.contains("same.yaml at #/mcpgen_apis/1/prefix: `api_` is the prefix of"), "{e}");
    // Derived from one title: the second API gets a number, with a warning; its env var too.
    let out = mcpgen(&["config", "pets.yaml", "pets.yaml"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(
        e.contains("would both have the prefix `petstore_`: the tools of pets.yaml start with `petstore2_`"),
        "{e}"
    );
    assert!(
        e.contains(&format!("both read the env var {PETS_KEY}: `petstore2` reads PETSTORE2_{PETS_KEY} instead")),
        "{e}"
    );
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(config["tools"][3]["name"], "petstore2_listPets");
    assert_eq!(config["security_schemes"]["petstore2/apiKey"]["env"], format!("PETSTORE2_{PETS_KEY}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_name_clash_after_prefixing_is_resolved() {
    let two = Two::start().await;
    two.write(
        "clash.yaml",
        "openapi: 3.0.3\ninfo: {title: Clash, version: '1'}\nservers: [{url: 'http://127.0.0.1:1'}]\n\
         paths:\n  /x:\n    get:\n      operationId: notes_listNotes\n      responses: {'200': {description: ok}}\n",
    );
    two.write("apis.yaml", "mcpgen_apis:\n- {spec: notes.yaml}\n- {spec: clash.yaml, prefix: ''}\n");
    let out = mcpgen(&["config", "apis.yaml"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let e = stderr(&out);
    assert!(e.contains("both have a tool `notes_listNotes`: `clash`'s is `notes_listNotes_2`"), "{e}");
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = config["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["notes_listNotes", "notes_createNote", "notes_listNotes_2"]);
}

/// Prefixed names stay within `--max-name-len`, shortened by whole words as any long name is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prefixed_names_stay_within_the_limit() {
    let two = Two::start().await;
    let long = "listEveryVeryLongResourceNameOfTheAccountWithItsHistoryAndRelations"; // 68
    two.write(
        "long.yaml",
        &format!(
            "openapi: 3.0.3\ninfo: {{title: Long Names, version: '1'}}\nservers: [{{url: 'http://127.0.0.1:1'}}]\n\
             paths:\n  /x:\n    get:\n      operationId: {long}\n      responses: {{'200': {{description: ok}}}}\n"
        ),
    );
    let out = mcpgen(&["config", "long.yaml", "notes.yaml"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    let name = config["tools"][0]["name"].as_str().unwrap();
    assert!(name.starts_with("long_") && name.len() <= 64, "{name}");
    assert_eq!(name, "long_listEveryVeryLongResourceNameOfAccountItsHistoryRelations");
}

/// `inspect`, `search`, `export` and `generate` take a multi-API file as `serve` does: every API's
/// tools, prefixed; the crate's catalogue is the config `mcpgen config` makes of the file.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_command_reads_a_multi_api_file() {
    let two = Two::start().await;
    two.write("apis.yaml", "mcpgen_apis:\n- {spec: pets.yaml, prefix: shop}\n- {spec: weather.yaml}\n");
    let out = mcpgen(&["inspect", "apis.yaml"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(report.starts_with("Petstore API + Weather Service"), "{report}");
    assert!(report.contains("(several APIs in one config, apis.yaml)"), "{report}");
    let pets = format!("  Petstore API 1.0.0 (tools shop_*): {}/api\n", two.pets.url());
    assert!(report.contains(&pets), "{report}");
    assert!(report.contains("weather/bearerAuth   WEATHER_SERVICE_BEARER_AUTH_TOKEN"), "{report}");
    let out = mcpgen(&["inspect", "apis.yaml", "--json"], two.dir.path());
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = report["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["shop_listPets", "shop_createPet", "shop_getInventory", "weather_listAlerts", "weather_getForecast"]
    );
    assert_eq!(report["tools"][4]["source"], "weather", "a merged tool's API");

    let out = mcpgen(&["search", "apis.yaml", "weather forecast for a city", "--limit", "1"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("weather_getForecast "), "{}", stderr(&out));

    let out = mcpgen(&["export", "apis.yaml", "--format", "anthropic"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let tools: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(tools.as_array().unwrap().len(), 5);
    assert_eq!(tools[1]["name"], "shop_createPet");
    // Two inputs on the command line, as `serve a b`.
    let out = mcpgen(&["export", "pets.yaml", "weather.yaml", "--format", "mcp"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list["tools"][3]["name"], "weather_listAlerts");

    let out = mcpgen(&["config", "apis.yaml", "-o", "apis.mcp.json"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let out = mcpgen(&["generate", "apis.yaml", "-o", "apis-mcp", "--name", "apis-mcp"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let read =
        |name: &str| -> Value { serde_json::from_str(&std::fs::read_to_string(two.path(name)).unwrap()).unwrap() };
    let mut config = read("apis.mcp.json");
    config.as_object_mut().unwrap().remove("$schema"); // for editors; the catalogue is for the engine
    assert_eq!(read("apis-mcp/src/catalogue.json"), config);
    let readme = std::fs::read_to_string(two.path("apis-mcp/README.md")).unwrap();
    assert!(readme.contains(&format!("Petstore API (`shop_*`) at `{}/api`", two.pets.url())), "{readme}");
    let recipe = std::fs::read_to_string(two.path("apis-mcp/mcpgen.toml")).unwrap();
    assert!(recipe.contains("inputs = [\"../apis.yaml\"]"), "the recipe names the multi-API file: {recipe}");
}

/// An entry of a multi-API file that is a runtime config cannot take what a config cannot: the
/// error names the entry's key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_config_entry_refuses_what_a_config_cannot_take() {
    let two = Two::start().await;
    let out = mcpgen(&["config", "pets.yaml", "-o", "pets.mcp.json"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    two.write("apis.yaml", "mcpgen_apis:\n- {spec: weather.yaml}\n- {spec: pets.mcp.json, env_prefix: SHOP}\n");
    let out = mcpgen(&["inspect", "apis.yaml"], two.dir.path());
    let e = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{e}");
    assert!(e.starts_with("error: apis.yaml at #/mcpgen_apis/1/env_prefix: its credentials' env var names"), "{e}");
    // Its filters apply to its tools, as they do to an API description's.
    two.write("apis.yaml", "mcpgen_apis:\n- {spec: weather.yaml}\n- {spec: pets.mcp.json, method: GET}\n");
    let out = mcpgen(&["export", "apis.yaml", "--format", "mcp"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["weather_listAlerts", "weather_getForecast", "petstore_listPets", "petstore_getInventory"]);
}

/// Whose identity each API's requests carry is recorded per API: a multi-API file's
/// `upstream_auth` goes to that API's `upstream.auth`, `--upstream-auth` to the top-level one; a
/// bad mode is named at its pointer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_apis_upstream_identity_is_recorded() {
    let two = Two::start().await;
    two.write(
        "apis.yaml",
        "mcpgen_apis:\n\
         - spec: pets.yaml\n  upstream_auth: {mode: exchange, token_url: 'https://login.example.com/token', resource: 'https://pets.example.com/'}\n\
         - spec: weather.yaml\n",
    );
    let out = mcpgen(&["config", "apis.yaml", "--upstream-auth", "passthrough"], two.dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        config["apis"][0]["upstream"]["auth"],
        json!({"mode": "exchange", "token_url": "https://login.example.com/token", "resource": "https://pets.example.com/"})
    );
    assert!(config["apis"][1]["upstream"].get("auth").is_none(), "the weather API says nothing of its own");
    assert_eq!(config["upstream"]["auth"], json!({"mode": "passthrough"}), "the top-level one, for the others");

    let out = mcpgen(
        &[
            "config",
            "pets.yaml",
            "--upstream-auth",
            "exchange",
            "--exchange-token-url",
            "https://login.example.com/token",
            "--exchange-audience",
            "pets",
        ],
        two.dir.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        config["upstream"]["auth"],
        json!({"mode": "exchange", "token_url": "https://login.example.com/token", "audience": "pets"})
    );
    let out = mcpgen(&["config", "pets.yaml", "--exchange-audience", "pets"], two.dir.path());
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("the --exchange-* flags need --upstream-auth exchange"), "{}", stderr(&out));

    two.write("bad.yaml", "mcpgen_apis:\n- spec: pets.yaml\n  upstream_auth: {mode: everyone}\n- spec: weather.yaml\n");
    let out = mcpgen(&["config", "bad.yaml"], two.dir.path());
    let e = stderr(&out);
    assert!(!out.status.success());
    assert!(e.contains("bad.yaml") && e.contains("#/mcpgen_apis/0/upstream_auth"), "{e}");
}
