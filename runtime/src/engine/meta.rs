//! Discovery mode: instead of every tool, `tools/list` shows three — `search_tools`,
//! `describe_tools`, `call_tool` — so that a 1,000-operation API costs a few hundred tokens of
//! context instead of hundreds of thousands. The API's tools keep their names behind `call_tool`;
//! a call through it is exactly the direct call. (Feature `discovery`; the search itself is in
//! [`crate::discovery`].)

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, Tool as McpTool, ToolAnnotations};
use serde_json::{Map, Value, json};

use crate::discovery::compact::compact_description;
use crate::discovery::finder::Finder;
use crate::engine::caller::Caller;
pub use crate::engine::exposure::{CALL_TOOL, DESCRIBE_TOOLS, Exposure, META_TOOLS, SEARCH_TOOLS};
use crate::engine::{Engine, Observation, ToolEntry, tool_error};
use crate::error::{Error, Result};

/// Hits `search_tools` returns when the call gives no `limit`.
pub const DEFAULT_LIMIT: u64 = 8;
/// The largest `limit` `search_tools` accepts.
pub const MAX_LIMIT: u64 = 50;
/// The most tools one `describe_tools` call describes.
pub const MAX_DESCRIBE: usize = 20;

/// The tools that `--pin-tool` globs name, in catalogue order. A discovery tool's name cannot be
/// pinned (the discovery tool keeps it); a glob that matches nothing is a warning.
pub fn pinned(globs: &[String], tools: &[ToolEntry]) -> Result<Vec<usize>> {
    let patterns = globs
        .iter()
        .map(|g| glob::Pattern::new(g).map_err(|e| Error::Config(format!("invalid --pin-tool glob {g:?}: {e}"))))
        .collect::<Result<Vec<_>>>()?;
    let mut matched = vec![false; patterns.len()];
    let mut out = Vec::new();
    for (i, t) in tools.iter().enumerate() {
        let name: &str = &t.mcp.name;
        let mut hit = false;
        for (p, m) in patterns.iter().zip(matched.iter_mut()) {
            if p.matches(name) {
                *m = true;
                hit = true;
            }
        }
        if hit && META_TOOLS.contains(&name) {
            tracing::warn!(
                "`{name}` cannot be pinned: the discovery tool of that name is listed; call it through call_tool"
            );
        } else if hit {
            out.push(i);
        }
    }
    for (g, m) in globs.iter().zip(matched) {
        if !m {
            tracing::warn!("--pin-tool {g:?} matches no tool");
        }
    }
    Ok(out)
}

/// What `tools/list` shows: every tool, or the discovery tools and the pinned ones.
pub fn listed(exposure: &Exposure, pins: &[String], tools: &[ToolEntry]) -> Result<Vec<McpTool>> {
    if !exposure.discovery {
        return Ok(tools.iter().map(|t| t.advertised(exposure.compact)).collect());
    }
    let pinned = pinned(pins, tools)?.into_iter().map(|i| tools[i].advertised(exposure.compact));
    Ok(meta_tools().into_iter().chain(pinned).collect())
}

