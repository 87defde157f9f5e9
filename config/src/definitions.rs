//! Definitions stored once (format 2). A tool's schemas are self-contained as clients see them:
//! every `#/$defs/<name>` they refer to is in their own root `$defs`. Thousands of tools of one
//! API reach the same definitions, so a config of format 2 keeps each of them once, in
//! [`RuntimeConfig::definitions`], and a tool's schemas keep only their `$ref`s (and, in their own
//! `$defs`, the definitions that differ from the shared ones of that name).
//!
//! [`assemble`] gives a tool's schema as clients see it: its own `$defs`, plus every shared
//! definition its references reach (transitively), put back under `$defs` (a sorted map: the
//! bytes are those of the self-contained schema). [`RuntimeConfig::share_definitions`] makes the
//! stored form from self-contained tools, and keeps a tool's schema as it is whenever assembling
//! its stored form would not give it back exactly; [`RuntimeConfig::inline_definitions`] undoes it.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::keywords::{self, Holds};
use crate::{JsonObject, RuntimeConfig};

/// Definitions by name, shared by the tools of a config: each `#/$defs/<name>` of a tool's
/// schema that its own `$defs` lacks names one of them.
pub type Definitions = BTreeMap<String, Value>;

/// The key of a schema's own definitions.
const DEFS: &str = "$defs";

/// `schema` (a tool's stored input or output schema) as clients see it: its own `$defs` and the
/// shared `definitions` its `$ref`s reach, transitively. Borrowed when it reaches none.
pub fn assemble<'a>(schema: &'a JsonObject, definitions: &Definitions) -> Cow<'a, JsonObject> {
    if definitions.is_empty() {
        return Cow::Borrowed(schema);
    }
    let reached = reached(schema, definitions);
    if reached.is_empty() {
        return Cow::Borrowed(schema);
    }
    let mut out = schema.clone();
    let defs = out.entry(DEFS).or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(defs) = defs {
        for name in reached {
            if let Some(def) = definitions.get(name) {
                defs.insert(name.to_string(), def.clone());
            }
        }
    }
    Cow::Owned(out)
}

/// The names of the shared definitions `schema` reaches: those its `$ref`s (and theirs) name that
/// its own `$defs` lacks.
fn reached<'d>(schema: &JsonObject, definitions: &'d Definitions) -> BTreeSet<&'d str> {
    reached_in(schema, |name| definitions.get_key_value(name))
}

/// [`reached`], with the shared definitions looked up by `lookup`.
fn reached_in<'d>(schema: &JsonObject, lookup: impl Fn(&str) -> Option<(&'d String, &'d Value)>) -> BTreeSet<&'d str> {
    let own = schema.get(DEFS).and_then(Value::as_object);
    let mut names = Vec::new();
    refs_in(schema, &mut names);
    let mut reached = BTreeSet::new();
    while let Some(name) = names.pop() {
        if own.is_some_and(|own| own.contains_key(&name)) {
            continue;
        }
        let Some((key, def)) = lookup(&name) else { continue };
        if reached.insert(key.as_str())
            && let Value::Object(def) = def
        {
            refs_in(def, &mut names);
        }
    }
    reached
}

/// The definition names of the `#/$defs/<name>` references under `schema`, at schema positions
/// (never in data such as `default`), its own `$defs` included.
fn refs_in(schema: &Map<String, Value>, out: &mut Vec<String>) {
    if let Some(Value::String(reference)) = schema.get("$ref")
        && let Some(name) = definition_name(reference)
    {
        out.push(name);
    }
    for (key, value) in schema {
        match (keywords::holds(key), value) {
            (Holds::Schema | Holds::Schemas, Value::Array(list)) => {
                list.iter().filter_map(Value::as_object).for_each(|s| refs_in(s, out));
            }
            (Holds::Schema, Value::Object(one)) => refs_in(one, out),
            (Holds::NamedSchemas, Value::Object(map)) => {
                map.values().filter_map(Value::as_object).for_each(|s| refs_in(s, out));
            }
            _ => {}
        }
    }
}

/// The definition a `#/$defs/<name>` reference names (percent-decoded, `~1` and `~0` unescaped);
/// `None` for any other reference, and for a pointer below a definition.
fn definition_name(reference: &str) -> Option<String> {
    let rest = reference.strip_prefix("#/$defs/")?;
    let decoded = percent_encoding::percent_decode_str(rest).decode_utf8().ok()?;
    if decoded.contains('/') {
        return None;
    }
    Some(decoded.replace("~1", "/").replace("~0", "~"))
}

