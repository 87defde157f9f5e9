//! Function-calling tool lists (OpenAI functions/tools, Anthropic, Gemini, MCP) into the IR.
//!
//! Each function's parameter schema is its own `$ref` root: `#/$defs/X` inside it points into the
//! schema itself, as the LLM APIs define it.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use super::schema::{SchemaConverter, kind_of};
use crate::diag::{DiagKind, Diagnostic, Fault, child};
use crate::error::{Error, Location, Result};
use crate::ir::{Dialect, Function, McpExtension};
use crate::load::{Document, DocumentSet};
use crate::schema::keywords;

/// One entry of the list, read but not yet converted.
struct RawFunction<'a> {
    pointer: String,
    name: &'a str,
    title: Option<&'a str>,
    description: Option<&'a str>,
    parameters: Value,
    output_schema: Option<&'a Value>,
    strict: bool,
    mcp: McpExtension,
    /// Python-style type names (`dict`, `float`, ...) read as JSON Schema types.
    python_types: usize,
}

type Converted = (Vec<Function>, BTreeMap<String, Value>, Vec<Diagnostic>);

/// Converts the list. A bad entry (no name, a duplicate name, a parameter schema that is not an
/// object) fails the whole list, or with `lenient` is skipped with a warning.
pub(super) fn functions(doc: &Document, lenient: bool) -> Result<Converted> {
    let origin = doc.origin().to_string();
    let root = doc.root();
    let list = if doc.list_pointer.is_empty() { Some(root) } else { root.pointer(&doc.list_pointer) };
    let Some(Value::Array(items)) = list else {
        return Err(invalid(&origin, Fault::new(format!("#{}", doc.list_pointer), "expected an array of tools")));
    };
    let mut diags = Vec::new();
    let skip = |fault: Fault, diags: &mut Vec<Diagnostic>| -> Result<()> {
        if !lenient {
            let message = format!("{}; fix the entry, or pass --lenient to skip it and serve the rest", fault.message);
            return Err(invalid(&origin, Fault::new(fault.at, message)));
        }
        diags.push(Diagnostic::new(DiagKind::OperationSkipped, fault.at, format!("{}; skipped", fault.message)));
        Ok(())
    };
    let mut raw: Vec<RawFunction<'_>> = Vec::new();
    for entry in read_entries(items, doc, &mut diags) {
        match entry {
            Ok(f) => raw.push(f),
            Err(fault) => skip(fault, &mut diags)?,
        }
    }
    let python_types: usize = raw.iter().map(|f| f.python_types).sum();
    if python_types > 0 {
        diags.push(Diagnostic::new(
            DiagKind::Lenient,
            format!("#{}", doc.list_pointer),
            format!(
                "{python_types} Python-style type names (dict, float, list, tuple, any, str, int, bool) read as JSON Schema types"
            ),
        ));
    }
    let mut seen: HashMap<&str, String> = HashMap::new();
    let mut unique = Vec::new();
    for f in raw {
        match seen.get(f.name) {
            Some(first) => {
                let message = format!("duplicate function name `{}` (first at {first})", f.name);
                skip(Fault::new(&f.pointer, message), &mut diags)?;
            }
            None => {
                seen.insert(f.name, f.pointer.clone());
                unique.push(f);
            }
        }
    }
    // Each function's schema is a document of its own for `$ref` resolution.
    let mut docs = DocumentSet::single(&format!("{}#fn", doc.docs.root), json!({}));
    for (i, f) in unique.iter().enumerate() {
        docs.insert(&fn_doc(i), &f.pointer, f.parameters.clone());
    }
    let mut converter = SchemaConverter::new(&docs);
    let mut out = Vec::new();
    for (i, f) in unique.iter().enumerate() {
        match convert(&mut converter, f, &fn_doc(i)) {
            Ok(function) => out.push(function),
            Err(fault) => skip(fault, &mut diags)?,
        }
    }
    let (schemas, more) = converter.finish();
    diags.extend(more);
    Ok((out, schemas, diags))
}

fn convert(converter: &mut SchemaConverter<'_>, f: &RawFunction<'_>, id: &str) -> std::result::Result<Function, Fault> {
    let at = child(&f.pointer, "parameters");
    let parameters = converter.convert(&f.parameters, id, "#").map_err(|e| Fault::new(at_or(&e.at, &at), e.message))?;
    let output_schema = match f.output_schema {
        Some(s) => Some(converter.convert(s, id, "#").map_err(|e| {
            let at = child(&f.pointer, "outputSchema");
            Fault::new(at_or(&e.at, &at), e.message)
        })?),
        None => None,
    };
    Ok(Function {
        pointer: f.pointer.clone(),
        name: f.name.to_string(),
        title: f.title.map(str::to_string),
        description: f.description.map(str::trim).filter(|d| !d.is_empty()).map(str::to_string),
        parameters,
        output_schema,
        strict: f.strict,
        mcp: f.mcp.clone(),
    })
}

