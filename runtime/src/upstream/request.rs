//! A tool call's arguments to an HTTP request, following the tool's [`HttpBinding`].

use base64::Engine as _;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Map, Value};

use crate::config::{BodyBinding, BodyContent, HttpBinding, ParamLocation};
use crate::error::{Error, Result};
use crate::upstream::encode;

/// Everything needed to send (and re-send, on retry) one request.
#[derive(Debug, Clone)]
pub struct PreparedRequest {
    /// The HTTP method.
    pub method: reqwest::Method,
    /// The whole URL: base URL, path with its parameters filled in, and query (API keys sent in the
    /// query included). Checked to be on the base URL's origin when built, not after hooks.
    pub url: reqwest::Url,
    /// Headers: header parameters, the document's fixed headers, `Accept`, `--header`/config static
    /// headers and credentials. The body's `Content-Type` is not here: [`PreparedBody`] sets it.
    pub headers: HeaderMap,
    /// `name=value` pairs, already percent-encoded, sent joined by `; ` in one `Cookie` header.
    pub cookies: Vec<String>,
    /// The body; `None`: none.
    pub body: Option<PreparedBody>,
}

/// A request body, serialised by the binding's media type.
#[derive(Debug, Clone)]
pub enum PreparedBody {
    /// A body in one piece: JSON, form-urlencoded, text or raw bytes.
    Bytes {
        /// The `Content-Type` sent: the binding's media type (`application/json` for `*/*`).
        content_type: String,
        /// The serialised body.
        bytes: Vec<u8>,
    },
    /// A multipart form, its parts in order (sent as `multipart/form-data`, with a boundary of its
    /// own).
    Multipart(Vec<Part>),
}

/// One part of a multipart body.
#[derive(Debug, Clone)]
pub struct Part {
    /// The form field's name.
    pub name: String,
    /// The part's content (a file's decoded bytes, a value's text, or JSON for objects and arrays).
    pub bytes: Vec<u8>,
    /// The part's `Content-Type`; `None`: none is sent.
    pub content_type: Option<String>,
    /// The `filename` of the part's `Content-Disposition`: the field's name for file fields, `None`
    /// for others.
    pub file_name: Option<String>,
}

impl PreparedBody {
    /// The body on a request (a multipart one written for each attempt, with a boundary of its own).
    pub fn apply(&self, req: reqwest::RequestBuilder) -> Result<reqwest::RequestBuilder> {
        Ok(match self {
            PreparedBody::Bytes { content_type, bytes } => {
                req.header(reqwest::header::CONTENT_TYPE, content_type.as_str()).body(bytes.clone())
            }
            PreparedBody::Multipart(parts) => {
                let boundary = boundary();
                let body = multipart_body(parts, &boundary)?;
                req.header(reqwest::header::CONTENT_TYPE, format!("multipart/form-data; boundary={boundary}"))
                    .body(body)
            }
        })
    }
}

/// Joins the base URL and the binding's path, with every argument in its place. An argument can
/// never change the scheme, host or port: the result is checked against the base URL's origin.
pub fn prepare(base_url: &str, binding: &HttpBinding, args: &Map<String, Value>) -> Result<PreparedRequest> {
    prepare_on(&BaseUrl::parse(base_url)?, binding, args)
}

