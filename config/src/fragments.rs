//! Subschemas stored once (format 2's `fragments`). The tools stage inlines every `$ref` of an
//! API description, so the same object schema (Graph's `user`, GitHub's `repository`) is inlined
//! into hundreds of tools: Microsoft Graph's config held 26 MB of input schemas for 11,422 tools.
//! A stored config keeps each such subschema once, in [`RuntimeConfig::fragments`], and a tool's
//! schema holds `{"$fragment": "<name>"}` in its place.
//!
//! Fragments never reach the compiler's stages or the engine: loading a config puts each one back
//! in place ([`RuntimeConfig::inline_fragments`], which its `Deserialize` runs), so a schema is
//! byte for byte what the tools stage made. [`RuntimeConfig::share_fragments`] makes them when
//! the config is written ([`RuntimeConfig::into_stored`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{Map, Value};

use crate::keywords::{self, Holds};
use crate::{InvalidConfig, JsonObject, RuntimeConfig};

/// Subschemas by name, each inlined by several tools: `{"$fragment": "<name>"}` in a tool's
/// schema (or in another fragment) stands for the subschema of that name.
pub type Fragments = BTreeMap<String, Value>;

/// The one key of a reference to a fragment.
pub const FRAGMENT_KEY: &str = "$fragment";

/// Subschemas shorter than this (compact JSON bytes) stay inline: their reference would save
/// little, and a schema read in the file stays readable.
const MIN_FRAGMENT_BYTES: usize = 128;

/// Deepest nesting of fragments in fragments that loading follows (a reference cycle, which only
/// a hand edit can make, stops there with an error).
const MAX_NESTING: usize = 64;

/// The fragment `value` refers to, when it is a reference: an object whose only key is
/// [`FRAGMENT_KEY`], a string.
fn reference(value: &Map<String, Value>) -> Option<&str> {
    match (value.len(), value.get(FRAGMENT_KEY)) {
        (1, Some(Value::String(name))) => Some(name),
        _ => None,
    }
}

