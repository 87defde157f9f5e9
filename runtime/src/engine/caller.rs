//! Who is calling, as far as tools go: a [`Caller`] decides which tools are shown and may be
//! called. With inbound OAuth (feature `oauth`) it is the bearer of a validated token, a
//! [`Principal`] that the HTTP layer puts in the request's extensions; otherwise every caller is
//! trusted.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use crate::config::scopes_allow;

/// What a validated access token says about its bearer.
pub struct Principal {
    /// The `sub` claim.
    pub subject: Option<String>,
    /// The `scope` (space-separated) or `scp` (a list) claim.
    pub scopes: BTreeSet<String>,
    token: String,
}

impl Principal {
    /// A principal for a validated token: its subject, its scopes and the token itself.
    #[cfg(feature = "oauth")]
    pub(crate) fn new(subject: Option<String>, scopes: BTreeSet<String>, token: String) -> Principal {
        Principal { subject, scopes, token }
    }

    /// The access token itself, for `--upstream-auth passthrough` only.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether the token holds `scope`.
    pub fn has(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Principal")
            .field("subject", &self.subject)
            .field("scopes", &self.scopes)
            .field("token", &"***")
            .finish()
    }
}

/// Who is calling, as far as tools go.
#[derive(Debug, Clone, Default)]
pub enum Caller {
    /// Tokens are not checked (stdio, no auth, `--auth-token`): every tool.
    #[default]
    Trusted,
    /// The bearer of a validated access token: the tools its scopes allow.
    Token(Arc<Principal>),
    /// Tokens are checked and this request carried none that passed: only tools that need no
    /// scope. (The HTTP layer refuses such requests first; this is the handler's own stance.)
    Anonymous,
}

impl Caller {
    /// Whether the caller may see and call a tool that needs `scopes`.
    pub fn may_use(&self, scopes: &[Vec<String>]) -> bool {
        match self {
            Caller::Trusted => true,
            Caller::Token(p) => scopes_allow(scopes, |s| p.has(s)),
            Caller::Anonymous => scopes.is_empty(),
        }
    }

    /// Whether some tools may be hidden from this caller.
    pub fn is_restricted(&self) -> bool {
        !matches!(self, Caller::Trusted)
    }

    /// The validated token, if any.
    pub fn principal(&self) -> Option<&Principal> {
        match self {
            Caller::Token(p) => Some(p),
            _ => None,
        }
    }
}

/// The caller of an MCP request: the [`Principal`] the middleware put in the HTTP request's
/// extensions (rmcp passes the request's parts on). With `oauth` off, every caller is trusted.
pub fn caller(oauth: bool, extensions: &rmcp::model::Extensions) -> Caller {
    caller_of(oauth, extensions.get::<http::request::Parts>())
}

/// The caller of the HTTP request of `parts` (none: a request that came otherwise).
pub fn caller_of(oauth: bool, parts: Option<&http::request::Parts>) -> Caller {
    if !oauth {
        return Caller::Trusted;
    }
    parts
        .and_then(|parts| parts.extensions.get::<Arc<Principal>>())
        .map_or(Caller::Anonymous, |p| Caller::Token(p.clone()))
}
