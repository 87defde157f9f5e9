//! The independent checker behind [`violations`](super::violations); it never calls the rewriter.

use std::collections::HashMap;

use serde_json::Value;

use super::{
    COMPOSITION_KEYWORDS, FORMATS, Object, Rule, TYPES, Violation, applies, child, decode, strings, type_names,
};
use crate::schema::keywords;

const MAX_NESTING: usize = 10;
const MAX_PROPERTIES: usize = 5_000;
const MAX_ENUM_VALUES: usize = 1_000;
const LARGE_ENUM: usize = 250;
const MAX_LARGE_ENUM_CHARS: usize = 15_000;
const MAX_TOTAL_CHARS: usize = 120_000;

/// Every way `schema` breaks the strict-mode rules (empty = accepted).
pub(super) fn check(schema: &Value) -> Vec<Violation> {
    let defs = schema.get("$defs").and_then(Value::as_object);
    let mut checker = Checker { defs, out: Vec::new(), properties: 0, enum_values: 0, chars: 0 };
    let root = schema.as_object();
    let root_ok = root.is_some_and(|r| {
        r.get("type").is_some_and(|t| t == "object") && !r.contains_key("anyOf") && !r.contains_key("$ref")
    });
    if !root_ok {
        checker.flag(Rule::RootObject, "#", "the root must be a `type: object` schema without anyOf or $ref");
    }
    checker.node(schema, "#", true);
    for (name, def) in defs.into_iter().flatten() {
        checker.chars += name.chars().count();
        checker.node(def, &child("#/$defs", name), false);
    }
    checker.limits(schema);
    checker.out
}

/// The independent rule checker behind [`violations`](super::violations).
struct Checker<'a> {
    defs: Option<&'a Object>,
    out: Vec<Violation>,
    properties: usize,
    enum_values: usize,
    chars: usize,
}

impl<'a> Checker<'a> {
    fn flag(&mut self, rule: Rule, at: &str, message: impl Into<String>) {
        self.out.push(Violation { rule, at: at.to_string(), message: message.into() });
    }

    fn node(&mut self, schema: &'a Value, at: &str, root: bool) {
        let Some(map) = schema.as_object() else {
            self.flag(Rule::SupportedType, at, "boolean and non-object schemas are not supported");
            return;
        };
        let types = self.types(map, at);
        self.keywords(map, at, &types, root);
        if let Some(reference) = map.get("$ref") {
            self.reference(map, reference, at, root);
            return;
        }
        if let Some(branches) = map.get("anyOf") {
            self.any_of(map, branches, at, root);
        } else if !["type", "enum", "const"].iter().any(|key| map.contains_key(*key)) {
            self.flag(Rule::SupportedType, at, "every schema needs a type, enum, const, anyOf or $ref");
        }
        if types.contains(&"object") {
            self.object(map, at);
        }
        if types.contains(&"array") {
            match map.get("items") {
                Some(items) => self.node(items, &child(at, "items"), false),
                None => self.flag(Rule::SupportedType, at, "arrays must define items"),
            }
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            self.enum_values(values, at);
        }
        if let Some(Value::String(text)) = map.get("const") {
            self.chars += text.chars().count();
        }
    }

