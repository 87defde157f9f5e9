//! Tool schemas are self-contained: every `#/$defs/<name>` reference of the IR is inlined from
//! the registry, except references that close a cycle, which stay as `$ref`s into the tool
//! schema's own `$defs`. Depth and size are bounded so that one tool cannot carry a whole API.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use super::simplify::merge_annotation_all_of;
use crate::normalize::DEFS_PREFIX;
use crate::schema::keywords::{self, Holds};

#[derive(Debug, Clone, Copy)]
pub struct InlineLimits {
    /// Nesting of inlined references before a schema is cut short.
    pub max_depth: usize,
    /// Size (compact JSON bytes, estimated) a schema should stay under: when it is larger, it is
    /// inlined again with half the depth, down to depth 1.
    pub max_bytes: usize,
    /// Hard cap on schema objects emitted in one pass, whatever the depth.
    pub max_nodes: usize,
}

impl Default for InlineLimits {
    fn default() -> Self {
        InlineLimits { max_depth: 8, max_bytes: 24 * 1024, max_nodes: 20_000 }
    }
}

/// The result of inlining: a schema with a root `$defs` when cycles required it.
pub(crate) struct Inlined {
    pub schema: Value,
    /// Names of schemas cut short (too deep or too large).
    pub truncated: BTreeSet<String>,
}

/// Inlines with the deepest nesting whose result fits the size budget (iterative deepening in
/// reverse: every property at one depth is treated alike, unlike a budget spent first-come), then
/// merges the `allOf`s that only annotate one schema (which inlining `$ref`s with siblings makes).
pub(crate) fn inline(schema: &Value, registry: &BTreeMap<String, Value>, limits: InlineLimits) -> Inlined {
    let mut depth = limits.max_depth.max(1);
    loop {
        // The last attempt (depth 1) has no budget: it must produce a schema.
        let budget = if depth == 1 { usize::MAX } else { limits.max_bytes };
        if let Some(mut out) = inline_to_depth(schema, registry, depth, limits.max_nodes, budget) {
            merge_annotation_all_of(&mut out.schema);
            return out;
        }
        depth /= 2;
    }
}

/// The compact JSON size of a value, computed without serialising it.
pub(crate) fn json_size(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(b) => {
            if *b {
                4
            } else {
                5
            }
        }
        Value::Number(n) => n.to_string().len(),
        Value::String(s) => s.len() + 2,
        Value::Array(items) => 2 + items.iter().map(json_size).sum::<usize>() + items.len().saturating_sub(1),
        Value::Object(map) => {
            2 + map.iter().map(|(k, v)| k.len() + 3 + json_size(v)).sum::<usize>() + map.len().saturating_sub(1)
        }
    }
}

/// One pass at a given depth; `None` as soon as the output outgrows `budget` bytes.
fn inline_to_depth(
    schema: &Value,
    registry: &BTreeMap<String, Value>,
    max_depth: usize,
    max_nodes: usize,
    budget: usize,
) -> Option<Inlined> {
    let mut run = Run {
        registry,
        max_depth,
        max_nodes,
        budget,
        bytes: 0,
        stack: Vec::new(),
        needed: BTreeSet::new(),
        nodes: 0,
        truncated: BTreeSet::new(),
    };
    let mut root = run.walk(schema);
    let mut defs = BTreeMap::new();
    // Definitions can need further definitions; loop until none is missing.
    while let Some(name) = run.needed.iter().find(|n| !defs.contains_key(*n)).cloned() {
        let body = match registry.get(&name) {
            Some(s) => {
                run.stack.push(name.clone());
                let body = run.walk(s);
                run.stack.pop();
                body
            }
            None => json!({}),
        };
        defs.insert(name, body);
        if run.bytes > budget {
            return None;
        }
    }
    if run.bytes > budget {
        return None;
    }
    if !defs.is_empty()
        && let Value::Object(obj) = &mut root
    {
        obj.insert("$defs".into(), Value::Object(defs.into_iter().collect()));
    }
    Some(Inlined { schema: root, truncated: run.truncated })
}

