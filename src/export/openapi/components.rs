//! `components/schemas`: tool schemas' `$defs` moved to the document, where OpenAPI resolves `#/...`.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::runtime::model::JsonObject;
use crate::schema::keywords;

const SCHEMAS_PREFIX: &str = "#/components/schemas/";

/// `components/schemas`, filled as tool schemas' `$defs` move in.
#[derive(Default)]
pub(super) struct Schemas(BTreeMap<String, Value>);

/// One schema bound for components: a `$defs` entry (`local` is its name there), or the root
/// (`local: None`) when something refers to it.
struct Entry {
    local: Option<String>,
    base: String,
    raw: Value,
}

impl Schemas {
    pub(super) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(super) fn into_map(self) -> Map<String, Value> {
        self.0.into_iter().collect()
    }

    /// A tool schema without its root `$defs`, which move into components; references to them
    /// (and to the root) are rewritten to point there. With `fold_root`, a root that is itself a
    /// recursive definition becomes a reference to it (right for a response schema, which the
    /// loader inlines as a whole; a request body is inlined field by field).
    pub(super) fn hoist(&mut self, schema: &JsonObject, root_name: &str, fold_root: bool) -> Value {
        let mut body = Value::Object(schema.clone());
        let mut entries: Vec<Entry> = match body.as_object_mut().and_then(|o| o.remove("$defs")) {
            Some(Value::Object(defs)) => defs
                .into_iter()
                .map(|(name, raw)| Entry { base: component_name(&name), local: Some(name), raw })
                .collect(),
            Some(other) => {
                // Not a map of definitions: nothing can refer into it; it stays where it was.
                body["$defs"] = other;
                Vec::new()
            }
            None => Vec::new(),
        };
        if refers_to_root(&body) || entries.iter().any(|e| refers_to_root(&e.raw)) {
            entries.push(Entry { local: None, base: component_name(root_name), raw: body.clone() });
        }
        if entries.is_empty() {
            return body;
        }
        let (names, values, body) = self.allocate(&entries, &body, fold_root);
        self.0.extend(names.into_iter().zip(values));
        body
    }

    /// Component names for the entries: the entry's own name, else `Name_2`, `Name_3`, ...
    /// An existing component is shared when it holds the same schema. Returns the names, the
    /// entries' and the body's final schemas.
    fn allocate(&self, entries: &[Entry], body: &Value, fold_root: bool) -> (Vec<String>, Vec<Value>, Value) {
        let mut suffix = vec![1usize; entries.len()];
        loop {
            let names: Vec<String> = entries
                .iter()
                .zip(&suffix)
                .map(|(e, n)| if *n == 1 { e.base.clone() } else { format!("{}_{n}", e.base) })
                .collect();
            let (values, out) = render(entries, &names, body, fold_root);
            // Each round moves one entry to a further name; finitely many names are taken.
            let clash = (0..names.len())
                .find(|&i| names[..i].contains(&names[i]) || self.0.get(&names[i]).is_some_and(|v| *v != values[i]));
            match clash {
                Some(i) => suffix[i] += 1,
                None => return (names, values, out),
            }
        }
    }
}

/// The entries' and the body's schemas under the given component names: references rewritten,
/// then subschemas equal to a (recursive) component replaced by a reference to it, where the
/// tool schema had the reference before mcpgen inlined it: re-inlining on load rebuilds the
/// same schema, with the recursion closing at the same place.
fn render(entries: &[Entry], names: &[String], body: &Value, fold_root: bool) -> (Vec<Value>, Value) {
    let locals: BTreeMap<&str, &str> =
        entries.iter().zip(names).filter_map(|(e, n)| Some((e.local.as_deref()?, n.as_str()))).collect();
    let root = entries.iter().zip(names).find(|(e, _)| e.local.is_none()).map(|(_, n)| n.as_str());
    let rewritten: Vec<Value> = entries
        .iter()
        .map(|e| {
            let mut v = e.raw.clone();
            rewrite_refs(&mut v, &locals, root);
            v
        })
        .collect();
    let targets: Vec<(&str, &Value)> =
        names.iter().map(String::as_str).zip(&rewritten).filter(|(_, v)| has_ref(v)).collect();
    let values = rewritten
        .iter()
        .map(|v| {
            let mut v = v.clone();
            fold_refs(&mut v, &targets, SCHEMAS_PREFIX);
            v
        })
        .collect();
    let mut out = body.clone();
    rewrite_refs(&mut out, &locals, root);
    fold_refs(&mut out, &targets, SCHEMAS_PREFIX);
    if fold_root && let Some(r) = folded(&out, &targets, SCHEMAS_PREFIX) {
        out = r;
    }
    (values, out)
}

/// A name valid for `components/schemas` that the loader keeps as the `$defs` name (it names a
/// referenced schema after the last pointer segment, `[A-Za-z0-9_.-]`, unless all digits).
fn component_name(name: &str) -> String {
    let clean: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect();
    if clean.trim_matches('_').is_empty() {
        "Schema".to_string()
    } else if clean.chars().all(|c| c.is_ascii_digit()) {
        format!("Schema_{clean}")
    } else {
        clean
    }
}

