//! The Markdown report shortened to fit a pull-request comment: the summary line, a line saying
//! how to get the rest, one line per tool (the tools with breaking changes first, each with its
//! changes counted by kind; tools added or removed listed by name), then the breaking changes in
//! detail, tool by tool, as far as they fit. Whatever does not fit is counted, never cut mid-line.

use std::collections::BTreeMap;

use mcpgen_config::text::group_digits;

use super::{Change, Diff, Kind, code, header, line, plural};

/// Room kept for the lines that count what was left out (each under 100 characters).
const RESERVE: usize = 400;

/// Tools added or removed named on their line, at most.
const NAMED: usize = 30;

/// One tool's changes.
struct ToolChanges<'a> {
    tool: &'a str,
    old_tool: Option<&'a str>,
    changes: Vec<&'a Change>,
}

impl ToolChanges<'_> {
    fn breaking(&self) -> impl Iterator<Item = &&Change> {
        self.changes.iter().filter(|c| c.breaking)
    }

    /// Only this change: the tool was added (or removed).
    fn only(&self, kind: Kind) -> bool {
        matches!(self.changes.as_slice(), [c] if c.kind == kind)
    }

    fn name(&self) -> String {
        match self.old_tool {
            Some(old) => format!("{} (was {})", code(self.tool), code(old)),
            None => code(self.tool),
        }
    }

    /// `40 enum narrowed, 13 required argument added`: the changes of one side, by kind, the
    /// most frequent first.
    fn kinds(&self, breaking: bool) -> String {
        let mut by: BTreeMap<Kind, usize> = BTreeMap::new();
        for c in self.changes.iter().filter(|c| c.breaking == breaking) {
            *by.entry(c.kind).or_default() += 1;
        }
        let mut counted: Vec<(Kind, usize)> = by.into_iter().collect();
        counted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        counted.iter().map(|(k, n)| format!("{n} {}", k.words())).collect::<Vec<_>>().join(", ")
    }

    /// The tool's line in the summary.
    fn summary(&self) -> String {
        let breaking = self.breaking().count();
        let others = self.changes.len() - breaking;
        if breaking == 0 {
            return format!("- {}: {}\n", self.name(), self.kinds(false));
        }
        let also = if others > 0 { format!("; and {}", plural(others, "other change")) } else { String::new() };
        format!("- {}: {}{also}\n", self.name(), self.kinds(true))
    }

    /// The tool's breaking changes in full, as the whole report has them.
    fn detail(&self) -> String {
        let was = self.old_tool.map(|old| format!(" (was {})", code(old))).unwrap_or_default();
        let mut out = format!("\n#### {}{was}\n\n", code(self.tool));
        for c in self.breaking() {
            out.push_str(&line(c));
        }
        out
    }
}

/// The changes grouped by tool, in the diff's order (by name).
fn by_tool(diff: &Diff) -> Vec<ToolChanges<'_>> {
    let mut out: Vec<ToolChanges<'_>> = Vec::new();
    for c in &diff.changes {
        match out.last_mut() {
            Some(t) if t.tool == c.tool => t.changes.push(c),
            _ => out.push(ToolChanges { tool: &c.tool, old_tool: c.old_tool.as_deref(), changes: vec![c] }),
        }
    }
    out
}

/// Text that grows only while it stays within a limit (in characters, as GitHub counts them).
struct Within {
    text: String,
    chars: usize,
    limit: usize,
}

impl Within {
    fn push(&mut self, s: &str) {
        self.chars += s.chars().count();
        self.text.push_str(s);
    }

    /// Appends `s` when it fits with [`RESERVE`] to spare.
    fn try_push(&mut self, s: &str) -> bool {
        let n = s.chars().count();
        let fits = self.chars + n + RESERVE <= self.limit;
        if fits {
            self.chars += n;
            self.text.push_str(s);
        }
        fits
    }

    /// Appends `lines` while they fit, then a line counting those left out.
    fn lines(&mut self, lines: &[String], what: &str) {
        let shown = lines.iter().take_while(|l| self.try_push(l)).count();
        if shown < lines.len() {
            self.push(&format!("- … and {} more {what} (`--full` lists them)\n", group_digits(lines.len() - shown)));
        }
    }
}

