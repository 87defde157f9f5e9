//! Two versions of a tool's schema compared position by position: the input schema, which the
//! agent writes to (a value the old schema took and the new one refuses breaks it: a type, an
//! enum value or a property gone, a bound tightened, a pattern, a new requirement), and the
//! output schema, which it reads (a member gone, or a type it did not expect, breaks it).
//!
//! Local `$ref`s are followed on each side (a position reached through one is written as if
//! inlined), and `anyOf: [S, {type: null}]`, how OpenAPI 3.0's `nullable` reads in 2020-12, is
//! `S` that also takes `null`. Alternatives (`anyOf`, `oneOf`, `allOf`) are paired by content
//! ([`alternatives`]: a tag, equality, a title, a definition, else their likeness), so that one
//! dropped or added moves no other. A schema cut short when its tool was made (too deep or too
//! large) shows only its type: what it held is not compared.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use serde_json::{Map, Value};

use super::{Kind, Sink};
use crate::tools::inline::CUT_SHORT;
use mcpgen_config::keywords;
use mcpgen_config::refs::resolve_pointer;

mod alternatives;

/// Which way values flow through the schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// The agent writes values (arguments): narrowing breaks it.
    Input,
    /// The agent reads values (results): losing members or new types break it.
    Output,
}

/// How deep the comparison goes (recursive schemas end earlier, at the pair seen before).
const MAX_DEPTH: usize = 64;

/// Bounds: the keyword, and whether it is an upper one (lowering it narrows).
const BOUNDS: [(&str, bool); 10] = [
    ("maximum", true),
    ("exclusiveMaximum", true),
    ("maxLength", true),
    ("maxItems", true),
    ("maxProperties", true),
    ("minimum", false),
    ("exclusiveMinimum", false),
    ("minLength", false),
    ("minItems", false),
    ("minProperties", false),
];

static EMPTY: LazyLock<Map<String, Value>> = LazyLock::new(Map::new);

/// Records in `sink` what changed from `old` to `new`, the schemas at `at` in the tool.
pub(crate) fn compare(
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    at: &str,
    direction: Direction,
    sink: &mut Sink,
) {
    if old == new {
        return;
    }
    let mut walk = Walk {
        old_root: old,
        new_root: new,
        root_at: at,
        direction,
        same_defs: old.get("$defs") == new.get("$defs") && old.get("definitions") == new.get("definitions"),
        seen: BTreeSet::new(),
        sink,
    };
    let view = |obj| View { obj, null: false, via_ref: false };
    walk.object(view(old), view(new), at, 0);
}

/// A schema as compared: the object (its `$ref`s followed, a nullable wrapper taken off) and
/// whether `null` is accepted besides.
#[derive(Clone, Copy)]
struct View<'a> {
    obj: &'a Map<String, Value>,
    null: bool,
    via_ref: bool,
}

struct Walk<'a, 's, 'k> {
    old_root: &'a Map<String, Value>,
    new_root: &'a Map<String, Value>,
    root_at: &'a str,
    direction: Direction,
    /// Both sides' definitions are equal, so equal text means equal schemas.
    same_defs: bool,
    /// Pairs of objects reached through a `$ref`, compared already (by address).
    seen: BTreeSet<(usize, usize)>,
    sink: &'s mut Sink<'k>,
}

/// `v` with its `$ref`s followed within `root` (an object; `true` and the like read as `{}`).
fn follow<'a>(v: &'a Value, root: &'a Map<String, Value>) -> (&'a Map<String, Value>, bool) {
    let (mut v, mut via_ref) = (v, false);
    for _ in 0..32 {
        match v.get("$ref").and_then(Value::as_str).and_then(|r| resolve_pointer(root, r)) {
            Some(target) => (v, via_ref) = (target, true),
            None => break,
        }
    }
    (v.as_object().unwrap_or(&EMPTY), via_ref)
}

/// `v` as compared (see [`View`]).
fn view<'a>(v: &'a Value, root: &'a Map<String, Value>) -> View<'a> {
    let (obj, via_ref) = follow(v, root);
    let is_null = |s: &Value| s.as_object().is_some_and(|o| o.len() == 1 && o.get("type") == Some(&"null".into()));
    if let Some([a, b]) = obj.get("anyOf").and_then(Value::as_array).map(Vec::as_slice)
        && !obj.contains_key("type")
    {
        let inner = if is_null(b) {
            Some(a)
        } else if is_null(a) {
            Some(b)
        } else {
            None
        };
        if let Some(inner) = inner {
            let (obj, inner_ref) = follow(inner, root);
            return View { obj, null: true, via_ref: via_ref || inner_ref };
        }
    }
    View { obj, null: false, via_ref }
}

