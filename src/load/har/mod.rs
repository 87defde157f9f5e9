//! HAR 1.2 (a browser's, mitmproxy's or Charles's recording) read into the recorded model
//! (`super::recorded`), which becomes an OpenAPI 3.1 document.
//!
//! Requests are grouped into operations by host, method and path template (`template`: from the
//! paths, and where they tell nothing more, from the shape of each request and its response,
//! `shape_of`). Static
//! assets (scripts, styles, images, fonts, pages) and CORS preflights are left out, and so are
//! hosts other than the one most requests went to, unless `--host` names them. Recorded
//! credentials (`Authorization`, API-key headers and query parameters, session cookies) become
//! security schemes; their values are kept only to scrub them from every example, so that no
//! output shows them.

mod template;

use std::collections::BTreeMap;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::recorded::secrets::{self, Schemes};
use super::recorded::{self, Api, Body, Call, Operation, Place, Reply};
use crate::diag::{DiagKind, Diagnostic};
use crate::error::{Error, Location, Result};
use crate::infer::scalar_of_text;
use crate::ir::Method;

/// File extensions of static assets (lower case).
const ASSET_EXTENSIONS: [&str; 20] = [
    "js", "mjs", "css", "map", "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif", "woff", "woff2", "ttf",
    "otf", "eot", "html", "htm", "wasm",
];

/// Stands for a value that may not be shown.
const SCRUBBED: &str = "<string>";

/// One request of the recording that is kept.
struct Kept<'a> {
    origin: String,
    host: String,
    method: Method,
    segments: Vec<String>,
    url: url::Url,
    entry: &'a Value,
}

/// Converts a HAR file to OpenAPI 3.1. `hosts`: the hosts to keep (`--host`); empty: the one
/// most requests went to.
pub(crate) fn convert(root: &Value, origin: &str, hosts: &[String]) -> Result<(Value, Vec<Diagnostic>)> {
    let entries =
        root.pointer("/log/entries").and_then(Value::as_array).filter(|e| !e.is_empty()).ok_or_else(|| {
            Error::Invalid {
                location: Location::at_pointer(origin, "#/log/entries"),
                message: "the HAR file has no entries: record some requests to the API, then export again".into(),
            }
        })?;
    let mut warnings = Vec::new();
    let (mut kept, assets) = requests(entries, origin)?;
    let chosen = choose_hosts(&kept, hosts);
    let others: Vec<String> = {
        let mut o: Vec<String> = kept.iter().filter(|k| !chosen.contains(&k.host)).map(|k| k.host.clone()).collect();
        o.sort();
        o.dedup();
        o
    };
    kept.retain(|k| chosen.contains(&k.host));
    if !others.is_empty() {
        warnings.push(Diagnostic::new(
            DiagKind::Unsupported,
            "#/log/entries",
            format!("requests to other hosts are left out: {} (--host keeps them)", others.join(", ")),
        ));
    }
    if kept.is_empty() {
        return Err(Error::Invalid {
            location: Location::at_pointer(origin, "#/log/entries"),
            message: format!(
                "no API request to keep: {assets} static assets and preflights{}",
                if hosts.is_empty() { String::new() } else { format!(", none to {}", hosts.join(", ")) }
            ),
        });
    }
    let mut api = Api { title: title_of(&kept), source: "HAR file", ..Api::default() };
    let mut schemes = Schemes::default();
    let mut secrets_seen: Vec<String> = Vec::new();
    let mut by_host: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, k) in kept.iter().enumerate() {
        by_host.entry(&k.host).or_default().push(i);
    }
    let mut origins: Vec<(String, usize)> = Vec::new();
    for members in by_host.values() {
        let paths: Vec<Vec<String>> = members.iter().map(|i| kept[*i].segments.clone()).collect();
        let shapes: Vec<template::Shape> = members.iter().map(|i| shape_of(&kept[*i])).collect();
        let vars = template::variable_positions(&paths, &shapes);
        for (m, i) in members.iter().enumerate() {
            let k = &kept[*i];
            let (path, names) = template::template(&k.segments, &vars[m]);
            let (call, credentials) = call_of(k, &vars[m], &names, &mut schemes, &mut secrets_seen);
            let security = (!credentials.is_empty()).then(|| vec![credentials]);
            match origins.iter_mut().find(|(o, _)| *o == k.origin) {
                Some((_, n)) => *n += 1,
                None => origins.push((k.origin.clone(), 1)),
            }
            let server = Some(k.origin.clone());
            let make = || Operation {
                summary: None,
                description: None,
                tags: Vec::new(),
                server,
                security: security.clone(),
                docs: BTreeMap::new(),
                declared: Vec::new(),
                calls: Vec::new(),
            };
            api.record(k.method, &path, make, call);
            if let Some(op) = api.operations.get_mut(&(path, k.method)) {
                merge_security(op, security);
            }
        }
    }
    let main =
        origins.iter().fold(None::<&(String, usize)>, |b, o| if b.is_none_or(|b| o.1 > b.1) { Some(o) } else { b });
    if let Some((main, _)) = main {
        api.servers = vec![main.clone()];
        for op in api.operations.values_mut() {
            if op.server.as_deref() == Some(main.as_str()) {
                op.server = None;
            }
        }
    }
    api.schemes = schemes.schemes;
    secrets_seen.retain(|s| s.len() >= 4);
    scrub_api(&mut api, &secrets_seen);
    Ok((api.to_openapi(), warnings))
}

