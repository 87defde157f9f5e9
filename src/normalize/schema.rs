//! Schema conversion to JSON Schema 2020-12.
//!
//! OpenAPI 3.0 and Swagger 2.0 schemas are a dialect of JSON Schema draft 4/5: `nullable`,
//! boolean exclusive bounds, `example`, `type: file`. Every schema that an operation uses is
//! converted here; every `$ref` it meets is resolved (across files), registered under a stable
//! name, converted once, and rewritten to `#/$defs/<name>`. Keywords with a value of the wrong
//! type are dropped instead of failing the document: real documents are full of them.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value, json};

use crate::diag::{DiagKind, Diagnostic, Fault, child};
use crate::load::{DocumentSet, RefTarget, split_ref};
use crate::schema::keywords::{self, Holds};

/// Prefix of every reference in converted schemas.
pub(crate) const DEFS_PREFIX: &str = "#/$defs/";

/// Converts schemas and keeps the registry of named (referenced) ones.
pub(crate) struct SchemaConverter<'d> {
    docs: &'d DocumentSet,
    registry: BTreeMap<String, Value>,
    keys: HashMap<RefTarget, String>,
    used: HashSet<String>,
    pending: Vec<(String, RefTarget)>,
    pub diagnostics: Vec<Diagnostic>,
}

/// How a broken `$ref` is handled: an error for the operation, or a warning and `{}`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Strict,
    Lenient,
}

impl<'d> SchemaConverter<'d> {
    pub(crate) fn new(docs: &'d DocumentSet) -> Self {
        SchemaConverter {
            docs,
            registry: BTreeMap::new(),
            keys: HashMap::new(),
            used: HashSet::new(),
            pending: Vec::new(),
            diagnostics: Vec::new(),
        }
    }

    /// Converts a schema of an operation found at `pointer` in document `doc`. A broken or circular
    /// `$ref` in it is an error (the caller skips the operation).
    pub(crate) fn convert(&mut self, schema: &Value, doc: &str, pointer: &str) -> Result<Value, Fault> {
        self.convert_value(schema, doc, pointer, Mode::Strict)
    }

    /// Converts every schema registered so far (and those they reference), then returns the
    /// registry. Broken `$ref`s inside them become unconstrained schemas with a warning.
    pub(crate) fn finish(mut self) -> (BTreeMap<String, Value>, Vec<Diagnostic>) {
        self.flush();
        (self.registry, self.diagnostics)
    }

    /// Converts the schemas registered but not yet converted.
    pub(crate) fn flush(&mut self) {
        while let Some((key, target)) = self.pending.pop() {
            let pointer = format!("#{}", target.pointer);
            let converted = match self.lookup(&target) {
                Some(raw) => self
                    .convert_value(raw, &target.doc, &pointer, Mode::Lenient)
                    .unwrap_or_else(|_| Value::Object(Map::new())),
                None => Value::Object(Map::new()),
            };
            self.registry.insert(key, converted);
        }
    }

