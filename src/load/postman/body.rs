//! A Postman request body (`raw`, `urlencoded`, `formdata`, `file`, `graphql`) as a recorded body:
//! its media type and its value, with `{{variables}}` substituted where they may be.

use serde_json::{Map, Value, json};

use super::vars::Vars;
use crate::infer::scalar_of_text;
use crate::load::recorded::{Body, bare_media_type, is_json};

/// Stands for a value that may not be shown (a secret or unknown variable): a string of no known
/// value, which inference reads as a type.
const UNKNOWN: &str = "<string>";

/// The body of a request, given the media type its `Content-Type` header names, if any. `Err`:
/// JSON that cannot be read even with its variables substituted (the message says why).
pub(crate) fn read(body: &Value, content_type: Option<&str>, vars: &Vars) -> Result<Option<Body>, String> {
    if body.get("disabled").and_then(Value::as_bool) == Some(true) {
        return Ok(None);
    }
    let declared = content_type.map(bare_media_type);
    let mode = body.get("mode").and_then(Value::as_str).unwrap_or("raw");
    let made = match mode {
        "raw" => {
            let raw = body.get("raw").and_then(Value::as_str).unwrap_or("");
            if raw.trim().is_empty() {
                return Ok(None);
            }
            let language = body.pointer("/options/raw/language").and_then(Value::as_str);
            let media_type = declared.unwrap_or_else(|| by_language(language, raw).to_string());
            if is_json(&media_type) {
                let text = substitute_json(raw, vars);
                let value =
                    serde_json::from_str::<Value>(&text).map_err(|e| format!("its JSON body cannot be read: {e}"))?;
                Body { media_type, value: Some(value), files: Vec::new() }
            } else {
                Body { media_type, value: None, files: Vec::new() }
            }
        }
        "urlencoded" => form(body.get("urlencoded"), "application/x-www-form-urlencoded", vars),
        "formdata" => form(body.get("formdata"), "multipart/form-data", vars),
        "file" => Body {
            media_type: declared.unwrap_or_else(|| "application/octet-stream".into()),
            value: None,
            files: Vec::new(),
        },
        "graphql" => {
            let query = body.pointer("/graphql/query").and_then(Value::as_str).unwrap_or("");
            let variables = body
                .pointer("/graphql/variables")
                .and_then(Value::as_str)
                .and_then(|v| serde_json::from_str::<Value>(&substitute_json(v, vars)).ok());
            let mut value = json!({"query": query});
            if let Some(v) = variables {
                value["variables"] = v;
            }
            Body { media_type: "application/json".into(), value: Some(value), files: Vec::new() }
        }
        _ => return Ok(None),
    };
    Ok(Some(made))
}

fn by_language(language: Option<&str>, raw: &str) -> &'static str {
    match language {
        Some("json") => "application/json",
        Some("xml") => "application/xml",
        Some("html") => "text/html",
        Some("javascript") => "application/javascript",
        Some(_) => "text/plain",
        None if matches!(raw.trim_start().chars().next(), Some('{' | '[')) => "application/json",
        None => "text/plain",
    }
}

/// A form's fields as an object: each enabled field's value read as a scalar (a file's as a
/// string of unknown value), its files named.
fn form(fields: Option<&Value>, media_type: &str, vars: &Vars) -> Body {
    let mut object = Map::new();
    let mut files = Vec::new();
    for f in fields.and_then(Value::as_array).into_iter().flatten() {
        let Some(key) = f.get("key").and_then(Value::as_str) else { continue };
        if f.get("disabled").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if f.get("type").and_then(Value::as_str) == Some("file") {
            files.push(key.to_string());
            object.insert(key.to_string(), json!(UNKNOWN));
            continue;
        }
        let text = f.get("value").and_then(Value::as_str).unwrap_or("");
        let value = match vars.resolve(text).complete() {
            Some(t) => scalar_of_text(&t),
            None => json!(UNKNOWN),
        };
        object.insert(key.to_string(), value);
    }
    Body { media_type: media_type.to_string(), value: Some(Value::Object(object)), files }
}

/// JSON text with its `{{variables}}` substituted: inside a string by the value's text (escaped),
/// outside by the value as JSON when it is JSON, else as a string; a variable without a value
/// that may be shown by a string of unknown value.
pub(crate) fn substitute_json(text: &str, vars: &Vars) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if !escaped
            && rest.starts_with("{{")
            && let Some(end) = rest[2..].find("}}")
        {
            let name = rest[2..2 + end].trim();
            let value = vars.value(name);
            match (in_string, value) {
                (true, Some(v)) => {
                    let quoted = Value::String(v.to_string()).to_string();
                    out.push_str(&quoted[1..quoted.len() - 1]);
                }
                (true, None) => out.push_str(UNKNOWN),
                (false, Some(v)) => match serde_json::from_str::<Value>(v) {
                    Ok(json) => out.push_str(&json.to_string()),
                    Err(_) => out.push_str(&Value::String(v.to_string()).to_string()),
                },
                (false, None) => out.push_str(&format!("\"{UNKNOWN}\"")),
            }
            rest = &rest[2 + end + 2..];
            continue;
        }
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variables_in_json() {
        let vars = Vars::read(&json!({"variable": [{"key": "n", "value": "3"}, {"key": "who", "value": "Ada \"A\""}]}));
        let text = r#"{"n": {{n}}, "who": "{{who}}", "t": {{token}}, "s": "x{{token}}"}"#;
        let v: Value = serde_json::from_str(&substitute_json(text, &vars)).unwrap();
        assert_eq!(v, json!({"n": 3, "who": "Ada \"A\"", "t": "<string>", "s": "x<string>"}));
    }

    #[test]
    fn modes() {
        let vars = Vars::default();
        let b = read(&json!({"mode": "formdata", "formdata": [{"key": "file", "type": "file", "src": "/tmp/a"}, {"key": "n", "value": "2"}]}), None, &vars)
            .unwrap()
            .unwrap();
        assert_eq!((b.media_type.as_str(), b.files.clone()), ("multipart/form-data", vec!["file".to_string()]));
        assert_eq!(b.value, Some(json!({"file": "<string>", "n": 2})));
        let b = read(&json!({"mode": "urlencoded", "urlencoded": [{"key": "a", "value": "x"}]}), None, &vars)
            .unwrap()
            .unwrap();
        assert_eq!(b.media_type, "application/x-www-form-urlencoded");
        assert!(
            read(&json!({"mode": "raw", "raw": "{bad", "options": {"raw": {"language": "json"}}}), None, &vars)
                .is_err()
        );
    }
}
