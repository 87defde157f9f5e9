//! Text from an API description is untrusted input to a model: whoever wrote the description (a
//! third party, a download) writes into the tool descriptions mcpgen advertises. Before anything
//! is built from a document, every text a model will read is cleaned ([`text`]): invisible
//! characters, HTML comments and raw markup go, and each passage a rule of [`rules`] catches
//! (instruction-like text: words addressed to the assistant, role tags, requests to hide things
//! from the user, other tools named, hidden payloads) is withheld, with a warning naming its JSON
//! pointer and the rule. `--allow-description-text POINTER` or `x-mcp-allow-text: true` keeps a
//! text as written; `--strict` fails instead. docs/trust.md has the rules and the corpus sweep.

pub mod rules;
pub mod text;
mod walk;

use std::collections::BTreeSet;

use serde_json::Value;

use crate::diag::{DiagKind, Diagnostic};
use crate::load::Document;
pub use rules::Rule;
pub use walk::Cut;

/// What the user says about the texts of their inputs.
#[derive(Debug, Clone, Default)]
pub struct TrustOptions {
    /// JSON pointers (`#/paths/~1pets/get/description`, or `file.yaml#/...` in another file of
    /// the document) whose texts pass as written, with everything under them.
    pub allow: Vec<String>,
}

impl TrustOptions {
    fn allows(&self, place: &str) -> bool {
        self.allow.iter().any(|a| {
            let a = a.strip_prefix('#').map_or_else(|| a.clone(), |rest| format!("#{rest}"));
            let a = if a.starts_with('/') { format!("#{a}") } else { a };
            place == a || place.strip_prefix(a.as_str()).is_some_and(|rest| rest.starts_with('/'))
        })
    }
}

/// What cleaning did to an input.
#[derive(Debug, Default)]
pub struct Cleaning {
    /// A warning per passage withheld.
    pub withheld: Vec<Diagnostic>,
    /// How many texts (descriptions, summaries, titles, enum values) were read.
    pub texts: usize,
}

/// Cleans every text of `doc` (all its files) that a model will read.
pub fn clean_document(doc: &mut Document, opts: &TrustOptions) -> Cleaning {
    let known = own_names(doc.docs.ids().iter().filter_map(|id| doc.docs.get(id)));
    let is_known = |name: &str| known.contains(&name.to_ascii_lowercase());
    let mut cleaning = Cleaning::default();
    for id in doc.docs.ids() {
        let prefix = doc.docs.place(&id, "");
        let allowed = |pointer: &str| opts.allows(&format!("{prefix}{pointer}"));
        let allowed: Option<&dyn Fn(&str) -> bool> = (!opts.allow.is_empty()).then_some(&allowed);
        let mut walk = walk::Walk::new(&is_known, allowed);
        if let Some(value) = doc.docs.value_mut(&id) {
            walk.root(value);
        }
        cleaning.texts += walk.texts;
        cleaning.withheld.extend(walk.cuts.iter().map(|cut| warning(&format!("{prefix}{}", cut.pointer), cut)));
    }
    cleaning
}

/// Cleans the texts of one JSON document (a runtime config, a raw document in a sweep); pointers
/// from `#`. Names of operations and functions found in it may be named by its texts.
pub fn clean_value(value: &mut Value, opts: &TrustOptions) -> Cleaning {
    let known = own_names(std::iter::once(&*value));
    let is_known = |name: &str| known.contains(&name.to_ascii_lowercase());
    let allowed = |pointer: &str| opts.allows(pointer);
    let allowed: Option<&dyn Fn(&str) -> bool> = (!opts.allow.is_empty()).then_some(&allowed);
    let mut walk = walk::Walk::new(&is_known, allowed);
    walk.root(value);
    Cleaning { withheld: walk.cuts.iter().map(|cut| warning(&cut.pointer, cut)).collect(), texts: walk.texts }
}

/// The warning for one cut: where, the rule, what was read, and ([`KEEP`]) how to keep it.
fn warning(place: &str, cut: &Cut) -> Diagnostic {
    let (rule, passage) = (cut.withheld.rule.id(), &cut.withheld.passage);
    let message =
        format!("withheld from the model, instruction-like text ({rule}): \"{passage}\"{KEEP}{}", keep(place));
    Diagnostic::new(DiagKind::TextWithheld, place, message)
}

/// Where a warning of withheld text goes on to say how to keep it.
pub const KEEP: &str = "; if the API's authors meant it for the model, ";

/// How to keep the text at `place`.
pub fn keep(place: &str) -> String {
    format!("--allow-description-text '{place}' (or x-mcp-allow-text: true) keeps it")
}

/// The API's own operation and function names (lowercase): text may name them.
fn own_names<'a>(values: impl Iterator<Item = &'a Value>) -> BTreeSet<String> {
    fn collect(value: &Value, names: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, v) in map {
                    match v {
                        Value::String(s) if key == "operationId" || key == "name" => {
                            names.insert(s.to_ascii_lowercase());
                        }
                        _ => collect(v, names),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|v| collect(v, names)),
            _ => {}
        }
    }
    let mut names = BTreeSet::new();
    values.for_each(|value| collect(value, &mut names));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_pointers_cover_what_is_under_them() {
        let opts = TrustOptions { allow: vec!["#/paths/~1pets".into(), "/info/description".into()] };
        assert!(opts.allows("#/paths/~1pets/get/description"));
        assert!(opts.allows("#/paths/~1pets"));
        assert!(!opts.allows("#/paths/~1petsx/get/description"));
        assert!(opts.allows("#/info/description"));
    }
}
