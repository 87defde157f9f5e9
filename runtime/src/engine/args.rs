//! Arguments as models send them. Models routinely send `null` for arguments they leave out, and
//! OpenAI's strict mode requires it (every property required, optional ones nullable). For a
//! property that is not required and whose schema does not allow `null`, `null` means absent: it
//! is dropped before validation and before the request, at any depth. A required property's
//! `null` is left for validation to refuse.

use serde_json::{Map, Value};

use crate::config::refs;

/// Drops the `null`s that mean "absent" from `args`, following `schema` (the tool's full input
/// schema; `$ref`s into its own `$defs` are followed). Returns how many were dropped.
pub fn drop_absent_nulls(schema: &Map<String, Value>, args: &mut Map<String, Value>) -> usize {
    drop_in_object(schema, schema, args, 0)
}

/// The top-level arguments in `args` that `schema` does not declare, each with the declared name
/// closest to it (edit distance, case-insensitive; `None` when nothing is close). A tool whose
/// binding drops what it does not place must refuse these: an argument renamed by the API
/// (`filter` -> `where`) would otherwise be lost without a word.
pub fn unknown_arguments(schema: &Map<String, Value>, args: &Map<String, Value>) -> Vec<(String, Option<String>)> {
    let props = schema.get("properties").and_then(Value::as_object);
    let declared = |k: &str| props.is_some_and(|p| p.contains_key(k));
    args.keys()
        .filter(|k| !declared(k))
        .map(|k| (k.clone(), props.and_then(|p| closest(k, p.keys().map(String::as_str)))))
        .collect()
}

/// The name among `names` closest to `wanted`, if it is close enough to be a misspelling or a
/// rename that kept most letters.
fn closest<'a>(wanted: &str, names: impl Iterator<Item = &'a str>) -> Option<String> {
    let ranked = by_closeness(wanted, names.map(|n| (n, n)));
    ranked.first().filter(|(score, _)| *score >= 0.5).map(|(_, n)| n.to_string())
}

/// `items` closest to `wanted` first, each with its similarity (normalized Damerau-Levenshtein
/// of the lower-case texts, 0 to 1); equals keep their order. What every "did you mean" of the
/// engine ranks by: argument names, enum values, tool names.
pub(crate) fn by_closeness<'a, T>(wanted: &str, items: impl IntoIterator<Item = (T, &'a str)>) -> Vec<(f64, T)> {
    let wanted = wanted.to_lowercase();
    let mut scored: Vec<(f64, T)> = items
        .into_iter()
        .map(|(item, text)| (strsim::normalized_damerau_levenshtein(&wanted, &text.to_lowercase()), item))
        .collect();
    // A stable sort: equals stay in the order given.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored
}

/// What a call says of its unknown arguments, for the model to call again.
pub fn unknown_text(unknown: &[(String, Option<String>)]) -> String {
    let each: Vec<String> = unknown
        .iter()
        .map(|(name, close)| match close {
            Some(c) => format!("unknown argument `{name}`; did you mean `{c}`?"),
            None => format!("unknown argument `{name}`"),
        })
        .collect();
    each.join("; ")
}

/// Values an enum error lists in full; a longer list names its closest values only.
const ENUM_LISTED: usize = 20;
/// Closest values a long enum's error names.
const ENUM_CLOSEST: usize = 5;

/// What a value outside its schema's `enum` is told: the allowed values, the closest to `value`
/// first (edit distance, case-insensitive); all of them when there are at most [`ENUM_LISTED`],
/// else the [`ENUM_CLOSEST`] closest and how many more there are. A model that wrote `failed`
/// reads `failure` first, not after twelve others.
pub fn enum_text(value: &Value, options: &[Value]) -> String {
    let text = |v: &Value| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string());
    let texts: Vec<String> = options.iter().map(text).collect();
    let ranked = by_closeness(&text(value), options.iter().zip(texts.iter().map(String::as_str)));
    let shown = if options.len() <= ENUM_LISTED { options.len() } else { ENUM_CLOSEST };
    let names: Vec<String> = ranked.iter().take(shown).map(|(_, o)| o.to_string()).collect();
    let more = options.len() - shown;
    let tail = if more > 0 { format!(", and {more} more") } else { String::new() };
    format!("{value} is not one of the allowed values: {}{tail}", names.join(", "))
}

/// Deep enough for any real schema; a guard against reference cycles meeting a deep value.
const MAX_DEPTH: usize = 64;

fn drop_in_object(
    root: &Map<String, Value>,
    schema: &Map<String, Value>,
    obj: &mut Map<String, Value>,
    depth: usize,
) -> usize {
    if depth > MAX_DEPTH {
        return 0;
    }
    let schema = resolve(root, schema);
    let required: Vec<&str> =
        schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    let props = schema.get("properties").and_then(Value::as_object);
    let mut dropped = 0;
    let absent: Vec<String> = obj
        .iter()
        .filter(|(k, v)| v.is_null() && !required.contains(&k.as_str()))
        .filter(|(k, _)| props.and_then(|p| p.get(k.as_str())).is_none_or(|s| !allows_null(root, s, 0)))
        .map(|(k, _)| k.clone())
        .collect();
    for k in absent {
        obj.remove(&k);
        dropped += 1;
    }
    let Some(props) = props else { return dropped };
    for (k, v) in obj.iter_mut() {
        if let Some(Value::Object(sub)) = props.get(k) {
            dropped += drop_in_value(root, sub, v, depth + 1);
        }
    }
    dropped
}

