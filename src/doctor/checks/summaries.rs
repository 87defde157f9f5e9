//! What an agent chooses a tool by: its summary (the tool's title) and its description.
//!
//! - `undescribed-operation`: an operation with neither a summary nor a description (`x-mcp`'s
//!   title and description count), a function or a config's tool without a description.
//! - `missing-summary`: an operation with a description but no summary (operations only: tool
//!   lists and configs have no summaries to ask for).
//! - `duplicate-summary`: one summary (ignoring case, spacing and a final `.`) on several
//!   operations; each gets a finding.
//! - `generic-summary`: a summary of one word (`Get`, `listPets`), of generic words only
//!   ([`GENERIC_WORDS`], none of them a word of the path: `Update item`, `Get all`), or of the
//!   method and path's words only
//!   (`GET /pets`, `get pets` for `GET /pets`; a few small words such as `by` aside).

use std::collections::{BTreeMap, BTreeSet};

mod suggest;

use super::{some_of, words};
use crate::doctor::rules::{DUPLICATE_SUMMARY, GENERIC_SUMMARY, MISSING_SUMMARY, UNDESCRIBED_OPERATION};
use crate::doctor::{Context, Finding, Origin, Subject};

/// Words that name no resource and no purpose: a summary of these alone says nothing.
const GENERIC_WORDS: &[&str] = &[
    "get",
    "list",
    "create",
    "update",
    "delete",
    "remove",
    "add",
    "retrieve",
    "fetch",
    "read",
    "find",
    "search",
    "query",
    "set",
    "put",
    "post",
    "patch",
    "modify",
    "edit",
    "replace",
    "new",
    "all",
    "one",
    "single",
    "many",
    "item",
    "items",
    "resource",
    "resources",
    "object",
    "objects",
    "entity",
    "entities",
    "record",
    "records",
    "data",
    "info",
    "information",
    "detail",
    "details",
    "endpoint",
    "operation",
    "api",
    "method",
    "call",
    "request",
    "response",
    "by",
    "id",
    "a",
    "an",
    "the",
    "of",
    "for",
    "to",
    "from",
    "with",
    "this",
    "it",
];

/// Small words left out when comparing a summary with its route.
const SMALL_WORDS: &[&str] = &["a", "an", "the", "by", "of", "for", "to", "with", "in", "on", "all"];

pub(crate) fn check(ctx: &Context<'_>) -> Vec<Finding> {
    let mut out: Vec<Finding> = ctx.subjects.iter().filter_map(described).collect();
    out.extend(ctx.subjects.iter().filter_map(|s| generic(s, summary(s)?)));
    out.extend(duplicates(&ctx.subjects));
    out
}

/// The summary the agent sees as the tool's title: an operation's `x-mcp` title or summary, a
/// function's or a tool's title.
fn summary<'a>(s: &Subject<'a>) -> Option<&'a str> {
    let text = match s.origin {
        Origin::Operation(op) => match &op.function {
            Some(f) => f.title.as_deref(),
            None => op.mcp.title.as_deref().or(op.summary.as_deref()),
        },
        Origin::Function(f) => f.title.as_deref(),
        Origin::Tool => s.tool.title.as_deref(),
    };
    text.map(str::trim).filter(|t| !t.is_empty())
}

