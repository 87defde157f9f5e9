//! What a tool's config says of its operation's successful response ([`ResponseInfo`]): its media
//! types, the shape of its JSON value, and the tool's own result budget (`x-mcp.maxResultChars`).
//!
//! The shape is for a model writing a `_jq` filter before a first call: member names and nesting,
//! compact. An object is `{id, number, title, user: {id, login, …}, labels: [{id, name, …}], …}`,
//! an array of objects `[{…}]`, a scalar its type (`string`). Members come in a fixed order (the
//! IR keeps no declaration order): names that identify an item first (`id`, `number`, `name`,
//! `title`, `state`...), then the others by name, then links (`url`, `*_url`, `_links`). The top
//! level lists up to [`TOP_MEMBERS`] members, the level below up to [`NESTED_MEMBERS`], and
//! nothing deeper; the whole stays within [`MAX_SHAPE_CHARS`] characters: every top-level name
//! that fits first (then `…`), and the nesting of members where room is left. Names that are
//! not plain identifiers are quoted (`"@type"`), as jq needs them. `$ref`s are followed (cycles
//! stop), `allOf`/`anyOf`/`oneOf` merge their members. Made from the schema of the JSON media type
//! (as [`crate::responses::sample`] picks it), else from its example; `None` when neither says.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::ir::{ApiIr, Operation};
use crate::normalize::DEFS_PREFIX;
use crate::responses::sample::json_media;
use mcpgen_config::ResponseInfo;

/// Members listed at the top level of a shape.
pub(crate) const TOP_MEMBERS: usize = 40;
/// Members listed in an object one level down.
pub(crate) const NESTED_MEMBERS: usize = 5;
/// A shape's length at most, in characters.
pub(crate) const MAX_SHAPE_CHARS: usize = 600;

/// How deep `allOf`/`anyOf`/`oneOf` and `$ref` chains are followed when merging members.
const MAX_MERGE_DEPTH: usize = 16;

/// The response part of an operation's tool; `None` when nothing is known of it.
pub(crate) fn response_info(op: &Operation, ir: &ApiIr) -> Option<ResponseInfo> {
    let content = op.response.as_ref().map(|r| r.content.as_slice()).unwrap_or_default();
    let shape = json_media(content)
        .and_then(|m| schema_shape(&m.schema, &ir.schemas).or_else(|| m.example.as_ref().map(value_shape)));
    let info = ResponseInfo {
        media_types: content.iter().map(|m| m.media_type.clone()).collect(),
        shape,
        max_result_chars: op.mcp.max_result_chars,
    };
    (info != ResponseInfo::default()).then_some(info)
}

/// What a shape is made of: the same for schemas and values.
enum Node<'a> {
    /// Members by name (`None`: an object whose members are unknown).
    Object(Option<BTreeMap<&'a str, Part<'a>>>),
    /// The item (`None`: unknown).
    Array(Option<Box<Part<'a>>>),
    /// A scalar's type.
    Scalar(&'a str),
}

/// A schema or a value, to be made a [`Node`].
#[derive(Clone, Copy)]
enum Part<'a> {
    Schema(&'a Value),
    Value(&'a Value),
}

/// The shape of a response schema; `None` when it says nothing.
fn schema_shape(schema: &Value, schemas: &BTreeMap<String, Value>) -> Option<String> {
    let node = Part::Schema(schema).node(schemas)?;
    Some(render_top(node, schemas))
}

/// The shape of an example value.
fn value_shape(value: &Value) -> String {
    let none = BTreeMap::new();
    match Part::Value(value).node(&none) {
        Some(node) => render_top(node, &none),
        None => "null".to_string(),
    }
}

impl<'a> Part<'a> {
    fn node(self, schemas: &'a BTreeMap<String, Value>) -> Option<Node<'a>> {
        match self {
            Part::Value(v) => Some(match v {
                Value::Object(obj) => {
                    Node::Object(Some(obj.iter().map(|(k, v)| (k.as_str(), Part::Value(v))).collect()))
                }
                Value::Array(items) => Node::Array(items.first().map(|i| Box::new(Part::Value(i)))),
                Value::String(_) => Node::Scalar("string"),
                Value::Number(n) if n.is_f64() => Node::Scalar("number"),
                Value::Number(_) => Node::Scalar("integer"),
                Value::Bool(_) => Node::Scalar("boolean"),
                Value::Null => return None,
            }),
            Part::Schema(s) => schema_node(s, schemas),
        }
    }
}

fn schema_node<'a>(schema: &'a Value, schemas: &'a BTreeMap<String, Value>) -> Option<Node<'a>> {
    let mut seen = Vec::new();
    let schema = resolve(schema, schemas, &mut seen)?;
    let mut members = BTreeMap::new();
    let mut object = false;
    // Each walk has its own record of the schemas it went through: a schema seen again adds nothing.
    collect_members(schema, schemas, &mut members, &mut object, &mut seen.clone(), 0);
    if object || !members.is_empty() {
        return Some(Node::Object((!members.is_empty()).then_some(members)));
    }
    if let Some(item) = array_item(schema, schemas, &mut seen.clone(), 0) {
        return Some(Node::Array(item.map(|i| Box::new(Part::Schema(i)))));
    }
    scalar_type(schema, schemas, &mut seen, 0).map(Node::Scalar)
}

/// `$ref`s followed; `None` at a cycle or a missing schema.
fn resolve<'a>(
    mut schema: &'a Value,
    schemas: &'a BTreeMap<String, Value>,
    seen: &mut Vec<&'a str>,
) -> Option<&'a Value> {
    while let Some(name) = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix(DEFS_PREFIX)) {
        if seen.contains(&name) || seen.len() > MAX_MERGE_DEPTH {
            return None;
        }
        seen.push(name);
        schema = schemas.get(name)?;
    }
    Some(schema)
}