/// `- 467 tools added: `a`, `b`, … and 437 more`: the tools whose only change is `kind`.
fn named(tools: &[&ToolChanges<'_>], what: &str) -> Option<String> {
    if tools.is_empty() {
        return None;
    }
    let names: Vec<String> = tools.iter().take(NAMED).map(|t| code(t.tool)).collect();
    let more =
        if tools.len() > NAMED { format!(" and {} more", group_digits(tools.len() - NAMED)) } else { String::new() };
    Some(format!("- {} {what}: {}{more}\n", group_digits(tools.len()), names.join(", ")))
}

/// The report within `limit` characters (see the module's doc).
pub(crate) fn markdown(diff: &Diff, old: &str, new: &str, limit: usize) -> String {
    let tools = by_tool(diff);
    let mut out = Within { text: String::new(), chars: 0, limit };
    out.push(&header(diff, old, new));
    let total = plural(diff.changes.len(), "change");
    out.push(&format!(
        "\n> Shortened to fit a pull-request comment ({} characters): one line per tool, then the breaking changes \
         in detail as far as they fit. Run the same command with `--full` for all {total} (`-o FILE` writes them \
         to a file), or with `--json` for programs.\n",
        group_digits(limit)
    ));
    let (breaking, other): (Vec<&ToolChanges<'_>>, Vec<&ToolChanges<'_>>) =
        tools.iter().partition(|t| t.breaking().next().is_some());
    let section = |out: &mut Within, title: &str, group: &[&ToolChanges<'_>], only: Kind, what: &str| {
        if group.is_empty() {
            return;
        }
        out.push(&format!("\n### {title}\n\n"));
        let (just, rest): (Vec<&ToolChanges<'_>>, Vec<&ToolChanges<'_>>) = group.iter().partition(|t| t.only(only));
        let mut lines: Vec<String> = named(&just, what).into_iter().collect();
        lines.extend(rest.iter().map(|t| t.summary()));
        out.lines(&lines, "tools");
    };
    section(&mut out, "Breaking changes", &breaking, Kind::ToolRemoved, "tools removed");
    section(&mut out, "Other changes", &other, Kind::ToolAdded, "tools added");
    let detailed: Vec<&&ToolChanges<'_>> = breaking.iter().filter(|t| !t.only(Kind::ToolRemoved)).collect();
    if !detailed.is_empty() && out.try_push("\n### Breaking changes in detail\n") {
        let shown = detailed.iter().take_while(|t| out.try_push(&t.detail())).count();
        if shown < detailed.len() {
            let left = plural(detailed.len() - shown, "more tool");
            out.push(&format!("\n… and the breaking changes of {left} (`--full` shows them)\n"));
        }
    }
    out.text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::Change;

    fn change(tool: &str, kind: Kind, breaking: bool) -> Change {
        Change {
            tool: tool.into(),
            old_tool: None,
            kind,
            pointer: format!("/inputSchema/properties/{}", "x".repeat(60)),
            breaking,
            old: None,
            new: None,
            explanation: "why".into(),
        }
    }

    /// 300 tools with 20 changes each, 3 of them breaking, and 50 tools added.
    fn big() -> Diff {
        let mut changes = Vec::new();
        for t in 0..300 {
            let tool = format!("tool_{t:03}");
            for i in 0..20 {
                let kind = if i < 3 { Kind::EnumNarrowed } else { Kind::OptionalArgumentAdded };
                changes.push(change(&tool, kind, i < 3));
            }
        }
        for t in 0..50 {
            changes.push(change(&format!("zz_new_{t:02}"), Kind::ToolAdded, false));
        }
        Diff { old_tools: 300, new_tools: 350, changes }
    }

    #[test]
    fn a_big_diff_fits_with_a_line_per_tool_and_says_how_to_get_the_rest() {
        let diff = big();
        let full = super::super::markdown(&diff, "old.yaml", "new.yaml");
        assert!(full.chars().count() > 65_536, "the whole report is over the limit: {}", full.len());
        let text = markdown(&diff, "old.yaml", "new.yaml", 65_536);
        assert!(text.chars().count() <= 65_536, "{}", text.chars().count());
        assert!(
            text.starts_with("**mcpgen diff** `old.yaml` -> `new.yaml`: 900 breaking changes, 5150 other"),
            "{text}"
        );
        assert!(text.contains("with `--full` for all 6050 changes"), "{text}");
        assert!(text.contains("\n- `tool_000`: 3 enum narrowed; and 17 other changes\n"), "{text}");
        assert!(text.contains("\n- `tool_299`: 3 enum narrowed; and 17 other changes\n"), "every tool has its line");
        assert!(text.contains("\n- 50 tools added: `zz_new_00`, `zz_new_01`,"), "{text}");
        assert!(text.contains(" and 20 more\n"), "{text}");
        // Breaking changes first, then the others, then the breaking ones in detail.
        let at = |s: &str| text.find(s).unwrap_or(usize::MAX);
        assert!(
            at("### Breaking changes\n") < at("### Other changes")
                && at("### Other changes") < at("### Breaking changes in detail")
        );
        assert!(text.contains("\n#### `tool_000`\n\n- enum narrowed at "), "{text}");
        assert!(text.contains("(`--full` shows them)"), "what did not fit is counted");
    }

    #[test]
    fn a_limit_too_small_for_a_line_per_tool_counts_the_tools_left_out() {
        let text = markdown(&big(), "old.yaml", "new.yaml", 5_000);
        assert!(text.chars().count() <= 5_000, "{}", text.chars().count());
        assert!(text.contains("more tools (`--full` lists them)\n"), "{text}");
    }
}
