//! A tool as a typed TypeScript-style function declaration, and a catalogue's tools as one block
//! of them: what code mode's `describe_tools` shows a model that writes a script.
//!
//! ```text
//! type Label = { id?: number; name?: string };
//! declare const api: {
//!   /** List pull requests */
//!   pulls_list(args: { owner: string; repo: string; per_page?: number /* max 100 */; state?: "open" | "closed" }): Promise<{ id; title; user: { login; /* … */ }; /* … */ }[]>;
//!   /** Add labels to an issue */
//!   issues_add_labels(args: { owner: string; repo: string; labels?: string[] }): Promise<{ result: Label[] }>;
//! };
//! ```
//!
//! The arguments are the tool's input schema, required ones first; JSON Schema becomes
//! TypeScript: `?` for optional properties, unions of literals for `enum`, a literal for `const`,
//! `T[]` and tuples for arrays, objects inline, `{ [key: string]: T }` for
//! `additionalProperties`, unions for `anyOf`/`oneOf`, intersections for `allOf`, `| null` for
//! `nullable` and `"null"` among the types, `number` for integers. The constraints a caller must
//! meet (bounds, lengths, `pattern`, `default`, a useful `format`) follow a property in a short
//! comment. `$defs` (and `definitions`) are named types ([`NamedTypes`]), declared once before
//! the functions and shared by the tools whose definitions are the same (with every definition
//! they reach); a type refers to itself by name, and other references that loop end in
//! `unknown`. Depth, properties per object and literals per union are capped ([`Options`]); a cut
//! leaves `/* … */`.
//!
//! The return type is, in this order: the tool's output schema (exact: structured content, as
//! the engine checks it, object-rooted: `{ result: T }` for a wrapped non-object), else the
//! response's shape string when it is readable ([`shape_type`]: member names, without types),
//! else `string` for a response that is only text, else `unknown`. A config keeps output
//! schemas only with `--output-schema full`, so the shape is the usual source.
//!
//! Text from the API description is untrusted: it reaches declarations only through
//! [`escape`](crate::code::escape).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde_json::{Map, Value};

use crate::code::escape::{comment, doc_comment, literal, property_key, string_literal};
use crate::code::names::{ScriptNames, identifier, type_identifier, unique};
use crate::code::shape::shape_type;
use crate::config::keywords;
use crate::config::refs::resolve_pointer;
use crate::config::{ResponseInfo, RuntimeConfig, Tool};
use crate::text::{cap, cap_words, first_sentence, plain};

/// How much of a schema a declaration shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Objects nested deeper than this (named types start again at 0) are `unknown /* … */`.
    pub max_depth: usize,
    /// Properties shown per object; the rest are `/* … N more */`.
    pub max_properties: usize,
    /// Literals shown per `enum` and branches per union; the rest are `/* … N more */`.
    pub max_union: usize,
    /// A function's description, in characters at most (its first sentence).
    pub max_description: usize,
    /// Whether each property's comment starts with the first sentence of its description (at
    /// most `PARAM_DESCRIPTION_MAX` characters): worth it for a few tools, too much for all.
    pub param_descriptions: bool,
}

/// A property's description in its comment, in characters at most.
pub const PARAM_DESCRIPTION_MAX: usize = 80;

/// A pattern or string default in a comment, in characters at most.
const HINT_TEXT_MAX: usize = 40;

/// Numeric formats that tell a script nothing (`number` says it).
const QUIET_FORMATS: [&str; 4] = ["int32", "int64", "float", "double"];

impl Default for Options {
    fn default() -> Options {
        Options { max_depth: 6, max_properties: 60, max_union: 30, max_description: 200, param_descriptions: false }
    }
}

/// The named types that declarations refer to (`$defs`), shared by the tools declared with one
/// table: a definition is named once for each distinct content (the same name and JSON, reaching
/// the same definitions); a second content under a taken name is `Name_2`.
#[derive(Debug, Clone, Default)]
pub struct NamedTypes {
    by_identity: HashMap<String, String>,
    bodies: BTreeMap<String, String>,
}

impl NamedTypes {
    /// An empty table.
    pub fn new() -> NamedTypes {
        NamedTypes::default()
    }

    /// `type Name = ...;`, one a line, by name.
    pub fn render(&self) -> String {
        self.bodies.iter().map(|(name, body)| format!("type {name} = {body};\n")).collect()
    }
}

/// A type as text, and whether it is a union or an intersection (parenthesised under `[]`, `&`).
struct Ty {
    text: String,
    compound: bool,
}

