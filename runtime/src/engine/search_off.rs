//! Discovery's part of the engine without the feature `discovery` (`search/` with it): no index,
//! no view, no tools of its own, full schemas; a mode that needs discovery is refused by name, one
//! `auto` would choose falls back to every tool.

use std::sync::Arc;

use rmcp::model::{CallToolResult, Tool as McpTool};
use serde_json::{Map, Value};

use super::listing::{About, Listing};
use crate::config::{Context, SchemaDetail, ToolMode};
use crate::engine::caller::Caller;
use crate::engine::exposure::Exposure;
use crate::engine::{Engine, Observation, Surface, ToolEntry};
use crate::error::{Error, Result};

/// Discovery's part of the engine: nothing.
pub(super) struct Search;

impl Search {
    /// The exposure a server built without the `discovery` feature can give: a mode asked for by
    /// name needs the feature; one `auto` would choose falls back to every tool with full schemas.
    pub(super) fn check(exposure: Exposure, context: &Context) -> Result<Exposure> {
        if context.tool_mode == ToolMode::Discovery {
            return Err(Error::missing_feature("discovery", "--tool-mode discovery"));
        }
        if context.schema_detail == SchemaDetail::Compact {
            return Err(Error::missing_feature("discovery", "--schema-detail compact"));
        }
        if !exposure.discovery && !exposure.compact {
            return Ok(exposure);
        }
        let reason = format!(
            "tool mode: all tools, full schemas: {}; this server was built without the `discovery` feature (regenerate with `mcpgen generate --with discovery`)",
            exposure.reason
        );
        Ok(Exposure { discovery: false, code: false, compact: false, reason })
    }

    /// The part: nothing to keep (no search is served, so no model is loaded).
    pub(super) fn new(_context: &Context, _exposure: &Exposure, _serves_discovery: bool) -> Result<Search> {
        Ok(Search)
    }

    /// Discovery is not compiled in: the discovery surface shows every tool (and the HTTP layer
    /// serves no such path).
    pub(super) fn served(&self) -> bool {
        false
    }

    /// Nothing to build.
    pub(super) fn start(_engine: &Arc<Engine>) {}
}

/// Discovery's view: none.
pub(super) struct View;

impl View {
    /// No view (the note is never read, nor the pins: there is no discovery listing).
    pub(super) fn new(
        about: &About<'_>,
        _tools: &[ToolEntry],
        _note: Option<String>,
        _finish: &dyn Fn(String) -> Option<String>,
    ) -> View {
        let _ = about.pins;
        View
    }

    /// No instructions.
    pub(super) fn instructions(&self) -> Option<&str> {
        None
    }

    /// Never discovery mode: nothing to make.
    pub(super) fn configure(
        &self,
        _exposure: &Exposure,
        _tools: &[ToolEntry],
        _run_script: Option<McpTool>,
    ) -> Result<()> {
        Ok(())
    }

    /// No listing: the surface shows every tool.
    pub(super) fn listing(
        &self,
        _exposure: &Exposure,
        _tools: &[ToolEntry],
        _run_script: impl FnOnce() -> Option<McpTool>,
    ) -> Option<&Listing> {
        None
    }
}

/// No tool of discovery's is answered: every name goes on to the others.
pub(super) async fn call_own(
    _engine: &Engine,
    _surface: Surface,
    _name: &str,
    _args: &Map<String, Value>,
    _caller: &Caller,
    _obs: &mut Observation,
) -> Option<CallToolResult> {
    None
}
