//! Compact definitions without the feature `discovery` (`compact.rs` with it): schemas and
//! descriptions are never compact, so a definition stays as it is.

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use serde_json::{Map, Value};

use crate::engine::results::ToolResults;

/// `mcp` with its full schemas (`input` with the projection argument).
pub(super) fn advertised(
    mut mcp: McpTool,
    input: &Map<String, Value>,
    output: Option<&Map<String, Value>>,
    results: &ToolResults,
) -> McpTool {
    mcp.input_schema = Arc::new(results.with_projection(input.clone()));
    mcp.output_schema = output.map(|o| Arc::new(o.clone()));
    mcp
}

/// `mcp` as it is.
pub(super) fn described(mcp: McpTool, _description: Option<&str>, _title: Option<&str>) -> McpTool {
    mcp
}
