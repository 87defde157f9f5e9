//! Stage 3, tools: the [`ApiIr`] to the tool set, as the [`RuntimeConfig`] the engine serves.
//!
//! Naming, filtering, input-schema merge with argument bindings, annotations and the
//! output-schema policy all happen here.

mod filter;
pub(crate) mod inline;
pub(crate) mod input;
pub(crate) mod naming;
mod response;
pub(crate) mod security;
mod simplify;

use std::collections::BTreeMap;

use serde_json::{Value, json};

use mcpgen_config::JsonObject;

pub use filter::Filter;
pub(crate) use inline::InlineLimits;

use crate::conventions;
use crate::diag::{DiagKind, Diagnostic, child};
use crate::error::{Error, Result};
use crate::ir::{ApiIr, Function, Method, Operation};
use mcpgen_config::{
    Annotations, BodyBinding, CONFIG_FORMAT_VERSION, HttpBinding, Limits, RuntimeConfig, ServerInfo, Tool, Upstream,
};

/// Whether tools declare an `outputSchema`. Declaring one obliges every success to conform,
/// and real APIs often break their own schemas, so it is opt-in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputSchemaPolicy {
    /// No output schemas (results still carry structured content).
    #[default]
    None,
    /// The 2xx JSON response schema, object-wrapped (`{"result": ...}`) when it is not an object.
    Full,
}

/// How the tools stage builds tools.
#[derive(Debug, Clone)]
pub struct ToolOptions {
    /// Which operations become tools. Names are allocated before it applies, so it renames nothing.
    pub filter: Filter,
    /// Longest tool name (8 to 128; default 64): longer ones lose whole words (`naming::shorten`),
    /// told apart by a word that differs; a stable hash only when no whole word can go.
    pub max_name_len: usize,
    /// Longest tool description and server instructions, in characters (default 1024); longer ones
    /// are cut, ending in `…`.
    pub max_description_len: usize,
    /// Whether tools declare an output schema (default: none).
    pub output_schema: OutputSchemaPolicy,
    /// Overrides the document's servers.
    pub base_url: Option<String>,
    /// Prefix of credential env vars; derived from the API title when `None`.
    pub env_prefix: Option<String>,
    /// How far `$ref`s are inlined into tool schemas (depth, size).
    pub inline: InlineLimits,
    /// Credentials (`--auth`) for every operation that declares no scheme of its own.
    pub auth: Vec<mcpgen_config::SecurityScheme>,
    /// What every tool name starts with (`github_`, when several APIs are served as one); empty
    /// by default. Names are made and filtered without it, then shortened to leave it room.
    pub name_prefix: String,
}

impl Default for ToolOptions {
    fn default() -> Self {
        ToolOptions {
            filter: Filter::default(),
            max_name_len: 64,
            max_description_len: 1024,
            output_schema: OutputSchemaPolicy::None,
            base_url: None,
            env_prefix: None,
            inline: InlineLimits::default(),
            auth: Vec::new(),
            name_prefix: String::new(),
        }
    }
}

/// The tools of an API: the runtime config, plus what inspect reports about where they came from.
#[derive(Debug, Clone)]
pub struct ToolSet {
    /// The runtime config: server info, upstream, credentials and the tools.
    pub config: RuntimeConfig,
    /// By tool name: the operation or function each tool comes from.
    pub sources: BTreeMap<String, ToolSource>,
    /// Operations (or functions) in the input, before filtering.
    pub operations: usize,
    /// What the tools stage noticed (renamed tools, schemas cut short, ...).
    pub diagnostics: Vec<Diagnostic>,
}

impl ToolSet {
    /// Where the tool `name` comes from.
    pub fn source(&self, name: &str) -> Option<&ToolSource> {
        self.sources.get(name)
    }
}

/// Where a tool comes from.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ToolSource {
    /// JSON pointer of the operation or function in its document (the IR's `pointer`).
    pub pointer: String,
}

