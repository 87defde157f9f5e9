//! One input schema per operation: parameters from every location and the request body merged
//! into the properties of one object, with a binding that records where each argument goes.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Map, Value, json};

use super::inline::{InlineLimits, Inlined, ensure_array_items, inline, strip_flagged_properties};
use super::naming::arg_name;
use crate::diag::{DiagKind, Diagnostic};
use crate::ir::{MediaType, Operation, Parameter, RequestBody};
use crate::normalize::DEFS_PREFIX;
use mcpgen_config::{BodyBinding, BodyContent, BodyField, ParamBinding, ParamLocation};

pub(crate) struct Input {
    pub schema: Value,
    pub params: Vec<ParamBinding>,
    pub body: Option<BodyBinding>,
    /// Headers the document fixes (`Accept`, `Content-Type` declared as parameters, required
    /// parameters that allow one value).
    pub headers: BTreeMap<String, String>,
    /// Query parameters the document fixes (pairs in the path key, required one-value parameters).
    pub query: BTreeMap<String, String>,
    /// The operation declares an `Authorization` header parameter: a credential, not an argument.
    pub authorization: bool,
    pub truncated: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Assigns unique argument names: the first taker keeps a name, later ones get their location
/// as a prefix (`body_id`, `header_id`), then a number.
#[derive(Default)]
struct ArgNames {
    used: HashSet<String>,
}

impl ArgNames {
    fn claim(&mut self, wire: &str, location: &str, pointer: &str, diags: &mut Vec<Diagnostic>) -> String {
        let base = arg_name(wire);
        if self.used.insert(base.clone()) {
            return base;
        }
        let mut candidate = arg_name(&format!("{location}_{wire}"));
        let mut n = 2;
        while !self.used.insert(candidate.clone()) {
            candidate = arg_name(&format!("{location}_{wire}_{n}"));
            n += 1;
        }
        diags.push(Diagnostic::new(
            DiagKind::ArgumentRenamed,
            pointer,
            format!("{location} `{wire}` is the argument `{candidate}` (the name `{base}` is taken)"),
        ));
        candidate
    }
}

/// What the document fixes rather than asks for.
#[derive(Default)]
struct Fixed {
    headers: BTreeMap<String, String>,
    query: BTreeMap<String, String>,
    authorization: bool,
}

impl Fixed {
    /// Takes a parameter that is no argument; `false` leaves it to be one.
    fn take(&mut self, p: &crate::ir::Parameter, op: &Operation) -> bool {
        // A required parameter that allows one value (AWS: `Action`, `Version`, `X-Amz-Target`)
        // is no choice for the model: it is sent, not asked for.
        if let Some(value) = p.required.then(|| single_value(&p.schema)).flatten() {
            let place = match p.location {
                ParamLocation::Query => Some(&mut self.query),
                ParamLocation::Header => Some(&mut self.headers),
                _ => None,
            };
            if let Some(place) = place {
                place.insert(p.name.clone(), value);
                return true;
            }
        }
        if p.location != ParamLocation::Header {
            return false;
        }
        // OpenAPI says to ignore these three header parameters, but validators and real servers
        // enforce them: the document's fixed value is sent, and they never become arguments.
        match p.name.to_ascii_lowercase().as_str() {
            "authorization" => self.authorization = true,
            "accept" | "content-type" => {
                if let Some(value) = fixed_header_value(p, op) {
                    self.headers.insert(p.name.clone(), value);
                }
            }
            _ => return false,
        }
        true
    }
}

/// The one value a schema allows (`enum` of one, or `const`), as text on the wire.
fn single_value(schema: &Value) -> Option<String> {
    let value = match schema.get("enum").and_then(Value::as_array) {
        Some(values) if values.len() == 1 => &values[0],
        Some(_) => return None,
        None => schema.get("const")?,
    };
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(value.to_string()),
        _ => None,
    }
}

