//! JSON Schema knowledge shared by the stages and the engine.
//!
//! [`keywords`] is defined in the engine, as `src/runtime/keywords.rs`, because the engine needs it
//! too (compact schemas) and `src/runtime/` is copied verbatim into generated crates, where it may
//! name nothing outside itself. The stages name it here, by what it is (`schema::keywords`), not by
//! where the engine keeps it; both paths are the same module.

pub(crate) use mcpgen_config::keywords;