/// The tools of `ir`, the API read from `origin` (which error messages name).
pub fn build(ir: &ApiIr, origin: &str, opts: &ToolOptions) -> Result<ToolSet> {
    let mut diagnostics = Vec::new();
    let prefix = opts.env_prefix.clone().unwrap_or_else(|| crate::names::env_prefix(&ir.info.title));
    let mut security_schemes = security::runtime_schemes(&ir.security_schemes, &prefix);
    let default_security = security::add_cli_schemes(&mut security_schemes, &opts.auth);
    security::add_authorization_header(&mut security_schemes, &ir.operations, &prefix);
    security_schemes.extend(ir.credentials.clone());
    let (mut tools, sources) = kept_tools(ir, opts, &security_schemes, &mut diagnostics)?;
    // `--auth` credentials go to every tool that declares no scheme of its own.
    if !default_security.is_empty() {
        for http in tools.iter_mut().filter_map(|t| t.http.as_mut()).filter(|h| h.security.is_empty()) {
            http.security = vec![default_security.clone()];
        }
    }
    for tool in &mut tools {
        credential_parameters(tool, &security_schemes, &sources, &mut diagnostics);
    }
    let operations = ir.operations.len() + ir.functions.len();
    if tools.is_empty() {
        let reason = if operations > 0 && !opts.filter.is_empty() {
            format!("the filters exclude all {operations} operations")
        } else {
            "every operation is hidden by x-mcp".to_string()
        };
        return Err(Error::NoTools { origin: origin.to_string(), reason, diagnostics: Vec::new() });
    }
    let config = runtime_config(ir, opts, tools, security_schemes);
    Ok(ToolSet { config, sources, operations, diagnostics })
}

/// The tools of the operations and functions that are neither hidden nor filtered out, each with
/// where it comes from. Names are allocated over all operations before filtering, so that a
/// filter never changes the name of a tool it keeps. The tools are built on every core (Microsoft
/// Graph's 11,422 take most of a start-up), and come out, with their diagnostics, in the order
/// of the operations.
fn kept_tools(
    ir: &ApiIr,
    opts: &ToolOptions,
    security_schemes: &BTreeMap<String, mcpgen_config::SecurityScheme>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<(Vec<Tool>, BTreeMap<String, ToolSource>)> {
    // The prefix takes its room from the names' length, so prefixed names stay within the limit.
    let room = opts.max_name_len.clamp(8, 128).saturating_sub(opts.name_prefix.len()).max(8);
    let mut names = naming::tool_names(ir, room).into_iter();
    let mut wanted: Vec<(Source<'_>, String)> = Vec::with_capacity(ir.operations.len() + ir.functions.len());
    wanted.extend(ir.operations.iter().map(|op| (Source::Operation(op), names.next().unwrap_or_default())));
    wanted.extend(ir.functions.iter().map(|f| (Source::Function(f), names.next().unwrap_or_default())));
    let built =
        crate::parallel::map_in_order(&wanted, |(source, name)| kept_tool(*source, name, ir, opts, security_schemes));
    let mut tools = Vec::new();
    let mut sources = BTreeMap::new();
    for result in built {
        let (notes, kept) = result?;
        diagnostics.extend(notes);
        if let Some((tool, pointer)) = kept {
            sources.insert(tool.name.clone(), ToolSource { pointer: pointer.to_string() });
            tools.push(tool);
        }
    }
    Ok((tools, sources))
}

/// What a tool is made from: an operation (bound to a function, maybe), or a function alone.
#[derive(Clone, Copy)]
enum Source<'a> {
    Operation(&'a Operation),
    Function(&'a Function),
}

/// The tool of one operation or function named `name` (none when it is hidden or filtered
/// out), with the pointer it comes from, and its diagnostics.
type Kept<'a> = (Vec<Diagnostic>, Option<(Tool, &'a str)>);

fn kept_tool<'a>(
    source: Source<'a>,
    name: &str,
    ir: &ApiIr,
    opts: &ToolOptions,
    security_schemes: &BTreeMap<String, mcpgen_config::SecurityScheme>,
) -> Result<Kept<'a>> {
    let mut diagnostics = Vec::new();
    match source {
        Source::Operation(op) => {
            match &op.function {
                Some(f) => function_renamed(f, name, &mut diagnostics),
                None => operation_renamed(op, name, &mut diagnostics),
            }
            if op.mcp.hidden || !opts.filter.keeps(name, Some(op)) {
                return Ok((diagnostics, None));
            }
            let name = format!("{}{name}", opts.name_prefix);
            let tool = match &op.function {
                Some(f) => {
                    let http = bound_binding(op, ir, security_schemes);
                    function_tool(f, name, Some(http), ir, opts, &mut diagnostics)?
                }
                None => operation_tool(op, name, ir, opts, security_schemes, &mut diagnostics)?,
            };
            Ok((diagnostics, Some((tool, &op.pointer))))
        }
        Source::Function(f) => {
            function_renamed(f, name, &mut diagnostics);
            if f.mcp.hidden || !opts.filter.keeps(name, None) {
                return Ok((diagnostics, None));
            }
            if let Some(file) = &ir.bindings_file {
                return Err(crate::normalize::missing_binding(file, &f.name));
            }
            let name = format!("{}{name}", opts.name_prefix);
            let tool = function_tool(f, name, None, ir, opts, &mut diagnostics)?;
            Ok((diagnostics, Some((tool, &f.pointer))))
        }
    }
}