/// The value a document fixes for a declared `Accept` or `Content-Type` header: an enum of one, a
/// `const`, a `default`, or else the operation's only media type (response for `Accept`, request
/// body for `Content-Type`), or else, for a required one, its example.
fn fixed_header_value(p: &crate::ir::Parameter, op: &Operation) -> Option<String> {
    let s = &p.schema;
    let one_enum = s.get("enum").and_then(Value::as_array).filter(|e| e.len() == 1).and_then(|e| e[0].as_str());
    let fixed = one_enum
        .or_else(|| s.get("const").and_then(Value::as_str))
        .or_else(|| s.get("default").and_then(Value::as_str));
    if let Some(v) = fixed {
        return Some(v.to_string());
    }
    let media: Vec<&str> = if p.name.eq_ignore_ascii_case("accept") {
        op.response.iter().flat_map(|r| r.content.iter().map(|m| m.media_type.as_str())).collect()
    } else {
        op.request_body.iter().flat_map(|b| b.content.iter().map(|m| m.media_type.as_str())).collect()
    };
    match media.as_slice() {
        [only] => Some(only.to_string()),
        // Nothing fixes it, but a required header is enforced: the document's example
        // (Telstra: `Content-Type` required on every GET, `example: application/json`).
        _ if p.required => s
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .or_else(|| s.get("example"))
            .and_then(Value::as_str)
            .map(str::to_string),
        _ => None,
    }
}

pub(crate) fn build_input(op: &Operation, registry: &BTreeMap<String, Value>, limits: InlineLimits) -> Input {
    let mut diagnostics = Vec::new();
    let mut names = ArgNames::default();
    let mut props = Map::new();
    let mut required: Vec<Value> = Vec::new();
    let mut params = Vec::new();
    let mut fixed = Fixed::default();
    for (name, value) in &op.fixed_query {
        // A pair that mirrors a declared parameter (AWS: `#X-Amz-Target=...` with the header
        // declared) only told two path keys apart: the parameter says how it is sent.
        if !op.parameters.iter().any(|p| p.name.eq_ignore_ascii_case(name)) {
            fixed.query.insert(name.clone(), value.clone());
        }
    }
    for p in &op.parameters {
        if fixed.take(p, op) {
            continue;
        }
        let location = p.location.as_str();
        let arg = names.claim(p.argument.as_deref().unwrap_or(&p.name), location, &op.pointer, &mut diagnostics);
        let mut schema = p.schema.clone();
        // `readOnly` describes response fields; on a parameter it would only tell the model not to send it.
        if let Value::Object(o) = &mut schema {
            o.remove("readOnly");
        }
        annotate(&mut schema, p.description.as_deref(), p.deprecated);
        props.insert(arg.clone(), schema);
        if p.required {
            required.push(json!(arg));
        }
        params.push(param_binding(p, arg));
    }
    let body = op
        .request_body
        .as_ref()
        .map(|b| body_binding(b, registry, &mut names, &mut props, &mut required, &op.pointer, &mut diagnostics));
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        root.insert("required".into(), Value::Array(required));
    }
    // A closed object body keeps the arguments closed (strict function lists round-trip so).
    if body.as_ref().is_some_and(|b| matches!(b.content, BodyContent::Properties { .. }))
        && op
            .request_body
            .as_ref()
            .and_then(|b| preferred_media(&b.content))
            .is_some_and(|m| resolve(&m.schema, registry).get("additionalProperties") == Some(&Value::Bool(false)))
    {
        root.insert("additionalProperties".into(), json!(false));
    }
    let Inlined { mut schema, truncated } = inline(&Value::Object(root), registry, limits);
    // Inside arguments, read-only fields go; the arguments themselves stay (parameters may reuse
    // a read-only response schema, and read-only body fields were left out above).
    if let Value::Object(root) = &mut schema {
        for key in ["properties", "$defs"] {
            if let Some(Value::Object(children)) = root.get_mut(key) {
                for child in children.values_mut() {
                    if let Value::Object(c) = child {
                        c.remove("readOnly");
                    }
                    strip_flagged_properties(child, "readOnly");
                }
            }
        }
    }
    ensure_array_items(&mut schema);
    let Fixed { headers, query, authorization } = fixed;
    Input {
        schema,
        params,
        body,
        headers,
        query,
        authorization,
        truncated: truncated.into_iter().collect(),
        diagnostics,
    }
}

fn annotate(schema: &mut Value, description: Option<&str>, deprecated: bool) {
    let Value::Object(obj) = schema else { return };
    if let Some(d) = description
        && !obj.contains_key("description")
    {
        obj.insert("description".into(), json!(d));
    }
    if deprecated {
        obj.insert("deprecated".into(), json!(true));
    }
}

