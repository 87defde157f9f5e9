//! `mcpgen convert --to openapi`: the IR as an OpenAPI 3.1 document.
//!
//! Operations are written as the IR has them (functions bound by `--forward-url` or a bindings
//! file are operations there too), and `components/schemas` is [`ApiIr::schemas`], each schema
//! under its IR name: the loader names a referenced schema after its component, so loading the
//! document yields the same IR schemas and the same tools. What the loader reads in its own way
//! (`x-mcp`, `x-mcp-argument`, descriptions) follows [`crate::conventions`].

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::conventions::{self, X_MCP, X_MCP_ARGUMENT};
use crate::ir::{
    ApiIr, BodyContent, MediaType, Operation, ParamLocation, ParamStyle, Parameter, RequestBody, Response,
    SecurityRequirement,
};
use crate::tools::{ToolSet, naming};
use mcpgen_config::SecurityScheme;

/// The error for `--forward-mode single`.
const CALL_MODE: &str = "--forward-mode single sends every tool to one URL, which one OpenAPI path per tool cannot \
                         describe; use the default forward mode or a bindings file";

/// The IR of the operations that became `tools`, each named as its tool (`x-mcp.name` where the
/// loader would derive another name: a filter, a clash or `--max-name-len` changed it), and of
/// the functions that became tools without an operation.
pub fn of_tools(mut ir: ApiIr, tools: &ToolSet) -> ApiIr {
    let names: BTreeMap<&str, &str> =
        tools.sources.iter().map(|(name, s)| (s.pointer.as_str(), name.as_str())).collect();
    ir.operations.retain_mut(|op| match names.get(op.pointer.as_str()) {
        Some(name) => {
            conventions::pin_name(op, name);
            true
        }
        None => false,
    });
    ir.functions.retain(|f| names.contains_key(f.pointer.as_str()));
    ir
}

/// An OpenAPI 3.1 document describing the operations of `ir`. Functions without an HTTP binding
/// cannot be described, nor functions forwarded to one URL (`--forward-mode single`).
pub fn to_openapi(ir: &ApiIr) -> Result<Value, String> {
    if !ir.functions.is_empty() {
        let names: Vec<String> = ir.functions.iter().map(|f| format!("`{}`", f.name)).collect();
        return Err(format!("no HTTP binding for {}; pass --forward-url URL or --bindings FILE", names.join(", ")));
    }
    // Checked first: forwarded calls share one URL, so the path checks below would misreport them.
    let bodies = ir.operations.iter().filter_map(|op| op.request_body.as_ref());
    if bodies.clone().any(|b| matches!(b.arguments, Some(BodyContent::Call { .. }))) {
        return Err(CALL_MODE.to_string());
    }
    let mut paths = Map::new();
    let mut taken: BTreeSet<(String, &str)> = BTreeSet::new();
    let mut used = BTreeSet::new();
    for op in &ir.operations {
        if !op.path.starts_with('/') {
            return Err(format!("`{}`: the path {:?} does not start with `/`", display_name(op), op.path));
        }
        let method = op.method.key();
        let mut path = conventions::path_key(&op.path, &op.fixed_query, None);
        // Operations that only their keys' fragments told apart (`/items#one`), or functions
        // bound to the same request: a fragment tells them apart again.
        if taken.contains(&(path.clone(), method)) {
            let tag = naming::sanitize(&naming::desired_name(op));
            let mut n = 1;
            while taken.contains(&(path.clone(), method)) {
                let tag = if n == 1 { tag.clone() } else { format!("{tag}_{n}") };
                path = conventions::path_key(&op.path, &op.fixed_query, Some(&tag));
                n += 1;
            }
        }
        taken.insert((path.clone(), method));
        let value = operation(op, &mut used)?;
        let item = paths.entry(path).or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(item) = item {
            item.insert(method.to_string(), value);
        }
    }
    Ok(document(ir, paths, components::reachable(&ir.schemas, used)))
}

/// What messages call an operation: its tool's name where the IR says it, else its pointer.
fn display_name(op: &Operation) -> String {
    let name = op.mcp.name.as_deref().or(op.operation_id.as_deref());
    name.unwrap_or(&op.pointer).to_string()
}