impl Ty {
    fn atom(text: impl Into<String>) -> Ty {
        Ty { text: text.into(), compound: false }
    }

    fn unknown() -> Ty {
        Ty::atom("unknown")
    }

    fn grouped(&self) -> String {
        if self.compound { format!("({})", self.text) } else { self.text.clone() }
    }

    /// `a | b`, each text once; `None` when there are none.
    fn union(parts: Vec<Ty>, more: usize) -> Option<Ty> {
        let mut seen = BTreeSet::new();
        let texts: Vec<String> = parts.into_iter().map(|t| t.text).filter(|t| seen.insert(t.clone())).collect();
        let compound = texts.len() > 1;
        let mut text = texts.join(" | ");
        if more > 0 {
            text.push_str(&format!(" /* … {more} more */"));
        }
        (!texts.is_empty()).then_some(Ty { text, compound })
    }
}

/// Renders the schemas of one root (a tool's input or output schema), whose `$ref`s resolve in it.
struct Renderer<'a> {
    root: &'a Map<String, Value>,
    types: &'a mut NamedTypes,
    options: &'a Options,
    /// References being inlined (not `$defs`): one met again inside itself loops.
    inlining: Vec<String>,
}

impl<'a> Renderer<'a> {
    fn new(root: &'a Map<String, Value>, types: &'a mut NamedTypes, options: &'a Options) -> Renderer<'a> {
        Renderer { root, types, options, inlining: Vec::new() }
    }

    fn ty(&mut self, schema: &Value, depth: usize) -> Ty {
        match schema {
            Value::Object(map) => self.ty_map(map, depth),
            Value::Bool(false) => Ty::atom("never"),
            _ => Ty::unknown(),
        }
    }

    fn ty_map(&mut self, map: &Map<String, Value>, depth: usize) -> Ty {
        if depth > self.options.max_depth {
            return Ty::atom("unknown /* … */");
        }
        let mut parts: Vec<Ty> = self.own_type(map, depth).into_iter().collect();
        if let Some(Value::Array(all)) = map.get("allOf") {
            parts.extend(all.iter().map(|s| self.ty(s, depth + 1)));
        }
        let branches: Vec<&Value> =
            ["anyOf", "oneOf"].iter().filter_map(|k| map.get(*k).and_then(Value::as_array)).flatten().collect();
        let shown = branches.len().min(self.options.max_union);
        let any: Vec<Ty> = branches[..shown].iter().map(|s| self.ty(s, depth + 1)).collect();
        parts.extend(Ty::union(any, branches.len() - shown));
        let mut ty = match parts.len() {
            0 => Ty::unknown(),
            1 => parts.remove(0),
            _ => Ty { text: parts.iter().map(Ty::grouped).collect::<Vec<_>>().join(" & "), compound: true },
        };
        if map.get("nullable") == Some(&Value::Bool(true)) && ty.text != "null" {
            ty = Ty { text: format!("{} | null", ty.grouped()), compound: true };
        }
        ty
    }

    /// The type the schema object says itself (`$ref`, `const`, `enum`, `type`, or what its
    /// keywords imply); `None` when it says none (combinators may).
    fn own_type(&mut self, map: &Map<String, Value>, depth: usize) -> Option<Ty> {
        if let Some(Value::String(reference)) = map.get("$ref") {
            return Some(self.reference(reference, depth));
        }
        if let Some(value) = map.get("const") {
            return Some(literal(value).map_or_else(Ty::unknown, Ty::atom));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            let shown = values.len().min(self.options.max_union);
            let literals = values[..shown].iter().map(|v| literal(v).map_or_else(Ty::unknown, Ty::atom)).collect();
            return Ty::union(literals, values.len() - shown);
        }
        match map.get("type") {
            Some(Value::String(t)) => Some(self.typed(map, t, depth)),
            Some(Value::Array(types)) => {
                let each = types.iter().filter_map(Value::as_str).map(|t| self.typed(map, t, depth)).collect();
                Ty::union(each, 0)
            }
            _ if ["properties", "additionalProperties", "patternProperties"].iter().any(|k| map.contains_key(*k)) => {
                Some(self.typed(map, "object", depth))
            }
            _ if map.contains_key("items") || map.contains_key("prefixItems") => Some(self.typed(map, "array", depth)),
            _ => None,
        }
    }

    fn typed(&mut self, map: &Map<String, Value>, t: &str, depth: usize) -> Ty {
        match t {
            "string" => Ty::atom("string"),
            "integer" | "number" => Ty::atom("number"),
            "boolean" => Ty::atom("boolean"),
            "null" => Ty::atom("null"),
            "object" => Ty::atom(self.object(map, depth)),
            "array" => self.array(map, depth),
            _ => Ty::unknown(),
        }
    }

    /// `{ a: T; b?: U; [key: string]: V }`: required properties first, each group in the
    /// schema's order.
    fn object(&mut self, map: &Map<String, Value>, depth: usize) -> String {
        let required: BTreeSet<&str> =
            map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        let properties = map.get("properties").and_then(Value::as_object);
        let (mut members, more) = match properties {
            Some(properties) => self.members(properties, &required, depth),
            None => (Vec::new(), 0),
        };
        let mut index: Vec<Ty> = Vec::new();
        match map.get("additionalProperties") {
            Some(Value::Bool(false)) => {}
            Some(extra) => index.push(self.ty(extra, depth + 1)),
            None if properties.is_none() && !map.contains_key("patternProperties") => index.push(Ty::unknown()),
            None => {}
        }
        if let Some(Value::Object(patterns)) = map.get("patternProperties") {
            index.extend(patterns.values().map(|s| self.ty(s, depth + 1)));
        }
        if let Some(index) = Ty::union(index, 0) {
            members.push(format!("[key: string]: {}", index.text));
        }
        if more > 0 {
            members.push(format!("/* … {more} more */"));
        }
        if members.is_empty() { "{}".to_string() } else { format!("{{ {} }}", members.join("; ")) }
    }

    /// The properties as members (at most [`Options::max_properties`]), and how many are left out.
    fn members(
        &mut self,
        properties: &Map<String, Value>,
        required: &BTreeSet<&str>,
        depth: usize,
    ) -> (Vec<String>, usize) {
        let (first, then): (Vec<_>, Vec<_>) = properties.iter().partition(|(name, _)| required.contains(name.as_str()));
        let shown = properties.len().min(self.options.max_properties);
        let members = first
            .into_iter()
            .chain(then)
            .take(shown)
            .map(|(name, schema)| {
                let optional = if required.contains(name.as_str()) { "" } else { "?" };
                let ty = self.ty(schema, depth + 1);
                let hint = comment(&self.hint(schema));
                let hint = if hint.is_empty() { hint } else { format!(" {hint}") };
                format!("{}{optional}: {}{hint}", property_key(name), ty.text)
            })
            .collect();
        (members, properties.len() - shown)
    }

    /// `T[]`, or a tuple (`prefixItems`, or `items` as a list) with a rest of `items`.
    fn array(&mut self, map: &Map<String, Value>, depth: usize) -> Ty {
        let (tuple, rest) = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(prefix)), items) => (Some(prefix), items),
            (_, Some(Value::Array(prefix))) => (Some(prefix), map.get("additionalItems")),
            (_, items) => (None, items),
        };
        let rest = rest.filter(|r| **r != Value::Bool(false)).map(|r| self.ty(r, depth + 1));
        let Some(tuple) = tuple else {
            return Ty::atom(format!("{}[]", rest.unwrap_or_else(Ty::unknown).grouped()));
        };
        let mut items: Vec<String> = tuple.iter().map(|s| self.ty(s, depth + 1).text).collect();
        if let Some(rest) = rest {
            items.push(format!("...{}[]", rest.grouped()));
        }
        Ty::atom(format!("[{}]", items.join(", ")))
    }

    /// A `$ref`: a named type for `#/$defs/X` (`#/definitions/X`), else the schema it names,
    /// inlined (`unknown` when it names nothing, or loops).
    fn reference(&mut self, reference: &str, depth: usize) -> Ty {
        let target = if reference == "#" {
            Some(Value::Object(self.root.clone()))
        } else {
            resolve_pointer(self.root, reference).cloned()
        };
        let Some(target) = target else { return Ty::unknown() };
        if let Some(name) = definition_name(reference) {
            return Ty::atom(self.named(reference, &name, &target));
        }
        if self.inlining.iter().any(|r| r == reference) {
            return Ty::atom("unknown /* recursive */");
        }
        self.inlining.push(reference.to_string());
        let ty = self.ty(&target, depth + 1);
        self.inlining.pop();
        ty
    }

    /// The name of the type of the definition `reference` (`name` in its section), declared in
    /// the table first when it is new.
    fn named(&mut self, reference: &str, name: &str, target: &Value) -> String {
        let identity = identity(self.root, reference);
        if let Some(known) = self.types.by_identity.get(&identity) {
            return known.clone();
        }
        let bodies = &self.types.bodies;
        let type_name = unique(&type_identifier(name), &|c: &str| bodies.contains_key(c));
        self.types.by_identity.insert(identity, type_name.clone());
        // Taken before the body is made: a reference inside it to itself is its name.
        self.types.bodies.insert(type_name.clone(), "unknown".to_string());
        let inlining = std::mem::take(&mut self.inlining);
        let body = self.ty(target, 0).text;
        self.inlining = inlining;
        self.types.bodies.insert(type_name.clone(), body);
        type_name
    }

    /// What a property's comment says: its description (with [`Options::param_descriptions`]),
    /// then the constraints a caller must meet.
    fn hint(&self, schema: &Value) -> String {
        let Value::Object(map) = schema else { return String::new() };
        let mut said = Vec::new();
        if self.options.param_descriptions
            && let Some(Value::String(text)) = map.get("description")
        {
            let sentence = first_sentence(&plain(text), PARAM_DESCRIPTION_MAX * 2);
            let sentence = cap_words(sentence.trim_end_matches('.'), PARAM_DESCRIPTION_MAX);
            if !sentence.is_empty() {
                said.push(sentence);
            }
        }
        said.extend(constraints(map));
        said.join(", ")
    }
}

