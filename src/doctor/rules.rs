//! Every rule of `mcpgen doctor`: its stable id, its severity and why it matters. docs/doctor.md
//! says the same for people (a test checks that it lists every rule with its severity).

use super::Severity;

/// One rule: findings of it share its id and severity.
#[derive(Debug)]
pub(crate) struct Rule {
    /// Stable, kebab-case: scripts and `--json` readers key on it.
    pub(crate) id: &'static str,
    pub(crate) severity: Severity,
    /// Why it matters to an agent, in one sentence.
    pub(crate) why: &'static str,
}

const fn rule(id: &'static str, severity: Severity, why: &'static str) -> Rule {
    Rule { id, severity, why }
}

use Severity::{Error, Info, Warning};

pub(crate) const UNDESCRIBED_OPERATION: Rule = rule(
    "undescribed-operation",
    Error,
    "an operation without a summary or a description is a bare tool name to the agent",
);
pub(crate) const MISSING_SUMMARY: Rule =
    rule("missing-summary", Info, "the summary is the tool's title, which clients show and search weighs most");
pub(crate) const DUPLICATE_SUMMARY: Rule =
    rule("duplicate-summary", Warning, "operations with one summary look alike: the agent cannot tell them apart");
pub(crate) const GENERIC_SUMMARY: Rule = rule(
    "generic-summary",
    Warning,
    "a one-word, generic or route-restating summary gives the agent nothing to choose by",
);
pub(crate) const UNDOCUMENTED_REQUIRED_PARAMETER: Rule = rule(
    "undocumented-required-parameter",
    Warning,
    "the agent must fill a required parameter, and guesses what it means from its name",
);
pub(crate) const UNDOCUMENTED_OPTIONAL_PARAMETER: Rule =
    rule("undocumented-optional-parameter", Info, "an optional parameter without a description is left out or misused");
pub(crate) const UNDOCUMENTED_WELL_KNOWN_PARAMETER: Rule = rule(
    "undocumented-well-known-parameter",
    Info,
    "a well-known name (`id`, `page`, `limit`) says most of it; its format and bounds are still unsaid",
);
pub(crate) const UNDOCUMENTED_ENUM: Rule =
    rule("undocumented-enum", Warning, "the agent cannot pick among coded values whose meaning is nowhere");
pub(crate) const UNPAGINATED_LARGE_LIST: Rule = rule(
    "unpaginated-large-list",
    Warning,
    "a list without paging is cut to fit the result budget, and the agent cannot ask for the next page",
);
pub(crate) const UNPAGINATED_LIST: Rule = rule(
    "unpaginated-list",
    Info,
    "a list without paging grows with the data until it is cut to fit the result budget",
);
pub(crate) const LARGE_TOOL_DEFINITION: Rule =
    rule("large-tool-definition", Warning, "every tool's definition costs context on every turn in which it is listed");
pub(crate) const HUGE_TOOL_DEFINITION: Rule = rule(
    "huge-tool-definition",
    Error,
    "a definition this large crowds out the conversation, and models fill its schema badly",
);
pub(crate) const EXTERNAL_TOKEN_REQUIRED: Rule = rule(
    "external-token-required",
    Warning,
    "mcpgen cannot run this sign-in itself: a user must get a token elsewhere and renew it by hand",
);
pub(crate) const UNSUPPORTED_AUTH: Rule =
    rule("unsupported-auth", Error, "mcpgen cannot send this credential: every call of its tools fails");
pub(crate) const UNDEFINED_SECURITY_SCHEME: Rule = rule(
    "undefined-security-scheme",
    Error,
    "a requirement names a scheme the document does not define: its tools are called without credentials",
);
pub(crate) const OPERATION_SKIPPED: Rule =
    rule("operation-skipped", Error, "an operation mcpgen could not read yields no tool: the agent cannot do it");
pub(crate) const UNRESOLVED_SCHEMA_REF: Rule = rule(
    "unresolved-schema-ref",
    Warning,
    "a schema that could not be found stands as `{}`: the agent sees no shape for that value",
);
pub(crate) const UNSUPPORTED_CONSTRUCT: Rule =
    rule("unsupported-construct", Warning, "a part of the document mcpgen ignores is not offered to the agent");
pub(crate) const SCHEMA_TRUNCATED: Rule =
    rule("schema-truncated", Info, "a schema too deep or too large for a tool is cut short: the agent sees less of it");
pub(crate) const DUPLICATE_OPERATION_ID: Rule = rule(
    "duplicate-operation-id",
    Info,
    "operations sharing an operationId get tool names apart from it (the document breaks the specification)",
);
pub(crate) const INSTRUCTION_LIKE_TEXT: Rule = rule(
    "instruction-like-text",
    Error,
    "text addressed to the model rather than to a developer is how tools are poisoned: mcpgen withholds it",
);
pub(crate) const INFERRED_SCHEMA: Rule = rule(
    "inferred-schema",
    Info,
    "schemas inferred from recorded calls say what the calls showed, not what the API takes: they need a review",
);
pub(crate) const SPEC_VIOLATION: Rule =
    rule("spec-violation", Info, "the document breaks the specification; mcpgen read it leniently and may guess wrong");

/// Every rule, in the order of docs/doctor.md.
pub(crate) const RULES: &[&Rule] = &[
    &UNDESCRIBED_OPERATION,
    &MISSING_SUMMARY,
    &DUPLICATE_SUMMARY,
    &GENERIC_SUMMARY,
    &UNDOCUMENTED_REQUIRED_PARAMETER,
    &UNDOCUMENTED_OPTIONAL_PARAMETER,
    &UNDOCUMENTED_WELL_KNOWN_PARAMETER,
    &UNDOCUMENTED_ENUM,
    &UNPAGINATED_LARGE_LIST,
    &UNPAGINATED_LIST,
    &LARGE_TOOL_DEFINITION,
    &HUGE_TOOL_DEFINITION,
    &EXTERNAL_TOKEN_REQUIRED,
    &UNSUPPORTED_AUTH,
    &UNDEFINED_SECURITY_SCHEME,
    &OPERATION_SKIPPED,
    &UNRESOLVED_SCHEMA_REF,
    &UNSUPPORTED_CONSTRUCT,
    &SCHEMA_TRUNCATED,
    &DUPLICATE_OPERATION_ID,
    &SPEC_VIOLATION,
    &INFERRED_SCHEMA,
    &INSTRUCTION_LIKE_TEXT,
];
