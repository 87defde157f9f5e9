//! Compact definitions (feature `discovery`; `compact_off.rs` stands in without it): a tool as
//! discovery mode shows it, with compact schemas, title, description and annotations (see
//! [`crate::discovery::compact`]). It reads the pieces of a tool, not the engine's `ToolEntry`,
//! so that `tool.rs` imports it and not the reverse.

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use serde_json::{Map, Value};

use crate::discovery::compact::{
    Known, compact_annotations, compact_schema, compact_title, described_description, listed_description,
};
use crate::engine::results::ToolResults;

/// `mcp` (a tool's definition) with compact schemas, title, description and annotations; the
/// tool's full `input` and `output` schemas, and its `results` (the projection argument).
pub(super) fn advertised(
    mut mcp: McpTool,
    input: &Map<String, Value>,
    output: Option<&Map<String, Value>>,
    results: &ToolResults,
) -> McpTool {
    let description = listed_description(mcp.description.as_deref().unwrap_or(""), mcp.title.as_deref());
    let known = Known::new(&[&mcp.name, mcp.title.as_deref().unwrap_or("")]);
    mcp.title = mcp.title.take().and_then(|t| compact_title(&t, &description, &mcp.name));
    mcp.description = (!description.is_empty()).then(|| description.into());
    mcp.input_schema = Arc::new(results.with_projection(compact_schema(input, &known)));
    mcp.output_schema = output.map(|s| Arc::new(compact_schema(s, &known)));
    mcp.annotations = mcp.annotations.as_ref().and_then(compact_annotations);
    mcp
}

/// `mcp` with `describe_tools`' compact description of the tool's `description` and `title`:
/// the summary and the sentence after it.
pub(super) fn described(mut mcp: McpTool, description: Option<&str>, title: Option<&str>) -> McpTool {
    let description = described_description(description.unwrap_or(""), title);
    mcp.description = (!description.is_empty()).then(|| description.into());
    mcp
}