/// The constraints of a schema worth a comment: bounds, lengths, counts, `pattern`, a useful
/// `format`, `contentEncoding`, a scalar `default`, `deprecated`.
fn constraints(map: &Map<String, Value>) -> Vec<String> {
    let mut said = Vec::new();
    let number = |key: &str| map.get(key).filter(|v| v.is_number()).map(Value::to_string);
    for (key, label) in [
        ("minimum", "min "),
        ("maximum", "max "),
        ("exclusiveMinimum", "> "),
        ("exclusiveMaximum", "< "),
        ("minLength", "minLength "),
        ("maxLength", "maxLength "),
        ("minItems", "minItems "),
        ("maxItems", "maxItems "),
    ] {
        if let Some(n) = number(key) {
            said.push(format!("{label}{n}"));
        }
    }
    if let Some(Value::String(pattern)) = map.get("pattern") {
        said.push(format!("pattern {}", string_literal(&cap(pattern, HINT_TEXT_MAX))));
    }
    for key in ["format", "contentEncoding"] {
        if let Some(Value::String(format)) = map.get(key).filter(|f| !QUIET_FORMATS.iter().any(|q| *f == q)) {
            said.push(string_literal(&cap(format, HINT_TEXT_MAX)).trim_matches('"').to_string());
        }
    }
    let default = match map.get("default") {
        Some(Value::String(s)) => Some(string_literal(&cap(s, HINT_TEXT_MAX))),
        Some(other) => literal(other),
        None => None,
    };
    if let Some(default) = default {
        said.push(format!("default {default}"));
    }
    if map.get("deprecated") == Some(&Value::Bool(true)) {
        said.push("deprecated".to_string());
    }
    said
}

