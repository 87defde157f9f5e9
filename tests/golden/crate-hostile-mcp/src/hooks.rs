//! Your customisations: mcpgen creates this file once and never overwrites it. It builds on
//! `mcpgen_runtime::ext` (see mcpgen-runtime/src/ext.rs), which mcpgen keeps working across versions.
//!
//! `before_request` runs before each upstream request, after credentials were added, and may
//! await (fetch a token, sign the request): change the URL, headers or body, or return
//! `Err(Error::new(message))` to refuse the call (the model sees the message). `after_response`
//! runs on each result before it goes back to the client.
//!
//! Example: a token from your own service on every request of one tool, and short results of
//! another (with `header` added to the `use` line below).
//!
//! ```ignore
//! async fn before_request(&self, tool: &str, _args: &Map<String, Value>, request: &mut Request) -> Result<(), Error> {
//!     if tool == "createPet" {
//!         let token = reqwest::get("http://127.0.0.1:9000/token").await?.text().await?;
//!         request.headers.insert(header::AUTHORIZATION, header::HeaderValue::from_str(&format!("Bearer {token}"))?);
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

use mcpgen_runtime::ext::{self, CallToolResult, Error, Map, Request, Value};

/// The hooks this server runs with.
pub struct Hooks;

impl ext::Hooks for Hooks {
    async fn before_request(&self, _tool: &str, _args: &Map<String, Value>, _request: &mut Request) -> Result<(), Error> {
        Ok(())
    }

    fn after_response(&self, _tool: &str, _result: &mut CallToolResult) {}
}