/// The media type a tool sends: JSON first, then forms, then whatever comes first.
pub(crate) fn preferred_media(content: &[MediaType]) -> Option<&MediaType> {
    let rank = |m: &MediaType| {
        let t = m.media_type.to_ascii_lowercase();
        if t.starts_with("application/json") || (t.starts_with("application/") && t.contains("+json")) {
            0
        } else if t.starts_with("application/x-www-form-urlencoded") {
            1
        } else if t.starts_with("multipart/form-data") {
            2
        } else if t.starts_with("*/*") || t.starts_with("application/*") {
            4
        } else {
            3
        }
    };
    content.iter().enumerate().min_by_key(|(i, m)| (rank(m), *i)).map(|(_, m)| m)
}

/// How a body is sent, by media type: the loader keeps the schemas of JSON, form and multipart
/// bodies; text and binary bodies are one string argument.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum BodyKind {
    Json,
    Form,
    Multipart,
    Text,
    Binary,
}

fn body_kind(media: &str) -> BodyKind {
    let t = media.to_ascii_lowercase();
    if mcpgen_config::media::is_json_media(&t) || t.starts_with("*/*") {
        BodyKind::Json
    } else if t.starts_with("application/x-www-form-urlencoded") {
        BodyKind::Form
    } else if t.starts_with("multipart/") {
        BodyKind::Multipart
    } else if mcpgen_config::media::is_text_media(&t) {
        BodyKind::Text
    } else {
        BodyKind::Binary
    }
}

#[allow(clippy::too_many_arguments)]
fn body_binding(
    body: &RequestBody,
    registry: &BTreeMap<String, Value>,
    names: &mut ArgNames,
    props: &mut Map<String, Value>,
    required: &mut Vec<Value>,
    pointer: &str,
    diags: &mut Vec<Diagnostic>,
) -> BodyBinding {
    // preferred_media is only None for an empty content list, which normalize never produces.
    let media = preferred_media(&body.content).cloned().unwrap_or(MediaType {
        media_type: "application/json".into(),
        schema: json!({}),
        encoding: BTreeMap::new(),
        example: None,
        examples: Vec::new(),
    });
    let kind = body_kind(&media.media_type);
    let fields = match kind {
        BodyKind::Json | BodyKind::Form | BodyKind::Multipart => object_fields(&media.schema, registry),
        BodyKind::Text | BodyKind::Binary => None,
    };
    let content = match fields {
        Some((fields, field_required)) if !fields.is_empty() => {
            let mut bound = Vec::new();
            for (name, mut schema) in fields {
                let arg = names.claim(&name, "body", pointer, diags);
                let file = kind == BodyKind::Multipart && is_binary(&schema, registry);
                if file {
                    schema = file_schema(&schema, registry);
                }
                if body.required && field_required.contains(&name) {
                    required.push(json!(arg));
                }
                props.insert(arg.clone(), schema);
                bound.push(BodyField { arg, content_type: media.encoding.get(&name).cloned(), name, file });
            }
            BodyContent::Properties { fields: bound, extra_arg: None }
        }
        _ => {
            let arg = names.claim("body", "request", pointer, diags);
            let mut schema = match kind {
                BodyKind::Text => json!({"type": "string"}),
                BodyKind::Binary => json!({"type": "string", "contentEncoding": "base64"}),
                _ => media.schema.clone(),
            };
            let what = match kind {
                BodyKind::Binary => format!("Request body ({}), base64-encoded", media.media_type),
                BodyKind::Text => format!("Request body ({})", media.media_type),
                _ => String::new(),
            };
            let description = body.description.clone().or((!what.is_empty()).then_some(what));
            annotate(&mut schema, description.as_deref(), false);
            if body.required {
                required.push(json!(arg));
            }
            props.insert(arg.clone(), schema);
            BodyContent::Whole { arg }
        }
    };
    BodyBinding { media_type: media.media_type.clone(), required: body.required, content }
}

/// Follows a top-level `#/$defs/` reference of the IR.
fn resolve<'a>(schema: &'a Value, registry: &'a BTreeMap<String, Value>) -> &'a Value {
    let mut s = schema;
    for _ in 0..16 {
        match s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(DEFS_PREFIX)) {
            Some(name) if s.as_object().is_some_and(|o| o.len() == 1) => match registry.get(name) {
                Some(t) => s = t,
                None => break,
            },
            _ => break,
        }
    }
    s
}

/// An object body's properties (wire name, schema) in order, and the required names.
type ObjectFields = (Vec<(String, Value)>, HashSet<String>);

