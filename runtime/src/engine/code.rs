//! Code mode's part of the engine (feature `code`; `code_off.rs` stands in without it): its
//! state ([`Code`]: the scripts' names, limits and slots), its view (the listing and instructions
//! of code mode, `run_script` in discovery's), its tools — `search_tools` as in discovery, `describe_tools` answering
//! TypeScript declarations, `run_script` — and the [`Host`] through which a script's API calls
//! reach the engine exactly as direct calls do: the same argument validation and messages, the
//! same upstream credentials, retries, rate limits and concurrency cap, hooks and scopes, and the
//! confirmation of `--confirm` asked mid-script. Each call is counted and logged as the tool's.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, OnceLock, Weak};

use rmcp::model::{CallToolResult, ContentBlock, Tool as McpTool, ToolAnnotations};
use serde_json::{Map, Value, json};
use tokio::sync::Semaphore;

use super::delivery::Via;
use super::listing::{About, Listing};
use crate::code::declare::{Options, Signature, declare_tools};
use crate::code::names::ScriptNames;
use crate::code::sandbox::{self, Answer, Host, Limits, Reply, Stop};
use crate::config::Context;
use crate::engine::caller::Caller;
use crate::engine::delivery::Delivery;
use crate::engine::exposure::{DESCRIBE_TOOLS, Exposure, RUN_SCRIPT, SEARCH_TOOLS};
use crate::engine::meta::{DEFAULT_LIMIT, MAX_DESCRIBE, MAX_LIMIT};
use crate::engine::{Asker, Engine, Observation, Surface, ToolEntry, tool_error};
use crate::error::Result;
use crate::metrics::Outcome;
use crate::response::budget;
use crate::response::json::Json;
use crate::response::script::Kind;
use crate::text::group_digits;

/// Scripts that may run at once per server; more wait for a slot (up to their wall time). A
/// script past its deadline inside one long builtin keeps its slot until it stops.
const SLOTS: usize = 4;
/// Characters of what a stopped script printed that its error shows (the end of it).
const PRINTED_ON_ERROR: usize = 2_000;

/// Code mode's part of the engine: the scripts' names, limits and slots, and the engine itself
/// (a script's API calls are tasks of their own, which outlive a borrow of it).
pub(super) struct Code {
    /// The engine that holds this part (set as it is built; see [`Code::bound`]).
    me: Weak<Engine>,
    names: OnceLock<ScriptNames>,
    limits: Limits,
    slots: Arc<Semaphore>,
    /// Discovery offers `run_script` (`--run-script`).
    run_script: bool,
}

impl Code {
    /// The exposure a server with code mode can give: any.
    pub(super) fn check(exposure: Exposure, _context: &Context) -> Result<Exposure> {
        Ok(exposure)
    }

    /// The part for scripts under the context's limits.
    pub(super) fn new(context: &Context) -> Code {
        Code {
            me: Weak::new(),
            names: OnceLock::new(),
            limits: (&context.script).into(),
            slots: Arc::new(Semaphore::new(SLOTS)),
            run_script: context.run_script,
        }
    }

    /// This part, held by the engine `me`.
    pub(super) fn bound(self, me: &Weak<Engine>) -> Code {
        Code { me: me.clone(), ..self }
    }

    /// Code mode's view of `tools` (its listing and instructions where `exposure` is code mode),
    /// and whether discovery's offers `run_script`.
    pub(super) fn view(&self, exposure: &Exposure, about: &About<'_>, tools: &[ToolEntry]) -> View {
        View {
            configured: exposure.code.then(|| code_view(&self.limits, about, tools)),
            run_script: self.run_script.then_some(self.limits),
        }
    }

    /// Code mode is the configured mode where `exposure` says so.
    pub(super) fn configured(&self, exposure: &Exposure) -> bool {
        exposure.code
    }

    /// What discovery's instructions add where it offers `run_script`.
    pub(super) fn discovery_note(&self) -> Option<String> {
        self.run_script.then(|| discovery_instructions(&self.limits))
    }
}

