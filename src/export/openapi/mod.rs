//! `mcpgen convert FUNCTIONS --to openapi`: the runtime config (tools and their HTTP bindings) as
//! an OpenAPI 3.1 document.
//!
//! The document is written for the way mcpgen reads OpenAPI back, so that loading it yields the
//! same tools: titles go to `x-mcp` (a `summary` would be merged into the description), only the
//! annotation hints that differ from the method's defaults are written, parameter descriptions
//! sit on the parameter (the loader copies them into the argument schema), and recursive schemas
//! are referenced where the tool schema's own `$defs` were, so that re-inlining rebuilds them.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use components::Schemas;

use crate::ir::{McpExtension, Method};
use crate::tools::input::{BodyKind, FILE_NOTE, body_kind};
use crate::tools::{ToolOptions, annotations};

use crate::runtime::model::{
    BodyBinding, BodyContent, BodyField, HttpBinding, ParamBinding, ParamLocation, ParamStyle, RuntimeConfig,
    SecurityScheme, Tool,
};

/// The error for `--forward-mode single`.
const CALL_MODE: &str = "--forward-mode single sends every tool to one URL, which one OpenAPI path per tool cannot \
                         describe; use the default forward mode or a bindings file";

/// An OpenAPI 3.1 document describing the tools' HTTP bindings.
pub fn to_openapi(config: &RuntimeConfig) -> Result<Value, String> {
    let unbound: Vec<&str> = config.unbound_tools().map(|t| t.name.as_str()).collect();
    if !unbound.is_empty() {
        return Err(format!(
            "no HTTP binding for {}; pass --forward-url URL or --bindings FILE",
            unbound.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        ));
    }
    // Checked first: single-mode tools share one URL, so the path checks below would misreport them.
    let mut bodies = config.tools.iter().filter_map(|t| t.http.as_ref()?.body.as_ref());
    if bodies.any(|b| matches!(b.content, BodyContent::Call { .. })) {
        return Err(CALL_MODE.to_string());
    }
    let mut schemas = Schemas::default();
    let mut paths = Map::new();
    let mut taken: BTreeMap<(&str, &str), &str> = BTreeMap::new();
    for tool in &config.tools {
        let Some(http) = &tool.http else { continue };
        let key = http.method.key();
        if !http.path.starts_with('/') {
            return Err(format!("tool `{}`: the path {:?} does not start with `/`", tool.name, http.path));
        }
        if let Some(first) = taken.insert((http.path.as_str(), key), &tool.name) {
            return Err(format!(
                "tools `{first}` and `{}` both bind {} {}: one OpenAPI operation cannot be two tools",
                tool.name,
                key.to_ascii_uppercase(),
                http.path
            ));
        }
        let op = operation(tool, http, http.method, config, &mut schemas)?;
        let item = paths.entry(http.path.clone()).or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(item) = item {
            item.insert(key.to_string(), op);
        }
    }
    Ok(document(config, paths, schemas))
}

/// The top level: info, servers, paths and components.
fn document(config: &RuntimeConfig, paths: Map<String, Value>, schemas: Schemas) -> Value {
    let server = &config.server;
    let mut info = Map::new();
    info.insert("title".into(), json!(server.title.as_deref().unwrap_or(&server.name)));
    info.insert("version".into(), json!(server.version));
    if let Some(d) = &server.instructions {
        info.insert("description".into(), json!(d));
    }
    let mut doc = Map::new();
    doc.insert("openapi".into(), json!("3.1.0"));
    doc.insert("info".into(), Value::Object(info));
    if let Some(url) = &config.upstream.base_url {
        doc.insert("servers".into(), json!([{ "url": url }]));
    }
    doc.insert("paths".into(), Value::Object(paths));
    let mut components = Map::new();
    if !schemas.is_empty() {
        components.insert("schemas".into(), Value::Object(schemas.into_map()));
    }
    if !config.security_schemes.is_empty() {
        let schemes = config.security_schemes.iter().map(|(n, s)| (n.clone(), security_scheme(s))).collect();
        components.insert("securitySchemes".into(), Value::Object(schemes));
    }
    if !components.is_empty() {
        doc.insert("components".into(), Value::Object(components));
    }
    Value::Object(doc)
}

