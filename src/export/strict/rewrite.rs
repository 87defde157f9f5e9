//! The rewriter behind [`strictify`](super::strictify).

mod all_of;

use serde_json::{Value, json};

use self::all_of::Merge;
use super::{
    Change, ChangeKind, FORMATS, Object, TYPES, applies, child, decode, empty_object, is_annotation, make_nullable,
    merge_into, null_schema, strings, type_names,
};
use crate::schema::keywords;

/// Rewrites `schema` for strict mode and lists every change made.
pub(super) fn rewrite(schema: &Value) -> (Value, Vec<Change>) {
    let mut rewriter = Rewriter::default();
    let schema = rewriter.document(schema);
    (schema, rewriter.changes)
}

/// The name a `#/$defs/<name>` (or legacy `#/definitions/<name>`) reference points at.
fn def_name(reference: &str) -> Option<String> {
    reference.strip_prefix("#/$defs/").or_else(|| reference.strip_prefix("#/definitions/")).map(decode)
}

/// Description hint that keeps the intent of a removed keyword the model can still read.
fn hint(key: &str, value: &Value) -> Option<String> {
    let count = |bound: &str, minimum: u64, [one, many]: [&str; 2]| {
        let n = value.as_u64().filter(|n| *n >= minimum)?;
        Some(format!("{bound} {n} {}", if n == 1 { one } else { many }))
    };
    let (characters, properties) = (["character", "characters"], ["property", "properties"]);
    match key {
        "default" => Some(value.to_string()).filter(|text| text.chars().count() <= 80).map(|t| format!("default: {t}")),
        "minLength" => count("at least", 1, characters),
        "maxLength" => count("at most", 0, characters),
        "uniqueItems" => (value == &Value::Bool(true)).then(|| "items must be unique".to_string()),
        "minProperties" => count("at least", 1, properties),
        "maxProperties" => count("at most", 0, properties),
        _ => None,
    }
}

/// Whether the rewriter keeps `key` on a schema with `types` (anything else is removed and reported).
fn keeps(key: &str, value: &Value, types: &[&str]) -> bool {
    match key {
        "type" | "anyOf" | "const" => true,
        "description" | "title" => value.is_string(),
        "enum" => value.as_array().is_some_and(|values| !values.is_empty()),
        "format" => applies(key, types) && value.as_str().is_some_and(|f| FORMATS.contains(&f)),
        "pattern" => applies(key, types) && value.is_string(),
        "minItems" | "maxItems" => applies(key, types) && value.is_u64(),
        _ if keywords::NUMBER.contains(&key) => applies(key, types) && value.is_number(),
        _ => applies(key, types),
    }
}

#[derive(Default)]
struct Rewriter {
    changes: Vec<Change>,
    /// Original root `$defs` (and `definitions`), to check and inline references.
    defs: Object,
    /// Original root without its definitions, for `$ref: "#"` inside `allOf`.
    root: Object,
    /// References inlined by the schemas being rewritten (outermost first); inlining one again below them would
    /// never end.
    inlining: Vec<String>,
    /// Name of the definition whose top schema is next; it is not inlined into itself but is recursion below.
    top: Option<String>,
}

impl Rewriter {
    fn note(&mut self, at: &str, kind: ChangeKind, what: impl Into<String>, lossy: bool) {
        self.changes.push(Change { at: at.to_string(), kind, what: what.into(), lossy });
    }