/// Code mode's listing and instructions, and `run_script`'s place in discovery's.
pub(super) struct View {
    /// Code mode's listing and instructions (made with the engine in code mode, else never).
    configured: Option<(Listing, Option<String>)>,
    /// Discovery's listing offers `run_script` (`--run-script`), with these limits.
    run_script: Option<Limits>,
}

impl View {
    /// Code mode's listing and instructions, where it is the configured mode.
    pub(super) fn configured(&self) -> Option<&(Listing, Option<String>)> {
        self.configured.as_ref()
    }

    /// Whether discovery's listing offers `run_script`.
    pub(super) fn runs_in_discovery(&self) -> bool {
        self.run_script.is_some()
    }

    /// `run_script`, where discovery's listing offers it.
    pub(super) fn run_script_tool(&self) -> Option<McpTool> {
        self.run_script.as_ref().map(run_script_tool)
    }
}

/// Code mode's listing (its three tools; calls reach every tool through `run_script`) and
/// instructions.
fn code_view(limits: &Limits, about: &About<'_>, tools: &[ToolEntry]) -> (Listing, Option<String>) {
    let listed = code_tools(limits);
    let index = vec![None; listed.len()];
    let how = instructions(limits, tools.len());
    let text = crate::engine::overview::code(about.text, &how, tools, about.apis, about.tags);
    (Listing { tools: listed, index }, Some(text))
}

impl<'a> From<&'a ToolEntry> for Signature<'a> {
    fn from(t: &'a ToolEntry) -> Signature<'a> {
        Signature {
            name: &t.mcp.name,
            title: t.mcp.title.as_deref(),
            description: t.mcp.description.as_deref().unwrap_or(""),
            input_schema: Cow::Owned(t.assembled_input_schema()),
            output_schema: t.assembled_output_schema().map(Cow::Owned),
            response: t.response.as_ref(),
        }
    }
}

/// Code mode's three tools, in the order `tools/list` shows them.
fn code_tools(limits: &Limits) -> Vec<McpTool> {
    vec![search_tool(), describe_tool(), run_script_tool(limits)]
}

fn tool(name: &str, title: &str, description: String, schema: Value, annotations: ToolAnnotations) -> McpTool {
    let schema = match schema {
        Value::Object(m) => m,
        _ => Map::new(),
    };
    let mut t = McpTool::new_with_raw(name.to_string(), Some(description.into()), Arc::new(schema));
    t.title = Some(title.to_string());
    t.annotations = Some(annotations);
    t
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false)
}

/// `search_tools` as code mode describes it (the same search as discovery's).
fn search_tool() -> McpTool {
    tool(
        SEARCH_TOOLS,
        "Search the API's functions",
        "Find this API's functions by what you want to do, in plain words (e.g. \"list the open issues of a \
         repository\"). Returns the best matches first: name, HTTP method and path, required arguments and a \
         one-line description. Next: describe_tools for their TypeScript declarations, then run_script."
            .into(),
        json!({"type": "object", "properties": {
            "query": {"type": "string", "description": "What you want to do, or a function name."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                      "description": "How many to return."}},
            "required": ["query"], "additionalProperties": false}),
        read_only(),
    )
}

/// `describe_tools` answering declarations.
fn describe_tool() -> McpTool {
    tool(
        DESCRIBE_TOOLS,
        "Declare functions",
        format!(
            "TypeScript declarations of up to {MAX_DESCRIBE} of the API's functions, by the names search_tools \
             returned: `api.NAME(args)` with its arguments (optional ones marked `?`, enums as unions) and what it \
             resolves to. Read them before writing a script for run_script."
        ),
        json!({"type": "object", "properties": {
            "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_DESCRIBE,
                      "description": "Function (tool) names."}},
            "required": ["names"], "additionalProperties": false}),
        read_only(),
    )
}

