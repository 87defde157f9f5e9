//! A sample of an operation's successful response: what the API would plausibly send to a call
//! with no optional arguments, to measure it ([`super::estimate`]) or to answer from a mock.
//!
//! The rules, in order:
//! - **The media type**: of the operation's success response (`Operation::response`),
//!   `application/json`, else the first (by name) that is JSON as the engine reads it
//!   (`application/json...`, `...+json`), else `*/*`. A
//!   response with none of them (or none declared) has no sample.
//! - **The value**: the media type's declared example ([`crate::ir::MediaType::example`]),
//!   [`SampleSource::Example`]; else one made from its schema, [`SampleSource::Synthesised`]; no
//!   sample when the schema says nothing (`{}`).
//! - **Made from a schema** (deterministic): `const`, else the first of `examples`, else
//!   `default`, else the first non-null of `enum`; else by type: objects with every property (in
//!   name order), arrays with one item, integers `1` and numbers `1.5` (moved within `minimum` and
//!   `maximum`), booleans `false`; strings by `format` (`date-time`, `date`, `email`, `uri`,
//!   `uuid`, ...), else by the property's name (`*_url`, `href`: a URL on the API's origin, the
//!   host of the operation's server, else of the API's, else `https://api.example.com`; `*_at`: a
//!   date-time; `email`), else `example`, padded to `minLength` and cut to `maxLength`. `allOf`
//!   merges its objects; `anyOf`/`oneOf` take their first branch that is not `null`. `$ref`s are
//!   followed into the API's schemas; a reference back into a schema being made is left out (a
//!   member dropped, an array empty), and below [`MAX_DEPTH`] objects and arrays are empty.
//! - **The list**: the items of a response that is an array; for an object, when the operation
//!   has a page-size parameter, its main array member: among its top-level arrays, the one whose
//!   items are objects, then with the most items, then the longest (Stripe's `data`, Slack's
//!   `channels`, GitHub search's `items`). An object response without a page-size parameter has
//!   no list (its arrays are properties, such as a repository's `topics`).
//! - **The page size**: the page-size parameter is the first query parameter named (ignoring case
//!   and `_`, `-`, `$`) `per_page`, `page_size`, `limit`, `max_results`, `top`, `count`, `size`,
//!   `max_items`, `page_limit`, `results_per_page`, `max_records`, `max_page_size`, in that
//!   order of preference, that takes a number. Its `default` when it declares one, else
//!   [`DEFAULT_PAGE_SIZE`] moved within its `minimum` and `maximum`; [`DEFAULT_PAGE_SIZE`] too for
//!   an array response without such a parameter (an unpaginated list is not shorter). At most
//!   [`MAX_PAGE_SIZE`].
//! - **Filling**: a list with fewer items than the page size gets copies of its first item (or,
//!   when it is empty, of an item made from the schema) up to the page size; a longer one is kept
//!   as it is.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::ir::{ApiIr, MediaType, Operation, ParamLocation, Parameter};
use crate::normalize::DEFS_PREFIX;

/// The page size used when a page-size parameter declares no default, and for an array response
/// without a page-size parameter.
pub const DEFAULT_PAGE_SIZE: usize = 20;

/// The largest page size a list is filled to, whatever the API declares.
pub const MAX_PAGE_SIZE: usize = 1000;

/// Below this depth, a synthesised object or array is empty.
pub const MAX_DEPTH: usize = 6;

/// The origin of synthesised URLs when the API declares no absolute server URL.
pub const FALLBACK_ORIGIN: &str = "https://api.example.com";

/// Page-size parameter names, lower case without `_`, `-` and `$`, by preference.
const PAGE_SIZE_NAMES: [&str; 12] = [
    "perpage",
    "pagesize",
    "limit",
    "maxresults",
    "top",
    "count",
    "size",
    "maxitems",
    "pagelimit",
    "resultsperpage",
    "maxrecords",
    "maxpagesize",
];

/// Where a sample's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SampleSource {
    /// The example the API description declares for the response.
    Example,
    /// Made from the response's schema.
    Synthesised,
}

/// A sample of an operation's successful response.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The JSON value, its list filled to `page_size`.
    pub value: Value,
    /// Whether it is the declared example or made from the schema.
    pub source: SampleSource,
    /// The page size the list was filled to; `None` when the response has no list.
    pub page_size: Option<usize>,
    /// Whether items were added to the list to reach `page_size`.
    pub list_filled: bool,
}