struct Run<'a> {
    registry: &'a BTreeMap<String, Value>,
    max_depth: usize,
    max_nodes: usize,
    /// Estimated output bytes so far, and the size past which the pass is abandoned.
    bytes: usize,
    budget: usize,
    stack: Vec<String>,
    needed: BTreeSet<String>,
    nodes: usize,
    truncated: BTreeSet<String>,
}

impl Run<'_> {
    /// One schema, its references inlined (a boolean schema, or anything else, as it is).
    fn walk(&mut self, v: &Value) -> Value {
        if self.bytes > self.budget {
            return Value::Null;
        }
        let Value::Object(map) = v else {
            self.bytes += json_size(v);
            return v.clone();
        };
        self.nodes += 1;
        self.bytes += 2 + map.keys().map(|k| k.len() + 4).sum::<usize>();
        if let Some(Value::String(r)) = map.get("$ref")
            && let Some(name) = r.strip_prefix(DEFS_PREFIX)
        {
            let target = self.reference(r, name);
            if map.len() == 1 {
                return target;
            }
            let siblings: Map<String, Value> =
                map.iter().filter(|(k, _)| *k != "$ref").map(|(k, v)| (k.clone(), self.walk_keyword(k, v))).collect();
            return merge_siblings(target, siblings);
        }
        Value::Object(map.iter().map(|(k, v)| (k.clone(), self.walk_keyword(k, v))).collect())
    }

    /// One keyword's value: the subschemas it holds walked (by position: a property named
    /// `required` or `default` is a schema), anything else copied as data.
    fn walk_keyword(&mut self, key: &str, v: &Value) -> Value {
        if let Value::Object(names) = v
            && keywords::holds(key) == Holds::NamedSchemas
        {
            // The map's own braces and names count toward the size, like a schema's keywords.
            self.nodes += 1;
            self.bytes += 2 + names.keys().map(|k| k.len() + 4).sum::<usize>();
        }
        match keywords::map_held(key, v, |s| self.walk(s)) {
            Some(walked) => walked,
            None => {
                self.bytes += match v {
                    // A list that is no data (`type: [..]`) counts its items only, as the estimate
                    // always has: the depth each budget picks stays where it was.
                    Value::Array(items) if !keywords::is_data(key) => items.iter().map(json_size).sum(),
                    _ => json_size(v),
                };
                v.clone()
            }
        }
    }

    fn reference(&mut self, r: &str, name: &str) -> Value {
        if self.stack.iter().any(|s| s == name) {
            self.needed.insert(name.to_string());
            return json!({ "$ref": r });
        }
        let Some(target) = self.registry.get(name) else { return json!({}) };
        if self.stack.len() >= self.max_depth || self.nodes >= self.max_nodes {
            self.truncated.insert(name.to_string());
            return placeholder(name, target);
        }
        self.stack.push(name.to_string());
        let out = self.walk(target);
        self.stack.pop();
        out
    }
}

/// How the description of a schema cut short ends ([`placeholder`]).
pub(crate) const CUT_SHORT: &str = "(nested structure not shown)";

/// What stands in for a schema cut short: its type, and a word on what it is (its description
/// ends with [`CUT_SHORT`]).
fn placeholder(name: &str, target: &Value) -> Value {
    let mut out = Map::new();
    if let Some(t) = target.get("type") {
        out.insert("type".into(), t.clone());
    }
    let what = target.get("description").and_then(Value::as_str).map(first_sentence).unwrap_or(name);
    out.insert("description".into(), json!(format!("{what} {CUT_SHORT}")));
    Value::Object(out)
}