/// The three discovery tools.
pub fn meta_tools() -> Vec<McpTool> {
    let read_only = ToolAnnotations::new().read_only(true).destructive(false).idempotent(true).open_world(false);
    // call_tool reaches any of the API's tools: it promises nothing about what they do.
    let any_call = ToolAnnotations::new().read_only(false).destructive(true).idempotent(false).open_world(true);
    let tool = |name: &str, title: &str, description: &str, schema: Value, annotations: ToolAnnotations| {
        let schema = match schema {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        let mut t = McpTool::new_with_raw(name.to_string(), Some(description.to_string().into()), Arc::new(schema));
        t.title = Some(title.to_string());
        t.annotations = Some(annotations);
        t
    };
    vec![
        tool(
            SEARCH_TOOLS,
            "Search the API's tools",
            "Find this API's tools by what you want to do, in plain words (e.g. \"list the open issues of a \
             repository\"). Returns the best matches first: name, HTTP method and path, required arguments and \
             a one-line description. Next: describe_tools for their input schemas, then call_tool.",
            json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "What you want to do, or a tool name."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT,
                          "description": "How many tools to return."}},
                "required": ["query"], "additionalProperties": false}),
            read_only.clone(),
        ),
        tool(
            DESCRIBE_TOOLS,
            "Describe tools",
            "The full definitions (description, input schema, annotations, the response's shape) of up to 20 \
             tools, by the names search_tools returned. Read a tool's input schema before calling it with call_tool.",
            json!({"type": "object", "properties": {
                "names": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": MAX_DESCRIBE,
                          "description": "Tool names."}},
                "required": ["names"], "additionalProperties": false}),
            read_only,
        ),
        tool(
            CALL_TOOL,
            "Call a tool",
            "Call one of this API's tools by name, with arguments that match its input schema (from \
             describe_tools). Returns exactly what the tool returns.",
            json!({"type": "object", "properties": {
                "name": {"type": "string", "description": "The tool's name."},
                "arguments": {"type": "object", "description": "The tool's arguments.", "default": {}},
                "_jq": {"type": "string", "description": "A jq filter applied to the tool's JSON response (see the server instructions)."}},
                "required": ["name"], "additionalProperties": false}),
            any_call,
        ),
    ]
}

/// Areas of the API with their tool counts, largest first (see [`crate::engine::overview::areas`]).
pub fn groups(tools: &[ToolEntry]) -> Vec<(String, usize)> {
    groups_of(tools.iter())
}

/// [`groups`] of some tools.
fn groups_of<'a>(tools: impl Iterator<Item = &'a ToolEntry>) -> Vec<(String, usize)> {
    crate::engine::overview::areas(tools)
}

/// Answers a call to a discovery tool; `None` when `name` is not one. The caller finds, sees
/// and calls only the tools its scopes allow; a `call_tool` notes the API tool it calls in `obs`.
pub async fn call_meta(
    engine: &Engine,
    name: &str,
    args: &Map<String, Value>,
    caller: &Caller,
    obs: &mut Observation,
) -> Option<CallToolResult> {
    Some(match name {
        SEARCH_TOOLS => search_tools(engine, args, caller).await,
        DESCRIBE_TOOLS => describe_tools(engine, args, caller),
        CALL_TOOL => call_tool(engine, args, caller, obs).await,
        _ => return None,
    })
}

async fn search_tools(engine: &Engine, args: &Map<String, Value>, caller: &Caller) -> CallToolResult {
    let Some(query) = args.get("query").and_then(Value::as_str) else {
        return tool_error(format!("{SEARCH_TOOLS} needs `query`: what you want to do, in plain words"));
    };
    let limit = match args.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_LIMIT).contains(&n) => n,
            _ => return tool_error(format!("`limit` must be an integer from 1 to {MAX_LIMIT}")),
        },
    };
    let tools = engine.tools();
    if caller.is_restricted() {
        let allowed = |i: usize| caller.may_use(&tools[i].scopes);
        return search_result_for(tools, &engine.finder(), query, limit as usize, &allowed);
    }
    search_result(tools, &engine.finder(), query, limit as usize)
}

/// The search answer: the hits as structured content and compact text; no hit gives the map.
pub fn search_result(tools: &[ToolEntry], finder: &Finder<'_>, query: &str, limit: usize) -> CallToolResult {
    search_result_for(tools, finder, query, limit, &|_| true)
}

/// [`search_result`] over the tools `allowed` says yes to (by catalogue index).
pub fn search_result_for(
    tools: &[ToolEntry],
    finder: &Finder<'_>,
    query: &str,
    limit: usize,
    allowed: &dyn Fn(usize) -> bool,
) -> CallToolResult {
    let all = (0..tools.len()).all(allowed);
    let hits: Vec<(usize, f32)> = if all {
        finder.search(query, limit)
    } else {
        finder.search(query, tools.len()).into_iter().filter(|(i, _)| allowed(*i)).take(limit).collect()
    };
    if hits.is_empty() {
        return closest_result(tools, finder, query, limit, allowed, all);
    }
    let (text, found) = hit_lines(tools, hits);
    let mut result = CallToolResult::success(vec![ContentBlock::text(text.trim_end().to_string())]);
    result.structured_content = Some(json!({ "tools": found }));
    result
}