/// One tool as an operation.
fn operation(
    tool: &Tool,
    http: &HttpBinding,
    method: Method,
    config: &RuntimeConfig,
    schemas: &mut Schemas,
) -> Result<Value, String> {
    let input = Input { tool, schema: schemas.hoist(&tool.input_schema, &tool.name, false) };
    let mut op = Map::new();
    op.insert("operationId".into(), json!(tool.name));
    if !tool.description.trim().is_empty() {
        op.insert("description".into(), json!(tool.description));
    }
    if let Some(ext) = mcp_extension(tool, method) {
        op.insert("x-mcp".into(), ext);
    }
    if let Some(url) = &http.base_url {
        op.insert("servers".into(), json!([{ "url": url }]));
    }
    let params = http.params.iter().map(|p| parameter(p, &input)).collect::<Result<Vec<_>, _>>()?;
    if !params.is_empty() {
        op.insert("parameters".into(), Value::Array(params));
    }
    if let Some(body) = &http.body
        && let Some(body) = request_body(body, &input)?
    {
        op.insert("requestBody".into(), body);
    }
    let mut success = json!({"description": "Success"});
    if let Some(out) = &tool.output_schema {
        let schema = schemas.hoist(out, &format!("{}_output", tool.name), true);
        success["content"] = json!({"application/json": {"schema": schema}});
    }
    op.insert("responses".into(), json!({ "200": success }));
    if let Some(security) = operation_security(tool, http, config)? {
        op.insert("security".into(), security);
    }
    Ok(Value::Object(op))
}

/// `x-mcp`: the title, the description when the loader would not keep it as it is, and the
/// annotation hints that differ from what the loader derives from the method.
fn mcp_extension(tool: &Tool, method: Method) -> Option<Value> {
    let mut ext = Map::new();
    if let Some(title) = &tool.title {
        ext.insert("title".into(), json!(title));
    }
    let d = &tool.description;
    // The loader trims descriptions and cuts them at its default length, but not `x-mcp`'s.
    if d.trim() != d || d.chars().count() > ToolOptions::default().max_description_len {
        ext.insert("description".into(), json!(d));
    }
    let a = &tool.annotations;
    let derived = annotations(method, &McpExtension::default());
    let differing: Map<String, Value> = [
        ("readOnlyHint", a.read_only_hint, derived.read_only_hint),
        ("destructiveHint", a.destructive_hint, derived.destructive_hint),
        ("idempotentHint", a.idempotent_hint, derived.idempotent_hint),
        ("openWorldHint", a.open_world_hint, derived.open_world_hint),
    ]
    .into_iter()
    .filter(|(_, value, default)| value != default)
    .map(|(k, value, _)| (k.to_string(), json!(value)))
    .chain(a.title.as_ref().map(|t| ("title".to_string(), json!(t))))
    .collect();
    if !differing.is_empty() {
        ext.insert("annotations".into(), Value::Object(differing));
    }
    (!ext.is_empty()).then_some(Value::Object(ext))
}

/// A tool's input schema (its `$defs` moved to components), to look arguments up in.
struct Input<'a> {
    tool: &'a Tool,
    schema: Value,
}

impl Input<'_> {
    fn arg(&self, arg: &str) -> Result<Value, String> {
        self.schema.get("properties").and_then(|p| p.get(arg)).cloned().ok_or_else(|| {
            format!("tool `{}` binds the argument `{arg}`, which its input schema does not define", self.tool.name)
        })
    }

    fn required(&self, arg: &str) -> bool {
        self.schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|a| a == arg))
    }
}

