use super::*;

fn rules(schema: &Value) -> Vec<Rule> {
    let mut rules: Vec<Rule> = violations(schema).into_iter().map(|v| v.rule).collect();
    rules.sort_by_key(|rule| *rule as u8);
    rules.dedup();
    rules
}

/// Strictifies and asserts that only limits remain broken, checked by the independent checker.
fn fixed(schema: &Value) -> Strict {
    let strict = strictify(schema);
    assert_eq!(strict.violations, violations(&strict.schema));
    let broken: Vec<&Violation> = strict.violations.iter().filter(|v| !v.rule.is_limit()).collect();
    assert!(broken.is_empty(), "{broken:#?}\n{:#}", strict.schema);
    strict
}

fn change<'a>(strict: &'a Strict, at: &str) -> Vec<&'a Change> {
    strict.changes.iter().filter(|c| c.at == at).collect()
}

fn has_change(strict: &Strict, at: &str, what: &str) -> bool {
    change(strict, at).iter().any(|c| c.what.contains(what))
}

/// A closed object with the given properties, all required.
fn object(properties: Value) -> Value {
    let required: Vec<String> = properties.as_object().into_iter().flatten().map(|(k, _)| k.clone()).collect();
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

#[test]
fn root_object_rule_merges_root_any_of() {
    let schema = json!({"anyOf": [
        object(json!({"a": {"type": "string"}})),
        object(json!({"a": {"type": "string"}, "b": {"type": "integer"}})),
    ]});
    assert_eq!(rules(&schema), [Rule::RootObject]);
    let strict = fixed(&schema);
    assert_eq!(
        strict.schema,
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": ["integer", "null"]}},
               "required": ["a", "b"], "additionalProperties": false})
    );
    assert!(has_change(&strict, "#", "merged the root anyOf"));
    assert!(!strict.changes.iter().any(|c| c.lossy));
}

#[test]
fn root_ref_is_inlined_and_non_object_root_is_lossy() {
    let schema = json!({"$ref": "#/$defs/Req", "$defs": {"Req": object(json!({"q": {"type": "string"}}))}});
    assert_eq!(rules(&schema), [Rule::RootObject]);
    let strict = fixed(&schema);
    assert_eq!(strict.schema.get("properties"), Some(&json!({"q": {"type": "string"}})));
    let strict = fixed(&json!({"type": "string"}));
    assert_eq!(strict.schema, Value::Object(empty_object()));
    assert!(strict.changes.iter().all(|c| c.lossy));
}

#[test]
fn nested_objects_get_additional_properties_false() {
    let inner = json!({"type": "object", "properties": {"c": {"type": "string"}}, "required": ["c"]});
    let schema = object(json!({"a": object(json!({"b": inner}))}));
    assert_eq!(rules(&schema), [Rule::AdditionalPropertiesFalse]);
    assert_eq!(violations(&schema)[0].at, "#/properties/a/properties/b");
    let strict = fixed(&schema);
    let b = strict.schema.pointer("/properties/a/properties/b");
    assert_eq!(b.and_then(|b| b.get("additionalProperties")), Some(&json!(false)));
    assert_eq!(strict.changes.len(), 1);
    assert!(has_change(&strict, "#/properties/a/properties/b", "additionalProperties: false"));
}

#[test]
fn optional_property_becomes_required_and_nullable() {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}, "limit": {"type": "integer"}},
                        "required": ["q"], "additionalProperties": false});
    assert_eq!(rules(&schema), [Rule::AllRequired]);
    let strict = fixed(&schema);
    assert_eq!(strict.schema.pointer("/properties/limit"), Some(&json!({"type": ["integer", "null"]})));
    assert_eq!(strict.schema.get("required"), Some(&json!(["q", "limit"])));
    assert_eq!(change(&strict, "#/properties/limit").len(), 1);
    assert!(has_change(&strict, "#/properties/limit", "made required and nullable"));
}