/// `undescribed-operation` or `missing-summary`.
fn described(s: &Subject<'_>) -> Option<Finding> {
    let blank = |t: Option<&String>| t.is_none_or(|t| t.trim().is_empty());
    let (undescribed, pointer) = match s.origin {
        Origin::Operation(op) => match &op.function {
            Some(f) => (blank(f.description.as_ref()) && blank(op.mcp.description.as_ref()), s.pointer.clone()),
            None => {
                let no_description = blank(op.description.as_ref()) && blank(op.mcp.description.as_ref());
                if summary(s).is_none() && !no_description {
                    let example = suggest::summary(s.tool).map(|e| format!(" (\"{e}\")")).unwrap_or_default();
                    return Some(
                        Finding::new(
                            &MISSING_SUMMARY,
                            &s.pointer,
                            format!("{} has a description but no summary: its tool has no title", s.label()),
                            format!("add a `summary` of a few words that says what it does{example}"),
                        )
                        .about(&s.pointer),
                    );
                }
                (summary(s).is_none() && no_description, s.pointer.clone())
            }
        },
        Origin::Function(f) => (blank(f.description.as_ref()), s.pointer.clone()),
        Origin::Tool => (s.tool.description.trim().is_empty(), format!("{}/description", s.pointer)),
    };
    let what = match s.origin {
        Origin::Operation(op) if op.function.is_none() => "neither a summary nor a description",
        _ => "no description",
    };
    undescribed.then(|| {
        Finding::new(
            &UNDESCRIBED_OPERATION,
            pointer,
            format!("{} has {what}: the agent sees only the tool name `{}`", s.label(), s.tool.name),
            "add a summary (what it does, in a few words) and a description (when to use it, what it returns)",
        )
        .about(&s.pointer)
    })
}

/// `generic-summary`, when `summary` is one.
fn generic(s: &Subject<'_>, summary: &str) -> Option<Finding> {
    let words = words(summary);
    let why = if !summary.contains(char::is_whitespace) {
        "is a single word: it does not say what the operation does to what"
    } else if words.iter().all(|w| GENERIC_WORDS.contains(&w.as_str()) && !route_words(s).contains(w)) {
        "is generic: it names no resource and no purpose"
    } else if restates_route(s, &words) {
        "only restates the method and path"
    } else {
        return None;
    };
    let fix = match suggest::summary(s.tool) {
        Some(example) => {
            format!("say what it does to what, and what sets it apart (which ones, for whom): \"{example}\"")
        }
        None => "say what it does to what, and what sets it apart from the other tools".to_string(),
    };
    Some(
        Finding::new(&GENERIC_SUMMARY, &s.pointer, format!("the summary \"{summary}\" of {} {why}", s.label()), fix)
            .about(&s.pointer),
    )
}

/// The words of the tool's method and path (none without an HTTP binding).
fn route_words(s: &Subject<'_>) -> BTreeSet<String> {
    let Some(http) = &s.tool.http else { return BTreeSet::new() };
    super::words(&format!("{} {}", http.method.as_upper(), http.path)).into_iter().collect()
}

/// Whether `words` (a summary's) are the words of the tool's method and path, small words aside.
fn restates_route(s: &Subject<'_>, words: &[String]) -> bool {
    let said: BTreeSet<String> = words.iter().filter(|w| !SMALL_WORDS.contains(&w.as_str())).cloned().collect();
    !said.is_empty() && said == route_words(s)
}

/// `duplicate-summary`: one finding for each operation whose summary another has too.
fn duplicates(subjects: &[Subject<'_>]) -> Vec<Finding> {
    let mut by_summary: BTreeMap<String, Vec<&Subject<'_>>> = BTreeMap::new();
    for s in subjects {
        if let Some(text) = summary(s) {
            let key = text.trim_end_matches('.').split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase();
            by_summary.entry(key).or_default().push(s);
        }
    }
    let mut out = Vec::new();
    for group in by_summary.values().filter(|g| g.len() > 1) {
        for s in group {
            let others: Vec<String> = group.iter().filter(|o| o.pointer != s.pointer).map(|o| o.label()).collect();
            let text = summary(s).unwrap_or_default();
            out.push(
                Finding::new(
                    &DUPLICATE_SUMMARY,
                    &s.pointer,
                    format!(
                        "{} has the summary \"{text}\", as {} {}",
                        s.label(),
                        some_of(&others, 3),
                        if others.len() == 1 { "does" } else { "do" }
                    ),
                    "make each summary say what sets its operation apart (its resource, its filter, its effect)",
                )
                .about(&s.pointer)
                .spanning(group.len()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests;