    fn document(&mut self, schema: &Value) -> Value {
        let Value::Object(mut root) = schema.clone() else {
            self.note("#", ChangeKind::RootReplaced, "root is not a schema object; replaced by an empty object", true);
            return Value::Object(empty_object());
        };
        let had_defs = root.contains_key("$defs");
        let defs = self.take_defs(&mut root);
        self.defs = defs.clone();
        self.root = root.clone();
        if let Some(reference) = root.remove("$ref") {
            // The root must be an object, so a root reference is inlined like an allOf branch.
            let mut all = match root.remove("allOf") {
                Some(Value::Array(all)) => all,
                _ => Vec::new(),
            };
            all.insert(0, json!({"$ref": reference}));
            root.insert("allOf".into(), Value::Array(all));
        }
        self.merge_all_of(&mut root, "#", false);
        self.merge_root_branches(&mut root);
        if root.remove("nullable").is_some() {
            self.note("#", ChangeKind::NullableRemoved, "removed nullable (the root must be an object)", false);
        }
        self.root_type(&mut root);
        self.inlining.push("#".into());
        let mut out = self.node(Value::Object(root), "#");
        self.inlining.clear();
        let mut new_defs = Object::new();
        for (name, def) in defs {
            let at = child("#/$defs", &name);
            self.inlining.clear();
            self.top = Some(name.clone());
            new_defs.insert(name, self.node(def, &at));
        }
        if let Value::Object(map) = &mut out
            && (had_defs || !new_defs.is_empty())
        {
            map.insert("$defs".into(), Value::Object(new_defs));
        }
        out
    }

    /// Collects `$defs` and legacy `definitions` into one map; strict mode only knows `$defs`.
    fn take_defs(&mut self, root: &mut Object) -> Object {
        let mut defs = match root.remove("$defs") {
            Some(Value::Object(defs)) => defs,
            Some(_) => {
                self.note("#", ChangeKind::DefsRepaired, "removed $defs that is not an object", false);
                Object::new()
            }
            None => Object::new(),
        };
        if let Some(legacy) = root.remove("definitions") {
            for (name, def) in legacy.as_object().into_iter().flatten() {
                if defs.contains_key(name) {
                    self.note(
                        &child("#/definitions", name),
                        ChangeKind::DefsRepaired,
                        "dropped: $defs has the same name",
                        true,
                    );
                } else {
                    defs.insert(name.clone(), def.clone());
                }
            }
            self.note("#", ChangeKind::DefsRepaired, "moved definitions into $defs", false);
        }
        defs
    }

    /// Strict mode rejects a root `anyOf`, so object branches are unioned into the root; properties not required
    /// by every branch become optional. Non-object branches are lost.
    fn merge_root_branches(&mut self, root: &mut Object) {
        for key in ["anyOf", "oneOf"] {
            let Some(branches) = root.remove(key) else { continue };
            let mut properties = Object::new();
            let mut common: Option<Vec<Value>> = None;
            let mut dropped = false;
            for branch in branches.as_array().into_iter().flatten() {
                let mut merged = Object::new();
                let base = self.inlining.len();
                self.merge_branch(
                    &mut merged,
                    branch.clone(),
                    "#",
                    Merge { inline: true, hoist: false, direct: true, base },
                );
                self.inlining.truncate(base);
                if merged.contains_key("type") && !type_names(&merged).contains(&"object") {
                    dropped = true;
                    continue;
                }
                if let Some(Value::Object(more)) = merged.remove("properties") {
                    for (name, schema) in more {
                        properties.entry(name).or_insert(schema);
                    }
                }
                let required = merged.remove("required").and_then(|r| r.as_array().cloned()).unwrap_or_default();
                common = Some(match common {
                    None => required,
                    Some(names) => names.into_iter().filter(|name| required.contains(name)).collect(),
                });
            }
            let mut merged = Object::new();
            merged.insert("properties".into(), Value::Object(properties));
            merged.insert("required".into(), Value::Array(common.unwrap_or_default()));
            merge_into(root, merged);
            self.note("#", ChangeKind::RootMerged, format!("merged the root {key} branches into one object"), dropped);
        }
    }

    fn root_type(&mut self, root: &mut Object) {
        match root.get("type").cloned() {
            Some(Value::String(t)) if t == "object" => {}
            None => {
                root.insert("type".into(), "object".into());
                self.note("#", ChangeKind::RootTyped, "added type object to the root", false);
            }
            Some(Value::Array(list)) if list.iter().any(|t| t == "object") => {
                root.insert("type".into(), "object".into());
                self.note("#", ChangeKind::RootTyped, "narrowed the root type to object", list.len() > 1);
            }
            Some(other) => {
                let what = format!("root of type {other} replaced by an empty object");
                *root = empty_object();
                self.note("#", ChangeKind::RootReplaced, what, true);
            }
        }
    }