/// The stored form of one self-contained `schema`: the definitions of its own `$defs` that
/// `definitions` has alike (or lacks: they are added) are taken out, if what assembling the
/// result reaches is exactly those; otherwise it is left as it is. Returns the names taken out.
fn share(schema: &mut JsonObject, definitions: &mut Definitions) -> BTreeSet<String> {
    let Some(Value::Object(own)) = schema.get(DEFS) else { return BTreeSet::new() };
    let movable: BTreeSet<String> = own
        .iter()
        .filter(|(name, def)| definitions.get(name.as_str()).is_none_or(|shared| shared == *def))
        .map(|(name, _)| name.clone())
        .collect();
    if movable.is_empty() {
        return movable;
    }
    // Taken out in place (no copy of the schema), and put back if the check fails.
    let Some(Value::Object(kept)) = schema.get_mut(DEFS) else { return BTreeSet::new() };
    let mut moved = Definitions::new();
    for name in &movable {
        if let Some(def) = kept.remove(name) {
            moved.insert(name.clone(), def);
        }
    }
    let emptied = kept.is_empty();
    let own = if emptied { schema.remove(DEFS) } else { None };
    // What assembling would reach: the moved definitions, and the shared ones they lack.
    let lookup = |name: &str| moved.get_key_value(name).or_else(|| definitions.get_key_value(name));
    if !reached_in(schema, lookup).into_iter().eq(movable.iter().map(String::as_str)) {
        let own = schema.entry(DEFS).or_insert_with(|| own.unwrap_or_else(|| Value::Object(Map::new())));
        if let Value::Object(own) = own {
            own.extend(moved);
        }
        return BTreeSet::new();
    }
    for (name, def) in moved {
        definitions.entry(name).or_insert(def);
    }
    movable
}

/// Whether assembling `schema` reaches exactly the shared definitions `moved`.
fn faithful(schema: &JsonObject, moved: &BTreeSet<String>, definitions: &Definitions) -> bool {
    reached(schema, definitions).into_iter().eq(moved.iter().map(String::as_str))
}

/// `schema` with the shared definitions `moved` put back in its own `$defs`.
fn restore(schema: &mut JsonObject, moved: &BTreeSet<String>, definitions: &Definitions) {
    if moved.is_empty() {
        return;
    }
    if let Value::Object(own) = schema.entry(DEFS).or_insert_with(|| Value::Object(Map::new())) {
        for name in moved {
            if let Some(def) = definitions.get(name) {
                own.insert(name.clone(), def.clone());
            }
        }
    }
}

impl RuntimeConfig {
    /// The config as written (`mcpgen config`, a generated crate's catalogue): the format
    /// [`CONFIG_FORMAT_VERSION`](crate::CONFIG_FORMAT_VERSION), definitions and repeated
    /// subschemas ([`fragments`](crate::fragments)) shared.
    pub fn into_stored(mut self) -> RuntimeConfig {
        self.share_definitions();
        self.share_fragments();
        self.mcpgen_config = crate::CONFIG_FORMAT_VERSION;
        self
    }

    /// Every tool's schemas in their stored form (format 2): the definitions of their own `$defs`
    /// kept once, in [`definitions`](Self::definitions), where assembling ([`assemble`]) gives
    /// each schema back exactly. Deterministic (the tools in order; the first tool's definition
    /// of a name is shared, a different one of that name stays in its tool). A config that
    /// already shares definitions is left as it is; one where sharing would change what a schema
    /// reaches (a `$ref` that named nothing in it) too.
    pub fn share_definitions(&mut self) {
        if !self.definitions.is_empty() {
            return;
        }
        let mut definitions = Definitions::new();
        let mut moved = Vec::with_capacity(self.tools.len());
        for tool in &mut self.tools {
            let input = share(&mut tool.input_schema, &mut definitions);
            let output = tool.output_schema.as_mut().map(|o| share(o, &mut definitions)).unwrap_or_default();
            moved.push((input, output));
        }
        let all_faithful = self.tools.iter().zip(&moved).all(|(tool, (input, output))| {
            faithful(&tool.input_schema, input, &definitions)
                && tool.output_schema.as_ref().is_none_or(|o| faithful(o, output, &definitions))
        });
        if all_faithful {
            self.definitions = definitions;
            return;
        }
        for (tool, (input, output)) in self.tools.iter_mut().zip(&moved) {
            restore(&mut tool.input_schema, input, &definitions);
            if let Some(o) = &mut tool.output_schema {
                restore(o, output, &definitions);
            }
        }
    }

