//! References inside a tool schema. A tool's schemas are self-contained: every `$ref` in them names
//! a subschema of the same schema (`#/$defs/<name>`, `#`, any JSON pointer to a schema position,
//! or a `$anchor`), which a client that resolves or validates them can follow. [`resolve`] follows
//! one; [`unresolved_refs`] lists those that name nothing, the check that tests and the corpus
//! sweep run on every advertised schema.
//!
//! Both go by position (see [`keywords::holds`]): a `$ref` is a reference only where a schema is,
//! never inside data (`default`, `enum`, `examples`, `x-*`) nor as a property name; and a pointer
//! resolves only to a schema, never into data or to a map of them.

use serde_json::{Map, Value};

use crate::keywords::{self, Holds};

/// A `$ref` that names nothing in the schema it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedRef {
    /// The JSON pointer of the schema object that holds the `$ref` (`#/properties/a`).
    pub at: String,
    /// The reference as written.
    pub reference: String,
}

impl std::fmt::Display for UnresolvedRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "$ref {:?} at {}", self.reference, self.at)
    }
}

/// Every `$ref` of `schema` (at schema positions) that does not resolve within it, in document
/// order. A subschema with an `$id` starts a resource of its own, against which the references
/// inside it resolve; a reference to another document is unresolved (a tool schema has none).
pub fn unresolved_refs(schema: &Map<String, Value>) -> Vec<UnresolvedRef> {
    let root = Value::Object(schema.clone());
    let mut out = Vec::new();
    walk(&root, &root, "#", &mut out);
    out
}

fn walk(resource: &Value, schema: &Value, at: &str, out: &mut Vec<UnresolvedRef>) {
    let Value::Object(obj) = schema else { return };
    let resource = if starts_resource(obj) { schema } else { resource };
    if let Some(Value::String(reference)) = obj.get("$ref")
        && resolve(resource, reference).is_none()
    {
        out.push(UnresolvedRef { at: at.to_string(), reference: reference.clone() });
    }
    for (key, value) in obj {
        let key_at = format!("{at}/{}", escape(key));
        match (keywords::holds(key), value) {
            (Holds::Schema | Holds::Schemas, Value::Array(list)) => {
                for (i, s) in list.iter().enumerate() {
                    walk(resource, s, &format!("{key_at}/{i}"), out);
                }
            }
            (Holds::Schema, one) => walk(resource, one, &key_at, out),
            (Holds::NamedSchemas, Value::Object(map)) => {
                for (name, s) in map {
                    walk(resource, s, &format!("{key_at}/{}", escape(name)), out);
                }
            }
            _ => {}
        }
    }
}

/// Whether a schema object starts a schema resource of its own: an `$id` that is not a bare
/// fragment (drafts before 2019-09 wrote anchors so).
fn starts_resource(obj: &Map<String, Value>) -> bool {
    obj.get("$id").and_then(Value::as_str).is_some_and(|id| !id.starts_with('#'))
}

/// The subschema of `resource` (a schema resource's root) that `reference` names: `#`, a JSON
/// pointer fragment (see [`resolve_pointer`]), or a plain-name fragment that a `$anchor` of the
/// resource declares. `None` for anything else, a reference to another document included.
pub fn resolve<'a>(resource: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = decoded_fragment(reference)?;
    if fragment.is_empty() {
        return Some(resource);
    }
    if fragment.starts_with('/') {
        return resolve_pointer(resource.as_object()?, reference);
    }
    anchored(resource, &fragment)
}

/// The subschema below `root` that a JSON pointer reference (`#/$defs/Node`) names: the fragment
/// percent-decoded, `~0` and `~1` unescaped, and every step a schema position, to a schema.
/// `None` for any other reference (`#` itself is the root).
pub fn resolve_pointer<'a>(root: &'a Map<String, Value>, reference: &str) -> Option<&'a Value> {
    let fragment = decoded_fragment(reference)?;
    let mut tokens = fragment.strip_prefix('/')?.split('/').map(unescape);
    let first = tokens.next()?;
    let mut at = step(root, &first, &mut tokens)?;
    while let Some(key) = tokens.next() {
        at = step(at.as_object()?, &key, &mut tokens)?;
    }
    is_schema(at).then_some(at)
}

/// The fragment of a same-document reference, percent-decoded; `None` for another document.
fn decoded_fragment(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    percent_encoding::percent_decode_str(fragment).decode_utf8().ok().map(|f| f.into_owned())
}