fn first_sentence(text: &str) -> &str {
    let end = text.find(". ").map(|i| i + 1).unwrap_or(text.len()).min(120);
    let mut end = end;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// `$ref` siblings (a description, `readOnly`, ...) apply on top of the referenced schema.
fn merge_siblings(target: Value, siblings: Map<String, Value>) -> Value {
    match target {
        Value::Object(mut obj)
            if !obj.contains_key("$ref")
                && !siblings.keys().any(|k| !keywords::is_annotation(k) && obj.contains_key(k)) =>
        {
            obj.extend(siblings);
            Value::Object(obj)
        }
        other => {
            let mut out = siblings;
            // The target joins the siblings' own `allOf`, if any, rather than replace it.
            let mut all = vec![other];
            if let Some(Value::Array(more)) = out.remove("allOf") {
                all.extend(more);
            }
            out.insert("allOf".into(), Value::Array(all));
            Value::Object(out)
        }
    }
}

/// Removes, everywhere in a schema, the properties marked with `flag` (`readOnly` for inputs,
/// `writeOnly` for outputs), and their `required` entries.
pub(crate) fn strip_flagged_properties(schema: &mut Value, flag: &str) {
    let Value::Object(obj) = schema else { return };
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        let removed: Vec<String> =
            props.iter().filter(|(_, s)| s.get(flag) == Some(&Value::Bool(true))).map(|(k, _)| k.clone()).collect();
        for k in &removed {
            props.remove(k);
        }
        if !removed.is_empty()
            && let Some(Value::Array(req)) = obj.get_mut("required")
        {
            req.retain(|r| !r.as_str().is_some_and(|r| removed.iter().any(|k| k == r)));
            if req.is_empty() {
                obj.remove("required");
            }
        }
    }
    for sub in keywords::subschemas_mut(obj) {
        strip_flagged_properties(sub, flag);
    }
}

