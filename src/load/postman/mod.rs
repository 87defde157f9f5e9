//! Postman Collection v2.0 and v2.1 read into the recorded model (`super::recorded`), which
//! becomes an OpenAPI 3.1 document.
//!
//! Folders are tags (with their descriptions); collection variables give the server and the
//! parameters' examples (`{{var}}` in the URL, headers, query and body); `:id` segments are path
//! parameters; `auth` blocks at every level are security schemes read from env vars; saved
//! example responses give the response schemas and examples, and their original requests are
//! more examples of the request. Recorded credentials are never read (`vars`).

mod auth;
mod body;
mod url;
mod vars;

use serde_json::Value;

use self::auth::Auth;
use self::url::{RequestUrl, Segment};
use self::vars::Vars;
use super::recorded::secrets::{self, Schemes};
use super::recorded::{self, Api, Call, Operation, Place, Reply};
use crate::diag::{DiagKind, Diagnostic};
use crate::error::{Error, Location, Result};
use crate::infer::scalar_of_text;
use crate::ir::Method;

/// Folders nested deeper than this are not walked (a collection is a tree written by people).
const MAX_DEPTH: usize = 32;

/// A description: a string, or v2.0's `{content, type}`; `None` when blank.
pub(crate) fn text_of(v: &Value) -> Option<String> {
    let text = match v {
        Value::String(s) => s.as_str(),
        Value::Object(o) => o.get("content").and_then(Value::as_str)?,
        _ => return None,
    };
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

struct Reader<'a> {
    origin: &'a str,
    vars: Vars,
    schemes: Schemes,
    api: Api,
    /// Servers in the order met, with how many requests use each.
    servers: Vec<(String, usize)>,
    warnings: Vec<Diagnostic>,
    /// Server variables without a value, already warned about.
    missing_warned: bool,
}

/// Converts a collection to OpenAPI 3.1, with what was worked around.
pub(crate) fn convert(root: &Value, origin: &str) -> Result<(Value, Vec<Diagnostic>)> {
    let items = root.get("item").and_then(Value::as_array).ok_or_else(|| Error::Invalid {
        location: Location::at_pointer(origin, "#/item"),
        message: "a Postman collection needs an `item` list of requests and folders".into(),
    })?;
    let info = root.get("info");
    let mut r = Reader {
        origin,
        vars: Vars::read(root),
        schemes: Schemes::default(),
        api: Api { source: "Postman collection", ..Api::default() },
        servers: Vec::new(),
        warnings: Vec::new(),
        missing_warned: false,
    };
    r.api.title = info.and_then(|i| i.get("name")).and_then(Value::as_str).unwrap_or("API").to_string();
    r.api.description = info.and_then(|i| i.get("description")).and_then(text_of);
    let default = r.auth(root.get("auth"), "#/auth");
    if let Auth::Scheme(name) = &default {
        r.api.security = vec![vec![name.clone()]];
    }
    r.walk(items, "#/item", &[], None, 0)?;
    if r.api.operations.is_empty() {
        return Err(Error::NoTools {
            origin: origin.to_string(),
            reason: "the collection holds no request".into(),
            diagnostics: r.warnings,
        });
    }
    r.place_servers();
    r.api.schemes = std::mem::take(&mut r.schemes.schemes);
    Ok((r.api.to_openapi(), r.warnings))
}

