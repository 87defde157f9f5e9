//! The OpenAPI 3.0/3.1 walker: paths, operations, parameters, bodies, responses, security.
//!
//! It reads `serde_json::Value` with lenient rules of its own; schemas go to the
//! [`SchemaConverter`]. Faults are isolated per operation: a broken operation yields a
//! diagnostic and no operation, the rest of the API goes on.

use std::collections::BTreeMap;

use serde_json::{Map, Value};
use url::Url;

use super::schema::{SchemaConverter, kind_of};
use crate::conventions::{self, X_MCP, X_MCP_ARGUMENT};
use crate::diag::{DiagKind, Diagnostic, Fault, child};
use crate::ir::{
    ApiInfo, ApiKeyLocation, AuthorizationCodeFlow, HttpScheme, MAX_DECLARED_EXAMPLES, McpExtension, MediaType, Method,
    OAuth2Flow, Operation, ParamLocation, ParamStyle, Parameter, RequestBody, Response, SecurityRequirement,
    SecurityScheme,
};
use crate::load::{DocumentSet, split_ref};

pub(super) struct Walker<'d> {
    pub docs: &'d DocumentSet,
    pub schemas: SchemaConverter<'d>,
    pub diagnostics: Vec<Diagnostic>,
    /// The document's URL when it came from the network: relative server URLs resolve on it.
    pub base_url: Option<Url>,
}

/// A value with the document it lives in (relative `$ref`s inside it resolve against that).
#[derive(Clone, Copy)]
struct Located<'d> {
    value: &'d Value,
    doc: &'d str,
}

type OpResult<T> = Result<T, Fault>;

impl<'d> Walker<'d> {
    pub(super) fn info(&self) -> ApiInfo {
        let info = self.docs.root_value().get("info");
        let text = |k: &str| info.and_then(|i| i.get(k)).and_then(Value::as_str).map(str::to_string);
        ApiInfo {
            title: text("title").filter(|t| !t.trim().is_empty()).unwrap_or_else(|| "API".to_string()),
            version: text("version").unwrap_or_else(|| "0.0.0".to_string()),
            description: text("description").filter(|d| !d.trim().is_empty()),
            tags: self.tag_descriptions(),
        }
    }

    /// The root's `tags` that have a description, by name; a malformed entry is passed over (it
    /// only describes).
    fn tag_descriptions(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let Some(Value::Array(tags)) = self.docs.root_value().get("tags") else { return out };
        for tag in tags {
            let name = tag.get("name").and_then(Value::as_str);
            let description = tag.get("description").and_then(Value::as_str).map(str::trim);
            if let (Some(name), Some(description)) = (name, description.filter(|d| !d.is_empty())) {
                out.entry(name.to_string()).or_insert_with(|| description.to_string());
            }
        }
        out
    }

    pub(super) fn servers(&mut self, v: Option<&Value>, pointer: &str) -> Vec<String> {
        let Some(Value::Array(list)) = v else { return Vec::new() };
        let mut out = Vec::new();
        for (i, s) in list.iter().enumerate() {
            let Some(url) = s.get("url").and_then(Value::as_str) else {
                self.warn(DiagKind::Lenient, child(pointer, i.to_string()), "server without a `url` is ignored");
                continue;
            };
            let url = substitute_variables(url, s.get("variables"));
            out.push(match (&self.base_url, Url::parse(&url)) {
                (_, Ok(abs)) => abs.to_string().trim_end_matches('/').to_string(),
                (Some(base), Err(_)) => match base.join(&url) {
                    Ok(abs) => abs.to_string().trim_end_matches('/').to_string(),
                    Err(_) => url,
                },
                (None, Err(_)) => url,
            });
        }
        out
    }