/// Requests of different calls of one operation may carry different credentials: the operation
/// takes any of them (each call's set is an alternative).
fn merge_security(op: &mut Operation, security: Option<Vec<Vec<String>>>) {
    let Some(new) = security else { return };
    let sets = op.security.get_or_insert_with(Vec::new);
    for set in new {
        if !sets.contains(&set) {
            sets.push(set);
        }
    }
}

/// The requests worth keeping (http(s), not assets nor preflights), and how many were not.
fn requests<'a>(entries: &'a [Value], origin: &str) -> Result<(Vec<Kept<'a>>, usize)> {
    let mut kept = Vec::new();
    let mut assets = 0;
    for (index, entry) in entries.iter().enumerate() {
        let at = format!("#/log/entries/{index}/request");
        let raw = entry.pointer("/request/url").and_then(Value::as_str).ok_or_else(|| Error::Invalid {
            location: Location::at_pointer(origin, format!("{at}/url")),
            message: "the request has no URL".into(),
        })?;
        let url = url::Url::parse(raw).map_err(|e| Error::Invalid {
            location: Location::at_pointer(origin, format!("{at}/url")),
            message: format!("the request's URL cannot be read: not a URL ({e})"),
        })?;
        let method_text = entry.pointer("/request/method").and_then(Value::as_str).unwrap_or("GET");
        let method = Method::parse(method_text);
        if !matches!(url.scheme(), "http" | "https")
            || is_asset(&url, entry)
            || matches!(method, None | Some(Method::Options))
        {
            assets += 1;
            continue;
        }
        let Some(method) = method else { continue };
        let Some(host) = url.host_str() else { continue };
        let host = match url.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        let origin = format!("{}://{host}", url.scheme());
        let segments = url
            .path_segments()
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .map(|s| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned())
            .collect();
        kept.push(Kept { origin, host, method, segments, url, entry });
    }
    Ok((kept, assets))
}

fn is_asset(url: &url::Url, entry: &Value) -> bool {
    let last = url.path_segments().and_then(|mut s| s.next_back()).unwrap_or("");
    let ext = last.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    if ext.is_some_and(|e| ASSET_EXTENSIONS.contains(&e.as_str())) {
        return true;
    }
    let mime = entry.pointer("/response/content/mimeType").and_then(Value::as_str).map(recorded::bare_media_type);
    mime.is_some_and(|m| {
        m.starts_with("image/")
            || m.starts_with("font/")
            || m.starts_with("video/")
            || m.starts_with("audio/")
            || m == "text/css"
            || m == "text/html"
            || m.contains("javascript")
    })
}