/// The schema's own types but `null`.
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => Vec::new(),
    }
}

fn branches(schema: &Value) -> impl Iterator<Item = &Value> {
    ["allOf", "anyOf", "oneOf"].into_iter().filter_map(|k| schema.get(k)?.as_array()).flatten()
}

/// Members of an object schema and its branches, merged (the first schema to name one wins);
/// `object`: whether any says it is an object.
fn collect_members<'a>(
    schema: &'a Value,
    schemas: &'a BTreeMap<String, Value>,
    members: &mut BTreeMap<&'a str, Part<'a>>,
    object: &mut bool,
    seen: &mut Vec<&'a str>,
    depth: usize,
) {
    if depth > MAX_MERGE_DEPTH {
        return;
    }
    let Some(schema) = resolve(schema, schemas, seen) else { return };
    *object |= types(schema).contains(&"object") || schema.get("additionalProperties").is_some();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        *object = true;
        for (name, prop) in props {
            members.entry(name.as_str()).or_insert(Part::Schema(prop));
        }
    }
    for branch in branches(schema) {
        collect_members(branch, schemas, members, object, seen, depth + 1);
    }
}

/// The item schema of an array schema (or of its first branch that is one): `Some(None)` for an
/// array with no item schema; `None` for no array.
fn array_item<'a>(
    schema: &'a Value,
    schemas: &'a BTreeMap<String, Value>,
    seen: &mut Vec<&'a str>,
    depth: usize,
) -> Option<Option<&'a Value>> {
    if depth > MAX_MERGE_DEPTH {
        return None;
    }
    let schema = resolve(schema, schemas, seen)?;
    let item = schema.get("items").filter(|i| i.is_object()).or_else(|| schema.get("prefixItems")?.get(0));
    if item.is_some() || types(schema).contains(&"array") {
        return Some(item);
    }
    branches(schema).find_map(|b| array_item(b, schemas, seen, depth + 1))
}

/// A scalar schema's type (or its first branch's).
fn scalar_type<'a>(
    schema: &'a Value,
    schemas: &'a BTreeMap<String, Value>,
    seen: &mut Vec<&'a str>,
    depth: usize,
) -> Option<&'a str> {
    if depth > MAX_MERGE_DEPTH {
        return None;
    }
    let schema = resolve(schema, schemas, seen)?;
    if let Some(t) = types(schema).first() {
        return Some(t);
    }
    if let Some(v) = schema.get("const").or_else(|| schema.get("enum").and_then(|e| e.get(0))) {
        return Some(match v {
            Value::String(_) => "string",
            Value::Number(_) => "number",
            Value::Bool(_) => "boolean",
            _ => return None,
        });
    }
    branches(schema).find_map(|b| scalar_type(b, schemas, seen, depth + 1))
}