impl Reader<'_> {
    fn auth(&mut self, block: Option<&Value>, pointer: &str) -> Auth {
        let auth = auth::read(block, &self.vars, &mut self.schemes);
        if let Auth::Unsupported(kind) = &auth {
            self.warnings.push(Diagnostic::new(
                DiagKind::Unsupported,
                pointer,
                format!("`{kind}` authentication is not supported: give the credentials with --auth"),
            ));
        }
        auth
    }

    /// Walks a list of items: folders (tags) and requests. `security`: what the nearest folder's
    /// `auth` says (`None`: the collection's).
    fn walk(
        &mut self,
        items: &[Value],
        pointer: &str,
        tags: &[String],
        security: Option<&Auth>,
        depth: usize,
    ) -> Result<()> {
        for (i, item) in items.iter().enumerate() {
            let at = format!("{pointer}/{i}");
            if let Some(children) = item.get("item").and_then(Value::as_array) {
                if depth >= MAX_DEPTH {
                    self.warnings.push(Diagnostic::new(
                        DiagKind::Unsupported,
                        &at,
                        "folders nested too deep: left out",
                    ));
                    continue;
                }
                let name = item.get("name").and_then(Value::as_str).unwrap_or("").trim().to_string();
                let mut inner = tags.to_vec();
                if !name.is_empty() {
                    if !self.api.tags.iter().any(|(t, _)| *t == name) {
                        self.api.tags.push((name.clone(), item.get("description").and_then(text_of)));
                    }
                    inner.push(name);
                }
                let folder_auth = self.auth(item.get("auth"), &format!("{at}/auth"));
                let auth = if folder_auth == Auth::Inherit { security.cloned() } else { Some(folder_auth) };
                self.walk(children, &format!("{at}/item"), &inner, auth.as_ref(), depth + 1)?;
            } else if item.get("request").is_some() {
                self.request(item, &at, tags, security)?;
            }
        }
        Ok(())
    }

    fn request(&mut self, item: &Value, at: &str, tags: &[String], inherited: Option<&Auth>) -> Result<()> {
        let request = &item["request"];
        let Some((method, url, mut call, credentials)) = self.read_request(request, &format!("{at}/request"))? else {
            return Ok(());
        };
        let own = self.auth(request.get("auth"), &format!("{at}/request/auth"));
        let auth = if own == Auth::Inherit { inherited.cloned() } else { Some(own) };
        let path = url.template();
        let mut extra: Vec<Call> = Vec::new();
        for (j, saved) in item.get("response").and_then(Value::as_array).into_iter().flatten().enumerate() {
            let Some(reply) = reply_of(saved) else { continue };
            let original = saved.get("originalRequest").filter(|o| o.is_object());
            let same = original
                .and_then(|o| self.read_request(o, &format!("{at}/response/{j}/originalRequest")).ok().flatten());
            match same {
                Some((m, u, mut c, _)) if m == method && u.template() == path => {
                    c.replies.push(reply);
                    extra.push(c);
                }
                _ => call.replies.push(reply),
            }
        }
        let security = self.security(auth.as_ref(), &credentials);
        let mut declared = Vec::new();
        let mut docs = std::collections::BTreeMap::new();
        for seg in &url.segments {
            if let Segment::Param { name, description: Some(d), .. } = seg {
                docs.insert((Place::Path, name.clone()), d.clone());
            }
        }
        for q in &url.query {
            if let Some(d) = &q.description {
                docs.insert((Place::Query, q.key.clone()), d.clone());
            }
            if q.disabled && !secrets::is_key_query(&q.key) {
                declared.push((Place::Query, q.key.clone(), self.value_of(q.value.as_deref())));
            }
        }
        if let Some(server) = &url.server {
            match self.servers.iter_mut().find(|(s, _)| s == server) {
                Some((_, n)) => *n += 1,
                None => self.servers.push((server.clone(), 1)),
            }
        }
        let name = item.get("name").and_then(Value::as_str).map(str::to_string);
        let description = request.get("description").and_then(text_of);
        let tags = tags.to_vec();
        let server = url.server.clone();
        let make =
            || Operation { summary: name, description, tags, server, security, docs, declared, calls: Vec::new() };
        self.api.record(method, &path, make, call);
        if let Some(op) = self.api.operations.get_mut(&(path, method)) {
            op.calls.extend(extra);
        }
        Ok(())
    }

    /// A request's method, URL, call and the credentials its headers and query carry; `None`
    /// when it is left out (a method mcpgen does not know, with a warning).
    #[allow(clippy::type_complexity)]
    fn read_request(&mut self, request: &Value, at: &str) -> Result<Option<(Method, RequestUrl, Call, Vec<String>)>> {
        let (method_text, url_value) = match request {
            Value::String(_) => ("GET", request),
            _ => (
                request.get("method").and_then(Value::as_str).unwrap_or("GET"),
                request.get("url").unwrap_or(&Value::Null),
            ),
        };
        let Some(method) = Method::parse(method_text) else {
            let message =
                format!("the method `{method_text}` is not an HTTP method mcpgen serves: the request is left out");
            self.warnings.push(Diagnostic::new(DiagKind::OperationSkipped, format!("{at}/method"), message));
            return Ok(None);
        };
        let url = url::read(url_value, &self.vars).map_err(|why| Error::Invalid {
            location: Location::at_pointer(self.origin, format!("{at}/url")),
            message: format!("the request's URL cannot be read: {why}"),
        })?;
        if url.server.is_none() && !url.missing.is_empty() && !self.missing_warned {
            self.missing_warned = true;
            self.warnings.push(Diagnostic::new(
                DiagKind::Lenient,
                format!("{at}/url"),
                format!(
                    "the server is the variable `{}`, which the collection gives no value: give it with --base-url",
                    url.missing.join("`, `")
                ),
            ));
        }
        let mut call = Call::default();
        let mut credentials = Vec::new();
        for seg in &url.segments {
            if let Segment::Param { name, value, .. } = seg {
                call.params.push((Place::Path, name.clone(), self.value_of(value.as_deref())));
            }
        }
        for q in url.query.iter().filter(|q| !q.disabled) {
            if secrets::is_key_query(&q.key) {
                credentials.push(self.schemes.add(secrets::api_key(&q.key, "query")));
            } else {
                call.params.push((Place::Query, q.key.clone(), self.value_of(q.value.as_deref())));
            }
        }
        let content_type = self.headers(request, &mut call, &mut credentials);
        if let Some(b) = request.get("body").filter(|b| b.is_object()) {
            match body::read(b, content_type.as_deref(), &self.vars) {
                Ok(body) => call.body = body,
                Err(why) => {
                    self.warnings.push(Diagnostic::new(
                        DiagKind::Lenient,
                        format!("{at}/body"),
                        format!("{why}: its schema is a string"),
                    ));
                    let media_type =
                        content_type.map_or_else(|| "application/json".into(), |t| recorded::bare_media_type(&t));
                    call.body = Some(recorded::Body { media_type, value: None, files: Vec::new() });
                }
            }
        }
        Ok(Some((method, url, call, credentials)))
    }

    /// A request's headers: credentials to `credentials`, the others (but the transport's) to
    /// the call's parameters; returns the `Content-Type`.
    fn headers(&mut self, request: &Value, call: &mut Call, credentials: &mut Vec<String>) -> Option<String> {
        let mut content_type = None;
        for h in request.get("header").and_then(Value::as_array).into_iter().flatten() {
            let (Some(name), value) = (h.get("key").and_then(Value::as_str), h.get("value").and_then(Value::as_str))
            else {
                continue;
            };
            if h.get("disabled").and_then(Value::as_bool) == Some(true) {
                continue;
            }
            let value = value.unwrap_or("");
            if let Some(c) = secrets::of_header(name, value) {
                credentials.push(self.schemes.add(c));
            } else if name.eq_ignore_ascii_case("cookie") {
                for cookie in secrets::cookie_names(value).into_iter().filter(|c| secrets::is_session_cookie(c)) {
                    credentials.push(self.schemes.add(secrets::api_key(&cookie, "cookie")));
                }
            } else if name.eq_ignore_ascii_case("content-type") {
                content_type = self.vars.resolve(value).complete();
            } else if !secrets::is_transport_header(name) {
                let shown = if self.vars.names_secret(value) { None } else { self.value_of(Some(value)) };
                call.params.push((Place::Header, name.to_string(), shown));
            }
        }
        content_type
    }

    /// A recorded text as a value that may be shown: its variables substituted (none missing),
    /// read as a scalar.
    fn value_of(&self, text: Option<&str>) -> Option<serde_json::Value> {
        let resolved = self.vars.resolve(text?).complete()?;
        Some(scalar_of_text(&resolved))
    }

    /// The operation's requirement: its `auth` (or the nearest folder's), with the credentials its
    /// own headers and query carry; `None` when that is the collection's.
    fn security(&self, auth: Option<&Auth>, credentials: &[String]) -> Option<Vec<Vec<String>>> {
        let base: Option<Vec<Vec<String>>> = match auth {
            None | Some(Auth::Inherit) => None,
            Some(Auth::None | Auth::Unsupported(_)) => Some(Vec::new()),
            Some(Auth::Scheme(name)) => Some(vec![vec![name.clone()]]),
        };
        if credentials.is_empty() {
            return base;
        }
        let mut sets = base.unwrap_or_else(|| self.api.security.clone());
        if sets.is_empty() {
            sets.push(Vec::new());
        }
        for set in &mut sets {
            for c in credentials {
                if !set.contains(c) {
                    set.push(c.clone());
                }
            }
        }
        Some(sets)
    }

    /// The API's server is the one most requests use (the first met on a tie); operations on
    /// another keep theirs.
    fn place_servers(&mut self) {
        let mut best: Option<&(String, usize)> = None;
        for s in &self.servers {
            if best.is_none_or(|b| s.1 > b.1) {
                best = Some(s);
            }
        }
        let Some((main, _)) = best.cloned() else { return };
        for op in self.api.operations.values_mut() {
            if op.server.as_deref() == Some(main.as_str()) {
                op.server = None;
            }
        }
        self.api.servers = vec![main];
    }
}

