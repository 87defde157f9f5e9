//! `mcpgen serve --transport http --oauth-issuer URL`: the server as an OAuth 2.1 resource
//! server. A local authorization server (metadata and JWKS on 127.0.0.1) stands for the issuer;
//! tokens are signed here with test keys (tests/fixtures/oauth/, and EC keys made on the spot).
//! Each case starts its own server; the mock upstream records what reaches the API.

#[path = "../common/mod.rs"]
mod common;

mod idp;
mod real_idp;
mod server;

mod challenges;
mod exchange;
mod operators;
mod scopes;
mod surfaces;
mod tokens;
mod upstream_identity;
mod user;
mod user_flow;
mod user_replicas;
