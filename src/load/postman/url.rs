//! A Postman request's URL: its server, its path as a template (`:id` and `{{var}}` segments are
//! parameters) and its query parameters. Either form is read: the structured one (`host`, `path`,
//! `query`, `variable`) or the `raw` text, split by the `url` crate.

use serde_json::Value;

use super::text_of;
use super::vars::{Vars, names_in, whole_variable};

/// A path segment: a literal, or a parameter with the value recorded for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    Literal(String),
    Param { name: String, value: Option<String>, description: Option<String> },
}

/// A query parameter as recorded.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryParam {
    pub key: String,
    pub value: Option<String>,
    pub disabled: bool,
    pub description: Option<String>,
}

/// A request's URL, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct RequestUrl {
    /// The server (base URL); `None` when its variables have no value.
    pub server: Option<String>,
    /// Variables of the server that have no value.
    pub missing: Vec<String>,
    pub segments: Vec<Segment>,
    pub query: Vec<QueryParam>,
}

impl RequestUrl {
    /// The path template: `/pets/{petId}`.
    pub(crate) fn template(&self) -> String {
        let parts: Vec<String> = self
            .segments
            .iter()
            .map(|s| match s {
                Segment::Literal(l) => l.clone(),
                Segment::Param { name, .. } => format!("{{{name}}}"),
            })
            .collect();
        format!("/{}", parts.join("/"))
    }
}

/// Reads a URL (`request.url`): an error message when it cannot be read as one.
pub(crate) fn read(url: &Value, vars: &Vars) -> Result<RequestUrl, String> {
    match url {
        Value::String(raw) => from_raw(raw, &[], vars),
        Value::Object(obj) if obj.contains_key("host") || obj.contains_key("path") => from_parts(url, vars),
        Value::Object(obj) => match obj.get("raw").and_then(Value::as_str) {
            Some(raw) => from_raw(raw, variables(url), vars),
            None => Err("the URL has neither `raw` nor `host` and `path`".into()),
        },
        _ => Err("the URL is neither a string nor an object".into()),
    }
}

