//! Customisation points: change a request before it is sent, or a result before it is returned.
//! `mcpgen serve` uses [`NoHooks`]; a generated crate passes its own `hooks` module.

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use super::request::PreparedRequest;

pub trait Hooks: Send + Sync + 'static {
    /// Called before each upstream request of `tool`, after credentials were added. Change the
    /// URL, headers or body; return `Err(message)` to refuse the call (the model sees the message).
    fn before_request(
        &self,
        tool: &str,
        args: &Map<String, Value>,
        request: &mut PreparedRequest,
    ) -> Result<(), String> {
        let _ = (tool, args, request);
        Ok(())
    }

    /// Called with each result of `tool` before it goes back to the client.
    fn after_response(&self, tool: &str, result: &mut CallToolResult) {
        let _ = (tool, result);
    }
}

/// No customisation.
pub struct NoHooks;

impl Hooks for NoHooks {}