/// The definition's name when `reference` is `#/$defs/<name>` or `#/definitions/<name>` (the
/// pointer token unescaped: `~1` is `/`, `~0` is `~`).
fn definition_name(reference: &str) -> Option<String> {
    let name = reference.strip_prefix("#/$defs/").or_else(|| reference.strip_prefix("#/definitions/"))?;
    (!name.is_empty() && !name.contains('/')).then(|| name.replace("~1", "/").replace("~0", "~"))
}

/// What makes two definitions the same type: the JSON of the definition `reference` names and of
/// every one it reaches, under their references.
fn identity(root: &Map<String, Value>, reference: &str) -> String {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut pending = vec![reference.to_string()];
    while let Some(reference) = pending.pop() {
        if seen.contains_key(&reference) {
            continue;
        }
        let target = if reference == "#" { None } else { resolve_pointer(root, &reference) };
        let text = match target {
            Some(schema) => {
                references(schema, &mut pending);
                schema.to_string()
            }
            None if reference == "#" => Value::Object(root.clone()).to_string(),
            None => String::new(),
        };
        seen.insert(reference, text);
    }
    seen.iter().map(|(r, text)| format!("{r}={text}\n")).collect()
}

/// Every `$ref` at a schema position under `schema` (data such as `default` is not walked).
fn references(schema: &Value, out: &mut Vec<String>) {
    let Value::Object(map) = schema else { return };
    if let Some(Value::String(reference)) = map.get("$ref") {
        out.push(reference.clone());
    }
    for sub in keywords::subschemas(map) {
        references(sub, out);
    }
}

