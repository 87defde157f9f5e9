//! What a Postman collection or a HAR file records of an API, in one model (`Api`: operations
//! with the calls seen of each), written out as the OpenAPI 3.1 document the rest of the pipeline
//! reads. Schemas are inferred from the calls (`crate::infer`); each operation carries the note
//! `x-mcp.inferred` (how many examples), which `doctor` reports and `convert` keeps.
//!
//! Recorded credentials never enter the model: the readers turn them into security schemes
//! ([`secrets`]) whose values come from env vars, and keep no value of theirs.

pub(crate) mod secrets;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::infer;
use crate::ir::Method;

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Place {
    Path,
    Query,
    Header,
}

impl Place {
    fn as_str(self) -> &'static str {
        match self {
            Place::Path => "path",
            Place::Query => "query",
            Place::Header => "header",
        }
    }
}

/// One recorded call of an operation.
#[derive(Debug, Clone, Default)]
pub(crate) struct Call {
    /// The parameters it sent, with their values (`None`: no value that may be shown, such as a
    /// variable without one).
    pub params: Vec<(Place, String, Option<Value>)>,
    pub body: Option<Body>,
    pub replies: Vec<Reply>,
}

/// A request body as recorded: its media type and, when it could be read, its value (JSON, or a
/// form's fields as an object).
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub media_type: String,
    pub value: Option<Value>,
    /// Form fields that carried a file.
    pub files: Vec<String>,
}

/// A recorded response.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub status: u16,
    pub description: Option<String>,
    pub media_type: Option<String>,
    /// The JSON value of its body, when it had one.
    pub value: Option<Value>,
}

/// One operation: a method and a path template, and every call recorded of it.
#[derive(Debug, Clone)]
pub(crate) struct Operation {
    pub summary: Option<String>,
    pub description: Option<String>,
    pub tags: Vec<String>,
    /// Its server, when it is not the API's first.
    pub server: Option<String>,
    /// `None`: the API's default; `Some([])`: none; else alternatives, each a set of scheme names.
    pub security: Option<Vec<Vec<String>>>,
    /// Descriptions of parameters, by place and name.
    pub docs: BTreeMap<(Place, String), String>,
    /// Parameters known to the operation but left out of its calls (Postman's disabled query
    /// parameters): optional, with the values recorded for them.
    pub declared: Vec<(Place, String, Option<Value>)>,
    pub calls: Vec<Call>,
}

/// An API as recorded.
#[derive(Debug, Clone, Default)]
pub(crate) struct Api {
    pub title: String,
    pub description: Option<String>,
    /// Tags in order, with their descriptions.
    pub tags: Vec<(String, Option<String>)>,
    pub servers: Vec<String>,
    /// Security schemes as OpenAPI objects, by name.
    pub schemes: BTreeMap<String, Value>,
    /// The default requirement (alternatives of sets of scheme names); empty: none.
    pub security: Vec<Vec<String>>,
    /// By path template, then method.
    pub operations: BTreeMap<(String, Method), Operation>,
    /// What recorded it, for the notes: `Postman collection`, `HAR file`.
    pub source: &'static str,
}

impl Api {
    /// Adds a call to the operation of `method` and `path`, made from `make` the first time.
    pub(crate) fn record(&mut self, method: Method, path: &str, make: impl FnOnce() -> Operation, call: Call) {
        let op = self.operations.entry((path.to_string(), method)).or_insert_with(make);
        op.calls.push(call);
    }

