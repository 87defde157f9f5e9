//! The pins file and what it pins: each tool's definition as clients are shown it, its SHA-256
//! over a canonical form, and the file that keeps both, written whole and atomically.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::config::Tool;
use crate::engine::ToolEntry;

/// The version of the pins file format (`"version": 1`).
pub const PINS_FORMAT_VERSION: u32 = 1;

/// The fields of an advertised tool that its pin covers, as `tools/list` names them.
pub const PINNED_FIELDS: [&str; 6] = ["name", "title", "description", "inputSchema", "outputSchema", "annotations"];

/// A tool's definition now, and its hash.
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// The fields of [`PINNED_FIELDS`] the tool has, object keys sorted.
    pub value: Value,
    /// [`sha256`] of `value`.
    pub sha256: String,
}

/// Every tool's definition, by name.
pub type Definitions = BTreeMap<String, Definition>;

/// The definition clients are shown of `tool`, whose schemas share the config's `shared`
/// definitions: the full one (full schemas, the listed description), the form `/mcp/tools` lists
/// with full schemas. Compact schemas and discovery's descriptions are made from it, so whatever a
/// client may see of a tool changes with it, and a change of tool mode or schema detail changes
/// no pin.
pub(crate) fn definition_in(tool: &Tool, shared: &Arc<crate::config::Definitions>) -> Value {
    let advertised = ToolEntry::in_catalogue(tool.clone(), shared).advertised(false);
    // An rmcp `Tool` is plain data with string keys: it always serialises.
    let mut value = serde_json::to_value(&advertised).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        fields.retain(|key, _| PINNED_FIELDS.contains(&key.as_str()));
    }
    sorted(value)
}

/// The definitions of `tools`, each with its hash.
pub fn definitions(tools: &[Tool]) -> Definitions {
    definitions_in(tools, &Arc::default())
}

/// [`definitions`] of tools whose schemas share the config's `shared` definitions.
pub(crate) fn definitions_in(tools: &[Tool], shared: &Arc<crate::config::Definitions>) -> Definitions {
    tools
        .iter()
        .map(|t| {
            let value = definition_in(t, shared);
            (t.name.clone(), Definition { sha256: sha256(&value), value })
        })
        .collect()
}

/// `value` with the keys of every object in sorted order.
pub fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect::<Map<_, _>>())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// The canonical text of `value`: compact JSON (serde_json's), object keys sorted.
pub fn canonical(value: &Value) -> String {
    serde_json::to_string(&sorted(value.clone())).unwrap_or_default()
}

/// The SHA-256 of [`canonical`] `value`, in lower-case hex.
pub fn sha256(value: &Value) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, canonical(value).as_bytes());
    digest.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// One tool's pin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// The approved definition's [`sha256`]: what is compared.
    pub sha256: String,
    /// The approved definition, to say what changed and to approve some changes automatically;
    /// a pin may leave it out (then it can only say that the tool changed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
}

impl Pin {
    /// The pin of `definition`.
    pub fn of(definition: &Definition) -> Pin {
        Pin { sha256: definition.sha256.clone(), definition: Some(definition.value.clone()) }
    }

    /// The pinned definition, when it is there and matches the hash (a hand-edited one that does
    /// not is not trusted to say what changed).
    pub fn definition(&self) -> Option<&Value> {
        self.definition.as_ref().filter(|d| sha256(d) == self.sha256)
    }
}

/// The pins file: `{"version": 1, "tools": {NAME: {"sha256": ..., "definition": {...}}}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PinFile {
    /// `PINS_FORMAT_VERSION`.
    pub version: u32,
    /// The pins, by tool name.
    pub tools: BTreeMap<String, Pin>,
}

impl Default for PinFile {
    fn default() -> Self {
        PinFile { version: PINS_FORMAT_VERSION, tools: BTreeMap::new() }
    }
}

/// A pins file that cannot be read, parsed or written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinsFileError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong.
    pub why: String,
}

impl fmt::Display for PinsFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pins file {}: {}", self.path.display(), self.why)
    }
}

impl std::error::Error for PinsFileError {}