/// What a declaration reads of a tool: a config's [`Tool`] or the engine's
/// `ToolEntry` (which converts into one on the engine's side).
#[derive(Debug, Clone)]
pub struct Signature<'a> {
    /// The tool's name (its identifier comes from [`ScriptNames`]).
    pub name: &'a str,
    /// Its title (an operation's summary).
    pub title: Option<&'a str>,
    /// Its description.
    pub description: &'a str,
    /// Its input schema, whole (self-contained).
    pub input_schema: Cow<'a, Map<String, Value>>,
    /// Its output schema (self-contained), if it has one.
    pub output_schema: Option<Cow<'a, Map<String, Value>>>,
    /// What its response looks like.
    pub response: Option<&'a ResponseInfo>,
}

impl<'a> From<&'a Tool> for Signature<'a> {
    fn from(t: &'a Tool) -> Signature<'a> {
        Signature {
            name: &t.name,
            title: t.title.as_deref(),
            description: &t.description,
            input_schema: Cow::Borrowed(&t.input_schema),
            output_schema: t.output_schema.as_ref().map(Cow::Borrowed),
            response: t.response.as_ref(),
        }
    }
}

/// One tool's declaration: its description's first sentence in a doc comment, then
/// `name(args: {...}): Promise<T>;` (`args?` when no argument is required). The tool's named
/// types go into `types`. A tool that `names` does not know is named by [`identifier`] alone.
pub fn declare<'a>(
    tool: impl Into<Signature<'a>>,
    names: &ScriptNames,
    types: &mut NamedTypes,
    options: &Options,
) -> String {
    let tool = tool.into();
    let ident = names.ident(tool.name).map_or_else(|| identifier(tool.name), str::to_string);
    let root = &*tool.input_schema;
    let required = root.get("required").and_then(Value::as_array).is_some_and(|r| !r.is_empty());
    let args = Renderer::new(root, types, options).ty_map(root, 0).text;
    let returns = returns(&tool, types, options);
    let doc = doc_comment(&description(&tool, options.max_description));
    let optional = if required { "" } else { "?" };
    let signature = format!("{ident}(args{optional}: {args}): Promise<{returns}>;");
    if doc.is_empty() { signature } else { format!("{doc}\n{signature}") }
}

/// What a call resolves to (see the module's documentation).
fn returns(tool: &Signature<'_>, types: &mut NamedTypes, options: &Options) -> String {
    if let Some(output) = tool.output_schema.as_deref() {
        return Renderer::new(output, types, options).ty_map(output, 0).text;
    }
    let Some(info) = tool.response else { return "unknown".to_string() };
    if !info.media_types.is_empty() && info.media_types.iter().all(|m| m.starts_with("text/")) {
        return "string".to_string();
    }
    info.shape.as_deref().filter(|_| info.may_be_json()).and_then(shape_type).unwrap_or_else(|| "unknown".into())
}

/// A tool's one line: the first sentence of its title (an operation's summary) or else of its
/// description, as plain text, `[Deprecated] ` first for a deprecated one.
fn description(tool: &Signature<'_>, max: usize) -> String {
    let source = tool.title.filter(|t| !t.trim().is_empty()).unwrap_or(tool.description);
    let sentence = first_sentence(&plain(source), max);
    let deprecated = tool.description.trim_start().starts_with("[Deprecated]");
    if deprecated && !sentence.starts_with("[Deprecated]") { format!("[Deprecated] {sentence}") } else { sentence }
}

/// These tools' declarations as one block: their named types, then `declare const api: { ... };`
/// with one function each, in the order given.
pub fn declare_tools<'a, T: Into<Signature<'a>>>(
    tools: impl IntoIterator<Item = T>,
    names: &ScriptNames,
    options: &Options,
) -> String {
    let mut types = NamedTypes::new();
    let functions: Vec<String> = tools.into_iter().map(|t| declare(t, names, &mut types, options)).collect();
    let mut out = types.render();
    out.push_str("declare const api: {\n");
    for line in functions.iter().flat_map(|f| f.lines()) {
        out.push_str("  ");
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("};\n");
    out
}

/// Every tool of a config, declared as one block ([`declare_tools`], default [`Options`]).
pub fn declare_all(config: &RuntimeConfig) -> String {
    declare_tools(&config.tools, &ScriptNames::for_config(config), &Options::default())
}
