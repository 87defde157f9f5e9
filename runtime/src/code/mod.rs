//! Code mode (`--tool-mode code`, in progress): a model writes a short script that calls the API's
//! tools as async functions (`await api.pulls_list({owner, repo, state: "open"})`), run in a
//! sandbox. This room has what the model reads first: each tool declared as a typed
//! TypeScript-style function ([`declare`], [`declare_all`]), under a JavaScript identifier
//! ([`ScriptNames`]).
//!
//! - [`names`]: tool names as identifiers, and back; `$defs` names as type names;
//! - [`escape`]: untrusted text as string literals, property names and comments;
//! - [`declare`](mod@declare): schemas as TypeScript types, tools as functions;
//! - `shape`: a response's shape string as a return type.

pub mod declare;
pub mod escape;
pub mod names;
pub mod sandbox;
mod shape;

pub use declare::{NamedTypes, Options, declare, declare_all, declare_tools};
pub use names::ScriptNames;

#[cfg(test)]
mod tests;
