//! The notes of an `inspect` report: each on its line, but the tools named apart from their
//! operationId, which are summed up by why (unless `--verbose`): names shortened to
//! `--max-name-len` (the ones to look at, with examples), names told apart from another by a
//! number, and names that only had characters a tool name cannot take (`meta/root` is
//! `meta_root`: for GitHub, every one of its 1,223 tools), last.

use std::fmt::Write as _;

use crate::diag::{DiagKind, Diagnostic};
use crate::tools::naming::sanitize;
use mcpgen_config::text::group_digits;

/// Renames shown as examples of each kind.
const EXAMPLES: usize = 3;

/// Why a tool is named apart from its operationId (or `x-mcp.name`, or function name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// It was longer than `--max-name-len`, and lost words.
    Shortened,
    /// Another tool has its name: it takes a number.
    Numbered,
    /// It had characters a tool name cannot take, replaced.
    Characters,
}

/// The name asked for and the tool's, from a rename's note (`` `a/b` is the tool `a_b` ``, as
/// the tools stage writes it).
fn renamed(message: &str) -> Option<(&str, &str)> {
    let (original, name) = message.rsplit_once("` is the tool `")?;
    Some((original.strip_prefix('`')?, name.strip_suffix('`')?))
}

fn why(original: &str, name: &str) -> Why {
    let clean = sanitize(original);
    let numbered = name
        .strip_prefix(clean.as_str())
        .and_then(|rest| rest.strip_prefix('_'))
        .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    if clean == name {
        Why::Characters
    } else if numbered {
        Why::Numbered
    } else {
        Why::Shortened
    }
}

/// The notes, renames summed up unless `verbose`.
pub(super) fn render(out: &mut String, notes: Vec<&Diagnostic>, verbose: bool) {
    if notes.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nNotes ({}):", group_digits(notes.len()));
    let (renames, others): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        notes.into_iter().partition(|d| d.kind == DiagKind::ToolRenamed && renamed(&d.message).is_some());
    for d in others {
        let _ = writeln!(out, "  {d}");
    }
    if verbose || renames.len() <= EXAMPLES {
        for d in renames {
            let _ = writeln!(out, "  {d}");
        }
        return;
    }
    let of = |kind: Why| -> Vec<(&str, &str)> {
        renames.iter().filter_map(|d| renamed(&d.message)).filter(|(o, n)| why(o, n) == kind).collect()
    };
    let groups = [
        (
            Why::Shortened,
            "name was longer than --max-name-len and lost",
            "names were longer than --max-name-len and lost",
        ),
        (Why::Numbered, "name was another tool's already and takes", "names were other tools' already and take"),
        (Why::Characters, "operationId had characters", "operationIds had characters"),
    ];
    let ends = |kind: Why| match kind {
        Why::Shortened => " whole words",
        Why::Numbered => " a number",
        Why::Characters => " tool names do not take (letters, digits, `_` and `-`)",
    };
    for (kind, one, many) in groups {
        let group = of(kind);
        if group.is_empty() {
            continue;
        }
        let n = group.len();
        let lead = format!("{}{}", if n == 1 { one } else { many }, ends(kind));
        let all = if n > EXAMPLES { "; --verbose lists them all" } else { "" };
        let _ = writeln!(out, "  {} {lead}{all}:", group_digits(n));
        for (original, name) in group.iter().take(if kind == Why::Characters { 1 } else { EXAMPLES }) {
            let _ = writeln!(out, "    `{original}` is `{name}`");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(original: &str, name: &str) -> Diagnostic {
        Diagnostic::new(DiagKind::ToolRenamed, "#/paths/x/get", format!("`{original}` is the tool `{name}`"))
    }

    #[test]
    fn renames_are_summed_up_by_why() {
        let notes = [
            note("meta/root", "meta_root"),
            note("repos/get", "repos_get"),
            note("a/b", "a_b"),
            note(
                "orgs/custom-properties-for-repos-create-or-update-organization-values",
                "orgs_custom-properties-for-repos-create-or-update-values",
            ),
            note("get user", "get_user_2"),
        ];
        let mut out = String::new();
        render(&mut out, notes.iter().collect(), false);
        assert_eq!(
            out,
            "\nNotes (5):\n  1 name was longer than --max-name-len and lost whole words:\n    \
             `orgs/custom-properties-for-repos-create-or-update-organization-values` is \
             `orgs_custom-properties-for-repos-create-or-update-values`\n  1 name was another tool's already and \
             takes a number:\n    `get user` is `get_user_2`\n  3 operationIds had characters tool names do not take \
             (letters, digits, `_` and `-`):\n    `meta/root` is `meta_root`\n"
        );
        let mut verbose = String::new();
        render(&mut verbose, notes.iter().collect(), true);
        assert_eq!(verbose.lines().count(), 7, "{verbose}");
    }
}