    fn lookup(&self, target: &RefTarget) -> Option<&'d Value> {
        let doc = self.docs.get(&target.doc)?;
        if target.pointer.is_empty() { Some(doc) } else { doc.pointer(&target.pointer) }
    }

    fn place(&self, doc: &str, pointer: &str) -> String {
        self.docs.place(doc, pointer)
    }

    fn convert_value(&mut self, schema: &Value, doc: &str, pointer: &str, mode: Mode) -> Result<Value, Fault> {
        match schema {
            Value::Bool(_) => Ok(schema.clone()),
            Value::Object(obj) => self.convert_object(obj, doc, pointer, mode),
            other => {
                let msg = format!("a schema must be an object, found {}", kind_of(other));
                match mode {
                    Mode::Strict => Err(Fault::new(self.place(doc, pointer), msg)),
                    Mode::Lenient => {
                        self.diagnostics.push(Diagnostic::new(DiagKind::Lenient, self.place(doc, pointer), msg));
                        Ok(Value::Object(Map::new()))
                    }
                }
            }
        }
    }

    fn convert_object(
        &mut self,
        obj: &Map<String, Value>,
        doc: &str,
        pointer: &str,
        mode: Mode,
    ) -> Result<Value, Fault> {
        let mut out = Map::new();
        if let Some(Value::String(reference)) = obj.get("$ref") {
            self.convert_ref(reference, doc, pointer, mode, &mut out)?;
        }
        for (k, v) in obj {
            self.convert_keyword(obj, k, v, doc, pointer, mode, &mut out)?;
        }
        if obj.get("nullable") == Some(&Value::Bool(true)) || obj.get("x-nullable") == Some(&Value::Bool(true)) {
            return Ok(make_nullable(out));
        }
        Ok(Value::Object(out))
    }

    /// A `$ref` becomes `#/$defs/<key>`; a broken one fails (strict) or stands as `{}` (lenient).
    fn convert_ref(
        &mut self,
        reference: &str,
        doc: &str,
        pointer: &str,
        mode: Mode,
        out: &mut Map<String, Value>,
    ) -> Result<(), Fault> {
        match self.resolve(reference, doc) {
            Ok(key) => {
                out.insert("$ref".into(), Value::String(format!("{DEFS_PREFIX}{key}")));
            }
            Err(msg) => {
                let place = self.place(doc, &child(pointer, "$ref"));
                // A file that could not be read fails the operation, whatever the mode.
                let unreadable = split_ref(doc, reference).ok().and_then(|t| self.docs.missing(&t.doc));
                if let Some(why) = unreadable {
                    return Err(Fault::new(place, format!("broken $ref {reference:?}: {why}")));
                }
                match mode {
                    Mode::Strict => return Err(Fault::new(place, format!("broken $ref {reference:?}: {msg}"))),
                    Mode::Lenient => {
                        self.diagnostics.push(Diagnostic::new(
                            DiagKind::SchemaRef,
                            place,
                            format!("broken $ref {reference:?}: {msg}; an unconstrained schema stands in"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// One keyword of a schema object, converted into `out` (or dropped). Keywords that hold
    /// subschemas are converted here; the others are data (`data_keyword`).
    #[allow(clippy::too_many_arguments)]
    fn convert_keyword(
        &mut self,
        obj: &Map<String, Value>,
        k: &str,
        v: &Value,
        doc: &str,
        pointer: &str,
        mode: Mode,
        out: &mut Map<String, Value>,
    ) -> Result<(), Fault> {
        match (k, keywords::holds(k)) {
            ("$ref" | "nullable" | "x-nullable", _) => {}
            // Definitions are in the registry already; `contentSchema` is dropped, as it always was.
            ("$defs" | "definitions" | "contentSchema", _) => {}
            (_, Holds::NamedSchemas) => {
                if let Value::Object(props) = v {
                    let at = child(pointer, k);
                    let mut converted = Map::new();
                    for (name, s) in props {
                        let c = self.convert_value(s, doc, &child(&at, name), mode)?;
                        converted.insert(name.clone(), c);
                    }
                    out.insert(k.into(), Value::Object(converted));
                }
            }
            ("items", _) => match v {
                Value::Array(tuple) => {
                    let items = self.convert_list(tuple, doc, &child(pointer, k), mode)?;
                    out.insert("prefixItems".into(), Value::Array(items));
                }
                Value::Object(_) | Value::Bool(_) => {
                    out.insert(k.into(), self.convert_value(v, doc, &child(pointer, k), mode)?);
                }
                _ => {}
            },
            (_, Holds::Schema) => {
                if matches!(v, Value::Object(_) | Value::Bool(_)) {
                    out.insert(k.into(), self.convert_value(v, doc, &child(pointer, k), mode)?);
                }
            }
            (_, Holds::Schemas) => {
                if let Value::Array(list) = v
                    && !list.is_empty()
                {
                    let items = self.convert_list(list, doc, &child(pointer, k), mode)?;
                    out.insert(k.into(), Value::Array(items));
                }
            }
            (_, Holds::Nothing) => data_keyword(obj, k, v, out),
        }
        Ok(())
    }

    /// A list of subschemas at `at`, each converted.
    fn convert_list(&mut self, list: &[Value], doc: &str, at: &str, mode: Mode) -> Result<Vec<Value>, Fault> {
        let mut items = Vec::with_capacity(list.len());
        for (i, s) in list.iter().enumerate() {
            items.push(self.convert_value(s, doc, &child(at, i.to_string()), mode)?);
        }
        Ok(items)
    }

    /// Resolves a `$ref` met in document `doc` to a registry key, registering the target.
    fn resolve(&mut self, reference: &str, doc: &str) -> Result<String, String> {
        let mut target = split_ref(doc, reference)?;
        let mut seen = vec![target.clone()];
        // Follow pure aliases (`{$ref: ...}` and nothing else) to the schema they name.
        loop {
            let Some(value) = self.lookup(&target) else {
                return Err(if self.docs.get(&target.doc).is_none() {
                    self.docs
                        .missing(&target.doc)
                        .map(str::to_string)
                        .unwrap_or(format!("document {} was not loaded", target.doc))
                } else {
                    format!("nothing at #{} in {}", target.pointer, self.docs.display(&target.doc))
                });
            };
            match value.as_object() {
                Some(o) if o.len() == 1 && o.get("$ref").is_some_and(Value::is_string) => {
                    let next = split_ref(&target.doc, o["$ref"].as_str().unwrap_or_default())?;
                    if seen.contains(&next) {
                        let chain: Vec<String> = seen.iter().map(|t| format!("#{}", t.pointer)).collect();
                        return Err(format!("circular $ref: {} -> #{}", chain.join(" -> "), next.pointer));
                    }
                    seen.push(next.clone());
                    target = next;
                }
                _ => break,
            }
        }
        if let Some(key) = self.keys.get(&target) {
            return Ok(key.clone());
        }
        let key = self.unique_key(&target);
        self.keys.insert(target.clone(), key.clone());
        self.pending.push((key.clone(), target));
        Ok(key)
    }

    fn unique_key(&mut self, target: &RefTarget) -> String {
        let base = schema_name(target, &self.docs.root);
        let mut key = base.clone();
        let mut n = 2;
        while !self.used.insert(key.clone()) {
            key = format!("{base}_{n}");
            n += 1;
        }
        key
    }
}

/// A readable name for a referenced schema: its component name, else the last pointer segment,
/// else the file stem. Characters outside `[A-Za-z0-9_.-]` become `_`.
fn schema_name(target: &RefTarget, root: &str) -> String {
    let last = target.pointer.rsplit('/').next().unwrap_or("").replace("~1", "/").replace("~0", "~");
    let raw = if !last.is_empty() && !last.chars().all(|c| c.is_ascii_digit()) {
        last
    } else if target.pointer.is_empty() && target.doc != root {
        let file = target.doc.rsplit('/').next().unwrap_or("");
        file.split('.').next().unwrap_or("").to_string()
    } else {
        target.pointer.replace('/', "_")
    };
    let clean: String =
        raw.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' }).collect();
    if clean.trim_matches('_').is_empty() { "Schema".to_string() } else { clean }
}

/// A keyword of a schema object that holds no subschema, converted into `out` (or dropped):
/// OpenAPI 3.0's forms (`type: file`, `example`, boolean `exclusiveMinimum`) become 2020-12's,
/// values of the wrong type are dropped.
fn data_keyword(obj: &Map<String, Value>, k: &str, v: &Value, out: &mut Map<String, Value>) {
    match k {
        "type" => {
            if let Some(t) = convert_type(v) {
                if v == "file" {
                    out.entry("format").or_insert_with(|| json!("binary"));
                }
                out.insert("type".into(), t);
            }
        }
        "required" => {
            if let Value::Array(names) = v {
                let mut seen = HashSet::new();
                let names: Vec<Value> =
                    names.iter().filter(|n| n.is_string() && seen.insert(n.as_str())).cloned().collect();
                if !names.is_empty() {
                    out.insert(k.into(), Value::Array(names));
                }
            }
        }
        "example" if !obj.contains_key("examples") => {
            out.insert("examples".into(), Value::Array(vec![v.clone()]));
        }
        "exclusiveMinimum" | "exclusiveMaximum" if v == &Value::Bool(true) => {
            let bound = if k == "exclusiveMinimum" { "minimum" } else { "maximum" };
            if let Some(n @ Value::Number(_)) = obj.get(bound) {
                out.insert(k.into(), n.clone());
            }
        }
        "minimum" | "maximum" => {
            let exclusive = if k == "minimum" { "exclusiveMinimum" } else { "exclusiveMaximum" };
            if v.is_number() && obj.get(exclusive) != Some(&Value::Bool(true)) {
                out.insert(k.into(), v.clone());
            }
        }
        _ if plain_keyword_ok(k, v) => {
            out.insert(k.into(), v.clone());
        }
        _ => {}
    }
}

/// Keywords copied as they are when their value has the right type (else dropped): those of
/// 2020-12's validation, meta-data, format and content vocabularies. Documentation-only keywords
/// (xml, discriminator, externalDocs, x-*) and the core's go.
fn plain_keyword_ok(k: &str, v: &Value) -> bool {
    keywords::takes(k).is_some_and(|t| t.accepts(v))
}

fn convert_type(v: &Value) -> Option<Value> {
    let one = |s: &str| -> Option<&'static str> {
        let lower = s.to_ascii_lowercase();
        if lower == "file" {
            return Some("string");
        }
        keywords::TYPES.iter().copied().find(|t| *t == lower)
    };
    match v {
        Value::String(s) => one(s).map(|t| Value::String(t.into())),
        Value::Array(list) => {
            let mut types: Vec<Value> = Vec::new();
            for t in list.iter().filter_map(Value::as_str).filter_map(one) {
                if !types.iter().any(|x| x == t) {
                    types.push(Value::String(t.into()));
                }
            }
            match types.len() {
                0 => None,
                1 => types.pop(),
                _ => Some(Value::Array(types)),
            }
        }
        _ => None,
    }
}

/// OpenAPI 3.0 `nullable: true` as 2020-12: `null` joins the type (and the enum), or the schema
/// becomes `anyOf: [schema, {type: null}]` when it has no type of its own.
fn make_nullable(mut out: Map<String, Value>) -> Value {
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            if t != "null" {
                let t = std::mem::take(t);
                out.insert("type".into(), json!([t, "null"]));
            }
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push(json!("null"));
            }
        }
        _ => {
            let mut annotations = Map::new();
            for k in keywords::META_DATA {
                if let Some(v) = out.remove(k) {
                    annotations.insert(k.into(), v);
                }
            }
            if out.is_empty() {
                return Value::Object(annotations);
            }
            annotations.insert("anyOf".into(), json!([Value::Object(out), {"type": "null"}]));
            return Value::Object(annotations);
        }
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Value::Object(out)
}

pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conv(doc: Value, schema: Value) -> (Value, BTreeMap<String, Value>) {
        let docs = DocumentSet::single("file:///t.json", doc);
        let mut c = SchemaConverter::new(&docs);
        let out = c.convert(&schema, "file:///t.json", "#/x").unwrap();
        (out, c.finish().0)
    }

    #[test]
    fn oas30_keywords() {
        let (s, _) = conv(
            json!({}),
            json!({"type": "integer", "nullable": true, "minimum": 1, "exclusiveMinimum": true, "example": 5,
                   "xml": {"name": "x"}, "x-foo": 1, "enum": [1, 2], "pattern": 0}),
        );
        assert_eq!(
            s,
            json!({"type": ["integer", "null"], "exclusiveMinimum": 1, "examples": [5], "enum": [1, 2, null]})
        );
    }

    #[test]
    fn nullable_without_type_and_ref() {
        let doc = json!({"components": {"schemas": {"Pet": {"type": "object"}}}});
        let (s, reg) = conv(doc, json!({"$ref": "#/components/schemas/Pet", "nullable": true, "description": "d"}));
        assert_eq!(s, json!({"description": "d", "anyOf": [{"$ref": "#/$defs/Pet"}, {"type": "null"}]}));
        assert_eq!(reg["Pet"], json!({"type": "object"}));
    }

    #[test]
    fn aliases_followed_and_cycles_detected() {
        let doc = json!({"components": {"schemas": {
            "A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"},
            "C": {"$ref": "#/components/schemas/D"}, "D": {"type": "string"}}}});
        let docs = DocumentSet::single("file:///t.json", doc);
        let mut c = SchemaConverter::new(&docs);
        let err = c.convert(&json!({"$ref": "#/components/schemas/A"}), "file:///t.json", "#/x").unwrap_err();
        assert!(err.message.contains("circular $ref"), "{err}");
        let ok = c.convert(&json!({"$ref": "#/components/schemas/C"}), "file:///t.json", "#/x").unwrap();
        assert_eq!(ok, json!({"$ref": "#/$defs/D"}));
        let err = c.convert(&json!({"$ref": "#/components/schemas/Nope"}), "file:///t.json", "#/x").unwrap_err();
        assert!(err.message.contains("nothing at #/components/schemas/Nope"), "{err}");
    }

    #[test]
    fn recursive_schema_registered_once() {
        let doc = json!({"components": {"schemas": {"Node": {"type": "object", "properties": {
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}}}}}});
        let (s, reg) = conv(doc, json!({"$ref": "#/components/schemas/Node"}));
        assert_eq!(s, json!({"$ref": "#/$defs/Node"}));
        assert_eq!(reg["Node"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
    }

    #[test]
    fn tuple_items_and_file() {
        let (s, _) = conv(json!({}), json!({"type": "array", "items": [{"type": "file"}]}));
        assert_eq!(s, json!({"type": "array", "prefixItems": [{"type": "string", "format": "binary"}]}));
    }
}
