//! What the operator chooses at start-up: [`EngineOptions`].

use std::sync::Arc;

use super::pins;
use crate::metrics::Metrics;
use crate::upstream::UpstreamPolicy;
use crate::upstream::identity::Users;

/// What the operator chooses at start-up (command-line flags of `serve` and of generated crates).
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// Overrides the config's base URL.
    pub base_url: Option<String>,
    /// Static headers sent with every upstream request (`--header 'Name: value'`).
    pub headers: Vec<(String, String)>,
    /// Timeout, response size cap, retries, concurrency and rate limit toward the upstream.
    pub policy: UpstreamPolicy,
    /// Where calls are counted; shared by the engines of one server so that counts go on across
    /// a reload.
    pub metrics: Arc<Metrics>,
    /// Log each call's line at `info` (an access log, for `--log-format json`); else at `debug`.
    pub log_calls: bool,
    /// How long clients may cache lists (`--list-ttl`); `crate::engine::caching::DEFAULT_LIST_TTL` when
    /// `None`.
    pub list_ttl: Option<std::time::Duration>,
    /// Discovery is served whatever the mode (Streamable HTTP's `/mcp/discovery`): the search
    /// index is built in the background at start and the search model loaded, as in discovery
    /// mode.
    pub serves_discovery: bool,
    /// The tools `--pin-definitions` withheld from this catalogue (see `pins`): a call to one
    /// says why.
    pub withheld: pins::Withheld,
    /// Where users' own tokens at the APIs are kept (`--upstream-auth user`, `--token-store`;
    /// `()` without the feature `user-auth`).
    pub users: Users,
}