/// The list's entries, read; built-in tools of the LLM APIs are skipped with a note.
fn read_entries<'a>(
    items: &'a [Value],
    doc: &Document,
    diags: &mut Vec<Diagnostic>,
) -> Vec<std::result::Result<RawFunction<'a>, Fault>> {
    let mut raw = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let pointer = format!("#{}/{i}", doc.list_pointer);
        match doc.dialect {
            Dialect::GeminiFunctions if item.get("functionDeclarations").is_some() => {
                let Some(Value::Array(decls)) = item.get("functionDeclarations") else { continue };
                for (j, d) in decls.iter().enumerate() {
                    let p = format!("{pointer}/functionDeclarations/{j}");
                    raw.push(read_entry(d, doc.dialect, &p));
                }
            }
            Dialect::OpenAiTools if item.get("type").and_then(Value::as_str).is_some_and(|t| t != "function") => {
                let t = item["type"].as_str().unwrap_or_default();
                diags.push(Diagnostic::new(
                    DiagKind::Unsupported,
                    pointer,
                    format!("tool of type `{t}` is built into the LLM API, not a function; skipped"),
                ));
            }
            Dialect::AnthropicTools if item.get("input_schema").is_none() && item.get("type").is_some() => {
                let t = item["type"].as_str().unwrap_or("?");
                diags.push(Diagnostic::new(
                    DiagKind::Unsupported,
                    pointer,
                    format!("Anthropic server tool `{t}` has no input_schema; skipped"),
                ));
            }
            _ => raw.push(read_entry(item, doc.dialect, &pointer)),
        }
    }
    raw
}

fn fn_doc(i: usize) -> String {
    format!("function:{i}")
}

fn read_entry<'a>(item: &'a Value, dialect: Dialect, pointer: &str) -> std::result::Result<RawFunction<'a>, Fault> {
    let (f, fptr) = match dialect {
        Dialect::OpenAiTools => match item.get("function") {
            Some(f) => (f, format!("{pointer}/function")),
            None => return Err(Fault::new(pointer, "OpenAI tool without a `function` object")),
        },
        _ => (item, pointer.to_string()),
    };
    let Value::Object(obj) = f else {
        return Err(Fault::new(&fptr, format!("a function must be an object, found {}", kind_of(f))));
    };
    let name = match obj.get("name") {
        Some(Value::String(n)) if !n.trim().is_empty() => n.as_str(),
        Some(other) => {
            return Err(Fault::new(
                child(&fptr, "name"),
                format!("the name must be a non-empty string, found {}", kind_of(other)),
            ));
        }
        None => return Err(Fault::new(&fptr, "function without a `name`")),
    };
    let key = match dialect {
        Dialect::AnthropicTools => "input_schema",
        Dialect::McpTools => "inputSchema",
        Dialect::GeminiFunctions if obj.contains_key("parametersJsonSchema") => "parametersJsonSchema",
        _ => "parameters",
    };
    let at = child(&fptr, key);
    let mut python_types = 0;
    let parameters = match obj.get(key) {
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(Value::Object(p)) if p.is_empty() => json!({"type": "object", "properties": {}}),
        Some(Value::Object(p)) => {
            let mut p = p.clone();
            python_types = object_schema_types(&mut p);
            match p.get("type") {
                None if !p.contains_key("anyOf") && !p.contains_key("oneOf") && !p.contains_key("allOf") => {
                    p.insert("type".into(), json!("object"));
                }
                Some(t) if t.as_str().is_some_and(|t| t.eq_ignore_ascii_case("object")) => {}
                _ => {
                    return Err(Fault::new(
                        &at,
                        format!(
                            "the parameter schema must be `type: object`, found {}",
                            p.get("type").map(Value::to_string).unwrap_or("a schema without a type".into())
                        ),
                    ));
                }
            }
            Value::Object(p)
        }
        Some(other) => {
            return Err(Fault::new(&at, format!("`{key}` must be a JSON Schema object, found {}", kind_of(other))));
        }
    };
    let mut mcp = McpExtension::default();
    if dialect == Dialect::McpTools
        && let Some(Value::Object(a)) = obj.get("annotations")
    {
        mcp.read_only = a.get("readOnlyHint").and_then(Value::as_bool);
        mcp.destructive = a.get("destructiveHint").and_then(Value::as_bool);
        mcp.idempotent = a.get("idempotentHint").and_then(Value::as_bool);
        mcp.open_world = a.get("openWorldHint").and_then(Value::as_bool);
        mcp.annotations_title = a.get("title").and_then(Value::as_str).map(str::to_string);
    }
    Ok(RawFunction {
        pointer: fptr,
        name,
        title: obj.get("title").and_then(Value::as_str),
        description: obj.get("description").and_then(Value::as_str),
        parameters,
        output_schema: if dialect == Dialect::McpTools { obj.get("outputSchema") } else { None },
        strict: obj.get("strict") == Some(&Value::Bool(true)),
        mcp,
        python_types,
    })
}