    /// Rewrites one schema (and everything below it) in place of the original.
    fn node(&mut self, value: Value, at: &str) -> Value {
        let mut map = match value {
            Value::Object(map) => map,
            Value::Bool(false) => {
                self.note(
                    at,
                    ChangeKind::FalseSchemaReplaced,
                    "replaced the false schema (matches nothing) with null",
                    false,
                );
                return null_schema();
            }
            _ => return self.any_value(Object::new(), at),
        };
        let nullable = map.remove("nullable");
        let depth = self.inlining.len();
        let top = self.top.take();
        self.merge_all_of(&mut map, at, true);
        if let Some(top) = top.filter(|top| !self.inlining.contains(top)) {
            self.inlining.push(top);
        }
        self.one_of(&mut map, at);
        self.distribute(&mut map, at);
        let mut out = if map.contains_key("$ref") { self.reference(map, at) } else { self.typed(map, at) };
        if nullable == Some(Value::Bool(true)) && make_nullable(&mut out) {
            self.note(at, ChangeKind::NullableToNullType, "replaced nullable: true with a null type", false);
        } else if let Some(flag) = nullable.filter(|n| n != &Value::Bool(true)) {
            self.note(at, ChangeKind::NullableRemoved, format!("removed nullable: {flag}"), false);
        }
        self.inlining.truncate(depth);
        out
    }

    /// Rewrites a schema that is not a reference.
    fn typed(&mut self, mut map: Object, at: &str) -> Value {
        self.fix_type(&mut map, at);
        let owned: Vec<String> = type_names(&map).into_iter().map(String::from).collect();
        let types: Vec<&str> = owned.iter().map(String::as_str).collect();
        self.strip(&mut map, at, |key, value| keeps(key, value, &types));
        if types.contains(&"object") {
            self.object(&mut map, at);
        }
        if types.contains(&"array") {
            self.array(&mut map, at);
        }
        if let Some(branches) = map.remove("anyOf") {
            self.any_of(&mut map, branches, at);
        }
        if ["type", "anyOf", "enum", "const"].iter().any(|key| map.contains_key(*key)) {
            Value::Object(map)
        } else {
            self.any_value(map, at)
        }
    }

    /// "Any value" cannot be expressed; the closest strict schema accepts any scalar or null.
    fn any_value(&mut self, map: Object, at: &str) -> Value {
        self.note(at, ChangeKind::AnyValueNarrowed, "any value narrowed to string, number, boolean or null", true);
        let mut out: Object =
            map.into_iter().filter(|(k, v)| (k == "description" || k == "title") && v.is_string()).collect();
        let scalars = ["string", "number", "boolean", "null"].map(|t| json!({"type": t}));
        out.insert("anyOf".into(), Value::Array(scalars.to_vec()));
        Value::Object(out)
    }

    /// Removes keywords `keep` rejects, in one change per schema, keeping their intent in `description` where
    /// a short hint can.
    fn strip(&mut self, map: &mut Object, at: &str, keep: impl Fn(&str, &Value) -> bool) {
        let mut removed = Vec::new();
        let mut hints = Vec::new();
        let keys: Vec<String> =
            map.keys().filter(|key| !map.get(*key).is_some_and(|v| keep(key, v))).cloned().collect();
        for key in keys {
            let Some(value) = map.remove(&key) else { continue };
            hints.extend(hint(&key, &value));
            removed.push(match (key.as_str(), value.as_str()) {
                ("format", Some(format)) => format!("format \"{format}\""),
                _ => key,
            });
        }
        if removed.is_empty() {
            return;
        }
        if !hints.is_empty() {
            let extra = format!("({})", hints.join("; "));
            let text = match map.get("description").and_then(Value::as_str) {
                Some(text) if !text.is_empty() => format!("{text} {extra}"),
                _ => extra,
            };
            map.insert("description".into(), Value::String(text));
        }
        self.note(at, ChangeKind::KeywordsRemoved, format!("removed {}", removed.join(", ")), false);
    }

