//! The server's command-line flags and its main loop, shared by `mcpgen serve` and generated
//! crates so that both take the same flags and behave the same.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::{Engine, EngineOptions, McpServer, Metrics, Readiness, UpstreamAuth, UpstreamPolicy, transport};
use crate::auth::OAuthOptions;
use crate::config::{Context, RuntimeConfig, SchemaDetail, ToolMode};
use crate::engine::BuildFn;
use crate::engine::hooks::Extensions;
use crate::engine::live::LiveEngine;
#[cfg(feature = "reload")]
use crate::engine::reload::Reload;
use crate::error::Error;
use crate::transport::log_fields::CallFields;

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
    Discovery,
}

impl From<ToolModeArg> for ToolMode {
    fn from(a: ToolModeArg) -> Self {
        match a {
            ToolModeArg::Auto => ToolMode::Auto,
            ToolModeArg::All => ToolMode::All,
            ToolModeArg::Discovery => ToolMode::Discovery,
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

/// `--upstream-auth`: whose credentials upstream requests carry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum UpstreamAuthArg {
    /// The server's own, from its environment variables.
    #[default]
    Server,
    /// The caller's OAuth access token (needs --oauth-issuer), for APIs that trust the same
    /// authorization server.
    Passthrough,
}

impl From<UpstreamAuthArg> for UpstreamAuth {
    fn from(a: UpstreamAuthArg) -> Self {
        match a {
            UpstreamAuthArg::Server => UpstreamAuth::Server,
            UpstreamAuthArg::Passthrough => UpstreamAuth::Passthrough,
        }
    }
}

/// OAuth 2.1 access tokens on `/mcp` (HTTP): the MCP authorization spec's resource server.
#[derive(Debug, Clone, Default, Args)]
pub struct OAuthArgs {
    /// Require OAuth access tokens (JWTs) from this authorization server on /mcp (HTTP), e.g.
    /// https://auth.example.com; its keys are found through its metadata.
    #[arg(long, value_name = "URL", env = "MCPGEN_OAUTH_ISSUER", help_heading = "OAuth")]
    pub oauth_issuer: Option<String>,

    /// An `aud` value tokens may carry (repeatable) [default: the resource URL].
    #[arg(long, value_name = "AUDIENCE", help_heading = "OAuth")]
    pub oauth_audience: Vec<String>,

    /// This server's URL as clients reach it: the `resource` of its metadata (RFC 9728) [default:
    /// http://ADDR/mcp with the address it listens on].
    #[arg(long, value_name = "URL", help_heading = "OAuth")]
    pub oauth_resource: Option<String>,

    /// The authorization server's JWKS URL, instead of the one its metadata names.
    #[arg(long, value_name = "URL", help_heading = "OAuth")]
    pub oauth_jwks: Option<String>,

    /// Shortest time between two fetches of the JWKS (a token naming an unknown key fetches it
    /// again) [default: 30].
    #[arg(long, value_name = "SECONDS", help_heading = "OAuth")]
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
    /// Which tools tools/list shows [default: auto, or the config's].
    #[arg(long, value_enum, value_name = "MODE", help_heading = "Context")]
    pub tool_mode: Option<ToolModeArg>,

    /// How much of each tool's schema clients see; calls are always checked against the full one [default: auto].
    #[arg(long, value_enum, value_name = "DETAIL", help_heading = "Context")]
    pub schema_detail: Option<SchemaDetailArg>,

    /// `auto` lists every tool up to this many tools [default: 40].
    #[arg(long, value_name = "N", help_heading = "Context")]
    pub auto_max_tools: Option<usize>,

    /// ... and up to this many tokens for the whole tools/list [default: 20000].
    #[arg(long, value_name = "TOKENS", help_heading = "Context")]
    pub auto_max_tokens: Option<usize>,

    /// In discovery mode, list the tools matching this glob directly too (repeatable), e.g. 'repos_get*'.
    #[arg(long, value_name = "GLOB", value_parser = parse_glob, help_heading = "Context")]
    pub pin_tool: Vec<String>,

    /// A sentence-embedding model directory (config.json, tokenizer.json, model.safetensors), e.g.
    /// all-MiniLM-L6-v2: discovery's search then also goes by what requests mean.
    #[arg(long, value_name = "DIR", env = "MCPGEN_SEARCH_MODEL", help_heading = "Context")]
    pub search_model: Option<std::path::PathBuf>,
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
    }
}

fn parse_glob(s: &str) -> Result<String, Error> {
    glob::Pattern::new(s).map(|_| s.to_string()).map_err(|e| Error::Config(format!("invalid glob {s:?}: {e}")))
}

/// Flags of a running server.
#[derive(Debug, Clone, Args)]
pub struct ServerArgs {
    /// stdio (for desktop clients) or Streamable HTTP at /mcp.
    #[arg(long, value_enum, default_value_t = Transport::Stdio, help_heading = "Server")]
    pub transport: Transport,

