use serde_json::{Value, json};

use super::{Direction, compare};
use crate::diff::{Change, Kind, Sink};

pub(super) fn changes(old: Value, new: Value, direction: Direction) -> Vec<Change> {
    let mut out = Vec::new();
    let mut sink = Sink { tool: "t", old_tool: None, changes: &mut out };
    let (Some(old), Some(new)) = (old.as_object(), new.as_object()) else { panic!("schemas are objects") };
    let root = if direction == Direction::Input { "/inputSchema" } else { "/outputSchema" };
    compare(old, new, root, direction, &mut sink);
    out
}

/// Each change as (kind, pointer, breaking).
pub(super) fn seen(changes: &[Change]) -> Vec<(Kind, &str, bool)> {
    changes.iter().map(|c| (c.kind, c.pointer.as_str(), c.breaking)).collect()
}

pub(super) fn input(old: Value, new: Value) -> Vec<Change> {
    changes(old, new, Direction::Input)
}

pub(super) fn output(old: Value, new: Value) -> Vec<Change> {
    changes(old, new, Direction::Output)
}

/// An input schema with one optional argument `a`.
fn arg(schema: Value) -> Value {
    json!({"type": "object", "properties": {"a": schema}})
}

#[test]
fn equal_schemas_have_no_changes() {
    let s = arg(json!({"type": "string", "enum": ["x"], "maxLength": 3}));
    assert!(input(s.clone(), s).is_empty());
}

#[test]
fn a_type_that_no_longer_takes_null_is_narrowed() {
    let c = input(arg(json!({"type": ["string", "null"]})), arg(json!({"type": "string"})));
    assert_eq!(seen(&c), [(Kind::TypeNarrowed, "/inputSchema/properties/a/type", true)]);
    assert_eq!(c[0].explanation, "no longer accepts null");
    assert_eq!((c[0].old.clone(), c[0].new.clone()), (Some(json!(["null", "string"])), Some(json!("string"))));
}

#[test]
fn number_to_integer_is_narrowed() {
    let c = input(arg(json!({"type": "number"})), arg(json!({"type": "integer"})));
    assert_eq!(seen(&c), [(Kind::TypeNarrowed, "/inputSchema/properties/a/type", true)]);
    assert_eq!(c[0].explanation, "no longer accepts fractional numbers");
}

#[test]
fn integer_to_number_is_widened() {
    let c = input(arg(json!({"type": "integer"})), arg(json!({"type": "number"})));
    assert_eq!(seen(&c), [(Kind::TypeWidened, "/inputSchema/properties/a/type", false)]);
}

#[test]
fn a_type_replaced_by_another_is_changed() {
    let c = input(arg(json!({"type": "string"})), arg(json!({"type": "integer"})));
    assert_eq!(seen(&c), [(Kind::TypeChanged, "/inputSchema/properties/a/type", true)]);
    assert_eq!(c[0].explanation, "was string, now integer");
}

#[test]
fn a_type_where_there_was_none_is_narrowed() {
    let c = input(arg(json!({})), arg(json!({"type": "string"})));
    assert_eq!(seen(&c), [(Kind::TypeNarrowed, "/inputSchema/properties/a/type", true)]);
    assert_eq!(c[0].explanation, "no longer accepts values of other types than string");
}

#[test]
fn a_nullable_wrapper_reads_as_a_type_that_takes_null() {
    let defs = json!({"Pet": {"type": "object", "properties": {"id": {"type": "integer"}}}});
    let old = json!({"type": "object", "properties": {"a": {"anyOf": [{"$ref": "#/$defs/Pet"}, {"type": "null"}]}}, "$defs": defs});
    let new = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/Pet"}}, "$defs": defs});
    assert_eq!(seen(&input(old.clone(), new.clone())), [(Kind::TypeNarrowed, "/inputSchema/properties/a/type", true)]);
    assert_eq!(seen(&input(new, old)), [(Kind::TypeWidened, "/inputSchema/properties/a/type", false)]);
}

#[test]
fn an_enum_value_removed_is_narrowed() {
    let c = input(
        arg(json!({"type": "string", "enum": ["open", "closed", "all"]})),
        arg(json!({"type": "string", "enum": ["open", "closed"]})),
    );
    assert_eq!(seen(&c), [(Kind::EnumNarrowed, "/inputSchema/properties/a/enum", true)]);
    assert_eq!(c[0].explanation, "no longer accepts \"all\"");
}

#[test]
fn an_enum_value_added_is_widened() {
    let c = input(arg(json!({"enum": ["open"]})), arg(json!({"enum": ["open", "all"]})));
    assert_eq!(seen(&c), [(Kind::EnumWidened, "/inputSchema/properties/a/enum", false)]);
}