/// The runtime config of `ir`'s tools: the server named after the API, its upstream and the
/// credentials its tools use; limits and context at their defaults (the commands' flags set them).
fn runtime_config(
    ir: &ApiIr,
    opts: &ToolOptions,
    tools: Vec<Tool>,
    security_schemes: BTreeMap<String, mcpgen_config::SecurityScheme>,
) -> RuntimeConfig {
    let base_url = opts.base_url.clone().or_else(|| ir.servers.first().cloned());
    let (instructions, tags) = about_the_api(ir, &tools, opts.max_description_len);
    RuntimeConfig {
        mcpgen_config: CONFIG_FORMAT_VERSION,
        server: ServerInfo {
            name: naming::sanitize(&ir.info.title).to_ascii_lowercase(),
            version: ir.info.version.clone(),
            title: Some(ir.info.title.clone()),
            instructions,
        },
        tags,
        upstream: Upstream { base_url, headers: ir.headers.clone(), auth: None },
        security_schemes,
        limits: Limits::default(),
        context: Default::default(),
        resources: Default::default(),
        tools,
        apis: Vec::new(),
        definitions: Default::default(),
        fragments: Default::default(),
    }
}

/// Takes out of `tool`'s arguments the parameters that sit where a credential of its security
/// goes: the operator's credential is sent there, whatever the model says (a tenant header the
/// model could switch otherwise).
fn credential_parameters(
    tool: &mut Tool,
    schemes: &BTreeMap<String, mcpgen_config::SecurityScheme>,
    sources: &BTreeMap<String, ToolSource>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let pointer = sources.get(&tool.name).map(|s| s.pointer.as_str()).unwrap_or_default();
    for taken in tool.strip_credential_arguments(schemes) {
        diagnostics.push(Diagnostic::new(
            DiagKind::CredentialParameter,
            pointer,
            format!(
                "{} `{}` is the credential of security scheme `{}`: sent from its env var, not an argument",
                taken.location.as_str(),
                taken.name,
                taken.scheme
            ),
        ));
    }
}

/// What the server says of the API, as plain text (its description is untrusted input to a
/// model): the server instructions, the first paragraph of `info.description` (at most 300
/// characters, and `max_description_len`); and what each area of the tools is for, the first
/// sentence of the description of each tag that is some tool's first (see
/// `mcpgen_runtime::engine::overview`).
fn about_the_api(ir: &ApiIr, tools: &[Tool], max_description_len: usize) -> (Option<String>, BTreeMap<String, String>) {
    use mcpgen_config::text::{api_summary, area_summary};
    let instructions = ir.info.description.as_deref().map(|d| cap_words(&api_summary(d), max_description_len));
    let tags = tools
        .iter()
        .filter_map(|t| t.tags.first())
        .filter_map(|tag| Some((tag.clone(), area_summary(ir.info.tags.get(tag)?))))
        .filter(|(_, about)| !about.is_empty())
        .collect();
    (instructions.filter(|i| !i.is_empty()), tags)
}

