//! Bytes to `serde_json::Value`: JSON when the text starts with `{` or `[`, YAML otherwise.

use serde_json::{Map, Number, Value};

use crate::error::{Error, Location, Result};

/// Parses a document. `origin` names it in errors.
pub fn parse_document(bytes: &[u8], origin: &str) -> Result<Value> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| Error::NotUtf8 {
        location: line_of_offset(bytes, e.valid_up_to(), origin),
        offset: e.valid_up_to(),
    })?;
    let trimmed = text.trim_start();
    if trimmed.is_empty() {
        return Err(Error::Empty { location: Location::doc(origin) });
    }
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        serde_json::from_str(text).map_err(|e| Error::Syntax {
            location: Location::at_line(origin, e.line(), e.column()),
            format: "JSON",
            message: strip_position(&e.to_string()),
        })
    } else {
        parse_yaml(text, origin)
    }
}

fn parse_yaml(text: &str, origin: &str) -> Result<Value> {
    let mut yaml: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| {
        let location = match e.location() {
            Some(l) => Location::at_line(origin, l.line(), l.column()),
            None => Location::doc(origin),
        };
        Error::Syntax { location, format: "YAML", message: strip_position(&e.to_string()) }
    })?;
    yaml.apply_merge().map_err(|e| Error::Syntax {
        location: Location::doc(origin),
        format: "YAML",
        message: format!("merge key `<<`: {e}"),
    })?;
    Ok(yaml_to_json(yaml))
}

/// YAML allows non-string keys (`200:` for a response code); JSON does not. Keys become strings.
fn yaml_to_json(v: serde_yaml::Value) -> Value {
    use serde_yaml::Value as Y;
    match v {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(b),
        Y::Number(n) => {
            if let Some(i) = n.as_i64() {
                Value::Number(i.into())
            } else if let Some(u) = n.as_u64() {
                Value::Number(u.into())
            } else {
                n.as_f64().and_then(Number::from_f64).map(Value::Number).unwrap_or(Value::Null)
            }
        }
        Y::String(s) => Value::String(s),
        Y::Sequence(seq) => Value::Array(seq.into_iter().map(yaml_to_json).collect()),
        Y::Mapping(map) => {
            let mut out = Map::new();
            for (k, v) in map {
                out.insert(yaml_key(k), yaml_to_json(v));
            }
            Value::Object(out)
        }
        Y::Tagged(t) => yaml_to_json(t.value),
    }
}

fn yaml_key(k: serde_yaml::Value) -> String {
    use serde_yaml::Value as Y;
    match k {
        Y::String(s) => s,
        Y::Null => "null".to_string(),
        Y::Bool(b) => b.to_string(),
        Y::Number(n) => n.to_string(),
        other => serde_json::to_string(&yaml_to_json(other)).unwrap_or_default(),
    }
}

/// serde's messages end in "at line L column C"; the location is reported separately.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

fn line_of_offset(bytes: &[u8], offset: usize, origin: &str) -> Box<Location> {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let column = before.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
    Location::at_line(origin, line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_and_yaml() {
        assert_eq!(parse_document(b"  {\"a\": 1}", "x").unwrap()["a"], 1);
        let v = parse_document(b"openapi: 3.0.0\nresponses:\n  200:\n    description: ok\n", "x").unwrap();
        assert_eq!(v["responses"]["200"]["description"], "ok");
    }

    #[test]
    fn json_error_has_line() {
        let err = parse_document(b"{\n  \"a\": 1,\n  \"b\": \n", "f.json").unwrap_err().to_string();
        assert!(err.starts_with("f.json:4:"), "{err}");
        assert!(err.contains("invalid JSON"), "{err}");
    }

    #[test]
    fn yaml_error_has_line() {
        let err = parse_document(b"a: 1\nb: [1, 2\nc: 3\n", "f.yaml").unwrap_err().to_string();
        assert!(err.starts_with("f.yaml:"), "{err}");
        assert!(err.contains("invalid YAML"), "{err}");
    }

    #[test]
    fn not_utf8_and_empty() {
        let err = parse_document(b"{\"a\": \"caf\xe9\"}", "f.json").unwrap_err();
        assert!(matches!(err, Error::NotUtf8 { offset: 10, .. }), "{err}");
        assert!(matches!(parse_document(b" \n ", "f").unwrap_err(), Error::Empty { .. }));
    }

    #[test]
    fn merge_keys() {
        let v = parse_document(b"base: &b {x: 1}\nder:\n  <<: *b\n  y: 2\n", "x").unwrap();
        assert_eq!(v["der"]["x"], 1);
    }
}