/// The top level: info, servers, the described tags, paths, components and the default security.
fn document(ir: &ApiIr, paths: Map<String, Value>, schemas: Map<String, Value>) -> Value {
    let mut info = Map::new();
    info.insert("title".into(), json!(ir.info.title));
    info.insert("version".into(), json!(ir.info.version));
    if let Some(d) = &ir.info.description {
        info.insert("description".into(), json!(d));
    }
    let mut doc = Map::new();
    doc.insert("openapi".into(), json!("3.1.0"));
    doc.insert("info".into(), Value::Object(info));
    if !ir.servers.is_empty() {
        doc.insert("servers".into(), servers(&ir.servers));
    }
    if !ir.info.tags.is_empty() {
        let tags = ir.info.tags.iter().map(|(name, d)| json!({"name": name, "description": d})).collect();
        doc.insert("tags".into(), Value::Array(tags));
    }
    doc.insert("paths".into(), Value::Object(paths));
    let mut components = Map::new();
    if !schemas.is_empty() {
        components.insert("schemas".into(), Value::Object(schemas));
    }
    let schemes: Map<String, Value> = ir
        .security_schemes
        .iter()
        .map(|(n, s)| (n.clone(), ir_security_scheme(s)))
        .chain(ir.credentials.iter().map(|(n, s)| (n.clone(), security_scheme(s))))
        .collect();
    if !schemes.is_empty() {
        components.insert("securitySchemes".into(), Value::Object(schemes));
    }
    if !components.is_empty() {
        doc.insert("components".into(), Value::Object(components));
    }
    if !ir.security.is_empty() {
        doc.insert("security".into(), security(&ir.security));
    }
    Value::Object(doc)
}

fn servers(urls: &[String]) -> Value {
    Value::Array(urls.iter().map(|url| json!({ "url": url })).collect())
}

/// An IR schema for the document, noting the IR schemas it refers to.
fn schema(s: &Value, used: &mut BTreeSet<String>) -> Value {
    components::refer(s, used)
}

/// One operation.
fn operation(op: &Operation, used: &mut BTreeSet<String>) -> Result<Value, String> {
    let mut out = Map::new();
    if let Some(id) = &op.operation_id {
        out.insert("operationId".into(), json!(id));
    }
    if let Some(s) = &op.summary {
        out.insert("summary".into(), json!(s));
    }
    if let Some(d) = &op.description {
        out.insert("description".into(), json!(d));
    }
    if !op.tags.is_empty() {
        out.insert("tags".into(), json!(op.tags));
    }
    if op.deprecated {
        out.insert("deprecated".into(), json!(true));
    }
    if let Some(ext) = conventions::write_mcp(&op.mcp, op.method) {
        out.insert(X_MCP.into(), ext);
    }
    if !op.servers.is_empty() {
        out.insert("servers".into(), servers(&op.servers));
    }
    if !op.parameters.is_empty() {
        out.insert("parameters".into(), op.parameters.iter().map(|p| parameter(p, used)).collect());
    }
    if let Some(body) = &op.request_body
        && let Some(body) = request_body(body, used)?
    {
        out.insert("requestBody".into(), body);
    }
    if let Some(r) = &op.response {
        out.insert("responses".into(), json!({ r.status.clone(): response(r, used) }));
    }
    if let Some(s) = &op.security {
        out.insert("security".into(), security(s));
    }
    Ok(Value::Object(out))
}

fn parameter(p: &Parameter, used: &mut BTreeSet<String>) -> Value {
    let mut out = Map::new();
    out.insert("name".into(), json!(p.name));
    out.insert("in".into(), json!(p.location.as_str()));
    if let Some(arg) = &p.argument {
        out.insert(X_MCP_ARGUMENT.into(), json!(arg));
    }
    if let Some(d) = &p.description {
        out.insert("description".into(), json!(d));
    }
    if p.required || p.location == ParamLocation::Path {
        out.insert("required".into(), json!(true));
    }
    if p.deprecated {
        out.insert("deprecated".into(), json!(true));
    }
    let s = schema(&p.schema, used);
    match &p.content_type {
        // `style`, `explode` and `allowReserved` do not apply to media-type parameters.
        Some(media) => {
            out.insert("content".into(), json!({ media: { "schema": s } }));
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
            out.insert("schema".into(), s);
        }
    }
    // The first example the parameter declared, so that the document keeps what the tools'
    // examples come from.
    if let Some(example) = p.examples.first() {
        out.insert("example".into(), example.clone());
    }
    Value::Object(out)
}

