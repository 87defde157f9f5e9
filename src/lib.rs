//! mcpgen: API descriptions (OpenAPI 2.0/3.0/3.1, function-calling tool lists) to MCP servers.
//!
//! The pipeline (see ARCHITECTURE.md): [`load`] -> [`normalize`] -> [`tools`] -> emit / serve.
//! Each stage is a plain function from one representation to the next.

pub mod cli;
pub mod conventions;
pub mod diag;
pub mod error;
pub mod export;
pub mod generate;
pub mod ir;
pub mod load;
pub mod mem;
pub mod names;
pub mod normalize;
pub mod pipeline;
pub mod progress;
pub mod runtime;
pub mod schema;
pub mod tokens;
pub mod tools;

pub use error::{Error, Result};
