//! What each tool's definition costs the agent's context: its entry in `tools/list` with full
//! schemas (name, title, description, input and output schemas, annotations) as the engine
//! advertises it, in o200k tokens (`crate::tokens`, as `mcpgen inspect` counts a tool).
//!
//! - `large-tool-definition`: over [`LARGE_TOOL_TOKENS`].
//! - `huge-tool-definition`: over [`HUGE_TOOL_TOKENS`].

use super::group_digits;
use crate::doctor::rules::{HUGE_TOOL_DEFINITION, LARGE_TOOL_DEFINITION};
use crate::doctor::{Context, Finding, Origin};
use crate::runtime::tooling::ToolEntry;

/// A tool's definition over this many tokens is large: forty of them fill `serve`'s 20,000-token
/// limit for listing every tool in full (`auto` mode's `--auto-max-tokens`, over 40 tools).
pub(crate) const LARGE_TOOL_TOKENS: usize = 1_000;

/// A tool's definition over this many tokens is huge: five of them fill that limit.
pub(crate) const HUGE_TOOL_TOKENS: usize = 4_000;

pub(crate) fn check(ctx: &Context<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in &ctx.subjects {
        let entry = ToolEntry::new(s.tool.clone()).advertised(false);
        let tokens = crate::tokens::count(&serde_json::to_string(&entry).unwrap_or_default());
        let (rule, limit) = match tokens {
            t if t > HUGE_TOOL_TOKENS => (&HUGE_TOOL_DEFINITION, HUGE_TOOL_TOKENS),
            t if t > LARGE_TOOL_TOKENS => (&LARGE_TOOL_DEFINITION, LARGE_TOOL_TOKENS),
            _ => continue,
        };
        out.push(
            Finding::new(
                rule,
                &s.pointer,
                format!(
                    "{} takes {} tokens in tools/list (over {})",
                    match s.origin {
                        Origin::Tool => s.label(),
                        _ => format!("the tool `{}` of {}", s.tool.name, s.label()),
                    },
                    group_digits(tokens),
                    group_digits(limit)
                ),
                "shorten its descriptions and flatten or split its request body; until then `serve --schema-detail \
                 compact` or discovery mode shows agents less of it",
            )
            .about(&s.pointer)
            .with_tokens(tokens),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::doctor::tests::{findings_of, rules_of};

    #[test]
    fn a_small_tool_is_fine() {
        let found = findings_of(crate::doctor::tests::PETSTORE);
        assert!(!rules_of(&found).iter().any(|r| r.ends_with("tool-definition")), "{found:#?}");
    }

    #[test]
    fn a_tool_over_a_thousand_tokens_is_large() {
        let found = findings_of(&crate::doctor::tests::with_parameters(40));
        let large: Vec<_> = found.iter().filter(|f| f.rule == "large-tool-definition").collect();
        assert_eq!(large.len(), 1, "{found:#?}");
        assert_eq!(large[0].pointer, "#/paths/~1pets/get");
        assert!(large[0].tokens > 1_000 && large[0].tokens <= 4_000, "{}", large[0].tokens);
    }

    #[test]
    fn a_tool_over_four_thousand_tokens_is_huge() {
        let found = findings_of(&crate::doctor::tests::with_parameters(200));
        assert!(rules_of(&found).contains(&"huge-tool-definition"), "{found:#?}");
        assert!(!rules_of(&found).contains(&"large-tool-definition"), "{found:#?}");
    }
}
