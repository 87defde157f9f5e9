//! JSON Schema keywords: where subschemas sit in a schema, which keywords hold data, which only
//! annotate, which depend on their neighbours, and which constrain one type of value. JSON Schema
//! 2020-12, plus what mcpgen still meets from older drafts (`definitions`, `additionalItems`,
//! `items` as a list) and from OpenAPI 3.0 (`example`, `externalDocs`, `x-*` extensions).
//!
//! This is the one home of that knowledge for all of mcpgen. It lives in the engine because the
//! engine needs it too (compact schemas) and `src/runtime/` is copied verbatim into generated
//! crates, where it may name nothing outside itself; the rest of mcpgen reaches it through its
//! `schema` module, as `schema::keywords`. Each user picks the set it means: a walker over
//! subschemas goes through [`holds`], [`subschemas`], [`subschemas_mut`] or [`map_held`], which
//! know where subschemas sit, so that it never takes a property name (`required`, `enum`,
//! `items`...) for a keyword nor data (`default`, `examples`...) for a schema; a merge of schema
//! objects wants [`is_annotation`], [`SCOPING`] and [`ADJACENT`].

use serde_json::{Map, Value};

/// Keywords whose value is one schema (`items` may also be a list of them, as in drafts before
/// 2020-12).
pub const SCHEMA: [&str; 12] = [
    "items",
    "additionalProperties",
    "additionalItems",
    "not",
    "if",
    "then",
    "else",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];

/// Keywords whose value is a list of schemas.
pub const SCHEMA_LIST: [&str; 4] = ["allOf", "anyOf", "oneOf", "prefixItems"];

/// Keywords whose value maps names (never rewritten) to schemas.
pub const SCHEMA_MAP: [&str; 5] = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];

/// What the value of a schema keyword holds, for walkers over subschemas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Holds {
    /// One subschema ([`SCHEMA`]); a list of them too, for `items` in drafts before 2020-12.
    Schema,
    /// A list of subschemas ([`SCHEMA_LIST`]).
    Schemas,
    /// Subschemas by name ([`SCHEMA_MAP`]): the names are property or definition names, never
    /// keywords, whatever they spell (`required`, `$ref`, `x-id`).
    NamedSchemas,
    /// No subschema: data, a constraint's value, an annotation, or a keyword mcpgen does not know.
    Nothing,
}

/// What the value of the keyword `key` of a schema object holds.
pub fn holds(key: &str) -> Holds {
    // A `match` rather than searches of the lists: walkers ask for every keyword of every schema
    // (a test checks that the two agree).
    match key {
        "items"
        | "additionalProperties"
        | "additionalItems"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedItems"
        | "unevaluatedProperties"
        | "contentSchema" => Holds::Schema,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::Schemas,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => Holds::NamedSchemas,
        _ => Holds::Nothing,
    }
}

/// The subschemas the value of the keyword `key` holds (none when it holds none, or when the
/// value does not have the shape the keyword gives it).
pub fn held<'a>(key: &str, value: &'a Value) -> Held<'a> {
    match (holds(key), value) {
        (Holds::Schema | Holds::Schemas, Value::Array(list)) => Held::List(list.iter()),
        (Holds::Schema, one @ (Value::Object(_) | Value::Bool(_))) => Held::One(Some(one)),
        (Holds::NamedSchemas, Value::Object(map)) => Held::Map(map.values()),
        _ => Held::One(None),
    }
}

/// [`held`], mutable.
pub fn held_mut<'a>(key: &str, value: &'a mut Value) -> HeldMut<'a> {
    match (holds(key), value) {
        (Holds::Schema | Holds::Schemas, Value::Array(list)) => HeldMut::List(list.iter_mut()),
        (Holds::Schema, one @ (Value::Object(_) | Value::Bool(_))) => HeldMut::One(Some(one)),
        (Holds::NamedSchemas, Value::Object(map)) => HeldMut::Map(map.values_mut()),
        _ => HeldMut::One(None),
    }
}

/// The subschemas directly under a schema object, keyword by keyword (see [`held`]).
pub fn subschemas(schema: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    schema.iter().flat_map(|(key, value)| held(key, value))
}