/// A saved example response; `None` without a status code.
fn reply_of(saved: &Value) -> Option<Reply> {
    let status = saved.get("code").and_then(Value::as_u64).and_then(|c| u16::try_from(c).ok())?;
    let header_type = saved.get("header").and_then(Value::as_array).into_iter().flatten().find_map(|h| {
        let is_type = h.get("key").and_then(Value::as_str).is_some_and(|k| k.eq_ignore_ascii_case("content-type"));
        if is_type { h.get("value").and_then(Value::as_str).map(recorded::bare_media_type) } else { None }
    });
    let text = saved.get("body").and_then(Value::as_str).unwrap_or("");
    let parsed = serde_json::from_str::<Value>(text).ok();
    let media_type = header_type.or_else(|| match saved.get("_postman_previewlanguage").and_then(Value::as_str) {
        Some("json") => Some("application/json".into()),
        _ if parsed.is_some() => Some("application/json".into()),
        _ if text.trim().is_empty() => None,
        _ => Some("text/plain".into()),
    });
    let value = parsed.filter(|_| media_type.as_deref().is_some_and(recorded::is_json));
    let description =
        saved.get("name").and_then(Value::as_str).map(str::trim).filter(|n| !n.is_empty()).map(str::to_string);
    Some(Reply { status, description, media_type, value })
}