    /// Address to listen on (HTTP). Binds loopback unless told otherwise.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080", help_heading = "Server")]
    pub bind: SocketAddr,

    /// Bearer token clients must send on /mcp (HTTP). Prefer the env var over the flag.
    #[arg(long, value_name = "TOKEN", env = "MCPGEN_AUTH_TOKEN", hide_env_values = true, help_heading = "Server")]
    pub auth_token: Option<String>,

    /// Browser Origin allowed besides localhost (repeatable), e.g. https://app.example.com.
    #[arg(long, value_name = "ORIGIN", help_heading = "Server")]
    pub allow_origin: Vec<String>,

    /// Host header value allowed besides localhost and the bind address (repeatable).
    #[arg(long, value_name = "HOST", help_heading = "Server")]
    pub allow_host: Vec<String>,

    /// Also serve the old HTTP+SSE transport (2024-11-05) at /sse and /messages, for clients
    /// that never moved to Streamable HTTP.
    #[arg(long, help_heading = "Server")]
    pub legacy_sse: bool,

    /// Threads serving HTTP, each with its own connections [default: one per CPU].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024), help_heading = "Server")]
    pub workers: Option<u16>,

    /// OAuth access tokens on /mcp.
    #[command(flatten)]
    pub oauth: Box<OAuthArgs>,

    /// Whose credentials upstream requests carry: the server's own (env vars), or the caller's
    /// OAuth access token (passthrough, for APIs that trust the same authorization server).
    #[arg(long, value_enum, value_name = "WHOSE", default_value = "server", help_heading = "Upstream")]
    pub upstream_auth: UpstreamAuthArg,

