//! The server's flags, which `mcpgen serve` and generated crates share. A flag only a feature
//! honours is hidden from `--help` without it (`hide = !cfg!(..)`): a crate's help lists what it
//! can do. It is still read: one that asks for what the build lacks (`--oauth-issuer`,
//! `--metrics-bind`...) is refused at start naming the feature to add (`Error::MissingFeature`),
//! the others (a script's limits without code mode) have nothing to act on.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, ValueEnum};

use crate::UpstreamAuth;
use crate::auth::OAuthOptions;
use crate::config::{Context, ResponseDetail, ResponseFormat, SchemaDetail, ToolMode, UpstreamIdentity};
use crate::error::Error;

/// `--transport`: how clients reach the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Transport {
    // A doc comment on a `ValueEnum` variant would become `--help` text (clap), which lists these
    // bare; the flag's own help says what they are.
    #[allow(missing_docs)]
    Stdio,
    #[allow(missing_docs)]
    Http,
}

/// `--log-format`: how log lines on stderr look.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// For people.
    #[default]
    Text,
    /// One JSON object per line, for log collectors, with a line per tool call (request_id, tool,
    /// outcome, status, duration_ms; at debug in text).
    Json,
}

/// `--tool-mode`: which tools `tools/list` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolModeArg {
    /// All tools for a small API (see --auto-max-tools, --auto-max-tokens), discovery otherwise.
    Auto,
    /// Every tool.
    All,
    /// Three tools: search_tools, describe_tools, call_tool (and pinned tools).
    #[value(hide = !cfg!(feature = "discovery"))]
    Discovery,
    /// Three tools: search_tools, describe_tools (TypeScript declarations), run_script (a JavaScript
    /// script calling the API, run in a sandbox).
    #[value(hide = !cfg!(feature = "code"))]
    Code,
}

impl From<ToolModeArg> for ToolMode {
    fn from(a: ToolModeArg) -> Self {
        match a {
            ToolModeArg::Auto => ToolMode::Auto,
            ToolModeArg::All => ToolMode::All,
            ToolModeArg::Discovery => ToolMode::Discovery,
            ToolModeArg::Code => ToolMode::Code,
        }
    }
}

/// `--schema-detail`: how much of each schema clients are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaDetailArg {
    /// Compact when listing every tool in full would cost more than --auto-max-tokens.
    Auto,
    // No doc comment: it would become `--help` text (clap), which lists `full` bare.
    #[allow(missing_docs)]
    Full,
    /// Nested descriptions cut to a sentence; examples, externalDocs, x-* and redundant titles dropped.
    Compact,
}

impl From<SchemaDetailArg> for SchemaDetail {
    fn from(a: SchemaDetailArg) -> Self {
        match a {
            SchemaDetailArg::Auto => SchemaDetail::Auto,
            SchemaDetailArg::Full => SchemaDetail::Full,
            SchemaDetailArg::Compact => SchemaDetail::Compact,
        }
    }
}

/// `--response-detail`: how JSON results are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResponseDetailArg {
    /// Minified, without members that only link back into the API (URLs on its own origin).
    Lean,
    /// The body as the API sent it, byte for byte.
    Full,
}

impl From<ResponseDetailArg> for ResponseDetail {
    fn from(a: ResponseDetailArg) -> Self {
        match a {
            ResponseDetailArg::Lean => ResponseDetail::Lean,
            ResponseDetailArg::Full => ResponseDetail::Full,
        }
    }
}

/// `--response-format`: whether lists of objects are written as tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ResponseFormatArg {
    // No doc comment: it would become `--help` text (clap), which lists `json` bare.
    #[allow(missing_docs)]
    Json,
    /// A list of objects as a header row and one tab-separated line per item.
    Table,
    /// A table where it is much shorter than JSON and loses nothing.
    Auto,
}