#[test]
fn optional_enum_gets_null_in_type_and_values() {
    let schema = json!({"type": "object", "properties": {"unit": {"type": "string", "enum": ["C", "F"]},
                        "mode": {"enum": ["a", "b"]}}, "additionalProperties": false});
    let strict = fixed(&schema);
    let unit = json!({"type": ["string", "null"], "enum": ["C", "F", null]});
    assert_eq!(strict.schema.pointer("/properties/unit"), Some(&unit));
    assert_eq!(strict.schema.pointer("/properties/mode"), Some(&json!({"enum": ["a", "b", null]})));
}

#[test]
fn optional_ref_and_const_become_any_of_with_null() {
    let schema = json!({"type": "object", "additionalProperties": false, "properties": {
        "pet": {"$ref": "#/$defs/Pet"}, "kind": {"const": "dog", "description": "Kind"},
        "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
        "$defs": {"Pet": object(json!({"name": {"type": "string"}}))}});
    let strict = fixed(&schema);
    let pet = json!({"anyOf": [{"$ref": "#/$defs/Pet"}, {"type": "null"}]});
    assert_eq!(strict.schema.pointer("/properties/pet"), Some(&pet));
    let kind = json!({"anyOf": [{"const": "dog"}, {"type": "null"}], "description": "Kind"});
    assert_eq!(strict.schema.pointer("/properties/kind"), Some(&kind));
    let either = json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]});
    assert_eq!(strict.schema.pointer("/properties/either"), Some(&either));
}

#[test]
fn nullable_property_is_not_made_nullable_twice() {
    let schema = json!({"type": "object", "additionalProperties": false, "required": ["a"], "properties": {
        "a": {"type": ["string", "null"]}, "b": {"anyOf": [{"type": "string"}, {"type": "null"}]}}});
    let strict = fixed(&schema);
    assert_eq!(strict.schema.pointer("/properties/a"), Some(&json!({"type": ["string", "null"]})));
    let b = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    assert_eq!(strict.schema.pointer("/properties/b"), Some(&b));
    assert!(has_change(&strict, "#/properties/b", "already nullable"));
    assert!(change(&strict, "#/properties/a").is_empty());
}

#[test]
fn one_of_becomes_any_of() {
    let schema = object(json!({"id": {"oneOf": [{"type": "string"}, {"type": "integer"}]}}));
    assert_eq!(rules(&schema), [Rule::SupportedType]);
    let strict = fixed(&schema);
    let id = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    assert_eq!(strict.schema.pointer("/properties/id"), Some(&id));
    assert!(has_change(&strict, "#/properties/id", "replaced oneOf with anyOf"));
}

#[test]
fn all_of_merges_into_parent() {
    let schema = object(json!({"item": {"description": "An item", "allOf": [
        {"$ref": "#/$defs/Base"},
        {"type": "object", "properties": {"extra": {"type": "boolean"}}, "required": ["extra"]}]}}));
    let mut schema = schema;
    schema["$defs"] = json!({"Base": {"type": "object", "properties": {"id": {"type": "string"}},
                                      "required": ["id"], "description": "Base"}});
    assert_eq!(rules(&schema), [Rule::AdditionalPropertiesFalse, Rule::SupportedType]);
    let strict = fixed(&schema);
    let item = json!({"type": "object", "description": "An item", "additionalProperties": false,
                      "properties": {"extra": {"type": "boolean"}, "id": {"type": "string"}},
                      "required": ["id", "extra"]});
    assert_eq!(strict.schema.pointer("/properties/item"), Some(&item));
    assert!(has_change(&strict, "#/properties/item", "merged allOf"));
}

#[test]
fn lone_all_of_ref_stays_a_reference() {
    let schema = json!({"type": "object", "additionalProperties": false, "required": ["p"],
        "properties": {"p": {"allOf": [{"$ref": "#/$defs/P"}], "description": "The P"}},
        "$defs": {"P": object(json!({"x": {"type": "string"}}))}});
    let strict = fixed(&schema);
    let p = json!({"anyOf": [{"$ref": "#/$defs/P"}], "description": "The P"});
    assert_eq!(strict.schema.pointer("/properties/p"), Some(&p));
}