/// `run_script`.
fn run_script_tool(limits: &Limits) -> McpTool {
    // A script reaches any of the API's functions: it promises nothing about what they do.
    let any_call = ToolAnnotations::new().read_only(false).destructive(true).idempotent(false).open_world(true);
    tool(
        RUN_SCRIPT,
        "Run a script against the API",
        format!(
            "Run a JavaScript script (the body of an async function) in a sandbox where each of the API's functions \
             is `await api.NAME(args)` (declarations from describe_tools), resolving to the parsed response; a failed \
             call throws an ApiError you can catch. Loop, filter and aggregate in the script and `return` only the \
             answer (a value, returned as JSON, or a string); console.log output is returned too. No network, files \
             or clock. Limits: {} s, {} API calls, {} characters of output.",
            limits.wall.as_secs_f64(),
            limits.max_calls,
            group_digits(limits.max_output)
        ),
        json!({"type": "object", "properties": {
            "code": {"type": "string", "description": "The script, e.g. `const prs = await api.pulls_list({owner: \"o\", repo: \"r\"}); return prs.map(p => p.number);`"}},
            "required": ["code"], "additionalProperties": false}),
        any_call,
    )
}

/// Code mode's part of the server instructions.
fn instructions(limits: &Limits, tools: usize) -> String {
    format!(
        "This server gives access to {} API operations as functions of a JavaScript `api` object. search_tools \
         finds functions by what you want to do, describe_tools gives their TypeScript declarations, and run_script \
         runs a short script that calls them, e.g. `const prs = await api.pulls_list({{owner, repo}}); return \
         prs.length;`. Write one script per task: call, loop, filter and aggregate in it (Promise.all for calls \
         that do not depend on each other), and return only the answer, not whole responses. A failed call throws \
         an ApiError with the API's message. The sandbox has no network, files or clock; a script may run {} s and \
         make {} API calls.",
        group_digits(tools),
        limits.wall.as_secs_f64(),
        limits.max_calls
    )
}

/// What discovery's instructions add when it offers `run_script` (`--run-script`).
fn discovery_instructions(limits: &Limits) -> String {
    format!(
        "For a task of several calls (a list, then one call per item, then a count), run_script runs one JavaScript \
         script instead: each tool is `await api.NAME(args)` (`api[\"NAME\"]` for a name that is not an \
         identifier), resolving to the parsed response; a failed call throws an ApiError. Loop, filter and \
         aggregate in the script and return only the answer. No network, files or clock; {} s and {} API calls \
         per script.",
        limits.wall.as_secs_f64(),
        limits.max_calls
    )
}

/// Answers a call to one of code mode's own tools on `surface` (`describe_tools` where code mode
/// is served, `run_script` where it or `--run-script` is); `None` when `name` is not one there.
pub(super) async fn call_own(
    engine: &Engine,
    surface: Surface,
    name: &str,
    args: &Map<String, Value>,
    caller: &Caller,
    asker: Option<&Asker>,
    obs: &mut Observation,
) -> Option<CallToolResult> {
    match name {
        DESCRIBE_TOOLS if engine.lists_code(surface) => Some(describe(engine, args, caller)),
        RUN_SCRIPT if engine.runs_scripts(surface) => Some(run_script(engine, args, caller, asker, obs).await),
        _ => None,
    }
}

/// `describe_tools`: the named functions' declarations, their named types first.
fn describe(engine: &Engine, args: &Map<String, Value>, caller: &Caller) -> CallToolResult {
    let names = match crate::engine::meta::requested_names(args, "function") {
        Ok(names) => names,
        Err(e) => return e,
    };
    let script_names = engine.script_names();
    let mut found = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        let tool = tool_named(engine, name).filter(|t| caller.may_use(&t.scopes));
        match tool {
            Some(t) if !found.iter().any(|f: &&ToolEntry| f.mcp.name == t.mcp.name) => found.push(t),
            Some(_) => {}
            None => unknown.push(name),
        }
    }
    if found.is_empty() {
        return tool_error(unknown_text(engine, &unknown, caller));
    }
    let options = Options { param_descriptions: true, ..Options::default() };
    let mut text = declare_tools(found.iter().copied(), script_names, &options);
    if !unknown.is_empty() {
        text.push('\n');
        text.push_str(&unknown_text(engine, &unknown, caller));
    }
    CallToolResult::success(vec![ContentBlock::text(text)])
}

