//! The server's command-line flags (`args`) and its main loop, shared by `mcpgen serve` and
//! generated crates so that both take the same flags and behave the same.

mod args;
mod idle;

use std::sync::Arc;
use std::time::Duration;

pub use self::args::*;
pub use self::idle::release_memory_when_idle;
use super::{Engine, EngineOptions, McpServer, Metrics, Readiness, UpstreamPolicy, transport};
use crate::auth::OAuthOptions;
use crate::config::RuntimeConfig;
use crate::engine::live::LiveEngine;
#[cfg(feature = "reload")]
use crate::engine::reload::Reload;
pub use crate::engine::resources::ResourceArgs;
use crate::engine::{BuildFn, UpstreamAuth};
use crate::error::Error;
use crate::ext::Extensions;
use crate::transport::log_fields::CallFields;

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
    // Started again as a `_jq` worker (see `response::jq`): run the filter, nothing else.
    if let Some(code) = crate::run_worker_if_asked() {
        return code;
    }
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
        .map_err(Error::from)
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
    Ok((oauth, auth_token))
}

/// The modes of `--upstream-auth`, or else those the config declares, checked against the
/// inbound access: each but `server` acts for a validated caller.
fn identities(args: &ServerArgs, config: &RuntimeConfig, oauth: bool) -> Result<Vec<UpstreamAuth>, Error> {
    let modes = match args.identity.upstream_auth {
        Some(flag) => vec![UpstreamAuth::from(flag)],
        None => crate::upstream::identity::declared_modes(config),
    };
    args.identity.identity()?;
    let what = |m: UpstreamAuth| match m {
        UpstreamAuth::Passthrough => "passthrough: only a validated caller token is ever sent upstream",
        UpstreamAuth::Exchange => "exchange: only a validated caller token is ever exchanged",
        _ => "user: each user's tokens are kept under the subject of their validated access token",
    };
    for &m in &modes {
        if m != UpstreamAuth::Server && !oauth {
            return Err(Error::Config(format!("--upstream-auth {} needs --oauth-issuer", what(m))));
        }
    }
    if modes.contains(&UpstreamAuth::User) && !cfg!(feature = "user-auth") {
        return Err(Error::missing_feature("user-auth", "--upstream-auth user"));
    }
    if modes.contains(&UpstreamAuth::Passthrough) {
        tracing::warn!(
            "--upstream-auth passthrough: each caller's access token is sent to the API instead of the server's credentials. \
             The MCP authorization spec forbids token passthrough by default: use it only for an API that trusts the same \
             authorization server and accepts tokens issued for this server's audience"
        );
    }
    if args.token_store.is_some() && !modes.contains(&UpstreamAuth::User) {
        return Err(Error::Config(
            "--token-store needs --upstream-auth user (or a config whose `upstream.auth` is user)".into(),
        ));
    }
    Ok(modes)
}

/// The users' token store of `--upstream-auth user`: `--token-store` (or the default file),
/// sealed with the key of MCPGEN_TOKEN_STORE_KEY.
#[cfg(feature = "user-auth")]
async fn users(args: &ServerArgs) -> Result<Arc<crate::upstream::user::authorizer::UserAuth>, Error> {
    use crate::upstream::user::store;
    let env = |name: &str| std::env::var(name).ok();
    let spec = match &args.token_store {
        Some(s) => s.clone(),
        None => default_token_store()?,
    };
    let opened = store::open(&spec, &env).await?;
    let sealed = store::Sealed::from_env(opened, &env)?;
    tracing::info!("users' upstream tokens are kept in {spec}");
    Ok(Arc::new(crate::upstream::user::authorizer::UserAuth::new(Arc::new(sealed))))
}

/// The token store of `--upstream-auth user` when `--token-store` is not given:
/// `$XDG_STATE_HOME/mcpgen/upstream-tokens.json` (or under `~/.local/state`), its directory made
/// private to the user (`mcpgen tokens revoke` reads the same).
#[cfg(feature = "user-auth")]
pub fn default_token_store() -> Result<String, Error> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".local/state")))
        .ok_or_else(|| {
            Error::Config("--upstream-auth user: pass --token-store (no HOME to keep tokens under)".into())
        })?;
    let dir = state.join("mcpgen");
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(&dir).map_err(|e| Error::Config(format!("the token store's directory {}: {e}", dir.display())))?;
    Ok(dir.join("upstream-tokens.json").to_string_lossy().into_owned())
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
        users: Default::default(),
        list_ttl: Some(args.caching.list_ttl()),
        // Streamable HTTP serves /mcp/discovery beside /mcp whatever the mode.
        serves_discovery: args.transport == Transport::Http,
        withheld: Default::default(),
    })
}

/// What every engine of a server shares beyond the flags: the metrics, and the users' tokens
/// (`--upstream-auth user`).
#[derive(Clone)]
struct Shared {
    metrics: Arc<Metrics>,
    #[cfg(feature = "user-auth")]
    users: Option<Arc<crate::upstream::user::authorizer::UserAuth>>,
}

