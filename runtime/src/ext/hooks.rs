//! How the customisation points of [`crate::ext`] are held: the [`Hooks`] that change a request
//! or a result, and the [`Handlers`] that answer tools without an HTTP binding in Rust, together
//! the [`Extensions`] the engine runs with.
//! `mcpgen serve` uses neither; a generated crate passes its own `hooks` and `tools` modules.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use super::{Context, Error, Hooks};
use crate::upstream::request::PreparedRequest;

/// A boxed future, as the engine stores and awaits them.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// [`Hooks`] as a trait object: every `Hooks` is one, with its `before_request` future boxed.
pub trait DynHooks: Send + Sync + 'static {
    /// [`Hooks::before_request`], its future boxed.
    fn before_request<'a>(
        &'a self,
        tool: &'a str,
        args: &'a Map<String, Value>,
        request: &'a mut PreparedRequest,
    ) -> BoxFuture<'a, Result<(), Error>>;

    /// [`Hooks::after_response`].
    fn after_response(&self, tool: &str, result: &mut CallToolResult);
}

impl<H: Hooks> DynHooks for H {
    fn before_request<'a>(
        &'a self,
        tool: &'a str,
        args: &'a Map<String, Value>,
        request: &'a mut PreparedRequest,
    ) -> BoxFuture<'a, Result<(), Error>> {
        Box::pin(Hooks::before_request(self, tool, args, request))
    }

    fn after_response(&self, tool: &str, result: &mut CallToolResult) {
        Hooks::after_response(self, tool, result);
    }
}

/// No customisation.
pub struct NoHooks;

impl Hooks for NoHooks {}

/// What a handler answers: a JSON value (the structured result), or an error for the model.
pub type HandlerFuture<'a> = BoxFuture<'a, Result<Value, Error>>;

/// Rust code that answers tools: those without an HTTP binding, API tools it replaces, and new
/// tools of its own (a generated crate's `generated::Dispatch`, which routes each call to the
/// user's `RustTools` methods). A model's call of one of [`Handlers::answers`] reaches it; a call
/// through [`Context::call`] reaches the API.
pub trait Handlers: Send + Sync + 'static {
    /// The call of `tool`, or `None` when there is no handler for it.
    fn call<'a>(&'a self, tool: &'a str, args: Map<String, Value>, cx: Context) -> Option<HandlerFuture<'a>>;

    /// The tools this answers, by name: each is a catalogue tool or one of [`Handlers::tools`]
    /// (the engine refuses to start otherwise).
    fn answers(&self) -> Vec<String> {
        Vec::new()
    }

    /// New tools, beside the catalogue's (a name the catalogue has is refused at start).
    fn tools(&self) -> Vec<crate::config::Tool> {
        Vec::new()
    }
}

/// No handlers.
pub struct NoHandlers;

impl Handlers for NoHandlers {
    fn call<'a>(&'a self, _tool: &'a str, _args: Map<String, Value>, _cx: Context) -> Option<HandlerFuture<'a>> {
        None
    }
}

/// The hooks and handlers a server runs with.
#[derive(Clone)]
pub struct Extensions {
    /// Called around each upstream request (`NoHooks` by default).
    pub hooks: Arc<dyn DynHooks>,
    /// Answers the tools without an HTTP binding (`NoHandlers` by default).
    pub handlers: Arc<dyn Handlers>,
}

impl Default for Extensions {
    fn default() -> Self {
        Extensions { hooks: Arc::new(NoHooks), handlers: Arc::new(NoHandlers) }
    }
}

impl Extensions {
    /// These hooks, and no handlers.
    pub fn with_hooks(hooks: impl Hooks) -> Self {
        Extensions { hooks: Arc::new(hooks), ..Extensions::default() }
    }

    /// The same hooks, with these handlers.
    pub fn with_handlers(self, handlers: impl Handlers) -> Self {
        Extensions { handlers: Arc::new(handlers), ..self }
    }
}