/// The properties of an object body (following refs and merging `allOf` of objects), or `None`
/// when the body is not a plain object and is sent whole.
fn object_fields(schema: &Value, registry: &BTreeMap<String, Value>) -> Option<ObjectFields> {
    let s = resolve(schema, registry);
    let obj = s.as_object()?;
    if obj.contains_key("not") || obj.contains_key("$ref") {
        return None;
    }
    // `anyOf`/`oneOf` that only add constraints on declared properties (GitHub: "conclusion is
    // required when status is completed") leave the body an object: its fields are the arguments,
    // and the upstream checks the constraint.
    for key in ["oneOf", "anyOf"] {
        if let Some(Value::Array(branches)) = obj.get(key) {
            let declared = obj.get("properties").and_then(Value::as_object)?;
            let only_constrains = branches.iter().all(|b| {
                let b = resolve(b, registry);
                b.get("properties")
                    .and_then(Value::as_object)
                    .is_none_or(|p| p.keys().all(|k| declared.contains_key(k)))
                    && b.get("$ref").is_none()
                    && b.get("type").is_none_or(|t| t == "object")
            });
            if !only_constrains {
                return None;
            }
        }
    }
    match obj.get("type") {
        Some(Value::String(t)) if t == "object" => {}
        None if obj.contains_key("properties") || obj.contains_key("allOf") => {}
        _ => return None,
    }
    let mut fields: Vec<(String, Value)> = Vec::new();
    let mut required = HashSet::new();
    if let Some(Value::Array(parts)) = obj.get("allOf") {
        for part in parts {
            let (f, r) = object_fields(part, registry)?;
            for (name, schema) in f {
                fields.retain(|(n, _)| *n != name);
                fields.push((name, schema));
            }
            required.extend(r);
        }
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (name, schema) in props {
            if resolve(schema, registry).get("readOnly") == Some(&Value::Bool(true)) {
                continue;
            }
            fields.retain(|(n, _)| n != name);
            fields.push((name.clone(), schema.clone()));
        }
    }
    if let Some(Value::Array(req)) = obj.get("required") {
        required.extend(req.iter().filter_map(Value::as_str).map(str::to_string));
    }
    Some((fields, required))
}

fn is_binary(schema: &Value, registry: &BTreeMap<String, Value>) -> bool {
    let s = resolve(schema, registry);
    let binary = |s: &Value| {
        s.get("format").and_then(Value::as_str).is_some_and(|f| f == "binary" || f == "byte")
            || s.get("contentEncoding").is_some()
            || s.get("contentMediaType").is_some()
    };
    binary(s) || s.get("items").map(|i| binary(resolve(i, registry))).unwrap_or(false)
}

/// What the description of a multipart file argument ends with.
const FILE_NOTE: &str = "(file content: base64-encoded, or plain text)";

/// A multipart file field in the input: base64 content, or plain text for text files.
fn file_schema(schema: &Value, registry: &BTreeMap<String, Value>) -> Value {
    let s = resolve(schema, registry);
    let description = s.get("description").and_then(Value::as_str).map(|d| format!("{d} ")).unwrap_or_default();
    let one = json!({
        "type": "string",
        "description": format!("{description}{FILE_NOTE}"),
    });
    if s.get("type") == Some(&json!("array")) { json!({"type": "array", "items": one}) } else { one }
}