impl From<ResponseFormatArg> for ResponseFormat {
    fn from(a: ResponseFormatArg) -> Self {
        match a {
            ResponseFormatArg::Json => ResponseFormat::Json,
            ResponseFormatArg::Table => ResponseFormat::Table,
            ResponseFormatArg::Auto => ResponseFormat::Auto,
        }
    }
}

/// `--upstream-auth`: whose credentials upstream requests carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum UpstreamAuthArg {
    /// The server's own, from its environment variables.
    #[default]
    Server,
    /// The caller's OAuth access token (needs --oauth-issuer), for APIs that trust the same
    /// authorization server.
    Passthrough,
    /// The caller's OAuth access token exchanged (RFC 8693) for one issued for the API (needs
    /// --oauth-issuer and --exchange-token-url).
    Exchange,
    /// Each caller's own authorization at the API, through its OAuth2 authorization-code scheme
    /// (needs --oauth-issuer; tokens kept encrypted in --token-store with MCPGEN_TOKEN_STORE_KEY).
    #[value(hide = !cfg!(feature = "user-auth"))]
    User,
}

impl From<UpstreamAuthArg> for UpstreamAuth {
    fn from(a: UpstreamAuthArg) -> Self {
        match a {
            UpstreamAuthArg::Server => UpstreamAuth::Server,
            UpstreamAuthArg::Passthrough => UpstreamAuth::Passthrough,
            UpstreamAuthArg::Exchange => UpstreamAuth::Exchange,
            UpstreamAuthArg::User => UpstreamAuth::User,
        }
    }
}

/// Whose identity upstream requests carry (`serve`, and recorded by `config` and `generate` as
/// the config's `upstream.auth`).
#[derive(Debug, Clone, Default, Args)]
pub struct UpstreamAuthArgs {
    /// Whose credentials upstream requests carry: the server's own (env vars), the caller's
    /// OAuth access token (passthrough, for APIs that trust the same authorization server), a
    /// token exchanged for it (exchange), or each caller's own authorization at the API (user)
    /// [default: the config's `upstream.auth`, else server].
    #[arg(long, value_enum, value_name = "WHOSE", help_heading = "Upstream", hide = !cfg!(feature = "oauth"))]
    pub upstream_auth: Option<UpstreamAuthArg>,

    /// With --upstream-auth exchange: the authorization server's token endpoint, where each
    /// caller's token is exchanged (RFC 8693); the server's client is MCPGEN_EXCHANGE_CLIENT_ID
    /// and MCPGEN_EXCHANGE_CLIENT_SECRET.
    #[arg(long, value_name = "URL", help_heading = "Upstream", hide = !cfg!(feature = "oauth"))]
    pub exchange_token_url: Option<String>,

    /// With --upstream-auth exchange: the API's resource indicator (RFC 8707) for the exchanged token.
    #[arg(long, value_name = "URI", help_heading = "Upstream", hide = !cfg!(feature = "oauth"))]
    pub exchange_resource: Option<String>,

    /// With --upstream-auth exchange: the API's audience for the exchanged token.
    #[arg(long, value_name = "AUDIENCE", help_heading = "Upstream", hide = !cfg!(feature = "oauth"))]
    pub exchange_audience: Option<String>,

    /// With --upstream-auth exchange: the scopes asked for (space-separated).
    #[arg(long, value_name = "SCOPES", help_heading = "Upstream", hide = !cfg!(feature = "oauth"))]
    pub exchange_scope: Option<String>,

    /// With --upstream-auth user: the API's resource indicator (RFC 8707), sent to its
    /// authorization server.
    #[arg(long, value_name = "URI", help_heading = "Upstream", hide = !cfg!(feature = "user-auth"))]
    pub user_auth_resource: Option<String>,

    /// With --upstream-auth user: the API's OAuth2 authorization-code scheme to use, when it
    /// declares several.
    #[arg(long, value_name = "NAME", help_heading = "Upstream", hide = !cfg!(feature = "user-auth"))]
    pub user_auth_scheme: Option<String>,
}

