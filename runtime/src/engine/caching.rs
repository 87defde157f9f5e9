//! Caching hints (SEP-2549, MCP 2026-07-28): how long a client may keep a `tools/list`,
//! `resources/list`, `resources/templates/list` or `resources/read` result, and whether a cache
//! may share it between users.
//!
//! Lists change only when the server restarts or reloads its config, so they may be kept for
//! `--list-ttl` seconds. What an API answers can change at any moment and mcpgen cannot know when,
//! so API data read as a resource is stale at once (`ttlMs: 0`); the API description, made from
//! the config, keeps as long as the lists. With OAuth access tokens each caller sees the tools
//! and resources its scopes allow (and with passthrough, its own data), so every result is
//! `private`; otherwise every caller gets the same answers and they are `public`.

use std::time::Duration;

use clap::Args;
use rmcp::model::CacheScope;

/// `--list-ttl` when not given.
pub const DEFAULT_LIST_TTL: Duration = Duration::from_secs(60);

/// `--list-ttl`: how long clients may keep lists (a server flag, not part of the config).
#[derive(Debug, Clone, Default, Args)]
pub struct CachingArgs {
    /// How long clients may cache tools/list, resources/list, resources/templates/list and the API
    /// description (the `ttlMs` hint of MCP 2026-07-28), in seconds [default: 60; 0 with
    /// --watch, whose changes HTTP clients are not told of].
    #[arg(long, value_name = "SECONDS", help_heading = "Server")]
    pub list_ttl: Option<u64>,
}

impl CachingArgs {
    /// The lists' time to live.
    pub fn list_ttl(&self) -> Duration {
        self.list_ttl.map_or(DEFAULT_LIST_TTL, Duration::from_secs)
    }
}

/// The two hints of one result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHints {
    /// How long the result stays fresh, in milliseconds.
    pub ttl_ms: u64,
    /// Whether shared caches may serve it to other users.
    pub scope: CacheScope,
}

impl CacheHints {
    /// For lists and the API description: `list_ttl`, private when the answer depends on the
    /// caller.
    pub fn lists(list_ttl: Duration, per_caller: bool) -> CacheHints {
        let ttl_ms = u64::try_from(list_ttl.as_millis()).unwrap_or(u64::MAX);
        CacheHints { ttl_ms, scope: scope(per_caller) }
    }

    /// For what the API answered: stale at once (the API gives mcpgen no way to know for how
    /// long it holds), private when the answer depends on the caller.
    pub fn api_data(per_caller: bool) -> CacheHints {
        CacheHints { ttl_ms: 0, scope: scope(per_caller) }
    }
}

fn scope(per_caller: bool) -> CacheScope {
    if per_caller { CacheScope::Private } else { CacheScope::Public }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_for_the_ttl_and_are_public_without_oauth() {
        let h = CacheHints::lists(Duration::from_secs(90), false);
        assert_eq!(h, CacheHints { ttl_ms: 90_000, scope: CacheScope::Public });
    }

    #[test]
    fn per_caller_answers_are_private() {
        assert_eq!(CacheHints::lists(DEFAULT_LIST_TTL, true).scope, CacheScope::Private);
        assert_eq!(CacheHints::api_data(true), CacheHints { ttl_ms: 0, scope: CacheScope::Private });
    }

    #[test]
    fn list_ttl_defaults_to_a_minute() {
        assert_eq!(CachingArgs::default().list_ttl(), Duration::from_secs(60));
        assert_eq!(CachingArgs { list_ttl: Some(0) }.list_ttl(), Duration::ZERO);
    }
}