/// A note when an operation's tool is not named as its `x-mcp.name` or operationId says.
fn operation_renamed(op: &Operation, name: &str, diagnostics: &mut Vec<Diagnostic>) {
    let original = op.mcp.name.as_deref().or(op.operation_id.as_deref());
    if let Some(original) = original.filter(|o| *o != name) {
        diagnostics.push(Diagnostic::new(
            DiagKind::ToolRenamed,
            &op.pointer,
            format!("`{original}` is the tool `{name}`"),
        ));
    }
}

/// A note when a function's tool is not named as the function.
fn function_renamed(f: &Function, name: &str, diagnostics: &mut Vec<Diagnostic>) {
    if name != f.name {
        diagnostics.push(Diagnostic::new(
            DiagKind::ToolRenamed,
            &f.pointer,
            format!("`{}` is the tool `{name}`", f.name),
        ));
    }
}

/// How a bound function's operation is sent: its parameters and body as the binding placed the
/// arguments, under the names the function declares.
fn bound_binding(op: &Operation, ir: &ApiIr, schemes: &BTreeMap<String, mcpgen_config::SecurityScheme>) -> HttpBinding {
    let params = op
        .parameters
        .iter()
        .map(|p| input::param_binding(p, p.argument.clone().unwrap_or_else(|| p.name.clone())))
        .collect();
    let body = op.request_body.as_ref().and_then(|b| {
        Some(BodyBinding {
            media_type: b.content.first()?.media_type.clone(),
            required: b.required,
            content: b.arguments.clone()?,
        })
    });
    HttpBinding {
        method: op.method,
        path: op.path.clone(),
        params,
        body,
        security: security::requirements(op.security.as_deref().unwrap_or(&ir.security), schemes),
        // A function's own server stays, whatever the API's base URL.
        base_url: op.servers.first().cloned(),
        headers: BTreeMap::new(),
        query: BTreeMap::new(),
    }
}

