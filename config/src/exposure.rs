//! What `tools/list` shows: every tool, or discovery's three tools; full or compact schemas; and
//! why. Decided from the config's `context` and the catalogue's size, by mcpgen (`inspect`, a
//! generated crate's features) and the engine alike. And each tool's result budget.

use crate::text::group_digits;
use crate::{Context, Definitions, SchemaDetail, Tool, ToolMode, tools_list_bytes};

/// The discovery tool that finds tools by what the model wants to do.
pub const SEARCH_TOOLS: &str = "search_tools";
/// The discovery tool that gives tools' definitions (input schemas included), by name.
pub const DESCRIBE_TOOLS: &str = "describe_tools";
/// The discovery tool that calls one of the API's tools by name, with its arguments.
pub const CALL_TOOL: &str = "call_tool";
/// The discovery tools, in the order `tools/list` shows them.
pub const META_TOOLS: [&str; 3] = [SEARCH_TOOLS, DESCRIBE_TOOLS, CALL_TOOL];
/// Code mode's tool that runs a script calling the API's tools (feature `code`).
pub const RUN_SCRIPT: &str = "run_script";
/// The server's own tools, discovery's and code mode's: each is counted in the metrics after the
/// catalogue's tools, in this order.
pub const OWN_TOOLS: [&str; 4] = [SEARCH_TOOLS, DESCRIBE_TOOLS, CALL_TOOL, RUN_SCRIPT];

/// Bytes per token used when the cost was not measured: o200k_base averages about 4.8 bytes per
/// token on tool lists (GitHub's: 2.56 MB, 535,208 tokens); 4 errs toward the smaller list.
pub const BYTES_PER_TOKEN_ESTIMATE: usize = 4;

/// What the engine shows: every tool or the discovery tools; full or compact schemas; and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exposure {
    /// `tools/list` shows the three discovery tools (and pinned tools) rather than every tool.
    pub discovery: bool,
    /// `tools/list` shows code mode's three tools (search, declarations, run_script).
    pub code: bool,
    /// Tools are advertised with compact schemas and descriptions.
    pub compact: bool,
    /// One line for the log: the choice and its reason.
    pub reason: String,
}

/// Chooses the mode from the context policy and the catalogue (its tools' schemas assembled with
/// the config's shared `definitions`).
pub fn resolve(ctx: &Context, tools: &[Tool], definitions: &Definitions) -> Exposure {
    let n = tools.len();
    let limit = ctx.auto_max_tokens;
    // The full all-tools list's cost: measured by mcpgen, or estimated (counting stops past the limit).
    let (tokens, measured) = match ctx.tools_list_tokens {
        Some(t) => (t.full, true),
        None => {
            let cap = limit.saturating_mul(BYTES_PER_TOKEN_ESTIMATE).saturating_add(1);
            (
                tools_list_bytes(tools.iter().map(|t| t.mcp_view_in(definitions)), cap)
                    .div_ceil(BYTES_PER_TOKEN_ESTIMATE),
                false,
            )
        }
    };
    let over = tokens > limit;
    let cost = match (over, measured) {
        (true, false) => format!("more than {} tokens", group_digits(limit)),
        (false, false) => format!("about {} tokens", group_digits(tokens)),
        (_, true) => format!("{} tokens", group_digits(tokens)),
    };
    let (discovery, why) = match ctx.tool_mode {
        ToolMode::All => (false, "--tool-mode all".to_string()),
        ToolMode::Discovery => (true, "--tool-mode discovery".to_string()),
        ToolMode::Code => (false, "--tool-mode code".to_string()),
        ToolMode::Auto if n > ctx.auto_max_tools => {
            (true, format!("{} tools is more than {} (--auto-max-tools)", group_digits(n), ctx.auto_max_tools))
        }
        ToolMode::Auto if over => (
            true,
            format!("listing every tool would cost {cost}, more than {} (--auto-max-tokens)", group_digits(limit)),
        ),
        ToolMode::Auto => {
            (false, format!("{n} tools, {cost} (limits: {} tools, {} tokens)", ctx.auto_max_tools, group_digits(limit)))
        }
    };
    let compact = match ctx.schema_detail {
        SchemaDetail::Full => false,
        SchemaDetail::Compact => true,
        SchemaDetail::Auto => over,
    };
    let code = ctx.tool_mode == ToolMode::Code;
    let mode = match (discovery, code) {
        (_, true) => "code (search_tools, describe_tools, run_script)",
        (true, _) => "discovery (search_tools, describe_tools, call_tool)",
        _ => "all tools",
    };
    let detail = if compact { "compact" } else { "full" };
    Exposure { discovery, code, compact, reason: format!("tool mode: {mode}, {detail} schemas: {why}") }
}

/// The result budget of `tool` in characters (`0`: none): its own (`x-mcp.maxResultChars`), else
/// the context's (`--max-result-chars`).
pub fn result_budget(tool: &Tool, context: &Context) -> usize {
    budget(own_budget(tool), context.max_result_chars)
}

/// A tool's own result budget (`x-mcp.maxResultChars`), if it has one.
pub fn own_budget(tool: &Tool) -> Option<usize> {
    tool.response.as_ref().and_then(|r| r.max_result_chars)
}

/// The budget that applies: a tool's own over the context's (for a caller that holds both).
pub fn budget(own: Option<usize>, context: usize) -> usize {
    own.unwrap_or(context)
}