    pub(super) fn security_schemes(&mut self) -> BTreeMap<String, SecurityScheme> {
        let docs = self.docs;
        let root = docs.root_value();
        let mut out = BTreeMap::new();
        let Some(Value::Object(schemes)) = root.pointer("/components/securitySchemes") else { return out };
        for (name, s) in schemes {
            let pointer = child("#/components/securitySchemes", name);
            let parsed = self
                .deref(Located { value: s, doc: &docs.root }, &pointer)
                .and_then(|(s, at)| parse_security_scheme(s.value).map_err(|m| Fault::new(at, m)));
            match parsed {
                Ok(scheme) => {
                    out.insert(name.clone(), scheme);
                }
                Err(f) => self.warn(DiagKind::Unsupported, f.at, format!("security scheme ignored: {}", f.message)),
            }
        }
        out
    }

    pub(super) fn security(&mut self, v: Option<&Value>, pointer: &str) -> Option<Vec<SecurityRequirement>> {
        let v = v?;
        let Value::Array(list) = v else {
            self.warn(DiagKind::Lenient, pointer, format!("`security` must be an array, found {}", kind_of(v)));
            return None;
        };
        let mut out = Vec::new();
        for req in list {
            let Value::Object(map) = req else { continue };
            let mut r = SecurityRequirement::new();
            for (name, scopes) in map {
                let scopes =
                    scopes.as_array().map(|s| s.iter().filter_map(Value::as_str).map(str::to_string).collect());
                r.insert(name.clone(), scopes.unwrap_or_default());
            }
            out.push(r);
        }
        Some(out)
    }

    /// Walks `paths`; returns the operations sorted by path, then method.
    pub(super) fn operations(&mut self) -> Vec<Operation> {
        let docs = self.docs;
        let root = docs.root_value();
        let mut ops = Vec::new();
        let Some(paths) = root.get("paths") else { return ops };
        let Value::Object(paths) = paths else {
            self.warn(DiagKind::Lenient, "#/paths", format!("`paths` must be an object, found {}", kind_of(paths)));
            return ops;
        };
        for (path, item) in paths {
            let item_ptr = child("#/paths", path);
            if !path.starts_with('/') {
                if !path.starts_with("x-") {
                    self.warn(
                        DiagKind::OperationSkipped,
                        &item_ptr,
                        "path does not start with `/`; its operations are skipped",
                    );
                }
                continue;
            }
            let item = match self.deref(Located { value: item, doc: &docs.root }, &item_ptr) {
                Ok((item, _)) => item,
                Err(f) => {
                    self.skip(f);
                    continue;
                }
            };
            let Value::Object(item_obj) = item.value else { continue };
            for method in Method::ALL {
                let Some(op) = item_obj.get(method.key()) else { continue };
                let op_ptr = child(&item_ptr, method.key());
                match self.operation(path, method, item, Located { value: op, doc: item.doc }, &op_ptr) {
                    Ok(op) => ops.push(op),
                    Err(f) => self.skip(f),
                }
            }
            if item_obj.contains_key("query") || item_obj.contains_key("additionalOperations") {
                self.warn(
                    DiagKind::Unsupported,
                    &item_ptr,
                    "OpenAPI 3.2 `query` and `additionalOperations` are not supported yet",
                );
            }
        }
        ops
    }