/// Where the argument `arg` goes on the wire, as the parameter `p` says.
pub(crate) fn param_binding(p: &Parameter, arg: String) -> ParamBinding {
    ParamBinding {
        arg,
        name: p.name.clone(),
        location: p.location,
        style: p.style,
        explode: p.explode,
        allow_reserved: p.allow_reserved,
        content_type: p.content_type.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ParamLocation;
    use crate::ir::{Method, Parameter};
    use mcpgen_config::ParamStyle;

    fn op(params: Vec<Parameter>, body: Option<RequestBody>) -> Operation {
        Operation {
            pointer: "#/paths/~1x/post".into(),
            method: Method::Post,
            path: "/x/{id}".into(),
            fixed_query: vec![],
            operation_id: None,
            summary: None,
            description: None,
            tags: vec![],
            deprecated: false,
            parameters: params,
            request_body: body,
            response: None,
            security: None,
            servers: vec![],
            mcp: Default::default(),
            function: None,
        }
    }

    fn param(name: &str, location: ParamLocation) -> Parameter {
        Parameter {
            pointer: String::new(),
            name: name.into(),
            location,
            required: location == ParamLocation::Path,
            deprecated: false,
            description: Some("d".into()),
            style: ParamStyle::default_for(location),
            explode: false,
            allow_reserved: false,
            schema: json!({"type": "string"}),
            content_type: None,
            argument: None,
            examples: Vec::new(),
        }
    }

    fn json_body(schema: Value) -> RequestBody {
        RequestBody {
            required: true,
            description: None,
            content: vec![MediaType {
                media_type: "application/json".into(),
                schema,
                encoding: BTreeMap::new(),
                example: None,
                examples: Vec::new(),
            }],
            arguments: None,
        }
    }

    #[test]
    fn clashes_are_renamed_and_bound() {
        let registry: BTreeMap<String, Value> = serde_json::from_value(json!({
            "Thing": {"type": "object", "required": ["id", "name"], "properties": {
                "id": {"type": "string", "readOnly": true}, "name": {"type": "string"}, "size": {"type": "integer"}}}
        }))
        .unwrap();
        let o = op(
            vec![param("id", ParamLocation::Path), param("name", ParamLocation::Query)],
            Some(json_body(json!({"$ref": "#/$defs/Thing"}))),
        );
        let input = build_input(&o, &registry, InlineLimits::default());
        assert_eq!(input.schema["required"], json!(["id", "body_name"]));
        assert_eq!(input.schema["properties"]["body_name"], json!({"type": "string"}));
        assert!(input.schema["properties"].get("body_id").is_none(), "readOnly field dropped");
        let Some(BodyBinding { content: BodyContent::Properties { fields, .. }, .. }) = &input.body else { panic!() };
        assert_eq!(
            fields.iter().map(|f| (f.arg.as_str(), f.name.as_str())).collect::<Vec<_>>(),
            vec![("body_name", "name"), ("size", "size")]
        );
        assert_eq!(input.diagnostics.len(), 1);
    }

    #[test]
    fn read_only_parameters_stay_and_constraint_unions_flatten() {
        let registry: BTreeMap<String, Value> =
            serde_json::from_value(json!({"num": {"type": "integer", "readOnly": true}})).unwrap();
        let mut p = param("alert_number", ParamLocation::Path);
        p.schema = json!({"$ref": "#/$defs/num"});
        let body = json_body(
            json!({"type": "object", "properties": {"status": {"type": "string"}, "conclusion": {"type": "string"}},
            "anyOf": [{"properties": {"status": {"enum": ["completed"]}}, "required": ["conclusion"]}, {"properties": {"status": {"enum": ["queued"]}}}]}),
        );
        let input = build_input(&op(vec![p], Some(body)), &registry, InlineLimits::default());
        assert_eq!(input.schema["properties"]["alert_number"], json!({"type": "integer", "description": "d"}));
        assert_eq!(input.schema["required"], json!(["alert_number"]));
        assert!(input.schema["properties"].get("conclusion").is_some());
        assert!(matches!(input.body.unwrap().content, BodyContent::Properties { .. }));
    }

    #[test]
    fn non_object_bodies_are_whole() {
        let o = op(vec![], Some(json_body(json!({"type": "array", "items": {"type": "string"}}))));
        let input = build_input(&o, &BTreeMap::new(), InlineLimits::default());
        assert_eq!(input.schema["properties"]["body"]["type"], "array");
        assert_eq!(input.schema["required"], json!(["body"]));
        assert!(matches!(input.body.unwrap().content, BodyContent::Whole { .. }));
    }

    #[test]
    fn binary_and_multipart() {
        let raw = RequestBody {
            required: false,
            description: None,
            content: vec![MediaType {
                media_type: "application/octet-stream".into(),
                schema: json!({}),
                encoding: BTreeMap::new(),
                example: None,
                examples: Vec::new(),
            }],
            arguments: None,
        };
        let input = build_input(&op(vec![], Some(raw)), &BTreeMap::new(), InlineLimits::default());
        assert_eq!(input.schema["properties"]["body"]["contentEncoding"], "base64");
        let mp = RequestBody {
            required: true,
            description: None,
            content: vec![MediaType {
                media_type: "multipart/form-data".into(),
                schema: json!({"type": "object", "properties": {"file": {"type": "string", "format": "binary"}, "note": {"type": "string"}}}),
                encoding: [("file".to_string(), "image/png".to_string())].into(),
                example: None,
                examples: Vec::new(),
            }],
            arguments: None,
        };
        let input = build_input(&op(vec![], Some(mp)), &BTreeMap::new(), InlineLimits::default());
        let Some(BodyBinding { content: BodyContent::Properties { fields, .. }, .. }) = &input.body else { panic!() };
        assert!(fields[0].file && fields[0].content_type.as_deref() == Some("image/png"));
        assert!(!fields[1].file);
    }
}