/// How a keyword's value is walked when looking for subschemas.
enum KeyKind {
    Data,
    NameMap,
    Schema,
}

fn key_kind(key: &str) -> KeyKind {
    if keywords::is_data(key) {
        KeyKind::Data
    } else if keywords::SCHEMA_MAP.contains(&key) {
        KeyKind::NameMap
    } else {
        KeyKind::Schema
    }
}

/// The subschemas directly under a schema (objects only: nothing else holds a reference).
fn children(v: &Value) -> Vec<&Value> {
    let mut out = Vec::new();
    let Value::Object(obj) = v else { return out };
    for (k, c) in obj {
        match (key_kind(k), c) {
            (KeyKind::Data, _) => {}
            (KeyKind::NameMap, Value::Object(m)) => out.extend(m.values().filter(|s| s.is_object())),
            (KeyKind::Schema, Value::Array(items)) => out.extend(items.iter().filter(|s| s.is_object())),
            (KeyKind::Schema, Value::Object(_)) => out.push(c),
            _ => {}
        }
    }
    out
}

/// [`children`], mutable.
fn children_mut(v: &mut Value) -> Vec<&mut Value> {
    let mut out = Vec::new();
    let Value::Object(obj) = v else { return out };
    for (k, c) in obj.iter_mut() {
        match (key_kind(k), c) {
            (KeyKind::Data, _) => {}
            (KeyKind::NameMap, Value::Object(m)) => out.extend(m.values_mut().filter(|s| s.is_object())),
            (KeyKind::Schema, Value::Array(items)) => out.extend(items.iter_mut().filter(|s| s.is_object())),
            (KeyKind::Schema, c @ Value::Object(_)) => out.push(c),
            _ => {}
        }
    }
    out
}

fn ref_of(v: &Value) -> Option<&str> {
    v.get("$ref").and_then(Value::as_str)
}

fn has_ref(v: &Value) -> bool {
    ref_of(v).is_some() || children(v).into_iter().any(has_ref)
}

/// Whether a schema refers to its root (`#`, or a pointer outside `$defs`).
fn refers_to_root(v: &Value) -> bool {
    let here = ref_of(v).is_some_and(|r| r == "#" || (r.starts_with("#/") && !r.starts_with("#/$defs/")));
    here || children(v).into_iter().any(refers_to_root)
}

/// Points references into the root's `$defs` (and to the root) at components.
fn rewrite_refs(v: &mut Value, locals: &BTreeMap<&str, &str>, root: Option<&str>) {
    if let Some(new) = ref_of(v).and_then(|r| rewritten_ref(r, locals, root))
        && let Some(obj) = v.as_object_mut()
    {
        obj.insert("$ref".into(), json!(new));
    }
    for c in children_mut(v) {
        rewrite_refs(c, locals, root);
    }
}

fn rewritten_ref(r: &str, locals: &BTreeMap<&str, &str>, root: Option<&str>) -> Option<String> {
    let pointer = r.strip_prefix('#')?;
    if let Some(rest) = pointer.strip_prefix("/$defs/") {
        let (token, tail) = match rest.split_once('/') {
            Some((token, tail)) => (token, format!("/{tail}")),
            None => (rest, String::new()),
        };
        // A `$ref` is a URI: its fragment may be percent-encoded.
        let name =
            percent_encoding::percent_decode_str(token).decode_utf8_lossy().replace("~1", "/").replace("~0", "~");
        return locals.get(name.as_str()).map(|c| format!("{SCHEMAS_PREFIX}{c}{tail}"));
    }
    if pointer.is_empty() || pointer.starts_with('/') {
        return root.map(|c| format!("{SCHEMAS_PREFIX}{c}{pointer}"));
    }
    None
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
    fn local_defs_fold_into_refs() {
        let node = json!({"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}});
        let schema = json!({"type": "object", "properties": {"head": node.clone()}, "$defs": {"N": node.clone()}});
        let folded = fold_local_defs(schema.as_object().unwrap());
        assert_eq!(folded["properties"]["head"], json!({"$ref": "#/$defs/N"}));
        assert_eq!(folded["$defs"]["N"], node, "a definition is never a reference to itself");
    }

    #[test]
    fn names_and_refs() {
        assert_eq!(component_name("a b/c"), "a_b_c");
        assert_eq!(component_name("__"), "Schema");
        assert_eq!(component_name("42"), "Schema_42");
        let locals = BTreeMap::from([("a/b", "a_b"), ("N", "N_2")]);
        assert_eq!(rewritten_ref("#/$defs/a~1b", &locals, None).as_deref(), Some("#/components/schemas/a_b"));
        assert_eq!(
            rewritten_ref("#/$defs/%4E/items", &locals, None).as_deref(),
            Some("#/components/schemas/N_2/items")
        );
        assert_eq!(
            rewritten_ref("#/properties/x", &locals, Some("t")).as_deref(),
            Some("#/components/schemas/t/properties/x")
        );
        assert_eq!(rewritten_ref("other.json#/x", &locals, Some("t")), None);
        assert_eq!(rewritten_ref("#/$defs/Unknown", &locals, Some("t")), None);
    }
}
