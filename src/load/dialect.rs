//! Which kind of input a parsed document is.

use serde_json::Value;

use crate::diag::{DiagKind, Diagnostic};
use crate::error::{Error, Location, Result};
use crate::ir::Dialect;

/// The dialect of a document and, for tool lists, the JSON pointer of the list itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Detected {
    pub dialect: Dialect,
    /// For function-calling inputs: where the array of tools is (`""` for a bare array).
    pub list_pointer: String,
    pub warnings: Vec<Diagnostic>,
}

/// Whether a parsed document is a runtime config (`mcpgen config`'s output), by its format key.
pub(crate) fn is_runtime_config(value: &Value) -> bool {
    value.get("mcpgen_config").is_some()
}

/// Whether a parsed document is a multi-API file (several APIs served as one), by its key.
pub(crate) fn is_apis_file(value: &Value) -> bool {
    value.get("mcpgen_apis").is_some()
}

pub(crate) fn detect(value: &Value, origin: &str) -> Result<Detected> {
    let found = |dialect, list_pointer: &str| Detected {
        dialect,
        list_pointer: list_pointer.to_string(),
        warnings: Vec::new(),
    };
    match value {
        Value::Object(obj) => {
            if let Some(v) = obj.get("openapi") {
                return detect_openapi(v, origin);
            }
            if let Some(v) = obj.get("swagger") {
                let version = version_text(v);
                if version == "2.0" || version == "2" {
                    return Ok(found(Dialect::Swagger2, ""));
                }
                return Err(unknown(
                    origin,
                    "/swagger",
                    format!(
                        "unsupported Swagger version {version:?}: only 2.0 is Swagger; later versions are `openapi: 3.x`"
                    ),
                ));
            }
            if let Some(Value::Array(_)) = obj.get("functionDeclarations") {
                return Ok(found(Dialect::GeminiFunctions, "/functionDeclarations"));
            }
            if let Some(Value::Array(_)) = obj.get("functions") {
                return Ok(found(Dialect::OpenAiFunctions, "/functions"));
            }
            if let Some(Value::Array(items)) = obj.get("tools") {
                return classify_list(items, "/tools", origin);
            }
            if let Some(Value::Array(items)) = value.pointer("/result/tools") {
                return classify_list(items, "/result/tools", origin);
            }
            if let Some(found) = detect_recording(obj, origin)? {
                return Ok(found);
            }
            if obj.contains_key("paths") || obj.contains_key("info") {
                return Err(unknown(origin, "", "missing version: an OpenAPI document needs a top-level `openapi: 3.x.y` (or `swagger: \"2.0\"`) field".to_string()));
            }
            Err(unknown(origin, "", "not an API description: expected an OpenAPI document (`openapi`/`swagger` field), a tool list (`functions`, `tools`, `functionDeclarations`, or a bare array of tools), a Postman collection (`info.schema` and `item`) or a HAR file (`log.entries`)".to_string()))
        }
        Value::Array(items) => classify_list(items, "", origin),
        _ => Err(unknown(
            origin,
            "",
            "not an API description: the document is neither an object nor an array".to_string(),
        )),
    }
}

/// A Postman collection (v2.0, v2.1: `info.schema` names Postman's collection schema, or
/// `info._postman_id` beside `item`) or a HAR file (`log` with `entries`). v1 collections and
/// HAR files without entries are refused, naming the place.
fn detect_recording(obj: &serde_json::Map<String, Value>, origin: &str) -> Result<Option<Detected>> {
    let found = |dialect| Some(Detected { dialect, list_pointer: String::new(), warnings: Vec::new() });
    if let Some(log) = obj.get("log").filter(|l| l.is_object()) {
        return match log.get("entries") {
            Some(Value::Array(entries)) if !entries.is_empty() => Ok(found(Dialect::Har)),
            _ => Err(unknown(
                origin,
                "/log/entries",
                "a HAR file with no entries: record some requests to the API, then export again".to_string(),
            )),
        };
    }
    let info = obj.get("info");
    let schema = info.and_then(|i| i.get("schema")).and_then(Value::as_str).unwrap_or("");
    let postman =
        schema.contains("getpostman.com/json/collection") || info.and_then(|i| i.get("_postman_id")).is_some();
    if !postman {
        if obj.contains_key("requests") && obj.contains_key("order") {
            return Err(unknown(
                origin,
                "",
                "a Postman collection v1: mcpgen reads v2.0 and v2.1 (Postman exports v2.1: Export, Collection v2.1)"
                    .to_string(),
            ));
        }
        return Ok(None);
    }
    if let Some(version) = ["v1.", "v3.", "v4."].iter().find(|v| schema.contains(&format!("/collection/{v}"))) {
        return Err(unknown(
            origin,
            "/info/schema",
            format!("a Postman collection {}x: mcpgen reads v2.0 and v2.1", version.trim_end_matches('.')),
        ));
    }
    if !matches!(obj.get("item"), Some(Value::Array(_))) {
        return Err(unknown(
            origin,
            "/item",
            "a Postman collection needs an `item` list of requests and folders".to_string(),
        ));
    }
    Ok(found(Dialect::Postman))
}

