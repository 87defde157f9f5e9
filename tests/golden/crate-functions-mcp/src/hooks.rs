//! Your customisations: mcpgen creates this file once and never overwrites it.
//!
//! `before_request` runs before each upstream request (after credentials were added): change the
//! URL, headers or body, or return `Err(message)` to refuse the call. `after_response` runs on
//! each result before it goes back to the client.
//!
//! Example: tag every request of one tool, and keep results of another short.
//!
//! ```ignore
//! fn before_request(&self, tool: &str, _args: &Map<String, Value>, request: &mut PreparedRequest) -> Result<(), String> {
//!     if tool == "createPet" {
//!         request.headers.insert("x-source", reqwest::header::HeaderValue::from_static("mcp"));
//!     }
//!     Ok(())
//! }
//!
//! fn after_response(&self, tool: &str, result: &mut CallToolResult) {
//!     if tool == "listPets" {
//!         result.content.truncate(1);
//!     }
//! }
//! ```

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::runtime::request::PreparedRequest;

/// The hooks this server runs with.
pub struct Hooks;

impl crate::runtime::hooks::Hooks for Hooks {
    fn before_request(&self, _tool: &str, _args: &Map<String, Value>, _request: &mut PreparedRequest) -> Result<(), String> {
        Ok(())
    }

    fn after_response(&self, _tool: &str, _result: &mut CallToolResult) {}
}
