//! `mcpgen diff`: what changed in the tool surface an agent sees between two versions of an API
//! (API descriptions in any dialect, runtime configs, function lists), and whether each change
//! breaks an agent, or a deployment, made for the old one.
//!
//! Tools are paired by operationId (the name, for a tool without one), then by method and path
//! (path parameters' names aside), then by name; a pair under two names is a rename. Each pair is
//! compared: annotations ([`annotations`]), credentials and scopes ([`auth`]), the input schema
//! (what the agent writes: narrowing breaks it) and the response (what it reads: a member gone or
//! a new type breaks it), the schemas by [`schema`]. [`render`] writes the result as Markdown or
//! JSON. Everything is in a deterministic order: tools by name, then changes as found.

mod auth;
mod render;
mod schema;

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use serde_json::Value;

use mcpgen_config::{RuntimeConfig, Tool};
pub(crate) use render::{COMMENT_LIMIT, json, markdown, markdown_within};
use schema::Direction;

/// What kind of change: its name in `--json`, and in words ([`Kind::words`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Kind {
    ToolAdded,
    ToolRemoved,
    ToolRenamed,
    AnnotationChanged,
    AuthChanged,
    ScopesChanged,
    RequiredArgumentAdded,
    OptionalArgumentAdded,
    ArgumentRemoved,
    ArgumentBecameRequired,
    ArgumentBecameOptional,
    TypeNarrowed,
    TypeWidened,
    TypeChanged,
    EnumNarrowed,
    EnumWidened,
    ConstraintNarrowed,
    ConstraintWidened,
    ConstraintChanged,
    AlternativesChanged,
    AlternativeAdded,
    AlternativeRemoved,
    ResponsePropertyRemoved,
    ResponsePropertyAdded,
    ResponseTypeChanged,
    ResponseSchemaAdded,
    ResponseSchemaRemoved,
    ResponseShapeChanged,
}

impl Kind {
    /// The kind in words, for the Markdown report.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Kind::ToolAdded => "tool added",
            Kind::ToolRemoved => "tool removed",
            Kind::ToolRenamed => "tool renamed",
            Kind::AnnotationChanged => "annotation changed",
            Kind::AuthChanged => "credentials changed",
            Kind::ScopesChanged => "scopes changed",
            Kind::RequiredArgumentAdded => "required argument added",
            Kind::OptionalArgumentAdded => "optional argument added",
            Kind::ArgumentRemoved => "argument removed",
            Kind::ArgumentBecameRequired => "argument now required",
            Kind::ArgumentBecameOptional => "argument now optional",
            Kind::TypeNarrowed => "type narrowed",
            Kind::TypeWidened => "type widened",
            Kind::TypeChanged => "type changed",
            Kind::EnumNarrowed => "enum narrowed",
            Kind::EnumWidened => "enum widened",
            Kind::ConstraintNarrowed => "constraint narrowed",
            Kind::ConstraintWidened => "constraint widened",
            Kind::ConstraintChanged => "constraint changed",
            Kind::AlternativesChanged => "alternatives changed",
            Kind::AlternativeAdded => "alternative added",
            Kind::AlternativeRemoved => "alternative removed",
            Kind::ResponsePropertyRemoved => "response property removed",
            Kind::ResponsePropertyAdded => "response property added",
            Kind::ResponseTypeChanged => "response type changed",
            Kind::ResponseSchemaAdded => "response schema added",
            Kind::ResponseSchemaRemoved => "response schema removed",
            Kind::ResponseShapeChanged => "response shape changed",
        }
    }
}

/// One change to the tool surface.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Change {
    /// The tool's name (in the new version; the old one's for a removed tool).
    pub tool: String,
    /// The tool's old name, when it was renamed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old_tool: Option<String>,
    /// What changed.
    pub kind: Kind,
    /// Where, as a JSON pointer into the tool's definition: `/inputSchema/...`, `/outputSchema/...`
    /// and `/annotations/...` as MCP shows the tool, `/http/security` and `/scopes` as the
    /// runtime config has them.
    pub pointer: String,
    /// Whether an agent (or a deployment) made for the old version may fail with the new one.
    pub breaking: bool,
    /// The old value, when it is short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    /// The new value, when it is short.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
    /// What the change means, in one line.
    pub explanation: String,
}

/// Values longer than this (as JSON) are left out of a change.
const SHORT: usize = 160;

/// `value` when its JSON is short enough to show.
fn short(value: Option<&Value>) -> Option<Value> {
    value.filter(|v| v.to_string().chars().count() <= SHORT).cloned()
}

impl Change {
    /// Sets the old and new values, each when it is short.
    pub(crate) fn values(&mut self, old: Option<&Value>, new: Option<&Value>) -> &mut Self {
        self.old = short(old);
        self.new = short(new);
        self
    }
}