/// Whether a schema stands in for one cut short when the tool was made (too deep or too large:
/// `crate::tools::inline`): its type and a description, no structure.
fn cut_short(obj: &Map<String, Value>) -> bool {
    obj.get("description").and_then(Value::as_str).is_some_and(|d| d.ends_with(CUT_SHORT))
        && obj.keys().all(|k| k == "type" || k == "description")
}

/// A schema without what only describes it (`description`, `title`, examples, `x-*`), to show;
/// `None` when nothing is left.
fn brief(schema: &Value) -> Option<Value> {
    match schema {
        Value::Object(o) => {
            let kept: Map<String, Value> =
                o.iter().filter(|(k, _)| !keywords::is_annotation(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other.clone()),
    }
}

/// A property name as a JSON pointer token.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

impl<'a> Walk<'a, '_, '_> {
    fn schema(&mut self, old: &'a Value, new: &'a Value, at: &str, depth: usize) {
        let (old, new) = (view(old, self.old_root), view(new, self.new_root));
        self.object(old, new, at, depth);
    }

    fn object(&mut self, old: View<'a>, new: View<'a>, at: &str, depth: usize) {
        if depth > MAX_DEPTH || (self.same_defs && old.null == new.null && old.obj == new.obj) {
            return;
        }
        if (old.via_ref || new.via_ref)
            && !self.seen.insert((old.obj as *const _ as usize, new.obj as *const _ as usize))
        {
            return;
        }
        self.types(old, new, at);
        if cut_short(old.obj) || cut_short(new.obj) {
            // What one side does not show cannot be compared (only its type is kept).
            return;
        }
        if self.direction == Direction::Input {
            self.values(old, new, at);
            self.bounds(old.obj, new.obj, at);
            self.pattern(old.obj, new.obj, at);
            self.closed(old.obj, new.obj, at);
        }
        self.properties(old.obj, new.obj, at, depth);
        for key in ["items", "additionalProperties"] {
            if let (Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) = (old.obj.get(key), new.obj.get(key)) {
                self.schema(a, b, &format!("{at}/{key}"), depth + 1);
            }
        }
        self.alternatives(old.obj, new.obj, at, depth);
    }
}

/// The types a schema takes; `None`: any.
type Types = Option<BTreeSet<String>>;

fn types(v: View<'_>) -> Types {
    let mut set: BTreeSet<String> = match v.obj.get("type") {
        Some(Value::String(t)) => BTreeSet::from([t.clone()]),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).map(str::to_string).collect(),
        _ => return None,
    };
    if v.null {
        set.insert("null".into());
    }
    Some(set)
}

/// Whether `set` takes values of type `t`.
fn accepts(set: &Types, t: &str) -> bool {
    set.as_ref().is_none_or(|s| s.contains(t) || (t == "integer" && s.contains("number")))
}

/// Whether `a` takes every value `b` does (as far as types tell).
fn covers(a: &Types, b: &Types) -> bool {
    match b {
        None => a.is_none(),
        Some(b) => b.iter().all(|t| accepts(a, t)),
    }
}

/// The types of `from` that `by` does not take, in words.
fn missing(from: &Types, by: &Types) -> String {
    let Some(from) = from else {
        return format!("values of other types than {}", words(by));
    };
    let lost: Vec<&str> = from
        .iter()
        .filter(|t| !accepts(by, t))
        .map(|t| if t == "number" && accepts(by, "integer") { "fractional numbers" } else { t.as_str() })
        .collect();
    lost.join(", ")
}

fn words(t: &Types) -> String {
    match t {
        None => "any type".into(),
        Some(set) => set.iter().cloned().collect::<Vec<_>>().join(" or "),
    }
}

fn type_value(t: &Types) -> Option<Value> {
    let set = t.as_ref()?;
    Some(match set.len() {
        1 => Value::from(set.iter().next()?.as_str()),
        _ => Value::from(set.iter().cloned().collect::<Vec<_>>()),
    })
}

/// A schema's `const` or `enum`, with `null` when a nullable wrapper adds it.
fn allowed(v: View<'_>) -> Option<(&'static str, Vec<Value>)> {
    let (key, mut values) = match (v.obj.get("const"), v.obj.get("enum")) {
        (Some(c), _) => ("const", vec![c.clone()]),
        (None, Some(Value::Array(e))) => ("enum", e.clone()),
        _ => return None,
    };
    if v.null && !values.contains(&Value::Null) {
        values.push(Value::Null);
    }
    Some((key, values))
}

/// Values for a message: the first few, as JSON.
fn list(values: &[&Value]) -> String {
    let mut out: Vec<String> = values.iter().take(8).map(|v| v.to_string()).collect();
    if values.len() > 8 {
        out.push(format!("… ({} more)", values.len() - 8));
    }
    out.join(", ")
}

impl<'a> Walk<'a, '_, '_> {
    fn types(&mut self, old: View<'a>, new: View<'a>, at: &str) {
        let (o, n) = (types(old), types(new));
        let (wider, narrower) = (covers(&n, &o), covers(&o, &n));
        if wider && narrower {
            return;
        }
        let (kind, breaking, why) = match self.direction {
            Direction::Input if wider => (Kind::TypeWidened, false, format!("now also accepts {}", missing(&n, &o))),
            Direction::Input if narrower => {
                (Kind::TypeNarrowed, true, format!("no longer accepts {}", missing(&o, &n)))
            }
            Direction::Input => (Kind::TypeChanged, true, format!("was {}, now {}", words(&o), words(&n))),
            Direction::Output if narrower => {
                (Kind::ResponseTypeChanged, false, format!("no longer holds {}", missing(&o, &n)))
            }
            Direction::Output => (
                Kind::ResponseTypeChanged,
                true,
                format!("may now hold {} (was {}): readers of the old type may fail", missing(&n, &o), words(&o)),
            ),
        };
        self.sink
            .add(kind, format!("{at}/type"), breaking, why)
            .values(type_value(&o).as_ref(), type_value(&n).as_ref());
    }

    /// `enum` and `const` (input only).
    fn values(&mut self, old: View<'a>, new: View<'a>, at: &str) {
        // With a type on both sides, whether `null` is taken is the types' to say.
        let typed = types(old).is_some() && types(new).is_some();
        let (key, o, n) = match (allowed(old), allowed(new)) {
            (None, None) => return,
            (None, Some((key, n))) => {
                let why = format!("now accepts only {}", list(&n.iter().collect::<Vec<_>>()));
                self.sink.add(Kind::EnumNarrowed, format!("{at}/{key}"), true, why).values(None, Some(&Value::from(n)));
                return;
            }
            (Some((key, o)), None) => {
                let why = format!("no longer limited to {} values", o.len());
                self.sink.add(Kind::EnumWidened, format!("{at}/{key}"), false, why).values(Some(&Value::from(o)), None);
                return;
            }
            (Some(_), Some((key, n))) => (key, allowed(old).map(|(_, o)| o).unwrap_or_default(), n),
        };
        let counts = |v: &&Value| !(typed && v.is_null());
        let removed: Vec<&Value> = o.iter().filter(|v| !n.contains(v)).filter(counts).collect();
        let added: Vec<&Value> = n.iter().filter(|v| !o.contains(v)).filter(counts).collect();
        let (kind, breaking, why) = match (removed.is_empty(), added.is_empty()) {
            (true, true) => return,
            (false, true) => (Kind::EnumNarrowed, true, format!("no longer accepts {}", list(&removed))),
            (false, false) => (
                Kind::EnumNarrowed,
                true,
                format!("no longer accepts {}; now accepts {}", list(&removed), list(&added)),
            ),
            (true, false) => (Kind::EnumWidened, false, format!("now also accepts {}", list(&added))),
        };
        self.sink.add(kind, format!("{at}/{key}"), breaking, why).values(Some(&Value::from(o)), Some(&Value::from(n)));
    }

    /// Numeric and size bounds (input only).
    fn bounds(&mut self, old: &'a Map<String, Value>, new: &'a Map<String, Value>, at: &str) {
        for (key, upper) in BOUNDS {
            let (ov, nv) = (old.get(key).filter(|v| v.is_number()), new.get(key).filter(|v| v.is_number()));
            let (o, n) = (ov.and_then(Value::as_f64), nv.and_then(Value::as_f64));
            let (narrowed, why) = match (ov.zip(o), nv.zip(n)) {
                (None, None) => continue,
                (None, Some((v, _))) => (true, format!("{key} {v} is new")),
                (Some((v, _)), None) => (false, format!("{key} {v} is gone")),
                (Some((_, a)), Some((_, b))) if a == b => continue,
                (Some((va, a)), Some((vb, b))) => {
                    let narrowed = if upper { b < a } else { b > a };
                    let dir = if b < a { "lowered" } else { "raised" };
                    (narrowed, format!("{key} {dir} from {va} to {vb}"))
                }
            };
            let kind = if narrowed { Kind::ConstraintNarrowed } else { Kind::ConstraintWidened };
            self.sink.add(kind, format!("{at}/{key}"), narrowed, why).values(ov, nv);
        }
    }

    /// `pattern` (input only): a new or changed one may refuse what was taken.
    fn pattern(&mut self, old: &'a Map<String, Value>, new: &'a Map<String, Value>, at: &str) {
        let (ov, nv) = (old.get("pattern"), new.get("pattern"));
        let (o, n) = (ov.and_then(Value::as_str), nv.and_then(Value::as_str));
        let (kind, breaking, why) = match (o, n) {
            (None, Some(p)) => (Kind::ConstraintNarrowed, true, format!("values must now match {p}")),
            (Some(p), None) => (Kind::ConstraintWidened, false, format!("values no longer have to match {p}")),
            (Some(a), Some(b)) if a != b => (
                Kind::ConstraintChanged,
                true,
                "the pattern changed: values the old one took may be refused".to_string(),
            ),
            _ => return,
        };
        self.sink.add(kind, format!("{at}/pattern"), breaking, why).values(ov, nv);
    }

    /// `additionalProperties: false` (input only).
    fn closed(&mut self, old: &'a Map<String, Value>, new: &'a Map<String, Value>, at: &str) {
        let closed = |o: &Map<String, Value>| o.get("additionalProperties") == Some(&Value::Bool(false));
        let (kind, breaking, why) = match (closed(old), closed(new)) {
            (false, true) => (Kind::ConstraintNarrowed, true, "no longer accepts properties it does not list"),
            (true, false) => (Kind::ConstraintWidened, false, "now accepts properties it does not list"),
            _ => return,
        };
        self.sink.add(kind, format!("{at}/additionalProperties"), breaking, why.into());
    }
}

/// A schema's `properties`.
fn properties(obj: &Map<String, Value>) -> &Map<String, Value> {
    obj.get("properties").and_then(Value::as_object).unwrap_or(&EMPTY)
}

/// A schema's `required` names.
fn required(obj: &Map<String, Value>) -> BTreeSet<&str> {
    obj.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect()
}

impl<'a> Walk<'a, '_, '_> {
    fn properties(&mut self, old: &'a Map<String, Value>, new: &'a Map<String, Value>, at: &str, depth: usize) {
        let (po, pn) = (properties(old), properties(new));
        let (ro, rn) = (required(old), required(new));
        let names: BTreeSet<&String> = po.keys().chain(pn.keys()).collect();
        let what = if at == self.root_at { "argument" } else { "property" };
        for name in names {
            let at_name = format!("{at}/properties/{}", escape(name));
            match (po.get(name), pn.get(name)) {
                (Some(a), Some(b)) => {
                    self.schema(a, b, &at_name, depth + 1);
                    self.requirement(name, ro.contains(name.as_str()), rn.contains(name.as_str()), what, at);
                }
                (Some(a), None) => self.gone(name, a, what, at_name),
                (None, Some(b)) => self.new_property(name, b, rn.contains(name.as_str()), what, at_name),
                (None, None) => {}
            }
        }
    }

    fn requirement(&mut self, name: &str, was: bool, is: bool, what: &str, at: &str) {
        if self.direction == Direction::Output || was == is {
            return;
        }
        let (kind, why) = if is {
            (Kind::ArgumentBecameRequired, format!("{what} `{name}` is now required: calls without it are refused"))
        } else {
            (Kind::ArgumentBecameOptional, format!("{what} `{name}` is now optional"))
        };
        self.sink.add(kind, format!("{at}/required"), is, why);
    }

    fn gone(&mut self, name: &str, schema: &'a Value, what: &str, at: String) {
        let (kind, why) = match self.direction {
            Direction::Input => {
                (Kind::ArgumentRemoved, format!("{what} `{name}` is gone: calls that pass it lose what it did"))
            }
            Direction::Output => (
                Kind::ResponsePropertyRemoved,
                format!("the response no longer has `{name}`: readers of it find nothing"),
            ),
        };
        self.sink.add(kind, at, true, why).values(brief(schema).as_ref(), None);
    }

    fn new_property(&mut self, name: &str, schema: &'a Value, required: bool, what: &str, at: String) {
        let (kind, breaking, why) = match self.direction {
            Direction::Input if required => (
                Kind::RequiredArgumentAdded,
                true,
                format!("new required {what} `{name}`: calls without it are refused"),
            ),
            Direction::Input => (Kind::OptionalArgumentAdded, false, format!("new optional {what} `{name}`")),
            Direction::Output => (Kind::ResponsePropertyAdded, false, format!("the response now has `{name}`")),
        };
        self.sink.add(kind, at, breaking, why).values(None, brief(schema).as_ref());
    }
}

#[cfg(test)]
mod tests;