/// A sample of `op`'s successful response (see the module's rules); `None` when its response is
/// not JSON or nothing is known of its value.
pub fn sample_response(ir: &ApiIr, op: &Operation) -> Option<Sample> {
    draft(ir, op).map(Draft::filled)
}

/// A sample before its list is filled: what [`super::estimate`] measures without copying items
/// (a declared example is borrowed from the IR).
#[derive(Debug, Clone)]
pub(crate) struct Draft<'ir> {
    /// The value as declared or made.
    pub(crate) value: Cow<'ir, Value>,
    pub(crate) source: SampleSource,
    /// Its list, when it has one.
    pub(crate) list: Option<List<'ir>>,
}

/// Where a sample's list is and what fills it.
#[derive(Debug, Clone)]
pub(crate) struct List<'ir> {
    /// `None`: the value is the list; else the member of the object that holds it.
    pub(crate) member: Option<String>,
    pub(crate) page_size: usize,
    /// The item copies are made of; `None` when the list is empty and no item can be made.
    pub(crate) item: Option<Cow<'ir, Value>>,
}

impl Draft<'_> {
    /// The list's items as they are.
    pub(crate) fn items(&self) -> &[Value] {
        let list = match self.list.as_ref().map(|l| l.member.as_deref()) {
            Some(None) => Some(self.value.as_ref()),
            Some(Some(member)) => self.value.get(member),
            None => None,
        };
        list.and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    /// How many copies of the item filling adds.
    pub(crate) fn missing(&self) -> usize {
        match &self.list {
            Some(List { page_size, item: Some(_), .. }) => page_size.saturating_sub(self.items().len()),
            _ => 0,
        }
    }

    fn filled(self) -> Sample {
        let missing = self.missing();
        let page_size = self.list.as_ref().map(|l| l.page_size);
        let mut value = self.value.into_owned();
        if let Some(List { member, item: Some(item), .. }) = &self.list {
            let list = match member {
                None => Some(&mut value),
                Some(member) => value.get_mut(member),
            };
            if let Some(Value::Array(items)) = list {
                items.extend(std::iter::repeat_n(item.as_ref(), missing).cloned());
            }
        }
        Sample { value, source: self.source, page_size, list_filled: missing > 0 }
    }
}

/// The sample of `op`'s response before its list is filled.
pub(crate) fn draft<'ir>(ir: &'ir ApiIr, op: &'ir Operation) -> Option<Draft<'ir>> {
    let media = json_media(&op.response.as_ref()?.content)?;
    let origin = origin(ir, op);
    let mut synth = Synth { schemas: &ir.schemas, origin: &origin, stack: Vec::new() };
    let (value, source) = match &media.example {
        Some(example) => (Cow::Borrowed(example), SampleSource::Example),
        None if says_something(&media.schema, &ir.schemas) => {
            (Cow::Owned(synth.value(&media.schema, None, 0)?), SampleSource::Synthesised)
        }
        None => return None,
    };
    let page = page_size_parameter(op, &ir.schemas);
    let member = match value.as_ref() {
        Value::Array(_) => Some(None),
        Value::Object(obj) if page.is_some() => main_array(obj, &media.schema, &mut synth).map(Some),
        _ => None,
    };
    let list = member.map(|member| {
        let item_schema = match &member {
            None => items_schema(&media.schema, &ir.schemas),
            Some(name) => member_schema(&media.schema, name, &ir.schemas, 0).and_then(|s| items_schema(s, &ir.schemas)),
        };
        let present = match (&member, &value) {
            (None, Cow::Borrowed(v)) => v.get(0).map(Cow::Borrowed),
            (Some(name), Cow::Borrowed(v)) => v.get(name).and_then(|l| l.get(0)).map(Cow::Borrowed),
            (None, Cow::Owned(v)) => v.get(0).cloned().map(Cow::Owned),
            (Some(name), Cow::Owned(v)) => v.get(name).and_then(|l| l.get(0)).cloned().map(Cow::Owned),
        };
        let item = present.or_else(|| synth.value(item_schema?, None, 1).map(Cow::Owned));
        let page_size = page.map_or(DEFAULT_PAGE_SIZE, |(_, size)| size);
        List { member, page_size, item }
    });
    Some(Draft { value, source, list })
}