    /// The OpenAPI 3.1 document.
    pub(crate) fn to_openapi(&self) -> Value {
        let mut paths: BTreeMap<&str, Map<String, Value>> = BTreeMap::new();
        for ((path, method), op) in &self.operations {
            let key = method.key().to_string();
            paths.entry(path).or_default().insert(key, self.operation(path, op));
        }
        let mut doc = Map::new();
        doc.insert("openapi".into(), json!("3.1.0"));
        let mut info = Map::new();
        info.insert("title".into(), json!(self.title));
        info.insert("version".into(), json!("0.0.0"));
        if let Some(d) = &self.description {
            info.insert("description".into(), json!(d));
        }
        doc.insert("info".into(), Value::Object(info));
        if !self.servers.is_empty() {
            doc.insert("servers".into(), self.servers.iter().map(|u| json!({"url": u})).collect());
        }
        let tags: Vec<Value> = self
            .tags
            .iter()
            .map(|(name, d)| match d {
                Some(d) => json!({"name": name, "description": d}),
                None => json!({"name": name}),
            })
            .collect();
        if !tags.is_empty() {
            doc.insert("tags".into(), Value::Array(tags));
        }
        doc.insert("paths".into(), paths.into_iter().map(|(p, ops)| (p.to_string(), Value::Object(ops))).collect());
        if !self.schemes.is_empty() {
            let schemes: Map<String, Value> = self.schemes.clone().into_iter().collect();
            doc.insert("components".into(), json!({"securitySchemes": schemes}));
        }
        if !self.security.is_empty() {
            doc.insert("security".into(), requirements(&self.security));
        }
        Value::Object(doc)
    }

    fn operation(&self, path: &str, op: &Operation) -> Value {
        let mut out = Map::new();
        let texts = [("summary", &op.summary), ("description", &op.description)];
        for (key, text) in texts {
            if let Some(t) = text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                out.insert(key.into(), json!(t));
            }
        }
        if !op.tags.is_empty() {
            out.insert("tags".into(), json!(op.tags));
        }
        if let Some(server) = &op.server {
            out.insert("servers".into(), json!([{"url": server}]));
        }
        let params = parameters(path, op);
        if !params.is_empty() {
            out.insert("parameters".into(), Value::Array(params));
        }
        if let Some(body) = request_body(op) {
            out.insert("requestBody".into(), body);
        }
        out.insert("responses".into(), responses(op));
        if let Some(security) = &op.security {
            out.insert("security".into(), requirements(security));
        }
        let note = json!({"examples": op.calls.len(), "from": self.source});
        out.insert(crate::conventions::X_MCP.into(), json!({ crate::conventions::INFERRED: note }));
        Value::Object(out)
    }
}

fn requirements(alternatives: &[Vec<String>]) -> Value {
    alternatives.iter().map(|set| Value::Object(set.iter().map(|name| (name.clone(), json!([]))).collect())).collect()
}

/// The first value of these that holds no placeholder: the example shown.
fn example<'a>(values: impl IntoIterator<Item = &'a Value>) -> Option<&'a Value> {
    values.into_iter().find(|v| !infer::has_placeholder(v))
}

fn parameters(path: &str, op: &Operation) -> Vec<Value> {
    // Path parameters in the template's order, then the others in order of first appearance.
    let mut order: Vec<(Place, String)> = template_names(path).into_iter().map(|n| (Place::Path, n)).collect();
    let declared = op.declared.iter();
    for (place, name, _) in op.calls.iter().flat_map(|c| c.params.iter()).chain(declared) {
        {
            if !order.iter().any(|(p, n)| p == place && n.eq_ignore_ascii_case(name)) {
                order.push((*place, name.clone()));
            }
        }
    }
    let calls = op.calls.len();
    order
        .into_iter()
        .map(|(place, name)| {
            let matches = |p: &Place, n: &String| *p == place && n.eq_ignore_ascii_case(&name);
            let present = op.calls.iter().filter(|c| c.params.iter().any(|(p, n, _)| matches(p, n))).count();
            let values: Vec<&Value> = op
                .calls
                .iter()
                .flat_map(|c| c.params.iter())
                .chain(op.declared.iter())
                .filter(|(p, n, _)| matches(p, n))
                .filter_map(|(_, _, v)| v.as_ref())
                .collect();
            let mut schema = infer::schema_of(values.iter().copied());
            if schema == json!({}) {
                schema = json!({"type": "string"});
            }
            let mut p = Map::new();
            p.insert("name".into(), json!(name));
            p.insert("in".into(), json!(place.as_str()));
            p.insert("required".into(), json!(place == Place::Path || present == calls));
            if let Some(d) = op.docs.get(&(place, name.clone())) {
                p.insert("description".into(), json!(d));
            }
            p.insert("schema".into(), schema);
            if let Some(v) = example(values.iter().copied()) {
                p.insert("example".into(), v.clone());
            }
            Value::Object(p)
        })
        .collect()
}

