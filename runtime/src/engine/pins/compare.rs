//! The catalogue against its pins: which tools match, which changed (and in what), which are new,
//! and which changes may be approved without asking (`--pins-auto-approve`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

use super::AutoApprove;
use super::file::{Definitions, PINNED_FIELDS, PinFile, quoted};

/// Why a tool is withheld.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    /// Its definition differs from its pin: what changed (`description`, `input schema (...)`).
    Changed(Vec<String>),
    /// It has no pin: it came after the pins were written.
    New,
}

impl Reason {
    /// The `reason` label of `mcpgen_tools_withheld`: `changed` or `new`.
    pub fn label(&self) -> &'static str {
        match self {
            Reason::Changed(_) => "changed",
            Reason::New => "new",
        }
    }

    /// Why, for the model that calls the tool and the log: a clause.
    pub fn why(&self) -> String {
        match self {
            Reason::Changed(what) => format!("its definition changed since it was approved ({})", what.join("; ")),
            Reason::New => "it is new since the tool definitions were approved".into(),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Changed(what) => write!(f, "changed: {}", what.join("; ")),
            Reason::New => f.write_str("new"),
        }
    }
}

/// The catalogue against the pins.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Review {
    /// The tools not to serve, by name, and why.
    pub withheld: BTreeMap<String, Reason>,
    /// Changed tools whose change `--pins-auto-approve` approves, with the arguments they gained.
    pub approved: Vec<(String, Vec<String>)>,
    /// Pins of tools the catalogue no longer has (harmless: kept until `mcpgen pins update`).
    pub stale: Vec<String>,
    /// Tools that match their pins.
    pub matching: usize,
}

impl Review {
    /// How many tools are withheld for `label` ([`Reason::label`]).
    pub fn count(&self, label: &str) -> usize {
        self.withheld.values().filter(|r| r.label() == label).count()
    }
}

/// `current` against `pins`: a tool whose definition's hash differs from its pin is withheld,
/// unless `auto` approves its change; a tool without a pin is withheld as new.
pub fn review(pins: &PinFile, current: &Definitions, auto: &[AutoApprove]) -> Review {
    let mut review = Review::default();
    for (name, definition) in current {
        let Some(pin) = pins.tools.get(name) else {
            review.withheld.insert(name.clone(), Reason::New);
            continue;
        };
        if pin.sha256 == definition.sha256 {
            review.matching += 1;
            continue;
        }
        let gained = match pin.definition() {
            Some(old) if auto.contains(&AutoApprove::OptionalArgs) => gained_optional_args(old, &definition.value),
            _ => None,
        };
        match gained {
            Some(args) => review.approved.push((name.clone(), args)),
            None => {
                review
                    .withheld
                    .insert(name.clone(), Reason::Changed(what_changed(pin.definition(), &definition.value)));
            }
        }
    }
    review.stale = pins.tools.keys().filter(|n| !current.contains_key(*n)).cloned().collect();
    review
}

/// What differs between a pinned definition and the current one, field by field, the input
/// schema by argument; `pinned` is `None` when the pin keeps no (trustworthy) definition.
pub fn what_changed(pinned: Option<&Value>, current: &Value) -> Vec<String> {
    let Some(pinned) = pinned else {
        return vec!["its definition (the pin keeps none to compare with)".into()];
    };
    let mut changes = Vec::new();
    for field in PINNED_FIELDS {
        let (old, new) = (pinned.get(field), current.get(field));
        if old == new {
            continue;
        }
        changes.push(match field {
            "inputSchema" => input_changes(old, new),
            "outputSchema" => "output schema".into(),
            other => other.to_string(),
        });
    }
    if changes.is_empty() {
        // Equal fields with different hashes: a key outside the pinned fields, or a hand edit.
        changes.push("its definition".into());
    }
    changes
}

/// The arguments an input schema gained, lost or changed, and what else changed in it.
fn input_changes(old: Option<&Value>, new: Option<&Value>) -> String {
    let props = |s: Option<&Value>| s.and_then(|s| s.get("properties")).and_then(Value::as_object).cloned();
    let (old_props, new_props) = (props(old).unwrap_or_default(), props(new).unwrap_or_default());
    let (old_req, new_req) = (required(old), required(new));
    let was = |k: &str| old_props.contains_key(k);
    let mut parts = Vec::new();
    let mut say = |what: &str, from: &Map<String, Value>, pick: &dyn Fn(&str) -> bool| {
        let list: Vec<&str> = from.keys().map(String::as_str).filter(|k| pick(k)).collect();
        if !list.is_empty() {
            parts.push(format!("{what} {}", quoted(&list)));
        }
    };
    say("new required", &new_props, &|k| !was(k) && new_req.contains(k));
    say("new optional", &new_props, &|k| !was(k) && !new_req.contains(k));
    say("removed", &old_props, &|k| !new_props.contains_key(k));
    say("changed", &new_props, &|k| old_props.get(k).is_some_and(|v| Some(v) != new_props.get(k)));
    say("now required", &new_props, &|k| was(k) && new_req.contains(k) && !old_req.contains(k));
    say("now optional", &new_props, &|k| was(k) && old_req.contains(k) && !new_req.contains(k));
    let rest = |s: Option<&Value>| -> Option<Map<String, Value>> {
        let mut s = s?.as_object()?.clone();
        s.remove("properties");
        s.remove("required");
        Some(s)
    };
    if rest(old) != rest(new) {
        parts.push("other keywords".into());
    }
    if parts.is_empty() { "input schema".into() } else { format!("input schema ({})", parts.join(", ")) }
}

/// The names an input schema's `required` lists.
fn required(schema: Option<&Value>) -> BTreeSet<&str> {
    schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// The arguments `new` gained over `old` when that is its only change: new properties of the
/// input schema that `required` does not list, every other field and keyword (the old
/// properties, `required`) equal. `None` for any other change, or none.
pub fn gained_optional_args(old: &Value, new: &Value) -> Option<Vec<String>> {
    let (Value::Object(old), Value::Object(new)) = (old, new) else { return None };
    if PINNED_FIELDS.iter().filter(|f| **f != "inputSchema").any(|f| old.get(*f) != new.get(*f)) {
        return None;
    }
    let (mut old_schema, mut new_schema) =
        (old.get("inputSchema")?.as_object()?.clone(), new.get("inputSchema")?.as_object()?.clone());
    let old_props = properties(&mut old_schema)?;
    let new_props = properties(&mut new_schema)?;
    if old_schema != new_schema || old_props.iter().any(|(k, v)| new_props.get(k) != Some(v)) {
        return None;
    }
    let added: Vec<String> = new_props.keys().filter(|k| !old_props.contains_key(*k)).cloned().collect();
    let new_schema = Value::Object(new_schema);
    let required = required(Some(&new_schema));
    if added.is_empty() || added.iter().any(|a| required.contains(a.as_str())) {
        return None;
    }
    Some(added)
}

/// Takes a schema's `properties` out of it (none: empty); `None` when it is not an object.
fn properties(schema: &mut Map<String, Value>) -> Option<Map<String, Value>> {
    match schema.remove("properties") {
        None => Some(Map::new()),
        Some(Value::Object(props)) => Some(props),
        Some(_) => None,
    }
}