/// The JSON media type of a response's content, by the module's rule.
pub(crate) fn json_media(content: &[MediaType]) -> Option<&MediaType> {
    let json = |m: &&MediaType| mcpgen_config::media::is_json_media(&m.media_type.to_ascii_lowercase());
    content
        .iter()
        .find(|m| m.media_type == "application/json")
        .or_else(|| content.iter().find(json))
        .or_else(|| content.iter().find(|m| m.media_type == "*/*"))
}

/// The origin (`scheme://host[:port]`, lower case) of the operation's server, else of the API's
/// first, else [`FALLBACK_ORIGIN`]: the origin of synthesised URLs.
pub fn origin(ir: &ApiIr, op: &Operation) -> String {
    op.servers
        .first()
        .or(ir.servers.first())
        .and_then(|s| url::Url::parse(s).ok())
        .filter(|u| u.has_host() && matches!(u.scheme(), "http" | "https"))
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_else(|| FALLBACK_ORIGIN.to_string())
}

/// The operation's page-size parameter and the page size it implies (see the module's rules).
pub(crate) fn page_size_parameter<'o>(
    op: &'o Operation,
    schemas: &BTreeMap<String, Value>,
) -> Option<(&'o Parameter, usize)> {
    let key = |p: &Parameter| -> String {
        p.name.chars().filter(|c| !matches!(c, '_' | '-' | '$')).collect::<String>().to_ascii_lowercase()
    };
    let numeric = |p: &Parameter| {
        let schema = resolve(&p.schema, schemas, 0);
        let types = type_names(schema);
        types.iter().any(|t| matches!(*t, "integer" | "number")) || schema.get("default").and_then(as_count).is_some()
    };
    let param = PAGE_SIZE_NAMES.iter().find_map(|name| {
        op.parameters.iter().find(|p| p.location == ParamLocation::Query && key(p) == *name && numeric(p))
    })?;
    let schema = resolve(&param.schema, schemas, 0);
    let bound = |k: &str| schema.get(k).and_then(as_count);
    let size = match schema.get("default").and_then(as_count).filter(|d| *d > 0) {
        Some(default) => default,
        None => {
            let size = DEFAULT_PAGE_SIZE.min(bound("maximum").filter(|m| *m > 0).unwrap_or(usize::MAX));
            size.max(bound("minimum").unwrap_or(0))
        }
    };
    Some((param, size.min(MAX_PAGE_SIZE)))
}

/// A count from a JSON number (or a string of digits, as some APIs write defaults).
fn as_count(v: &Value) -> Option<usize> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
    .and_then(|n| usize::try_from(n).ok())
}

/// The main array member of an object response (see the module's rules).
fn main_array(obj: &Map<String, Value>, schema: &Value, synth: &mut Synth<'_>) -> Option<String> {
    let mut best: Option<((bool, usize, usize), &String)> = None;
    for (name, v) in obj {
        let Value::Array(items) = v else { continue };
        let objects = match items.first() {
            Some(first) => first.is_object(),
            None => member_schema(schema, name, synth.schemas, 0)
                .and_then(|s| items_schema(s, synth.schemas))
                .and_then(|s| synth.value(s, None, 1))
                .is_some_and(|v| v.is_object()),
        };
        let rank = (objects, items.len(), json_chars(v));
        if best.as_ref().is_none_or(|(b, _)| rank > *b) {
            best = Some((rank, name));
        }
    }
    best.map(|(_, name)| name.clone())
}

/// Characters of `v` as minified JSON (counted as it is written, not kept).
pub(crate) fn json_chars<T: Serialize + ?Sized>(v: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            // A UTF-8 character has one byte that is not a continuation byte.
            self.0 += buf.iter().filter(|b| (**b & 0xC0) != 0x80).count();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing a `Value` fails only when the writer does, and this one never does.
    let _ = serde_json::to_writer(&mut count, v);
    count.0
}

/// `$ref`s followed into `schemas` (at most a few links: alias chains are short).
fn resolve<'s>(mut schema: &'s Value, schemas: &'s BTreeMap<String, Value>, mut hops: usize) -> &'s Value {
    while let Some(target) = ref_name(schema).and_then(|n| schemas.get(n)) {
        hops += 1;
        if hops > 16 {
            break;
        }
        schema = target;
    }
    schema
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix(DEFS_PREFIX)
}

