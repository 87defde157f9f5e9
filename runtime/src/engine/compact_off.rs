//! Compact definitions without the feature `discovery` (`compact.rs` with it): schemas and
//! descriptions are never compact, so a definition stays as it is.

use std::sync::Arc;

use rmcp::model::Tool as McpTool;
use serde_json::{Map, Value};

use crate::engine::results::ToolResults;

/// `mcp` as it is.
pub(super) fn advertised(
    mcp: McpTool,
    _input: &Map<String, Value>,
    _output: Option<&Arc<Map<String, Value>>>,
    _results: &ToolResults,
) -> McpTool {
    mcp
}

/// `mcp` as it is.
pub(super) fn described(mcp: McpTool, _description: Option<&str>, _title: Option<&str>) -> McpTool {
    mcp
}