/// The hosts kept: those `--host` names (a name without a port matches every port), else the
/// one most requests went to (the first on a tie).
fn choose_hosts(kept: &[Kept<'_>], hosts: &[String]) -> Vec<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for k in kept {
        match counts.iter_mut().find(|(h, _)| *h == k.host) {
            Some((_, n)) => *n += 1,
            None => counts.push((k.host.clone(), 1)),
        }
    }
    if !hosts.is_empty() {
        let wanted = |h: &str| {
            hosts.iter().any(|w| {
                w.eq_ignore_ascii_case(h) || h.split(':').next().is_some_and(|name| w.eq_ignore_ascii_case(name))
            })
        };
        return counts.into_iter().map(|(h, _)| h).filter(|h| wanted(h)).collect();
    }
    let best =
        counts.iter().fold(None::<&(String, usize)>, |b, c| if b.is_none_or(|b| c.1 > b.1) { Some(c) } else { b });
    best.map(|(h, _)| vec![h.clone()]).unwrap_or_default()
}

fn title_of(kept: &[Kept<'_>]) -> String {
    let mut hosts: Vec<&str> = kept.iter().map(|k| k.host.as_str()).collect();
    hosts.dedup();
    hosts.first().map_or_else(|| "API".to_string(), |h| h.to_string())
}

/// One request as a call, and the names of the schemes its credentials are kept under. Every
/// credential value is added to `secret_values`.
fn call_of(
    k: &Kept<'_>,
    vars: &[bool],
    names: &[String],
    schemes: &mut Schemes,
    secret_values: &mut Vec<String>,
) -> (Call, Vec<String>) {
    let mut call = Call::default();
    let mut credentials = Vec::new();
    let params = k.segments.iter().zip(vars).filter(|(_, v)| **v).map(|(s, _)| s);
    for (value, name) in params.zip(names) {
        call.params.push((Place::Path, name.clone(), Some(scalar_of_text(value))));
    }
    for (key, value) in k.url.query_pairs() {
        if secrets::is_key_query(&key) {
            credentials.push(schemes.add(secrets::api_key(&key, "query")));
            secret_values.push(value.into_owned());
        } else {
            call.params.push((Place::Query, key.into_owned(), Some(scalar_of_text(&value))));
        }
    }
    let request = &k.entry["request"];
    for h in request.get("headers").and_then(Value::as_array).into_iter().flatten() {
        let (Some(name), Some(value)) = (h.get("name").and_then(Value::as_str), h.get("value").and_then(Value::as_str))
        else {
            continue;
        };
        if let Some(c) = secrets::of_header(name, value) {
            credentials.push(schemes.add(c));
            secret_values.push(value.to_string());
            secret_values.extend(value.split_whitespace().skip(1).map(str::to_string));
        } else if name.eq_ignore_ascii_case("cookie") {
            for pair in value.split(';') {
                let Some((cookie, v)) = pair.split_once('=') else { continue };
                secret_values.push(v.trim().to_string());
                if secrets::is_session_cookie(cookie.trim()) {
                    credentials.push(schemes.add(secrets::api_key(cookie.trim(), "cookie")));
                }
            }
        } else if !secrets::is_transport_header(name) && name.to_ascii_lowercase().starts_with("x-") {
            // A custom header's recorded value is never shown: it may be a token of some kind.
            call.params.push((Place::Header, name.to_string(), None));
        }
    }
    for c in request.get("cookies").and_then(Value::as_array).into_iter().flatten() {
        if let Some(v) = c.get("value").and_then(Value::as_str) {
            secret_values.push(v.to_string());
        }
    }
    credentials.sort();
    credentials.dedup();
    call.body = body_of(request.get("postData"));
    call.replies.extend(reply_of(k.entry.get("response")));
    (call, credentials)
}

/// What a request carried besides its path, to tell two calls of one operation from calls of
/// two (`template`, rule 4): its method, query parameter names, body keys, and the response's
/// status and shape.
fn shape_of(k: &Kept<'_>) -> template::Shape {
    let body = body_of(k.entry.pointer("/request/postData"));
    let body_keys: Vec<&str> = match body.as_ref().and_then(|b| b.value.as_ref()) {
        Some(Value::Object(map)) => map.keys().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    let reply = reply_of(k.entry.get("response"));
    let status = reply.as_ref().map_or(0, |r| r.status);
    let response = reply.as_ref().and_then(|r| r.value.as_ref()).map_or_else(String::new, |v| json_shape(v, 0));
    let mut body_keys = body_keys;
    body_keys.sort_unstable();
    template::Shape {
        signature: format!("{} {} {status} {response}", k.method.as_upper(), body_keys.join(",")),
        query: k.url.query_pairs().map(|(name, _)| name.into_owned()).collect(),
        success: (200..300).contains(&status),
        telling: response.contains(':'),
    }
}

/// A JSON value's shape: an object's keys and their values' shapes down to `depth` 1 (an array
/// by its first item's), types below.
fn json_shape(value: &Value, depth: usize) -> String {
    match value {
        Value::Object(map) if depth <= 1 => {
            let mut keys: Vec<String> = map.iter().map(|(k, v)| format!("{k}:{}", json_shape(v, depth + 1))).collect();
            keys.sort_unstable();
            format!("{{{}}}", keys.join(","))
        }
        Value::Array(items) => format!("[{}]", items.first().map_or_else(String::new, |v| json_shape(v, depth))),
        Value::Object(_) => "object".into(),
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "boolean".into(),
        Value::Null => "null".into(),
    }
}

fn body_of(post: Option<&Value>) -> Option<Body> {
    let post = post?;
    let media_type = recorded::bare_media_type(post.get("mimeType").and_then(Value::as_str).unwrap_or(""));
    let params = post.get("params").and_then(Value::as_array).filter(|p| !p.is_empty());
    if let Some(params) = params {
        let mut object = Map::new();
        let mut files = Vec::new();
        for p in params {
            let Some(name) = p.get("name").and_then(Value::as_str) else { continue };
            if p.get("fileName").is_some() {
                files.push(name.to_string());
                object.insert(name.to_string(), json!(SCRUBBED));
            } else {
                object.insert(name.to_string(), scalar_of_text(p.get("value").and_then(Value::as_str).unwrap_or("")));
            }
        }
        let media_type = if media_type.is_empty() { "application/x-www-form-urlencoded".into() } else { media_type };
        return Some(Body { media_type, value: Some(Value::Object(object)), files });
    }
    let text = post.get("text").and_then(Value::as_str).unwrap_or("");
    if text.is_empty() {
        return None;
    }
    if media_type == "application/x-www-form-urlencoded" {
        let object =
            url::form_urlencoded::parse(text.as_bytes()).map(|(k, v)| (k.into_owned(), scalar_of_text(&v))).collect();
        return Some(Body { media_type, value: Some(Value::Object(object)), files: Vec::new() });
    }
    let value = if recorded::is_json(&media_type) { serde_json::from_str(text).ok() } else { None };
    Some(Body { media_type, value, files: Vec::new() })
}

fn reply_of(response: Option<&Value>) -> Option<Reply> {
    let response = response?;
    let status =
        response.get("status").and_then(Value::as_u64).and_then(|s| u16::try_from(s).ok()).filter(|s| *s >= 100)?;
    let content = response.get("content");
    let media_type = content
        .and_then(|c| c.get("mimeType"))
        .and_then(Value::as_str)
        .map(recorded::bare_media_type)
        .filter(|m| !m.is_empty());
    let text = content.and_then(|c| c.get("text")).and_then(Value::as_str).unwrap_or("");
    let decoded = if content.and_then(|c| c.get("encoding")).and_then(Value::as_str) == Some("base64") {
        base64::engine::general_purpose::STANDARD.decode(text.trim()).ok().and_then(|b| String::from_utf8(b).ok())
    } else {
        Some(text.to_string())
    };
    let value = match (&media_type, decoded) {
        (Some(m), Some(t)) if recorded::is_json(m) => serde_json::from_str(&t).ok(),
        _ => None,
    };
    let description = response.get("statusText").and_then(Value::as_str).map(str::trim).filter(|t| !t.is_empty());
    Some(Reply { status, description: description.map(str::to_string), media_type, value })
}

/// Every example value of the API with the recorded credentials taken out: a string that holds
/// one becomes a string of unknown value.
fn scrub_api(api: &mut Api, secret_values: &[String]) {
    if secret_values.is_empty() {
        return;
    }
    for op in api.operations.values_mut() {
        for call in &mut op.calls {
            for (_, _, v) in &mut call.params {
                if let Some(v) = v {
                    scrub(v, secret_values);
                }
            }
            if let Some(Body { value: Some(v), .. }) = &mut call.body {
                scrub(v, secret_values);
            }
            for r in &mut call.replies {
                if let Some(v) = &mut r.value {
                    scrub(v, secret_values);
                }
            }
        }
    }
}

fn scrub(value: &mut Value, secret_values: &[String]) {
    match value {
        Value::String(s) if secret_values.iter().any(|secret| s.contains(secret.as_str())) => *s = SCRUBBED.into(),
        Value::Array(items) => items.iter_mut().for_each(|v| scrub(v, secret_values)),
        Value::Object(map) => {
            // A key may be a secret too (a map keyed by tokens): such members are dropped.
            map.retain(|k, _| !secret_values.iter().any(|secret| k.contains(secret.as_str())));
            map.values_mut().for_each(|v| scrub(v, secret_values));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A HAR whose entries are (method, path, request body, response body).
    fn har(entries: &[(&str, &str, Option<&str>, &str)]) -> Value {
        let entries: Vec<Value> = entries
            .iter()
            .map(|(method, path, body, response)| {
                let mut request =
                    json!({"method": method, "url": format!("https://api.example.com{path}"), "headers": []});
                if let Some(body) = body {
                    request["postData"] = json!({"mimeType": "application/json", "text": body});
                }
                json!({
                    "request": request,
                    "response": {"status": 200, "content": {"mimeType": "application/json", "text": response}},
                })
            })
            .collect();
        json!({"log": {"version": "1.2", "entries": entries}})
    }

    fn paths(root: &Value) -> Vec<String> {
        let Ok((doc, _)) = convert(root, "test.har", &[]) else { return Vec::new() };
        doc["paths"].as_object().map(|p| p.keys().cloned().collect()).unwrap_or_default()
    }

    /// Plain words answered alike are values of one parameter.
    #[test]
    fn words_answered_alike_are_values() {
        let team = r#"{"name": "x", "members": [{"id": 1}]}"#;
        let root = har(&[("GET", "/api/teams/acme", None, team), ("GET", "/api/teams/globex", None, team)]);
        assert_eq!(paths(&root), ["/api/teams/{team}"]);
    }

    /// The same body keys with empty answers say nothing: the words stay operations.
    #[test]
    fn same_bodies_with_empty_answers_stay_operations() {
        let body = Some(r#"{"type": "x"}"#);
        let root = har(&[("POST", "/api/config/schedules", body, "{}"), ("POST", "/api/config/variables", body, "{}")]);
        assert_eq!(paths(&root), ["/api/config/schedules", "/api/config/variables"]);
    }

    #[test]
    fn shapes_go_one_level_down() {
        let v = json!({"data": [{"id": 1, "user": {"name": "x"}}], "total": 1});
        assert_eq!(json_shape(&v, 0), "{data:[{id:number,user:object}],total:number}");
    }
}
