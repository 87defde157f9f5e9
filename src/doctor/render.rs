//! The report as text for people and as JSON for programs.
//!
//! Text, for each API: its title, version, source and kind; its score and counts by severity;
//! its findings by rule (severity, rule, count, why the rule matters; errors first, then the
//! most found); then the findings, one a line
//! (`severity rule pointer: message — fix`) in the report's order, grouped by rule (the groups
//! in the order of their first finding), at most [`SHOWN_PER_RULE`] of each unless all are
//! asked for. JSON has every finding.

use std::fmt::Write as _;

use super::{ApiReport, Finding, RULES, Report, Rule};
use mcpgen_config::text::group_digits;

/// Findings of one rule the text report shows, unless asked for all.
pub(crate) const SHOWN_PER_RULE: usize = 5;

pub(super) fn text(report: &Report, all: bool) -> String {
    let mut out = String::new();
    for (i, api) in report.apis.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        api_text(&mut out, api, all);
    }
    out
}

fn api_text(out: &mut String, api: &ApiReport, all: bool) {
    let _ = writeln!(out, "{}", one_line(&format!("{} {} ({}, {})", api.title, api.version, api.source, api.dialect)));
    let c = &api.counts;
    let _ = writeln!(
        out,
        "score {}/100: {} tools; {} errors, {} warnings, {} info",
        api.score,
        group_digits(api.tools),
        group_digits(c.error),
        group_digits(c.warning),
        group_digits(c.info)
    );
    if api.findings.is_empty() {
        let _ = writeln!(out, "no findings");
        return;
    }
    let _ = writeln!(out, "\nBy rule:");
    let width = api.rules.keys().map(|r| r.len()).max().unwrap_or(0);
    let mut rules: Vec<(&Rule, usize)> =
        RULES.iter().filter_map(|r| Some((*r, api.rules.get(r.id).copied()?))).collect();
    rules.sort_by(|(a, m), (b, n)| b.severity.cmp(&a.severity).then(n.cmp(m)).then(a.id.cmp(b.id)));
    for (rule, count) in rules {
        let severity = rule.severity.as_str();
        let _ = writeln!(out, "  {severity:<7} {:<width$} {:>6}  {}", rule.id, group_digits(count), rule.why);
    }
    let _ = writeln!(out, "\nFindings:");
    for group in groups(&api.findings) {
        let shown = if all { group.len() } else { SHOWN_PER_RULE.min(group.len()) };
        for f in &group[..shown] {
            let _ = writeln!(out, "{}", line(f));
        }
        if shown < group.len() {
            let more = group_digits(group.len() - shown);
            let _ = writeln!(out, "  ... and {more} more {} (--verbose or --json lists them all)", group[0].rule);
        }
    }
}

/// `severity rule pointer: message — fix`, on one line whatever the document's texts hold.
pub(crate) fn line(f: &Finding) -> String {
    let (pointer, message, fix) = (one_line(&f.pointer), one_line(&f.message), one_line(&f.fix));
    format!("{} {} {pointer}: {message} — {fix}", f.severity.as_str(), f.rule)
}

/// `text` with line breaks, tabs and other control characters as spaces.
fn one_line(text: &str) -> String {
    text.chars().map(|c| if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') { ' ' } else { c }).collect()
}

/// The findings by rule, each group in the findings' order, the groups in the order of their
/// first finding.
fn groups(findings: &[Finding]) -> Vec<Vec<&Finding>> {
    let mut groups: Vec<Vec<&Finding>> = Vec::new();
    for f in findings {
        match groups.iter_mut().find(|g| g[0].rule == f.rule) {
            Some(group) => group.push(f),
            None => groups.push(vec![f]),
        }
    }
    groups
}

pub(super) fn json(report: &Report) -> String {
    let mut text = serde_json::to_string_pretty(report).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use crate::doctor::Report;
    use crate::doctor::tests::{api, report_of};

    #[test]
    fn each_finding_is_one_line() {
        let op = |path: &str| {
            format!(
                "  {path}:\n    get:\n      summary: \"List the pets\\nfor\\tadoption\"\n      responses: {{\"204\": {{description: none}}}}\n"
            )
        };
        let report = Report::new(vec![report_of(&api(&[op("/cats"), op("/dogs")].concat(), ""))]);
        let text = report.text(true);
        let findings: Vec<&str> = text.lines().skip_while(|l| *l != "Findings:").skip(1).collect();
        assert_eq!(findings.len(), 2, "{text}");
        assert!(findings.iter().all(|l| l.starts_with("warning duplicate-summary #/paths/")), "{text}");
        assert!(findings[0].contains("\"List the pets for adoption\""), "{text}");
    }
}