fn operation_tool(
    op: &Operation,
    name: String,
    ir: &ApiIr,
    opts: &ToolOptions,
    schemes: &BTreeMap<String, mcpgen_config::SecurityScheme>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Tool> {
    let input = input::build_input(op, &ir.schemas, opts.inline);
    diagnostics.extend(input.diagnostics);
    if !input.truncated.is_empty() {
        diagnostics.push(Diagnostic::new(
            DiagKind::SchemaTruncated,
            &op.pointer,
            format!("input schema cut short at {} (too deep or too large)", input.truncated.join(", ")),
        ));
    }
    let output_schema = match opts.output_schema {
        OutputSchemaPolicy::None => None,
        OutputSchemaPolicy::Full => output_schema(op, ir, opts),
    };
    let mut security = security::requirements(op.security.as_deref().unwrap_or(&ir.security), schemes);
    if input.authorization && security.is_empty() {
        security = vec![vec![security::AUTHORIZATION_HEADER.to_string()]];
    }
    let base_url = match (&opts.base_url, op.servers.first()) {
        (None, Some(s)) if Some(s) != ir.servers.first() => Some(s.clone()),
        _ => None,
    };
    let title = op.mcp.title.clone().or_else(|| op.summary.clone()).map(|t| cap(&t, 120));
    let input_schema = input_object(input.schema, &name)?;
    let scopes = op.mcp.scopes.clone().unwrap_or_else(|| {
        security::caller_scopes(op.security.as_deref().unwrap_or(&ir.security), &ir.security_schemes)
    });
    Ok(Tool {
        operation_id: op.operation_id.clone().filter(|id| *id != name),
        tags: op.tags.clone(),
        name,
        title,
        description: op.mcp.description.clone().unwrap_or_else(|| {
            describe(op.summary.as_deref(), op.description.as_deref(), op.deprecated, opts.max_description_len)
        }),
        input_schema,
        output_schema,
        annotations: annotations(op.method, &op.mcp),
        http: Some(HttpBinding {
            method: op.method,
            path: op.path.clone(),
            params: input.params,
            body: input.body,
            security,
            base_url,
            headers: input.headers,
            query: input.query,
        }),
        scopes,
        api: None,
        response: response::response_info(op, ir),
        fixed_arguments: Default::default(),
        default_arguments: Default::default(),
    })
}

/// The tool of a function as declared; `http`: where its calls go, if anywhere.
fn function_tool(
    f: &Function,
    name: String,
    http: Option<HttpBinding>,
    ir: &ApiIr,
    opts: &ToolOptions,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<Tool> {
    let inlined = inline::inline(&f.parameters, &ir.schemas, opts.inline);
    if !inlined.truncated.is_empty() {
        diagnostics.push(Diagnostic::new(
            DiagKind::SchemaTruncated,
            &f.pointer,
            "input schema cut short (too deep or too large)",
        ));
    }
    let mut schema = inlined.schema;
    if let Some(keys) = merge_root_combinators(&mut schema) {
        diagnostics.push(Diagnostic::new(
            DiagKind::Unsupported,
            child(&f.pointer, "parameters"),
            format!(
                "{keys} at the root merged into one object (clients reject it there); its alternatives are not checked"
            ),
        ));
    }
    inline::ensure_array_items(&mut schema);
    let output_schema = f.output_schema.as_ref().map(|s| {
        let mut out = inline::inline(s, &ir.schemas, opts.inline).schema;
        inline::ensure_array_items(&mut out);
        object_root(out)
    });
    // Without a method of its own, a function may change things: annotate it as a POST.
    let method = http.as_ref().map_or(Method::Post, |h| h.method);
    let ann = annotations(method, &f.mcp);
    let input_schema = input_object(schema, &name)?;
    Ok(Tool {
        name,
        title: f.title.clone(),
        operation_id: None,
        tags: Vec::new(),
        description: f.description.as_deref().map(|d| cap(d, opts.max_description_len)).unwrap_or_default(),
        input_schema,
        output_schema,
        annotations: ann,
        http,
        scopes: f.mcp.scopes.clone().unwrap_or_default(),
        api: None,
        response: None,
        fixed_arguments: Default::default(),
        default_arguments: Default::default(),
    })
}

/// Clients reject `allOf`/`anyOf`/`oneOf` at the root of an input schema. They are merged into the
/// root object: every branch's properties, and the required names (all of `allOf`'s, those every
/// `anyOf`/`oneOf` branch shares). Returns the keywords merged, if any.
fn merge_root_combinators(schema: &mut Value) -> Option<String> {
    let obj = schema.as_object_mut()?;
    let mut merged = Vec::new();
    for key in crate::schema::keywords::COMBINATORS {
        let Some(Value::Array(branches)) = obj.remove(key) else { continue };
        merged.push(key);
        let mut shared: Option<Vec<Value>> = None;
        for b in &branches {
            if let Some(Value::Object(props)) = b.get("properties") {
                let root_props = obj.entry("properties").or_insert_with(|| json!({}));
                if let Value::Object(root_props) = root_props {
                    for (k, v) in props {
                        root_props.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            }
            let required = b.get("required").and_then(Value::as_array).cloned().unwrap_or_default();
            shared = Some(match shared {
                None => required,
                Some(s) if key == "allOf" => s.into_iter().chain(required).collect(),
                Some(s) => s.into_iter().filter(|r| required.contains(r)).collect(),
            });
        }
        let root_required = obj.entry("required").or_insert_with(|| json!([]));
        if let Value::Array(list) = root_required {
            for r in shared.unwrap_or_default() {
                if !list.contains(&r) {
                    list.push(r);
                }
            }
        }
        if obj.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty) {
            obj.remove("required");
        }
    }
    obj.insert("type".into(), json!("object"));
    obj.entry("properties").or_insert_with(|| json!({}));
    (!merged.is_empty()).then(|| merged.join(", "))
}

fn output_schema(op: &Operation, ir: &ApiIr, opts: &ToolOptions) -> Option<JsonObject> {
    let response = op.response.as_ref()?;
    let media = response.content.iter().find(|m| {
        let t = m.media_type.to_ascii_lowercase();
        mcpgen_config::media::is_json_media(&t)
    })?;
    if media.schema.as_object().is_none_or(|o| o.is_empty()) {
        return None;
    }
    let mut schema = inline::inline(&media.schema, &ir.schemas, opts.inline).schema;
    inline::strip_flagged_properties(&mut schema, "writeOnly");
    inline::ensure_array_items(&mut schema);
    Some(object_root(schema))
}

/// MCP requires an object at the root of an output schema: others become `{"result": ...}`,
/// exactly as the engine wraps non-object results.
fn object_root(mut schema: Value) -> JsonObject {
    if let Value::Object(obj) = &mut schema
        && obj.get("type") == Some(&json!("object"))
    {
        return std::mem::take(obj);
    }
    let defs = schema.as_object_mut().and_then(|o| o.remove("$defs"));
    let mut wrapped = JsonObject::new();
    wrapped.insert("type".into(), json!("object"));
    wrapped.insert("properties".into(), json!({"result": schema}));
    wrapped.insert("required".into(), json!(["result"]));
    if let Some(defs) = defs {
        wrapped.insert("$defs".into(), defs);
    }
    wrapped
}

/// An input schema as the object MCP requires. The tools stage builds objects (input.rs) and
/// normalize checks function parameters are objects, so anything else is a bug.
fn input_object(schema: Value, tool: &str) -> Result<JsonObject> {
    match schema {
        Value::Object(obj) => Ok(obj),
        other => Err(Error::internal(
            format!("building the tool `{tool}`"),
            format!("its input schema is not an object: {other}"),
        )),
    }
}

/// Annotations from the HTTP method ([`conventions::method_hints`]), with `x-mcp` overrides.
pub(crate) fn annotations(method: Method, ext: &crate::ir::McpExtension) -> Annotations {
    let (read_only, destructive, idempotent) = conventions::method_hints(method);
    Annotations {
        title: ext.annotations_title.clone(),
        read_only_hint: ext.read_only.unwrap_or(read_only),
        destructive_hint: ext.destructive.unwrap_or(destructive),
        idempotent_hint: ext.idempotent.unwrap_or(idempotent),
        open_world_hint: ext.open_world.unwrap_or(conventions::OPEN_WORLD),
    }
}

/// Summary and description as one text, capped.
fn describe(summary: Option<&str>, description: Option<&str>, deprecated: bool, max: usize) -> String {
    let mut text = match (summary, description) {
        (Some(s), Some(d)) if d.starts_with(s.trim_end_matches('.')) => d.to_string(),
        (Some(s), Some(d)) => format!("{s}\n\n{d}"),
        (Some(s), None) => s.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => String::new(),
    };
    if deprecated {
        text.insert_str(0, "[Deprecated] ");
    }
    cap(text.trim(), max)
}

/// Cuts text to at most `max` characters, marking the cut with `…` (the engine's own, shared).
pub(crate) use mcpgen_config::text::cap;
use mcpgen_config::text::cap_words;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions() {
        assert_eq!(describe(Some("Get a pet."), Some("Get a pet. Returns it."), false, 100), "Get a pet. Returns it.");
        assert_eq!(describe(Some("List"), Some("All of them."), true, 100), "[Deprecated] List\n\nAll of them.");
        assert_eq!(cap("abcdef", 4), "abc…");
        assert_eq!(cap("ab", 4), "ab");
    }

    #[test]
    fn root_combinators_merge() {
        let mut s = json!({"type": "object", "properties": {"a": {"type": "string"}},
            "anyOf": [{"required": ["a", "b"], "properties": {"b": {"type": "integer"}}}, {"required": ["a"]}],
            "allOf": [{"required": ["c"], "properties": {"c": {"type": "boolean"}}}]});
        assert_eq!(merge_root_combinators(&mut s).as_deref(), Some("allOf, anyOf"));
        assert_eq!(
            s,
            json!({"type": "object", "required": ["c", "a"], "properties": {
                "a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}}})
        );
        let mut plain = json!({"type": "object", "properties": {}});
        assert_eq!(merge_root_combinators(&mut plain), None);
    }

    #[test]
    fn annotation_defaults() {
        let a = annotations(Method::Delete, &Default::default());
        assert!(!a.read_only_hint && a.destructive_hint && a.idempotent_hint && a.open_world_hint);
        let ext = crate::ir::McpExtension { destructive: Some(false), ..Default::default() };
        assert!(!annotations(Method::Delete, &ext).destructive_hint);
    }
}