/// The schema of an object schema's member, looking through `allOf`, `anyOf` and `oneOf`.
fn member_schema<'s>(
    schema: &'s Value,
    name: &str,
    schemas: &'s BTreeMap<String, Value>,
    depth: usize,
) -> Option<&'s Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let schema = resolve(schema, schemas, 0);
    if let Some(found) = schema.get("properties").and_then(|p| p.get(name)) {
        return Some(found);
    }
    ["allOf", "anyOf", "oneOf"]
        .iter()
        .filter_map(|k| schema.get(*k)?.as_array())
        .flatten()
        .find_map(|branch| member_schema(branch, name, schemas, depth + 1))
}

/// An array schema's item schema.
fn items_schema<'s>(schema: &'s Value, schemas: &'s BTreeMap<String, Value>) -> Option<&'s Value> {
    let schema = resolve(schema, schemas, 0);
    schema.get("items").filter(|i| i.is_object()).or_else(|| schema.get("prefixItems")?.get(0))
}

/// The schema's types but `null`, in order.
fn type_names(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema allows only `null`.
fn is_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(ts)) => !ts.is_empty() && ts.iter().all(|t| t == "null"),
        _ => false,
    }
}

/// Whether a response schema says anything of its value (`{}` does not).
fn says_something(schema: &Value, schemas: &BTreeMap<String, Value>) -> bool {
    let schema = resolve(schema, schemas, 0);
    const KEYS: [&str; 11] = [
        "type",
        "properties",
        "items",
        "prefixItems",
        "allOf",
        "anyOf",
        "oneOf",
        "enum",
        "const",
        "examples",
        "additionalProperties",
    ];
    schema.as_object().is_some_and(|o| KEYS.iter().any(|k| o.contains_key(*k)))
}

/// Makes values from schemas.
struct Synth<'a> {
    schemas: &'a BTreeMap<String, Value>,
    origin: &'a str,
    /// The schemas being made, to leave out a reference back into one.
    stack: Vec<String>,
}