#[test]
fn conditionals_and_unsupported_types_are_removed() {
    let schema = object(json!({
        "a": {"type": "string", "not": {"const": "x"}, "if": {}, "then": {}, "else": {}},
        "f": {"type": "file"}}));
    assert_eq!(rules(&schema), [Rule::SupportedType]);
    let strict = fixed(&schema);
    assert_eq!(strict.schema.pointer("/properties/a"), Some(&json!({"type": "string"})));
    assert!(has_change(&strict, "#/properties/a", "removed else, if, not, then"));
    assert!(has_change(&strict, "#/properties/f", "unsupported type \"file\""));
    assert!(change(&strict, "#/properties/f").iter().any(|c| c.lossy));
}

#[test]
fn unsupported_keywords_are_removed_with_hints() {
    let name = json!({"type": "string", "description": "Name", "minLength": 1, "maxLength": 64,
                      "default": "bob", "x-internal": true, "readOnly": true});
    let tags = json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true, "minItems": 1});
    let schema = object(json!({"name": name, "tags": tags}));
    assert_eq!(rules(&schema), [Rule::SupportedKeyword]);
    let strict = fixed(&schema);
    let name = json!({"type": "string",
                      "description": "Name (default: \"bob\"; at most 64 characters; at least 1 character)"});
    assert_eq!(strict.schema.pointer("/properties/name"), Some(&name));
    let removed = change(&strict, "#/properties/name");
    assert_eq!(removed.len(), 1);
    assert_eq!(removed[0].what, "removed default, maxLength, minLength, readOnly, x-internal");
    let tags = strict.schema.pointer("/properties/tags");
    assert_eq!(tags.and_then(|t| t.get("description")), Some(&json!("(items must be unique)")));
    assert_eq!(tags.and_then(|t| t.get("minItems")), Some(&json!(1)));
}

#[test]
fn unsupported_format_is_removed() {
    let schema = object(json!({"u": {"type": "string", "format": "uri"}, "d": {"type": "string", "format": "date"},
                               "n": {"type": "integer", "format": "int32", "minimum": 0}}));
    assert_eq!(rules(&schema), [Rule::SupportedKeyword, Rule::SupportedFormat]);
    let strict = fixed(&schema);
    assert_eq!(strict.schema.pointer("/properties/u"), Some(&json!({"type": "string"})));
    assert_eq!(strict.schema.pointer("/properties/d"), Some(&json!({"type": "string", "format": "date"})));
    assert_eq!(strict.schema.pointer("/properties/n"), Some(&json!({"type": "integer", "minimum": 0})));
    assert!(has_change(&strict, "#/properties/u", "removed format \"uri\""));
}

#[test]
fn format_on_string_is_only_a_format_violation() {
    let schema = object(json!({"u": {"type": "string", "format": "uri"}}));
    assert_eq!(rules(&schema), [Rule::SupportedFormat]);
}

#[test]
fn free_form_objects_are_lossy() {
    let schema = object(json!({"meta": {"type": "object", "description": "Anything"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "open": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"],
                 "additionalProperties": true}}));
    assert_eq!(rules(&schema), [Rule::AdditionalPropertiesFalse]);
    let strict = fixed(&schema);
    let meta = json!({"type": "object", "description": "Anything", "properties": {}, "additionalProperties": false});
    assert_eq!(strict.schema.pointer("/properties/meta"), Some(&meta));
    for at in ["#/properties/meta", "#/properties/labels", "#/properties/open"] {
        assert!(change(&strict, at).iter().any(|c| c.lossy), "{at}");
    }
}