/// Where one pair's changes go, each with the pair's names.
pub(crate) struct Sink<'a> {
    tool: &'a str,
    old_tool: Option<&'a str>,
    changes: &'a mut Vec<Change>,
}

impl Sink<'_> {
    /// Records a change and returns it, to add its values.
    pub(crate) fn add(&mut self, kind: Kind, pointer: String, breaking: bool, explanation: String) -> &mut Change {
        self.changes.push(Change {
            tool: self.tool.to_string(),
            old_tool: self.old_tool.map(str::to_string),
            kind,
            pointer,
            breaking,
            old: None,
            new: None,
            explanation,
        });
        let last = self.changes.len() - 1;
        &mut self.changes[last]
    }
}

/// One side of the comparison: a config, and whether its tools' output schemas were made for
/// the comparison (an API description's are; a runtime config has what it was written with).
#[derive(Clone, Copy)]
pub(crate) struct Side<'a> {
    /// The tools.
    pub config: &'a RuntimeConfig,
    /// Every tool with a JSON response has its output schema.
    pub output_schemas: bool,
}

/// The changes from one version to the other.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Diff {
    /// Tools in the old version.
    pub old_tools: usize,
    /// Tools in the new version.
    pub new_tools: usize,
    /// Every change, grouped by tool (by name), in the order found within a tool.
    pub changes: Vec<Change>,
}

impl Diff {
    /// How many changes are breaking.
    pub(crate) fn breaking(&self) -> usize {
        self.changes.iter().filter(|c| c.breaking).count()
    }
}

/// What changed from `old` to `new`.
pub(crate) fn diff(old: Side<'_>, new: Side<'_>) -> Diff {
    let (olds, news) = (&old.config.tools, &new.config.tools);
    let paired = pair(olds, news);
    let mut changes = Vec::new();
    for (i, j) in &paired.pairs {
        compare(&olds[*i], &news[*j], old, new, &mut changes);
    }
    for &i in &paired.removed {
        let t = &olds[i];
        Sink { tool: &t.name, old_tool: None, changes: &mut changes }.add(
            Kind::ToolRemoved,
            String::new(),
            true,
            format!("`{}` is gone: an agent calling it gets an unknown tool", t.name),
        );
    }
    for &j in &paired.added {
        let t = &news[j];
        let required = required_names(&t.input_schema);
        let args = if required.is_empty() { String::new() } else { format!(", requires {}", required.join(", ")) };
        Sink { tool: &t.name, old_tool: None, changes: &mut changes }.add(
            Kind::ToolAdded,
            String::new(),
            false,
            format!("new tool `{}`{args}", t.name),
        );
    }
    // Stable: a tool's changes keep the order they were found in.
    changes.sort_by(|a, b| a.tool.cmp(&b.tool));
    Diff { old_tools: olds.len(), new_tools: news.len(), changes }
}