impl UpstreamAuthArgs {
    /// The identity the flags describe, as the config records it; `None` when no
    /// `--upstream-auth` is given. An `--exchange-*` or `--user-auth-*` flag of another mode is an
    /// error.
    pub fn identity(&self) -> Result<Option<UpstreamIdentity>, Error> {
        let exchange = self.exchange_token_url.is_some()
            || self.exchange_resource.is_some()
            || self.exchange_audience.is_some()
            || self.exchange_scope.is_some();
        let user = self.user_auth_resource.is_some() || self.user_auth_scheme.is_some();
        if exchange && self.upstream_auth != Some(UpstreamAuthArg::Exchange) {
            return Err(Error::Config("the --exchange-* flags need --upstream-auth exchange".into()));
        }
        if user && self.upstream_auth != Some(UpstreamAuthArg::User) {
            return Err(Error::Config("the --user-auth-* flags need --upstream-auth user".into()));
        }
        if self.upstream_auth == Some(UpstreamAuthArg::Exchange) && self.exchange_token_url.is_none() {
            return Err(Error::Config(
                "--upstream-auth exchange needs --exchange-token-url: the authorization server's token endpoint".into(),
            ));
        }
        Ok(self.upstream_auth.map(|mode| match mode {
            UpstreamAuthArg::Server => UpstreamIdentity::Server,
            UpstreamAuthArg::Passthrough => UpstreamIdentity::Passthrough,
            UpstreamAuthArg::Exchange => UpstreamIdentity::Exchange {
                token_url: self.exchange_token_url.clone().unwrap_or_default(),
                resource: self.exchange_resource.clone(),
                audience: self.exchange_audience.clone(),
                scope: self.exchange_scope.clone(),
            },
            UpstreamAuthArg::User => UpstreamIdentity::User {
                scheme: self.user_auth_scheme.clone(),
                resource: self.user_auth_resource.clone(),
            },
        }))
    }
}

/// OAuth 2.1 access tokens on `/mcp` (HTTP): the MCP authorization spec's resource server.
#[derive(Debug, Clone, Default, Args)]
pub struct OAuthArgs {
    /// Require OAuth access tokens (JWTs) from this authorization server on /mcp (HTTP), e.g.
    /// https://auth.example.com; its keys are found through its metadata.
    #[arg(long, value_name = "URL", env = "MCPGEN_OAUTH_ISSUER", help_heading = "OAuth", hide = !cfg!(feature = "oauth"))]
    pub oauth_issuer: Option<String>,

    /// An `aud` value tokens may carry (repeatable) [default: the resource URL].
    #[arg(long, value_name = "AUDIENCE", help_heading = "OAuth", hide = !cfg!(feature = "oauth"))]
    pub oauth_audience: Vec<String>,

    /// This server's URL as clients reach it: the `resource` of its metadata (RFC 9728) [default:
    /// http://ADDR/mcp with the address it listens on].
    #[arg(long, value_name = "URL", help_heading = "OAuth", hide = !cfg!(feature = "oauth"))]
    pub oauth_resource: Option<String>,

    /// The authorization server's JWKS URL, instead of the one its metadata names.
    #[arg(long, value_name = "URL", help_heading = "OAuth", hide = !cfg!(feature = "oauth"))]
    pub oauth_jwks: Option<String>,

    /// Shortest time between two fetches of the JWKS (a token naming an unknown key fetches it
    /// again) [default: 30].
    #[arg(long, value_name = "SECONDS", help_heading = "OAuth", hide = !cfg!(feature = "oauth"))]
    pub oauth_jwks_min_refresh: Option<u64>,
}