/// The `{name}`s of a path template, in order.
pub(crate) fn template_names(path: &str) -> Vec<String> {
    path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}'))).map(str::to_string).collect()
}

fn request_body(op: &Operation) -> Option<Value> {
    let bodies: Vec<&Body> = op.calls.iter().filter_map(|c| c.body.as_ref()).collect();
    if bodies.is_empty() {
        return None;
    }
    let mut by_type: BTreeMap<&str, Vec<&Body>> = BTreeMap::new();
    for b in &bodies {
        by_type.entry(b.media_type.as_str()).or_default().push(b);
    }
    let mut content = Map::new();
    for (media_type, bodies) in by_type {
        let values: Vec<&Value> = bodies.iter().filter_map(|b| b.value.as_ref()).collect();
        let mut schema = if values.is_empty() { json!({"type": "string"}) } else { infer::schema_of(values.clone()) };
        let mut encoding = Map::new();
        for b in &bodies {
            for file in &b.files {
                schema["properties"][file] = json!({"type": "string", "format": "binary"});
                encoding.insert(file.clone(), json!({"contentType": "application/octet-stream"}));
            }
        }
        let mut m = Map::new();
        m.insert("schema".into(), schema);
        if let Some(v) = example(values) {
            m.insert("example".into(), v.clone());
        }
        if !encoding.is_empty() {
            m.insert("encoding".into(), Value::Object(encoding));
        }
        content.insert(media_type.to_string(), Value::Object(m));
    }
    Some(json!({"required": bodies.len() == op.calls.len(), "content": content}))
}

fn responses(op: &Operation) -> Value {
    let mut by_status: BTreeMap<u16, Vec<&Reply>> = BTreeMap::new();
    for reply in op.calls.iter().flat_map(|c| &c.replies) {
        by_status.entry(reply.status).or_default().push(reply);
    }
    if by_status.is_empty() {
        return json!({"200": {"description": "No response was recorded"}});
    }
    let mut out = Map::new();
    for (status, replies) in by_status {
        let description =
            replies.iter().find_map(|r| r.description.clone()).unwrap_or_else(|| format!("HTTP {status}"));
        let mut response = Map::new();
        response.insert("description".into(), json!(description));
        let mut content = Map::new();
        let mut by_type: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
        for r in &replies {
            if let Some(t) = &r.media_type {
                let values = by_type.entry(t.as_str()).or_default();
                values.extend(r.value.as_ref());
            }
        }
        for (media_type, values) in by_type {
            let schema = if values.is_empty() { json!({}) } else { infer::schema_of(values.iter().copied()) };
            let mut m = Map::new();
            m.insert("schema".into(), schema);
            if let Some(v) = example(values) {
                m.insert("example".into(), v.clone());
            }
            content.insert(media_type.to_string(), Value::Object(m));
        }
        if !content.is_empty() {
            response.insert("content".into(), Value::Object(content));
        }
        out.insert(status.to_string(), Value::Object(response));
    }
    Value::Object(out)
}

/// A media type without its parameters, lower case (`application/json; charset=utf-8` ->
/// `application/json`).
pub(crate) fn bare_media_type(text: &str) -> String {
    text.split(';').next().unwrap_or("").trim().to_ascii_lowercase()
}

/// Whether a media type is JSON (`application/json`, `application/problem+json`...).
pub(crate) fn is_json(media_type: &str) -> bool {
    mcpgen_config::media::is_json_media(media_type)
}