/// The hits as text lines and as JSON.
fn hit_lines(tools: &[ToolEntry], hits: Vec<(usize, f32)>) -> (String, Vec<Value>) {
    let mut text = String::new();
    let mut found = Vec::with_capacity(hits.len());
    for (i, _) in hits {
        let summary = summary(&tools[i]);
        text.push_str(&summary.line());
        text.push('\n');
        found.push(summary.json());
    }
    (text, found)
}

/// The answer to a request whose words match no tool: the closest tools by spelling
/// ([`crate::discovery::search::SearchIndex::closest`]), marked as such, and the map of the API.
fn closest_result(
    tools: &[ToolEntry],
    finder: &Finder<'_>,
    query: &str,
    limit: usize,
    allowed: &dyn Fn(usize) -> bool,
    all: bool,
) -> CallToolResult {
    let groups = if all {
        groups(tools)
    } else {
        groups_of(tools.iter().enumerate().filter(|(i, _)| allowed(*i)).map(|(_, t)| t))
    };
    let closest: Vec<(usize, f32)> =
        finder.index.closest(query, tools.len()).into_iter().filter(|(i, _)| allowed(*i)).take(limit).collect();
    let mut text = format!("No tool has the words of {query:?}.");
    let (lines, found) = hit_lines(tools, closest);
    if !lines.is_empty() {
        text.push_str(" The closest by spelling:\n");
        text.push_str(lines.trim_end());
    }
    text.push_str("\n\nTry other words, or an area of the API:");
    for (name, count) in &groups {
        text.push_str(&format!("\n- {name}: {count} tools"));
    }
    let areas: Vec<Value> = groups.iter().map(|(name, tools)| json!({"area": name, "tools": tools})).collect();
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({"tools": found, "closest": true, "areas": areas}));
    result
}

/// What a search hit says of a tool.
struct Summary<'a> {
    tool: &'a ToolEntry,
    description: String,
    required: Vec<String>,
}

fn summary(tool: &ToolEntry) -> Summary<'_> {
    let description = compact_description(tool.mcp.description.as_deref().unwrap_or(""), tool.mcp.title.as_deref());
    let required = tool
        .input_schema
        .parse()
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).map(str::to_string).collect())
        .unwrap_or_default();
    Summary { tool, description, required }
}

impl Summary<'_> {
    fn json(&self) -> Value {
        let t = self.tool;
        let mut hit = Map::new();
        hit.insert("name".into(), json!(t.mcp.name));
        if let Some(title) = &t.mcp.title {
            hit.insert("title".into(), json!(title));
        }
        hit.insert("description".into(), json!(self.description));
        if let Some(http) = &t.http {
            hit.insert("method".into(), json!(http.method));
            hit.insert("path".into(), json!(http.path));
        }
        hit.insert("required".into(), json!(self.required));
        hit.insert("annotations".into(), serde_json::to_value(&t.mcp.annotations).unwrap_or(Value::Null));
        Value::Object(hit)
    }

    /// `name  GET /path  (required: a, b)  read-only` and the description, for text-only clients.
    fn line(&self) -> String {
        let t = self.tool;
        let mut line = t.mcp.name.to_string();
        if let Some(http) = &t.http {
            line.push_str(&format!("  {} {}", http.method, http.path));
        }
        if !self.required.is_empty() {
            line.push_str(&format!("  (required: {})", self.required.join(", ")));
        }
        if t.mcp.annotations.as_ref().and_then(|a| a.read_only_hint) == Some(true) {
            line.push_str("  read-only");
        }
        let title = t.mcp.title.as_deref().unwrap_or("");
        let about = match (title, self.description.as_str()) {
            ("", d) => d.to_string(),
            (t, d) if d.is_empty() || d == t => t.to_string(),
            (t, d) => format!("{}: {d}", t.trim_end_matches('.')),
        };
        if !about.is_empty() {
            line.push_str("\n  ");
            line.push_str(&about);
        }
        line
    }
}