/// Gives every array schema an `items` (some clients reject arrays without one).
pub(crate) fn ensure_array_items(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    let is_array = match obj.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => false,
    };
    if is_array && !obj.contains_key("items") {
        obj.insert("items".into(), json!({}));
    }
    for sub in keywords::subschemas_mut(obj) {
        ensure_array_items(sub);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reg(v: Value) -> BTreeMap<String, Value> {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn inlines_plain_refs_with_siblings() {
        let r = reg(json!({"Pet": {"type": "object", "properties": {"tag": {"$ref": "#/$defs/Tag"}}},
                           "Tag": {"type": "string"}}));
        let out = inline(&json!({"$ref": "#/$defs/Pet", "description": "a pet"}), &r, InlineLimits::default());
        assert_eq!(
            out.schema,
            json!({"type": "object", "description": "a pet", "properties": {"tag": {"type": "string"}}})
        );
    }

    #[test]
    fn cycles_go_to_defs() {
        let r = reg(
            json!({"Node": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}),
        );
        let out = inline(
            &json!({"type": "object", "properties": {"root": {"$ref": "#/$defs/Node"}}}),
            &r,
            InlineLimits::default(),
        );
        assert_eq!(out.schema["properties"]["root"]["properties"]["kids"]["items"], json!({"$ref": "#/$defs/Node"}));
        assert_eq!(out.schema["$defs"]["Node"]["properties"]["kids"]["items"], json!({"$ref": "#/$defs/Node"}));
    }

    #[test]
    fn depth_is_bounded() {
        let r = reg(json!({"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                           "B": {"type": "object", "description": "The B. More.", "properties": {"c": {"type": "string"}}}}));
        let out =
            inline(&json!({"$ref": "#/$defs/A"}), &r, InlineLimits { max_depth: 1, max_bytes: 1000, max_nodes: 100 });
        assert_eq!(
            out.schema["properties"]["b"],
            json!({"type": "object", "description": "The B. (nested structure not shown)"})
        );
        assert!(out.truncated.contains("B"));
    }

    #[test]
    fn size_budget_reduces_depth() {
        let r = reg(json!({"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}},
                           "B": {"type": "object", "properties": {"c": {"type": "string", "description": "x".repeat(500)}}}}));
        let roomy = inline(&json!({"$ref": "#/$defs/A"}), &r, InlineLimits::default());
        assert!(roomy.truncated.is_empty());
        let tight =
            inline(&json!({"$ref": "#/$defs/A"}), &r, InlineLimits { max_bytes: 200, ..InlineLimits::default() });
        assert!(tight.truncated.contains("B"));
        assert!(json_size(&tight.schema) < 200);
        assert_eq!(json_size(&roomy.schema), serde_json::to_vec(&roomy.schema).unwrap().len());
    }

    #[test]
    fn ref_siblings_become_one_schema_or_an_all_of() {
        let r = reg(json!({"Key": {"type": "string", "maxLength": 128},
                           "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node", "description": "d"}}}}));
        let limits = InlineLimits::default();
        // A cycle kept as a reference takes the sibling annotation beside it.
        let out = inline(&json!({"$ref": "#/$defs/Node"}), &r, limits);
        assert_eq!(out.schema["properties"]["next"], json!({"$ref": "#/$defs/Node", "description": "d"}));
        assert_eq!(
            out.schema["$defs"]["Node"]["properties"]["next"],
            json!({"$ref": "#/$defs/Node", "description": "d"})
        );
        // A colliding constraint keeps the target apart, next to the siblings' own `allOf`.
        let out = inline(&json!({"$ref": "#/$defs/Key", "maxLength": 8, "allOf": [{"minLength": 1}]}), &r, limits);
        assert_eq!(
            out.schema,
            json!({"maxLength": 8, "allOf": [{"type": "string", "maxLength": 128}, {"minLength": 1}]})
        );
    }

    #[test]
    fn data_is_not_walked() {
        let out = inline(&json!({"default": {"$ref": "#/$defs/X"}}), &BTreeMap::new(), InlineLimits::default());
        assert_eq!(out.schema, json!({"default": {"$ref": "#/$defs/X"}}));
    }

    #[test]
    fn properties_named_like_keywords_are_schemas() {
        let r = reg(json!({"Boolean": {"type": "boolean"}}));
        let flag = || json!({"$ref": "#/$defs/Boolean"});
        let names = ["required", "default", "enum", "const", "examples", "example", "x-id", "$ref", "properties"];
        let props: Map<String, Value> = names.iter().map(|n| (n.to_string(), flag())).collect();
        let schema = json!({"type": "object", "properties": props, "$defs": {"D": {"properties": {"enum": flag()}}},
            "patternProperties": {"^default$": flag()}, "dependentSchemas": {"required": {"properties": {"a": flag()}}}});
        let out = inline(&schema, &r, InlineLimits::default()).schema;
        for name in names {
            assert_eq!(out["properties"][name], json!({"type": "boolean"}), "{name}");
        }
        assert_eq!(out["$defs"]["D"]["properties"]["enum"], json!({"type": "boolean"}));
        assert_eq!(out["patternProperties"]["^default$"], json!({"type": "boolean"}));
        assert_eq!(out["dependentSchemas"]["required"]["properties"]["a"], json!({"type": "boolean"}));
    }

    #[test]
    fn flags_and_items_are_found_under_any_property_name() {
        let mut s = json!({"type": "object", "properties": {
            "default": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string", "readOnly": true}}},
            "enum": {"type": "array"},
            "properties": {"type": "object", "properties": {"readOnly": {"type": "boolean"}, "list": {"type": "array"}}}}});
        strip_flagged_properties(&mut s, "readOnly");
        ensure_array_items(&mut s);
        assert_eq!(s["properties"]["default"], json!({"type": "object", "properties": {}}));
        assert_eq!(s["properties"]["enum"]["items"], json!({}));
        assert_eq!(s["properties"]["properties"]["properties"]["readOnly"], json!({"type": "boolean"}));
        assert_eq!(s["properties"]["properties"]["properties"]["list"]["items"], json!({}));
        // Data is no schema: an array in a default keeps its shape.
        let mut d = json!({"default": {"type": "array"}, "examples": [{"type": "array"}]});
        ensure_array_items(&mut d);
        assert_eq!(d, json!({"default": {"type": "array"}, "examples": [{"type": "array"}]}));
    }

    #[test]
    fn strips_and_fixes() {
        let mut s = json!({"type": "object", "required": ["id", "name"], "properties": {
            "id": {"type": "integer", "readOnly": true}, "name": {"type": "string"},
            "tags": {"type": "array"}}});
        strip_flagged_properties(&mut s, "readOnly");
        ensure_array_items(&mut s);
        assert_eq!(
            s,
            json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"}, "tags": {"type": "array", "items": {}}}})
        );
    }
}
