//! Code mode (`--tool-mode code`): a model writes a short script that calls the API's tools as
//! async functions (`await api.pulls_list({owner, repo, state: "open"})`), run in an embedded
//! sandbox, instead of one tool call per step.
//!
//! - [`names`]: tool names as identifiers, and back; `$defs` names as type names;
//! - [`escape`]: untrusted text as string literals, property names and comments;
//! - [`declare`](mod@declare): schemas as TypeScript types, tools as functions (what
//!   `describe_tools` answers);
//! - `shape`: a response's shape string as a return type;
//! - [`sandbox`]: QuickJS running one script under its limits, its API calls through a host.
//!
//! What is pure here knows nothing of the engine: code mode's tools on the engine, and the host
//! that makes a script's calls as direct calls, are the engine's (`engine/code.rs`).

pub mod declare;
pub mod escape;
pub mod names;
pub mod sandbox;
mod shape;

pub use declare::{Options, declare_all, declare_tools};
pub use names::ScriptNames;

#[cfg(test)]
mod tests;