fn drop_in_value(root: &Map<String, Value>, schema: &Map<String, Value>, value: &mut Value, depth: usize) -> usize {
    let schema = resolve(root, schema);
    match value {
        Value::Object(obj) => drop_in_object(root, schema, obj, depth),
        Value::Array(items) => match schema.get("items") {
            Some(Value::Object(item_schema)) => {
                items.iter_mut().map(|i| drop_in_value(root, item_schema, i, depth + 1)).sum()
            }
            _ => 0,
        },
        _ => 0,
    }
}

/// Follows a `$ref` to the subschema of the tool schema it names, its own `$defs` mostly (tool
/// schemas refer nowhere else).
fn resolve<'a>(root: &'a Map<String, Value>, schema: &'a Map<String, Value>) -> &'a Map<String, Value> {
    let mut current = schema;
    for _ in 0..8 {
        let Some(Value::String(r)) = current.get("$ref") else { break };
        let target = if r == "#" { Some(root) } else { refs::resolve_pointer(root, r).and_then(Value::as_object) };
        match target {
            Some(t) => current = t,
            None => break,
        }
    }
    current
}

/// Whether `null` is a valid value of this schema as far as its type says.
fn allows_null(root: &Map<String, Value>, schema: &Value, depth: usize) -> bool {
    let Value::Object(s) = schema else { return schema == &Value::Bool(true) };
    if depth > 8 {
        return true;
    }
    let s = resolve(root, s);
    if s.get("nullable") == Some(&Value::Bool(true)) {
        return true;
    }
    let listed =
        |key: &str| s.get(key).and_then(Value::as_array).map(|l| l.iter().any(|b| allows_null(root, b, depth + 1)));
    if let Some(any) = listed("anyOf").or_else(|| listed("oneOf")) {
        return any;
    }
    if let Some(Value::Array(values)) = s.get("enum") {
        return values.contains(&Value::Null);
    }
    if let Some(c) = s.get("const") {
        return c.is_null();
    }
    match s.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        // No type: anything goes, null included.
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run(schema: Value, args: Value) -> (usize, Value) {
        let mut args = args.as_object().unwrap().clone();
        let n = drop_absent_nulls(schema.as_object().unwrap(), &mut args);
        (n, Value::Object(args))
    }

    #[test]
    fn an_enum_error_names_the_closest_values_first() {
        let options: Vec<Value> =
            ["completed", "action_required", "cancelled", "failure", "neutral", "skipped"].map(Value::from).to_vec();
        let text = enum_text(&json!("failed"), &options);
        assert!(text.starts_with(r#""failed" is not one of the allowed values: "failure", "#), "{text}");
        assert!(text.contains(r#""action_required""#) && !text.contains("more"), "a short list is named whole: {text}");
        let long: Vec<Value> = (0..30).map(|i| Value::from(format!("value_{i}"))).collect();
        let text = enum_text(&json!("value_27"), &long);
        assert!(text.starts_with(r#""value_27" is not one of the allowed values: "value_27""#), "{text}");
        assert!(text.ends_with(", and 25 more"), "{text}");
    }

    #[test]
    fn unknown_arguments_are_named_with_the_closest() {
        let schema = json!({"type": "object", "properties": {"filter": {}, "limit": {}}});
        let args = json!({"filtr": 1, "limit": 2, "zzzzzzzz": 3});
        let unknown = unknown_arguments(schema.as_object().unwrap(), args.as_object().unwrap());
        assert_eq!(unknown, [("filtr".to_string(), Some("filter".to_string())), ("zzzzzzzz".to_string(), None)]);
        assert_eq!(
            unknown_text(&unknown),
            "unknown argument `filtr`; did you mean `filter`?; unknown argument `zzzzzzzz`"
        );
    }

    #[test]
    fn optional_nulls_are_absent() {
        let schema = json!({"type": "object", "required": ["id"], "properties": {
            "id": {"type": "string"}, "limit": {"type": "integer"}, "note": {"type": ["string", "null"]}}});
        let (n, args) = run(schema, json!({"id": null, "limit": null, "note": null}));
        assert_eq!(n, 1);
        assert_eq!(args, json!({"id": null, "note": null}), "required and nullable nulls stay");
    }

    #[test]
    fn nested_objects_arrays_and_refs() {
        let schema = json!({"type": "object", "$defs": {"Leg": {"type": "object", "required": ["to"],
                "properties": {"to": {"type": "string"}, "via": {"type": "string"}}}},
            "properties": {"trip": {"type": "object", "properties": {
                "legs": {"type": "array", "items": {"$ref": "#/$defs/Leg"}},
                "seat": {"anyOf": [{"type": "string"}, {"type": "null"}]}, "meal": {"enum": ["veg", "fish"]}}}}});
        let (n, args) = run(
            schema,
            json!({"trip": {"legs": [{"to": "Oslo", "via": null}, {"to": null}], "seat": null, "meal": null}}),
        );
        assert_eq!(n, 2);
        assert_eq!(args, json!({"trip": {"legs": [{"to": "Oslo"}, {"to": null}], "seat": null}}));
    }

    #[test]
    fn escaped_references_and_the_root_are_followed() {
        let schema = json!({"type": "object", "$defs": {"a/b": {"type": "object", "properties": {"n": {"type": "integer"}}}},
            "properties": {"x": {"$ref": "#/$defs/a~1b"}, "self": {"$ref": "#"}, "limit": {"type": "integer"}}});
        let (n, args) = run(schema, json!({"x": {"n": null}, "self": {"limit": null}}));
        assert_eq!(n, 2);
        assert_eq!(args, json!({"x": {}, "self": {}}));
    }

    #[test]
    fn untyped_properties_and_unknown_keys() {
        let schema = json!({"type": "object", "properties": {"any": {}}});
        let (n, args) = run(schema, json!({"any": null, "extra": null}));
        assert_eq!(n, 1, "an unknown key's null is absent; an untyped property allows null");
        assert_eq!(args, json!({"any": null}));
    }
}
