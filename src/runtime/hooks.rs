//! Customisation points: change a request before it is sent, or a result before it is returned
//! ([`Hooks`]), and answer tools that have no HTTP binding in Rust ([`Handlers`]). `mcpgen serve`
//! uses neither; a generated crate passes its own `hooks` and `handlers` modules.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

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

/// What a handler answers: a JSON value (the structured result), or an error message for the model.
pub type HandlerFuture<'a> = Pin<Box<dyn Future<Output = Result<Value, String>> + Send + 'a>>;

/// Code that answers the tools without an HTTP binding (function-calling tools in a generated crate).
pub trait Handlers: Send + Sync + 'static {
    /// The call of `tool`, or `None` when there is no handler for it.
    fn call<'a>(&'a self, tool: &'a str, args: Map<String, Value>) -> Option<HandlerFuture<'a>>;
}

/// No handlers.
pub struct NoHandlers;

impl Handlers for NoHandlers {
    fn call<'a>(&'a self, _tool: &'a str, _args: Map<String, Value>) -> Option<HandlerFuture<'a>> {
        None
    }
}

/// The message of a handler that is still the generated stub.
pub fn not_implemented(tool: &str) -> String {
    format!("`{tool}` is not implemented yet: write its handler in src/handlers.rs")
}

/// The hooks and handlers a server runs with.
#[derive(Clone)]
pub struct Extensions {
    pub hooks: Arc<dyn Hooks>,
    pub handlers: Arc<dyn Handlers>,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions { hooks: Arc::new(NoHooks), handlers: Arc::new(NoHandlers) }
    }
}

impl Extensions {
    pub fn with_hooks(hooks: impl Hooks) -> Self {
        Extensions { hooks: Arc::new(hooks), ..Extensions::default() }
    }

    pub fn with_handlers(self, handlers: impl Handlers) -> Self {
        Extensions { handlers: Arc::new(handlers), ..self }
    }
}
