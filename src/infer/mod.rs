//! Schemas inferred from examples: what a Postman collection or a HAR file shows of a parameter,
//! a body or a response, merged into one JSON Schema (docs/inputs.md, "How inference works").
//!
//! - Every example is merged: the types seen (an integer and a fraction make a `number`; `null`
//!   beside another type makes it nullable; two kinds of value make an `anyOf`).
//! - Objects: a property is `required` when it is present in every object seen at that place.
//! - Arrays: the items of every array seen at that place are merged into one `items`.
//! - Strings: a format (`date-time`, `date`, `uuid`, `email`, `uri`) when every string seen
//!   there has it ([`formats`]).
//! - `enum` only on strong evidence ([`Strings::enumeration`]): at least [`ENUM_MIN_SEEN`]
//!   strings seen, at most [`ENUM_MAX_VALUES`] distinct ones, each seen at least twice, none
//!   with a format, none longer than [`ENUM_MAX_LEN`] characters.
//! - Postman's placeholders (`<long>`, `<string>`, `<dateTime>`...) say a type, not a value.

mod formats;

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// An enumeration needs at least this many strings seen.
pub(crate) const ENUM_MIN_SEEN: usize = 4;
/// An enumeration has at most this many values.
pub(crate) const ENUM_MAX_VALUES: usize = 8;
/// No value of an enumeration is longer than this.
pub(crate) const ENUM_MAX_LEN: usize = 40;
/// Distinct strings remembered at one place (past it, no enumeration is inferred there).
const MAX_DISTINCT: usize = 64;

/// What the examples show at one place of a value.
#[derive(Debug, Clone, Default)]
pub(crate) struct Evidence {
    /// Values seen here, `null` included (absent ones are not).
    seen: usize,
    nulls: usize,
    bools: usize,
    integers: usize,
    fractions: usize,
    strings: Strings,
    arrays: usize,
    items: Option<Box<Evidence>>,
    objects: usize,
    properties: BTreeMap<String, Evidence>,
}

/// The strings seen at one place.
#[derive(Debug, Clone, Default)]
pub(crate) struct Strings {
    count: usize,
    /// Each distinct value and how often it was seen (placeholders are not values).
    values: BTreeMap<String, usize>,
    overflow: bool,
    /// The formats every string seen has, as bits over `formats::FORMATS`.
    formats: Option<u8>,
}

impl Strings {
    fn add(&mut self, text: &str, formats: u8, is_value: bool) {
        self.count += 1;
        self.formats = Some(self.formats.map_or(formats, |f| f & formats));
        if !is_value {
            return;
        }
        if let Some(n) = self.values.get_mut(text) {
            *n += 1;
        } else if self.values.len() < MAX_DISTINCT {
            self.values.insert(text.to_string(), 1);
        } else {
            self.overflow = true;
        }
    }

    /// The values of an enumeration, when the evidence is strong (see the module's doc).
    fn enumeration(&self) -> Option<Vec<&str>> {
        let seen: usize = self.values.values().sum();
        let strong = !self.overflow
            && seen >= ENUM_MIN_SEEN
            && self.values.len() <= ENUM_MAX_VALUES
            && self.values.values().all(|n| *n >= 2)
            && self.format().is_none()
            && self.values.keys().all(|v| !v.trim().is_empty() && v.chars().count() <= ENUM_MAX_LEN);
        strong.then(|| self.values.keys().map(String::as_str).collect())
    }

    fn format(&self) -> Option<&'static str> {
        self.formats.and_then(formats::first)
    }
}

/// Whether `text` has `format` (one of `date-time`, `date`, `uuid`, `email`, `uri`).
pub(crate) fn has_format(text: &str, format: &str) -> bool {
    formats::formats_of(text) & formats::bit(format) != 0
}

