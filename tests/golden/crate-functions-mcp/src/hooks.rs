//! Your hooks: mcpgen creates this file once and never overwrites it. They implement
//! `crate::generated::Hooks`, which names tools by the `Tool` enum: a tool the API renames or
//! removes is then a compile error here, not a hook that silently stops matching.
//!
//! `before_request` runs before each upstream request, after credentials were added, and may
//! await (fetch a token, sign the request): change the URL, headers or body, or return
//! `Err(Error::new(message))` to refuse the call (the model sees the message). `after_response`
//! runs on each result before it goes back to the client.
//!
//! Example: a header from an env var on every request, refusing one tool, and short results of
//! another (with `header` added to the `use` line below).
//!
//! ```ignore
//! async fn before_request(&self, tool: Tool, _args: &Map<String, Value>, request: &mut Request) -> Result<(), Error> {
//!     if tool == Tool::DeletePet {
//!         return Err(Error::new("deleting pets is switched off"));
//!     }
//!     let team = std::env::var("TEAM").unwrap_or_default();
//!     request.headers.insert("x-team", header::HeaderValue::from_str(&team)?);
//!     Ok(())
//! }
//!
//! fn after_response(&self, tool: Tool, result: &mut CallToolResult) {
//!     if tool == Tool::FindPetsByStatus {
//!         result.content.truncate(1);
//!     }
//! }
//! ```

#[allow(unused_imports)]
use mcpgen_runtime::ext::{CallToolResult, Error, Map, Request, Value, header};

#[allow(unused_imports)]
use crate::generated::Tool;

/// The hooks this server runs with.
pub struct Hooks;

impl crate::generated::Hooks for Hooks {
    async fn before_request(&self, _tool: Tool, _args: &Map<String, Value>, _request: &mut Request) -> Result<(), Error> {
        Ok(())
    }

    fn after_response(&self, _tool: Tool, _result: &mut CallToolResult) {}
}