#[test]
fn any_value_and_arrays_without_items() {
    let schema = object(json!({"v": {"description": "Any"}, "list": {"type": "array"}}));
    assert_eq!(rules(&schema), [Rule::SupportedType]);
    let strict = fixed(&schema);
    let scalars = json!([{"type": "string"}, {"type": "number"}, {"type": "boolean"}, {"type": "null"}]);
    assert_eq!(strict.schema.pointer("/properties/v"), Some(&json!({"description": "Any", "anyOf": scalars})));
    assert_eq!(strict.schema.pointer("/properties/list/items"), Some(&json!({"anyOf": scalars})));
    assert!(change(&strict, "#/properties/list/items").iter().all(|c| c.lossy));
}

#[test]
fn ref_siblings_are_wrapped_or_removed() {
    let mut schema = object(json!({"p": {"$ref": "#/$defs/P", "description": "The P", "default": {}},
                                   "q": {"$ref": "#/$defs/P", "title": "Q"}}));
    schema["$defs"] = json!({"P": object(json!({}))});
    assert_eq!(rules(&schema), [Rule::SupportedKeyword]);
    let strict = fixed(&schema);
    let p = json!({"anyOf": [{"$ref": "#/$defs/P"}], "description": "The P (default: {})"});
    assert_eq!(strict.schema.pointer("/properties/p"), Some(&p));
    assert_eq!(strict.schema.pointer("/properties/q"), Some(&json!({"$ref": "#/$defs/P"})));
    assert!(has_change(&strict, "#/properties/q", "removed title"));
}

#[test]
fn ref_targets_must_exist() {
    let mut schema = object(json!({"a": {"$ref": "#/$defs/Missing"}, "b": {"$ref": "#/definitions/Old"}}));
    schema["definitions"] = json!({"Old": {"type": "string"}});
    assert_eq!(rules(&schema), [Rule::SupportedKeyword, Rule::RefTarget]);
    let strict = fixed(&schema);
    assert!(change(&strict, "#/properties/a").iter().any(|c| c.lossy));
    assert_eq!(strict.schema.pointer("/properties/b"), Some(&json!({"$ref": "#/$defs/Old"})));
    assert_eq!(strict.schema.pointer("/$defs/Old"), Some(&json!({"type": "string"})));
}

#[test]
fn defs_are_rewritten_and_recursion_terminates() {
    let node = json!({"type": "object", "properties": {
        "value": {"type": "string", "maxLength": 3},
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
        "doc": {"$ref": "#"}}});
    let schema = json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}},
                        "required": ["root"], "$defs": {"Node": node}});
    let strict = fixed(&schema);
    let node = strict.schema.pointer("/$defs/Node");
    assert_eq!(node.and_then(|n| n.get("additionalProperties")), Some(&json!(false)));
    assert_eq!(node.and_then(|n| n.get("required")), Some(&json!(["children", "doc", "value"])));
    let doc = json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]});
    assert_eq!(node.and_then(|n| n.pointer("/properties/doc")), Some(&doc));
    assert!(has_change(&strict, "#/$defs/Node/properties/value", "removed maxLength"));
    assert!(strict.violations.is_empty());
}

#[test]
fn recursive_all_of_terminates() {
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"],
        "additionalProperties": false, "$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"},
        {"type": "object", "properties": {"x": {"allOf": [{"$ref": "#/$defs/A"}, {"description": "again"}]}}}]}}});
    let strict = fixed(&schema);
    assert!(has_change(&strict, "#/$defs/A", "merged allOf"));
    assert!(strict.schema.pointer("/$defs/A/properties/x").is_some());
}