/// The subschemas directly under a schema object, mutable (see [`held_mut`]).
pub fn subschemas_mut(schema: &mut Map<String, Value>) -> impl Iterator<Item = &mut Value> {
    schema.iter_mut().flat_map(|(key, value)| held_mut(key, value))
}

/// The subschemas of one keyword's value ([`held`]), without collecting them: walkers run over
/// every schema object of large documents.
pub enum Held<'a> {
    /// The value is the subschema (or holds none).
    One(Option<&'a Value>),
    /// A list of subschemas.
    List(std::slice::Iter<'a, Value>),
    /// The subschemas of a map of names.
    Map(serde_json::map::Values<'a>),
}

impl<'a> Iterator for Held<'a> {
    type Item = &'a Value;

    fn next(&mut self) -> Option<&'a Value> {
        match self {
            Held::One(one) => one.take(),
            Held::List(list) => list.next(),
            Held::Map(map) => map.next(),
        }
    }
}

/// [`Held`], mutable.
pub enum HeldMut<'a> {
    /// The value is the subschema (or holds none).
    One(Option<&'a mut Value>),
    /// A list of subschemas.
    List(std::slice::IterMut<'a, Value>),
    /// The subschemas of a map of names.
    Map(serde_json::map::ValuesMut<'a>),
}

impl<'a> Iterator for HeldMut<'a> {
    type Item = &'a mut Value;

    fn next(&mut self) -> Option<&'a mut Value> {
        match self {
            HeldMut::One(one) => one.take(),
            HeldMut::List(list) => list.next(),
            HeldMut::Map(map) => map.next(),
        }
    }
}

/// The value of the keyword `key` rebuilt with `f` applied to each subschema it holds (names and
/// order kept); `None` when it holds none, for the caller to keep or copy the value as it is.
pub fn map_held(key: &str, value: &Value, mut f: impl FnMut(&Value) -> Value) -> Option<Value> {
    match (holds(key), value) {
        (Holds::Schema | Holds::Schemas, Value::Array(list)) => Some(Value::Array(list.iter().map(f).collect())),
        (Holds::Schema, one @ (Value::Object(_) | Value::Bool(_))) => Some(f(one)),
        (Holds::NamedSchemas, Value::Object(map)) => {
            Some(Value::Object(map.iter().map(|(name, s)| (name.clone(), f(s))).collect()))
        }
        _ => None,
    }
}

/// The combinators: lists of schemas that all apply to the same value (all, any or one of them).
pub const COMBINATORS: [&str; 3] = ["allOf", "anyOf", "oneOf"];

/// Keywords whose value is data (values, property names), never a schema: a `$ref` inside one is
/// no reference, and walkers leave them as they are. [`is_data`] adds the `x-*` extensions.
pub const DATA: [&str; 7] = ["enum", "const", "default", "examples", "example", "required", "dependentRequired"];

/// Whether a keyword's value is data rather than schemas: [`DATA`] or an extension.
pub fn is_data(key: &str) -> bool {
    DATA.contains(&key) || is_extension(key)
}

/// OpenAPI's specification extensions (`x-*`): free-form data that validates nothing.
pub fn is_extension(key: &str) -> bool {
    key.starts_with("x-")
}

/// Keywords that only document, for readers rather than validators: examples and links to more.
pub const DOCUMENTATION: [&str; 3] = ["examples", "example", "externalDocs"];

/// The meta-data vocabulary of 2020-12: annotations that describe a value and constrain nothing.
pub const META_DATA: [&str; 7] = ["title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"];

/// Whether a keyword describes but never constrains, so that moving it to a neighbouring schema
/// object changes no validation result: [`META_DATA`], OpenAPI 3.0's `example`, `$comment` and the
/// extensions.
pub fn is_annotation(key: &str) -> bool {
    META_DATA.contains(&key) || matches!(key, "example" | "$comment") || is_extension(key)
}

/// Keywords that scope a schema resource or name a location in it (and the definitions held
/// there): they constrain nothing, but belong to the schema object that carries them.
pub const SCOPING: [&str; 7] = ["$id", "$schema", "$anchor", "$dynamicAnchor", "$vocabulary", "$defs", "definitions"];

/// Keywords whose meaning depends on others of the same group in the same schema object
/// (`additionalProperties` on `properties`, `items` on `prefixItems`, ...).
pub const ADJACENT: [&[&str]; 5] = [
    &["properties", "patternProperties", "additionalProperties"],
    &["prefixItems", "items", "additionalItems"],
    &["contains", "minContains", "maxContains"],
    &["if", "then", "else"],
    &["contentMediaType", "contentEncoding", "contentSchema"],
];

/// Keywords that see every adjacent keyword (and the subschemas those apply).
pub const SEES_ADJACENT: [&str; 2] = ["unevaluatedProperties", "unevaluatedItems"];

/// Keywords that constrain numbers (integers included) and let any other value pass.
pub const NUMBER: [&str; 5] = ["multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"];

/// Keywords that constrain strings and let any other value pass (`format` is the format
/// vocabulary's, the others validation's).
pub const STRING: [&str; 4] = ["minLength", "maxLength", "pattern", "format"];

/// Keywords that constrain arrays and let any other value pass.
pub const ARRAY: [&str; 10] = [
    "items",
    "prefixItems",
    "additionalItems",
    "contains",
    "minContains",
    "maxContains",
    "minItems",
    "maxItems",
    "uniqueItems",
    "unevaluatedItems",
];

/// Keywords that constrain objects and let any other value pass.
pub const OBJECT: [&str; 10] = [
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "required",
    "dependentRequired",
    "dependentSchemas",
    "minProperties",
    "maxProperties",
    "unevaluatedProperties",
];

/// The values of `type`: JSON's types, and `integer`.
pub const TYPES: [&str; 7] = ["string", "number", "integer", "boolean", "array", "object", "null"];

/// What value a keyword takes, by 2020-12's meta-schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takes {
    /// Any value (`const`, `default`).
    Any,
    /// A list (`enum`, `examples`, `required`).
    Array,
    /// A number (`minimum`, `exclusiveMaximum`, ...).
    Number,
    /// A number above zero (`multipleOf`).
    PositiveNumber,
    /// A count: an integer, zero or more (`minLength`, `maxItems`, ...).
    Count,
    /// `true` or `false` (`uniqueItems`, `readOnly`, ...).
    Boolean,
    /// A string (`title`, `pattern`, `format`, ...).
    String,
    /// An object (`dependentRequired`).
    Object,
    /// A type name or a list of them (`type`, see [`TYPES`]).
    Types,
}

impl Takes {
    /// Whether `value` is of this kind (a count written `2.0` is one).
    pub fn accepts(self, value: &Value) -> bool {
        match self {
            Takes::Any => true,
            Takes::Array => value.is_array(),
            Takes::Number => value.is_number(),
            Takes::PositiveNumber => value.as_f64().is_some_and(|n| n > 0.0),
            Takes::Count => value.as_u64().is_some() || value.as_f64().is_some_and(|f| f >= 0.0 && f.fract() == 0.0),
            Takes::Boolean => value.is_boolean(),
            Takes::String => value.is_string(),
            Takes::Object => value.is_object(),
            Takes::Types => value.is_string() || value.is_array(),
        }
    }
}

/// The value a keyword of 2020-12's validation, meta-data, format and content vocabularies takes;
/// `None` for the others: the core's (`$id`, `$comment`, ...), those that hold subschemas
/// ([`holds`]), and what 2020-12 does not have (`example`, `nullable`, `x-*`).
pub fn takes(key: &str) -> Option<Takes> {
    Some(match key {
        "type" => Takes::Types,
        "enum" | "examples" | "required" => Takes::Array,
        "const" | "default" => Takes::Any,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" => Takes::Number,
        "multipleOf" => Takes::PositiveNumber,
        "minLength" | "maxLength" | "minItems" | "maxItems" | "minProperties" | "maxProperties" | "minContains"
        | "maxContains" => Takes::Count,
        "uniqueItems" | "readOnly" | "writeOnly" | "deprecated" => Takes::Boolean,
        "title" | "description" | "format" | "pattern" | "contentMediaType" | "contentEncoding" => Takes::String,
        "dependentRequired" => Takes::Object,
        _ => return None,
    })
}

/// The `type`s a keyword constrains: `["number", "integer"]` for [`NUMBER`], one type for
/// [`STRING`], [`ARRAY`] and [`OBJECT`], none for keywords that apply to every value.
pub fn instance_types(key: &str) -> &'static [&'static str] {
    if NUMBER.contains(&key) {
        &["number", "integer"]
    } else if STRING.contains(&key) {
        &["string"]
    } else if ARRAY.contains(&key) {
        &["array"]
    } else if OBJECT.contains(&key) {
        &["object"]
    } else {
        &[]
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Every keyword of JSON Schema 2020-12's vocabularies.
    const DRAFT_2020_12: [&str; 57] = [
        // Core.
        "$schema",
        "$id",
        "$ref",
        "$anchor",
        "$dynamicRef",
        "$dynamicAnchor",
        "$vocabulary",
        "$comment",
        "$defs",
        // Applicator.
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "prefixItems",
        "items",
        "contains",
        "properties",
        "patternProperties",
        "additionalProperties",
        "propertyNames",
        // Unevaluated.
        "unevaluatedItems",
        "unevaluatedProperties",
        // Validation.
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxContains",
        "minContains",
        "maxProperties",
        "minProperties",
        "required",
        "dependentRequired",
        // Meta-data.
        "title",
        "description",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "examples",
        // Format and content.
        "format",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    ];

    /// Keywords that apply to every value and hold no subschema.
    const GENERAL: [&str; 5] = ["$ref", "$dynamicRef", "type", "contentEncoding", "contentMediaType"];

    fn holds_schemas(key: &str) -> bool {
        SCHEMA.contains(&key) || SCHEMA_LIST.contains(&key) || SCHEMA_MAP.contains(&key)
    }

    #[test]
    fn every_keyword_has_a_place() {
        for key in DRAFT_2020_12 {
            let placed = holds_schemas(key)
                || is_data(key)
                || is_annotation(key)
                || SCOPING.contains(&key)
                || !instance_types(key).is_empty()
                || GENERAL.contains(&key);
            assert!(placed, "{key}");
        }
    }

    #[test]
    fn schema_positions_are_never_data_nor_annotations() {
        for key in SCHEMA.iter().chain(&SCHEMA_LIST).chain(&SCHEMA_MAP) {
            assert!(!is_data(key) && !is_annotation(key), "{key}");
        }
        let positions: Vec<&str> = SCHEMA.iter().chain(&SCHEMA_LIST).chain(&SCHEMA_MAP).copied().collect();
        let mut unique = positions.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), positions.len(), "each position once");
    }

    #[test]
    fn combinators_are_schema_lists() {
        assert!(COMBINATORS.iter().all(|k| SCHEMA_LIST.contains(k)));
    }

    #[test]
    fn extensions_are_data_and_annotations() {
        assert!(is_data("x-internal") && is_annotation("x-internal") && is_extension("x-internal"));
        assert!(!is_extension("xml"));
    }

    #[test]
    fn annotations_constrain_no_type() {
        for key in META_DATA.iter().chain(&["example", "$comment"]) {
            assert!(is_annotation(key) && instance_types(key).is_empty(), "{key}");
        }
        for key in ["type", "$ref", "enum", "required", "minimum", "$defs", "externalDocs"] {
            assert!(!is_annotation(key), "{key}");
        }
    }

    #[test]
    fn examples_are_data_annotations_and_documentation() {
        for key in ["examples", "example"] {
            assert!(is_data(key) && is_annotation(key) && DOCUMENTATION.contains(&key), "{key}");
        }
    }

    /// Every keyword of 2020-12 but the core's holds subschemas or takes a value of a kind, never both.
    #[test]
    fn every_vocabulary_keyword_takes_a_value_or_holds_schemas() {
        for key in DRAFT_2020_12 {
            let (value, schemas) = (takes(key).is_some(), holds(key) != Holds::Nothing);
            assert!(!(value && schemas), "{key}: a value or schemas, not both");
            // The core's keywords (`$id`, `$defs`...) take no value of a vocabulary's.
            assert_eq!(key.starts_with('$'), !value && (!schemas || key == "$defs"), "{key}");
        }
        for key in ["example", "nullable", "x-id", "$comment"] {
            assert_eq!(takes(key), None, "{key}");
        }
        assert!(Takes::Count.accepts(&json!(2.0)) && !Takes::Count.accepts(&json!(-1)));
        assert!(!Takes::PositiveNumber.accepts(&json!(0)));
    }

    #[test]
    fn scoping_keywords_hold_no_value_constraint() {
        for key in SCOPING {
            assert!(!is_annotation(key) && !is_data(key) && instance_types(key).is_empty(), "{key}");
        }
    }

    #[test]
    fn adjacent_groups_are_schema_object_keywords() {
        for key in ADJACENT.iter().flat_map(|g| g.iter()).chain(&SEES_ADJACENT) {
            assert!(!is_data(key) && !is_annotation(key), "{key}");
        }
    }

    #[test]
    fn holds_agrees_with_the_lists() {
        let listed = SCHEMA.iter().chain(&SCHEMA_LIST).chain(&SCHEMA_MAP);
        for key in DRAFT_2020_12.iter().chain(listed).chain(&DATA).chain(&["x-id", "example", "nullable"]) {
            let want = if SCHEMA.contains(key) {
                Holds::Schema
            } else if SCHEMA_LIST.contains(key) {
                Holds::Schemas
            } else if SCHEMA_MAP.contains(key) {
                Holds::NamedSchemas
            } else {
                Holds::Nothing
            };
            assert_eq!(holds(key), want, "{key}");
        }
    }

    #[test]
    fn subschemas_are_found_by_position_never_by_name() {
        let schema = json!({
            "type": "object", "required": ["required"], "enum": [{"type": "string"}], "default": {"items": {}},
            "x-data": {"type": "string"}, "items": [{"title": "first"}, true], "not": {"title": "not"},
            "properties": {"required": {"title": "a property"}, "enum": {"title": "another"}},
            "anyOf": [{"title": "branch"}], "additionalProperties": false,
        });
        let titles = |v: Vec<&Value>| -> Vec<Value> {
            v.into_iter().map(|s| s.get("title").cloned().unwrap_or(s.clone())).collect()
        };
        let found = titles(subschemas(schema.as_object().unwrap()).collect());
        assert_eq!(
            found,
            [
                json!(false),
                json!("branch"),
                json!("first"),
                json!(true),
                json!("not"),
                json!("another"),
                json!("a property")
            ]
        );
        assert_eq!(held("required", &json!({"title": "t"})).count(), 0, "required holds names");
        assert_eq!(held("properties", &json!([{"title": "t"}])).count(), 0, "a map of schemas is an object");
        assert_eq!(holds("$defs"), Holds::NamedSchemas);
        assert_eq!(holds("enum"), Holds::Nothing);
    }

    #[test]
    fn mutable_subschemas_match_the_shared_ones() {
        let mut schema = json!({"properties": {"items": {"type": "array"}}, "prefixItems": [{}], "const": {}});
        let obj = schema.as_object_mut().unwrap();
        let count = subschemas(obj).count();
        for s in subschemas_mut(obj) {
            s.as_object_mut().unwrap().insert("seen".into(), json!(true));
        }
        assert_eq!(count, 2);
        assert_eq!(
            schema,
            json!({"properties": {"items": {"type": "array", "seen": true}}, "prefixItems": [{"seen": true}], "const": {}})
        );
    }

    #[test]
    fn map_held_rebuilds_only_schema_positions() {
        let mark = |s: &Value| json!({"was": s});
        assert_eq!(map_held("properties", &json!({"enum": {}}), mark), Some(json!({"enum": {"was": {}}})));
        assert_eq!(map_held("items", &json!([true]), mark), Some(json!([{"was": true}])));
        assert_eq!(map_held("not", &json!({}), mark), Some(json!({"was": {}})));
        assert_eq!(map_held("default", &json!({}), mark), None);
        assert_eq!(map_held("not", &json!("text"), mark), None, "not a schema");
    }

    #[test]
    fn type_specific_keywords() {
        assert_eq!(instance_types("maximum"), ["number", "integer"]);
        assert_eq!(instance_types("pattern"), ["string"]);
        assert_eq!(instance_types("prefixItems"), ["array"]);
        assert_eq!(instance_types("dependentRequired"), ["object"]);
        assert!(instance_types("enum").is_empty() && instance_types("allOf").is_empty());
    }
}