impl OAuthArgs {
    /// The options, when `--oauth-issuer` is given; a companion flag without it is an error.
    pub fn options(&self) -> Result<Option<OAuthOptions>, Error> {
        let Some(issuer) = self.oauth_issuer.clone().filter(|i| !i.trim().is_empty()) else {
            let given = !self.oauth_audience.is_empty()
                || self.oauth_resource.is_some()
                || self.oauth_jwks.is_some()
                || self.oauth_jwks_min_refresh.is_some();
            if given {
                return Err(Error::Config("the --oauth-* flags need --oauth-issuer".into()));
            }
            return Ok(None);
        };
        if !cfg!(feature = "oauth") {
            return Err(Error::missing_feature("oauth", "--oauth-issuer"));
        }
        Ok(Some(OAuthOptions {
            issuer,
            audiences: self.oauth_audience.clone(),
            jwks_url: self.oauth_jwks.clone(),
            resource: self.oauth_resource.clone(),
            jwks_min_refresh: self.oauth_jwks_min_refresh.map_or(crate::auth::DEFAULT_MIN_REFRESH, Duration::from_secs),
        }))
    }
}

/// How tools are shown to clients; each flag overrides the runtime config's `context`.
#[derive(Debug, Clone, Default, Args)]
pub struct ContextArgs {
    /// Which tools tools/list shows [default: auto, or the config's]; over HTTP, /mcp (/mcp/tools shows every tool, /mcp/discovery the three discovery tools).
    #[arg(long, value_enum, value_name = "MODE", help_heading = "Context")]
    pub tool_mode: Option<ToolModeArg>,

    /// How much of each tool's schema clients see; calls are always checked against the full one [default: auto].
    #[arg(long, value_enum, value_name = "DETAIL", help_heading = "Context", hide = !cfg!(feature = "discovery"))]
    pub schema_detail: Option<SchemaDetailArg>,

    /// `auto` lists every tool up to this many tools [default: 40].
    #[arg(long, value_name = "N", help_heading = "Context", hide = !cfg!(feature = "discovery"))]
    pub auto_max_tools: Option<usize>,

    /// ... and up to this many tokens for the whole tools/list [default: 20000].
    #[arg(long, value_name = "TOKENS", help_heading = "Context", hide = !cfg!(feature = "discovery"))]
    pub auto_max_tokens: Option<usize>,

    /// In discovery mode, list the tools matching this glob directly too (repeatable), e.g. 'repos_get*'.
    #[arg(long, value_name = "GLOB", value_parser = parse_glob, help_heading = "Context", hide = !cfg!(feature = "discovery"))]
    pub pin_tool: Vec<String>,

    /// A sentence-embedding model directory (config.json, tokenizer.json, model.safetensors), e.g.
    /// all-MiniLM-L6-v2: discovery's search then also goes by what requests mean.
    #[arg(long, value_name = "DIR", env = "MCPGEN_SEARCH_MODEL", help_heading = "Context", hide = !cfg!(feature = "discovery"))]
    pub search_model: Option<std::path::PathBuf>,

    /// Characters of a tool result at most; a longer one is reduced to fit, with a note on how to
    /// get the rest (0: no limit) [default: 40000].
    #[arg(long, value_name = "N", help_heading = "Context")]
    pub max_result_chars: Option<usize>,

    /// How JSON results are written [default: lean].
    #[arg(long, value_enum, value_name = "DETAIL", help_heading = "Context")]
    pub response_detail: Option<ResponseDetailArg>,

    /// Whether lists of objects are written as tables [default: json].
    #[arg(long, value_enum, value_name = "FORMAT", help_heading = "Context")]
    pub response_format: Option<ResponseFormatArg>,

    /// In discovery mode, offer run_script too (code mode's sandboxed JavaScript).
    #[arg(long, help_heading = "Code mode", hide = !cfg!(feature = "code"))]
    pub run_script: bool,

    /// A script's wall time, in seconds [default: 10].
    #[arg(long, value_name = "SECS", value_parser = parse_positive_secs, help_heading = "Code mode", hide = !cfg!(feature = "code"))]
    pub script_timeout: Option<f64>,