#[test]
fn an_enum_value_replaced_is_narrowed() {
    let c = input(arg(json!({"enum": ["a", "b"]})), arg(json!({"enum": ["a", "c"]})));
    assert_eq!(seen(&c), [(Kind::EnumNarrowed, "/inputSchema/properties/a/enum", true)]);
    assert_eq!(c[0].explanation, "no longer accepts \"b\"; now accepts \"c\"");
}

#[test]
fn a_new_enum_is_narrowed_and_a_gone_one_widened() {
    assert_eq!(
        seen(&input(arg(json!({})), arg(json!({"enum": [1]})))),
        [(Kind::EnumNarrowed, "/inputSchema/properties/a/enum", true)]
    );
    assert_eq!(
        seen(&input(arg(json!({"const": 1})), arg(json!({})))),
        [(Kind::EnumWidened, "/inputSchema/properties/a/const", false)]
    );
}

#[test]
fn null_leaving_a_typed_enum_is_the_types_to_say() {
    let c = input(
        arg(json!({"type": ["string", "null"], "enum": ["a", null]})),
        arg(json!({"type": "string", "enum": ["a"]})),
    );
    assert_eq!(seen(&c), [(Kind::TypeNarrowed, "/inputSchema/properties/a/type", true)]);
}

#[test]
fn a_lowered_max_length_is_narrowed() {
    let c = input(arg(json!({"type": "string", "maxLength": 100})), arg(json!({"type": "string", "maxLength": 50})));
    assert_eq!(seen(&c), [(Kind::ConstraintNarrowed, "/inputSchema/properties/a/maxLength", true)]);
    assert_eq!(c[0].explanation, "maxLength lowered from 100 to 50");
}

#[test]
fn a_raised_maximum_is_widened() {
    let c = input(arg(json!({"maximum": 10})), arg(json!({"maximum": 100})));
    assert_eq!(seen(&c), [(Kind::ConstraintWidened, "/inputSchema/properties/a/maximum", false)]);
}

#[test]
fn a_raised_minimum_is_narrowed() {
    let c = input(arg(json!({"minimum": 0})), arg(json!({"minimum": 1})));
    assert_eq!(seen(&c), [(Kind::ConstraintNarrowed, "/inputSchema/properties/a/minimum", true)]);
}

#[test]
fn a_new_bound_is_narrowed_and_a_gone_one_widened() {
    assert_eq!(
        seen(&input(arg(json!({})), arg(json!({"maxItems": 5})))),
        [(Kind::ConstraintNarrowed, "/inputSchema/properties/a/maxItems", true)]
    );
    assert_eq!(
        seen(&input(arg(json!({"minLength": 1})), arg(json!({})))),
        [(Kind::ConstraintWidened, "/inputSchema/properties/a/minLength", false)]
    );
}

#[test]
fn a_new_pattern_is_narrowed() {
    let c = input(arg(json!({"type": "string"})), arg(json!({"type": "string", "pattern": "^[a-z]+$"})));
    assert_eq!(seen(&c), [(Kind::ConstraintNarrowed, "/inputSchema/properties/a/pattern", true)]);
}

#[test]
fn a_changed_pattern_breaks_and_a_gone_one_does_not() {
    assert_eq!(
        seen(&input(arg(json!({"pattern": "a"})), arg(json!({"pattern": "b"})))),
        [(Kind::ConstraintChanged, "/inputSchema/properties/a/pattern", true)]
    );
    assert_eq!(
        seen(&input(arg(json!({"pattern": "a"})), arg(json!({})))),
        [(Kind::ConstraintWidened, "/inputSchema/properties/a/pattern", false)]
    );
}

#[test]
fn a_new_required_argument_breaks() {
    let new = json!({"type": "object", "properties": {"a": {}, "b": {"type": "string"}}, "required": ["b"]});
    let c = input(arg(json!({})), new);
    assert_eq!(seen(&c), [(Kind::RequiredArgumentAdded, "/inputSchema/properties/b", true)]);
    assert_eq!(c[0].explanation, "new required argument `b`: calls without it are refused");
}

#[test]
fn a_new_optional_argument_does_not_break() {
    let new = json!({"type": "object", "properties": {"a": {}, "b": {"type": "string"}}});
    assert_eq!(seen(&input(arg(json!({})), new)), [(Kind::OptionalArgumentAdded, "/inputSchema/properties/b", false)]);
}

#[test]
fn a_removed_argument_breaks() {
    let c = input(arg(json!({"type": "string"})), json!({"type": "object", "properties": {}}));
    assert_eq!(seen(&c), [(Kind::ArgumentRemoved, "/inputSchema/properties/a", true)]);
    assert_eq!(c[0].old, Some(json!({"type": "string"})));
}

