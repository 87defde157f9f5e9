//! `mcpgen doctor`: how well an API description serves an AI agent. Each check reads one API (its
//! IR and tools, or a runtime config's tools alone) and returns [`Finding`]s: a rule, a severity,
//! a JSON pointer into the source document, a message and a fix. The findings give the API a
//! score; docs/doctor.md lists every rule and the formula.
//!
//! - **Checks**: [`CHECKS`], one function per group of rules (`checks/`), each
//!   `fn(&Context) -> Vec<Finding>`: adding one is one line.
//! - **Order**: errors first, then warnings, then info; within a severity, the findings that
//!   concern more operations first, then those with more tokens at stake (a tool's definition
//!   over its budget, a list's estimated response), then by pointer, rule and message.
//! - **Score** ([`score`]): out of 100. Each finding costs its severity's weight (error 10,
//!   warning 3, info 1) to every operation it concerns, at most 10 an operation; the API loses
//!   `100 × (their sum) / (10 × operations)`, where operations are its tools and the operations
//!   skipped. A finding that concerns no one operation (a diagnostic outside the operations, a
//!   token a user gets once) costs its weight directly, at most 10 for each rule. Rounded,
//!   floored at 0.

mod checks;
mod context;
mod inputs;
mod render;
mod rules;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

pub(crate) use context::{Argument, Context, Origin, Subject};
pub(crate) use inputs::{of_config, of_merged, of_pipeline};
pub(crate) use rules::{RULES, Rule};

/// How much a finding matters to an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Severity {
    /// Worth knowing; the agent copes.
    Info,
    /// The agent is likely to choose or call wrongly, or to waste context.
    Warning,
    /// The agent cannot use the operation well, or at all.
    Error,
}

impl Severity {
    /// What a finding of this severity costs each operation it concerns (see [`score`]).
    pub(crate) fn weight(self) -> usize {
        match self {
            Severity::Error => 10,
            Severity::Warning => 3,
            Severity::Info => 1,
        }
    }

    /// `error`, `warning`, `info`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// The most a single operation's findings cost it (an operation with an error is as bad as it
/// gets), and the most the findings of one rule that concern no operation cost the API.
const MAX_COST: usize = 10;

/// One thing about the API that makes it harder for an agent to use, and where it is.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    /// The API it is about (its name in the report's `apis`).
    pub(crate) api: String,
    pub(crate) severity: Severity,
    /// The rule's stable id (kebab-case).
    pub(crate) rule: &'static str,
    /// JSON pointer into the source document (`#/paths/~1pets/get/parameters/0`); with the file's
    /// name first for a file a `$ref` reached; into the runtime config for a config's tools.
    pub(crate) pointer: String,
    /// What is wrong, in one line.
    pub(crate) message: String,
    /// What to do about it, in one line.
    pub(crate) fix: String,
    /// How many operations (tools) it concerns.
    pub(crate) operations: usize,
    /// Tokens at stake: a tool's definition over its budget, a list's estimated response; 0 when
    /// it is not about tokens.
    pub(crate) tokens: usize,
    /// The operations it concerns, by their pointers (for the score).
    #[serde(skip)]
    subjects: Vec<String>,
}

impl Finding {
    /// A finding of `rule` at `pointer`, concerning no operation yet.
    pub(crate) fn new(
        rule: &Rule,
        pointer: impl Into<String>,
        message: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        Finding {
            api: String::new(),
            severity: rule.severity,
            rule: rule.id,
            pointer: pointer.into(),
            message: message.into(),
            fix: fix.into(),
            operations: 0,
            tokens: 0,
            subjects: Vec::new(),
        }
    }

    /// Concerning the operation (or tool) whose pointer is `subject`.
    pub(crate) fn about(mut self, subject: &str) -> Self {
        self.subjects.push(subject.to_string());
        self.operations = self.subjects.len();
        self
    }

    /// Concerning every one of `subjects`.
    pub(crate) fn about_all<'s>(mut self, subjects: impl IntoIterator<Item = &'s str>) -> Self {
        self.subjects.extend(subjects.into_iter().map(str::to_string));
        self.operations = self.subjects.len();
        self
    }

    /// Concerning `operations` operations in all, for the order: a group of operations, of
    /// which it concerns one (each has its own finding).
    pub(crate) fn spanning(mut self, operations: usize) -> Self {
        self.operations = operations;
        self
    }

    /// Also concerning what `other` (a finding of the same rule at the same place) concerns.
    pub(crate) fn absorb(&mut self, other: Finding) {
        self.subjects.extend(other.subjects);
        self.operations = self.subjects.len();
    }

    /// With `tokens` at stake.
    pub(crate) fn with_tokens(mut self, tokens: usize) -> Self {
        self.tokens = tokens;
        self
    }

    /// The order of the report (see the module's doc).
    fn order(&self, other: &Finding) -> std::cmp::Ordering {
        other
            .severity
            .cmp(&self.severity)
            .then(other.operations.cmp(&self.operations))
            .then(other.tokens.cmp(&self.tokens))
            .then_with(|| self.pointer.cmp(&other.pointer))
            .then_with(|| self.rule.cmp(other.rule))
            .then_with(|| self.message.cmp(&other.message))
    }
}

