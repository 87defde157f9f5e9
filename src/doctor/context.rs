//! What the checks read: one API's tools, each with the operation or function it was made from
//! (when the input is an API description) and its arguments with their pointers.

use std::collections::HashMap;

use serde_json::Value;

use crate::diag::{Diagnostic, child};
use crate::ir::{ApiIr, Dialect, Function, Operation};
use crate::pipeline::Pipeline;
use mcpgen_config::{RuntimeConfig, Tool};

/// One API as the checks see it.
pub(crate) struct Context<'a> {
    /// The API's IR; `None` for a runtime config, which has only its tools.
    pub(crate) ir: Option<&'a ApiIr>,
    /// Its runtime config: tools, security schemes, the result budget.
    pub(crate) config: &'a RuntimeConfig,
    /// One per tool, in the config's order.
    pub(crate) subjects: Vec<Subject<'a>>,
    /// The pipeline's diagnostics (none for a runtime config).
    pub(crate) diagnostics: Vec<&'a Diagnostic>,
}

/// One tool and where it comes from.
pub(crate) struct Subject<'a> {
    pub(crate) tool: &'a Tool,
    /// The operation's or function's pointer in the source document; `#/tools/N` in a runtime
    /// config. It names the subject in the score.
    pub(crate) pointer: String,
    pub(crate) origin: Origin<'a>,
}

/// What a tool was made from.
#[derive(Clone, Copy)]
pub(crate) enum Origin<'a> {
    /// An OpenAPI operation (or a function bound to HTTP: its `function` is set).
    Operation(&'a Operation),
    /// A function of a tool list, without an HTTP binding.
    Function(&'a Function),
    /// Nothing known beyond the tool: a runtime config's.
    Tool,
}

/// One argument of a tool as its source declares it.
pub(crate) struct Argument<'a> {
    /// The name on the wire (a parameter's) or in the schema (a function's or a tool's).
    pub(crate) name: &'a str,
    /// Where it is declared.
    pub(crate) pointer: String,
    pub(crate) required: bool,
    /// Its description, or its schema's; `None`: none, or only blanks.
    pub(crate) description: Option<&'a str>,
    /// Its schema, `$ref`s followed.
    pub(crate) schema: &'a Value,
    /// A path parameter.
    pub(crate) in_path: bool,
}