#[test]
fn an_argument_that_became_required_breaks_and_optional_does_not() {
    let required = json!({"type": "object", "properties": {"a": {}}, "required": ["a"]});
    assert_eq!(
        seen(&input(arg(json!({})), required.clone())),
        [(Kind::ArgumentBecameRequired, "/inputSchema/required", true)]
    );
    assert_eq!(
        seen(&input(required, arg(json!({})))),
        [(Kind::ArgumentBecameOptional, "/inputSchema/required", false)]
    );
}

#[test]
fn nested_properties_are_properties_and_pointers_escape_names() {
    let old = arg(json!({"type": "array", "items": {"type": "object", "properties": {"a/b~c": {"type": "string"}}}}));
    let new = arg(json!({"type": "array", "items": {"type": "object", "properties": {}}}));
    let c = input(old, new);
    assert_eq!(seen(&c), [(Kind::ArgumentRemoved, "/inputSchema/properties/a/items/properties/a~1b~0c", true)]);
    assert!(c[0].explanation.starts_with("property `a/b~c`"), "{}", c[0].explanation);
}

#[test]
fn refs_are_followed_and_recursion_ends() {
    let schema = |leaf: &str| {
        json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": {
            "type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}, "v": {"type": leaf}}}}})
    };
    let c = input(schema("number"), schema("integer"));
    assert_eq!(seen(&c), [(Kind::TypeNarrowed, "/inputSchema/properties/node/properties/v/type", true)]);
}

#[test]
fn closing_an_object_is_narrowed() {
    let closed = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let open = json!({"type": "object", "properties": {}});
    assert_eq!(
        seen(&input(open.clone(), closed.clone())),
        [(Kind::ConstraintNarrowed, "/inputSchema/additionalProperties", true)]
    );
    assert_eq!(seen(&input(closed, open)), [(Kind::ConstraintWidened, "/inputSchema/additionalProperties", false)]);
}

#[test]
fn alternatives_pair_by_content_and_the_others_come_and_go() {
    let two = |t: &str| arg(json!({"anyOf": [{"type": "string"}, {"type": t}]}));
    assert_eq!(
        seen(&input(two("number"), two("integer"))),
        [(Kind::TypeNarrowed, "/inputSchema/properties/a/anyOf/1/type", true)]
    );
    let three = arg(json!({"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]}));
    assert_eq!(
        seen(&input(three.clone(), two("number"))),
        [(Kind::AlternativeRemoved, "/inputSchema/properties/a/anyOf/2", true)]
    );
    assert_eq!(
        seen(&input(two("number"), three)),
        [(Kind::AlternativeAdded, "/inputSchema/properties/a/anyOf/2", false)]
    );
    let none = arg(json!({"type": "string"}));
    assert_eq!(
        seen(&input(two("number"), none))[1..],
        [(Kind::AlternativesChanged, "/inputSchema/properties/a/anyOf", true)]
    );
}

#[test]
fn a_response_property_removed_breaks_and_one_added_does_not() {
    let old = json!({"type": "object", "properties": {"id": {"type": "integer"}, "name": {"type": "string"}}});
    let new = json!({"type": "object", "properties": {"id": {"type": "integer"}, "title": {"type": "string"}}});
    assert_eq!(
        seen(&output(old, new)),
        [
            (Kind::ResponsePropertyRemoved, "/outputSchema/properties/name", true),
            (Kind::ResponsePropertyAdded, "/outputSchema/properties/title", false)
        ]
    );
}

#[test]
fn a_response_type_that_may_hold_more_breaks_and_one_that_holds_less_does_not() {
    let old = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
    let new = json!({"type": "object", "properties": {"id": {"type": ["integer", "null"]}}});
    let c = output(old.clone(), new.clone());
    assert_eq!(seen(&c), [(Kind::ResponseTypeChanged, "/outputSchema/properties/id/type", true)]);
    assert_eq!(c[0].explanation, "may now hold null (was integer): readers of the old type may fail");
    assert_eq!(seen(&output(new, old)), [(Kind::ResponseTypeChanged, "/outputSchema/properties/id/type", false)]);
}

#[test]
fn responses_ignore_what_only_writers_care_about() {
    let old = json!({"type": "object", "properties": {"s": {"type": "string", "enum": ["a", "b"], "maxLength": 3}}, "required": ["s"]});
    let new = json!({"type": "object", "properties": {"s": {"type": "string", "enum": ["a"], "maxLength": 1, "pattern": "a"}}});
    assert!(output(old, new).is_empty());
}

#[test]
fn what_a_schema_cut_short_held_is_not_compared() {
    let full = arg(json!({"type": "object", "properties": {"id": {"type": "integer"}}}));
    let cut = arg(json!({"type": ["object", "null"], "description": "A team. (nested structure not shown)"}));
    assert!(output(full.clone(), cut.clone()).iter().all(|c| c.kind == Kind::ResponseTypeChanged), "only the type");
    assert_eq!(seen(&input(cut, full)), [(Kind::TypeNarrowed, "/inputSchema/properties/a/type", true)]);
}