/// [`prepare`] on a base URL parsed beforehand (once, when the engine is built).
pub fn prepare_on(base_url: &BaseUrl, binding: &HttpBinding, args: &Map<String, Value>) -> Result<PreparedRequest> {
    let method = reqwest_method(binding.method);
    let mut values: Vec<(&str, String)> = Vec::new();
    let mut query: Vec<(String, String)> = binding.query.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let mut headers = HeaderMap::new();
    let mut cookies = Vec::new();
    for p in &binding.params {
        let Some(v) = args.get(&p.arg).filter(|v| !v.is_null()) else {
            if p.location == ParamLocation::Path {
                return Err(Error::Arguments(format!("missing required path parameter `{}`", p.arg)));
            }
            continue;
        };
        if p.location != ParamLocation::Path && p.content_type.is_none() && encode::is_undefined(v) {
            continue;
        }
        match p.location {
            ParamLocation::Path => values.push((&p.name, encode::path_value(p, v)?)),
            ParamLocation::Query => query.extend(encode::query_pairs(p, v)),
            ParamLocation::Header => {
                let value = encode::header_value(p, v)?;
                let name = HeaderName::from_bytes(p.name.as_bytes())
                    .map_err(|_| Error::Arguments(format!("invalid header name {:?}", p.name)))?;
                let value = HeaderValue::from_str(&value).map_err(|_| {
                    Error::Arguments(format!("header parameter `{}` must be visible ASCII text", p.arg))
                })?;
                headers.append(name, value);
            }
            ParamLocation::Cookie => cookies.push(encode::cookie_pair(p, v)),
        }
    }
    // Values the document fixes; an argument of the same name wins. With a body, its own media
    // type says the Content-Type.
    for (name, value) in &binding.headers {
        let Ok(name) = HeaderName::from_bytes(name.as_bytes()) else { continue };
        if headers.contains_key(&name) || (name == reqwest::header::CONTENT_TYPE && binding.body.is_some()) {
            continue;
        }
        if let Ok(value) = HeaderValue::from_str(value) {
            headers.insert(name, value);
        }
    }
    let url = join_on(base_url, &fill_path(&binding.path, &values)?, &query)?;
    let body = match &binding.body {
        Some(b) => body(b, args)?,
        None => None,
    };
    Ok(PreparedRequest { method, url, headers, cookies, body })
}

/// Substitutes path variables (`{name}`) segment by segment, in one pass (values are
/// percent-encoded: they hold no braces). A segment that arguments turn into `.` or `..` is
/// refused: URL parsing would resolve it (even percent-encoded) and move up the path.
fn fill_path(template: &str, values: &[(&str, String)]) -> Result<String> {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    for (i, segment) in template.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        let start = out.len();
        let mut rest = segment;
        // Each `}` closes the `{` nearest before it (`{{id}}` is `{`, the value, `}`).
        while let Some(close) = rest.find('}') {
            let Some(open) = rest[..close].rfind('{') else {
                out.push_str(&rest[..=close]);
                rest = &rest[close + 1..];
                continue;
            };
            out.push_str(&rest[..open]);
            match values.iter().find(|(name, _)| *name == &rest[open + 1..close]) {
                Some((_, value)) => out.push_str(value),
                None => out.push_str(&rest[open..=close]),
            }
            rest = &rest[close + 1..];
        }
        out.push_str(rest);
        let filled = &out[start..];
        if filled != segment && (filled == "." || filled == "..") {
            return Err(Error::Arguments(format!(
                "path parameters cannot form the path segment {filled:?} (in {template})"
            )));
        }
    }
    Ok(out)
}

/// A base URL, parsed once. Request URLs are parsed relative to it when that gives what parsing
/// the whole text gives: its scheme and host are not parsed again (IDNA processing of the host
/// was a large part of a call's URL building).
#[derive(Debug, Clone)]
pub struct BaseUrl {
    /// As written (request URLs are built from this text, as always).
    text: String,
    url: reqwest::Url,
    origin: url::Origin,
    /// Where `text`'s path starts, when `text` up to there is the parsed URL's own serialization
    /// (`http://h:8080`, not `HTTP://H:80`) of an http(s) URL; `None`: whole texts are parsed.
    path_start: Option<usize>,
}

impl BaseUrl {
    /// `base`, which must be an absolute URL.
    pub fn parse(base: &str) -> Result<BaseUrl> {
        let url = reqwest::Url::parse(base).map_err(|e| Error::Config(format!("invalid base URL {base:?}: {e}")))?;
        let prefix = &url[..url::Position::BeforePath];
        let plain = matches!(url.scheme(), "http" | "https")
            && base.starts_with(prefix)
            && matches!(base.as_bytes().get(prefix.len()), None | Some(b'/' | b'?'))
            && !base.contains(['#', '\\', '\t', '\n', '\r']);
        let path_start = plain.then_some(prefix.len());
        Ok(BaseUrl { text: base.to_string(), origin: url.origin(), url, path_start })
    }

