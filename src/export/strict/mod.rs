//! OpenAI function-calling strict mode (Structured Outputs) for tool input schemas.
//!
//! [`strictify`] rewrites a JSON Schema 2020-12 input schema into the subset that `"strict": true` accepts and
//! records every change, so exporters can tell users what the model can no longer send. [`violations`] is an
//! independent checker of the published rules; it never calls the rewriter, so it can prove the rewrite's output.
//! Rules: <https://platform.openai.com/docs/guides/structured-outputs#supported-schemas>.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::schema::keywords;

mod check;
mod rewrite;
#[cfg(test)]
mod tests;

type Object = Map<String, Value>;

const TYPES: [&str; 7] = ["string", "number", "boolean", "integer", "object", "array", "null"];
const FORMATS: [&str; 9] = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
/// The type-specific keywords strict mode accepts: a subset of `keywords::OBJECT`, `ARRAY`, `STRING` and `NUMBER`.
const SUPPORTED: [&str; 13] = [
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
];
/// Composition and conditionals other than `anyOf`, which strict mode does not accept.
const COMPOSITION_KEYWORDS: [&str; 9] =
    ["oneOf", "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies"];

/// One rewrite made by [`strictify`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// JSON pointer (URI fragment form, RFC 6901 escaping) of the rewritten schema, e.g. `#/properties/limit`.
    pub at: String,
    /// What kind of change (what reports count).
    pub kind: ChangeKind,
    /// What changed, for people.
    pub what: String,
    /// The new schema rejects values the original accepted (e.g. a free-form object that can now only be `{}`).
    /// Dropping a constraint only loosens the schema and is not lossy.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// The kinds of rewrite strict mode makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The root was not an object schema (a boolean, or a type other than object) and became an
    /// empty object.
    RootReplaced,
    /// The root got `type: object`, added or narrowed from a list of types.
    RootTyped,
    /// The root's `anyOf`/`oneOf` branches were merged into one object.
    RootMerged,
    /// `definitions` moved into `$defs`, or a `$defs` that is not an object removed.
    DefsRepaired,
    /// OpenAPI's `nullable` removed (`nullable: false`, or on the root).
    NullableRemoved,
    /// `nullable: true` replaced by a `null` type.
    NullableToNullType,
    /// The `false` schema (matches nothing) replaced by the null schema.
    FalseSchemaReplaced,
    /// A schema that allows any value narrowed to string, number, boolean or null.
    AnyValueNarrowed,
    /// Keywords strict mode does not accept removed.
    KeywordsRemoved,
    /// Types strict mode does not accept (or repeated ones) removed from `type`.
    TypesRemoved,
    /// A `type` added, inferred from the schema's keywords.
    TypeInferred,
    /// A `$ref` pointed at its `#/$defs` entry, or wrapped in `anyOf` to keep its description.
    RefRewritten,
    /// A `$ref` to neither `#` nor `$defs` replaced by any scalar (string, number, boolean or
    /// null).
    RefReplaced,
    /// An `allOf` merged into its schema (branches that match nothing or recurse dropped).
    AllOfMerged,
    /// A `oneOf` replaced by `anyOf` (or dropped beside an existing `anyOf`).
    OneOfReplaced,
    /// An `anyOf` rewritten: sibling keywords moved into each branch, branches that match nothing
    /// dropped, or an empty one removed.
    AnyOfRewritten,
    /// A property whose schema is `false` (it must be absent) removed.
    PropertyRemoved,
    /// An optional property made required, and nullable so that `null` stands for absent.
    PropertyMadeRequired,
    /// `additionalProperties: false` set on an object.
    AdditionalPropertiesClosed,
    /// Names in `required` without a property removed.
    RequiredRepaired,
    /// Tuple `items` (an array of schemas) replaced by `anyOf` of those schemas.
    TupleItemsReplaced,
}

impl ChangeKind {
    /// The kind in words, for summaries that count changes by kind.
    pub fn label(self) -> &'static str {
        match self {
            ChangeKind::RootReplaced => "root replaced by an empty object",
            ChangeKind::RootTyped => "root typed as object",
            ChangeKind::RootMerged => "root branches merged",
            ChangeKind::DefsRepaired => "definitions moved or repaired",
            ChangeKind::NullableRemoved => "removed nullable",
            ChangeKind::NullableToNullType => "nullable replaced by a null type",
            ChangeKind::FalseSchemaReplaced => "false schema replaced by null",
            ChangeKind::AnyValueNarrowed => "any value narrowed",
            ChangeKind::KeywordsRemoved => "removed unsupported keywords",
            ChangeKind::TypesRemoved => "removed unsupported types",
            ChangeKind::TypeInferred => "added a type inferred from keywords",
            ChangeKind::RefRewritten => "$ref rewritten",
            ChangeKind::RefReplaced => "$ref replaced",
            ChangeKind::AllOfMerged => "allOf merged",
            ChangeKind::OneOfReplaced => "oneOf replaced with anyOf",
            ChangeKind::AnyOfRewritten => "anyOf rewritten",
            ChangeKind::PropertyRemoved => "property that must be absent removed",
            ChangeKind::PropertyMadeRequired => "optional property made required",
            ChangeKind::AdditionalPropertiesClosed => "additionalProperties set to false",
            ChangeKind::RequiredRepaired => "required names repaired",
            ChangeKind::TupleItemsReplaced => "tuple items replaced",
        }
    }
}