    fn types(&mut self, map: &'a Object, at: &str) -> Vec<&'a str> {
        let (names, ok) = match map.get("type") {
            None => (Vec::new(), true),
            Some(Value::String(t)) => (vec![t.as_str()], TYPES.contains(&t.as_str())),
            Some(Value::Array(list)) => {
                let names: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
                let unique = names.iter().enumerate().all(|(i, t)| !names[..i].contains(t));
                let ok = !list.is_empty() && names.len() == list.len() && unique;
                (names.clone(), ok && names.iter().all(|t| TYPES.contains(t)))
            }
            Some(_) => (Vec::new(), false),
        };
        if !ok {
            self.flag(Rule::SupportedType, at, format!("unsupported type {}", map.get("type").unwrap_or(&Value::Null)));
        }
        names
    }

    fn keywords(&mut self, map: &Object, at: &str, types: &[&str], root: bool) {
        for (key, value) in map {
            let key = key.as_str();
            if COMPOSITION_KEYWORDS.contains(&key) {
                self.flag(Rule::SupportedType, at, format!("{key} is not supported; only anyOf composes schemas"));
                continue;
            }
            let ok = match key {
                "$ref" | "anyOf" | "type" | "const" => true,
                "description" | "title" => value.is_string(),
                "enum" => value.as_array().is_some_and(|values| !values.is_empty()),
                "$defs" => root && value.is_object(),
                "pattern" | "format" => applies(key, types) && value.is_string(),
                "minItems" | "maxItems" => applies(key, types) && value.is_u64(),
                _ if keywords::NUMBER.contains(&key) => applies(key, types) && value.is_number(),
                _ => applies(key, types),
            };
            if !ok {
                self.flag(Rule::SupportedKeyword, at, format!("keyword {key} is not supported here"));
            }
        }
        if let Some(format) = map.get("format").and_then(Value::as_str)
            && types.contains(&"string")
            && !FORMATS.contains(&format)
        {
            self.flag(Rule::SupportedFormat, at, format!("format {format} is not supported"));
        }
    }

    fn reference(&mut self, map: &Object, reference: &Value, at: &str, root: bool) {
        let siblings: Vec<&str> =
            map.keys().map(String::as_str).filter(|key| *key != "$ref" && !(root && *key == "$defs")).collect();
        if !siblings.is_empty() {
            self.flag(Rule::SupportedKeyword, at, format!("$ref cannot have siblings ({})", siblings.join(", ")));
        }
        let text = reference.as_str().unwrap_or_default();
        let found = text == "#"
            || text
                .strip_prefix("#/$defs/")
                .is_some_and(|name| self.defs.is_some_and(|d| d.contains_key(&decode(name))));
        if !found {
            self.flag(Rule::RefTarget, at, format!("$ref {reference} must point at # or an existing #/$defs entry"));
        }
    }

    fn any_of(&mut self, map: &Object, branches: &'a Value, at: &str, root: bool) {
        let allowed = |key: &str| matches!(key, "anyOf" | "description" | "title") || (root && key == "$defs");
        let siblings: Vec<&str> = map.keys().map(String::as_str).filter(|key| !allowed(key)).collect();
        if !siblings.is_empty() {
            self.flag(Rule::SupportedKeyword, at, format!("anyOf cannot have siblings ({})", siblings.join(", ")));
        }
        match branches.as_array() {
            Some(list) if !list.is_empty() => {
                for (index, branch) in list.iter().enumerate() {
                    self.node(branch, &child(&child(at, "anyOf"), &index.to_string()), false);
                }
            }
            _ => self.flag(Rule::SupportedType, at, "anyOf must be a non-empty array"),
        }
    }

    fn object(&mut self, map: &'a Object, at: &str) {
        if map.get("additionalProperties") != Some(&Value::Bool(false)) {
            self.flag(Rule::AdditionalPropertiesFalse, at, "objects must set additionalProperties: false");
        }
        let properties = map.get("properties").and_then(Value::as_object);
        if map.get("properties").is_some_and(|p| !p.is_object()) {
            self.flag(Rule::SupportedKeyword, at, "properties must be an object");
        }
        for (name, schema) in properties.into_iter().flatten() {
            self.properties += 1;
            self.chars += name.chars().count();
            self.node(schema, &child(&child(at, "properties"), name), false);
        }
        let required = match map.get("required") {
            Some(Value::Array(list)) if list.iter().all(Value::is_string) => strings(map.get("required")),
            None => Vec::new(),
            Some(_) => {
                self.flag(Rule::AllRequired, at, "required must be an array of names");
                return;
            }
        };
        let missing: Vec<&str> = properties
            .into_iter()
            .flatten()
            .map(|(name, _)| name)
            .filter(|name| !required.contains(name))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            self.flag(Rule::AllRequired, at, format!("properties missing from required: {}", missing.join(", ")));
        }
        let unknown: Vec<&str> = required
            .iter()
            .filter(|name| !properties.is_some_and(|p| p.contains_key(*name)))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            self.flag(Rule::AllRequired, at, format!("required names without a property: {}", unknown.join(", ")));
        }
    }

    fn enum_values(&mut self, values: &[Value], at: &str) {
        self.enum_values += values.len();
        let length: usize = values.iter().filter_map(Value::as_str).map(|s| s.chars().count()).sum();
        self.chars += length;
        if values.len() > LARGE_ENUM && length > MAX_LARGE_ENUM_CHARS {
            let message = format!(
                "enum with {} values has {length} characters (limit {MAX_LARGE_ENUM_CHARS} above {LARGE_ENUM} values)",
                values.len()
            );
            self.flag(Rule::EnumSize, at, message);
        }
    }

    fn limits(&mut self, schema: &'a Value) {
        if self.properties > MAX_PROPERTIES {
            let message = format!("{} object properties in total (limit {MAX_PROPERTIES})", self.properties);
            self.flag(Rule::PropertyCount, "#", message);
        }
        if self.enum_values > MAX_ENUM_VALUES {
            let message = format!("{} enum values in total (limit {MAX_ENUM_VALUES})", self.enum_values);
            self.flag(Rule::EnumCount, "#", message);
        }
        if self.chars > MAX_TOTAL_CHARS {
            let message =
                format!("names, enum and const values total {} characters (limit {MAX_TOTAL_CHARS})", self.chars);
            self.flag(Rule::StringSize, "#", message);
        }
        let mut nesting = Nesting { root: schema, defs: self.defs, stack: vec!["#".into()], memo: HashMap::new() };
        let (depth, at) = nesting.depth(schema, "#");
        if depth > MAX_NESTING {
            self.flag(Rule::Nesting, &at, format!("objects nest {depth} levels deep here (limit {MAX_NESTING})"));
        }
    }
}

