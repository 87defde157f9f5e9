//! The conventions of mcpgen's OpenAPI loader, for both directions: normalize and the tools stage
//! read documents by them, and `mcpgen convert` writes documents that follow them, so that loading
//! what `convert` wrote yields the same tools.

use serde_json::{Map, Value, json};

use crate::ir::{McpExtension, Method, Operation};
use crate::tools::naming;

/// The operation extension: the tool's `name`, `title`, `description`, `hidden` (or `x-mcp:
/// false`), `annotations` (the hints and the annotations' `title`), `scopes` and
/// `maxResultChars` (the tool's result budget).
pub(crate) const X_MCP: &str = "x-mcp";

/// In `x-mcp`: the tool's result budget in characters (camelCase, as the other keys of more than
/// one word, `readOnlyHint`...).
pub(crate) const MAX_RESULT_CHARS: &str = "maxResultChars";

/// In `x-mcp`: the operation was inferred from recorded calls, `{examples: N, from: "HAR file"}`
/// (a Postman collection's or a HAR file's); remove it once the operation is reviewed.
pub(crate) const INFERRED: &str = "inferred";

/// On a parameter: the tool argument's name, when it differs from the parameter's.
pub(crate) const X_MCP_ARGUMENT: &str = "x-mcp-argument";

/// `x-mcp` as the loader reads it; `None` for a value that is neither an object nor a boolean.
/// The hints may also stand beside `name` and `title` instead of under `annotations`.
pub(crate) fn read_mcp(v: &Value) -> Option<McpExtension> {
    let mut ext = McpExtension::default();
    match v {
        Value::Bool(enabled) => ext.hidden = !enabled,
        Value::Object(obj) => {
            let text = |k: &str| obj.get(k).and_then(Value::as_str).map(str::to_string);
            ext.name = text("name");
            ext.title = text("title");
            ext.description = text("description");
            ext.hidden = obj.get("hidden") == Some(&Value::Bool(true));
            let hints = obj.get("annotations").and_then(Value::as_object).unwrap_or(obj);
            let hint = |k: &str| hints.get(k).and_then(Value::as_bool);
            ext.annotations_title =
                obj.get("annotations").and_then(|a| a.get("title")).and_then(Value::as_str).map(str::to_string);
            ext.read_only = hint("readOnlyHint");
            ext.destructive = hint("destructiveHint");
            ext.idempotent = hint("idempotentHint");
            ext.open_world = hint("openWorldHint");
            ext.scopes = obj.get("scopes").and_then(read_scopes);
            ext.max_result_chars =
                obj.get(MAX_RESULT_CHARS).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
            ext.inferred = obj.get(INFERRED).and_then(|v| {
                let examples = usize::try_from(v.get("examples")?.as_u64()?).ok()?;
                let from = v.get("from").and_then(Value::as_str).unwrap_or("examples").to_string();
                Some(crate::ir::Inferred { examples, from })
            });
        }
        _ => return None,
    }
    Some(ext)
}

/// `x-mcp.scopes`: a list of scopes (one set, all needed) or a list of such lists (any one set
/// suffices); `[]` (or an empty set among them): no scope needed. `None` for anything else.
fn read_scopes(v: &Value) -> Option<mcpgen_config::ScopeSets> {
    let text_list =
        |v: &Value| -> Option<Vec<String>> { v.as_array()?.iter().map(|s| s.as_str().map(str::to_string)).collect() };
    let list = v.as_array()?;
    let sets = if let Some(flat) = text_list(v) {
        if flat.is_empty() { Vec::new() } else { vec![flat] }
    } else {
        list.iter().map(text_list).collect::<Option<Vec<_>>>()?
    };
    Some(if sets.iter().any(Vec::is_empty) { Vec::new() } else { sets })
}