/// A parameter. Its description moves from the schema to the parameter, where the loader reads
/// it (and copies it back into the argument schema).
fn parameter(p: &ParamBinding, input: &Input<'_>) -> Result<Value, String> {
    let mut schema = input.arg(&p.arg)?;
    let mut out = Map::new();
    out.insert("name".into(), json!(p.name));
    out.insert("in".into(), json!(p.location.as_str()));
    if crate::tools::naming::arg_name(&p.name) != p.arg {
        out.insert("x-mcp-argument".into(), json!(p.arg));
    }
    if let Some(d) = take_description(&mut schema) {
        out.insert("description".into(), json!(d));
    }
    if p.location == ParamLocation::Path || input.required(&p.arg) {
        out.insert("required".into(), json!(true));
    }
    match &p.content_type {
        // `style`, `explode` and `allowReserved` do not apply to media-type parameters.
        Some(media) => {
            out.insert("content".into(), json!({ media: { "schema": schema } }));
        }
        None => {
            if p.style != ParamStyle::default_for(p.location) {
                out.insert("style".into(), json!(p.style.as_str()));
            }
            // OpenAPI's default: explode for `form`, not for the other styles.
            if p.explode != (p.style == ParamStyle::Form) {
                out.insert("explode".into(), json!(p.explode));
            }
            if p.allow_reserved {
                out.insert("allowReserved".into(), json!(true));
            }
            out.insert("schema".into(), schema);
        }
    }
    Ok(Value::Object(out))
}

/// Removes a description the loader would restore unchanged (it trims and drops empty ones).
fn take_description(schema: &mut Value) -> Option<String> {
    let obj = schema.as_object_mut()?;
    let keep = match obj.get("description") {
        Some(Value::String(d)) => d.is_empty() || d.trim() != d,
        _ => true,
    };
    if keep {
        return None;
    }
    obj.remove("description").and_then(|d| d.as_str().map(str::to_string))
}

/// The parts of a request body before they are assembled.
struct BodyParts {
    schema: Value,
    encoding: Map<String, Value>,
    description: Option<String>,
    required: bool,
}

/// The request body, or `None` for forwarded tools without arguments (the loader would turn an
/// empty object body into a `body` argument).
fn request_body(body: &BodyBinding, input: &Input<'_>) -> Result<Option<Value>, String> {
    let parts = match &body.content {
        BodyContent::Arguments => {
            if input.schema.get("properties").and_then(Value::as_object).is_none_or(Map::is_empty) {
                return Ok(None);
            }
            BodyParts { schema: input.schema.clone(), encoding: Map::new(), description: None, required: true }
        }
        BodyContent::Properties { fields, extra_arg } => properties_body(body, fields, extra_arg.as_deref(), input)?,
        BodyContent::Whole { arg } => whole_body(body, arg, input)?,
        BodyContent::Call { .. } => return Err(CALL_MODE.to_string()),
    };
    let mut media = Map::new();
    media.insert("schema".into(), parts.schema);
    if !parts.encoding.is_empty() {
        media.insert("encoding".into(), Value::Object(parts.encoding));
    }
    let mut out = Map::new();
    if let Some(d) = parts.description {
        out.insert("description".into(), json!(d));
    }
    if parts.required {
        out.insert("required".into(), json!(true));
    }
    out.insert("content".into(), json!({ body.media_type.clone(): media }));
    Ok(Some(Value::Object(out)))
}

