//! The pipeline's diagnostics that matter to an agent, as findings at their pointers: what was
//! skipped, lost or guessed. Notes on how the API was mapped (tools and arguments renamed, an
//! argument made required) are left out, but for schemas cut short.
//!
//! | diagnostic | rule |
//! | --- | --- |
//! | an operation skipped | `operation-skipped` |
//! | a `$ref` in a schema not found | `unresolved-schema-ref` |
//! | a part of the document ignored | `unsupported-construct` |
//! | a schema cut short | `schema-truncated` |
//! | operationIds shared | `duplicate-operation-id` |
//! | the specification broken, read leniently | `spec-violation` |
//! | an operation inferred from recorded calls (`x-mcp.inferred`) | `inferred-schema` |
//!
//! A diagnostic inside a tool's operation (its pointer, or below) concerns that tool; an
//! operation skipped concerns itself (it counts among the API's operations for the score);
//! others concern no operation.

use std::collections::HashSet;

use crate::diag::DiagKind;
use crate::doctor::checks::plural;
use crate::doctor::rules::{
    DUPLICATE_OPERATION_ID, INFERRED_SCHEMA, OPERATION_SKIPPED, Rule, SCHEMA_TRUNCATED, SPEC_VIOLATION,
    UNRESOLVED_SCHEMA_REF, UNSUPPORTED_CONSTRUCT,
};
use crate::doctor::{Context, Finding, Origin};

pub(crate) fn check(ctx: &Context<'_>) -> Vec<Finding> {
    let mut findings = inferred(ctx);
    findings.extend(diagnostics(ctx));
    findings
}

/// Operations inferred from recorded calls (`x-mcp.inferred`): one finding each, with the count.
fn inferred(ctx: &Context<'_>) -> Vec<Finding> {
    ctx.subjects
        .iter()
        .filter_map(|s| {
            let Origin::Operation(op) = s.origin else { return None };
            let inferred = op.mcp.inferred.as_ref()?;
            let message = format!(
                "`{}` was inferred from {} ({}): its types, `required` and enums say what the calls showed",
                s.tool.name,
                plural(inferred.examples, "example"),
                inferred.from
            );
            let fix = "review the schemas (`mcpgen convert --to openapi` writes them), then remove `x-mcp.inferred`";
            Some(
                Finding::new(&INFERRED_SCHEMA, format!("{}/x-mcp/inferred", s.pointer), message, fix).about(&s.pointer),
            )
        })
        .collect()
}

fn diagnostics(ctx: &Context<'_>) -> Vec<Finding> {
    let tools: HashSet<&str> = ctx.subjects.iter().map(|s| s.pointer.as_str()).collect();
    ctx.diagnostics
        .iter()
        .filter_map(|d| {
            let (rule, fix) = rule_of(d.kind)?;
            let finding = Finding::new(rule, &d.pointer, &d.message, fix);
            Some(match d.kind {
                DiagKind::OperationSkipped => finding.about(operation_of(&d.pointer)),
                _ => match tool_of(&d.pointer, &tools) {
                    Some(tool) => finding.about(tool),
                    None => finding,
                },
            })
        })
        .collect()
}

/// The rule of a kind of diagnostic, and what fixes it; `None`: a note that does not matter to an
/// agent.
fn rule_of(kind: DiagKind) -> Option<(&'static Rule, &'static str)> {
    Some(match kind {
        DiagKind::OperationSkipped => {
            (&OPERATION_SKIPPED, "correct what the message names: until then the agent has no tool for it")
        }
        DiagKind::SchemaRef => (&UNRESOLVED_SCHEMA_REF, "point the `$ref` at a schema that exists, or add the schema"),
        DiagKind::Unsupported => (
            &UNSUPPORTED_CONSTRUCT,
            "say it with what mcpgen reads (see the message), or know that agents go without it",
        ),
        DiagKind::SchemaTruncated => {
            (&SCHEMA_TRUNCATED, "flatten the schema, or move its deep parts behind operations of their own")
        }
        DiagKind::DuplicateOperationId => (&DUPLICATE_OPERATION_ID, "give each operation an operationId of its own"),
        DiagKind::Lenient => (&SPEC_VIOLATION, "correct the document as the message says"),
        // Withheld text is `poisoning`'s.
        DiagKind::ToolRenamed
        | DiagKind::ArgumentRenamed
        | DiagKind::ArgumentRequired
        | DiagKind::TextWithheld
        | DiagKind::CredentialParameter => return None,
    })
}

/// The operation a pointer is in: `#/paths/<path>/<method>` of a pointer below it; else the
/// pointer itself (a function's, say).
fn operation_of(pointer: &str) -> &str {
    let Some(rest) = pointer.strip_prefix("#/paths/") else { return pointer };
    match rest.match_indices('/').nth(1) {
        Some((i, _)) => &pointer[.."#/paths/".len() + i],
        None => pointer,
    }
}

/// The tool whose pointer is `pointer` or a prefix of it (at a `/`).
pub(super) fn tool_of<'t>(pointer: &str, tools: &HashSet<&'t str>) -> Option<&'t str> {
    let mut at = pointer;
    loop {
        if let Some(tool) = tools.get(at) {
            return Some(tool);
        }
        at = &at[..at.rfind('/')?];
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn an_operation_is_found_from_a_pointer_below_it() {
        assert_eq!(operation_of("#/paths/~1pets/get/parameters/0"), "#/paths/~1pets/get");
        assert_eq!(operation_of("#/paths/~1pets/get"), "#/paths/~1pets/get");
        assert_eq!(operation_of("#/paths/~1pets"), "#/paths/~1pets");
        assert_eq!(operation_of("#/2"), "#/2");
    }

    #[test]
    fn a_diagnostic_below_a_tool_concerns_it() {
        let tools: HashSet<&str> = ["#/paths/~1pets/get", "#/paths/~1pets~1{id}/get"].into_iter().collect();
        assert_eq!(tool_of("#/paths/~1pets/get/responses/200", &tools), Some("#/paths/~1pets/get"));
        assert_eq!(tool_of("#/paths/~1pets/get", &tools), Some("#/paths/~1pets/get"));
        assert_eq!(tool_of("#/paths/~1pets/getter", &tools), None);
        assert_eq!(tool_of("#/components/schemas/Pet", &tools), None);
    }

    #[test]
    fn notes_on_the_mapping_are_left_out() {
        assert!(rule_of(DiagKind::ToolRenamed).is_none());
        assert!(rule_of(DiagKind::ArgumentRenamed).is_none());
        assert_eq!(rule_of(DiagKind::SchemaTruncated).map(|(r, _)| r.id), Some("schema-truncated"));
    }
}
