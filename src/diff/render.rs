//! A [`Diff`] for people (Markdown, to paste into a pull request: whole, or shortened by [`brief`]
//! to fit a comment) and for programs (JSON, a stable document: `{"breaking": N, "other": M,
//! "old", "new", "tools", "changes": [...]}`).

mod brief;

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::{Change, Diff, Kind};

/// How many tools each version has, and how many were added, removed, renamed.
#[derive(Debug, Serialize)]
struct ToolCounts {
    old: usize,
    new: usize,
    added: usize,
    removed: usize,
    renamed: usize,
}

fn counts(diff: &Diff) -> ToolCounts {
    let count = |kind: Kind| diff.changes.iter().filter(|c| c.kind == kind).count();
    ToolCounts {
        old: diff.old_tools,
        new: diff.new_tools,
        added: count(Kind::ToolAdded),
        removed: count(Kind::ToolRemoved),
        renamed: count(Kind::ToolRenamed),
    }
}

/// The JSON document.
#[derive(Serialize)]
struct Document<'a> {
    breaking: usize,
    other: usize,
    old: &'a str,
    new: &'a str,
    tools: ToolCounts,
    changes: &'a [Change],
}

/// The diff as pretty JSON, with a final newline.
pub(crate) fn json(diff: &Diff, old: &str, new: &str) -> Result<String, serde_json::Error> {
    let breaking = diff.breaking();
    let doc = Document {
        breaking,
        other: diff.changes.len() - breaking,
        old,
        new,
        tools: counts(diff),
        changes: &diff.changes,
    };
    let mut text = serde_json::to_string_pretty(&doc)?;
    text.push('\n');
    Ok(text)
}

/// `n thing` or `n things`.
fn plural(n: usize, thing: &str) -> String {
    if n == 1 { format!("{n} {thing}") } else { format!("{n} {thing}s") }
}

/// Text as inline code, fenced so that backticks inside stay text.
fn code(text: &str) -> String {
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

/// What a pull-request comment holds, in characters (GitHub's limit).
pub(crate) const COMMENT_LIMIT: usize = 65_536;

/// The summary line: the inputs, the changes counted, the tools.
fn header(diff: &Diff, old: &str, new: &str) -> String {
    let breaking = diff.breaking();
    let other = diff.changes.len() - breaking;
    let n = counts(diff);
    format!(
        "**mcpgen diff** {} -> {}: {}, {} (tools: {} -> {}; {} added, {} removed, {} renamed)\n",
        code(old),
        code(new),
        plural(breaking, "breaking change"),
        plural(other, "other change"),
        n.old,
        n.new,
        n.added,
        n.removed,
        n.renamed,
    )
}

/// The diff as Markdown within `limit` characters: whole when it fits, else shortened
/// ([`brief`]: a line per tool, the breaking changes in detail as far as they fit, and how to get
/// the rest).
pub(crate) fn markdown_within(diff: &Diff, old: &str, new: &str, limit: usize) -> String {
    let whole = markdown(diff, old, new);
    if whole.chars().count() <= limit { whole } else { brief::markdown(diff, old, new, limit) }
}

/// The diff as Markdown: a summary line, then the breaking changes and the others, by tool.
pub(crate) fn markdown(diff: &Diff, old: &str, new: &str) -> String {
    let mut out = header(diff, old, new);
    if diff.changes.is_empty() {
        out.push_str("\nNo change to the tools an agent sees.\n");
        return out;
    }
    section(&mut out, "Breaking changes", diff.changes.iter().filter(|c| c.breaking));
    section(&mut out, "Other changes", diff.changes.iter().filter(|c| !c.breaking));
    out
}

/// One section: a heading per tool, a line per change.
fn section<'a>(out: &mut String, title: &str, changes: impl Iterator<Item = &'a Change>) {
    let mut current: Option<&str> = None;
    for c in changes {
        if current.is_none() {
            let _ = write!(out, "\n### {title}\n");
        }
        if current != Some(c.tool.as_str()) {
            current = Some(&c.tool);
            let was = match &c.old_tool {
                Some(old) => format!(" (was {})", code(old)),
                None => String::new(),
            };
            let _ = write!(out, "\n#### {}{was}\n\n", code(&c.tool));
        }
        out.push_str(&line(c));
    }
}

/// One change: `- kind at pointer: explanation (old -> new)`.
fn line(c: &Change) -> String {
    let at = if c.pointer.is_empty() { String::new() } else { format!(" at {}", code(&c.pointer)) };
    let shown = |v: &Option<Value>| v.as_ref().map(|v| code(&v.to_string()));
    let values = match (shown(&c.old), shown(&c.new)) {
        _ if matches!(c.kind, Kind::ToolRenamed) => String::new(),
        (Some(o), Some(n)) => format!(" ({o} -> {n})"),
        (Some(o), None) => format!(" (was {o})"),
        (None, Some(n)) => format!(" (now {n})"),
        (None, None) => String::new(),
    };
    format!("- {}{at}: {}{values}\n", c.kind.words(), c.explanation)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(tool: &str, kind: Kind, breaking: bool) -> Change {
        Change {
            tool: tool.into(),
            old_tool: None,
            kind,
            pointer: "/inputSchema/properties/a/type".into(),
            breaking,
            old: Some("string".into()),
            new: None,
            explanation: "why".into(),
        }
    }

    #[test]
    fn markdown_has_a_summary_then_sections_by_tool() {
        let diff = Diff {
            old_tools: 2,
            new_tools: 2,
            changes: vec![
                change("a", Kind::TypeNarrowed, true),
                change("a", Kind::TypeWidened, false),
                change("b", Kind::TypeChanged, true),
            ],
        };
        let text = markdown(&diff, "old.yaml", "new.yaml");
        let expected = "**mcpgen diff** `old.yaml` -> `new.yaml`: 2 breaking changes, 1 other change (tools: 2 -> 2; \
                        0 added, 0 removed, 0 renamed)\n\n### Breaking changes\n\n#### `a`\n\n- type narrowed at \
                        `/inputSchema/properties/a/type`: why (was `\"string\"`)\n\n#### `b`\n\n- type changed at \
                        `/inputSchema/properties/a/type`: why (was `\"string\"`)\n\n### Other changes\n\n#### `a`\n\n- \
                        type widened at `/inputSchema/properties/a/type`: why (was `\"string\"`)\n";
        assert_eq!(text, expected);
    }

    #[test]
    fn no_changes_say_so() {
        let diff = Diff { old_tools: 1, new_tools: 1, changes: vec![] };
        assert!(markdown(&diff, "a", "b").ends_with("\nNo change to the tools an agent sees.\n"));
    }

    #[test]
    fn backticks_stay_inside_code() {
        assert_eq!(code("a`b"), "`` a`b ``");
    }
}
