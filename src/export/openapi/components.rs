//! `components/schemas`: the IR's named schemas, referred to as `#/components/schemas/<name>`.
//! Also the folding of inlined recursive definitions back into references, for tool lists.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::normalize::DEFS_PREFIX;
use crate::schema::keywords;
use mcpgen_config::JsonObject;

const SCHEMAS_PREFIX: &str = "#/components/schemas/";

/// An IR schema as the document has it: its `#/$defs/<name>` references point into
/// `components/schemas`, under the same names. Adds the names to `used`.
pub(super) fn refer(schema: &Value, used: &mut BTreeSet<String>) -> Value {
    let mut out = schema.clone();
    rewrite_refs(&mut out, used);
    out
}

/// `components/schemas`: the IR schemas in `used` and those they refer to, references rewritten.
pub(super) fn reachable(schemas: &BTreeMap<String, Value>, mut used: BTreeSet<String>) -> Map<String, Value> {
    let mut out = Map::new();
    let mut pending: Vec<String> = used.iter().cloned().collect();
    while let Some(name) = pending.pop() {
        let Some(schema) = schemas.get(&name) else { continue };
        let mut found = BTreeSet::new();
        out.insert(name, refer(schema, &mut found));
        for n in found {
            if used.insert(n.clone()) {
                pending.push(n);
            }
        }
    }
    out
}

/// Points every `#/$defs/` reference at components, noting the names.
fn rewrite_refs(v: &mut Value, used: &mut BTreeSet<String>) {
    if let Some(name) = ref_of(v).and_then(|r| r.strip_prefix(DEFS_PREFIX)).map(str::to_string)
        && let Some(obj) = v.as_object_mut()
    {
        obj.insert("$ref".into(), json!(format!("{SCHEMAS_PREFIX}{name}")));
        used.insert(name);
    }
    for c in children_mut(v) {
        rewrite_refs(c, used);
    }
}

/// The subschemas directly under a schema, by position (objects only: nothing else holds a
/// reference).
fn children_mut(v: &mut Value) -> Vec<&mut Value> {
    let Value::Object(obj) = v else { return Vec::new() };
    keywords::subschemas_mut(obj).filter(|s| s.is_object()).collect()
}

fn ref_of(v: &Value) -> Option<&str> {
    v.get("$ref").and_then(Value::as_str)
}

/// Replaces, below the root, every subschema that is a target (perhaps with extra annotations)
/// by a reference to it.
fn fold_refs(v: &mut Value, targets: &[(&str, &Value)], prefix: &str) {
    for c in children_mut(v) {
        match folded(c, targets, prefix) {
            Some(r) => *c = r,
            None => fold_refs(c, targets, prefix),
        }
    }
}

/// A tool schema where every subschema equal to one of its root `$defs` entries (perhaps plus
/// annotations) is a reference to it: the form mcpgen reads back into the same tool schema (it
/// inlines a recursive definition once before referring to it, so an inlined copy would grow by
/// one level on each round trip).
pub fn fold_local_defs(schema: &JsonObject) -> Value {
    let mut out = Value::Object(schema.clone());
    let Some(Value::Object(defs)) = out.as_object_mut().and_then(|o| o.remove("$defs")) else { return out };
    let targets: Vec<(&str, &Value)> = defs.iter().map(|(k, v)| (k.as_str(), v)).collect();
    fold_refs(&mut out, &targets, "#/$defs/");
    let mut folded_defs = defs.clone();
    for def in folded_defs.values_mut() {
        fold_refs(def, &targets, "#/$defs/");
    }
    if let Value::Object(o) = &mut out {
        o.insert("$defs".into(), Value::Object(folded_defs));
    }
    out
}

/// The reference that stands for `v`: a target it equals, or one it extends with annotations
/// only (the loader merges such `$ref` siblings back into the referenced schema).
fn folded(v: &Value, targets: &[(&str, &Value)], prefix: &str) -> Option<Value> {
    let obj = v.as_object()?;
    targets.iter().find_map(|(name, target)| {
        let t = target.as_object()?;
        let contains = t.iter().all(|(k, tv)| obj.get(k) == Some(tv));
        let extra: Map<String, Value> =
            obj.iter().filter(|(k, _)| !t.contains_key(*k)).map(|(k, v)| (k.clone(), v.clone())).collect();
        let mergeable =
            extra.is_empty() || (!t.contains_key("$ref") && extra.keys().all(|k| keywords::is_annotation(k)));
        if !contains || !mergeable {
            return None;
        }
        let mut out = extra;
        out.insert("$ref".into(), json!(format!("{prefix}{name}")));
        Some(Value::Object(out))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_keeps_annotations_beside_the_ref() {
        let node = json!({"type": "object", "properties": {"next": {"$ref": "#/components/schemas/N"}}});
        let mut v = json!({"properties": {"a": node.clone(), "b": node.clone()}});
        v["properties"]["b"]["description"] = json!("B");
        v["properties"]["a"]["minProperties"] = json!(1);
        fold_refs(&mut v, &[("N", &node)], SCHEMAS_PREFIX);
        assert_eq!(v["properties"]["b"], json!({"$ref": "#/components/schemas/N", "description": "B"}));
        assert_eq!(v["properties"]["a"]["minProperties"], 1, "an assertion beside a $ref would change meaning");
        assert_eq!(v["properties"]["a"]["properties"]["next"]["$ref"], "#/components/schemas/N");
    }

    #[test]
    fn refs_are_rewritten_at_schema_positions_only() {
        let schema = json!({"properties": {"default": {"$ref": "#/$defs/A"}, "x-b": {"items": {"$ref": "#/$defs/B"}}},
            "default": {"$ref": "#/$defs/C"}, "examples": [{"$ref": "#/$defs/C"}], "x-c": {"$ref": "#/$defs/C"}});
        let mut used = BTreeSet::new();
        let out = refer(&schema, &mut used);
        assert_eq!(used.into_iter().collect::<Vec<_>>(), ["A", "B"]);
        assert_eq!(out["properties"]["default"]["$ref"], "#/components/schemas/A");
        assert_eq!(out["properties"]["x-b"]["items"]["$ref"], "#/components/schemas/B");
        assert_eq!(out["default"], json!({"$ref": "#/$defs/C"}), "data stays as written");
    }

    #[test]
    fn local_defs_fold_into_refs() {
        let node = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}});
        let schema = json!({"type": "object", "properties": {"head": node.clone()}, "$defs": {"N": node.clone()}});
        let folded = fold_local_defs(schema.as_object().unwrap());
        assert_eq!(folded["properties"]["head"], json!({"$ref": "#/$defs/N"}));
        assert_eq!(folded["$defs"]["N"], node, "a definition is never a reference to itself");
    }
}
