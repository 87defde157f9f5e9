//! What an agent fills a tool's arguments by: their descriptions, and what their values mean.
//!
//! The arguments are an operation's parameters that become the tool's arguments (not fixed
//! headers such as `Accept`; request body fields are not checked: their pointers are not
//! kept), a function's properties, a config tool's input schema's properties.
//!
//! - `undocumented-required-parameter`, `undocumented-optional-parameter`: no description (on
//!   the parameter or its schema). The fix asks where the agent gets a value only for a value
//!   that refers to something ([`fix`]): not for a flag, one of listed values, a count or a date,
//!   which the agent chooses.
//! - `undocumented-well-known-parameter` (whether required or not): no description, but a name
//!   that says most of it ([`WELL_KNOWN`], or a path parameter named after a resource of the
//!   path, with `id` or without: `petId` in `/pets/{petId}`, `charge` in `/charges/{charge}`).
//! - `undocumented-enum`: an enum (or an array of one) of two values or more of which half or more
//!   are coded ([`coded`]: numbers, digits, one or two characters; GitHub's reactions, `+1`, `-1`,
//!   `laugh`, `heart`..., are words with a few codes), when no description mentions any
//!   of its values (as a word). Extensions such as `x-enumDescriptions` do not count: tool schemas
//!   have no `x-` keywords, so agents never see them. Words such as `asc`/`desc` or
//!   `available`/`sold` explain themselves.

use std::collections::HashMap;

use serde_json::Value;

use crate::doctor::rules::{
    UNDOCUMENTED_ENUM, UNDOCUMENTED_OPTIONAL_PARAMETER, UNDOCUMENTED_REQUIRED_PARAMETER,
    UNDOCUMENTED_WELL_KNOWN_PARAMETER,
};
use crate::doctor::{Argument, Context, Finding, Subject};

/// Names that say what they hold (lower case, without `_`, `-`, `$`, `.`, `[`, `]`).
const WELL_KNOWN: &[&str] = &[
    "id",
    "page",
    "pagenumber",
    "perpage",
    "pagesize",
    "limit",
    "offset",
    "cursor",
    "after",
    "before",
    "startingafter",
    "endingbefore",
    "pagetoken",
    "nexttoken",
    "sort",
    "sortby",
    "order",
    "orderby",
    "direction",
    "q",
    "query",
    "search",
    "fields",
    "expand",
    "include",
    "format",
    "lang",
    "language",
    "locale",
    "since",
    "until",
    "top",
    "skip",
    "count",
];

/// Two-character values that are words.
const SHORT_WORDS: &[&str] = &["on", "no", "ok", "id", "up", "eq", "ne", "gt", "lt", "ge", "le", "in", "or"];

pub(crate) fn check(ctx: &Context<'_>) -> Vec<Finding> {
    let mut found = Vec::new();
    for s in &ctx.subjects {
        let path = s.tool.http.as_ref().map(|h| h.path.as_str()).unwrap_or_default();
        for arg in ctx.arguments(s) {
            found.extend(undocumented(s, &arg, path));
            found.extend(undocumented_enum(s, &arg));
        }
    }
    once_per_place(found)
}

/// One finding for a parameter a path item declares for several operations: the first
/// operation's, concerning them all.
fn once_per_place(found: Vec<Finding>) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::with_capacity(found.len());
    let mut at: HashMap<(String, &'static str), usize> = HashMap::new();
    for f in found {
        match at.get(&(f.pointer.clone(), f.rule)) {
            Some(&i) => out[i].absorb(f),
            None => {
                at.insert((f.pointer.clone(), f.rule), out.len());
                out.push(f);
            }
        }
    }
    for f in out.iter_mut().filter(|f| f.operations > 1) {
        f.message.push_str(&format!(" (declared once for {} operations)", f.operations));
    }
    out
}

fn undocumented(s: &Subject<'_>, arg: &Argument<'_>, path: &str) -> Option<Finding> {
    if arg.description.is_some() {
        return None;
    }
    let (rule, kind) = if well_known(arg, path) {
        (&UNDOCUMENTED_WELL_KNOWN_PARAMETER, if arg.required { "required parameter" } else { "parameter" })
    } else if arg.required {
        (&UNDOCUMENTED_REQUIRED_PARAMETER, "required parameter")
    } else {
        (&UNDOCUMENTED_OPTIONAL_PARAMETER, "optional parameter")
    };
    Some(
        Finding::new(
            rule,
            &arg.pointer,
            format!("{kind} `{}` of {} has no description", arg.name, s.label()),
            fix(arg),
        )
        .about(&s.pointer),
    )
}