#[test]
fn all_of_self_reference_inside_properties_terminates() {
    let a = json!({"allOf": [{"type": "object", "properties": {
        "x": {"allOf": [{"$ref": "#/$defs/A"}, {"required": ["x"]}]}, "y": {"type": "string"}}},
        {"$ref": "#/$defs/B"}, {"$ref": "#/$defs/B"}]});
    let b = json!({"type": "object", "properties": {"z": {"allOf": [{"$ref": "#"}, {"required": ["z"]}]}}});
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/A"},
        "b": {"allOf": [{"$ref": "#/$defs/A"}, {"description": "A again", "required": ["y"]}]}},
        "$defs": {"A": a, "B": b}});
    let strict = fixed(&schema);
    let x = json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]});
    assert_eq!(strict.schema.pointer("/$defs/A/properties/x"), Some(&x));
    assert!(has_change(&strict, "#/$defs/A/properties/x", "kept recursive allOf reference"));
    assert_eq!(strict.schema.pointer("/properties/b/properties/x"), Some(&x));
    let z = json!({"anyOf": [{"$ref": "#"}, {"type": "null"}]});
    assert_eq!(strict.schema.pointer("/properties/b/properties/z"), Some(&z));
    let inlined_root = strict.schema.pointer("/$defs/A/properties/z/properties/a");
    assert_eq!(inlined_root, Some(&json!({"anyOf": [{"$ref": "#/$defs/A"}, {"type": "null"}]})));
}