impl From<PinsFileError> for crate::Error {
    fn from(e: PinsFileError) -> Self {
        crate::Error::Config(e.to_string())
    }
}

/// What [`PinFile::approve`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approval {
    /// Tools pinned for the first time.
    pub added: Vec<String>,
    /// Tools whose pin changed, with what changed.
    pub changed: Vec<(String, Vec<String>)>,
    /// Pins of tools the catalogue no longer has.
    pub removed: Vec<String>,
}

impl Approval {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.removed.is_empty()
    }
}

impl PinFile {
    /// The pins of every tool of `current`.
    pub fn of(current: &Definitions) -> PinFile {
        PinFile { tools: current.iter().map(|(name, d)| (name.clone(), Pin::of(d))).collect(), ..PinFile::default() }
    }

    /// Reads the pins at `path`; `None` when there is no such file.
    pub fn read(path: &Path) -> Result<Option<PinFile>, PinsFileError> {
        let fail = |why: String| PinsFileError { path: path.to_path_buf(), why };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(fail(format!("cannot read: {e}"))),
        };
        let pins: PinFile = serde_json::from_str(&text).map_err(|e| {
            fail(format!(
                "not a pins file ({e}); expected {{\"version\": 1, \"tools\": {{NAME: {{\"sha256\": ...}}}}}}, as \
                 `mcpgen pins update` writes it"
            ))
        })?;
        if pins.version != PINS_FORMAT_VERSION {
            return Err(fail(format!(
                "format version {} is not one this server reads ({PINS_FORMAT_VERSION})",
                pins.version
            )));
        }
        if let Some((name, _)) = pins.tools.iter().find(|(_, p)| !is_sha256(&p.sha256)) {
            return Err(fail(format!("the pin of `{name}` is not a SHA-256 (64 lower-case hex digits)")));
        }
        Ok(Some(pins))
    }

    /// Writes the pins to `path` whole: a file beside it, renamed over it, so that a server
    /// reading it (`--watch`) never sees half of it.
    pub fn write(&self, path: &Path) -> Result<(), PinsFileError> {
        let fail = |why: String| PinsFileError { path: path.to_path_buf(), why };
        let mut text = serde_json::to_string_pretty(self).map_err(|e| fail(e.to_string()))?;
        text.push('\n');
        let name = path.file_name().ok_or_else(|| fail("not a file name".into()))?;
        let tmp = path.with_file_name(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
        let written = std::fs::write(&tmp, text).and_then(|()| std::fs::rename(&tmp, path));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail(format!("cannot write: {e}")));
        }
        Ok(())
    }

    /// Pins the definitions of `current` (only the tools named in `only`, when some are): new
    /// tools are added, changed ones re-pinned, and pins of tools `current` lacks removed. A name
    /// of `only` that is neither a tool nor a pin is an error naming it.
    pub fn approve(&mut self, current: &Definitions, only: &[String]) -> Result<Approval, String> {
        let unknown: Vec<&str> = only
            .iter()
            .filter(|n| !current.contains_key(*n) && !self.tools.contains_key(*n))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(format!("no tool and no pin named {}", quoted(&unknown)));
        }
        let chosen = |name: &str| only.is_empty() || only.iter().any(|n| n == name);
        let mut approval = Approval::default();
        for (name, definition) in current.iter().filter(|(n, _)| chosen(n)) {
            match self.tools.get(name) {
                Some(pin) if pin.sha256 == definition.sha256 => continue,
                Some(pin) => approval.changed.push((name.clone(), what_changed(pin.definition(), &definition.value))),
                None => approval.added.push(name.clone()),
            }
            self.tools.insert(name.clone(), Pin::of(definition));
        }
        let gone: Vec<String> = self.tools.keys().filter(|n| chosen(n) && !current.contains_key(*n)).cloned().collect();
        for name in gone {
            self.tools.remove(&name);
            approval.removed.push(name);
        }
        Ok(approval)
    }
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `a`, `b` and `c`.
pub(super) fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
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
pub(super) fn required(schema: Option<&Value>) -> BTreeSet<&str> {
    schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}
