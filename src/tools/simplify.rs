//! `allOf`s that only annotate one schema become that schema.
//!
//! Inlining turns a `$ref` with siblings (`{"$ref": ..., "description": ...}`) into
//! `{"description": ..., "allOf": [<target>]}` when the two cannot be merged plainly, and AWS and
//! Azure documents spell the same thing `allOf: [{$ref}, {description}]`. Such an `allOf` is merged
//! into its parent when nothing is lost: at most one branch constrains anything, the others only
//! annotate, and the constraining branch's keywords neither collide with nor depend on the
//! parent's. Everything else keeps its `allOf`.

use serde_json::{Map, Value};

use crate::schema::keywords::{ADJACENT, SCOPING, SEES_ADJACENT, is_annotation, subschemas_mut};

/// Merges, everywhere in a schema (schema positions only, never data such as `enum` or
/// `default`), every `allOf` that only adds annotations to at most one schema. Innermost first,
/// so a merged branch arrives already simplified.
pub(super) fn merge_annotation_all_of(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    subschemas_mut(obj).for_each(merge_annotation_all_of);
    let Some(Value::Array(branches)) = obj.get("allOf") else { return };
    let Some(merged) = merged_branches(obj, branches) else { return };
    obj.remove("allOf");
    for (key, value) in merged {
        // The parent's own annotations are the more specific ones.
        obj.entry(key).or_insert(value);
    }
}