/// Calls `f` on each subschema of `schema` that is an object, at schema positions only (never in
/// data such as `default` or `enum`), with the JSON pointer tokens that lead to it.
fn for_each_child(schema: &mut JsonObject, mut f: impl FnMut(&mut JsonObject, &str, Option<&str>)) {
    for (key, value) in schema.iter_mut() {
        match (keywords::holds(key), value) {
            (Holds::Schema | Holds::Schemas, Value::Array(list)) => {
                for (i, item) in list.iter_mut().enumerate() {
                    if let Value::Object(one) = item {
                        f(one, key, Some(&i.to_string()));
                    }
                }
            }
            (Holds::Schema, Value::Object(one)) => f(one, key, None),
            (Holds::NamedSchemas, Value::Object(map)) => {
                for (name, item) in map.iter_mut() {
                    if let Value::Object(one) = item {
                        f(one, key, Some(name));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A stable name for a fragment of compact JSON `text`: its FNV-1a hash, so that a subschema
/// keeps its name across regenerations while it does not change.
fn name_of(text: &str, taken: &Fragments) -> String {
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let hex = format!("{hash:016x}");
    // Ten hex digits name ten thousand fragments apart all but once in ten thousand configs; the
    // rare clash takes all sixteen, then a suffix (the order of the tools decides it).
    let short = hex[..10].to_string();
    if !taken.contains_key(&short) {
        return short;
    }
    (0..)
        .map(|n| if n == 0 { hex.clone() } else { format!("{hex}-{n}") })
        .find(|n| !taken.contains_key(n))
        .unwrap_or(hex)
}

/// What sharing has seen and made: how often each subschema's text occurs (by hash: a clash only
/// makes a fragment used once, which goes back in place), and the fragments, by name and by text.
struct Sharing {
    counts: HashMap<u64, usize>,
    fragments: Fragments,
    by_text: HashMap<String, String>,
}

fn text_hash(text: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
    BuildHasherDefault::<DefaultHasher>::default().hash_one(text)
}

impl Sharing {
    /// Counts every subschema under `schema` (not `schema` itself) long enough to share.
    fn count(&mut self, schema: &mut JsonObject) {
        for_each_child(schema, |child, _, _| {
            if let Ok(text) = serde_json::to_string(child)
                && text.len() >= MIN_FRAGMENT_BYTES
            {
                *self.counts.entry(text_hash(&text)).or_default() += 1;
                self.count(child);
            }
        });
    }

    /// Replaces, from the top, each subschema under `schema` seen more than once by a reference;
    /// the fragment made of it has its own repeated subschemas replaced alike.
    fn replace(&mut self, schema: &mut JsonObject) {
        for_each_child(schema, |child, _, _| {
            let Ok(text) = serde_json::to_string(child) else { return };
            if text.len() < MIN_FRAGMENT_BYTES {
                return;
            }
            if self.counts.get(&text_hash(&text)).is_none_or(|&n| n < 2) {
                self.replace(child);
                return;
            }
            let name = match self.by_text.get(&text) {
                Some(name) => name.clone(),
                None => {
                    let name = name_of(&text, &self.fragments);
                    // The name is taken before the body's own fragments are named.
                    self.fragments.insert(name.clone(), Value::Null);
                    let mut body = std::mem::take(child);
                    self.replace(&mut body);
                    self.fragments.insert(name.clone(), Value::Object(body));
                    self.by_text.insert(text, name.clone());
                    name
                }
            };
            *child = Map::from_iter([(FRAGMENT_KEY.to_string(), Value::String(name))]);
        });
    }
}

/// Counts the references to each fragment under `schema`.
fn count_references(schema: &mut JsonObject, uses: &mut HashMap<String, usize>) {
    for_each_child(schema, |child, _, _| match reference(child) {
        Some(name) => *uses.entry(name.to_string()).or_default() += 1,
        None => count_references(child, uses),
    });
}

/// Puts each fragment of `once` back in place of its reference under `schema` (and those under
/// it), taking it out of `fragments`.
fn inline_once(schema: &mut JsonObject, once: &HashSet<String>, fragments: &mut Fragments) {
    for_each_child(schema, |child, _, _| {
        if let Some(name) = reference(child).filter(|n| once.contains(*n)).map(str::to_string)
            && let Some(Value::Object(body)) = fragments.remove(&name)
        {
            *child = body;
        }
        inline_once(child, once, fragments);
    });
}

/// Whether any object at a schema position under `schema` has a `$fragment` key: a subschema of
/// the API's own that loading would take for a reference.
fn has_fragment_key(schema: &mut JsonObject) -> bool {
    let mut found = schema.contains_key(FRAGMENT_KEY);
    for_each_child(schema, |child, _, _| found = found || has_fragment_key(child));
    found
}

/// `schema` with every reference under it replaced by its fragment, recursively; `at` is its
/// JSON pointer, for errors.
fn expand(schema: &mut JsonObject, fragments: &Fragments, at: &str, depth: usize) -> Result<(), InvalidConfig> {
    let mut failed = None;
    for_each_child(schema, |child, key, name| {
        if failed.is_some() {
            return;
        }
        let here = pointer(at, key, name);
        let result = match reference(child) {
            Some(fragment) => match fragments.get(fragment) {
                _ if depth >= MAX_NESTING => Err(InvalidConfig(format!(
                    "{here}: fragments nested over {MAX_NESTING} deep (a fragment that refers to itself?)"
                ))),
                Some(Value::Object(body)) => {
                    *child = body.clone();
                    expand(child, fragments, &here, depth + 1)
                }
                Some(_) => Err(InvalidConfig(format!("#/fragments/{fragment}: a fragment is an object schema"))),
                None => Err(InvalidConfig(format!(
                    "{here}: the fragment `{fragment}` is not in `fragments`; regenerate the config with `mcpgen config`"
                ))),
            },
            None => expand(child, fragments, &here, depth),
        };
        if let Err(e) = result {
            failed = Some(e);
        }
    });
    failed.map_or(Ok(()), Err)
}

/// `at`/`key`[/`name`], escaped as JSON pointer tokens.
fn pointer(at: &str, key: &str, name: Option<&str>) -> String {
    let escape = |t: &str| t.replace('~', "~0").replace('/', "~1");
    match name {
        None => format!("{at}/{}", escape(key)),
        Some(name) => format!("{at}/{}/{}", escape(key), escape(name)),
    }
}

impl RuntimeConfig {
    /// Every subschema (of 128 bytes or more) that the tools' schemas inline more than once, kept
    /// once in [`fragments`](Self::fragments), and referred to where it was. Deterministic: names
    /// come from the subschemas' text, and fragments are made in the order of the tools. Nothing
    /// is shared when an API's own schema has a `$fragment` key, which loading would take for a
    /// reference.
    pub fn share_fragments(&mut self) {
        if !self.fragments.is_empty() {
            return;
        }
        if self
            .tools
            .iter_mut()
            .any(|t| has_fragment_key(&mut t.input_schema) || t.output_schema.as_mut().is_some_and(has_fragment_key))
        {
            return;
        }
        let mut sharing = Sharing { counts: HashMap::new(), fragments: Fragments::new(), by_text: HashMap::new() };
        for tool in &mut self.tools {
            sharing.count(&mut tool.input_schema);
            if let Some(output) = &mut tool.output_schema {
                sharing.count(output);
            }
        }
        for tool in &mut self.tools {
            sharing.replace(&mut tool.input_schema);
            if let Some(output) = &mut tool.output_schema {
                sharing.replace(output);
            }
        }
        // A subschema repeated only inside one fragment is referred to once: back in place.
        let mut fragments = sharing.fragments;
        let mut uses = HashMap::new();
        for tool in &mut self.tools {
            count_references(&mut tool.input_schema, &mut uses);
            if let Some(output) = &mut tool.output_schema {
                count_references(output, &mut uses);
            }
        }
        for body in fragments.values_mut() {
            if let Value::Object(body) = body {
                count_references(body, &mut uses);
            }
        }
        let once: HashSet<String> = fragments.keys().filter(|n| uses.get(*n).is_none_or(|&u| u < 2)).cloned().collect();
        if !once.is_empty() {
            // Each body is taken out while it is worked on; a fragment used once goes where its
            // one reference is, in a tool or in another fragment.
            let kept: Vec<String> = fragments.keys().filter(|n| !once.contains(*n)).cloned().collect();
            for name in kept {
                if let Some(Value::Object(mut body)) = fragments.remove(&name) {
                    inline_once(&mut body, &once, &mut fragments);
                    fragments.insert(name, Value::Object(body));
                }
            }
            for tool in &mut self.tools {
                inline_once(&mut tool.input_schema, &once, &mut fragments);
                if let Some(output) = &mut tool.output_schema {
                    inline_once(output, &once, &mut fragments);
                }
            }
        }
        self.fragments = fragments;
    }

    /// Every reference to a fragment put back in place, [`fragments`](Self::fragments) emptied:
    /// each tool's schemas as the tools stage made them. An error names the reference that does
    /// not resolve (a fragment missing, not an object, or nested in itself).
    pub fn inline_fragments(&mut self) -> Result<(), InvalidConfig> {
        if self.fragments.is_empty() {
            return Ok(());
        }
        let fragments = std::mem::take(&mut self.fragments);
        for (i, tool) in self.tools.iter_mut().enumerate() {
            expand(&mut tool.input_schema, &fragments, &format!("#/tools/{i}/input_schema"), 0)?;
            if let Some(output) = &mut tool.output_schema {
                expand(output, &fragments, &format!("#/tools/{i}/output_schema"), 0)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// An object schema of `n` string properties named after `tag`: over 128 bytes from n = 4.
    fn object(tag: &str, n: usize) -> Value {
        let props: Map<String, Value> = (0..n)
            .map(|i| (format!("{tag}_{i}"), json!({"type": "string", "description": format!("{tag} {i}")})))
            .collect();
        json!({"type": "object", "properties": props})
    }

    fn config(schemas: Vec<Value>) -> RuntimeConfig {
        serde_json::from_value(json!({
            "mcpgen_config": 2, "server": {"name": "s", "version": "1"}, "upstream": {},
            "tools": schemas.into_iter().enumerate().map(|(i, s)| json!({"name": format!("t{i}"),
                "input_schema": s, "output_schema": {"type": "object", "properties": {"data": object("out", 6)}},
                "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true,
                "openWorldHint": true}})).collect::<Vec<_>>()
        }))
        .expect("a config")
    }

    /// `config` written with its fragments shared, and read back.
    fn round_trip(config: &RuntimeConfig) -> (String, RuntimeConfig) {
        let mut stored = config.clone();
        stored.share_fragments();
        let text = serde_json::to_string(&stored).expect("JSON");
        (text.clone(), RuntimeConfig::from_json(&text).expect("loads"))
    }

    #[test]
    fn repeated_subschemas_are_stored_once_and_load_as_they_were() {
        let user = object("user", 8);
        let original = config(vec![
            json!({"type": "object", "properties": {"owner": user, "tag": {"type": "string"}}}),
            json!({"type": "object", "properties": {"members": {"type": "array", "items": user}}}),
            json!({"type": "object", "properties": {"x": object("lonely", 8)}}),
        ]);
        let mut stored = original.clone();
        stored.share_fragments();
        assert_eq!(stored.fragments.len(), 2, "the user and the output's data: {:?}", stored.fragments.keys());
        let user_ref = &stored.tools[0].input_schema["properties"]["owner"];
        assert_eq!(user_ref.as_object().map(Map::len), Some(1));
        assert_eq!(&stored.tools[1].input_schema["properties"]["members"]["items"], user_ref);
        assert_eq!(stored.tools[2].input_schema, original.tools[2].input_schema, "used once: inline");
        let (text, loaded) = round_trip(&original);
        assert!(text.len() < serde_json::to_string(&original).expect("JSON").len());
        assert!(loaded.fragments.is_empty());
        assert_eq!(loaded, original);
        assert_eq!(serde_json::to_string(&loaded).expect("JSON"), serde_json::to_string(&original).expect("JSON"));
    }

    #[test]
    fn a_subschema_repeated_only_inside_one_fragment_stays_in_it() {
        let inner = object("inner", 6);
        let outer = json!({"type": "object", "properties": {"a": inner, "b": inner}});
        let original = config(vec![
            json!({"type": "object", "properties": {"one": outer}}),
            json!({"type": "object", "properties": {"two": outer}}),
        ]);
        let mut stored = original.clone();
        stored.share_fragments();
        // The outer, the inner (twice in the outer's body) and the output's data.
        assert_eq!(stored.fragments.len(), 3);
        let (_, loaded) = round_trip(&original);
        assert_eq!(loaded, original);
    }

    #[test]
    fn data_is_never_a_fragment() {
        let big = object("data", 8);
        let original = config(vec![
            json!({"type": "object", "default": big, "enum": [big], "properties": {"a": {"const": big}}}),
            json!({"type": "object", "default": big, "examples": [big]}),
        ]);
        let mut stored = original.clone();
        stored.share_fragments();
        assert_eq!(stored.fragments.len(), 1, "only the output's data");
        for (tool, before) in stored.tools.iter().zip(&original.tools) {
            assert_eq!(tool.input_schema, before.input_schema);
        }
    }

    #[test]
    fn an_apis_own_fragment_key_shares_nothing() {
        let user = object("user", 8);
        let original = config(vec![
            json!({"type": "object", "properties": {"a": user, "b": {"$fragment": "x"}}}),
            json!({"type": "object", "properties": {"a": user}}),
        ]);
        let mut stored = original.clone();
        stored.share_fragments();
        assert!(stored.fragments.is_empty());
        assert_eq!(stored, original);
    }

    #[test]
    fn names_come_from_the_text() {
        let (a, b) = (object("a", 8), object("b", 8));
        let one = config(vec![json!({"properties": {"x": a, "y": b}}), json!({"properties": {"x": a, "y": b}})]);
        let two = config(vec![
            json!({"properties": {"y": b}}),
            json!({"properties": {"x": a, "y": b}}),
            json!({"properties": {"x": a}}),
        ]);
        let names = |c: &RuntimeConfig| {
            let mut c = c.clone();
            c.share_fragments();
            c.fragments.into_keys().collect::<Vec<_>>()
        };
        assert_eq!(names(&one), names(&two));
        assert!(names(&one).iter().all(|n| n.len() == 10 && n.bytes().all(|b| b.is_ascii_hexdigit())));
    }

    fn load(fragments: Value, schema: Value) -> Result<RuntimeConfig, InvalidConfig> {
        let mut c = serde_json::to_value(config(vec![schema])).expect("JSON");
        c["fragments"] = fragments;
        RuntimeConfig::from_json(&c.to_string())
    }

    #[test]
    fn a_missing_fragment_is_named_with_its_place() {
        let e = load(json!({"a": {"type": "string"}}), json!({"properties": {"p/q": {"$fragment": "b"}}}))
            .expect_err("b is missing");
        assert!(e.0.contains("#/tools/0/input_schema/properties/p~1q: the fragment `b` is not in `fragments`"), "{e}");
    }

    #[test]
    fn a_fragment_in_itself_is_refused() {
        let e = load(
            json!({"a": {"type": "object", "properties": {"next": {"$fragment": "a"}}}}),
            json!({"properties": {"x": {"$fragment": "a"}}}),
        )
        .expect_err("a cycle");
        assert!(e.0.contains("nested over 64 deep"), "{e}");
    }

    #[test]
    fn a_reference_with_other_keys_is_a_plain_schema() {
        let c =
            load(json!({"a": {"type": "string"}}), json!({"properties": {"x": {"$fragment": "a", "type": "integer"}}}))
                .expect("loads");
        assert_eq!(c.tools[0].input_schema["properties"]["x"], json!({"$fragment": "a", "type": "integer"}));
    }
}
