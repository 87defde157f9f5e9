//! What the index reads of one tool: the texts of its fields, what the second look reads of it
//! ([`Profile`]), and the resources its path acts on.

use std::collections::HashMap;

use serde_json::Value;

use super::{DESCRIPTION, NAME, PARAMS, PATH, RESOURCE, SearchDoc, TAGS, TITLE, VERBS};
use crate::discovery::analyzer::Memo;
use crate::discovery::compact::first_sentence;
use crate::discovery::lexicon::verbs;
use crate::discovery::rerank::Profile;

/// What the second look reads of a document: its summary's and resource's terms (added to the
/// vocabulary as the fields are), its method and whether its path ends at a collection.
pub(super) fn profile(doc: &SearchDoc<'_>, analyzer: &mut Memo<'_>, terms: &mut HashMap<String, u32>) -> Profile {
    let mut ids = |text: &str| {
        let mut words = Vec::new();
        analyzer.terms(text, &mut words);
        let mut out: Vec<u32> = Vec::new();
        for w in words {
            let next = terms.len() as u32;
            let id = *terms.entry(w).or_insert(next);
            if !out.contains(&id) {
                out.push(id);
            }
        }
        out
    };
    let summary = match doc.title {
        Some(t) => strip_markup(t),
        None => first_sentence(&strip_markup(doc.description), 200),
    };
    let statics: Vec<&str> =
        doc.path.into_iter().flat_map(|p| p.split('/')).filter(|s| !s.is_empty() && !s.starts_with('{')).collect();
    let mut path: Vec<u32> = statics.iter().skip(1).flat_map(|s| ids(s)).collect();
    path.sort_unstable();
    path.dedup();
    let method = doc.method.map(str::to_ascii_uppercase);
    let first_word = summary.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    let reads_by_summary = READ_VERBS.contains(&first_word.as_str());
    Profile {
        writes: method.as_deref().is_some_and(|m| !matches!(m, "GET" | "HEAD")) && !reads_by_summary,
        summary: ids(&summary),
        resource: statics.last().map(|s| ids(s)).unwrap_or_default(),
        path,
        collection: doc.path.is_some_and(|p| !p.trim_end_matches('/').ends_with('}')),
        method,
    }
}

/// A summary's first word that says the tool reads, whatever its method (POST searches).
const READ_VERBS: &[&str] = &[
    "list",
    "lists",
    "get",
    "gets",
    "search",
    "searches",
    "find",
    "finds",
    "query",
    "queries",
    "retrieve",
    "retrieves",
    "fetch",
    "fetches",
    "read",
    "reads",
    "show",
    "shows",
    "lookup",
    "look",
    "count",
    "counts",
];

/// The texts of a document's fields.
pub(super) fn field_texts(doc: &SearchDoc<'_>) -> Vec<(usize, String)> {
    let mut out = vec![(NAME, doc.name.to_string())];
    if let Some(op) = doc.operation_id {
        out.push((NAME, op.to_string()));
    }
    if let Some(t) = doc.title {
        out.push((TITLE, strip_markup(t)));
    }
    out.push((DESCRIPTION, strip_markup(doc.description)));
    if let Some(p) = doc.path {
        // Path variables are parameters: indexed as such, not as what the path is about.
        let statics: Vec<&str> = p.split('/').filter(|s| !s.is_empty() && !s.starts_with('{')).collect();
        out.push((PATH, statics.join(" ")));
        if let Some(last) = statics.last() {
            out.push((RESOURCE, last.to_string()));
        }
    }
    out.push((TAGS, doc.tags.join(" ")));
    if let Some(Value::Object(props)) = doc.input_schema.get("properties") {
        for (name, schema) in props {
            out.push((PARAMS, name.clone()));
            if let Some(d) = schema.get("description").and_then(Value::as_str) {
                out.push((PARAMS, first_sentence(&strip_markup(d), 200)));
            }
            if let Some(values) = enum_words(schema) {
                out.push((PARAMS, values));
            }
        }
    }
    if let Some(m) = doc.method {
        out.push((VERBS, verbs(m).to_string()));
    }
    out
}

/// The values of a short enumeration of words (`APPROVE`, `push`): what a user asks for by name.
fn enum_words(schema: &Value) -> Option<String> {
    let values = schema.get("enum").or_else(|| schema.get("items")?.get("enum"))?.as_array()?;
    if values.len() > MAX_ENUM_WORDS {
        return None;
    }
    let words: Vec<&str> = values.iter().filter_map(Value::as_str).filter(|v| v.len() <= 30).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Longer enumerations are lists of codes (countries, currencies, event types), not choices.
const MAX_ENUM_WORDS: usize = 6;

/// The resources an API's paths act on: each static path segment, with how many paths have it.
#[derive(Default)]
pub(super) struct Resources {
    counts: HashMap<String, u32>,
}

impl Resources {
    /// Those of `other`'s paths too.
    pub(super) fn append(&mut self, other: Resources) {
        for (segment, count) in other.counts {
            *self.counts.entry(segment).or_default() += count;
        }
    }

    pub(super) fn add(&mut self, path: Option<&str>) {
        for segment in path.into_iter().flat_map(|p| p.split('/')) {
            if segment.len() > 1 && segment.chars().all(|c| c.is_ascii_alphabetic() || c == '_' || c == '-') {
                *self.counts.entry(segment.to_ascii_lowercase()).or_default() += 1;
            }
        }
    }

    /// The resource an id prefix names: one whose name starts with it (`cus`: customers), whose
    /// words' initials it is (`pi`: payment_intents), or, failing those, whose letters it keeps in
    /// order from the first (`acct`: accounts, `dp`: disputes); the most common first, then the
    /// shortest, then by name.
    pub(super) fn named_by(&self, prefix: &str) -> Option<&str> {
        let initials = |s: &str| s.split(['_', '-']).filter_map(|w| w.chars().next()).collect::<String>();
        let keeps = |s: &str| {
            let mut letters = s.chars();
            s.starts_with(&prefix[..1]) && prefix.chars().all(|c| letters.any(|l| l == c))
        };
        let rules: [&dyn Fn(&str) -> bool; 3] =
            [&|s: &str| s.starts_with(prefix), &|s: &str| s.contains(['_', '-']) && initials(s) == prefix, &keeps];
        rules.iter().find_map(|rule| {
            self.counts
                .iter()
                .filter(|(s, _)| rule(s))
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.len().cmp(&a.0.len())).then(b.0.cmp(a.0)))
                .map(|(s, _)| s.as_str())
        })
    }
}

/// Text without HTML tags (`<p>`, `<a href="...">`): their names and attributes are not content.
pub(crate) fn strip_markup(text: &str) -> String {
    if !text.contains('<') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}