/// What a Postman placeholder (`<long>`) says of a value: its type and format.
fn placeholder(text: &str) -> Option<(&'static str, Option<&'static str>)> {
    let name = text.strip_prefix('<')?.strip_suffix('>')?;
    Some(match name {
        "long" | "integer" | "int32" | "int64" => ("integer", None),
        "number" | "double" | "float" => ("number", None),
        "boolean" => ("boolean", None),
        "string" | "byte" | "binary" | "password" => ("string", None),
        "dateTime" | "date-time" => ("string", Some("date-time")),
        "date" => ("string", Some("date")),
        "uuid" => ("string", Some("uuid")),
        "email" => ("string", Some("email")),
        "uri" | "url" => ("string", Some("uri")),
        _ => return None,
    })
}

/// Whether a value holds a Postman placeholder anywhere (then it is no example to show).
pub(crate) fn has_placeholder(value: &Value) -> bool {
    match value {
        Value::String(s) => placeholder(s).is_some(),
        Value::Array(items) => items.iter().any(has_placeholder),
        Value::Object(map) => map.values().any(has_placeholder),
        _ => false,
    }
}

/// A value written as text (a query parameter, a path segment, a form field) read as the JSON
/// value it most likely stands for: `true`/`false`, an integer (without leading zeros, which
/// codes keep), a finite number, else the text.
pub(crate) fn scalar_of_text(text: &str) -> Value {
    match text {
        "true" => return Value::Bool(true),
        "false" => return Value::Bool(false),
        _ => {}
    }
    let digits = text.strip_prefix('-').unwrap_or(text);
    let plain = !digits.is_empty() && (digits == "0" || !digits.starts_with('0'));
    if plain
        && digits.bytes().all(|b| b.is_ascii_digit())
        && let Ok(n) = text.parse::<i64>()
    {
        return json!(n);
    }
    let numeric = plain && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') && digits.matches('.').count() == 1;
    if numeric
        && !digits.starts_with('.')
        && !digits.ends_with('.')
        && let Some(n) = text.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
    {
        return Value::Number(n);
    }
    Value::String(text.to_string())
}

impl Evidence {
    /// Evidence from these examples.
    pub(crate) fn of<'a>(examples: impl IntoIterator<Item = &'a Value>) -> Evidence {
        let mut e = Evidence::default();
        for v in examples {
            e.add(v);
        }
        e
    }

    /// Merges one more example.
    pub(crate) fn add(&mut self, value: &Value) {
        self.seen += 1;
        match value {
            Value::Null => self.nulls += 1,
            Value::Bool(_) => self.bools += 1,
            Value::Number(n) if n.is_i64() || n.is_u64() => self.integers += 1,
            Value::Number(_) => self.fractions += 1,
            Value::String(s) => match placeholder(s) {
                Some(("integer", _)) => self.integers += 1,
                Some(("number", _)) => self.fractions += 1,
                Some(("boolean", _)) => self.bools += 1,
                Some((_, format)) => self.strings.add(s, format.map_or(0, formats::bit), false),
                None => self.strings.add(s, formats::formats_of(s), true),
            },
            Value::Array(items) => {
                self.arrays += 1;
                let evidence = self.items.get_or_insert_with(Box::default);
                for item in items {
                    evidence.add(item);
                }
            }
            Value::Object(map) => {
                self.objects += 1;
                for (key, v) in map {
                    self.properties.entry(key.clone()).or_default().add(v);
                }
            }
        }
    }

    /// The JSON Schema the evidence supports; `{}` when nothing was seen.
    pub(crate) fn schema(&self) -> Value {
        let mut kinds: Vec<Value> = Vec::new();
        if self.bools > 0 {
            kinds.push(json!({"type": "boolean"}));
        }
        if self.fractions > 0 {
            kinds.push(json!({"type": "number"}));
        } else if self.integers > 0 {
            kinds.push(json!({"type": "integer"}));
        }
        if self.strings.count > 0 {
            kinds.push(self.string_schema());
        }
        if self.arrays > 0 {
            let items = self.items.as_ref().map_or_else(|| json!({}), |e| e.schema());
            kinds.push(json!({"type": "array", "items": items}));
        }
        if self.objects > 0 {
            kinds.push(self.object_schema());
        }
        match (kinds.len(), self.nulls > 0) {
            (0, true) => json!({"type": "null"}),
            (0, false) => json!({}),
            (1, nullable) => {
                let mut one = kinds.remove(0);
                if nullable && let Some(t) = one.get("type").cloned() {
                    one["type"] = json!([t, "null"]);
                    if let Some(Value::Array(values)) = one.get_mut("enum") {
                        values.push(Value::Null);
                    }
                }
                one
            }
            (_, nullable) => {
                if nullable {
                    kinds.push(json!({"type": "null"}));
                }
                json!({"anyOf": kinds})
            }
        }
    }

    fn string_schema(&self) -> Value {
        let mut s = Map::new();
        s.insert("type".into(), json!("string"));
        if let Some(format) = self.strings.format() {
            s.insert("format".into(), json!(format));
        } else if let Some(values) = self.strings.enumeration() {
            s.insert("enum".into(), json!(values));
        }
        Value::Object(s)
    }

    fn object_schema(&self) -> Value {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (name, e) in &self.properties {
            properties.insert(name.clone(), e.schema());
            if e.seen == self.objects {
                required.push(json!(name));
            }
        }
        let mut s = Map::new();
        s.insert("type".into(), json!("object"));
        if !properties.is_empty() {
            s.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            s.insert("required".into(), Value::Array(required));
        }
        Value::Object(s)
    }
}

