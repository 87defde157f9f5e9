//! The engine shared by `mcpgen serve` and generated crates. This module tree refers only to
//! itself (`self::`/`super::`) and to crates a generated Cargo.toml lists, so that its source can
//! be copied verbatim into a generated crate.

pub mod analyzer;
pub mod args;
pub mod auth;
pub mod binding;
pub mod caching;
pub mod cli;
pub mod compact;
pub mod confirm;
mod conns;
mod direct;
pub mod discovery;
pub mod embed_cache;
pub mod encode;
pub mod engine;
pub mod error;
pub mod ext;
pub mod fast_call;
mod front;
pub mod hooks;
mod jwks;
pub mod jwt_ring;
pub mod keywords;
pub mod legacy_sse;
pub mod lexicon;
pub mod live;
mod log_fields;
pub mod manners;
pub mod metrics;
pub mod model;
pub mod oauth;
pub mod progress;
mod query;
pub mod reload;
pub mod request;
pub mod resources;
pub mod response;
pub mod routes;
pub mod search;
pub mod security;
pub mod semantic;
pub mod server;
mod target;
pub mod transport;
pub mod upstream;
pub mod workers;

pub use engine::{Engine, EngineOptions, UpstreamAuth};
pub use error::Error;
pub use metrics::{Metrics, Readiness};
pub use server::McpServer;
pub use upstream::{UpstreamPolicy, install_crypto_provider};
