//! The engine shared by `mcpgen serve` and generated crates. This module tree refers only to
//! itself (`self::`/`super::`) and to crates a generated Cargo.toml lists, so that its source can
//! be copied verbatim into a generated crate.

pub mod model;