/// A group of rules: what one check finds in one API.
pub(crate) type Check = fn(&Context<'_>) -> Vec<Finding>;

/// Every check, in no particular order (the findings are sorted). Instruction-like text in
/// descriptions (prompt injection) is for `crate::trust`'s check: one more line here.
pub(crate) const CHECKS: &[Check] = &[
    checks::summaries::check,
    checks::arguments::check,
    checks::lists::check,
    checks::size::check,
    checks::auth::check,
    checks::pipeline::check,
    checks::poisoning::check,
];

/// Findings by severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Counts {
    pub(crate) error: usize,
    pub(crate) warning: usize,
    pub(crate) info: usize,
}

/// What doctor says about one API.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ApiReport {
    /// Its name: its title, or its key in a config of several APIs (findings' `api`).
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) version: String,
    /// Where it was read from.
    pub(crate) source: String,
    /// What it is: an API description's dialect, or a runtime config.
    pub(crate) dialect: String,
    /// Its tools (after the filters).
    pub(crate) tools: usize,
    /// Out of 100 (see [`score`]).
    pub(crate) score: u32,
    pub(crate) counts: Counts,
    /// Findings by rule id.
    pub(crate) rules: BTreeMap<&'static str, usize>,
    /// Its findings, in the report's order.
    #[serde(skip)]
    pub(crate) findings: Vec<Finding>,
}

/// About the API of a report, beside its findings.
pub(crate) struct About {
    pub(crate) name: String,
    pub(crate) title: String,
    pub(crate) version: String,
    pub(crate) source: String,
    pub(crate) dialect: String,
}

/// Runs every check on `ctx` and scores the API.
pub(crate) fn examine(ctx: &Context<'_>, about: About) -> ApiReport {
    let mut findings: Vec<Finding> = CHECKS.iter().flat_map(|check| check(ctx)).collect();
    for f in &mut findings {
        f.api.clone_from(&about.name);
    }
    findings.sort_by(Finding::order);
    let mut counts = Counts::default();
    let mut rules = BTreeMap::new();
    for f in &findings {
        match f.severity {
            Severity::Error => counts.error += 1,
            Severity::Warning => counts.warning += 1,
            Severity::Info => counts.info += 1,
        }
        *rules.entry(f.rule).or_insert(0) += 1;
    }
    let tools: Vec<&str> = ctx.subjects.iter().map(|s| s.pointer.as_str()).collect();
    ApiReport {
        name: about.name,
        title: about.title,
        version: about.version,
        source: about.source,
        dialect: about.dialect,
        tools: tools.len(),
        score: score(&tools, &findings),
        counts,
        rules,
        findings,
    }
}

/// The score of an API with these tools (their pointers) and findings (see the module's doc).
pub(crate) fn score(tools: &[&str], findings: &[Finding]) -> u32 {
    let mut per_operation: BTreeMap<&str, usize> = tools.iter().map(|t| (*t, 0)).collect();
    let mut per_rule: BTreeMap<&str, usize> = BTreeMap::new();
    for f in findings {
        let weight = f.severity.weight();
        if f.subjects.is_empty() {
            *per_rule.entry(f.rule).or_insert(0) += weight;
        }
        for s in f.subjects.iter().collect::<BTreeSet<_>>() {
            *per_operation.entry(s.as_str()).or_insert(0) += weight;
        }
    }
    let operations = per_operation.len();
    let spent: usize = per_operation.values().map(|c| (*c).min(MAX_COST)).sum();
    let by_operations = if operations == 0 { 0.0 } else { 100.0 * spent as f64 / (MAX_COST * operations) as f64 };
    let elsewhere: usize = per_rule.values().map(|c| (*c).min(MAX_COST)).sum();
    (100.0 - by_operations - elsewhere as f64).round().max(0.0) as u32
}

/// What `mcpgen doctor` reports (its `--json` output): each API with its score and counts, and
/// every finding, in order, each naming its API.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) apis: Vec<ApiReport>,
    pub(crate) findings: Vec<Finding>,
}

impl Report {
    /// The report of these APIs (in their order).
    pub(crate) fn new(apis: Vec<ApiReport>) -> Report {
        let findings = apis.iter().flat_map(|a| a.findings.iter().cloned()).collect();
        Report { apis, findings }
    }

    /// Findings at `level` or above.
    pub(crate) fn at_least(&self, level: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity >= level).count()
    }

    /// The text report (see [`render`]); `all`: every finding, not the first of each rule.
    pub(crate) fn text(&self, all: bool) -> String {
        render::text(self, all)
    }

    /// The JSON report, pretty-printed.
    pub(crate) fn json(&self) -> String {
        render::json(self)
    }
}

#[cfg(test)]
mod tests;
