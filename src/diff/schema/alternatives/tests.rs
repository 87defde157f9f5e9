use serde_json::{Map, Value, json};

use super::{Pairing, pair};
use crate::diff::Kind;
use crate::diff::schema::tests::{input, output, seen};

/// A rule of a ruleset as GitHub describes one: a title and a `type` fixed to one value.
fn rule(kind: &str, extra: Value) -> Value {
    let mut props = json!({"type": {"type": "string", "enum": [kind]}});
    if let (Some(p), Value::Object(more)) = (props.as_object_mut(), extra) {
        p.extend(more);
    }
    json!({"title": kind, "type": "object", "required": ["type"], "properties": props})
}

fn pairing(old: Value, new: Value) -> Pairing {
    let empty = Map::new();
    let (Some(old), Some(new)) = (old.as_array(), new.as_array()) else { panic!("lists") };
    pair((old, &empty, &empty), (new, &empty, &empty)).0
}

#[test]
fn a_dropped_and_an_added_alternative_move_no_other() {
    let params = json!({"parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}});
    let old = json!([
        rule("creation", json!({})),
        rule("merge_queue", params.clone()),
        rule("update", json!({})),
        rule("deletion", json!({}))
    ]);
    let new = json!([
        rule("creation", json!({})),
        rule("update", json!({})),
        rule("deletion", json!({})),
        rule("file_size", params)
    ]);
    assert_eq!(pairing(old, new), Pairing { pairs: vec![(0, 0), (2, 1), (3, 2)], removed: vec![1], added: vec![3] });
}

#[test]
fn alternatives_pair_by_tag_title_definition_or_likeness() {
    // Tags win over titles that changed.
    let tagged = |title: &str, kind: &str| json!({"title": title, "properties": {"kind": {"const": kind}}});
    let p = pairing(json!([tagged("A", "a"), tagged("B", "b")]), json!([tagged("Bee", "b"), tagged("Ay", "a")]));
    assert_eq!(p.pairs, [(0, 1), (1, 0)]);
    // Titles, when nothing else tells.
    let titled = |title: &str, t: &str| json!({"title": title, "type": t});
    let p = pairing(
        json!([titled("x", "string"), titled("y", "string")]),
        json!([titled("y", "string"), titled("x", "integer")]),
    );
    assert_eq!(p.pairs, [(0, 1), (1, 0)]);
    // The definitions `$ref`s name.
    let p = pairing(
        json!([{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}]),
        json!([{"$ref": "#/$defs/Dog"}, {"$ref": "#/$defs/Cat"}]),
    );
    assert_eq!(p.pairs, [(0, 1), (1, 0)]);
    // Likeness: the object with the same properties, whatever its place.
    let obj = |props: &[&str]| json!({"type": "object", "properties": props.iter().map(|p| (p.to_string(), json!({}))).collect::<Map<_, _>>()});
    let p = pairing(json!([obj(&["a", "b"]), obj(&["c", "d"])]), json!([obj(&["c", "d", "e"]), obj(&["x", "y"])]));
    assert_eq!(p, Pairing { pairs: vec![(1, 0)], removed: vec![0], added: vec![1] });
    // Integers are numbers: the closest match of a number.
    let p = pairing(
        json!([{"type": "string"}, {"type": "number"}]),
        json!([{"type": "integer"}, {"type": "string", "maxLength": 3}]),
    );
    assert_eq!(p.pairs, [(0, 1), (1, 0)]);
}

#[test]
fn different_tags_are_never_partners_and_shared_keys_pair_nothing() {
    let tagged = |kind: &str| json!({"type": "object", "properties": {"kind": {"const": kind}, "n": {}}});
    let p = pairing(json!([tagged("a"), tagged("b")]), json!([tagged("a"), tagged("c")]));
    assert_eq!(p, Pairing { pairs: vec![(0, 0)], removed: vec![1], added: vec![1] });
    // Two new alternatives titled alike: the title tells nothing; their likeness does.
    let p = pairing(
        json!([{"title": "t", "type": "string"}]),
        json!([{"title": "t", "type": "boolean"}, {"title": "t", "type": "string"}]),
    );
    assert_eq!(p, Pairing { pairs: vec![(0, 1)], removed: vec![], added: vec![0] });
}

#[test]
fn a_discriminator_names_the_tag() {
    let empty = Map::new();
    let parent = json!({"discriminator": {"propertyName": "pet"}});
    let alt = |pet: &str, kind: &str| json!({"properties": {"pet": {"const": pet}, "kind": {"const": kind}}});
    // `kind` is fixed in every alternative too, but the discriminator says `pet` tells them apart.
    let old = json!([alt("cat", "k"), alt("dog", "l")]);
    let new = json!([alt("dog", "k"), alt("cat", "l")]);
    let (Some(old), Some(new), Some(parent)) = (old.as_array(), new.as_array(), parent.as_object()) else { panic!() };
    let (p, labels) = pair((old, parent, &empty), (new, parent, &empty));
    assert_eq!(p.pairs, [(0, 1), (1, 0)]);
    assert_eq!(labels.old[0].as_deref(), Some("`pet` \"cat\""));
}

/// The rules of a ruleset: a `rules` argument whose items are one of the rules.
fn rules(list: Value) -> Value {
    json!({"type": "object", "properties": {"rules": {"type": "array", "items": {"oneOf": list}}}})
}

#[test]
fn a_shifted_one_of_reports_the_alternatives_that_came_and_went() {
    let params = |p: &str| json!({"parameters": {"type": "object", "required": [p], "properties": {p: {"type": "integer", "minimum": 1}}}});
    let old = rules(json!([
        rule("creation", json!({})),
        rule("merge_queue", params("timeout")),
        rule("pull_request", params("approvals")),
        rule("max_file_size", params("size"))
    ]));
    let new = rules(json!([
        rule("creation", json!({})),
        rule("pull_request", params("approvals")),
        rule("max_file_size", params("size")),
        rule("copilot_review", params("depth"))
    ]));
    let c = input(old.clone(), new.clone());
    assert_eq!(
        seen(&c),
        [
            (Kind::AlternativeRemoved, "/inputSchema/properties/rules/items/oneOf/1", true),
            (Kind::AlternativeAdded, "/inputSchema/properties/rules/items/oneOf/3", false),
        ]
    );
    assert_eq!(c[0].explanation, "oneOf alternative `type` \"merge_queue\" is gone: values of its form are refused");
    assert_eq!(c[1].explanation, "new oneOf alternative `type` \"copilot_review\": values of its form are accepted");
    // Read rather than written, the other way round.
    let c = output(old, new);
    assert_eq!(
        c.iter().map(|c| (c.kind, c.breaking)).collect::<Vec<_>>(),
        [(Kind::AlternativeRemoved, false), (Kind::AlternativeAdded, true)]
    );
}

#[test]
fn a_change_inside_a_moved_alternative_points_at_its_new_place() {
    let old = rules(json!([rule("a", json!({})), rule("b", json!({"n": {"type": "number"}}))]));
    let new = rules(json!([rule("b", json!({"n": {"type": "integer"}})), rule("a", json!({}))]));
    assert_eq!(
        seen(&input(old, new)),
        [(Kind::TypeNarrowed, "/inputSchema/properties/rules/items/oneOf/0/properties/n/type", true)]
    );
}

#[test]
fn all_of_members_narrow_when_added() {
    let schema = |members: Value| json!({"type": "object", "properties": {"a": {"allOf": members}}});
    let one = schema(json!([{"type": "object", "required": ["x"]}]));
    let two = schema(json!([{"type": "object", "required": ["x"]}, {"title": "Named", "required": ["name"]}]));
    let c = input(one.clone(), two.clone());
    assert_eq!(seen(&c), [(Kind::AlternativeAdded, "/inputSchema/properties/a/allOf/1", true)]);
    assert_eq!(c[0].explanation, "new allOf alternative \"Named\": values must match it too");
    assert_eq!(
        seen(&input(two.clone(), one.clone())),
        [(Kind::AlternativeRemoved, "/inputSchema/properties/a/allOf/1", false)]
    );
    assert_eq!(changes_of(output(two, one)), [(Kind::AlternativeRemoved, true)]);
}

fn changes_of(c: Vec<crate::diff::Change>) -> Vec<(Kind, bool)> {
    c.iter().map(|c| (c.kind, c.breaking)).collect()
}

#[test]
fn alternatives_cut_short_pair_by_their_description_or_type() {
    let cut = |what: &str| json!({"type": "object", "description": format!("{what} (nested structure not shown)")});
    let full = |what: &str| json!({"type": "object", "description": format!("{what} More."), "properties": {"a": {}}});
    // One more in the middle: the others keep their partners.
    let p = pairing(
        json!([cut("A commit."), cut("A wiki."), cut("An issue.")]),
        json!([cut("A commit."), cut("A gist."), cut("A wiki."), cut("An issue.")]),
    );
    assert_eq!(p, Pairing { pairs: vec![(0, 0), (1, 2), (2, 3)], removed: vec![], added: vec![1] });
    // What one side shows in full, the other cut short: the same first sentences.
    let p = pairing(json!([full("A commit."), full("A wiki.")]), json!([cut("A wiki."), cut("A commit.")]));
    assert_eq!(p.pairs, [(0, 1), (1, 0)]);
    // Nothing to tell them by but their type: by position.
    let p = pairing(json!([full("x"), full("y")]), json!([cut("z"), cut("w")]));
    assert_eq!(p.pairs, [(0, 0), (1, 1)]);
}