/// The request body, or `None` for a body made of arguments when there are none.
fn request_body(body: &RequestBody, used: &mut BTreeSet<String>) -> Result<Option<Value>, String> {
    match &body.arguments {
        Some(BodyContent::Call { .. }) => return Err(CALL_MODE.to_string()),
        Some(BodyContent::Arguments) if body.content.iter().all(|m| conventions::declares_no_properties(&m.schema)) => {
            return Ok(None);
        }
        _ => {}
    }
    let mut out = Map::new();
    if let Some(d) = &body.description {
        out.insert("description".into(), json!(d));
    }
    if body.required {
        out.insert("required".into(), json!(true));
    }
    out.insert("content".into(), content(&body.content, used));
    Ok(Some(Value::Object(out)))
}

fn response(r: &Response, used: &mut BTreeSet<String>) -> Value {
    let mut out = Map::new();
    // OpenAPI requires a description.
    out.insert("description".into(), json!(r.description.as_deref().unwrap_or_default()));
    if !r.content.is_empty() {
        out.insert("content".into(), content(&r.content, used));
    }
    Value::Object(out)
}

fn content(media: &[MediaType], used: &mut BTreeSet<String>) -> Value {
    let mut out = Map::new();
    for m in media {
        let mut entry = Map::new();
        entry.insert("schema".into(), schema(&m.schema, used));
        if !m.encoding.is_empty() {
            let encoding = m.encoding.iter().map(|(prop, ct)| (prop.clone(), json!({ "contentType": ct })));
            entry.insert("encoding".into(), Value::Object(encoding.collect()));
        }
        if let Some(example) = m.example.as_ref().or(m.examples.first()) {
            entry.insert("example".into(), example.clone());
        }
        out.insert(m.media_type.clone(), Value::Object(entry));
    }
    Value::Object(out)
}

/// Alternatives of scheme sets as an OpenAPI `security` array.
fn security(requirements: &[SecurityRequirement]) -> Value {
    requirements
        .iter()
        .map(|r| Value::Object(r.iter().map(|(name, scopes)| (name.clone(), json!(scopes))).collect()))
        .collect()
}

/// An IR scheme as OpenAPI describes it. Of OAuth2 flows other than client credentials, the IR
/// keeps the names only (all the loader reads).
fn ir_security_scheme(s: &crate::ir::SecurityScheme) -> Value {
    use crate::ir::SecurityScheme as S;
    match s {
        S::ApiKey { name, location } => json!({"type": "apiKey", "in": location.as_str(), "name": name}),
        S::Http { scheme, bearer_format } => {
            let mut out = json!({"type": "http", "scheme": scheme.as_str()});
            if let Some(f) = bearer_format {
                out["bearerFormat"] = json!(f);
            }
            out
        }
        S::OAuth2 { client_credentials, authorization_code, other_flows } => {
            let mut flows: Map<String, Value> =
                other_flows.iter().map(|f| (f.clone(), json!({"scopes": {}}))).collect();
            if let Some(cc) = client_credentials {
                let scopes: Map<String, Value> = cc.scopes.iter().map(|s| (s.clone(), json!(""))).collect();
                flows.insert("clientCredentials".into(), json!({"tokenUrl": cc.token_url, "scopes": scopes}));
            }
            if let Some(ac) = authorization_code {
                let scopes: Map<String, Value> = ac.scopes.iter().map(|s| (s.clone(), json!(""))).collect();
                let flow =
                    json!({"authorizationUrl": ac.authorization_url, "tokenUrl": ac.token_url, "scopes": scopes});
                flows.insert("authorizationCode".into(), flow);
            }
            json!({"type": "oauth2", "flows": flows})
        }
        S::OpenIdConnect { url } => json!({"type": "openIdConnect", "openIdConnectUrl": url}),
        S::MutualTls => json!({"type": "mutualTLS"}),
    }
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
        SecurityScheme::OAuth2AuthorizationCode { authorization_url, token_url, scopes, .. } => {
            let scopes: Map<String, Value> = scopes.iter().map(|s| (s.clone(), json!(""))).collect();
            let flow = json!({"authorizationUrl": authorization_url, "tokenUrl": token_url, "scopes": scopes});
            json!({"type": "oauth2", "flows": {"authorizationCode": flow}})
        }
        // What the engine sends is a bearer token; the description says where it comes from.
        SecurityScheme::External { .. } => json!({"type": "http", "scheme": "bearer", "description": s.describe()}),
    }
}

mod components;

pub use components::fold_local_defs;
#[cfg(test)]
mod tests;