    /// The URL as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// `text` (which starts with this base's scheme and host as written) parsed: relative to the
    /// parsed base when the rest is a plain absolute path, which parses as in the whole text;
    /// otherwise the whole text. A rest that the relative parse would read otherwise (`//host`,
    /// `/\\host`, tabs or newlines, which the parser drops) takes the whole parse.
    fn parse_request_url(&self, text: &str) -> std::result::Result<reqwest::Url, url::ParseError> {
        if let Some(n) = self.path_start
            && let Some(rest) = text.get(n..)
            && text.as_bytes()[..n] == self.text.as_bytes()[..n]
            && rest.starts_with('/')
            && !rest[1..].starts_with(['/', '\\'])
            && !rest.contains(['\t', '\n', '\r'])
        {
            return reqwest::Url::options().base_url(Some(&self.url)).parse(rest);
        }
        reqwest::Url::parse(text)
    }
}

/// `base` + `path` + query; fails if the result would leave the base URL's origin.
#[cfg_attr(not(test), allow(dead_code))]
pub fn join_url(base: &str, path: &str, query: &[(String, String)]) -> Result<reqwest::Url> {
    join_on(&BaseUrl::parse(base)?, path, query)
}

/// [`join_url`] on a base URL parsed beforehand.
fn join_on(base_url: &BaseUrl, path: &str, query: &[(String, String)]) -> Result<reqwest::Url> {
    let base = base_url.as_str();
    let mut text = format!("{}{}", base.trim_end_matches('/'), path);
    // The base URL's own query (`https://x/api?version=2`) goes after the path.
    if let Some(q) = base_url.url.query() {
        text = format!("{}{}", base.split('?').next().unwrap_or(base).trim_end_matches('/'), path);
        text.push('?');
        text.push_str(q);
    }
    if !query.is_empty() {
        text.push(if text.contains('?') { '&' } else { '?' });
        text.push_str(&query.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("&"));
    }
    let url = base_url.parse_request_url(&text).map_err(|e| Error::Arguments(format!("invalid request URL: {e}")))?;
    if url.origin() != base_url.origin {
        return Err(Error::Arguments("the arguments would send the request to another host; refused".into()));
    }
    Ok(url)
}

fn body(b: &BodyBinding, args: &Map<String, Value>) -> Result<Option<PreparedBody>> {
    let media = b.media_type.to_ascii_lowercase();
    let value: Option<Value> = match &b.content {
        BodyContent::Whole { arg } => args.get(arg).cloned(),
        BodyContent::Properties { fields, extra_arg } => {
            let mut obj = Map::new();
            if let Some(Value::Object(extra)) = extra_arg.as_ref().and_then(|a| args.get(a)) {
                obj.extend(extra.clone());
            }
            for f in fields {
                if let Some(v) = args.get(&f.arg) {
                    obj.insert(f.name.clone(), v.clone());
                }
            }
            (!obj.is_empty() || b.required).then_some(Value::Object(obj))
        }
        BodyContent::Arguments => Some(Value::Object(args.clone())),
        BodyContent::Call { name } => Some(serde_json::json!({"name": name, "arguments": Value::Object(args.clone())})),
    };
    let Some(value) = value else { return Ok(None) };
    if media.starts_with("multipart/") {
        return multipart(b, &value).map(|parts| Some(PreparedBody::Multipart(parts)));
    }
    let bytes = if media.contains("json") || media.starts_with("*/*") {
        serde_json::to_vec(&value).map_err(|e| Error::Arguments(e.to_string()))?
    } else if media.starts_with("application/x-www-form-urlencoded") {
        form_urlencoded(&value).into_bytes()
    } else if is_text_media(&media) {
        encode::scalar_text(&value).into_bytes()
    } else {
        match &value {
            Value::String(s) => decode_content(s),
            other => other.to_string().into_bytes(),
        }
    };
    let content_type = if media.starts_with("*/*") { "application/json".to_string() } else { b.media_type.clone() };
    Ok(Some(PreparedBody::Bytes { content_type, bytes }))
}

pub use crate::config::media::is_text_media;

