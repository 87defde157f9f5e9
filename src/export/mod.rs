//! Stage 4c, export: the tool set as the tool list of an LLM API (OpenAI, Anthropic, Gemini) or
//! of MCP, so that function-calling code can use any input mcpgen reads. For the providers' tool
//! search ([`ToolSearch`]): `defer_loading` (OpenAI, Anthropic), OpenAI's namespaces
//! (`namespaces.rs`) and Anthropic's `input_examples` (`examples.rs`).

pub mod examples;
pub mod namespaces;
pub mod openapi;
pub mod strict;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::ir::Operation;
use crate::runtime::tooling::ToolEntry;
use mcpgen_config::{JsonObject, RuntimeConfig, Tool};

/// The tool-list format of an LLM API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// OpenAI `tools`: `[{"type": "function", "function": {name, description, parameters}}]`.
    Openai,
    /// OpenAI legacy `functions`: `[{name, description, parameters}]`.
    OpenaiLegacy,
    /// Anthropic: `[{name, description, input_schema}]`.
    Anthropic,
    /// Gemini: `[{"functionDeclarations": [{name, description, parametersJsonSchema}]}]`.
    Gemini,
    /// MCP `tools/list` result: `{"tools": [{name, title, description, inputSchema, ...}]}`.
    Mcp,
}

impl Format {
    /// The longest tool name the API accepts.
    fn max_name_len(self) -> usize {
        match self {
            Format::Mcp => 128,
            _ => 64,
        }
    }
}

/// What the list carries for the provider's tool search, which loads tool definitions when the
/// model looks for them (docs/function-calling.md quotes the providers' references).
#[derive(Debug, Clone, Default)]
pub struct ToolSearch {
    /// `defer_loading: true` on every tool but the [`pinned`](Self::pinned) ones (OpenAI,
    /// Anthropic).
    pub defer_loading: bool,
    /// Tools loaded up front all the same, by name; each must be a tool of the list.
    pub pinned: Vec<String>,
    /// OpenAI: the tools in namespaces by tag (see [`namespaces`]).
    pub namespaces: bool,
    /// Anthropic: `input_examples` from the API description's examples (see [`examples`]).
    pub input_examples: bool,
}

impl ToolSearch {
    /// Whether OpenAI's list takes the Responses API's shape: `defer_loading` and namespaces
    /// exist only there.
    fn responses_api(&self) -> bool {
        self.defer_loading || self.namespaces
    }

    fn deferred(&self, tool: &Tool) -> bool {
        self.defer_loading && !self.pinned.contains(&tool.name)
    }
}

/// How to export, beyond the format.
#[derive(Debug, Clone, Default)]
pub struct Options<'a> {
    /// OpenAI's strict mode (see [`strict`]).
    pub strict: bool,
    /// Tool search: deferred loading, namespaces, input examples.
    pub search: ToolSearch,
    /// The operations the tools come from, by tool name: their parameters' and bodies' examples
    /// become input examples. Empty for a runtime config (its schemas' examples are used).
    pub operations: BTreeMap<&'a str, &'a Operation>,
}

/// A tool list, and what `--strict` had to change or could not fix.
#[derive(Debug, Default)]
pub struct Export {
    /// The tool list, in the format's shape (see [`Format`]).
    pub value: Value,
    /// Per tool: the rewrites strict mode needed.
    pub changes: Vec<(String, strict::Change)>,
    /// Tools whose schema breaks a strict-mode limit: exported with `strict: false`.
    pub not_strict: Vec<(String, Vec<strict::Violation>)>,
    /// How many input examples the list carries.
    pub input_examples: usize,
    /// Per tool: the input examples left out, and why.
    pub examples_dropped: Vec<(String, String)>,
    /// How many namespaces the tools are in (0: none).
    pub namespaces: usize,
}

/// The tools of `config` in `format`; `strict` makes OpenAI schemas strict-mode schemas.
pub fn export(config: &RuntimeConfig, format: Format, strict: bool) -> crate::Result<Export> {
    export_with(config, format, &Options { strict, ..Options::default() })
}

/// The tools of `config` in `format`, as `opts` asks. Options a format has no place for, and
/// `pinned` names of no tool, are usage errors that say what to do.
pub fn export_with(config: &RuntimeConfig, format: Format, opts: &Options) -> crate::Result<Export> {
    check_options(config, format, opts)?;
    let search = &opts.search;
    let mut out = Export::default();
    let mut items = Vec::with_capacity(config.tools.len());
    for tool in &config.tools {
        let input = openapi::fold_local_defs(&tool.input_schema);
        items.push(match format {
            Format::Openai if search.responses_api() => responses_function(tool, input, opts, &mut out),
            Format::Openai => openai(tool, input, opts.strict, &mut out),
            Format::OpenaiLegacy => Value::Object(with_schema(tool, "parameters", input)),
            Format::Anthropic => anthropic(tool, input, opts, &mut out),
            Format::Gemini => gemini(tool, input),
            Format::Mcp => {
                let mut view = serde_json::to_value(tool.mcp_view())
                    .map_err(|e| crate::Error::internal(format!("exporting the tool `{}`", tool.name), e))?;
                view["inputSchema"] = input;
                view
            }
        });
    }
    out.value = match format {
        Format::Gemini => json!([{ "functionDeclarations": items }]),
        Format::Mcp => json!({ "tools": items }),
        Format::Openai if search.namespaces => in_namespaces(config, items, &mut out),
        _ => Value::Array(items),
    };
    Ok(out)
}