/// One step of a pointer from a schema object: its keyword `key`, and the name or index after it
/// when the keyword holds several subschemas.
fn step<'a>(schema: &'a Map<String, Value>, key: &str, tokens: &mut impl Iterator<Item = String>) -> Option<&'a Value> {
    let value = schema.get(key)?;
    match (keywords::holds(key), value) {
        (Holds::Schema | Holds::Schemas, Value::Array(list)) => list.get(tokens.next()?.parse::<usize>().ok()?),
        (Holds::Schema, one) => Some(one),
        (Holds::NamedSchemas, Value::Object(map)) => map.get(&tokens.next()?),
        _ => None,
    }
}

/// The subschema of a resource that declares `$anchor: name` (not looking into nested resources).
fn anchored<'a>(resource: &'a Value, name: &str) -> Option<&'a Value> {
    let mut pending = vec![resource];
    while let Some(schema) = pending.pop() {
        let Value::Object(obj) = schema else { continue };
        if obj.get("$anchor").and_then(Value::as_str) == Some(name) {
            return Some(schema);
        }
        let nested = |s: &&Value| !(s.as_object().is_some_and(starts_resource));
        pending.extend(keywords::subschemas(obj).filter(nested));
    }
    None
}

fn is_schema(v: &Value) -> bool {
    v.is_object() || v.is_boolean()
}

/// A JSON pointer token as written (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A JSON pointer token as meant (RFC 6901: `~1` first, then `~0`).
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn unresolved(schema: Value) -> Vec<String> {
        unresolved_refs(schema.as_object().unwrap()).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn defs_and_pointers_resolve() {
        let schema = json!({"type": "object", "$defs": {"Node": {"type": "object"}, "a/b~c": {}, "sp ace": {}},
            "properties": {
                "node": {"$ref": "#/$defs/Node"}, "root": {"$ref": "#"},
                "escaped": {"$ref": "#/$defs/a~1b~0c"}, "encoded": {"$ref": "#/$defs/sp%20ace"},
                "pointer": {"$ref": "#/properties/node"}, "list": {"items": [{"$ref": "#/properties/list/items/0"}]}}});
        assert_eq!(unresolved(schema), Vec::<String>::new());
    }

    #[test]
    fn missing_targets_are_reported_with_their_place() {
        let schema = json!({"type": "object", "$defs": {"String": {"type": "string"}},
            "properties": {"required": {"properties": {"flag": {"$ref": "#/$defs/Boolean"}}},
                           "ext": {"$ref": "other.json#/$defs/String"}}});
        assert_eq!(
            unresolved(schema),
            [
                "$ref \"other.json#/$defs/String\" at #/properties/ext",
                "$ref \"#/$defs/Boolean\" at #/properties/required/properties/flag",
            ]
        );
    }

    #[test]
    fn pointers_lead_through_schema_positions_only() {
        let schema = json!({"type": "object", "default": {"a": {"type": "string"}},
            "properties": {"a": {"type": "string", "enum": ["x"]}},
            "$defs": {"D": {"type": "string"}}});
        for reference in ["#/default/a", "#/properties", "#/$defs", "#/properties/a/enum/0", "#/properties/a/type"] {
            assert!(resolve(&schema, reference).is_none(), "{reference}");
        }
        assert_eq!(resolve(&schema, "#/properties/a"), Some(&schema["properties"]["a"]));
    }

    #[test]
    fn refs_in_data_and_property_names_are_no_references() {
        let schema = json!({"type": "object", "default": {"$ref": "#/$defs/Nope"},
            "examples": [{"$ref": "#/nope"}], "x-ref": {"$ref": "#/nope"}, "enum": [{"$ref": "#/nope"}],
            "properties": {"$ref": {"type": "string"}, "default": {"const": {"$ref": "#/nope"}}}});
        assert_eq!(unresolved(schema), Vec::<String>::new());
    }

    #[test]
    fn ids_scope_references_and_anchors_name_schemas() {
        let schema = json!({"type": "object", "properties": {
            "inner": {"$id": "https://example.com/inner", "$defs": {"X": {}}, "properties": {"x": {"$ref": "#/$defs/X"}}},
            "outer": {"$ref": "#/$defs/X"}, "named": {"$ref": "#here"}, "lost": {"$ref": "#nowhere"}},
            "$defs": {"H": {"$anchor": "here"}}});
        assert_eq!(
            unresolved(schema),
            ["$ref \"#nowhere\" at #/properties/lost", "$ref \"#/$defs/X\" at #/properties/outer"]
        );
    }
}