/// The top level: all its members (up to [`TOP_MEMBERS`]), within [`MAX_SHAPE_CHARS`].
fn render_top(node: Node<'_>, schemas: &BTreeMap<String, Value>) -> String {
    match node {
        Node::Object(members) => render_members(members, TOP_MEMBERS, 1, MAX_SHAPE_CHARS, schemas),
        Node::Array(Some(item)) => match item.node(schemas) {
            Some(Node::Object(members)) => {
                let inner = render_members(members, TOP_MEMBERS, 1, MAX_SHAPE_CHARS - 2, schemas);
                format!("[{inner}]")
            }
            Some(Node::Array(_)) => "[[…]]".to_string(),
            Some(Node::Scalar(t)) => format!("[{t}]"),
            None => "[…]".to_string(),
        },
        Node::Array(None) => "[…]".to_string(),
        Node::Scalar(t) => t.to_string(),
    }
}

/// Names that identify an item, shown first, in this order.
const FIRST: [&str; 9] = ["id", "key", "number", "name", "login", "title", "state", "status", "type"];

/// Members in the order a shape lists them: the names of [`FIRST`], then the others by name, then
/// those that only link (`url`, `*_url`, `href`, `_links`: the lean rendering drops most of them).
fn ordered<'a>(members: BTreeMap<&'a str, Part<'a>>) -> Vec<(&'a str, Part<'a>)> {
    let rank = |name: &str| match FIRST.iter().position(|f| *f == name) {
        Some(i) => i,
        None if name == "url" || name.ends_with("_url") || name.ends_with("href") || name == "_links" => {
            FIRST.len() + 1
        }
        None => FIRST.len(),
    };
    let mut members: Vec<_> = members.into_iter().collect();
    // Stable: names stay in order within a rank.
    members.sort_by_key(|(name, _)| rank(name));
    members
}

/// `{a, b: {…}, …}`: at most `max` members, within `room` characters. Names come first: the
/// nesting of members (while `levels` allow) is added, in order, where room is left.
fn render_members(
    members: Option<BTreeMap<&str, Part<'_>>>,
    max: usize,
    levels: usize,
    room: usize,
    schemas: &BTreeMap<String, Value>,
) -> String {
    const CLOSING: usize = 4; // `, …}`
    let Some(members) = members else { return "{…}".to_string() };
    let total = members.len();
    let members = ordered(members);
    let mut parts: Vec<String> = Vec::new();
    let mut len = 1;
    for (name, _) in members.iter().take(max) {
        let name = quoted(name);
        let add = width(&name) + if parts.is_empty() { 0 } else { 2 };
        if len + add + CLOSING > room {
            break;
        }
        len += add;
        parts.push(name);
    }
    if levels > 0 {
        for (part, (_, member)) in parts.iter_mut().zip(&members) {
            if let Some(nested) = nesting(*member, schemas)
                && len + width(&nested) + CLOSING <= room
            {
                len += width(&nested);
                part.push_str(&nested);
            }
        }
    }
    let more = if parts.len() == total {
        ""
    } else if parts.is_empty() {
        "…"
    } else {
        ", …"
    };
    format!("{{{}{more}}}", parts.join(", "))
}

/// What follows a member's name to show its nesting (`: {a, b, …}`, `: [{a, …}]`), one level
/// deep; `None` for a member that has none to show.
fn nesting(part: Part<'_>, schemas: &BTreeMap<String, Value>) -> Option<String> {
    let nested = |members| render_members(members, NESTED_MEMBERS, 0, MAX_SHAPE_CHARS, schemas);
    match part.node(schemas)? {
        Node::Object(members) => Some(format!(": {}", nested(members))),
        Node::Array(Some(item)) => match item.node(schemas)? {
            Node::Object(members) => Some(format!(": [{}]", nested(members))),
            _ => None,
        },
        _ => None,
    }
}

fn width(s: &str) -> usize {
    s.chars().count()
}

/// A member name as jq reads it after a `.`: as it is when it is an identifier, else quoted.
fn quoted(name: &str) -> String {
    let mut chars = name.chars();
    let plain = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain { name.to_string() } else { Value::String(name.to_string()).to_string() }
}

#[cfg(test)]
mod tests;