/// The config's method as reqwest's.
fn reqwest_method(m: crate::config::Method) -> reqwest::Method {
    use crate::config::Method;
    match m {
        Method::Get => reqwest::Method::GET,
        Method::Put => reqwest::Method::PUT,
        Method::Post => reqwest::Method::POST,
        Method::Delete => reqwest::Method::DELETE,
        Method::Options => reqwest::Method::OPTIONS,
        Method::Head => reqwest::Method::HEAD,
        Method::Patch => reqwest::Method::PATCH,
        Method::Trace => reqwest::Method::TRACE,
    }
}

/// Form fields: arrays repeat the key, objects are sent as JSON text.
fn form_urlencoded(value: &Value) -> String {
    let mut ser = url::form_urlencoded::Serializer::new(String::new());
    if let Value::Object(map) = value {
        for (k, v) in map {
            match v {
                Value::Array(items) => {
                    for i in items {
                        ser.append_pair(k, &encode::scalar_text(i));
                    }
                }
                Value::Null => {}
                other => {
                    ser.append_pair(k, &encode::scalar_text(other));
                }
            }
        }
    }
    ser.finish()
}

fn multipart(b: &BodyBinding, value: &Value) -> Result<Vec<Part>> {
    let Value::Object(map) = value else {
        return Err(Error::Arguments("a multipart body needs named fields".into()));
    };
    let (files, types): (Vec<&str>, Vec<(&str, Option<&str>)>) = match &b.content {
        BodyContent::Properties { fields, .. } => (
            fields.iter().filter(|f| f.file).map(|f| f.name.as_str()).collect(),
            fields.iter().map(|f| (f.name.as_str(), f.content_type.as_deref())).collect(),
        ),
        _ => (Vec::new(), Vec::new()),
    };
    let mut parts = Vec::new();
    for (name, v) in map {
        let is_file = files.contains(&name.as_str());
        let content_type = types.iter().find(|(n, _)| n == name).and_then(|(_, ct)| *ct).map(str::to_string);
        let items: Vec<&Value> = match v {
            Value::Array(items) if is_file || items.iter().all(|i| !i.is_object() && !i.is_array()) => {
                items.iter().collect()
            }
            Value::Null => Vec::new(),
            other => vec![other],
        };
        for item in items {
            let (bytes, ct) = match item {
                Value::String(s) if is_file => {
                    (decode_content(s), content_type.clone().or(Some("application/octet-stream".into())))
                }
                Value::Object(_) | Value::Array(_) => {
                    (item.to_string().into_bytes(), Some("application/json".to_string()))
                }
                other => (encode::scalar_text(other).into_bytes(), content_type.clone()),
            };
            parts.push(Part { name: name.clone(), bytes, content_type: ct, file_name: is_file.then(|| name.clone()) });
        }
    }
    Ok(parts)
}

/// The characters a part's name is sent with as they are (the URL's path-segment set): with any
/// other, it is percent-encoded as `name*=utf-8''..`.
const PATH_SEGMENT: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'<')
    .add(b'>')
    .add(b'`')
    .add(b'#')
    .add(b'?')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'%');

/// A `multipart/form-data` body (RFC 7578) of `parts` between `boundary`s, written as reqwest's
/// forms write one (a test holds them equal), without its `multipart` feature (2 packages): a name
/// outside [`PATH_SEGMENT`] percent-encoded, a file name quoted with `\` escapes.
fn multipart_body(parts: &[Part], boundary: &str) -> Result<Vec<u8>> {
    let mut body = Vec::new();
    for p in parts {
        body.extend_from_slice(format!("--{boundary}\r\nContent-Disposition: form-data; ").as_bytes());
        match std::borrow::Cow::from(percent_encoding::utf8_percent_encode(&p.name, PATH_SEGMENT)) {
            std::borrow::Cow::Borrowed(name) => body.extend_from_slice(format!("name=\"{name}\"").as_bytes()),
            std::borrow::Cow::Owned(name) => body.extend_from_slice(format!("name*=utf-8''{name}").as_bytes()),
        }
        if let Some(file) = &p.file_name {
            let quoted = file.replace('\\', "\\\\").replace('"', "\\\"").replace('\r', "\\\r").replace('\n', "\\\n");
            body.extend_from_slice(format!("; filename=\"{quoted}\"").as_bytes());
        }
        if let Some(ct) = &p.content_type {
            let media_type = ct.split(';').next().unwrap_or_default().trim();
            let valid = media_type.split_once('/').is_some_and(|(t, s)| !t.is_empty() && !s.is_empty());
            if !valid || HeaderValue::from_str(ct).is_err() {
                return Err(Error::Arguments(format!("content type {ct:?} of `{}`: not a media type", p.name)));
            }
            body.extend_from_slice(format!("\r\nContent-Type: {ct}").as_bytes());
        }
        body.extend_from_slice(b"\r\n\r\n");
        body.extend_from_slice(&p.bytes);
        body.extend_from_slice(b"\r\n");
    }
    if !parts.is_empty() {
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    }
    Ok(body)
}