/// A schema's `required`, as names.
fn required_names(schema: &serde_json::Map<String, Value>) -> Vec<&str> {
    schema.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

/// Which old tool is which new one.
#[derive(Debug, Default, PartialEq)]
struct Paired {
    /// (old, new) indices, in the old list's order.
    pairs: Vec<(usize, usize)>,
    /// Old tools without a new one.
    removed: Vec<usize>,
    /// New tools without an old one.
    added: Vec<usize>,
}

/// A tool's operationId (its name when it has none: the config writes one only when it differs).
fn operation_id(t: &Tool) -> (Option<&str>, &str) {
    (t.api.as_deref(), t.operation_id.as_deref().unwrap_or(&t.name))
}

/// A tool's method and path, path parameters' names left out (`/users/{}`).
fn route(t: &Tool) -> Option<(Option<&str>, &'static str, String)> {
    let http = t.http.as_ref()?;
    let mut path = String::with_capacity(http.path.len());
    let mut in_name = false;
    for c in http.path.chars() {
        match c {
            '{' => {
                in_name = true;
                path.push_str("{}");
            }
            '}' => in_name = false,
            _ if in_name => {}
            c => path.push(c),
        }
    }
    Some((t.api.as_deref(), http.method.as_upper(), path))
}

/// Pairs the tools by operationId, then by route, then by name.
fn pair(olds: &[Tool], news: &[Tool]) -> Paired {
    let mut old_left: Vec<bool> = vec![true; olds.len()];
    let mut new_left: Vec<bool> = vec![true; news.len()];
    let mut pairs = Vec::new();
    pair_by(olds, news, &mut old_left, &mut new_left, &mut pairs, |t| Some(operation_id(t)));
    pair_by(olds, news, &mut old_left, &mut new_left, &mut pairs, route);
    pair_by(olds, news, &mut old_left, &mut new_left, &mut pairs, |t| Some((t.api.as_deref(), t.name.as_str())));
    pairs.sort_unstable();
    let removed = (0..olds.len()).filter(|&i| old_left[i]).collect();
    let added = (0..news.len()).filter(|&j| new_left[j]).collect();
    Paired { pairs, removed, added }
}

/// Pairs the tools still unpaired whose keys are equal, in list order.
fn pair_by<'t, K: Ord>(
    olds: &'t [Tool],
    news: &'t [Tool],
    old_left: &mut [bool],
    new_left: &mut [bool],
    pairs: &mut Vec<(usize, usize)>,
    key: impl Fn(&'t Tool) -> Option<K>,
) {
    let mut by_key: BTreeMap<K, VecDeque<usize>> = BTreeMap::new();
    for (j, t) in news.iter().enumerate().filter(|(j, _)| new_left[*j]) {
        if let Some(k) = key(t) {
            by_key.entry(k).or_default().push_back(j);
        }
    }
    for (i, t) in olds.iter().enumerate() {
        if !old_left[i] {
            continue;
        }
        let Some(j) = key(t).and_then(|k| by_key.get_mut(&k)).and_then(VecDeque::pop_front) else { continue };
        old_left[i] = false;
        new_left[j] = false;
        pairs.push((i, j));
    }
}

/// The changes of one pair of tools.
fn compare(old: &Tool, new: &Tool, old_side: Side<'_>, new_side: Side<'_>, changes: &mut Vec<Change>) {
    let renamed = old.name != new.name;
    let mut sink = Sink { tool: &new.name, old_tool: renamed.then_some(old.name.as_str()), changes };
    if renamed {
        sink.add(
            Kind::ToolRenamed,
            "/name".into(),
            true,
            format!("`{}` is now `{}`: an agent calling the old name gets an unknown tool", old.name, new.name),
        )
        .values(Some(&Value::from(old.name.as_str())), Some(&Value::from(new.name.as_str())));
    }
    annotations(old, new, &mut sink);
    auth::compare(old, new, old_side.config, new_side.config, &mut sink);
    schema::compare(&old.input_schema, &new.input_schema, "/inputSchema", Direction::Input, &mut sink);
    response(old, new, old_side.output_schemas && new_side.output_schemas, &mut sink);
}

/// The annotations' hints: a tool that became less safe (no longer read-only, now destructive,
/// no longer idempotent, now reaching the open world) breaks agents and clients that trusted
/// the old hint (to call it without asking, to retry it); the reverse does not.
fn annotations(old: &Tool, new: &Tool, sink: &mut Sink<'_>) {
    let (a, b) = (&old.annotations, &new.annotations);
    let hints = [
        ("readOnlyHint", a.read_only_hint, b.read_only_hint, false),
        ("destructiveHint", a.destructive_hint, b.destructive_hint, true),
        ("idempotentHint", a.idempotent_hint, b.idempotent_hint, false),
        ("openWorldHint", a.open_world_hint, b.open_world_hint, true),
    ];
    for (name, was, is, unsafe_value) in hints {
        if was == is {
            continue;
        }
        let breaking = is == unsafe_value;
        let what = if breaking {
            "less safe than before: clients that trusted the old hint (to call it unasked, or retry it) misjudge it"
        } else {
            "safer than before"
        };
        sink.add(
            Kind::AnnotationChanged,
            format!("/annotations/{name}"),
            breaking,
            format!("{name} is now {is}, {what}"),
        )
        .values(Some(&Value::Bool(was)), Some(&Value::Bool(is)));
    }
}

/// The response: the output schemas when both tools have one, or both sides made them (then
/// one that appears or goes is a change too); else the response shapes the configs keep.
fn response(old: &Tool, new: &Tool, both_made: bool, sink: &mut Sink<'_>) {
    match (&old.output_schema, &new.output_schema) {
        (Some(a), Some(b)) => return schema::compare(a, b, "/outputSchema", Direction::Output, sink),
        (Some(_), None) if both_made => {
            sink.add(
                Kind::ResponseSchemaRemoved,
                "/outputSchema".into(),
                false,
                "the response is no longer described as JSON".into(),
            );
            return;
        }
        (None, Some(_)) if both_made => {
            sink.add(Kind::ResponseSchemaAdded, "/outputSchema".into(), false, "the response is now described".into());
            return;
        }
        _ => {}
    }
    let shape = |t: &Tool| t.response.as_ref().and_then(|r| r.shape.clone());
    let (Some(a), Some(b)) = (shape(old), shape(new)) else { return };
    if a == b {
        return;
    }
    let (was, is) = (shape_members(&a), shape_members(&b));
    let gone: Vec<&str> = was.difference(&is).map(String::as_str).collect();
    // A shape that is not cut short (`…`) shows every member of the levels it shows.
    let breaking = !gone.is_empty() && !b.contains('…');
    let why = if breaking {
        let them = if gone.len() == 1 { "it" } else { "them" };
        let names: Vec<String> = gone.iter().map(|n| format!("`{n}`")).collect();
        format!("the response no longer shows {}: readers of {them} find nothing", names.join(", "))
    } else {
        "the response's outline changed (a config keeps only its outline: compare the API descriptions for detail)"
            .to_string()
    };
    sink.add(Kind::ResponseShapeChanged, "/response/shape".into(), breaking, why)
        .values(Some(&Value::String(a)), Some(&Value::String(b)));
}

/// The member names a response shape shows (`[{id, user: {login, …}, "odd name"}]`), at any level.
fn shape_members(shape: &str) -> std::collections::BTreeSet<String> {
    let mut names = std::collections::BTreeSet::new();
    let mut chars = shape.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c == '"' {
            // A quoted name, as JSON writes it.
            let mut escaped = false;
            let end = chars.find(|&(_, c)| {
                let closes = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                closes
            });
            let text = end.map(|(i, _)| &shape[start..=i]).unwrap_or(&shape[start..]);
            names.extend(serde_json::from_str::<String>(text).ok());
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let mut end = start + c.len_utf8();
            while let Some(&(i, c)) = chars.peek().filter(|(_, c)| c.is_ascii_alphanumeric() || *c == '_') {
                end = i + c.len_utf8();
                chars.next();
            }
            names.insert(shape[start..end].to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(value: Value) -> Tool {
        let mut base = json!({
            "name": "t", "input_schema": {"type": "object"},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
        });
        if let (Some(b), Value::Object(extra)) = (base.as_object_mut(), value) {
            b.extend(extra);
        }
        serde_json::from_value(base).expect("a tool")
    }

    pub(super) fn config(tools: Vec<Tool>) -> RuntimeConfig {
        let mut c: RuntimeConfig = serde_json::from_value(json!({
            "mcpgen_config": 1, "server": {"name": "x", "version": "1"}, "upstream": {}, "tools": [],
        }))
        .expect("a config");
        c.tools = tools;
        c
    }

    fn http(method: &str, path: &str) -> Value {
        json!({"method": method, "path": path})
    }

    #[test]
    fn tools_pair_by_operation_id_then_route_then_name() {
        let olds = [
            tool(json!({"name": "a", "operation_id": "getA"})),
            tool(json!({"name": "b", "http": http("GET", "/b/{id}")})),
            tool(json!({"name": "c"})),
            tool(json!({"name": "gone"})),
        ];
        let news = [
            tool(json!({"name": "c"})),
            tool(json!({"name": "b2", "http": http("GET", "/b/{b_id}")})),
            tool(json!({"name": "a_renamed", "operation_id": "getA"})),
            tool(json!({"name": "new"})),
        ];
        let paired = pair(&olds, &news);
        assert_eq!(paired, Paired { pairs: vec![(0, 2), (1, 1), (2, 0)], removed: vec![3], added: vec![3] });
    }

    #[test]
    fn a_renamed_tool_is_breaking_and_named_both_ways() {
        let config = |t: Tool| config(vec![t]);
        let old = config(tool(json!({"name": "list", "operation_id": "listThings"})));
        let new = config(tool(json!({"name": "list_things", "operation_id": "listThings"})));
        let d = diff(Side { config: &old, output_schemas: true }, Side { config: &new, output_schemas: true });
        assert_eq!(d.changes.len(), 1, "{:?}", d.changes);
        let c = &d.changes[0];
        assert_eq!(
            (c.kind, c.breaking, c.tool.as_str(), c.old_tool.as_deref()),
            (Kind::ToolRenamed, true, "list_things", Some("list"))
        );
    }

    #[test]
    fn shapes_show_member_names() {
        let names = shape_members(r#"[{id, user: {login, …}, "odd \"name\"", labels: [{…}], …}]"#);
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(names, ["id", "labels", "login", "odd \"name\"", "user"]);
    }

    #[test]
    fn hints_that_became_less_safe_break() {
        let old = tool(json!({}));
        let new = tool(
            json!({"annotations": {"readOnlyHint": false, "destructiveHint": true, "idempotentHint": true, "openWorldHint": false}}),
        );
        let mut changes = Vec::new();
        annotations(&old, &new, &mut Sink { tool: "t", old_tool: None, changes: &mut changes });
        let seen: Vec<(&str, bool)> = changes.iter().map(|c| (c.pointer.as_str(), c.breaking)).collect();
        assert_eq!(
            seen,
            [
                ("/annotations/readOnlyHint", true),
                ("/annotations/destructiveHint", true),
                ("/annotations/openWorldHint", false)
            ]
        );
    }
}
