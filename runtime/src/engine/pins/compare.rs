//! The catalogue against its pins: which tools match, which changed (and in what), which are new,
//! and which changes may be approved without asking (`--pins-auto-approve`).

use std::collections::BTreeMap;
use std::fmt;

use serde_json::{Map, Value};

use super::AutoApprove;
use super::file::{Definitions, PINNED_FIELDS, PinFile, required, what_changed};

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
