//! Stage 4c, export: the tool set as the tool list of an LLM API (OpenAI, Anthropic, Gemini) or
//! of MCP, so that function-calling code can use any input mcpgen reads.

pub mod examples;
pub mod openapi;
pub mod strict;

use serde_json::{Map, Value, json};

use crate::runtime::config::{RuntimeConfig, Tool};

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

/// A tool list, and what `--strict` had to change or could not fix.
#[derive(Debug, Default)]
pub struct Export {
    /// The tool list, in the format's shape (see [`Format`]).
    pub value: Value,
    /// Per tool: the rewrites strict mode needed.
    pub changes: Vec<(String, strict::Change)>,
    /// Tools whose schema breaks a strict-mode limit: exported with `strict: false`.
    pub not_strict: Vec<(String, Vec<strict::Violation>)>,
}

/// The tools of `config` in `format`; `strict` makes OpenAI schemas strict-mode schemas.
pub fn export(config: &RuntimeConfig, format: Format, strict: bool) -> crate::Result<Export> {
    let usage = |message| crate::Error::Usage { message };
    if strict && format != Format::Openai {
        return Err(usage("--strict is OpenAI's strict mode: use it with --format openai".into()));
    }
    if let Some(t) = config.tools.iter().find(|t| t.name.len() > format.max_name_len()) {
        return Err(usage(format!(
            "the tool name `{}` is longer than the {} characters this format accepts: pass --max-name-len {}",
            t.name,
            format.max_name_len(),
            format.max_name_len()
        )));
    }
    let mut out = Export::default();
    let mut items = Vec::with_capacity(config.tools.len());
    for tool in &config.tools {
        let input = openapi::fold_local_defs(&tool.input_schema);
        items.push(match format {
            Format::Openai => openai(tool, input, strict, &mut out),
            Format::OpenaiLegacy => with_schema(tool, "parameters", input),
            Format::Anthropic => with_schema(tool, "input_schema", input),
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
        _ => Value::Array(items),
    };
    Ok(out)
}

/// `{name, description, <key>: schema}`, without an empty description.
fn with_schema(tool: &Tool, key: &str, schema: Value) -> Value {
    let mut obj = Map::new();
    obj.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        obj.insert("description".into(), json!(tool.description));
    }
    obj.insert(key.into(), schema);
    Value::Object(obj)
}

fn openai(tool: &Tool, input: Value, strict: bool, out: &mut Export) -> Value {
    if !strict {
        return json!({ "type": "function", "function": with_schema(tool, "parameters", input) });
    }
    let converted = strict::strictify(&input);
    out.changes.extend(converted.changes.into_iter().map(|c| (tool.name.clone(), c)));
    let accepted = converted.violations.is_empty();
    if !accepted {
        out.not_strict.push((tool.name.clone(), converted.violations));
    }
    let mut function = with_schema(tool, "parameters", converted.schema);
    function["strict"] = json!(accepted);
    json!({ "type": "function", "function": function })
}

fn gemini(tool: &Tool, input: Value) -> Value {
    let mut decl = with_schema(tool, "parametersJsonSchema", input);
    if let Some(output) = &tool.output_schema {
        decl["responseJsonSchema"] = Value::Object(output.clone());
    }
    decl
}