    /// Serve /metrics (Prometheus), /health and /ready on this address instead, without the bearer
    /// token (an internal port); with any transport, stdio included. Without it, HTTP serves
    /// /metrics beside /mcp, behind --auth-token when one is set (with --oauth-issuer, only here).
    #[arg(long, value_name = "ADDR", help_heading = "Server")]
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

/// Logs go to stderr (stdout belongs to MCP on stdio); `MCPGEN_LOG` sets the filter.
pub fn init_logging(default_filter: &str, format: LogFormat) {
    use tracing_subscriber::fmt::format::{DefaultFields, JsonFields};
    let filter = tracing_subscriber::EnvFilter::try_from_env("MCPGEN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_filter));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false);
    let _ = match format {
        LogFormat::Text => builder
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .fmt_fields(CallFields::text(DefaultFields::new()))
            .try_init(),
        // The event's fields at the top level, beside the current span's (a call's request_id).
        LogFormat::Json => builder
            .json()
            .flatten_event(true)
            .with_span_list(false)
            .fmt_fields(CallFields::json(JsonFields::new()))
            .try_init(),
    };
}

/// What a generated crate hands the runtime: its name and texts for `--help`, its embedded
/// catalogue and its hooks and handlers ([`main`] does the rest).
pub struct Program {
    /// The binary's name (the crate's package name).
    pub name: &'static str,
    /// The binary's version (the crate's).
    pub version: &'static str,
    /// One line for `--help`.
    pub about: &'static str,
    /// Text after the flags in `--help`: the credential variables.
    pub after_help: &'static str,
    /// The default log filter (`MCPGEN_LOG` overrides it).
    pub log_filter: &'static str,
    /// The runtime config, as JSON.
    pub catalogue: &'static str,
    /// The crate's hooks and handlers.
    pub extensions: Extensions,
}

/// The command line of a generated crate: `--base-url` and [`ServerArgs`].
#[derive(Debug, clap::Parser)]
struct ProgramCli {
    /// Base URL of the upstream API, overriding the catalogue's.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,

    #[command(flatten)]
    server: ServerArgs,
}

/// A generated crate's `main`: reads `.env` (the environment wins), parses the flags, starts
/// logging and serves the catalogue until the client goes away or a shutdown signal.
pub fn main(program: Program) -> std::process::ExitCode {
    use clap::{CommandFactory, FromArgMatches};
    // Credentials may sit in a .env file (copied from .env.example); the environment wins.
    let _ = dotenvy::dotenv();
    let command = ProgramCli::command()
        .name(program.name)
        .bin_name(program.name)
        .version(program.version)
        .about(program.about)
        .after_help(program.after_help);
    let cli = match ProgramCli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    init_logging(program.log_filter, cli.server.log_format);
    let result = RuntimeConfig::from_json(program.catalogue)
        .and_then(|config| run(config, cli.base_url, &cli.server, program.extensions));
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

/// Serves `config` until the client goes away (stdio) or a shutdown signal (HTTP).
pub fn run(config: RuntimeConfig, base_url: Option<String>, args: &ServerArgs, ext: Extensions) -> Result<(), Error> {
    serve(config, base_url, args, ext, None)
}

/// Like [`run`], reloading the catalogue on each change `reload` reports and on SIGHUP (`mcpgen
/// serve`): sessions are told when the tools change (`notifications/tools/list_changed`).
#[cfg(feature = "reload")]
pub fn run_reloading(
    config: RuntimeConfig,
    base_url: Option<String>,
    args: &ServerArgs,
    ext: Extensions,
    reload: Reload,
) -> Result<(), Error> {
    serve(config, base_url, args, ext, Some(reload))
}

/// Which of `--oauth-issuer` and `--auth-token` guard `/mcp`, once the flags are checked together.
fn access(args: &ServerArgs) -> Result<(Option<OAuthOptions>, Option<String>), Error> {
    let oauth = args.oauth.options()?;
    let auth_token = args.auth_token.clone().filter(|t| !t.is_empty());
    if oauth.is_some() {
        if args.transport != Transport::Http {
            return Err(Error::Config(
                "--oauth-issuer needs --transport http (over stdio the client's environment is the credential)".into(),
            ));
        }
        if auth_token.is_some() {
            // Either would let its holder in, and a static token carries no scopes: refuse the mix.
            return Err(Error::Config(
                "--oauth-issuer and --auth-token (or MCPGEN_AUTH_TOKEN) exclude each other: choose OAuth access tokens or one static token".into(),
            ));
        }
        if args.legacy_sse {
            return Err(Error::Config(
                "--oauth-issuer and --legacy-sse exclude each other: clients of the 2024-11-05 transport predate MCP authorization".into(),
            ));
        }
    }
    if args.upstream_auth == UpstreamAuthArg::Passthrough {
        if oauth.is_none() {
            return Err(Error::Config(
                "--upstream-auth passthrough needs --oauth-issuer: only a validated caller token is ever sent upstream"
                    .into(),
            ));
        }
        tracing::warn!(
            "--upstream-auth passthrough: each caller's access token is sent to the API instead of the server's credentials. \
             The MCP authorization spec forbids token passthrough by default: use it only for an API that trusts the same \
             authorization server and accepts tokens issued for this server's audience"
        );
    }
    Ok((oauth, auth_token))
}

/// The engine's options for `config`: the flags, and the config's limits where no flag is given.
fn engine_options(
    args: &ServerArgs,
    config: &RuntimeConfig,
    base_url: Option<String>,
    metrics: Arc<Metrics>,
) -> Result<EngineOptions, Error> {
    let timeout = args.timeout.unwrap_or(config.limits.timeout_secs);
    if !(timeout > 0.0 && timeout.is_finite()) {
        return Err(Error::Config(format!("--timeout must be a positive number of seconds, got {timeout}")));
    }
    Ok(EngineOptions {
        base_url,
        headers: args.header.clone(),
        metrics,
        log_calls: args.log_format == LogFormat::Json,
        policy: UpstreamPolicy {
            timeout: Duration::from_secs_f64(timeout),
            max_response_bytes: args.max_response_bytes.unwrap_or(config.limits.max_response_bytes),
            retries: args.retries,
            retry_non_idempotent: args.retry_non_idempotent,
            max_concurrency: args.max_concurrency.max(1),
            rate_limit: args.rate_limit,
        },
        upstream_auth: args.upstream_auth.into(),
        list_ttl: Some(args.caching.list_ttl()),
    })
}

/// Builds engines for configs as the flags say: the first one, and each reload's.
fn engine_builder(args: &ServerArgs, base_url: Option<String>, metrics: Arc<Metrics>, ext: Extensions) -> Arc<BuildFn> {
    let args = args.clone();
    Arc::new(move |mut config: RuntimeConfig| {
        args.context.apply(&mut config.context);
        args.resources.apply(&mut config.resources);
        let opts = engine_options(&args, &config, base_url.clone(), metrics.clone())?;
        Engine::with_extensions(config, opts, ext.clone())
    })
}

/// Without the `reload` feature nothing reloads: no value of this type exists.
#[cfg(not(feature = "reload"))]
type Reload = std::convert::Infallible;

/// The reload watches its input (`--watch`), beyond SIGHUP.
fn watches(reload: &Reload) -> bool {
    #[cfg(feature = "reload")]
    return reload.changes.is_some();
    #[cfg(not(feature = "reload"))]
    match *reload {}
}

/// Flags the features compiled in cannot honour, named with the feature that would.
fn check_features(args: &ServerArgs) -> Result<(), Error> {
    // The narrowest feature first: legacy-sse brings http with it.
    if args.legacy_sse && !cfg!(feature = "legacy-sse") {
        return Err(Error::missing_feature("legacy-sse", "--legacy-sse"));
    }
    if args.transport == Transport::Http && !cfg!(feature = "http") {
        return Err(Error::missing_feature("http", "--transport http"));
    }
    if args.metrics_bind.is_some() && !cfg!(feature = "metrics") {
        return Err(Error::missing_feature("metrics", "--metrics-bind"));
    }
    Ok(())
}

fn serve(
    config: RuntimeConfig,
    base_url: Option<String>,
    args: &ServerArgs,
    ext: Extensions,
    reload: Option<Reload>,
) -> Result<(), Error> {
    check_features(args)?;
    let (oauth, auth_token) = access(args)?;
    let metrics = Arc::new(Metrics::new());
    let readiness = Readiness::default();
    // A watched input can change at any moment, and HTTP clients are not told: lists stay fresh
    // for no time unless --list-ttl says otherwise (stdio sessions are told by list_changed).
    let watching = reload.as_ref().is_some_and(watches);
    let build = if watching && args.caching.list_ttl.is_none() {
        let mut args = args.clone();
        args.caching.list_ttl = Some(0);
        engine_builder(&args, base_url, metrics.clone(), ext)
    } else {
        engine_builder(args, base_url, metrics.clone(), ext)
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Config(format!("async runtime: {e}")))?;
    runtime.block_on(async move {
        // Up before the engine, so that /ready tells a probe the server is still starting.
        #[cfg(feature = "metrics")]
        if let Some(bind) = args.metrics_bind {
            let addr = transport::http::serve_metrics(bind, metrics.clone(), readiness.clone()).await?;
            tracing::info!("metrics at http://{addr}/metrics");
        }
        let title = config.server.title.clone().unwrap_or_else(|| config.server.name.clone());
        let engine = build(config)?;
        tracing::info!("{}", engine.exposure().reason);
        let count = engine.tool_count();
        let live = LiveEngine::new(engine);
        let confirmer = crate::engine::confirm::Confirmer::new(args.confirm.confirm)?;
        let server = McpServer::live(live.clone()).with_confirm(confirmer);
        let server = match reload {
            #[cfg(feature = "reload")]
            Some(reload) => {
                crate::engine::reload::start(live, reload, build, metrics.clone());
                server.with_list_changed()
            }
            #[cfg(not(feature = "reload"))]
            Some(never) => match never {},
            None => server,
        };
        readiness.set(true);
        match args.transport {
            Transport::Stdio => {
                tracing::info!("serving {count} tools ({title}) over stdio");
                transport::serve_stdio(server).await
            }
            #[cfg(feature = "http")]
            Transport::Http => {
                let http = transport::http::HttpOptions {
                    bind: args.bind,
                    auth_token,
                    allowed_origins: args.allow_origin.clone(),
                    allowed_hosts: args.allow_host.clone(),
                    legacy_sse: args.legacy_sse,
                    workers: args.workers.map_or_else(transport::http::workers::default_workers, usize::from),
                    oauth,
                    metrics: (cfg!(feature = "metrics") && args.metrics_bind.is_none()).then_some(metrics),
                    readiness,
                };
                if !args.bind.ip().is_loopback() && http.auth_token.is_none() && http.oauth.is_none() {
                    tracing::warn!(
                        "listening on {} without --auth-token: anyone who can reach it can call the API",
                        args.bind
                    );
                }
                transport::http::serve_http(server, http, |addr| {
                    tracing::info!("serving {count} tools ({title}) at http://{addr}/mcp")
                })
                .await
            }
            // check_features has refused it.
            #[cfg(not(feature = "http"))]
            Transport::Http => {
                let _ = (auth_token, oauth, readiness);
                Err(Error::missing_feature("http", "--transport http"))
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    fn server_args(flags: &[&str]) -> ServerArgs {
        ProgramCli::try_parse_from(std::iter::once("server").chain(flags.iter().copied())).unwrap().server
    }

    /// A flag whose feature is compiled out is refused, naming the feature; with it, it passes.
    fn needs(flags: &[&str], feature: &str, compiled: bool) {
        match check_features(&server_args(flags)) {
            Ok(()) => assert!(compiled, "{flags:?} without {feature}"),
            Err(Error::MissingFeature { feature: named, .. }) => {
                assert!(!compiled, "{flags:?} refused with {feature}");
                assert_eq!(named, feature);
            }
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn http_needs_its_feature() {
        needs(&["--transport", "http"], "http", cfg!(feature = "http"));
    }

    #[test]
    fn legacy_sse_needs_its_feature() {
        needs(&["--transport", "http", "--legacy-sse"], "legacy-sse", cfg!(feature = "legacy-sse"));
    }

    #[test]
    fn metrics_bind_needs_its_feature() {
        needs(&["--metrics-bind", "127.0.0.1:9090"], "metrics", cfg!(feature = "metrics"));
    }

    #[test]
    fn stdio_needs_no_feature() {
        needs(&[], "", true);
    }
}