/// `x-mcp` as `convert` writes it for an operation with this method: the hints only where they
/// differ from what the loader derives from the method ([`method_hints`]); `None` when empty.
pub(crate) fn write_mcp(ext: &McpExtension, method: Method) -> Option<Value> {
    let mut out = Map::new();
    let texts = [("name", &ext.name), ("title", &ext.title), ("description", &ext.description)];
    for (key, value) in texts {
        if let Some(v) = value {
            out.insert(key.into(), json!(v));
        }
    }
    if ext.hidden {
        out.insert("hidden".into(), json!(true));
    }
    if let Some(scopes) = &ext.scopes {
        out.insert("scopes".into(), json!(scopes));
    }
    if let Some(max) = ext.max_result_chars {
        out.insert(MAX_RESULT_CHARS.into(), json!(max));
    }
    if let Some(inferred) = &ext.inferred {
        out.insert(INFERRED.into(), json!({"examples": inferred.examples, "from": inferred.from}));
    }
    let (read_only, destructive, idempotent) = method_hints(method);
    let hints = [
        ("readOnlyHint", ext.read_only, read_only),
        ("destructiveHint", ext.destructive, destructive),
        ("idempotentHint", ext.idempotent, idempotent),
        ("openWorldHint", ext.open_world, OPEN_WORLD),
    ];
    let mut annotations: Map<String, Value> = hints
        .into_iter()
        .filter_map(|(key, value, derived)| Some((key.to_string(), json!(value.filter(|v| *v != derived)?))))
        .collect();
    if let Some(title) = &ext.annotations_title {
        annotations.insert("title".into(), json!(title));
    }
    if !annotations.is_empty() {
        out.insert("annotations".into(), Value::Object(annotations));
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

/// The annotation hints a method implies when `x-mcp` says nothing (see DESIGN.md):
/// (read-only, destructive, idempotent).
pub(crate) fn method_hints(method: Method) -> (bool, bool, bool) {
    match method {
        Method::Get | Method::Head | Method::Options | Method::Trace => (true, false, true),
        Method::Put | Method::Delete => (false, true, true),
        Method::Post => (false, false, false),
        Method::Patch => (false, true, false),
    }
}

/// The open-world hint when `x-mcp` says nothing: an API is the open world.
pub(crate) const OPEN_WORLD: bool = true;

/// A parameter's description as the loader reads it: trimmed, empty ones dropped, and copied into
/// the argument's schema when that has no description of its own. So an argument schema's
/// description that the loader would restore unchanged can sit on the parameter, where OpenAPI
/// puts it: returns the schema without it, and the description.
pub(crate) fn parameter_description(mut schema: Value) -> (Value, Option<String>) {
    let restorable = match schema.get("description") {
        Some(Value::String(d)) => !d.is_empty() && d.trim() == d,
        _ => false,
    };
    let description = restorable
        .then(|| schema.as_object_mut().and_then(|o| o.remove("description")))
        .flatten()
        .and_then(|d| d.as_str().map(str::to_string));
    (schema, description)
}

/// Whether a request body schema declares no properties. The loader reads such a body as one
/// `body` argument, so a body made of the arguments (`--forward-url`) of a function without any
/// is written as no body at all.
pub(crate) fn declares_no_properties(schema: &Value) -> bool {
    schema.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty)
}

/// A path key that carries a fragment or query (`/#Action=AddTagsToResource`, the shape of AWS's
/// query-protocol descriptions; `/items?type=x`): the path before `#`/`?`, and the `name=value`
/// pairs after it, which are sent as query parameters. A bare name (`#analyzerArn`) only told
/// two keys apart: dropped.
pub(crate) fn split_path_key(key: &str) -> (&str, Vec<(String, String)>) {
    let Some(at) = key.find(['#', '?']) else { return (key, Vec::new()) };
    let pairs = key[at + 1..]
        .split(['&', '#', '?'])
        .filter_map(|pair| pair.split_once('='))
        .filter(|(name, _)| !name.is_empty())
        .map(|(name, value)| {
            let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
            (decode(name), decode(value))
        })
        .collect();
    let path = &key[..at];
    (if path.is_empty() { "/" } else { path }, pairs)
}

/// The path key [`split_path_key`] reads back as `path` and `pairs`; `tag`, a bare name after
/// `#`, tells apart keys that would otherwise be the same.
pub(crate) fn path_key(path: &str, pairs: &[(String, String)], tag: Option<&str>) -> String {
    let encode = |s: &str| percent_encoding::utf8_percent_encode(s, PAIR).to_string();
    let mut key = path.to_string();
    if !pairs.is_empty() {
        let pairs: Vec<String> = pairs.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
        key = format!("{key}?{}", pairs.join("&"));
    }
    if let Some(tag) = tag {
        key = format!("{key}#{}", encode(tag));
    }
    key
}

/// What a name or value in a path key escapes to be read back as it was.
const PAIR: &percent_encoding::AsciiSet =
    &percent_encoding::CONTROLS.add(b' ').add(b'#').add(b'%').add(b'&').add(b'=').add(b'?').add(b'/');

/// Makes the loader name `op`'s tool `tool`: `x-mcp.name`, when the name it derives (from
/// `x-mcp.name`, the operationId, or the method and path) is another.
pub(crate) fn pin_name(op: &mut Operation, tool: &str) {
    if naming::sanitize(&naming::desired_name(op)) != tool {
        op.mcp.name = Some(tool.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcp_extension_round_trips() {
        let ext = McpExtension {
            name: Some("n".into()),
            title: Some("T".into()),
            annotations_title: Some("A".into()),
            read_only: Some(true),
            destructive: Some(false),
            open_world: Some(false),
            ..Default::default()
        };
        let written = write_mcp(&ext, Method::Post).expect("not empty");
        assert_eq!(
            written,
            json!({"name": "n", "title": "T", "annotations": {"readOnlyHint": true, "openWorldHint": false, "title": "A"}}),
            "POST's own hints (destructiveHint: false) are left to the method"
        );
        let back = read_mcp(&written).expect("an object");
        assert_eq!(McpExtension { destructive: None, ..ext }, back);
        assert_eq!(write_mcp(&McpExtension::default(), Method::Get), None);
        assert_eq!(read_mcp(&json!(false)).map(|e| e.hidden), Some(true));
        assert_eq!(read_mcp(&json!("x")), None);
    }

    #[test]
    fn max_result_chars_round_trips() {
        let ext = McpExtension { max_result_chars: Some(5000), ..Default::default() };
        let written = write_mcp(&ext, Method::Get).expect("not empty");
        assert_eq!(written, json!({"maxResultChars": 5000}));
        assert_eq!(read_mcp(&written), Some(ext));
    }

    #[test]
    fn max_result_chars_that_is_not_a_count_is_not_read() {
        assert_eq!(read_mcp(&json!({"maxResultChars": -1})).map(|e| e.max_result_chars), Some(None));
        assert_eq!(read_mcp(&json!({"maxResultChars": "9"})).map(|e| e.max_result_chars), Some(None));
    }

    #[test]
    fn scopes_round_trip() {
        let scopes = |v: Value| read_mcp(&json!({ "scopes": v })).and_then(|e| e.scopes);
        assert_eq!(scopes(json!(["a", "b"])), Some(vec![vec!["a".to_string(), "b".to_string()]]));
        assert_eq!(scopes(json!([["a"], ["b"]])), Some(vec![vec!["a".to_string()], vec!["b".to_string()]]));
        assert_eq!(scopes(json!([])), Some(vec![]), "an override that needs no scope");
        assert_eq!(scopes(json!("a")), None);
        let ext =
            McpExtension { scopes: Some(vec![vec!["a".into()], vec!["b".into(), "c".into()]]), ..Default::default() };
        assert_eq!(read_mcp(&write_mcp(&ext, Method::Get).expect("not empty")), Some(ext));
    }

    #[test]
    fn path_keys_round_trip() {
        let pairs = vec![("Action".to_string(), "Get&Put=1".to_string()), ("v".to_string(), "2".to_string())];
        let key = path_key("/items/{id}", &pairs, Some("second"));
        assert_eq!(key, "/items/{id}?Action=Get%26Put%3D1&v=2#second");
        assert_eq!(split_path_key(&key), ("/items/{id}", pairs));
        assert_eq!(split_path_key("/#Action=A"), ("/", vec![("Action".to_string(), "A".to_string())]));
        assert_eq!(split_path_key("/cookies#formExploded"), ("/cookies", vec![]));
        assert_eq!(path_key("/x", &[], None), "/x");
    }

    #[test]
    fn descriptions_the_loader_restores_move() {
        let (schema, d) = parameter_description(json!({"type": "string", "description": "A city."}));
        assert_eq!((schema, d.as_deref()), (json!({"type": "string"}), Some("A city.")));
        let padded = json!({"type": "string", "description": " padded "});
        assert_eq!(parameter_description(padded.clone()), (padded, None));
    }
}