/// A strict-mode rule, as published by OpenAI.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The root is a plain `type: object` schema, not `anyOf` or a `$ref`.
    RootObject,
    /// Every object sets `additionalProperties: false`.
    AdditionalPropertiesFalse,
    /// Every property is listed in `required` (and nothing else is).
    AllRequired,
    /// Only the seven JSON types, every schema typed, arrays with `items`, composition only via `anyOf`.
    SupportedType,
    /// Only the supported keywords, `$defs` only at the root, nothing next to `$ref` or `anyOf`.
    SupportedKeyword,
    /// `format` is one of the supported formats.
    SupportedFormat,
    /// `$ref` points at `#` or an existing `#/$defs/<name>`.
    RefTarget,
    /// At most 10 levels of object nesting.
    Nesting,
    /// At most 5000 object properties in total.
    PropertyCount,
    /// At most 1000 enum values in total.
    EnumCount,
    /// An enum with more than 250 string values has at most 15,000 characters in total.
    EnumSize,
    /// Names, enum and const strings total at most 120,000 characters.
    StringSize,
}

impl Rule {
    /// Limits cannot be fixed by rewriting, so they are the only rules [`strictify`] leaves broken.
    pub fn is_limit(self) -> bool {
        matches!(self, Rule::Nesting | Rule::PropertyCount | Rule::EnumCount | Rule::EnumSize | Rule::StringSize)
    }
}

/// One way a schema breaks the strict-mode rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The rule broken.
    pub rule: Rule,
    /// JSON pointer of the offending schema.
    pub at: String,
    /// What breaks it, for people.
    pub message: String,
}

/// Result of [`strictify`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Strict {
    /// The rewritten schema.
    pub schema: Value,
    /// Every rewrite made, in the order made.
    pub changes: Vec<Change>,
    /// What still breaks the rules after conversion: only limits ([`Rule::is_limit`]).
    pub violations: Vec<Violation>,
}

/// Rewrites `schema` for strict mode. Deterministic; `$defs` entries are rewritten once each and references are
/// never inlined (except inside `allOf` and at the root, guarded against cycles), so recursive schemas terminate.
pub fn strictify(schema: &Value) -> Strict {
    let (schema, changes) = rewrite::rewrite(schema);
    let violations = violations(&schema);
    Strict { schema, changes, violations }
}

/// Every way `schema` breaks the strict-mode rules (empty = accepted).
pub fn violations(schema: &Value) -> Vec<Violation> {
    check::check(schema)
}

/// Appends `token` to the JSON pointer `at`, escaping `~` and `/` per RFC 6901.
fn child(at: &str, token: &str) -> String {
    format!("{at}/{}", token.replace('~', "~0").replace('/', "~1"))
}

fn decode(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

fn type_names(map: &Object) -> Vec<&str> {
    match map.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a type-specific keyword is supported and applies to a schema with `types`.
fn applies(key: &str, types: &[&str]) -> bool {
    SUPPORTED.contains(&key) && keywords::instance_types(key).iter().any(|t| types.contains(t))
}

/// Keywords that describe rather than constrain (annotations, and those that scope a schema or hold its
/// definitions): they stay on an `anyOf` parent instead of moving into branches.
fn is_annotation(key: &str) -> bool {
    keywords::is_annotation(key) || keywords::SCOPING.contains(&key)
}

fn strings(value: Option<&Value>) -> Vec<String> {
    value.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(String::from).collect()
}

fn null_schema() -> Value {
    json!({"type": "null"})
}

fn empty_object() -> Object {
    let mut map = Object::new();
    map.insert("type".into(), "object".into());
    map.insert("properties".into(), Value::Object(Object::new()));
    map.insert("additionalProperties".into(), false.into());
    map
}

/// Merges `source` into `target`: `properties` and `required` are unioned, other keywords keep the first value.
fn merge_into(target: &mut Object, source: Object) {
    for (key, value) in source {
        match (key.as_str(), target.get_mut(&key), value) {
            ("properties", Some(Value::Object(existing)), Value::Object(more)) => {
                for (name, schema) in more {
                    existing.entry(name).or_insert(schema);
                }
            }
            ("required", Some(Value::Array(existing)), Value::Array(more)) => {
                for name in more {
                    if !existing.contains(&name) {
                        existing.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                target.insert(key, value);
            }
        }
    }
}

/// Whether `null` validates against `schema` without resolving references.
fn is_nullable(schema: &Value) -> bool {
    let Some(map) = schema.as_object() else { return schema == &Value::Bool(true) };
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        return branches.iter().any(is_nullable);
    }
    if map.contains_key("$ref") {
        return false;
    }
    let type_ok = match map.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(list)) => list.iter().any(|t| t == "null"),
        _ => true,
    };
    let enum_ok = map.get("enum").and_then(Value::as_array).is_none_or(|values| values.contains(&Value::Null));
    type_ok && enum_ok && map.get("const").is_none_or(Value::is_null)
}

/// Lets `schema` also accept `null`, the strict-mode stand-in for an omitted optional property.
/// Returns false when it already did.
fn make_nullable(schema: &mut Value) -> bool {
    if is_nullable(schema) {
        return false;
    }
    let Value::Object(map) = schema else { return false };
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(null_schema());
        return true;
    }
    if map.contains_key("$ref") || map.contains_key("const") {
        let mut outer = Object::new();
        for key in ["description", "title"] {
            if let Some(value) = map.remove(key) {
                outer.insert(key.into(), value);
            }
        }
        outer.insert("anyOf".into(), json!([Value::Object(std::mem::take(map)), null_schema()]));
        *map = outer;
        return true;
    }
    match map.get_mut("type") {
        Some(Value::String(t)) if t != "null" => {
            let t = std::mem::take(t);
            map.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(list)) if !list.iter().any(|t| t == "null") => list.push("null".into()),
        _ => {}
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    true
}