/// The `names` a `describe_tools` call asks for (of `noun`s: tools, or code mode's functions), or
/// the error result saying what is wrong with them.
pub fn requested_names<'a>(
    args: &'a Map<String, Value>,
    noun: &str,
) -> std::result::Result<Vec<&'a str>, CallToolResult> {
    match args.get("names") {
        Some(Value::Array(list)) if !list.is_empty() && list.len() <= MAX_DESCRIBE => list
            .iter()
            .map(Value::as_str)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| tool_error(format!("`names` must be a list of {noun} names (strings)"))),
        Some(Value::Array(list)) if list.len() > MAX_DESCRIBE => {
            Err(tool_error(format!("at most {MAX_DESCRIBE} names at a time; got {}", list.len())))
        }
        _ => Err(tool_error(format!("{DESCRIBE_TOOLS} needs `names`: a list of {noun} names from {SEARCH_TOOLS}"))),
    }
}

fn describe_tools(engine: &Engine, args: &Map<String, Value>, caller: &Caller) -> CallToolResult {
    let names = match requested_names(args, "tool") {
        Ok(names) => names,
        Err(e) => return e,
    };
    let mut described = Vec::new();
    let mut unknown = Vec::new();
    for name in names {
        // A tool outside the caller's scopes is as unknown as one that does not exist.
        match engine.tool(name).filter(|t| caller.may_use(&t.scopes)) {
            Some(t) => {
                let mut tool = serde_json::to_value(t.described(engine.exposure().compact)).unwrap_or(Value::Null);
                // What the response looks like, so that a `_jq` filter can be written before a call.
                if let (Value::Object(fields), Some(shape)) = (&mut tool, &t.results.shape) {
                    fields.insert("response".into(), json!(shape));
                }
                described.push(tool)
            }
            None => unknown.push(json!({"name": name, "closest": closest_names_for(engine.tools(), name, 3, caller)})),
        }
    }
    if described.is_empty() {
        return tool_error(unknown_text(&unknown));
    }
    let mut structured = json!({ "tools": described });
    let mut text = serde_json::to_string(&structured["tools"]).unwrap_or_default();
    if !unknown.is_empty() {
        text.push('\n');
        text.push_str(&unknown_text(&unknown));
        structured["unknown"] = Value::Array(unknown);
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

fn unknown_text(unknown: &[Value]) -> String {
    unknown
        .iter()
        .map(|u| {
            let closest: Vec<&str> = u["closest"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            format!("Unknown tool `{}`; the closest names: {}.", u["name"].as_str().unwrap_or(""), closest.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The API tool's call goes into `obs`: it is counted and logged as that tool's.
async fn call_tool(
    engine: &Engine,
    args: &Map<String, Value>,
    caller: &Caller,
    obs: &mut Observation,
) -> CallToolResult {
    let Some(name) = args.get("name").and_then(Value::as_str) else {
        return tool_error(format!("{CALL_TOOL} needs `name`: a tool name from {SEARCH_TOOLS}"));
    };
    let arguments = match args.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => return tool_error(format!("`arguments` must be an object (the arguments of `{name}`)")),
    };
    let mut arguments = arguments;
    // The filter beside the arguments goes to the tool under its projection argument's name.
    if let Some(filter) = args.get(crate::engine::results::JQ_ARG).filter(|f| !f.is_null()) {
        match engine.tool(name).and_then(|t| t.results.jq_arg.as_deref()) {
            Some(arg) => {
                arguments.insert(arg.to_string(), filter.clone());
            }
            None if engine.tool(name).is_some() => {
                return tool_error(format!("`{name}` does not answer JSON, so it takes no `_jq` filter"));
            }
            None => {}
        }
    }
    match engine.call_observing(name, arguments, caller, obs).await {
        Ok(result) => result,
        Err(Error::UnknownTool(name)) => {
            let closest = closest_names_for(engine.tools(), &name, 3, caller);
            tool_error(format!(
                "Unknown tool `{name}`; the closest names: {}. Use {SEARCH_TOOLS} to find a tool.",
                closest.join(", ")
            ))
        }
        Err(e) => tool_error(e.to_string()),
    }
}

/// The `n` tool names closest to `name` (edit distance, case-insensitive); ties in catalogue order.
#[cfg(feature = "code")]
pub fn closest_names(tools: &[ToolEntry], name: &str, n: usize) -> Vec<String> {
    closest_names_for(tools, name, n, &Caller::Trusted)
}

/// [`closest_names`] among the tools `caller` may use.
fn closest_names_for(tools: &[ToolEntry], name: &str, n: usize, caller: &Caller) -> Vec<String> {
    let usable = tools.iter().filter(|t| caller.may_use(&t.scopes)).map(|t| (t, &*t.mcp.name));
    crate::engine::args::by_closeness(name, usable).into_iter().take(n).map(|(_, t)| t.mcp.name.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Annotations, Context, ListTokens, SchemaDetail, Tool, ToolMode};
    use crate::engine::exposure::resolve;

    fn tool(name: &str) -> Tool {
        Tool {
            name: name.into(),
            title: None,
            operation_id: None,
            tags: Vec::new(),
            description: "d".into(),
            input_schema: serde_json::Map::from_iter([("type".to_string(), json!("object"))]),
            output_schema: None,
            annotations: Annotations {
                title: None,
                read_only_hint: true,
                destructive_hint: false,
                idempotent_hint: true,
                open_world_hint: true,
            },
            http: None,
            scopes: Vec::new(),
            api: None,
            response: None,
            fixed_arguments: Default::default(),
            default_arguments: Default::default(),
        }
    }

    fn tools(n: usize) -> Vec<Tool> {
        (0..n).map(|i| tool(&format!("t{i}"))).collect()
    }

    #[test]
    fn auto_lists_every_tool_of_a_small_api() {
        let e = resolve(&Context::default(), &tools(40), &Default::default());
        assert!(!e.discovery && !e.compact, "{e:?}");
        assert!(e.reason.contains("40 tools, about"), "{}", e.reason);
    }

    #[test]
    fn auto_discovers_past_the_tool_limit() {
        let e = resolve(&Context::default(), &tools(41), &Default::default());
        assert!(e.discovery && !e.compact, "{e:?}");
        assert!(e.reason.contains("41 tools is more than 40"), "{}", e.reason);
    }

    #[test]
    fn auto_discovers_past_the_token_limit_with_compact_schemas() {
        let ctx =
            Context { tools_list_tokens: Some(ListTokens { full: 20_001, compact: 9_000 }), ..Context::default() };
        let e = resolve(&ctx, &tools(3), &Default::default());
        assert!(e.discovery && e.compact, "{e:?}");
        assert!(e.reason.contains("20,001 tokens, more than 20,000"), "{}", e.reason);
        let at = Context { tools_list_tokens: Some(ListTokens { full: 20_000, compact: 9_000 }), ..Context::default() };
        assert!(!resolve(&at, &tools(3), &Default::default()).discovery);
    }

    #[test]
    fn explicit_modes_win() {
        let all = Context { tool_mode: ToolMode::All, ..Context::default() };
        assert!(!resolve(&all, &tools(500), &Default::default()).discovery);
        let disc =
            Context { tool_mode: ToolMode::Discovery, schema_detail: SchemaDetail::Compact, ..Context::default() };
        let e = resolve(&disc, &tools(1), &Default::default());
        assert!(e.discovery && e.compact);
    }
}