/// What to describe of an undocumented argument, by what its value is: where the agent gets a
/// value only for a reference to something (a path parameter, an id, a key, a plain string of an
/// unknown kind), never for what the agent simply chooses (a flag, one of listed values, a
/// number, a date).
fn fix(arg: &Argument<'_>) -> &'static str {
    let schema = arg.schema;
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).filter(|t| *t != "null").collect(),
        _ => Vec::new(),
    };
    let is = |t: &str| types == [t];
    let format = schema.get("format").and_then(Value::as_str).unwrap_or_default();
    if is("boolean") {
        "describe what it turns on, and what leaving it out means"
    } else if enum_values(schema).is_some() || schema.get("const").is_some() {
        "describe what it selects, and what each value means"
    } else if (is("integer") || is("number")) && !arg.in_path && !names_a_thing(arg.name) {
        "describe what it counts or measures: its unit, its range and its default"
    } else if matches!(format, "date" | "date-time" | "time" | "duration") {
        "describe which date or time it is, and its format"
    } else {
        "describe what it holds, its format, and where the agent gets a value (which tool returns it)"
    }
}

/// Whether a name says it refers to a thing (`id`, `userId`, `issue_number`, `api_key`, `slug`):
/// a value the agent gets from elsewhere.
fn names_a_thing(name: &str) -> bool {
    let words = super::words(name);
    words
        .last()
        .is_some_and(|w| matches!(w.as_str(), "id" | "ids" | "number" | "key" | "slug" | "uuid" | "gid" | "sha"))
}

/// Whether the argument's name says what it holds (see the module's doc).
fn well_known(arg: &Argument<'_>, path: &str) -> bool {
    let name: String =
        arg.name.chars().filter(|c| !matches!(c, '_' | '-' | '$' | '.' | '[' | ']')).collect::<String>().to_lowercase();
    if WELL_KNOWN.contains(&name.as_str()) {
        return true;
    }
    let stem = name.strip_suffix("id").unwrap_or(&name);
    if stem.is_empty() || !arg.in_path {
        return false;
    }
    path.split('/').filter(|seg| !seg.starts_with('{')).any(|seg| {
        let seg: String = seg.chars().filter(|c| c.is_alphanumeric()).collect::<String>().to_lowercase();
        !seg.is_empty() && (seg.starts_with(stem) || stem.starts_with(seg.trim_end_matches('s')))
    })
}

fn undocumented_enum(s: &Subject<'_>, arg: &Argument<'_>) -> Option<Finding> {
    let values = enum_values(arg.schema)?;
    if values.len() < 2 || values.iter().filter(|v| coded(v, values)).count() * 2 < values.len() {
        return None;
    }
    let texts: Vec<&str> =
        [arg.description, arg.schema.get("description").and_then(Value::as_str)].into_iter().flatten().collect();
    if values.iter().any(|v| texts.iter().any(|t| mentions(t, &value_text(v)))) {
        return None;
    }
    let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    Some(
        Finding::new(
            &UNDOCUMENTED_ENUM,
            &arg.pointer,
            format!(
                "`{}` of {} takes {}, and nothing says what they mean",
                arg.name,
                s.label(),
                super::some_of(&shown, 5)
            ),
            "say what each value means in the description (\"1: active, 2: suspended\"; agents are not shown \
             `x-` extensions), or use values that say it",
        )
        .about(&s.pointer),
    )
}

/// The values of the schema's `enum`, or of its items' for an array.
fn enum_values(schema: &Value) -> Option<&Vec<Value>> {
    schema.get("enum").or_else(|| schema.get("items")?.get("enum"))?.as_array()
}

/// Whether `v` (one of `all`) is a code rather than a word: a number, digits, one character, or
/// two that are not a short word (unless five or more two-letter values of one case: country or
/// language codes).
fn coded(v: &Value, all: &[Value]) -> bool {
    let s = match v {
        Value::Number(_) => return true,
        Value::String(s) => s.trim(),
        _ => return false,
    };
    if s.is_empty() || s.chars().all(|c| c.is_ascii_digit() || matches!(c, '-' | '.')) {
        return !s.is_empty();
    }
    match s.chars().count() {
        1 => true,
        2 => !SHORT_WORDS.contains(&s.to_lowercase().as_str()) && !country_or_language_codes(all),
        _ => false,
    }
}

fn country_or_language_codes(all: &[Value]) -> bool {
    let two = |f: fn(&char) -> bool| {
        all.iter().all(|v| v.as_str().is_some_and(|s| s.chars().count() == 2 && s.chars().all(|c| f(&c))))
    };
    all.len() >= 5 && (two(char::is_ascii_lowercase) || two(char::is_ascii_uppercase))
}

fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether `text` has `word` as a word of its own (not inside a longer one), ignoring case.
fn mentions(text: &str, word: &str) -> bool {
    let (text, word) = (text.to_lowercase(), word.to_lowercase());
    if word.is_empty() {
        return false;
    }
    let is_word_char = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(&word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

#[cfg(test)]
mod tests;