    /// Every tool's schemas self-contained (as format 1 stores them): the shared definitions each
    /// reaches put back in its own `$defs`, [`definitions`](Self::definitions) emptied.
    pub fn inline_definitions(&mut self) {
        let definitions = std::mem::take(&mut self.definitions);
        for tool in &mut self.tools {
            if let Cow::Owned(full) = assemble(&tool.input_schema, &definitions) {
                tool.input_schema = full;
            }
            if let Some(output) = &mut tool.output_schema
                && let Cow::Owned(full) = assemble(output, &definitions)
            {
                *output = full;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn obj(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn references_reach_shared_definitions_transitively() {
        let defs: Definitions = [
            ("A".to_string(), json!({"properties": {"b": {"$ref": "#/$defs/B"}}})),
            ("B".to_string(), json!({"items": {"$ref": "#/$defs/A"}})),
            ("C".to_string(), json!({"type": "string"})),
            ("a/b".to_string(), json!({"type": "integer"})),
        ]
        .into();
        let schema = obj(json!({"properties": {"a": {"$ref": "#/$defs/A"}, "s": {"$ref": "#/$defs/a~1b"},
            "d": {"default": {"$ref": "#/$defs/C"}}}}));
        let full = assemble(&schema, &defs);
        let names: Vec<&String> = full["$defs"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["A", "B", "a/b"], "C is only in data");
        assert!(matches!(assemble(&obj(json!({"type": "object"})), &defs), Cow::Borrowed(_)));
    }

    #[test]
    fn shared_and_conflicting_definitions_assemble_to_the_originals() {
        let node = json!({"properties": {"next": {"$ref": "#/$defs/Node"}, "tag": {"$ref": "#/$defs/Tag"}}});
        let one = obj(json!({"type": "object", "properties": {"n": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": node, "Tag": {"type": "string"}}}));
        let two = obj(json!({"type": "object", "properties": {"m": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": node, "Tag": {"type": "integer"}}}));
        let three = obj(json!({"type": "object", "properties": {"x": {"$ref": "#/$defs/Tag"}},
            "$defs": {"Tag": {"type": "string"}, "Unused": {}}}));
        let originals = [one, two, three];
        let mut config: RuntimeConfig = serde_json::from_value(json!({
            "mcpgen_config": 2, "server": {"name": "s", "version": "1"}, "upstream": {},
            "tools": originals.iter().enumerate().map(|(i, s)| json!({"name": format!("t{i}"), "input_schema": s,
                "output_schema": s, "annotations": {"readOnlyHint": true, "destructiveHint": false,
                "idempotentHint": true, "openWorldHint": true}})).collect::<Vec<_>>()
        }))
        .unwrap();
        config.share_definitions();
        assert_eq!(config.definitions.keys().collect::<Vec<_>>(), ["Node", "Tag"]);
        assert!(!config.tools[0].input_schema.contains_key("$defs"), "all shared");
        assert_eq!(config.tools[1].input_schema["$defs"], json!({"Tag": {"type": "integer"}}), "a conflict stays");
        assert_eq!(config.tools[2].input_schema, originals[2], "an unreached definition keeps it whole");
        for (tool, original) in config.tools.iter().zip(&originals) {
            assert_eq!(*assemble(&tool.input_schema, &config.definitions), *original);
            assert_eq!(
                serde_json::to_string(&*assemble(tool.output_schema.as_ref().unwrap(), &config.definitions)).unwrap(),
                serde_json::to_string(original).unwrap()
            );
        }
        let shared = config.clone();
        config.share_definitions();
        assert_eq!(config, shared, "idempotent");
        config.inline_definitions();
        assert!(config.definitions.is_empty());
        for (tool, original) in config.tools.iter().zip(&originals) {
            assert_eq!(tool.input_schema, *original);
        }
    }

    #[test]
    fn a_reference_that_named_nothing_keeps_every_tool_whole() {
        let tool = |s: Value| {
            json!({"name": "t", "input_schema": s, "annotations": {"readOnlyHint": true,
                "destructiveHint": false, "idempotentHint": true, "openWorldHint": true}})
        };
        let mut config: RuntimeConfig = serde_json::from_value(json!({
            "mcpgen_config": 1, "server": {"name": "s", "version": "1"}, "upstream": {},
            "tools": [tool(json!({"properties": {"a": {"$ref": "#/$defs/A"}}, "$defs": {"A": {}}})),
                      tool(json!({"properties": {"b": {"$ref": "#/$defs/A"}}}))]
        }))
        .unwrap();
        let before = config.clone();
        config.share_definitions();
        assert_eq!(config, before);
    }
}