    fn operation(
        &mut self,
        path: &str,
        method: Method,
        item: Located<'d>,
        op: Located<'d>,
        pointer: &str,
    ) -> OpResult<Operation> {
        let Value::Object(obj) = op.value else {
            return Err(Fault::new(pointer, format!("an operation must be an object, found {}", kind_of(op.value))));
        };
        let text =
            |k: &str| obj.get(k).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        let (path, fixed_query) = conventions::split_path_key(path);
        let parameters = self.parameters(path, item, op, pointer)?;
        let request_body = match obj.get("requestBody") {
            Some(b) => self.request_body(Located { value: b, doc: op.doc }, &child(pointer, "requestBody"))?,
            None => None,
        };
        let response = self.response(obj.get("responses"), op.doc, &child(pointer, "responses"));
        let security = self.security(obj.get("security"), &child(pointer, "security"));
        let mut servers = self.servers(obj.get("servers"), &child(pointer, "servers"));
        if servers.is_empty() {
            servers = self.servers(item.value.get("servers"), &child(pointer, "../servers"));
        }
        let mcp = self.mcp_extension(obj.get(X_MCP), &child(pointer, X_MCP));
        Ok(Operation {
            pointer: self.docs.place(op.doc, pointer),
            method,
            path: path.to_string(),
            fixed_query,
            operation_id: text("operationId"),
            summary: text("summary").or_else(|| item.value.get("summary").and_then(Value::as_str).map(str::to_string)),
            description: text("description"),
            tags: obj
                .get("tags")
                .and_then(Value::as_array)
                .map(|t| t.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default(),
            deprecated: obj.get("deprecated") == Some(&Value::Bool(true)),
            parameters,
            request_body,
            response,
            security,
            servers,
            mcp,
            function: None,
        })
    }

    fn parameters(
        &mut self,
        path: &str,
        item: Located<'d>,
        op: Located<'d>,
        pointer: &str,
    ) -> OpResult<Vec<Parameter>> {
        let mut params: Vec<Parameter> = Vec::new();
        let item_ptr = pointer.rsplit_once('/').map_or(pointer, |(item, _)| item);
        let levels = [(item, "../parameters", item_ptr), (op, "parameters", pointer)];
        for (level, rel, holder) in levels {
            let Some(list) = level.value.get("parameters") else { continue };
            let at = child(pointer, rel);
            let Value::Array(list) = list else {
                return Err(Fault::new(at, format!("`parameters` must be an array, found {}", kind_of(list))));
            };
            for (i, p) in list.iter().enumerate() {
                let p_ptr = child(&at, i.to_string());
                let located = Located { value: p, doc: level.doc };
                // A parameter whose `$ref` names a file that could not be read costs that
                // parameter, not the operation (a path variable left without one is a string); a
                // reference that is wrong inside the documents read stays the operation's fault.
                if let Some(Value::String(reference)) = p.get("$ref")
                    && let Ok(target) = split_ref(level.doc, reference)
                    && self.docs.get(&target.doc).is_none()
                {
                    let why = self.docs.missing(&target.doc).unwrap_or("document not loaded");
                    let message =
                        format!("broken $ref {reference:?}: {why}; the parameter is left out, the operation kept");
                    self.warn(DiagKind::Lenient, &p_ptr, message);
                    continue;
                }
                let Some(mut param) = self.parameter(located, &p_ptr)? else { continue };
                let index =
                    p.get(super::DECLARED_INDEX).and_then(Value::as_u64).map_or(i.to_string(), |n| n.to_string());
                param.pointer = self.docs.place(level.doc, &child(&child(holder, "parameters"), index));
                // Operation-level parameters override path-level ones with the same name and location.
                params.retain(|q| !(q.name == param.name && q.location == param.location));
                params.push(param);
            }
        }
        // Every `{var}` of the path template needs a path parameter, and only those.
        let vars = template_vars(path);
        params.retain(|p| {
            let keep = p.location != ParamLocation::Path || vars.contains(&p.name.as_str());
            if !keep {
                self.diagnostics.push(Diagnostic::new(
                    DiagKind::Lenient,
                    pointer,
                    format!("path parameter `{}` is not in the path template; ignored", p.name),
                ));
            }
            keep
        });
        for var in vars {
            if !params.iter().any(|p| p.location == ParamLocation::Path && p.name == var) {
                self.warn(
                    DiagKind::Lenient,
                    pointer,
                    format!("path variable `{{{var}}}` has no parameter; a string is assumed"),
                );
                params.push(Parameter {
                    pointer: self.docs.place(op.doc, pointer),
                    name: var.to_string(),
                    location: ParamLocation::Path,
                    required: true,
                    deprecated: false,
                    description: None,
                    style: ParamStyle::Simple,
                    explode: false,
                    allow_reserved: false,
                    schema: serde_json::json!({"type": "string"}),
                    content_type: None,
                    argument: None,
                    examples: Vec::new(),
                });
            }
        }
        params.sort_by_key(|p| p.location);
        Ok(params)
    }

    fn parameter(&mut self, p: Located<'d>, pointer: &str) -> OpResult<Option<Parameter>> {
        let (p, p_ptr) = self.deref(p, pointer)?;
        let Value::Object(obj) = p.value else {
            return Err(Fault::new(p_ptr, format!("a parameter must be an object, found {}", kind_of(p.value))));
        };
        let name =
            obj.get("name").and_then(Value::as_str).ok_or_else(|| Fault::new(&p_ptr, "parameter has no `name`"))?;
        let location = match obj.get("in").and_then(Value::as_str) {
            Some("path") => ParamLocation::Path,
            Some("query") => ParamLocation::Query,
            Some("header") => ParamLocation::Header,
            Some("cookie") => ParamLocation::Cookie,
            other => {
                return Err(Fault::new(
                    p_ptr,
                    format!(
                        "parameter `{name}` has `in: {}`; OpenAPI 3 allows path, query, header or cookie",
                        other.unwrap_or("(missing)")
                    ),
                ));
            }
        };
        // `Accept`, `Content-Type` and `Authorization` header parameters stay in the IR: OpenAPI
        // says to ignore them, but real servers enforce them. The tools stage sends their fixed
        // values and makes `Authorization` a credential; none becomes an argument.
        let style = match obj.get("style").and_then(Value::as_str) {
            None => ParamStyle::default_for(location),
            Some(s) => match parse_style(s, location) {
                Some(style) => style,
                None => {
                    self.warn(
                        DiagKind::Lenient,
                        child(pointer, "style"),
                        format!("style `{s}` is not valid for a {location:?} parameter; the default is used"),
                    );
                    ParamStyle::default_for(location)
                }
            },
        };
        let explode = obj.get("explode").and_then(Value::as_bool).unwrap_or(style == ParamStyle::Form);
        let mut examples = self.examples(p.value, p.doc, &p_ptr, MAX_DECLARED_EXAMPLES);
        let (schema, content_type) = match (obj.get("schema"), obj.get("content")) {
            (Some(s), _) => (self.schemas.convert(s, p.doc, &child(&p_ptr, "schema"))?, None),
            (None, Some(Value::Object(content))) => match content.iter().next() {
                Some((media, m)) => {
                    let s = m.get("schema").cloned().unwrap_or(Value::Object(Map::new()));
                    let at = child(&child(&p_ptr, "content"), media);
                    if examples.is_empty() {
                        examples = self.examples(m, p.doc, &at, MAX_DECLARED_EXAMPLES);
                    }
                    (self.schemas.convert(&s, p.doc, &child(&at, "schema"))?, Some(media.clone()))
                }
                None => (serde_json::json!({"type": "string"}), None),
            },
            _ => (serde_json::json!({"type": "string"}), None),
        };
        Ok(Some(Parameter {
            pointer: String::new(),
            name: name.to_string(),
            location,
            required: location == ParamLocation::Path || obj.get("required") == Some(&Value::Bool(true)),
            deprecated: obj.get("deprecated") == Some(&Value::Bool(true)),
            description: obj
                .get("description")
                .and_then(Value::as_str)
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(str::to_string),
            style,
            explode,
            allow_reserved: obj.get("allowReserved") == Some(&Value::Bool(true)),
            schema,
            content_type,
            argument: obj.get(X_MCP_ARGUMENT).and_then(Value::as_str).filter(|a| !a.is_empty()).map(str::to_string),
            examples,
        }))
    }

    fn request_body(&mut self, b: Located<'d>, pointer: &str) -> OpResult<Option<RequestBody>> {
        let (b, b_ptr) = self.deref(b, pointer)?;
        let Value::Object(obj) = b.value else {
            return Err(Fault::new(b_ptr, format!("requestBody must be an object, found {}", kind_of(b.value))));
        };
        let mut content = self.media_types(obj.get("content"), b.doc, &child(&b_ptr, "content"), true)?;
        if let Some(Value::Object(declared)) = obj.get("content") {
            for m in &mut content {
                let at = child(&child(&b_ptr, "content"), &m.media_type);
                let Some(media) = declared.get(&m.media_type) else { continue };
                m.examples = self.examples(media, b.doc, &at, MAX_DECLARED_EXAMPLES);
            }
        }
        if content.is_empty() {
            self.warn(DiagKind::Lenient, pointer, "requestBody has no `content`; no body is sent");
            return Ok(None);
        }
        Ok(Some(RequestBody {
            required: obj.get("required") == Some(&Value::Bool(true)),
            description: obj.get("description").and_then(Value::as_str).map(str::to_string),
            content,
            arguments: None,
        }))
    }

    fn media_types(
        &mut self,
        content: Option<&Value>,
        doc: &'d str,
        pointer: &str,
        strict: bool,
    ) -> OpResult<Vec<MediaType>> {
        let mut out = Vec::new();
        let Some(Value::Object(content)) = content else { return Ok(out) };
        for (media, m) in content {
            let at = child(pointer, media);
            let schema = match m.get("schema") {
                Some(s) => match self.schemas.convert(s, doc, &child(&at, "schema")) {
                    Ok(s) => s,
                    Err(e) if strict => return Err(e),
                    Err(e) => {
                        self.warn(DiagKind::SchemaRef, e.at, format!("response schema dropped: {}", e.message));
                        Value::Object(Map::new())
                    }
                },
                None => Value::Object(Map::new()),
            };
            let mut encoding = BTreeMap::new();
            if let Some(Value::Object(enc)) = m.get("encoding") {
                for (prop, e) in enc {
                    if let Some(ct) = e.get("contentType").and_then(Value::as_str) {
                        encoding.insert(prop.clone(), ct.to_string());
                    }
                }
            }
            out.push(MediaType { media_type: media.clone(), schema, encoding, example: None, examples: Vec::new() });
        }
        Ok(out)
    }

    /// The success response: the first 2xx in numeric order, then `2XX`.
    fn response(&mut self, responses: Option<&'d Value>, doc: &'d str, pointer: &str) -> Option<Response> {
        let Some(Value::Object(map)) = responses else { return None };
        let mut codes: Vec<&String> = map.keys().filter(|c| c.starts_with('2') && c.len() == 3).collect();
        codes.sort_by_key(|c| (c.eq_ignore_ascii_case("2XX"), c.to_string()));
        let code = codes.first()?;
        let at = child(pointer, code.as_str());
        let (r, r_ptr) = match self.deref(Located { value: &map[code.as_str()], doc }, &at) {
            Ok(found) => found,
            Err(msg) => {
                self.warn(DiagKind::SchemaRef, msg.at, format!("response ignored: {}", msg.message));
                return None;
            }
        };
        let mut content =
            self.media_types(r.value.get("content"), r.doc, &child(&r_ptr, "content"), false).unwrap_or_default();
        if let Some(Value::Object(declared)) = r.value.get("content") {
            for m in &mut content {
                let at = child(&child(&r_ptr, "content"), &m.media_type);
                m.example = declared.get(&m.media_type).and_then(|d| self.example(d, r.doc, &at));
            }
        }
        Some(Response {
            status: code.to_string(),
            description: r.value.get("description").and_then(Value::as_str).map(str::to_string),
            content,
        })
    }

    /// A media type's example: its `example`, else the `value` of the first of its `examples` by
    /// name (a `$ref` to an Example Object followed; one that cannot be is skipped with a warning).
    fn example(&mut self, media: &'d Value, doc: &'d str, pointer: &str) -> Option<Value> {
        self.examples(media, doc, pointer, 1).pop()
    }

    /// Up to `max` examples of a parameter or media type: its `example`, then the `value` of each
    /// of its `examples` by name (as [`example`](Self::example) reads them). Only as many
    /// `examples` are read as are needed, so that one broken past them warns of nothing.
    fn examples(&mut self, holder: &'d Value, doc: &'d str, pointer: &str, max: usize) -> Vec<Value> {
        let mut out: Vec<Value> = holder.get("example").into_iter().cloned().collect();
        let Some(Value::Object(examples)) = holder.get("examples") else { return out };
        for (name, e) in examples {
            if out.len() >= max {
                break;
            }
            let at = child(&child(pointer, "examples"), name);
            match self.deref(Located { value: e, doc }, &at) {
                Ok((found, _)) => out.extend(found.value.get("value").cloned()),
                Err(fault) => self.warn(DiagKind::SchemaRef, fault.at, format!("example ignored: {}", fault.message)),
            }
        }
        out.truncate(max);
        out
    }

    fn mcp_extension(&mut self, v: Option<&Value>, pointer: &str) -> McpExtension {
        let Some(v) = v else { return McpExtension::default() };
        let ext = conventions::read_mcp(v).unwrap_or_else(|| {
            self.warn(
                DiagKind::Lenient,
                pointer,
                format!("x-mcp must be an object or a boolean, found {}", kind_of(v)),
            );
            McpExtension::default()
        });
        let key = conventions::MAX_RESULT_CHARS;
        if let Some(bad) = v.get(key).filter(|_| ext.max_result_chars.is_none()) {
            let message = format!("x-mcp.{key} must be a number of characters (0: no limit), found {bad}; ignored");
            self.warn(DiagKind::Lenient, child(pointer, key), message);
        }
        for spelling in ["max-result-chars", "max_result_chars"].into_iter().filter(|k| v.get(k).is_some()) {
            let message = format!("x-mcp.{spelling} is not read: the key is spelled `{key}`");
            self.warn(DiagKind::Lenient, child(pointer, spelling), message);
        }
        ext
    }

    /// Follows `$ref`s of non-schema objects (parameters, bodies, responses, path items).
    fn deref(&self, mut at: Located<'d>, pointer: &str) -> OpResult<(Located<'d>, String)> {
        let mut place = pointer.to_string();
        let mut seen: Vec<String> = Vec::new();
        while let Some(Value::String(reference)) = at.value.get("$ref") {
            let target = split_ref(at.doc, reference)
                .map_err(|e| Fault::new(&place, format!("broken $ref {reference:?}: {e}")))?;
            let key = format!("{}#{}", target.doc, target.pointer);
            if seen.contains(&key) || seen.len() > 64 {
                return Err(Fault::new(place, format!("circular $ref {reference:?}")));
            }
            seen.push(key);
            let (doc_id, doc) = self.docs.get(&target.doc).map(|d| (target.doc.as_str(), d)).ok_or_else(|| {
                let why = self.docs.missing(&target.doc).unwrap_or("document not loaded");
                Fault::new(&place, format!("broken $ref {reference:?}: {why}"))
            })?;
            let value = if target.pointer.is_empty() { Some(doc) } else { doc.pointer(&target.pointer) };
            let value = value.ok_or_else(|| {
                Fault::new(
                    &place,
                    format!(
                        "broken $ref {reference:?}: nothing at #{} in {}",
                        target.pointer,
                        self.docs.display(doc_id)
                    ),
                )
            })?;
            // The id must outlive this loop: take it from the set, which lives for 'd.
            let doc_ref = self.docs.doc_id(&target.doc).unwrap_or(at.doc);
            at = Located { value, doc: doc_ref };
            place = self.docs.place(doc_ref, &format!("#{}", target.pointer));
        }
        Ok((at, place))
    }

    fn skip(&mut self, fault: Fault) {
        self.warn(DiagKind::OperationSkipped, fault.at, format!("{} (operation skipped)", fault.message));
    }

    fn warn(&mut self, kind: DiagKind, pointer: impl Into<String>, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::new(kind, pointer, message));
    }
}