/// A multipart boundary: 32 random bytes in hex, in four groups (reqwest's shape).
fn boundary() -> String {
    let mut bytes = [0u8; 32];
    // The system's generator does not fail where the server runs; a fixed boundary would still
    // be a valid one.
    let _ = ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes);
    let hex: Vec<String> = bytes.chunks(8).map(|c| c.iter().map(|b| format!("{b:02x}")).collect()).collect();
    hex.join("-")
}

/// File content from a tool argument: a `data:` URI, base64, or else the text itself.
pub fn decode_content(s: &str) -> Vec<u8> {
    let engine = base64::engine::general_purpose::STANDARD;
    if let Some(rest) = s.strip_prefix("data:")
        && let Some((meta, data)) = rest.split_once(',')
    {
        if meta.ends_with(";base64") {
            if let Ok(bytes) = engine.decode(data) {
                return bytes;
            }
        } else {
            return percent_encoding::percent_decode_str(data).collect();
        }
    }
    let compact = s.len() >= 4 && s.len().is_multiple_of(4) && !s.contains(char::is_whitespace);
    if compact && let Ok(bytes) = engine.decode(s) {
        return bytes;
    }
    s.as_bytes().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BodyField, Method, ParamBinding, ParamStyle};
    use serde_json::json;

    fn binding(params: Vec<ParamBinding>, body: Option<BodyBinding>) -> HttpBinding {
        HttpBinding {
            method: Method::Post,
            path: "/pets/{id}".into(),
            params,
            body,
            security: vec![],
            base_url: None,
            headers: Default::default(),
            query: Default::default(),
        }
    }

    fn param(arg: &str, location: ParamLocation) -> ParamBinding {
        ParamBinding {
            arg: arg.into(),
            name: arg.into(),
            location,
            style: ParamStyle::default_for(location),
            explode: location == ParamLocation::Query,
            allow_reserved: false,
            content_type: None,
        }
    }

    #[test]
    fn builds_url_headers_cookies() {
        let b = binding(
            vec![
                param("id", ParamLocation::Path),
                param("tags", ParamLocation::Query),
                param("X-Trace", ParamLocation::Header),
                param("session", ParamLocation::Cookie),
            ],
            None,
        );
        let args = json!({"id": "a b", "tags": ["x", "y"], "X-Trace": "t1", "session": "s"});
        let r = prepare("https://api.example.com/v1/", &b, args.as_object().unwrap()).unwrap();
        assert_eq!(r.url.as_str(), "https://api.example.com/v1/pets/a%20b?tags=x&tags=y");
        assert_eq!(r.headers["X-Trace"], "t1");
        assert_eq!(r.cookies, ["session=s"]);
    }

    #[test]
    fn empty_lists_and_maps_are_omitted() {
        let b = binding(
            vec![
                param("id", ParamLocation::Path),
                param("tags", ParamLocation::Query),
                param("X-Tags", ParamLocation::Header),
            ],
            None,
        );
        let r = prepare("https://x.com", &b, json!({"id": {}, "tags": [], "X-Tags": []}).as_object().unwrap()).unwrap();
        assert_eq!((r.url.as_str(), r.headers.len()), ("https://x.com/pets/", 0));
    }

    #[test]
    fn dot_segments_are_refused() {
        let b = binding(vec![param("id", ParamLocation::Path)], None);
        for (value, path) in [("", "/pets/"), ("a..b", "/pets/a..b"), ("../x", "/pets/..%2Fx")] {
            let r = prepare("https://x.com/api", &b, json!({"id": value}).as_object().unwrap()).unwrap();
            assert_eq!(r.url.path(), format!("/api{path}"), "{value:?}");
        }
        for value in ["..", "."] {
            let err = prepare("https://x.com/api", &b, json!({"id": value}).as_object().unwrap()).unwrap_err();
            assert!(matches!(&err, Error::Arguments(m) if m.contains("cannot form the path segment")), "{err}");
        }
    }

    /// Each `{name}` is its value wherever it stands in a segment; names without a value stay as
    /// written; a `}` closes the nearest `{` before it.
    #[test]
    fn path_templates_are_filled_in_one_pass() {
        let values = [("id", "7".to_string()), ("v", "x%7By%7D".to_string()), ("a.b", "q".to_string())];
        for (template, filled) in [
            ("/pets/{id}", "/pets/7"),
            ("/pets/{id}/{id}", "/pets/7/7"),
            ("/files/{id}.{v}:copy", "/files/7.x%7By%7D:copy"),
            ("/{{id}}", "/{7}"),
            ("/{a.b}/{unknown}/{", "/q/{unknown}/{"),
            ("/}{id}}", "/}7}"),
            ("/x{id", "/x{id"),
            ("", ""),
        ] {
            assert_eq!(fill_path(template, &values).unwrap(), filled, "{template}");
        }
        assert!(fill_path("/a/{id}", &[("id", "..".into())]).is_err());
        assert!(fill_path("/a/{id}{v}", &[("id", ".".into()), ("v", String::new())]).is_err());
        assert_eq!(fill_path("/a/../{id}", &[("id", "b".into())]).unwrap(), "/a/../b", "the template's own");
    }

    #[test]
    fn host_cannot_change() {
        assert!(join_url("https://api.example.com", "@evil.com/x", &[]).is_err());
        let b = binding(vec![param("id", ParamLocation::Path)], None);
        let r = prepare("https://api.example.com", &b, json!({"id": "//evil.com"}).as_object().unwrap()).unwrap();
        assert_eq!(r.url.host_str(), Some("api.example.com"));
        assert_eq!(
            join_url("https://x.com/api?v=2", "/p", &[("a".into(), "1".into())]).unwrap().as_str(),
            "https://x.com/api/p?v=2&a=1"
        );
    }

    /// A URL parsed relative to the parsed base is the URL the whole text parses to (or both fail
    /// alike), for paths and queries of every troublesome character, on bases of every shape.
    #[test]
    fn relative_parse_agrees_with_whole_parse() {
        let bases = [
            "http://127.0.0.1:8080",
            "https://api.example.com/v1",
            "https://api.example.com/v1/",
            "https://bücher.example/api?v=2",
            "http://[::1]:9/a%20b",
            "HTTP://Example.COM:80/x",
            "https://u:p@h.example/",
        ];
        let alphabet: Vec<&str> = vec![
            "/", "//", "\\", ".", "..", "%2e", "%2E", "?", "#", "@", ":", "a", "é", " ", "%", "\t", "\n", "&", "=",
            "[", "|",
        ];
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for base in bases {
            let parsed = BaseUrl::parse(base).unwrap();
            for _ in 0..3000 {
                // Half of them absolute paths, which most bases parse relatively.
                let mut path = if next() % 2 == 0 { String::from("/") } else { String::new() };
                for _ in 0..(next() % 8) {
                    path.push_str(alphabet[(next() % alphabet.len() as u64) as usize]);
                }
                let query: Vec<(String, String)> =
                    if next() % 3 == 0 { vec![("k".into(), alphabet[(next() % 8) as usize].into())] } else { vec![] };
                let fast = join_on(&parsed, &path, &query).map(|u| u.to_string()).map_err(|e| e.to_string());
                // The whole text, parsed as before the base was kept parsed.
                let whole = {
                    let mut unparsed = parsed.clone();
                    unparsed.path_start = None;
                    join_on(&unparsed, &path, &query).map(|u| u.to_string()).map_err(|e| e.to_string())
                };
                assert_eq!(fast, whole, "base {base:?}, path {path:?}, query {query:?}");
            }
        }
    }

    #[test]
    fn bodies() {
        let fields = |names: &[&str]| BodyContent::Properties {
            fields: names
                .iter()
                .map(|n| BodyField { arg: n.to_string(), name: n.to_string(), content_type: None, file: *n == "file" })
                .collect(),
            extra_arg: None,
        };
        let form = BodyBinding {
            media_type: "application/x-www-form-urlencoded".into(),
            required: true,
            content: fields(&["name", "tags"]),
        };
        let args = json!({"name": "Rex & co", "tags": ["a", "b"]});
        let Some(PreparedBody::Bytes { bytes, .. }) = body(&form, args.as_object().unwrap()).unwrap() else { panic!() };
        assert_eq!(String::from_utf8(bytes).unwrap(), "name=Rex+%26+co&tags=a&tags=b");

        let mp = BodyBinding {
            media_type: "multipart/form-data".into(),
            required: true,
            content: fields(&["file", "note"]),
        };
        let args = json!({"file": "aGVsbG8=", "note": "hi"});
        let Some(PreparedBody::Multipart(parts)) = body(&mp, args.as_object().unwrap()).unwrap() else { panic!() };
        assert_eq!(parts[0].bytes, b"hello");
        assert_eq!(parts[0].file_name.as_deref(), Some("file"));
        assert_eq!(parts[1].bytes, b"hi");

        let raw = BodyBinding {
            media_type: "application/octet-stream".into(),
            required: true,
            content: BodyContent::Whole { arg: "body".into() },
        };
        let Some(PreparedBody::Bytes { bytes, content_type }) =
            body(&raw, json!({"body": "AAEC"}).as_object().unwrap()).unwrap()
        else {
            panic!()
        };
        assert_eq!((bytes, content_type.as_str()), (vec![0, 1, 2], "application/octet-stream"));
    }

    /// The multipart bodies are reqwest's forms, byte for byte.
    #[tokio::test]
    async fn multipart_bodies_are_reqwests() {
        use futures::TryStreamExt as _;
        let part = |name: &str, bytes: &[u8], content_type: Option<&str>, file_name: Option<&str>| Part {
            name: name.into(),
            bytes: bytes.to_vec(),
            content_type: content_type.map(str::to_string),
            file_name: file_name.map(str::to_string),
        };
        let parts = [
            part("note", b"hi", None, None),
            part("file", &[0, 1, 2], Some("application/octet-stream"), Some("file")),
            part("données été", b"{}", Some("application/json"), None),
            part("a\"b/c", b"x", Some("text/plain; charset=utf-8"), Some("a\"b\\c\r\nd")),
        ];
        let mut form = reqwest::multipart::Form::new();
        for p in &parts {
            let mut part = reqwest::multipart::Part::bytes(p.bytes.clone());
            if let Some(ct) = &p.content_type {
                part = part.mime_str(ct).unwrap();
            }
            if let Some(f) = &p.file_name {
                part = part.file_name(f.clone());
            }
            form = form.part(p.name.clone(), part);
        }
        let sep = form.boundary().to_string();
        let theirs: Vec<u8> = form.into_stream().map_ok(|b| b.to_vec()).try_concat().await.unwrap();
        assert_eq!(String::from_utf8_lossy(&multipart_body(&parts, &sep).unwrap()), String::from_utf8_lossy(&theirs));
        assert_eq!(multipart_body(&[], &sep).unwrap(), b"");
        let bad = part("f", b"", Some("not a type"), None);
        assert!(multipart_body(&[bad], &sep).unwrap_err().to_string().contains("not a media type"));
        let b = boundary();
        assert_eq!((b.len(), b.matches('-').count()), (67, 3));
        assert_ne!(b, boundary());
    }

    #[test]
    fn file_content_decoding() {
        assert_eq!(decode_content("plain text"), b"plain text");
        assert_eq!(decode_content("data:text/plain,hi%20there"), b"hi there");
        assert_eq!(decode_content("data:application/octet-stream;base64,AAE="), vec![0, 1]);
        assert_eq!(decode_content("aGk="), b"hi");
    }
}