fn variables(url: &Value) -> &[Value] {
    url.get("variable").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn from_parts(url: &Value, vars: &Vars) -> Result<RequestUrl, String> {
    let host = match url.get("host") {
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join("."),
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let protocol = url.get("protocol").and_then(Value::as_str);
    let port = url.get("port").and_then(Value::as_str).map(|p| format!(":{p}")).unwrap_or_default();
    let mut out = RequestUrl::default();
    if !host.is_empty() {
        let resolved = vars.resolve(&host);
        out.missing = resolved.missing.clone();
        if let Some(host) = resolved.complete() {
            let full = if host.contains("://") || host.starts_with('/') {
                format!("{host}{port}")
            } else {
                format!("{}://{host}{port}", protocol.unwrap_or("https"))
            };
            out.server = Some(check_server(&full)?);
        }
    }
    let path: Vec<String> = match url.get("path") {
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o.get("value").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
            .collect(),
        Some(Value::String(s)) => s.split('/').map(str::to_string).collect(),
        _ => Vec::new(),
    };
    out.segments = segments(&path, variables(url), vars);
    for q in url.get("query").and_then(Value::as_array).into_iter().flatten() {
        let Some(key) = q.get("key").and_then(Value::as_str) else { continue };
        out.query.push(QueryParam {
            key: key.to_string(),
            value: q.get("value").and_then(Value::as_str).map(str::to_string),
            disabled: q.get("disabled").and_then(Value::as_bool).unwrap_or(false),
            description: q.get("description").and_then(text_of),
        });
    }
    Ok(out)
}

/// A raw URL: a leading `{{variable}}` is the server; otherwise the `url` crate splits it.
fn from_raw(raw: &str, declared: &[Value], vars: &Vars) -> Result<RequestUrl, String> {
    let raw = raw.trim();
    let mut out = RequestUrl::default();
    let rest = if raw.starts_with("{{") {
        let end = raw.find("}}").ok_or("a `{{` without its `}}`")? + 2;
        let resolved = vars.resolve(&raw[..end]);
        out.missing = resolved.missing.clone();
        if let Some(server) = resolved.complete() {
            out.server = Some(check_server(&server)?);
        }
        raw[end..].to_string()
    } else {
        let with_scheme = if raw.contains("://") { raw.to_string() } else { format!("https://{raw}") };
        let parsed = url::Url::parse(&with_scheme).map_err(|e| format!("not a URL ({e})"))?;
        let port = parsed.port().map(|p| format!(":{p}")).unwrap_or_default();
        out.server = Some(format!("{}://{}{port}", parsed.scheme(), parsed.host_str().unwrap_or("")));
        let start = with_scheme.find("://").map_or(0, |i| i + 3);
        let after_host = with_scheme[start..].find('/').map_or("", |i| &with_scheme[start + i..]);
        after_host.to_string()
    };
    // The path and query of the rest, split by the `url` crate on a stand-in origin.
    let parsed = url::Url::parse(&format!("http://host.invalid/{}", rest.trim_start_matches('/')))
        .map_err(|e| format!("not a URL path ({e})"))?;
    let path: Vec<String> = parsed.path_segments().into_iter().flatten().map(decode).collect();
    out.segments = segments(&path, declared, vars);
    out.query = parsed
        .query_pairs()
        .map(|(k, v)| QueryParam {
            key: k.into_owned(),
            value: Some(v.into_owned()),
            disabled: false,
            description: None,
        })
        .collect();
    Ok(out)
}

fn decode(segment: &str) -> String {
    percent_encoding::percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

/// A server URL checked with the `url` crate (a relative one, `/v1`, is taken as it is), without
/// a trailing `/`.
fn check_server(server: &str) -> Result<String, String> {
    let server = server.trim();
    if !server.starts_with('/') {
        url::Url::parse(server).map_err(|e| format!("its server is not a URL ({e})"))?;
    }
    let trimmed = server.trim_end_matches('/');
    Ok(if trimmed.is_empty() { "/".to_string() } else { trimmed.to_string() })
}

fn segments(path: &[String], declared: &[Value], vars: &Vars) -> Vec<Segment> {
    let declared_value = |name: &str| -> (Option<String>, Option<String>) {
        let found = declared.iter().find(|v| v.get("key").and_then(Value::as_str) == Some(name));
        let value = found.and_then(|v| v.get("value")).and_then(|v| match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        });
        let description = found.and_then(|v| v.get("description")).and_then(text_of);
        (value, description)
    };
    path.iter()
        .filter(|s| !s.is_empty())
        .map(|s| {
            if let Some(name) = s.strip_prefix(':').filter(|n| !n.is_empty()) {
                let (value, description) = declared_value(name);
                let value =
                    value.and_then(|v| if names_in(&v).is_empty() { Some(v) } else { vars.resolve(&v).complete() });
                return Segment::Param { name: name.to_string(), value, description };
            }
            if let Some(name) = whole_variable(s) {
                return Segment::Param {
                    name: name.to_string(),
                    value: vars.value(name).map(str::to_string),
                    description: None,
                };
            }
            match names_in(s).first() {
                None => Segment::Literal(s.clone()),
                Some(first) => match vars.resolve(s).complete() {
                    Some(text) => Segment::Literal(text),
                    None => Segment::Param { name: first.clone(), value: None, description: None },
                },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Vars {
        Vars::read(
            &json!({"variable": [{"key": "baseUrl", "value": "https://api.example.com/v1"}, {"key": "id", "value": "7"}]}),
        )
    }

    #[test]
    fn structured() {
        let url = json!({"raw": "{{baseUrl}}/pets/:petId?limit=5", "host": ["{{baseUrl}}"], "path": ["pets", ":petId"],
                         "query": [{"key": "limit", "value": "5"}], "variable": [{"key": "petId", "value": "12", "description": "The pet"}]});
        let u = read(&url, &vars()).unwrap();
        assert_eq!(u.server.as_deref(), Some("https://api.example.com/v1"));
        assert_eq!(u.template(), "/pets/{petId}");
        assert_eq!(
            u.segments[1],
            Segment::Param { name: "petId".into(), value: Some("12".into()), description: Some("The pet".into()) }
        );
        assert_eq!(u.query[0].key, "limit");
    }

    #[test]
    fn raw() {
        let u = read(&json!("https://x.example.com:8443/a/{{id}}/b?q=1"), &vars()).unwrap();
        assert_eq!(u.server.as_deref(), Some("https://x.example.com:8443"));
        assert_eq!(u.template(), "/a/{id}/b");
        assert_eq!(u.query[0].value.as_deref(), Some("1"));
        let u = read(&json!("{{baseUrl}}/users/:id"), &vars()).unwrap();
        assert_eq!((u.server.as_deref(), u.template().as_str()), (Some("https://api.example.com/v1"), "/users/{id}"));
        assert!(read(&json!("http://exa mple.com/"), &vars()).is_err());
        assert!(read(&json!(42), &vars()).is_err());
        let u = read(&json!("{{host}}/a"), &vars()).unwrap();
        assert_eq!((u.server, u.missing), (None, vec!["host".to_string()]));
    }
}