    /// A script's memory, in MiB [default: 64].
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=4096), help_heading = "Code mode", hide = !cfg!(feature = "code"))]
    pub script_memory: Option<u32>,

    /// API calls one script may make [default: 200].
    #[arg(long, value_name = "N", help_heading = "Code mode", hide = !cfg!(feature = "code"))]
    pub script_max_calls: Option<usize>,

    /// Characters a script may return and print [default: 1000000].
    #[arg(long, value_name = "CHARS", help_heading = "Code mode", hide = !cfg!(feature = "code"))]
    pub script_max_output: Option<usize>,
}

/// A positive number of seconds.
fn parse_positive_secs(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 3600.0 => Ok(v),
        _ => Err(format!("`{s}` is not a number of seconds from 0 to 3600")),
    }
}

impl ContextArgs {
    /// Applies the flags given to a config's context.
    pub fn apply(&self, ctx: &mut Context) {
        if let Some(m) = self.tool_mode {
            ctx.tool_mode = m.into();
        }
        if let Some(d) = self.schema_detail {
            ctx.schema_detail = d.into();
        }
        if let Some(n) = self.auto_max_tools {
            ctx.auto_max_tools = n;
        }
        if let Some(n) = self.auto_max_tokens {
            ctx.auto_max_tokens = n;
        }
        for g in &self.pin_tool {
            if !ctx.pin_tools.contains(g) {
                ctx.pin_tools.push(g.clone());
            }
        }
        if let Some(dir) = &self.search_model {
            ctx.search_model = Some(dir.clone());
        }
        if let Some(n) = self.max_result_chars {
            ctx.max_result_chars = n;
        }
        if let Some(d) = self.response_detail {
            ctx.response_detail = d.into();
        }
        if let Some(f) = self.response_format {
            ctx.response_format = f.into();
        }
        ctx.run_script |= self.run_script;
        if let Some(t) = self.script_timeout {
            ctx.script.timeout_secs = t;
        }
        if let Some(m) = self.script_memory {
            ctx.script.memory_mib = m as usize;
        }
        if let Some(n) = self.script_max_calls {
            ctx.script.max_calls = n;
        }
        if let Some(n) = self.script_max_output {
            ctx.script.max_output_chars = n;
        }
    }
}

/// A `--pin-tool` glob, checked where discovery, which reads it, is built in.
fn parse_glob(s: &str) -> Result<String, Error> {
    #[cfg(feature = "discovery")]
    glob::Pattern::new(s).map_err(|e| Error::Config(format!("invalid glob {s:?}: {e}")))?;
    Ok(s.to_string())
}