    /// Drops unsupported type names; a schema left untyped gets a type inferred from its keywords.
    fn fix_type(&mut self, map: &mut Object, at: &str) {
        match map.remove("type") {
            Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {
                map.insert("type".into(), Value::String(t));
            }
            Some(Value::Array(list)) => {
                let mut kept: Vec<Value> = Vec::new();
                for t in &list {
                    if t.as_str().is_some_and(|t| TYPES.contains(&t)) && !kept.contains(t) {
                        kept.push(t.clone());
                    }
                }
                if kept.len() != list.len() {
                    self.note(
                        at,
                        ChangeKind::TypesRemoved,
                        format!("removed unsupported or repeated types from {}", Value::Array(list)),
                        false,
                    );
                }
                if kept.is_empty() {
                    self.infer_type(map, at);
                } else {
                    map.insert("type".into(), Value::Array(kept));
                }
            }
            Some(other) => {
                self.note(at, ChangeKind::TypesRemoved, format!("removed unsupported type {other}"), false);
                self.infer_type(map, at);
            }
            None => self.infer_type(map, at),
        }
    }

    fn infer_type(&mut self, map: &mut Object, at: &str) {
        if ["anyOf", "enum", "const"].iter().any(|key| map.contains_key(*key)) {
            return;
        }
        // The keywords that betray a type: all the string and number ones, the commonest object and array ones.
        let hints: [(&str, &[&str]); 4] = [
            ("object", &["properties", "additionalProperties", "patternProperties", "required"]),
            ("array", &["items", "prefixItems", "minItems", "maxItems"]),
            ("string", &keywords::STRING),
            ("number", &keywords::NUMBER),
        ];
        let found = hints.iter().find(|(_, keys)| keys.iter().any(|key| map.contains_key(*key)));
        if let Some((t, _)) = found {
            map.insert("type".into(), (*t).into());
            self.note(at, ChangeKind::TypeInferred, format!("added type {t} (inferred from its keywords)"), false);
        }
    }

    /// `$ref` may not have siblings: a description survives by wrapping the reference in a one-branch `anyOf`.
    fn reference(&mut self, mut map: Object, at: &str) -> Value {
        let original = map.remove("$ref").unwrap_or_default();
        let text = original.as_str().unwrap_or_default();
        let target = if text == "#" {
            Some(text.to_string())
        } else {
            def_name(text).filter(|name| self.defs.contains_key(name)).map(|name| child("#/$defs", &name))
        };
        let Some(target) = target else {
            self.note(
                at,
                ChangeKind::RefReplaced,
                format!("$ref {original} does not point at # or $defs; replaced"),
                true,
            );
            return self.any_value(map, at);
        };
        if target != text {
            self.note(at, ChangeKind::RefRewritten, format!("pointed $ref {original} at {target}"), false);
        }
        self.strip(&mut map, at, |key, value| key == "description" && value.is_string());
        let reference = json!({"$ref": target});
        match map.remove("description") {
            Some(description) => {
                self.note(at, ChangeKind::RefRewritten, "wrapped $ref in anyOf to keep its description", false);
                json!({"anyOf": [reference], "description": description})
            }
            None => reference,
        }
    }

    fn one_of(&mut self, map: &mut Object, at: &str) {
        let Some(one_of) = map.remove("oneOf") else { return };
        if map.contains_key("anyOf") {
            self.note(at, ChangeKind::OneOfReplaced, "removed oneOf (anyOf is already present)", false);
        } else {
            map.insert("anyOf".into(), one_of);
            self.note(at, ChangeKind::OneOfReplaced, "replaced oneOf with anyOf", false);
        }
    }