#[test]
fn any_of_siblings_move_into_branches() {
    let schema = object(json!({"p": {"type": "object", "properties": {"a": {"type": "string"},
        "b": {"type": "string"}}, "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}));
    let expected = [Rule::AdditionalPropertiesFalse, Rule::AllRequired, Rule::SupportedType, Rule::SupportedKeyword];
    assert_eq!(rules(&schema), expected);
    let strict = fixed(&schema);
    assert!(has_change(&strict, "#/properties/p", "moved properties, type into each anyOf branch"));
    let first = strict.schema.pointer("/properties/p/anyOf/0/properties/b");
    assert_eq!(first, Some(&json!({"type": ["string", "null"]})));
}

#[test]
fn nesting_limit_is_reported() {
    let mut schema = object(json!({"leaf": {"type": "string"}}));
    for _ in 0..10 {
        schema = object(json!({"child": schema}));
    }
    assert_eq!(rules(&schema), [Rule::Nesting]);
    let strict = fixed(&schema);
    assert_eq!(strict.violations.len(), 1);
    assert_eq!(strict.violations[0].rule, Rule::Nesting);
    assert!(strict.violations[0].at.ends_with("/properties/child/properties/child"));
    assert!(strict.changes.is_empty());
}

#[test]
fn nesting_counts_through_refs_but_not_recursion() {
    let mut schema = object(json!({"d": {"$ref": "#/$defs/D0"}}));
    let mut defs = Object::new();
    for i in 0..10 {
        let next = if i == 9 { json!({"type": "string"}) } else { json!({"$ref": format!("#/$defs/D{}", i + 1)}) };
        defs.insert(format!("D{i}"), object(json!({"n": next, "self": {"$ref": format!("#/$defs/D{i}")}})));
    }
    schema["$defs"] = Value::Object(defs);
    assert_eq!(rules(&schema), [Rule::Nesting]);
}

#[test]
fn property_count_limit_is_reported() {
    let properties: Object = (0..5001).map(|i| (format!("p{i}"), json!({"type": "string"}))).collect();
    let schema = object(Value::Object(properties));
    assert_eq!(rules(&schema), [Rule::PropertyCount]);
    assert_eq!(fixed(&schema).violations.iter().map(|v| v.rule).collect::<Vec<_>>(), [Rule::PropertyCount]);
}

#[test]
fn enum_count_limit_is_reported() {
    let values: Vec<String> = (0..100).map(|i| format!("v{i}")).collect();
    let properties: Object = (0..11).map(|i| (format!("e{i}"), json!({"type": "string", "enum": values}))).collect();
    let schema = object(Value::Object(properties));
    assert_eq!(rules(&schema), [Rule::EnumCount]);
    assert_eq!(fixed(&schema).violations.iter().map(|v| v.rule).collect::<Vec<_>>(), [Rule::EnumCount]);
}

#[test]
fn enum_size_limit_is_reported() {
    let values: Vec<String> = (0..251).map(|i| format!("{i:0>60}")).collect();
    let schema = object(json!({"e": {"type": "string", "enum": values}}));
    assert_eq!(rules(&schema), [Rule::EnumSize]);
    let strict = fixed(&schema);
    assert_eq!(strict.violations.len(), 1);
    assert_eq!(strict.violations[0].at, "#/properties/e");
}

#[test]
fn string_size_limit_is_reported() {
    let properties: Object = (0..130).map(|i| (format!("{i:0>1000}"), json!({"type": "string"}))).collect();
    let schema = json!({"type": "object", "properties": properties, "additionalProperties": false});
    assert_eq!(rules(&schema), [Rule::AllRequired, Rule::StringSize]);
    let strict = fixed(&schema);
    assert_eq!(strict.violations.iter().map(|v| v.rule).collect::<Vec<_>>(), [Rule::StringSize]);
}

#[test]
fn already_strict_schema_is_unchanged() {
    let schema = json!({"type": "object", "additionalProperties": false, "title": "Search",
        "required": ["q", "n", "tags", "mode", "at"],
        "properties": {
            "q": {"type": "string", "description": "Query", "format": "email", "pattern": "^.+$"},
            "n": {"type": ["integer", "null"], "minimum": 1, "exclusiveMaximum": 100},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "maxItems": 3},
            "mode": {"anyOf": [{"$ref": "#/$defs/Mode"}, {"type": "null"}], "description": "Mode"},
            "at": {"type": "object", "properties": {}, "additionalProperties": false}},
        "$defs": {"Mode": {"type": "string", "enum": ["x", "y"]}}});
    assert_eq!(violations(&schema), []);
    let strict = strictify(&schema);
    assert_eq!(strict.schema, schema);
    assert_eq!(strict.changes, []);
    assert_eq!(strict.violations, []);
}

#[test]
fn pointers_escape_property_names() {
    let schema = json!({"type": "object", "additionalProperties": false,
                        "properties": {"a/b": {"type": "string"}, "t~x": {"type": "string", "minLength": 2}}});
    let found = violations(&object(json!({"a/b": {"type": "string", "maxLength": 1}})));
    assert_eq!(found[0].at, "#/properties/a~1b");
    let strict = fixed(&schema);
    assert!(has_change(&strict, "#/properties/a~1b", "made required"));
    assert!(has_change(&strict, "#/properties/t~0x", "removed minLength"));
}

#[test]
fn rewriting_is_deterministic_and_idempotent() {
    let schema = json!({"type": "object", "properties": {
        "a": {"oneOf": [{"type": "string", "default": "x"}, {"type": "object"}]},
        "b": {"type": ["string", "integer"], "nullable": true, "format": "uri"},
        "c": {"allOf": [{"$ref": "#/$defs/C"}, {"required": ["z"]}]}},
        "$defs": {"C": {"properties": {"z": {"type": "number"}}}}});
    let first = fixed(&schema);
    assert_eq!(first, strictify(&schema));
    let b = json!({"type": ["string", "integer", "null"]});
    assert_eq!(first.schema.pointer("/properties/b"), Some(&b));
    let again = strictify(&first.schema);
    assert_eq!(again.schema, first.schema);
    assert_eq!(again.changes, []);
}

#[test]
fn serializes_compactly() {
    let change = Change { at: "#".into(), kind: ChangeKind::KeywordsRemoved, what: "x".into(), lossy: false };
    assert_eq!(serde_json::to_value(&change).ok(), Some(json!({"at": "#", "kind": "keywords_removed", "what": "x"})));
    let violation = Violation { rule: Rule::AdditionalPropertiesFalse, at: "#".into(), message: "m".into() };
    let value = serde_json::to_value(&violation).ok();
    assert_eq!(value, Some(json!({"rule": "additional_properties_false", "at": "#", "message": "m"})));
}