/// An object body whose properties are arguments. The body is marked required when one of its
/// fields is: the loader only keeps fields required in a required body (and the engine sends
/// a body whenever a field has a value).
fn properties_body(
    body: &BodyBinding,
    fields: &[BodyField],
    extra_arg: Option<&str>,
    input: &Input<'_>,
) -> Result<BodyParts, String> {
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut encoding = Map::new();
    for f in fields {
        let schema = input.arg(&f.arg)?;
        props.insert(f.name.clone(), if f.file { file_field(schema) } else { schema });
        if input.required(&f.arg) {
            required.push(json!(f.name));
        }
        if let Some(ct) = &f.content_type {
            encoding.insert(f.name.clone(), json!({ "contentType": ct }));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(props));
    let any_required = !required.is_empty();
    if any_required {
        schema.insert("required".into(), Value::Array(required));
    }
    if let Some(extra) = extra_arg {
        let extra = input.arg(extra)?;
        schema.insert("additionalProperties".into(), extra.get("additionalProperties").cloned().unwrap_or(json!(true)));
    } else if input.schema.get("additionalProperties") == Some(&json!(false)) {
        // Closed arguments come from a closed body (the loader closes them again).
        schema.insert("additionalProperties".into(), json!(false));
    }
    Ok(BodyParts {
        schema: Value::Object(schema),
        encoding,
        description: None,
        required: body.required || any_required,
    })
}

/// A multipart file field as OpenAPI describes it (binary), with the description the loader's
/// note is appended to on the way back.
fn file_field(schema: Value) -> Value {
    let own = |s: &Value| s.get("description").and_then(Value::as_str).and_then(strip_file_note);
    let binary = json!({"type": "string", "format": "binary"});
    let (mut out, description) = if schema.get("type") == Some(&json!("array")) {
        let d = schema.get("items").and_then(own).or_else(|| own(&schema));
        (json!({"type": "array", "items": binary}), d)
    } else {
        (binary, own(&schema))
    };
    if let Some(d) = description {
        out["description"] = json!(d);
    }
    out
}

/// `"Photo (file content: ...)"` -> `"Photo"`: the loader writes `"{description} {FILE_NOTE}"`, or
/// the note alone when there is no description.
fn strip_file_note(d: &str) -> Option<String> {
    if d == FILE_NOTE {
        return None;
    }
    Some(d.strip_suffix(FILE_NOTE).and_then(|s| s.strip_suffix(' ')).unwrap_or(d).to_string())
}

/// A body that is one argument. Text and binary bodies get the loader's fixed schemas on the
/// way back, so the argument's description goes to the request body, where it reads it from.
fn whole_body(body: &BodyBinding, arg: &str, input: &Input<'_>) -> Result<BodyParts, String> {
    let schema = input.arg(arg)?;
    let media = body.media_type.to_ascii_lowercase();
    let required = body.required || input.required(arg);
    let description = || schema.get("description").and_then(Value::as_str).map(str::to_string);
    let (schema, description) = match body_kind(&media) {
        BodyKind::Json | BodyKind::Form | BodyKind::Multipart => (schema.clone(), None),
        BodyKind::Text => (json!({"type": "string"}), description()),
        BodyKind::Binary => (json!({"type": "string", "format": "binary"}), description()),
    };
    Ok(BodyParts { schema, encoding: Map::new(), description, required })
}

/// The binding's alternatives of scheme sets as an OpenAPI `security` array.
fn operation_security(tool: &Tool, http: &HttpBinding, config: &RuntimeConfig) -> Result<Option<Value>, String> {
    if http.security.is_empty() {
        return Ok(None);
    }
    let mut alternatives = Vec::new();
    for set in &http.security {
        let mut requirement = Map::new();
        for name in set {
            if !config.security_schemes.contains_key(name) {
                return Err(format!(
                    "tool `{}` requires the security scheme `{name}`, which is not defined",
                    tool.name
                ));
            }
            requirement.insert(name.clone(), json!([]));
        }
        alternatives.push(Value::Object(requirement));
    }
    Ok(Some(Value::Array(alternatives)))
}

/// A scheme as OpenAPI describes it; the env var names have no place there.
fn security_scheme(s: &SecurityScheme) -> Value {
    match s {
        SecurityScheme::ApiKey { location, name, .. } => {
            json!({"type": "apiKey", "in": location.as_str(), "name": name})
        }
        SecurityScheme::Bearer { .. } => json!({"type": "http", "scheme": "bearer"}),
        SecurityScheme::Basic { .. } => json!({"type": "http", "scheme": "basic"}),
        SecurityScheme::OAuth2ClientCredentials { token_url, scopes, .. } => {
            let scopes: Map<String, Value> = scopes.iter().map(|s| (s.clone(), json!(""))).collect();
            json!({"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": scopes}}})
        }
        // What the engine sends is a bearer token; the description says where it comes from.
        SecurityScheme::External { .. } => json!({"type": "http", "scheme": "bearer", "description": s.describe()}),
    }
}

mod components;

pub use components::fold_local_defs;
#[cfg(test)]
mod tests;
