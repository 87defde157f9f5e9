//! What `tools/list` shows, as the engine holds it: the rule is the contract's
//! ([`crate::config::exposure`]); a server built without a feature falls back, or refuses a mode
//! asked for by name (the parts that stand in for the features say which: `search_off.rs`,
//! `code_off.rs`).

pub use crate::config::exposure::*;
