//! What a generated crate's own code builds on. The user's files, `src/hooks.rs` and
//! `src/handlers.rs`, import from this module (and from the crate's typed layer,
//! `src/generated/`, which is made on top of it): the rest of `runtime` is the engine's inside and
//! changes between mcpgen versions. What is here is kept working across regenerations; mcpgen's
//! tests pin it (`tests/golden/ext-surface.txt`), so that a change is deliberate and announced.
//!
//! - [`Hooks`]: change each upstream request before it is sent (asynchronously: fetch a token,
//!   sign the request) or refuse it, and change each result before it goes back to the client.
//!   A generated crate's `generated::Hooks` is this trait with tools named by its `Tool` enum.
//! - [`Handlers`]: Rust code that answers tools: those without an HTTP binding, API tools it
//!   replaces, and new tools of its own ([`OwnTools`]: an argument type deriving `JsonSchema`
//!   gives the input schema, its doc comment the description). A generated crate's
//!   `generated::RustTools` has one typed method per such tool.
//! - [`Context`]: what a Rust tool is called with: [`Context::call`] calls the API's tools as a
//!   model's call goes (credentials, hooks, retries) and answers whole responses; who called, and
//!   asking the user and reporting progress. A generated crate wraps it in its typed `Api`.
//! - [`Error`]: what a hook or a Rust tool fails with. The call fails and the model sees the
//!   message as a tool error; `?` converts `String`s, `&str`s, reqwest and serde_json errors, and
//!   invalid header values.
//! - [`Request`] (with [`Body`] and [`Part`]): the upstream request a hook may change: its
//!   fields are part of this module's promise (the methods of these types are not).
//! - [`CallToolResult`] and [`ContentBlock`] (rmcp's): a result, as `after_response` sees it.
//!
//! ```ignore
//! use crate::ext::{self, Error, Map, Request, Value, header};
//!
//! pub struct Hooks;
//!
//! impl ext::Hooks for Hooks {
//!     async fn before_request(&self, tool: &str, _args: &Map<String, Value>, request: &mut Request) -> Result<(), Error> {
//!         if tool == "deletePet" {
//!             return Err(Error::new("deleting pets is switched off"));
//!         }
//!         let token = reqwest::get("http://127.0.0.1:9000/token").await?.text().await?;
//!         request.headers.insert(header::AUTHORIZATION, header::HeaderValue::from_str(&format!("Bearer {token}"))?);
//!         Ok(())
//!     }
//! }
//! ```

use std::fmt;
use std::future::Future;

mod context;
pub(crate) mod hooks;
mod own;

#[doc(no_inline)]
pub use reqwest::header;
pub use rmcp::model::{CallToolResult, ContentBlock};
pub use serde_json::{Map, Value, json};

pub use self::context::Context;
pub use self::hooks::{Extensions, HandlerFuture, Handlers};
pub use self::own::OwnTools;
pub use crate::upstream::request::{Part, PreparedBody as Body, PreparedRequest as Request};

/// Customisation of the calls that go to the API. Both methods do nothing unless implemented.
///
/// Implement `before_request` as an `async fn`: the engine awaits it before each request (its
/// future must be `Send`, so hold no `std::sync::MutexGuard` or `Rc` across an `.await`).
pub trait Hooks: Send + Sync + 'static {
    /// Called before each upstream request of `tool`, after credentials were added, with the
    /// tool's arguments (already checked against its schema). Change the URL, headers or body; an
    /// `Err` refuses the call and the model sees its message.
    fn before_request(
        &self,
        tool: &str,
        args: &Map<String, Value>,
        request: &mut Request,
    ) -> impl Future<Output = Result<(), Error>> + Send {
        let _ = (tool, args, request);
        async { Ok(()) }
    }

    /// Called with each result of `tool` (HTTP-bound or answered by a handler) before it goes
    /// back to the client.
    fn after_response(&self, tool: &str, result: &mut CallToolResult) {
        let _ = (tool, result);
    }
}

/// Why a hook refused a call or a handler failed. The model sees [`Error::message`] as the
/// tool's error text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    message: String,
}

impl Error {
    /// An error with this message for the model: say what went wrong and, if the model can do
    /// something about it, what.
    pub fn new(message: impl Into<String>) -> Error {
        Error { message: message.into() }
    }

    /// The error of a Rust tool that is still the generated stub.
    pub fn not_implemented(tool: &str) -> Error {
        Error::new(format!("`{tool}` is not implemented yet: write its method in src/handlers.rs"))
    }

    /// The message the model sees.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error's message followed by its causes (`error sending request: connection refused`).
    fn with_causes(e: &dyn std::error::Error) -> Error {
        let mut message = e.to_string();
        let mut cause = e.source();
        while let Some(c) = cause {
            let text = c.to_string();
            if !message.contains(&text) {
                message.push_str(": ");
                message.push_str(&text);
            }
            cause = c.source();
        }
        Error::new(message)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Error {
        Error::new(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Error {
        Error::new(message)
    }
}

impl From<reqwest::Error> for Error {
    fn from(e: reqwest::Error) -> Error {
        Error::with_causes(&e)
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Error {
        Error::with_causes(&e)
    }
}

impl From<header::InvalidHeaderValue> for Error {
    fn from(e: header::InvalidHeaderValue) -> Error {
        Error::with_causes(&e)
    }
}

#[cfg(test)]
mod tests;