/// Builds engines for configs as the flags say: the first one, and each reload's.
fn engine_builder(args: &ServerArgs, base_url: Option<String>, shared: Shared, ext: Extensions) -> Arc<BuildFn> {
    let args = args.clone();
    let pinner = args.pins.pinner();
    Arc::new(move |mut config: RuntimeConfig| {
        args.context.apply(&mut config.context);
        args.resources.apply(&mut config.resources);
        // `--upstream-auth` is every API's.
        if let Some(identity) = args.identity.identity()? {
            config.upstream.auth = Some(identity);
            config.apis.iter_mut().for_each(|a| a.upstream.auth = None);
        }
        // Before the engine is built: a withheld tool is in no listing, search or call.
        let withheld = pinner.as_ref().map(|p| p.apply(&mut config)).transpose()?.unwrap_or_default();
        let opts = EngineOptions {
            withheld,
            #[cfg(feature = "user-auth")]
            users: shared.users.clone(),
            ..engine_options(&args, &config, base_url.clone(), shared.metrics.clone())?
        };
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

/// Flags the features compiled in cannot honour, named with the feature that would (its name and
/// the flag that asks for it are the contract's table, `config::features::FEATURES`).
fn check_features(args: &ServerArgs) -> Result<(), Error> {
    use crate::config::features::Feature;
    let missing = |f: Feature| Error::missing_feature(f.name(), f.info().asked_by);
    // The narrowest feature first: legacy-sse brings http with it.
    if args.legacy_sse && !cfg!(feature = "legacy-sse") {
        return Err(missing(Feature::LegacySse));
    }
    if args.transport == Transport::Http && !cfg!(feature = "http") {
        return Err(missing(Feature::Http));
    }
    if args.metrics_bind.is_some() && !cfg!(feature = "metrics") {
        return Err(missing(Feature::Metrics));
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
    #[cfg_attr(not(feature = "user-auth"), allow(unused_variables))]
    let modes = identities(args, &config, oauth.is_some())?;
    let metrics = Arc::new(Metrics::new());
    let readiness = Readiness::default();
    // A watched input can change at any moment, and HTTP clients are not told: lists stay fresh
    // for no time unless --list-ttl says otherwise (stdio sessions are told by list_changed).
    let watching = reload.as_ref().is_some_and(watches);
    let mut build_args = args.clone();
    if watching && args.caching.list_ttl.is_none() {
        build_args.caching.list_ttl = Some(0);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .on_thread_unpark(idle::woke)
        .on_thread_park(idle::parks)
        .build()
        .map_err(|e| Error::Config(format!("async runtime: {e}")))?;
    runtime.block_on(async move {
        let shared = Shared {
            metrics: metrics.clone(),
            #[cfg(feature = "user-auth")]
            users: match modes.contains(&UpstreamAuth::User) {
                true => Some(users(args).await?),
                false => None,
            },
        };
        let build = engine_builder(&build_args, base_url, shared, ext);
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
        let reached = Reached { access: (auth_token, oauth), metrics, readiness };
        serve_transport(server, args, (count, &title), reached).await
    })
}

/// What the HTTP transport serves beside the MCP server: who may call it (`--auth-token`, or
/// inbound OAuth), the metrics and the readiness it reports.
struct Reached {
    access: (Option<String>, Option<OAuthOptions>),
    metrics: Arc<Metrics>,
    readiness: Readiness,
}

/// Serves `server` over the transport the flags chose until it ends; `banner`: the tool count
/// and the server's title, for the line that says where it is served.
async fn serve_transport(
    server: McpServer,
    args: &ServerArgs,
    (count, title): (usize, &str),
    reached: Reached,
) -> Result<(), Error> {
    let Reached { access: (auth_token, oauth), metrics, readiness } = reached;
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
                tracing::info!("serving {count} tools ({title}) at http://{addr}/mcp");
                log_sibling_paths(addr);
            })
            .await
        }
        // check_features has refused it.
        #[cfg(not(feature = "http"))]
        Transport::Http => {
            let _ = (auth_token, oauth, metrics, readiness);
            Err(Error::missing_feature("http", "--transport http"))
        }
    }
}

/// Says where the two surfaces beside `/mcp` are served (or that discovery's is not).
#[cfg(feature = "http")]
fn log_sibling_paths(addr: std::net::SocketAddr) {
    use crate::engine::Surface;
    let (all, discovery) = (Surface::AllTools.path(), Surface::Discovery.path());
    if cfg!(feature = "discovery") {
        tracing::info!(
            "every tool at http://{addr}{all}; discovery (search_tools, describe_tools, call_tool) at http://{addr}{discovery}"
        );
    } else {
        tracing::info!(
            "every tool at http://{addr}{all}; no {discovery}: this server was built without the `discovery` feature"
        );
    }
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
