//! mcpgen: API descriptions (OpenAPI 2.0/3.0/3.1, function-calling tool lists) to MCP servers.
//!
//! The pipeline (see ARCHITECTURE.md): load -> normalize -> bind -> tools -> emit / serve. Each
//! stage is a plain function from one representation to the next.
//!
//! The library's surface is narrow on purpose:
//! - [`pipeline`]: run the stages on an input ([`pipeline::run`]), and the stages' options and
//!   outputs;
//! - [`ir`]: the intermediate representation every input becomes;
//! - [`runtime`]: the engine that serves a runtime config as an MCP server (the same code a
//!   generated crate copies);
//! - [`generate`]: a Rust crate from a tool set;
//! - [`export`]: tool lists for LLM APIs, and OpenAPI from the IR;
//! - [`responses`]: samples of operations' responses and their sizes.

#![warn(unreachable_pub, missing_docs)]

mod cli;
mod conventions;
mod diag;
mod diff;
mod doctor;
mod error;
pub mod export;
pub mod generate;
mod infer;
pub mod ir;
mod load;
mod mem;
mod merge;
mod names;
mod normalize;
mod parallel;
pub mod pipeline;
mod progress;
pub mod responses;
mod schema;
mod tokens;
mod tools;
pub mod trust;

pub use cli::{InspectReport, main};
pub use error::{Error, Location, Result};
pub use mcpgen_runtime as runtime;
