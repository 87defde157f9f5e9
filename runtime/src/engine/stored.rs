//! A tool's schemas as the engine holds them: compact JSON text, parsed when a page of
//! `tools/list`, a `describe_tools` answer, a search hit or a tool's first call needs the tree.
//!
//! A tree of `serde_json::Value`s costs several times its text (a B-tree node of eleven slots per
//! object, a `String` and a `Value` per member): Microsoft Graph's 11,422 tools hold 25 MB of
//! schemas as text and most of the engine's memory as trees (docs/performance.md). Equal
//! schemas share one text ([`SchemaTexts`]): many operations of an API take the same arguments.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Map, Value};

/// A schema held as its compact JSON text, as `serde_json` writes a map (members in key order),
/// which parses back to the same map.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredSchema(Arc<str>);

impl StoredSchema {
    /// `schema` on its own (no other tool's text to share).
    pub fn new(schema: &Map<String, Value>) -> StoredSchema {
        StoredSchema(text_of(schema).into())
    }

    /// The schema's tree, parsed from its text.
    pub fn parse(&self) -> Map<String, Value> {
        // The text is serde_json's own writing of a map (with `float_roundtrip`, numbers come
        // back as they were): it cannot fail to parse.
        serde_json::from_str(&self.0).unwrap_or_default()
    }

    /// The schema's compact JSON text.
    pub fn text(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for StoredSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The texts of a catalogue's schemas, each once: a schema equal to one already stored shares
/// its text.
#[derive(Default)]
pub(crate) struct SchemaTexts(HashSet<Arc<str>>);

impl SchemaTexts {
    /// A schema written by [`text_of`], stored: sharing the text of an equal one stored before,
    /// or copied into an allocation of its own.
    pub(crate) fn store(&mut self, text: &str) -> StoredSchema {
        if let Some(shared) = self.0.get(text) {
            return StoredSchema(shared.clone());
        }
        let text: Arc<str> = text.into();
        self.0.insert(text.clone());
        StoredSchema(text)
    }
}

/// A schema as the engine stores it: `serde_json`'s compact writing of the map.
pub(crate) fn text_of(schema: &Map<String, Value>) -> String {
    // Writing a map of strings to values into a `String` cannot fail.
    serde_json::to_string(schema).unwrap_or_else(|_| "{}".to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn parses_back_to_the_same_schema() {
        let schema = object(json!({
            "type": "object",
            "properties": {"ratio": {"type": "number", "minimum": 0.1, "maximum": 1e300},
                           "n": {"type": "integer", "maximum": 18446744073709551615u64, "minimum": -9007199254740993i64},
                           "s": {"type": "string", "default": "é\u{1F600}\"\\"}},
            "required": ["ratio"]
        }));
        assert_eq!(StoredSchema::new(&schema).parse(), schema);
    }

    #[test]
    fn floats_come_back_bit_for_bit() {
        for x in [0.1_f64, 2.2250738585072014e-308, 5e-324, 1.7976931348623157e308, 0.30000000000000004, 123456.789e-7]
        {
            let schema = object(json!({"minimum": x}));
            let back = StoredSchema::new(&schema).parse();
            assert_eq!(back["minimum"].as_f64().map(f64::to_bits), Some(x.to_bits()), "{x}");
        }
    }

    #[test]
    fn equal_schemas_share_one_text() {
        let mut texts = SchemaTexts::default();
        let mut store = |v: Value| texts.store(&text_of(&object(v)));
        let a = store(json!({"type": "object", "properties": {"id": {"type": "string"}}}));
        let b = store(json!({"properties": {"id": {"type": "string"}}, "type": "object"}));
        let c = store(json!({"type": "object"}));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert!(!Arc::ptr_eq(&a.0, &c.0));
    }
}