/// The JSON Schema type for a Python-style type name, as function lists written for Python-first
/// frameworks and the Gorilla/BFCL convention use them; `Some(None)`: any type.
fn python_type(name: &str) -> Option<Option<&'static str>> {
    Some(match name.to_ascii_lowercase().as_str() {
        "dict" | "mapping" => Some("object"),
        "float" | "double" => Some("number"),
        "tuple" | "list" | "set" => Some("array"),
        "str" => Some("string"),
        "int" => Some("integer"),
        "bool" => Some("boolean"),
        "any" => None,
        "nonetype" | "none" => Some("null"),
        _ => return None,
    })
}

/// Rewrites Python-style `type` names to JSON Schema's at any depth (schema positions only:
/// never inside `enum`, `const`, `default` or `examples`, and a property named `enum` is a
/// schema); returns how many were rewritten.
fn json_schema_types(schema: &mut Value) -> usize {
    match schema {
        Value::Object(obj) => object_schema_types(obj),
        _ => 0,
    }
}

fn object_schema_types(obj: &mut serde_json::Map<String, Value>) -> usize {
    let mut count = 0;
    match obj.get_mut("type") {
        Some(Value::String(t)) => {
            if let Some(mapped) = python_type(t) {
                count += 1;
                match mapped {
                    Some(m) => *t = m.to_string(),
                    None => {
                        obj.remove("type");
                    }
                }
            }
        }
        Some(Value::Array(types)) => {
            let before = types.len();
            let mut any = false;
            let mut out = Vec::with_capacity(before);
            for t in types.iter() {
                match t.as_str().and_then(python_type) {
                    Some(Some(m)) => {
                        count += 1;
                        out.push(json!(m));
                    }
                    Some(None) => {
                        count += 1;
                        any = true;
                    }
                    None => out.push(t.clone()),
                }
            }
            if any {
                obj.remove("type");
            } else {
                *types = out;
            }
        }
        _ => {}
    }
    count + keywords::subschemas_mut(obj).map(json_schema_types).sum::<usize>()
}

/// Faults inside a function's schema are placed relative to the schema; prefix its own pointer.
fn at_or(inner: &str, schema_at: &str) -> String {
    match inner.split_once('#') {
        Some((_, rest)) if !rest.is_empty() => format!("{schema_at}{rest}"),
        _ => schema_at.to_string(),
    }
}

fn invalid(origin: &str, fault: Fault) -> Error {
    Error::Invalid { location: Location::at_pointer(origin, &fault.at), message: fault.message }
}

#[cfg(test)]
mod python_type_tests {
    use super::*;

    #[test]
    fn python_type_names_become_json_schema_types() {
        let mut s = json!({"type": "dict", "properties": {
            "price": {"type": "float"}, "tags": {"type": "list", "items": {"type": "str"}},
            "point": {"type": "tuple", "items": [{"type": "int"}, {"type": "int"}]},
            "anything": {"type": "any"}, "flag": {"type": ["bool", "NoneType"]},
            "type": {"type": "string", "enum": ["dict", "float"], "default": "dict"}}});
        assert_eq!(json_schema_types(&mut s), 10);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "price": {"type": "number"}, "tags": {"type": "array", "items": {"type": "string"}},
                "point": {"type": "array", "items": [{"type": "integer"}, {"type": "integer"}]},
                "anything": {}, "flag": {"type": ["boolean", "null"]},
                "type": {"type": "string", "enum": ["dict", "float"], "default": "dict"}}})
        );
    }

    #[test]
    fn properties_named_like_data_keywords_are_schemas() {
        let mut s = json!({"type": "dict", "default": {"type": "int"}, "properties": {
            "enum": {"type": "int"}, "default": {"type": "list", "items": {"type": "str"}},
            "x-id": {"type": "str"}, "required": {"type": "bool"}}});
        assert_eq!(json_schema_types(&mut s), 6);
        assert_eq!(
            s,
            json!({"type": "object", "default": {"type": "int"}, "properties": {
                "enum": {"type": "integer"}, "default": {"type": "array", "items": {"type": "string"}},
                "x-id": {"type": "string"}, "required": {"type": "boolean"}}})
        );
    }

    #[test]
    fn json_schema_types_are_left_alone() {
        let mut s = json!({"type": "object", "properties": {"a": {"type": "number"}}});
        assert_eq!(json_schema_types(&mut s), 0);
    }
}