/// A tool by its name or its script identifier.
fn tool_named<'e>(engine: &'e Engine, name: &str) -> Option<&'e ToolEntry> {
    engine.tool(name).or_else(|| engine.script_names().tool(name).and_then(|t| engine.tool(t)))
}

fn unknown_text(engine: &Engine, unknown: &[&str], caller: &Caller) -> String {
    unknown
        .iter()
        .map(|name| {
            let closest = crate::engine::meta::closest_names(engine.tools(), name, 3);
            let closest: Vec<String> = closest
                .into_iter()
                .filter(|c| engine.tool(c).is_some_and(|t| caller.may_use(&t.scopes)))
                .map(|c| engine.script_names().ident(&c).map_or(c.clone(), str::to_string))
                .collect();
            format!(
                "Unknown function `{name}`; the closest names: {}. Use {SEARCH_TOOLS} to find one.",
                closest.join(", ")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `run_script`: the script in the sandbox, its answer within the result budget.
async fn run_script(
    engine: &Engine,
    args: &Map<String, Value>,
    caller: &Caller,
    asker: Option<&Asker>,
    obs: &mut Observation,
) -> CallToolResult {
    let Some(code) = args.get("code").and_then(Value::as_str) else {
        return tool_error(format!("{RUN_SCRIPT} needs `code`: the script, as a string"));
    };
    let Some(engine_ref) = engine.code.me.upgrade() else {
        return tool_error("the server is shutting down".into());
    };
    let state = &engine.code;
    let limits = state.limits;
    let slot = match tokio::time::timeout(limits.wall, state.slots.clone().acquire_owned()).await {
        Ok(Ok(slot)) => slot,
        _ => {
            return tool_error(format!(
                "{SLOTS} scripts are already running on this server and none ended within {} s; try again shortly.",
                limits.wall.as_secs_f64()
            ));
        }
    };
    let host = Arc::new(EngineHost { engine: engine_ref, caller: caller.clone(), asker: asker.cloned() });
    let outcome = sandbox::run_in(code, limits, host, Some(slot)).await;
    tracing::debug!(calls = outcome.calls, elapsed_ms = outcome.elapsed.as_millis() as u64, "run_script");
    match outcome.answer {
        Ok(answer) => answered(answer, &outcome.printed, engine.result_budget(), &engine.lean_origins()),
        Err(stop) => {
            // Counted as the tool's failure, not the arguments' (the script was a string).
            obs.outcome = Some(Outcome::ToolError);
            stopped(&stop, &outcome.printed, outcome.calls)
        }
    }
}

/// The script's answer (text as it is, JSON rendered lean as a direct call's result is, for each
/// of the APIs' `origins`, then reduced to the budget with a note), then what it printed. Text
/// only: no output schema promises a structure, so a copy as `structuredContent` would only double
/// what the model reads (as lean results do not).
fn answered(answer: Answer, printed: &str, budget: usize, origins: &[String]) -> CallToolResult {
    let budget = if budget == 0 { usize::MAX } else { budget };
    let mut content = Vec::new();
    let text = match answer {
        Answer::Text(t) => cut_text(t, budget),
        Answer::Json(j) if origins.is_empty() && j.chars().count() <= budget => j,
        Answer::Json(j) => match Json::parse(j.as_bytes()) {
            Ok(mut value) => {
                for origin in origins {
                    crate::response::lean::lean(&mut value, origin);
                }
                let text = value.to_text();
                if text.chars().count() <= budget {
                    text
                } else {
                    let reduction = budget::fit(&mut value, budget.saturating_sub(300).max(budget / 2));
                    content.push(ContentBlock::text(reduction_note(&reduction, budget)));
                    value.to_text()
                }
            }
            Err(_) => cut_text(j, budget),
        },
    };
    content.insert(0, ContentBlock::text(text));
    if !printed.is_empty() {
        content.push(ContentBlock::text(format!("Printed:\n{}", cut_text(printed.to_string(), budget))));
    }
    CallToolResult::success(content)
}

/// What the reduction of an answer left out, and what to do.
fn reduction_note(reduction: &budget::Reduction, budget: usize) -> String {
    let mut note = format!("[mcpgen: the script's answer was reduced to fit {budget} characters.");
    for o in &reduction.omissions {
        let what = if o.members { "members" } else { "items" };
        note.push_str(&format!(" `{}`: the first {} of {} {what}.", o.path, o.kept, o.total));
    }
    if reduction.strings_cut > 0 {
        note.push_str(&format!(" {} long strings shortened.", reduction.strings_cut));
    }
    note.push_str(" Return less: select fields, count, or slice in the script.]");
    note
}

/// `text` within `budget` characters, with a marker when cut.
fn cut_text(text: String, budget: usize) -> String {
    let n = text.chars().count();
    if n <= budget {
        return text;
    }
    let kept: String = text.chars().take(budget.saturating_sub(80)).collect();
    format!("{kept}…[mcpgen: {} more characters; return less]", n - kept.chars().count())
}

/// The error result of a stopped script: why, what to do, and the end of what it printed.
fn stopped(stop: &Stop, printed: &str, calls: usize) -> CallToolResult {
    let advice = match stop {
        Stop::Threw(_) => "Fix the script and run it again.",
        Stop::Time(_) => "Do less in one script: fewer calls (the API's own filters and page sizes), no busy loops.",
        Stop::Memory(_) => "Keep less in memory: select the fields you need as you go.",
        Stop::Calls(_) => "Make fewer calls: use the API's filters, larger pages, or split the task into scripts.",
        Stop::Output(_) => "Return less: count, select fields or slice in the script.",
        Stop::TooLong(_) => "Write a shorter script.",
        Stop::Cancelled => "",
        Stop::Internal(_) => "Try again.",
    };
    let mut text = format!("{stop}. {advice} ({calls} API call{} made.)", if calls == 1 { "" } else { "s" });
    if !printed.is_empty() {
        let chars: Vec<char> = printed.chars().collect();
        let tail: String = chars[chars.len().saturating_sub(PRINTED_ON_ERROR)..].iter().collect();
        text.push_str(&format!("\nPrinted before it stopped:\n{tail}"));
    }
    tool_error(text)
}

/// The API functions of one script: each a call through the engine for the script's caller.
struct EngineHost {
    engine: Arc<Engine>,
    caller: Caller,
    asker: Option<Asker>,
}

impl Host for EngineHost {
    fn call(&self, function: String, args: String) -> Pin<Box<dyn Future<Output = Reply> + Send>> {
        let engine = self.engine.clone();
        let caller = self.caller.clone();
        let asker = self.asker.clone();
        Box::pin(async move { script_call(&engine, &function, &args, &caller, asker.as_ref()).await })
    }
}

/// One API call from a script.
async fn script_call(engine: &Engine, function: &str, args: &str, caller: &Caller, asker: Option<&Asker>) -> Reply {
    let Some(tool) = tool_named(engine, function).filter(|t| caller.may_use(&t.scopes)) else {
        let closest = unknown_text(engine, &[function], caller);
        return Reply::Unknown(format!("api.{function} is not a function of this API. {closest}"));
    };
    let args = match serde_json::from_str::<Value>(args) {
        Ok(Value::Object(a)) => a,
        _ => return Reply::Refused(format!("the argument of api.{function} must be an object of its arguments")),
    };
    if let Some(asker) = asker
        && let Some(refusal) = asker.check(engine, tool, &args).await
    {
        return Reply::Refused(refusal);
    }
    let name = tool.mcp.name.to_string();
    let (result, sent) = engine.call_for_script(&name, args, caller).await;
    match result {
        Err(e) => Reply::Refused(e.to_string()),
        Ok(result) if result.is_error == Some(true) && !sent => Reply::Refused(text_of(&result)),
        Ok(result) if result.is_error == Some(true) => Reply::Failed(text_of(&result)),
        Ok(result) => match Kind::of(&result) {
            Some(Kind::Json) => Reply::Json(text_of(&result)),
            Some(Kind::Text) => Reply::Text(text_of(&result)),
            Some(Kind::Empty) => Reply::Empty,
            // A handler's result (a tool without an HTTP binding): its JSON if it is some.
            None => {
                let text = text_of(&result);
                if serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok() {
                    Reply::Json(text)
                } else {
                    Reply::Text(text)
                }
            }
        },
    }
}

/// A result's text blocks, joined.
fn text_of(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect::<Vec<_>>().join("\n")
}

impl Engine {
    /// The origins the engine's requests go to (every API's base URL, and tools' own), whose
    /// URLs a lean rendering drops from what code returns; none when results are rendered in
    /// full.
    pub(crate) fn lean_origins(&self) -> Vec<String> {
        if self.rendering.detail == crate::config::ResponseDetail::Full {
            return Vec::new();
        }
        let apis = std::iter::once(&self.default_target).chain(&self.apis).filter_map(|t| t.base_url.as_deref());
        let tools = self.tools.iter().filter_map(|t| t.http.as_ref()?.base_url.as_deref());
        let origins: std::collections::BTreeSet<String> = apis
            .chain(tools)
            .filter_map(|u| reqwest::Url::parse(u).ok())
            .map(|u| crate::response::lean::origin_of(&u))
            .collect();
        origins.into_iter().collect()
    }

    /// The tools' names in scripts (made on first use).
    pub fn script_names(&self) -> &ScriptNames {
        self.code.names.get_or_init(|| ScriptNames::new(self.tools.iter().map(|t| &*t.mcp.name)))
    }

    /// A call from a script: as a direct call of the tool (validated, authorized, counted,
    /// logged), its result whole for the script (`Delivery::Script`), and whether a request went
    /// to the API (not when the arguments, a hook, the credentials or the scopes stopped it).
    pub async fn call_for_script(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
    ) -> (crate::error::Result<CallToolResult>, bool) {
        let via = Via { delivery: Delivery::Script, ..Via::default() };
        let (result, outcome, _) = self.observed(name, args, Surface::AllTools, caller, via).await;
        (result, outcome.sent())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(r: &CallToolResult, i: usize) -> String {
        r.content[i].as_text().map(|t| t.text.clone()).unwrap_or_default()
    }

    /// What a script returns is rendered as lean as a direct call's result: the API's own URLs
    /// go, so more items fit; the website's stay.
    #[test]
    fn a_scripts_answer_is_rendered_lean() {
        let pulls: Vec<String> = (0..30)
            .map(|n| {
                format!(
                    r#"{{"number":{n},"title":"fix {n}","url":"https://api.github.com/repos/o/r/pulls/{n}","commits_url":"https://api.github.com/repos/o/r/pulls/{n}/commits","html_url":"https://github.com/o/r/pull/{n}"}}"#
                )
            })
            .collect();
        let answer = format!("[{}]", pulls.join(","));
        let origins = ["https://api.github.com".to_string()];
        let r = answered(Answer::Json(answer.clone()), "", 40_000, &origins);
        let lean = text(&r, 0);
        assert!(!lean.contains("api.github.com") && lean.contains("https://github.com/o/r/pull/29"), "{lean}");
        assert_eq!(r.content.len(), 1, "it fits: no note");
        let full = answered(Answer::Json(answer.clone()), "", 40_000, &[]);
        assert_eq!(text(&full, 0), answer, "in full, as returned");
        let tight = answered(Answer::Json(answer), "", 1_500, &origins);
        assert!(text(&tight, 1).contains("the first"), "reduced after lean, with a note");
        let kept_lean = text(&tight, 0).matches("\"number\"").count();
        let tight_full = answered(Answer::Json(format!("[{}]", pulls.join(","))), "", 1_500, &[]);
        let kept_full = text(&tight_full, 0).matches("\"number\"").count();
        assert!(kept_lean > 2 * kept_full, "lean keeps more items: {kept_lean} against {kept_full}");
    }
}