/// The usage errors of [`export_with`]: each says what is wrong and what to do.
fn check_options(config: &RuntimeConfig, format: Format, opts: &Options) -> crate::Result<()> {
    let usage = |message: &str| Err(crate::Error::Usage { message: message.to_string() });
    let search = &opts.search;
    if opts.strict && format != Format::Openai {
        return usage("--strict is OpenAI's strict mode: use it with --format openai");
    }
    if search.defer_loading && !matches!(format, Format::Openai | Format::Anthropic) {
        return usage(
            "--defer-loading is for the tool search of OpenAI (Responses API) and Anthropic: use it with --format openai or --format anthropic",
        );
    }
    if !search.pinned.is_empty() && !search.defer_loading {
        return usage("--pin-tool keeps tools loaded when the others are deferred: add --defer-loading");
    }
    if search.namespaces && format != Format::Openai {
        return usage("--namespaces groups tools as OpenAI's Responses API does: use it with --format openai");
    }
    if search.input_examples && format != Format::Anthropic {
        return usage("--input-examples writes Anthropic's input_examples: use it with --format anthropic");
    }
    if let Some(name) = search.pinned.iter().find(|p| !config.tools.iter().any(|t| &t.name == *p)) {
        return Err(crate::Error::Usage { message: unknown_pin(config, name) });
    }
    if let Some(t) = config.tools.iter().find(|t| t.name.len() > format.max_name_len()) {
        return Err(crate::Error::Usage {
            message: format!(
                "the tool name `{}` is longer than the {} characters this format accepts: pass --max-name-len {}",
                t.name,
                format.max_name_len(),
                format.max_name_len()
            ),
        });
    }
    Ok(())
}

/// `--pin-tool NAME` names no tool: which name is closest, and where the names are.
fn unknown_pin(config: &RuntimeConfig, name: &str) -> String {
    let closest = config
        .tools
        .iter()
        .map(|t| (strsim::damerau_levenshtein(&t.name, name), t.name.as_str()))
        .min()
        .filter(|(d, _)| *d <= 2.max(name.len() / 4))
        .map(|(_, t)| format!("; did you mean `{t}`?"))
        .unwrap_or_default();
    format!(
        "--pin-tool `{name}`: no tool of the list has this name{closest} (`mcpgen inspect` lists the names, after the same filters)"
    )
}

/// `{name, description, <key>: schema}`, without an empty description.
fn with_schema(tool: &Tool, key: &str, schema: Value) -> Map<String, Value> {
    let mut obj = Map::new();
    obj.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        obj.insert("description".into(), json!(tool.description));
    }
    obj.insert(key.into(), schema);
    obj
}

/// Each tool's operation in the IR, by tool name: what [`Options::operations`] takes for a
/// pipeline's tools.
pub fn operations_by_tool<'a>(
    ir: &'a crate::ir::ApiIr,
    tools: &'a crate::tools::ToolSet,
) -> BTreeMap<&'a str, &'a Operation> {
    let by_pointer: BTreeMap<&str, &Operation> = ir.operations.iter().map(|op| (op.pointer.as_str(), op)).collect();
    let found = tools
        .sources
        .iter()
        .filter_map(|(name, source)| Some((name.as_str(), *by_pointer.get(source.pointer.as_str())?)));
    found.collect()
}

fn openai(tool: &Tool, input: Value, strict: bool, out: &mut Export) -> Value {
    if !strict {
        return json!({ "type": "function", "function": Value::Object(with_schema(tool, "parameters", input)) });
    }
    let (schema, accepted) = strict_schema(tool, input, out);
    let mut function = with_schema(tool, "parameters", schema);
    function.insert("strict".into(), json!(accepted));
    json!({ "type": "function", "function": function })
}

/// `input` as a strict-mode schema, and whether strict mode accepts it; the changes and the
/// limits it breaks go to `out`.
fn strict_schema(tool: &Tool, input: Value, out: &mut Export) -> (Value, bool) {
    let converted = strict::strictify(&input);
    out.changes.extend(converted.changes.into_iter().map(|c| (tool.name.clone(), c)));
    let accepted = converted.violations.is_empty();
    if !accepted {
        out.not_strict.push((tool.name.clone(), converted.violations));
    }
    (converted.schema, accepted)
}