/// The keywords an `allOf`'s branches bring into `parent`, or `None` when merging them would lose
/// or change meaning.
fn merged_branches(parent: &Map<String, Value>, branches: &[Value]) -> Option<Map<String, Value>> {
    let branches: Vec<&Map<String, Value>> = branches.iter().map(Value::as_object).collect::<Option<_>>()?;
    if branches.is_empty() {
        return None;
    }
    let (substantive, annotating): (Vec<_>, Vec<_>) =
        branches.into_iter().partition(|b| b.keys().any(|k| !is_annotation(k)));
    if substantive.len() > 1 {
        return None;
    }
    let mut out = Map::new();
    for (key, value) in annotating.into_iter().flatten() {
        match out.get(key) {
            // Two branches annotate one keyword differently: choosing one would lose the other.
            Some(seen) if seen != value => return None,
            Some(_) => {}
            None => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    if let Some(branch) = substantive.first() {
        if !fits(parent, branch) {
            return None;
        }
        for (key, value) in branch.iter() {
            // An annotation beside the schema (a `$ref`'s sibling) outranks the schema's own.
            out.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
    Some(out)
}

/// Whether `branch`'s keywords can join `parent`'s (its `allOf` aside) in one schema object with
/// the same meaning.
fn fits(parent: &Map<String, Value>, branch: &Map<String, Value>) -> bool {
    let constraints = |m: &Map<String, Value>| -> Vec<String> {
        m.keys().filter(|k| !is_annotation(k) && *k != "allOf").cloned().collect()
    };
    let (mine, theirs) = (constraints(parent), constraints(branch));
    if mine.is_empty() && !branch.keys().any(|k| SCOPING.contains(&k.as_str())) {
        return true;
    }
    let has = |keys: &[String], names: &[&str]| keys.iter().any(|k| names.contains(&k.as_str()));
    // A `$ref` beside constraints is ignored by validators of drafts before 2019-09.
    let reference = has(&mine, &["$ref"]) || has(&theirs, &["$ref"]);
    let collision = theirs.iter().any(|k| parent.get(k).is_some_and(|v| Some(v) != branch.get(k)));
    // Parent and branch both use one group of interdependent keywords (`additionalProperties` and
    // `properties`, ...), or a keyword that sees all its neighbours would see more than before.
    let entangled = ADJACENT.iter().any(|g| has(&mine, g) && has(&theirs, g))
        || has(&mine, &SEES_ADJACENT)
        || has(&theirs, &SEES_ADJACENT);
    // A branch that scopes a resource or names a location in it stays a branch.
    !(reference || collision || entangled || has(&theirs, &SCOPING))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn merged(mut v: Value) -> Value {
        merge_annotation_all_of(&mut v);
        v
    }

    #[test]
    fn annotation_branches_merge() {
        // The AWS shape: a `$ref` with a sibling description, once inlined.
        let aws = json!({"allOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"description": "The key."}]});
        assert_eq!(merged(aws), json!({"type": "string", "pattern": "^[a-z]+$", "description": "The key."}));
        // Annotation-only and empty branches (an `xml`-only branch once `xml` is dropped).
        assert_eq!(
            merged(json!({"allOf": [{"type": "integer"}, {}, {"x-order": 1, "$comment": "c"}]})),
            json!({"type": "integer", "x-order": 1, "$comment": "c"})
        );
        assert_eq!(merged(json!({"allOf": [{"title": "T"}, {}]})), json!({"title": "T"}));
    }

    #[test]
    fn outer_annotations_win() {
        let v = json!({"description": "outer", "allOf": [
            {"type": "string", "description": "schema's own", "title": "S"}, {"description": "sibling", "deprecated": true}]});
        assert_eq!(merged(v), json!({"type": "string", "description": "outer", "title": "S", "deprecated": true}));
        let v = json!({"allOf": [{"type": "string", "description": "schema's own"}, {"description": "sibling"}]});
        assert_eq!(merged(v), json!({"type": "string", "description": "sibling"}));
        // Two branches that annotate differently: either choice would lose one.
        let v = json!({"allOf": [{"type": "string"}, {"description": "a"}, {"description": "b"}]});
        assert_eq!(merged(v.clone()), v);
    }

    #[test]
    fn a_kept_cycle_reference_takes_its_annotations() {
        let v = json!({"allOf": [{"$ref": "#/$defs/X"}], "description": "d"});
        assert_eq!(merged(v), json!({"$ref": "#/$defs/X", "description": "d"}));
        // Beside constraints a `$ref` would be ignored by older validators.
        let v = json!({"type": "object", "allOf": [{"$ref": "#/$defs/X"}]});
        assert_eq!(merged(v.clone()), v);
        let v = json!({"$ref": "#/$defs/X", "allOf": [{"type": "object"}]});
        assert_eq!(merged(v.clone()), v);
    }

    #[test]
    fn single_branches_merge_when_nothing_collides() {
        let v = json!({"minLength": 1, "description": "d", "allOf": [{"type": "string", "maxLength": 9}]});
        assert_eq!(merged(v), json!({"minLength": 1, "description": "d", "type": "string", "maxLength": 9}));
        // Equal values are no collision.
        let v = json!({"type": "string", "allOf": [{"type": "string", "format": "date"}]});
        assert_eq!(merged(v), json!({"type": "string", "format": "date"}));
        // A branch's own `allOf` moves up as it is.
        let inner = json!([{"type": "object"}, {"required": ["a"]}]);
        assert_eq!(merged(json!({"title": "T", "allOf": [{"allOf": inner}]})), json!({"title": "T", "allOf": inner}));
    }

    #[test]
    fn meaning_is_never_changed() {
        let kept = [
            // Two substantive branches.
            json!({"allOf": [{"type": "object"}, {"required": ["a"]}]}),
            // Colliding constraints.
            json!({"maxLength": 10, "allOf": [{"type": "string", "maxLength": 128}, {"description": "d"}]}),
            // `additionalProperties` sees only the properties beside it.
            json!({"additionalProperties": false, "allOf": [{"properties": {"a": {}}}]}),
            json!({"prefixItems": [{}], "allOf": [{"items": false}]}),
            json!({"if": {"type": "string"}, "allOf": [{"then": {"minLength": 1}}]}),
            json!({"contentMediaType": "application/json", "allOf": [{"contentSchema": {"type": "object"}}]}),
            json!({"type": "object", "allOf": [{"unevaluatedProperties": false}]}),
            json!({"unevaluatedProperties": false, "allOf": [{"properties": {"a": {}}}]}),
            // Branches that scope or name a location.
            json!({"type": "object", "allOf": [{"$anchor": "a", "required": ["a"]}]}),
            json!({"allOf": [{"$id": "https://example.com/s", "type": "string"}]}),
            // Not objects, or nothing to merge.
            json!({"allOf": [true, {"description": "d"}]}),
            json!({"allOf": []}),
            json!({"allOf": {"type": "string"}}),
        ];
        for v in kept {
            assert_eq!(merged(v.clone()), v);
        }
    }

    #[test]
    fn every_schema_position_and_no_data() {
        let shape = || json!({"allOf": [{"type": "string"}, {"description": "d"}]});
        let plain = json!({"type": "string", "description": "d"});
        let v = json!({
            "properties": {"allOf": shape(), "default": shape(), "p": {"items": shape(), "additionalProperties": shape()}},
            "anyOf": [shape(), {"prefixItems": [shape()], "items": [shape()]}],
            "$defs": {"D": {"not": shape(), "patternProperties": {"^x": shape()}}},
            "enum": [shape()], "const": shape(), "default": shape(), "examples": [shape()], "example": shape(),
            "x-data": shape(), "required": ["allOf"],
        });
        let want = json!({
            "properties": {"allOf": plain, "default": plain, "p": {"items": plain, "additionalProperties": plain}},
            "anyOf": [plain, {"prefixItems": [plain], "items": [plain]}],
            "$defs": {"D": {"not": plain, "patternProperties": {"^x": plain}}},
            "enum": [shape()], "const": shape(), "default": shape(), "examples": [shape()], "example": shape(),
            "x-data": shape(), "required": ["allOf"],
        });
        assert_eq!(merged(v), want);
        // Innermost first: a merged branch is simplified already, and nesting collapses.
        let nested = json!({"description": "outer", "allOf": [{"allOf": [{"type": "string"}, {"description": "in"}]}]});
        assert_eq!(merged(nested), json!({"type": "string", "description": "outer"}));
    }
}