fn parse_style(s: &str, location: ParamLocation) -> Option<ParamStyle> {
    use ParamLocation as L;
    use ParamStyle as S;
    let style = match s {
        "simple" => S::Simple,
        "label" => S::Label,
        "matrix" => S::Matrix,
        "form" => S::Form,
        "spaceDelimited" => S::SpaceDelimited,
        "pipeDelimited" => S::PipeDelimited,
        "deepObject" => S::DeepObject,
        _ => return None,
    };
    let ok = match location {
        L::Path => matches!(style, S::Simple | S::Label | S::Matrix),
        L::Query => matches!(style, S::Form | S::SpaceDelimited | S::PipeDelimited | S::DeepObject),
        L::Header => style == S::Simple,
        L::Cookie => style == S::Form,
    };
    ok.then_some(style)
}

fn parse_security_scheme(s: &Value) -> Result<SecurityScheme, String> {
    let text = |k: &str| s.get(k).and_then(Value::as_str);
    match text("type") {
        Some("apiKey") => {
            let name = text("name").ok_or("apiKey scheme without `name`")?.to_string();
            let location = match text("in") {
                Some("header") => ApiKeyLocation::Header,
                Some("query") => ApiKeyLocation::Query,
                Some("cookie") => ApiKeyLocation::Cookie,
                other => return Err(format!("apiKey scheme with `in: {}`", other.unwrap_or("(missing)"))),
            };
            Ok(SecurityScheme::ApiKey { name, location })
        }
        Some("http") => Ok(SecurityScheme::Http {
            scheme: HttpScheme::parse(text("scheme").unwrap_or("bearer")),
            bearer_format: text("bearerFormat").map(str::to_string),
        }),
        Some("oauth2") => {
            let flows = s.get("flows").and_then(Value::as_object);
            // A flow's scopes: the names its `scopes` map defines.
            let scopes = |flow: &Value| -> Vec<String> {
                flow.get("scopes").and_then(Value::as_object).map(|m| m.keys().cloned().collect()).unwrap_or_default()
            };
            let client_credentials = flows.and_then(|f| f.get("clientCredentials")).and_then(|cc| {
                Some(OAuth2Flow { token_url: cc.get("tokenUrl")?.as_str()?.to_string(), scopes: scopes(cc) })
            });
            let authorization_code = flows.and_then(|f| f.get("authorizationCode")).and_then(|ac| {
                Some(AuthorizationCodeFlow {
                    authorization_url: ac.get("authorizationUrl")?.as_str()?.to_string(),
                    token_url: ac.get("tokenUrl")?.as_str()?.to_string(),
                    scopes: scopes(ac),
                })
            });
            let other_flows = flows
                .map(|f| {
                    f.keys()
                        .filter(|k| {
                            *k != "clientCredentials" && !(*k == "authorizationCode" && authorization_code.is_some())
                        })
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            Ok(SecurityScheme::OAuth2 { client_credentials, authorization_code, other_flows })
        }
        Some("openIdConnect") => {
            Ok(SecurityScheme::OpenIdConnect { url: text("openIdConnectUrl").unwrap_or("").to_string() })
        }
        Some("mutualTLS") => Ok(SecurityScheme::MutualTls),
        other => Err(format!("unknown type `{}`", other.unwrap_or("(missing)"))),
    }
}

fn substitute_variables(url: &str, vars: Option<&Value>) -> String {
    let mut out = url.to_string();
    if let Some(Value::Object(vars)) = vars {
        for (name, v) in vars {
            let value = v
                .get("default")
                .and_then(Value::as_str)
                .or_else(|| v.get("enum").and_then(|e| e.get(0)).and_then(Value::as_str))
                .unwrap_or("");
            out = out.replace(&format!("{{{name}}}"), value);
        }
    }
    out
}

/// The `{name}` variables of a path template, in order.
pub(crate) fn template_vars(path: &str) -> Vec<&str> {
    let mut vars = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(len) = rest[start..].find('}') else { break };
        let name = &rest[start + 1..start + len];
        if !name.is_empty() && !vars.contains(&name) {
            vars.push(name);
        }
        rest = &rest[start + len + 1..];
    }
    vars
}

#[cfg(test)]
mod tests;
