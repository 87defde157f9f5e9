//! The engine's errors, by what went wrong, so that callers (`mcpgen serve`, a generated crate's
//! `main`, a user's own code) can match on them. Each carries the message a person or a model
//! reads; a failed tool call becomes an `isError` result with that message.

/// What went wrong in the engine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server cannot run as configured: a base URL, a header, a glob, a limit, the async
    /// runtime or the HTTP client.
    #[error("{0}")]
    Config(String),
    /// No tool of that name.
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    /// A tool withheld by `--pin-definitions`: its definition changed since it was approved, or
    /// it is new.
    #[error(
        "tool `{tool}` is withheld: {why}; it is served again once an operator approves it with `mcpgen pins update`"
    )]
    Withheld {
        /// The tool's name.
        tool: String,
        /// Why ([`crate::engine::pins::Reason::why`]).
        why: String,
    },
    /// A tool that the discovery path (`/mcp/discovery`) does not list, called there directly.
    #[error(
        "`{0}` is not called directly on this endpoint, which lists search_tools, describe_tools and call_tool: \
         call it through call_tool (with its name and arguments)"
    )]
    OnlyThroughCallTool(String),
    /// The caller's access token lacks the scopes the tool needs.
    #[error("the access token's scopes do not allow `{0}`")]
    InsufficientScope(String),
    /// The arguments cannot be sent the way the tool's binding says: a missing path parameter, a
    /// header value that is not header text, a path that would leave the API.
    #[error("{0}")]
    Arguments(String),
    /// The call's credentials could not be added (a value that is not header text, an OAuth2
    /// token endpoint that failed).
    #[error("{0}")]
    Credentials(String),
    /// The upstream API could not be reached, did not answer in time, or its answer could not be
    /// read.
    #[error("{message}")]
    Upstream {
        /// What kind of failure it was.
        fault: UpstreamFault,
        /// What happened, for the model: the method and URL (never its query, which may hold a
        /// key) and the cause.
        message: String,
    },
    /// The MCP transport failed: the address is in use, stdio closed, the HTTP server stopped.
    #[error("{0}")]
    Transport(String),
    /// What was asked for needs a feature this server was built without (a generated crate
    /// carries only what its config needs).
    #[error(
        "{what} needs the `{feature}` feature, which this server was built without: regenerate the crate with `mcpgen generate --with {feature}` (or build mcpgen-runtime with `--features {feature}`)"
    )]
    MissingFeature {
        /// The cargo feature of mcpgen-runtime.
        feature: &'static str,
        /// The flag or setting that needs it (`--metrics-bind`).
        what: String,
    },
}

impl Error {
    /// [`Error::MissingFeature`] for `what`.
    pub fn missing_feature(feature: &'static str, what: impl Into<String>) -> Error {
        Error::MissingFeature { feature, what: what.into() }
    }
}

/// Why an upstream request failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpstreamFault {
    /// No answer within the timeout.
    Timeout,
    /// No connection (refused, DNS, TLS).
    Connect,
    /// The connection was made, then closed or reset before the response's status came.
    Closed,
    /// The status came, the body broke off.
    BrokenBody,
    /// Anything else reqwest reports.
    Other,
}

/// The engine's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::config::InvalidConfig> for Error {
    fn from(e: crate::config::InvalidConfig) -> Self {
        Error::Config(e.to_string())
    }
}