    /// Strict `anyOf` takes no constraining siblings, so they move into every branch (where they applied anyway).
    fn distribute(&mut self, map: &mut Object, at: &str) {
        if !map.get("anyOf").is_some_and(Value::is_array) {
            return;
        }
        let moved: Vec<String> = map.keys().filter(|key| *key != "anyOf" && !is_annotation(key)).cloned().collect();
        if moved.is_empty() {
            return;
        }
        let shared: Object = moved.iter().filter_map(|key| map.remove_entry(key)).collect();
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            for branch in branches.iter_mut() {
                match branch {
                    Value::Object(branch) => merge_into(branch, shared.clone()),
                    Value::Bool(true) => *branch = Value::Object(shared.clone()),
                    _ => {}
                }
            }
        }
        self.note(at, ChangeKind::AnyOfRewritten, format!("moved {} into each anyOf branch", moved.join(", ")), false);
    }

    fn any_of(&mut self, map: &mut Object, branches: Value, at: &str) {
        let mut out = Vec::new();
        for (index, branch) in branches.as_array().into_iter().flatten().enumerate() {
            let branch_at = child(&child(at, "anyOf"), &index.to_string());
            if branch == &Value::Bool(false) {
                self.note(
                    &branch_at,
                    ChangeKind::AnyOfRewritten,
                    "dropped an anyOf branch that matches nothing",
                    false,
                );
            } else {
                out.push(self.node(branch.clone(), &branch_at));
            }
        }
        if out.is_empty() {
            self.note(at, ChangeKind::AnyOfRewritten, "removed an empty or invalid anyOf", false);
        } else {
            map.insert("anyOf".into(), Value::Array(out));
        }
    }

    /// Closes the object and makes every property required, optional ones nullable.
    fn object(&mut self, map: &mut Object, at: &str) {
        let required = strings(map.get("required"));
        let had_properties = map.contains_key("properties");
        let properties = match map.remove("properties") {
            Some(Value::Object(properties)) => properties,
            _ => Object::new(),
        };
        let mut out = Object::new();
        for (name, schema) in properties {
            let property_at = child(&child(at, "properties"), &name);
            if schema == Value::Bool(false) {
                self.note(&property_at, ChangeKind::PropertyRemoved, "removed a property that must be absent", false);
                continue;
            }
            let mut schema = self.node(schema, &property_at);
            if !required.contains(&name) {
                let what = if make_nullable(&mut schema) {
                    "optional property made required and nullable"
                } else {
                    "optional property made required (already nullable)"
                };
                self.note(&property_at, ChangeKind::PropertyMadeRequired, what, false);
            }
            out.insert(name, schema);
        }
        let free_form = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => false,
            // Declared properties (even none: a tool without arguments) say what the object holds.
            None if !out.is_empty() || had_properties => {
                self.note(at, ChangeKind::AdditionalPropertiesClosed, "set additionalProperties: false", false);
                false
            }
            _ if out.is_empty() => {
                self.note(at, ChangeKind::AdditionalPropertiesClosed, "free-form object can only be sent as {}", true);
                true
            }
            _ => {
                self.note(
                    at,
                    ChangeKind::AdditionalPropertiesClosed,
                    "additional properties are no longer allowed",
                    true,
                );
                false
            }
        };
        map.insert("additionalProperties".into(), false.into());
        self.require_all(map, at, &out, &required);
        if had_properties || free_form || !out.is_empty() {
            map.insert("properties".into(), Value::Object(out));
        }
    }

    fn require_all(&mut self, map: &mut Object, at: &str, properties: &Object, required: &[String]) {
        let unknown: Vec<&str> =
            required.iter().filter(|name| !properties.contains_key(*name)).map(String::as_str).collect();
        if !unknown.is_empty() {
            self.note(
                at,
                ChangeKind::RequiredRepaired,
                format!("removed required names without a property: {}", unknown.join(", ")),
                false,
            );
        }
        let mut names: Vec<Value> = Vec::new();
        for name in required.iter().filter(|name| properties.contains_key(*name)).chain(properties.keys()) {
            let name = Value::String(name.clone());
            if !names.contains(&name) {
                names.push(name);
            }
        }
        if names.is_empty() && !map.contains_key("required") {
            return;
        }
        let names = Value::Array(names);
        if map.get("required") != Some(&names) {
            map.insert("required".into(), names);
        }
    }

    fn array(&mut self, map: &mut Object, at: &str) {
        let items_at = child(at, "items");
        let items = match map.remove("items") {
            None => self.any_value(Object::new(), &items_at),
            Some(Value::Array(tuple)) => {
                self.note(
                    &items_at,
                    ChangeKind::TupleItemsReplaced,
                    "replaced tuple items with anyOf of the item schemas",
                    false,
                );
                self.node(json!({"anyOf": tuple}), &items_at)
            }
            Some(items) => self.node(items, &items_at),
        };
        map.insert("items".into(), items);
    }
}