/// A Responses API function: `{type, name, description, parameters, strict}` at one level (Chat
/// Completions nests them under `function`). `strict` is always written: Responses makes a
/// schema strict when it is left out.
fn responses_function(tool: &Tool, input: Value, opts: &Options, out: &mut Export) -> Value {
    let (schema, strict) = if opts.strict { strict_schema(tool, input, out) } else { (input, false) };
    let mut function = with_schema(tool, "parameters", schema);
    function.insert("type".into(), json!("function"));
    function.insert("strict".into(), json!(strict));
    if opts.search.deferred(tool) {
        function.insert("defer_loading".into(), json!(true));
    }
    Value::Object(function)
}

/// The Responses API functions in namespaces (see [`namespaces`]).
fn in_namespaces(config: &RuntimeConfig, items: Vec<Value>, out: &mut Export) -> Value {
    let mut items: Vec<Option<Value>> = items.into_iter().map(Some).collect();
    let grouped = namespaces::by_tag(config);
    out.namespaces = grouped.len();
    let list = grouped.into_iter().map(|ns| {
        let tools: Vec<Value> = ns.tools.iter().filter_map(|&i| items.get_mut(i).and_then(Option::take)).collect();
        json!({ "type": "namespace", "name": ns.name, "description": ns.description, "tools": tools })
    });
    Value::Array(list.collect())
}

/// Anthropic: `{name, description, input_schema}`, with `defer_loading` and `input_examples`
/// when asked for.
fn anthropic(tool: &Tool, input: Value, opts: &Options, out: &mut Export) -> Value {
    let examples = opts.search.input_examples.then(|| {
        let op = opts.operations.get(tool.name.as_str()).copied();
        examples::input_examples(tool, &input, op)
    });
    let mut def = with_schema(tool, "input_schema", input);
    if opts.search.deferred(tool) {
        def.insert("defer_loading".into(), json!(true));
    }
    if let Some(found) = examples {
        out.examples_dropped.extend(found.dropped.into_iter().map(|why| (tool.name.clone(), why)));
        out.input_examples += found.kept.len();
        if !found.kept.is_empty() {
            def.insert("input_examples".into(), Value::Array(found.kept));
        }
    }
    Value::Object(def)
}

fn gemini(tool: &Tool, input: Value) -> Value {
    let mut decl = with_schema(tool, "parametersJsonSchema", input);
    if let Some(output) = &tool.output_schema {
        decl.insert("responseJsonSchema".into(), Value::Object(output.clone()));
    }
    Value::Object(decl)
}

/// A tool's schemas as clients are shown them, named: in full (the config's input and output),
/// compact (discovery's `describe_tools`, `--schema-detail compact`), and the input as `mcpgen
/// export` writes it (inlined recursive definitions folded back into `$ref`s). What the corpus
/// sweep and the goldens check for `$ref`s that resolve.
pub fn advertised_schemas(tool: &Tool) -> Vec<(&'static str, JsonObject)> {
    let mut out = vec![("input", tool.input_schema.clone())];
    out.extend(tool.output_schema.clone().map(|s| ("output", s)));
    let compact = ToolEntry::new(tool.clone()).advertised(true);
    out.push(("compact input", (*compact.input_schema).clone()));
    out.extend(compact.output_schema.map(|s| ("compact output", (*s).clone())));
    if let Value::Object(exported) = openapi::fold_local_defs(&tool.input_schema) {
        out.push(("exported input", exported));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> RuntimeConfig {
        let yaml = "openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      operationId: list_books\n      responses: {'200': {description: ok}}\n  /b:\n    get:\n      operationId: get_book\n      responses: {'200': {description: ok}}\n";
        crate::pipeline::run_str(yaml, "api.yaml", &Default::default()).expect("pipeline").tools.config
    }

    fn deferred(pinned: &[&str]) -> Options<'static> {
        let pinned = pinned.iter().map(|p| p.to_string()).collect();
        Options { search: ToolSearch { defer_loading: true, pinned, ..ToolSearch::default() }, ..Options::default() }
    }

    #[test]
    fn pinned_tools_are_not_deferred() {
        let list = export_with(&config(), Format::Anthropic, &deferred(&["get_book"])).expect("export").value;
        assert_eq!(list[0]["defer_loading"], json!(true));
        assert!(list[1].get("defer_loading").is_none(), "{}", list[1]);
    }

    #[test]
    fn responses_functions_are_flat_and_always_say_strict() {
        let list = export_with(&config(), Format::Openai, &deferred(&[])).expect("export").value;
        assert_eq!(list[0]["type"], json!("function"));
        assert_eq!(list[0]["name"], json!("list_books"));
        assert_eq!(list[0]["strict"], json!(false));
        assert!(list[0].get("function").is_none());
    }

    #[test]
    fn an_unknown_pin_suggests_the_closest_name() {
        let err = export_with(&config(), Format::Openai, &deferred(&["get_books"])).expect_err("unknown pin");
        assert!(err.to_string().contains("did you mean `get_book`?"), "{err}");
        let err = export_with(&config(), Format::Openai, &deferred(&["zzz"])).expect_err("unknown pin");
        assert!(!err.to_string().contains("did you mean"), "{err}");
    }
}