/// The schema of these examples (see the module's doc).
pub(crate) fn schema_of<'a>(examples: impl IntoIterator<Item = &'a Value>) -> Value {
    Evidence::of(examples).schema()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_types_required_and_formats() {
        let a = json!({"id": 1, "name": "Ada", "at": "2024-05-01T10:00:00Z", "tags": ["x"]});
        let b = json!({"id": 2.5, "at": "2024-06-01T10:00:00Z", "tags": [], "note": null});
        let s = schema_of([&a, &b]);
        assert_eq!(
            s,
            json!({"type": "object", "properties": {
                "at": {"type": "string", "format": "date-time"},
                "id": {"type": "number"},
                "name": {"type": "string"},
                "note": {"type": "null"},
                "tags": {"type": "array", "items": {"type": "string"}}
            }, "required": ["at", "id", "tags"]})
        );
    }

    #[test]
    fn nullable_and_mixed() {
        assert_eq!(schema_of([&json!("a"), &json!(null)]), json!({"type": ["string", "null"]}));
        assert_eq!(schema_of([&json!("a"), &json!(1)]), json!({"anyOf": [{"type": "integer"}, {"type": "string"}]}));
        assert_eq!(schema_of(std::iter::empty()), json!({}));
    }

    #[test]
    fn enum_needs_strong_evidence() {
        let two = [json!("open"), json!("closed")];
        assert_eq!(schema_of(&two), json!({"type": "string"}));
        let repeated: Vec<Value> = ["open", "closed", "open", "closed", "open"].iter().map(|s| json!(s)).collect();
        assert_eq!(schema_of(&repeated), json!({"type": "string", "enum": ["closed", "open"]}));
        let once_more: Vec<Value> = ["open", "closed", "open", "closed", "merged"].iter().map(|s| json!(s)).collect();
        assert_eq!(schema_of(&once_more), json!({"type": "string"}), "a value seen once: no enum");
    }

    #[test]
    fn placeholders_are_types() {
        assert_eq!(schema_of([&json!("<long>")]), json!({"type": "integer"}));
        assert_eq!(schema_of([&json!("<dateTime>")]), json!({"type": "string", "format": "date-time"}));
        assert!(has_placeholder(&json!({"a": ["<string>"]})));
    }

    #[test]
    fn text_is_read_as_scalars() {
        assert_eq!(scalar_of_text("10"), json!(10));
        assert_eq!(scalar_of_text("-3"), json!(-3));
        assert_eq!(scalar_of_text("007"), json!("007"));
        assert_eq!(scalar_of_text("2.5"), json!(2.5));
        assert_eq!(scalar_of_text("true"), json!(true));
        assert_eq!(scalar_of_text("1.2.3"), json!("1.2.3"));
        assert_eq!(scalar_of_text(""), json!(""));
    }
}
