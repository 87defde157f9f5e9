//! The HTTP server as an OAuth 2.1 resource server (MCP authorization, 2025-06-18 and
//! 2025-11-25): access tokens are JWTs from one authorization server, checked on every request to
//! `/mcp`; the Protected Resource Metadata (RFC 9728) tells clients where to get them.
//!
//! A token is accepted when its signature verifies against a key of the issuer's JWKS (found
//! through the issuer's metadata, RFC 8414 or OpenID Connect discovery, or given), with an
//! algorithm of [`ALGORITHMS`] that the key is for; its `iss` is the issuer; its `aud` names
//! this server (RFC 8707); and `exp`/`nbf` hold, give or take [`LEEWAY_SECS`]. Keys named by the
//! token itself (`jku`, `jwk`, `x5u`) are never used. The keys are cached: fetched at start,
//! again when a token names a key the cache lacks (rotation) or when they are older than
//! [`KEYS_MAX_AGE`], and never twice within the floor (`--oauth-jwks-min-refresh`), so that
//! tokens with made-up key ids cannot make the server hammer the authorization server.
//!
//! What the token allows travels as a [`Principal`] in the HTTP request's extensions, which rmcp
//! hands to the MCP handler (`RequestContext::extensions` holds the request's
//! `http::request::Parts`); there a [`Caller`] decides which tools are shown and may be called.
//! A `tools/call` outside the token's scopes is refused before it reaches the handler, with the
//! 403 `insufficient_scope` challenge that MCP's step-up authorization expects.
//!
//! Without the `oauth` feature only [`OAuthOptions`] is here, so that the flags parse and say
//! which feature they need.

use std::time::Duration;

#[cfg(feature = "oauth")]
mod gate;
#[cfg(feature = "oauth")]
pub(crate) mod jwks;
#[cfg(feature = "oauth")]
pub(crate) mod jwt_ring;
#[cfg(feature = "oauth")]
mod resource;

#[cfg(feature = "oauth")]
pub use gate::{Gate, metadata, require_access};
#[cfg(feature = "oauth")]
pub use resource::*;

/// The default floor between two fetches of the JWKS.
pub const DEFAULT_MIN_REFRESH: Duration = Duration::from_secs(30);

/// How the server checks access tokens (`--oauth-issuer` and its companions).
#[derive(Debug, Clone)]
pub struct OAuthOptions {
    /// The authorization server's issuer identifier: the `iss` of its tokens.
    pub issuer: String,
    /// The `aud` values accepted; empty: the resource URL.
    pub audiences: Vec<String>,
    /// The JWKS URL, when the issuer's metadata is not to be read for it.
    pub jwks_url: Option<String>,
    /// This server's canonical URL as clients reach it (the RFC 9728 `resource`); `None`:
    /// `http://<bound address>/mcp`.
    pub resource: Option<String>,
    /// The shortest time between two JWKS fetches.
    pub jwks_min_refresh: Duration,
}