/// Measures object nesting through references; a recursive reference adds no depth, since strict mode allows
/// recursion.
struct Nesting<'a> {
    root: &'a Value,
    defs: Option<&'a Object>,
    stack: Vec<String>,
    memo: HashMap<String, (usize, String)>,
}

impl<'a> Nesting<'a> {
    /// Deepest object level at or below `schema`, and the pointer of that deepest object.
    fn depth(&mut self, schema: &'a Value, at: &str) -> (usize, String) {
        let Some(map) = schema.as_object() else { return (0, at.to_string()) };
        if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
            return self.follow(reference);
        }
        let mut children: Vec<(&Value, String)> = Vec::new();
        for (name, property) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
            children.push((property, child(&child(at, "properties"), name)));
        }
        if let Some(items) = map.get("items") {
            children.push((items, child(at, "items")));
        }
        for (index, branch) in map.get("anyOf").and_then(Value::as_array).into_iter().flatten().enumerate() {
            children.push((branch, child(&child(at, "anyOf"), &index.to_string())));
        }
        let mut best = (0, at.to_string());
        for (schema, schema_at) in children {
            let found = self.depth(schema, &schema_at);
            if found.0 > best.0 {
                best = found;
            }
        }
        (best.0 + usize::from(type_names(map).contains(&"object")), best.1)
    }

    fn follow(&mut self, reference: &str) -> (usize, String) {
        if let Some(known) = self.memo.get(reference) {
            return known.clone();
        }
        let target = match reference {
            "#" => Some(self.root),
            _ => reference.strip_prefix("#/$defs/").and_then(|name| self.defs?.get(&decode(name))),
        };
        let Some(target) = target.filter(|_| !self.stack.iter().any(|seen| seen == reference)) else {
            return (0, reference.to_string());
        };
        self.stack.push(reference.to_string());
        let found = self.depth(target, reference);
        self.stack.pop();
        self.memo.insert(reference.to_string(), found.clone());
        found
    }
}