impl<'a> Context<'a> {
    /// The context of an API description's pipeline.
    pub(crate) fn of_pipeline(p: &'a Pipeline) -> Context<'a> {
        let operations: HashMap<&str, &Operation> = p.ir.operations.iter().map(|o| (o.pointer.as_str(), o)).collect();
        let functions: HashMap<&str, &Function> = p.ir.functions.iter().map(|f| (f.pointer.as_str(), f)).collect();
        let subjects = p
            .tools
            .config
            .tools
            .iter()
            .enumerate()
            .map(|(i, tool)| {
                let pointer = p.tools.source(&tool.name).map(|s| s.pointer.clone()).unwrap_or_else(|| tool_pointer(i));
                let origin = match (operations.get(pointer.as_str()), functions.get(pointer.as_str())) {
                    (Some(op), _) => Origin::Operation(op),
                    (None, Some(f)) => Origin::Function(f),
                    (None, None) => Origin::Tool,
                };
                Subject { tool, pointer, origin }
            })
            .collect();
        Context { ir: Some(&p.ir), config: &p.tools.config, subjects, diagnostics: p.diagnostics().collect() }
    }

    /// The context of a runtime config's tools (of those of the API named `api` only, when given:
    /// one API of several merged); their pointers are `#/tools/N` in `config`.
    pub(crate) fn of_config(config: &'a RuntimeConfig, api: Option<&str>) -> Context<'a> {
        let subjects = config
            .tools
            .iter()
            .enumerate()
            .filter(|(_, t)| api.is_none_or(|a| t.api.as_deref() == Some(a)))
            .map(|(i, tool)| Subject { tool, pointer: tool_pointer(i), origin: Origin::Tool })
            .collect();
        Context { ir: None, config, subjects, diagnostics: Vec::new() }
    }

    /// `schema` with its `$ref`s into the API's schemas (or the tool's own `$defs`) followed.
    pub(crate) fn resolve<'s>(&'s self, mut schema: &'s Value, tool: &'s Tool) -> &'s Value {
        for _ in 0..8 {
            let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) else {
                break;
            };
            let own = tool.input_schema.get("$defs").and_then(|d| d.get(name));
            match self.ir.and_then(|ir| ir.schemas.get(name)).or(own) {
                Some(next) => schema = next,
                None => break,
            }
        }
        schema
    }

    /// The arguments of `subject`'s tool as its source declares them: an operation's parameters
    /// that are the tool's arguments (not its fixed headers; request body fields are not
    /// included: their pointers are not kept), a function's or a config tool's properties.
    pub(crate) fn arguments(&'a self, subject: &'a Subject<'a>) -> Vec<Argument<'a>> {
        match subject.origin {
            Origin::Operation(op) => match &op.function {
                Some(f) => self.properties(&f.parameters, &self.function_schema_pointer(f), subject.tool),
                None => self.parameters(op, subject),
            },
            Origin::Function(f) => self.properties(&f.parameters, &self.function_schema_pointer(f), subject.tool),
            Origin::Tool => self.properties_of_tool(subject),
        }
    }

    fn parameters(&'a self, op: &'a Operation, subject: &'a Subject<'a>) -> Vec<Argument<'a>> {
        let bound = subject.tool.http.as_ref().map(|h| h.params.as_slice()).unwrap_or_default();
        op.parameters
            .iter()
            .filter(|p| bound.iter().any(|b| b.name == p.name && b.location == p.location))
            .map(|p| {
                let schema = self.resolve(&p.schema, subject.tool);
                Argument {
                    name: &p.name,
                    pointer: if p.pointer.is_empty() { op.pointer.clone() } else { p.pointer.clone() },
                    required: p.required,
                    description: p.description.as_deref().or_else(|| text(schema.get("description"))),
                    schema,
                    in_path: p.location == crate::ir::ParamLocation::Path,
                }
            })
            .collect()
    }

    fn properties_of_tool(&'a self, subject: &'a Subject<'a>) -> Vec<Argument<'a>> {
        let at = child(&subject.pointer, "input_schema");
        let root = subject.tool.input_schema.get("properties").and_then(Value::as_object);
        let required = subject.tool.input_schema.get("required").and_then(Value::as_array);
        self.arguments_of(root, required, &at, subject.tool)
    }

    fn properties(&'a self, schema: &'a Value, at: &str, tool: &'a Tool) -> Vec<Argument<'a>> {
        let schema = self.resolve(schema, tool);
        let props = schema.get("properties").and_then(Value::as_object);
        self.arguments_of(props, schema.get("required").and_then(Value::as_array), at, tool)
    }

    fn arguments_of(
        &'a self,
        props: Option<&'a serde_json::Map<String, Value>>,
        required: Option<&'a Vec<Value>>,
        at: &str,
        tool: &'a Tool,
    ) -> Vec<Argument<'a>> {
        let Some(props) = props else { return Vec::new() };
        let properties = child(at, "properties");
        props
            .iter()
            .map(|(name, s)| {
                let schema = self.resolve(s, tool);
                let bound = tool.http.as_ref().and_then(|h| h.params.iter().find(|p| p.arg == *name));
                Argument {
                    name,
                    pointer: child(&properties, name),
                    required: required.is_some_and(|r| r.iter().any(|v| v.as_str() == Some(name))),
                    description: text(s.get("description")).or_else(|| text(schema.get("description"))),
                    schema,
                    in_path: bound.is_some_and(|p| p.location == crate::ir::ParamLocation::Path),
                }
            })
            .collect()
    }

    /// Where a function's parameter schema is in its document (the key its dialect uses).
    fn function_schema_pointer(&self, f: &Function) -> String {
        let key = match self.ir.map(|ir| ir.dialect) {
            Some(Dialect::AnthropicTools) => "input_schema",
            Some(Dialect::McpTools) => "inputSchema",
            _ => "parameters",
        };
        child(&f.pointer, key)
    }
}

impl Subject<'_> {
    /// The subject in a message: `GET /pets`, function `name`, tool `name` (`GET /pets`).
    pub(crate) fn label(&self) -> String {
        match self.origin {
            Origin::Operation(op) if op.function.is_none() => format!("{} {}", op.method.as_upper(), op.path),
            Origin::Operation(_) | Origin::Function(_) => format!("function `{}`", self.tool.name),
            Origin::Tool => match &self.tool.http {
                Some(h) => format!("tool `{}` ({} {})", self.tool.name, h.method.as_upper(), h.path),
                None => format!("tool `{}`", self.tool.name),
            },
        }
    }
}

/// A runtime config's tool `i`.
fn tool_pointer(i: usize) -> String {
    format!("#/tools/{i}")
}

/// A string that is not blank.
pub(crate) fn text(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty())
}
