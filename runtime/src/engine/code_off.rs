//! Code mode's part of the engine without the feature `code` (`code.rs` with it): no state, no
//! view, no tools of its own, and code mode or `--run-script` refused by name.

use std::sync::Weak;

use rmcp::model::{CallToolResult, Tool as McpTool};
use serde_json::{Map, Value};

use super::listing::{About, Listing};
use crate::config::Context;
use crate::engine::caller::Caller;
use crate::engine::exposure::Exposure;
use crate::engine::{Asker, Engine, Observation, Surface, ToolEntry};
use crate::error::{Error, Result};

/// Code mode's part of the engine: nothing.
pub(super) struct Code;

impl Code {
    /// Code mode and `--run-script` need the `code` feature.
    pub(super) fn check(exposure: Exposure, context: &Context) -> Result<Exposure> {
        if exposure.code {
            return Err(Error::missing_feature("code", "--tool-mode code"));
        }
        if context.run_script {
            return Err(Error::missing_feature("code", "--run-script"));
        }
        Ok(exposure)
    }

    /// The part: nothing to keep.
    pub(super) fn new(_context: &Context) -> Code {
        Code
    }

    /// This part, held by an engine it never calls.
    pub(super) fn bound(self, _me: &Weak<Engine>) -> Code {
        self
    }

    /// No view.
    pub(super) fn view(&self, _exposure: &Exposure, _about: &About<'_>, _tools: &[ToolEntry]) -> View {
        View
    }

    /// Code mode is never the configured mode.
    pub(super) fn configured(&self, _exposure: &Exposure) -> bool {
        false
    }

    /// Discovery offers no `run_script`: its instructions add nothing.
    pub(super) fn discovery_note(&self) -> Option<String> {
        None
    }
}

/// Code mode's view: none.
pub(super) struct View;

impl View {
    /// Code mode is never the configured mode.
    pub(super) fn configured(&self) -> Option<&(Listing, Option<String>)> {
        None
    }

    /// Discovery's listing never offers `run_script`.
    pub(super) fn runs_in_discovery(&self) -> bool {
        false
    }

    /// Discovery's listing never offers `run_script`.
    pub(super) fn run_script_tool(&self) -> Option<McpTool> {
        None
    }
}

/// No tool of code mode's is answered: every name goes on to the others.
pub(super) async fn call_own(
    _engine: &Engine,
    _surface: Surface,
    _name: &str,
    _args: &Map<String, Value>,
    _caller: &Caller,
    _asker: Option<&Asker>,
    _obs: &mut Observation,
) -> Option<CallToolResult> {
    None
}