fn detect_openapi(v: &Value, origin: &str) -> Result<Detected> {
    let version = version_text(v);
    let mut parts = version.split('.');
    let major = parts.next().unwrap_or("");
    let minor = parts.next().unwrap_or("");
    let dialect = match (major, minor) {
        ("3", "0") => Dialect::Oas30,
        ("3", "1") => Dialect::Oas31,
        ("3", "2") => {
            let mut d = Detected { dialect: Dialect::Oas31, list_pointer: String::new(), warnings: Vec::new() };
            d.warnings.push(Diagnostic::new(
                DiagKind::Unsupported,
                "#/openapi",
                format!("OpenAPI {version} is read as 3.1: features new in 3.2 (the QUERY method, additionalOperations, streaming media types) are ignored"),
            ));
            return Ok(d);
        }
        _ => {
            return Err(unknown(
                origin,
                "/openapi",
                format!("unsupported OpenAPI version {version:?}: mcpgen reads 2.0, 3.0.x, 3.1.x and 3.2.x"),
            ));
        }
    };
    Ok(Detected { dialect, list_pointer: String::new(), warnings: Vec::new() })
}

fn classify_list(items: &[Value], pointer: &str, origin: &str) -> Result<Detected> {
    let first = items.iter().find_map(Value::as_object);
    let Some(first) = first else {
        let what = if items.is_empty() { "the tool list is empty" } else { "the tool list holds no objects" };
        return Err(unknown(origin, pointer, what.to_string()));
    };
    let dialect = if first.get("type").and_then(Value::as_str) == Some("function") || first.contains_key("function") {
        Dialect::OpenAiTools
    } else if first.contains_key("functionDeclarations") {
        Dialect::GeminiFunctions
    } else if first.contains_key("input_schema") {
        Dialect::AnthropicTools
    } else if first.contains_key("inputSchema") {
        Dialect::McpTools
    } else if first.contains_key("name") {
        Dialect::OpenAiFunctions
    } else {
        return Err(unknown(origin, &format!("{pointer}/0"), "unrecognised tool entry: expected `name` + `parameters` (OpenAI), `type: function` (OpenAI tools), `input_schema` (Anthropic) or `inputSchema` (MCP)".to_string()));
    };
    Ok(Detected { dialect, list_pointer: pointer.to_string(), warnings: Vec::new() })
}

fn version_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.trim().to_string(),
        Value::Number(n) => n.to_string(),
        other => other.to_string(),
    }
}

fn unknown(origin: &str, pointer: &str, message: String) -> Error {
    Error::UnknownDialect { location: Location::at_pointer(origin, format!("#{pointer}")), message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn d(v: Value) -> Dialect {
        detect(&v, "t").unwrap().dialect
    }

    #[test]
    fn dialects() {
        assert_eq!(d(json!({"swagger": "2.0"})), Dialect::Swagger2);
        assert_eq!(d(json!({"openapi": "3.0.3"})), Dialect::Oas30);
        assert_eq!(d(json!({"openapi": 3.0})), Dialect::Oas30);
        assert_eq!(d(json!({"openapi": "3.1.0"})), Dialect::Oas31);
        let w = detect(&json!({"openapi": "3.2.0"}), "t").unwrap();
        assert_eq!((w.dialect, w.warnings.len()), (Dialect::Oas31, 1));
        assert_eq!(d(json!([{"name": "f", "parameters": {}}])), Dialect::OpenAiFunctions);
        assert_eq!(d(json!({"model": "m", "functions": [{"name": "f"}]})), Dialect::OpenAiFunctions);
        assert_eq!(d(json!([{"type": "function", "function": {"name": "f"}}])), Dialect::OpenAiTools);
        assert_eq!(d(json!({"tools": [{"type": "function", "function": {"name": "f"}}]})), Dialect::OpenAiTools);
        assert_eq!(d(json!([{"name": "f", "input_schema": {}}])), Dialect::AnthropicTools);
        assert_eq!(d(json!({"tools": [{"name": "f", "inputSchema": {}}]})), Dialect::McpTools);
        assert_eq!(d(json!({"functionDeclarations": [{"name": "f"}]})), Dialect::GeminiFunctions);
        let schema = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
        assert_eq!(d(json!({"info": {"name": "c", "schema": schema}, "item": []})), Dialect::Postman);
        assert_eq!(d(json!({"log": {"version": "1.2", "entries": [{}]}})), Dialect::Har);
    }

    #[test]
    fn recordings_refused_name_the_place() {
        let e = detect(&json!({"log": {"version": "1.2", "entries": []}}), "t.har").unwrap_err().to_string();
        assert!(e.contains("t.har at #/log/entries") && e.contains("no entries"), "{e}");
        let schema = "https://schema.getpostman.com/json/collection/v2.1.0/collection.json";
        let e = detect(&json!({"info": {"schema": schema}}), "c.json").unwrap_err().to_string();
        assert!(e.contains("#/item"), "{e}");
    }

    #[test]
    fn errors_name_the_place() {
        let e = detect(&json!({"openapi": "4.0.0"}), "a.yaml").unwrap_err().to_string();
        assert!(e.contains("a.yaml at #/openapi") && e.contains("4.0.0"), "{e}");
        let e = detect(&json!({"info": {}, "paths": {}}), "a.yaml").unwrap_err().to_string();
        assert!(e.contains("missing version"), "{e}");
        let e = detect(&json!({"hello": "world"}), "a.json").unwrap_err().to_string();
        assert!(e.contains("not an API description"), "{e}");
        assert!(detect(&json!([]), "a").is_err());
    }
}