/// Flags of a running server.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// stdio (for desktop clients) or Streamable HTTP at /mcp.
    #[arg(long, value_enum, default_value_t = Transport::Stdio, help_heading = "Server", hide = !cfg!(feature = "http"))]
    pub transport: Transport,

    /// Address to listen on (HTTP). Binds loopback unless told otherwise.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080", help_heading = "Server", hide = !cfg!(feature = "http"))]
    pub bind: SocketAddr,

    /// Bearer token clients must send on /mcp (HTTP). Prefer the env var over the flag.
    #[arg(long, value_name = "TOKEN", env = "MCPGEN_AUTH_TOKEN", hide_env_values = true, help_heading = "Server", hide = !cfg!(feature = "http"))]
    pub auth_token: Option<String>,

    /// Browser Origin allowed besides localhost (repeatable), e.g. https://app.example.com.
    #[arg(long, value_name = "ORIGIN", help_heading = "Server", hide = !cfg!(feature = "http"))]
    pub allow_origin: Vec<String>,

    /// Host header value allowed besides localhost and the bind address (repeatable).
    #[arg(long, value_name = "HOST", help_heading = "Server", hide = !cfg!(feature = "http"))]
    pub allow_host: Vec<String>,

    /// Also serve the old HTTP+SSE transport (2024-11-05) at /sse and /messages, for clients
    /// that never moved to Streamable HTTP.
    #[arg(long, help_heading = "Server", hide = !cfg!(feature = "legacy-sse"))]
    pub legacy_sse: bool,

    /// Threads serving HTTP, each with its own connections [default: one per CPU].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024), help_heading = "Server", hide = !cfg!(feature = "http"))]
    pub workers: Option<u16>,

    /// OAuth access tokens on /mcp.
    #[command(flatten)]
    pub oauth: Box<OAuthArgs>,

    /// `--upstream-auth` and the flags of its modes.
    #[command(flatten)]
    pub identity: UpstreamAuthArgs,

    /// With --upstream-auth user: where users' tokens are kept, encrypted with
    /// MCPGEN_TOKEN_STORE_KEY: a file (one replica) or redis://HOST:PORT (several; password in
    /// MCPGEN_TOKEN_STORE_PASSWORD) [default: $XDG_STATE_HOME/mcpgen/upstream-tokens.json].
    #[arg(long, value_name = "PATH|URL", env = "MCPGEN_TOKEN_STORE", help_heading = "Upstream", hide = !cfg!(feature = "user-auth"))]
    pub token_store: Option<String>,

    /// Serve /metrics (Prometheus), /health and /ready on this address instead, without the bearer
    /// token (an internal port); with any transport, stdio included. Without it, HTTP serves
    /// /metrics beside /mcp, behind --auth-token when one is set (with --oauth-issuer, only here).
    #[arg(long, value_name = "ADDR", help_heading = "Server", hide = !cfg!(feature = "metrics"))]
    pub metrics_bind: Option<SocketAddr>,

    /// Log lines as text or JSON (one object per line, a request id per tool call).
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = LogFormat::Text, help_heading = "Server")]
    pub log_format: LogFormat,

    /// Static header sent upstream with every request (repeatable), e.g. 'X-Tenant: acme'.
    #[arg(long, value_name = "'NAME: VALUE'", value_parser = parse_header, help_heading = "Upstream")]
    pub header: Vec<(String, String)>,

    /// Upstream request timeout in seconds [default: 30, or the config's].
    #[arg(long, value_name = "SECONDS", help_heading = "Upstream")]
    pub timeout: Option<f64>,

    /// Longest upstream response kept; longer ones are truncated [default: 1048576, or the config's].
    #[arg(long, value_name = "BYTES", help_heading = "Upstream")]
    pub max_response_bytes: Option<u64>,

    /// Retries after connection errors, 429 and 502/503/504 (idempotent methods only by default).
    #[arg(long, value_name = "N", default_value_t = 1, help_heading = "Upstream")]
    pub retries: u32,

    /// Retry POST and PATCH too.
    #[arg(long, help_heading = "Upstream")]
    pub retry_non_idempotent: bool,

    /// Concurrent upstream requests at most.
    #[arg(long, value_name = "N", default_value_t = 32, help_heading = "Upstream")]
    pub max_concurrency: usize,

    /// Upstream requests per second at most (no limit by default).
    #[arg(long, value_name = "RPS", help_heading = "Upstream")]
    pub rate_limit: Option<f64>,

    /// `--tool-mode`, `--schema-detail`, ...: overrides of the config's `context`.
    #[command(flatten)]
    pub context: ContextArgs,

    /// `--resources`, `--resource-scheme`: overrides of the config's `resources`.
    #[command(flatten)]
    pub resources: Box<crate::engine::resources::ResourceArgs>,

    /// `--list-ttl`.
    #[command(flatten)]
    pub caching: crate::engine::caching::CachingArgs,

    /// `--confirm`.
    #[command(flatten)]
    pub confirm: crate::engine::confirm::ConfirmArgs,

    /// `--pin-definitions`, `--pins-auto-approve`.
    #[command(flatten)]
    pub pins: crate::engine::pins::PinArgs,
}

/// Parses `--header 'Name: value'` into the trimmed name and value; the name must be an HTTP token.
pub fn parse_header(s: &str) -> Result<(String, String), Error> {
    let (name, value) = s.split_once(':').ok_or_else(|| Error::Config(format!("expected 'Name: value', got {s:?}")))?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
        return Err(Error::Config(format!("invalid header name {name:?}")));
    }
    Ok((name.to_string(), value.trim().to_string()))
}