impl Synth<'_> {
    /// A value for `schema` (`name`: the member it is the value of); `None`: leave it out (a
    /// reference back into a schema being made).
    fn value(&mut self, schema: &Value, name: Option<&str>, depth: usize) -> Option<Value> {
        if let Some(reference) = ref_name(schema) {
            if self.stack.iter().any(|s| s == reference) {
                return None;
            }
            let schemas = self.schemas;
            let Some(target) = schemas.get(reference) else { return Some(Value::Null) };
            self.stack.push(reference.to_string());
            let v = self.value(target, name, depth);
            self.stack.pop();
            return v;
        }
        let Some(obj) = schema.as_object() else { return Some(Value::Null) };
        if let Some(v) = obj.get("const") {
            return Some(v.clone());
        }
        if let Some(v) = obj.get("examples").and_then(|e| e.get(0)).or_else(|| obj.get("example")) {
            return Some(v.clone());
        }
        if let Some(v) = obj.get("default") {
            return Some(v.clone());
        }
        if let Some(v) = obj.get("enum").and_then(Value::as_array).and_then(|e| e.iter().find(|v| !v.is_null())) {
            return Some(v.clone());
        }
        let types = type_names(schema);
        let ty = types.first().copied().or_else(|| {
            if obj.contains_key("properties") || obj.contains_key("additionalProperties") {
                Some("object")
            } else if obj.contains_key("items") || obj.contains_key("prefixItems") {
                Some("array")
            } else {
                None
            }
        });
        let mut made = match ty {
            Some("object") => Some(Value::Object(self.object(obj, depth))),
            Some("array") => Some(self.array(obj, depth)),
            Some("string") => Some(Value::String(self.string(obj, name))),
            Some("integer") => Some(json!(number(obj, 1.0) as i64)),
            Some("number") => Some(json!(number(obj, 1.5))),
            Some("boolean") => Some(Value::Bool(false)),
            Some("null") => Some(Value::Null),
            _ => None,
        };
        for branch in obj.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            let Some(v) = self.value(branch, name, depth) else { continue };
            merge_branch(&mut made, v);
        }
        let alternatives = ["anyOf", "oneOf"].iter().filter_map(|k| obj.get(*k)?.as_array()).flatten();
        for branch in alternatives {
            if is_null(resolve(branch, self.schemas, 0)) {
                continue;
            }
            let Some(v) = self.value(branch, name, depth) else { continue };
            merge_branch(&mut made, v);
            break;
        }
        Some(made.unwrap_or(Value::Null))
    }

    fn object(&mut self, obj: &Map<String, Value>, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        if depth >= MAX_DEPTH {
            return out;
        }
        for (name, prop) in obj.get("properties").and_then(Value::as_object).into_iter().flatten() {
            if let Some(v) = self.value(prop, Some(name), depth + 1) {
                out.insert(name.clone(), v);
            }
        }
        out
    }

    fn array(&mut self, obj: &Map<String, Value>, depth: usize) -> Value {
        if depth >= MAX_DEPTH {
            return json!([]);
        }
        let items: Vec<Value> = match (obj.get("prefixItems").and_then(Value::as_array), obj.get("items")) {
            (Some(prefix), _) => prefix.iter().filter_map(|s| self.value(s, None, depth + 1)).collect(),
            (None, Some(items)) if items.is_object() => self.value(items, None, depth + 1).into_iter().collect(),
            _ => Vec::new(),
        };
        Value::Array(items)
    }

    fn string(&self, obj: &Map<String, Value>, name: Option<&str>) -> String {
        let format = obj.get("format").and_then(Value::as_str).unwrap_or_default();
        let name = name.unwrap_or_default();
        let lower = name.to_ascii_lowercase();
        let mut s = match format {
            "date-time" => "2024-01-01T00:00:00Z".to_string(),
            "date" => "2024-01-01".to_string(),
            "time" => "00:00:00Z".to_string(),
            "duration" => "PT1H".to_string(),
            "email" | "idn-email" => "user@example.com".to_string(),
            "uri" | "url" | "iri" | "uri-reference" | "iri-reference" | "uri-template" => self.url(&lower),
            "uuid" => "00000000-0000-4000-8000-000000000000".to_string(),
            "ipv4" => "192.0.2.1".to_string(),
            "ipv6" => "2001:db8::1".to_string(),
            "hostname" | "idn-hostname" => "example.com".to_string(),
            "byte" => "ZXhhbXBsZQ==".to_string(),
            "binary" => String::new(),
            "password" => "********".to_string(),
            _ if lower.ends_with("url") || lower.ends_with("href") || lower.ends_with("uri") => self.url(&lower),
            _ if lower.ends_with("_at") || (name.ends_with("At") && name.len() > 2) => {
                "2024-01-01T00:00:00Z".to_string()
            }
            _ if lower.contains("email") => "user@example.com".to_string(),
            _ => "example".to_string(),
        };
        let bound = |k: &str| obj.get(k).and_then(Value::as_u64).and_then(|n| usize::try_from(n).ok());
        if let Some(min) = bound("minLength").map(|m| m.min(64)) {
            while s.chars().count() < min {
                s.push('x');
            }
        }
        if let Some(max) = bound("maxLength") {
            s = s.chars().take(max).collect();
        }
        s
    }

    /// A URL on the API's origin for a member named `name` (lower case): `comments_url` ->
    /// `<origin>/comments`.
    fn url(&self, name: &str) -> String {
        let stem = ["_url", "url", "_href", "href", "_uri", "uri"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(name)
            .trim_matches('_');
        let path: String = stem.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '/' }).collect();
        if path.is_empty() { format!("{}/resource", self.origin) } else { format!("{}/{path}", self.origin) }
    }
}

/// `preferred` moved within the schema's `minimum` and `maximum` (exclusive ones read as
/// inclusive: a sample need not be exact).
fn number(obj: &Map<String, Value>, preferred: f64) -> f64 {
    let bound = |keys: [&str; 2]| keys.iter().find_map(|k| obj.get(*k).and_then(Value::as_f64));
    let mut n = preferred;
    if let Some(min) = bound(["minimum", "exclusiveMinimum"]) {
        n = n.max(min);
    }
    if let Some(max) = bound(["maximum", "exclusiveMaximum"]) {
        n = n.min(max);
    }
    n
}

/// A branch's value into what is made so far: an object's members added (the first branch's
/// win), or the value itself when nothing is made yet.
fn merge_branch(made: &mut Option<Value>, v: Value) {
    match (made.as_mut(), v) {
        (Some(Value::Object(into)), Value::Object(from)) => {
            for (k, v) in from {
                into.entry(k).or_insert(v);
            }
        }
        (None, v) => *made = Some(v),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
