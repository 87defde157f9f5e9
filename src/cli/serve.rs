//! `mcpgen serve`: an API description or runtime config served as a live MCP proxy.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::watch::Watch;
use super::{InputArgs, StrictArg};
use crate::error::{Error, Location, Result};
use crate::merge::{ConfigKind, Source};
use crate::runtime::cli::{ServerArgs, Transport};
use crate::runtime::ext::Extensions;
use crate::runtime::tooling::{LoadError, Reload};
use mcpgen_config::RuntimeConfig;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen serve openapi.yaml                                   stdio, for Claude Desktop / Cursor / VS Code
  mcpgen serve openapi.yaml --transport http --bind 127.0.0.1:8080
  mcpgen serve petstore.mcp.json --base-url http://localhost:4010 --header 'X-Tenant: acme'
  SWAGGER_PETSTORE_API_KEY=... mcpgen serve openapi.yaml      credentials come from env vars (see `mcpgen inspect`)
  mcpgen serve functions.json --forward-url http://localhost:9000/tools
                                                              a function list: POST .../tools/{name} with the arguments
  mcpgen serve functions.json --bindings bindings.yaml         a function list bound to a REST API
  mcpgen serve openapi.yaml --watch                           reload on each edit, and on SIGHUP
  mcpgen serve github.json stripe.yaml                        two APIs: tools github_*, stripe_*
  mcpgen serve apis.yaml                                      a multi-API file, per-API options
  mcpgen serve openapi.yaml --transport http --oauth-issuer https://auth.example.com
                                                              OAuth access tokens; each caller sees the tools its scopes allow
  mcpgen serve github.json --transport http --oauth-issuer https://auth.example.com --upstream-auth user
                                                              each user authorizes their own GitHub account once
  mcpgen serve openapi.yaml --confirm destructive             ask the user before a call that deletes
  mcpgen serve github.json --search-model ~/.cache/mcpgen/models/all-MiniLM-L6-v2
                                                              discovery's search by meaning too (scripts/fetch-search-model.sh)
  mcpgen serve openapi.yaml --resources                       GET operations as MCP resources and templates
  mcpgen serve github.json --max-result-chars 20000 --response-format auto
                                                              results within 20,000 characters, lists of flat objects as tables
  mcpgen serve openapi.yaml --response-detail full            response bodies byte for byte (no lean JSON), as before
  mcpgen serve openapi.yaml --transport http --metrics-bind 127.0.0.1:9090 --log-format json
                                                              Prometheus /metrics on an internal port, JSON logs
  mcpgen serve openapi.yaml --pin-definitions pins.json --watch
                                                              only approved tool definitions (`mcpgen pins update`)
  mcpgen serve openapi.yaml --transport http --workers 4      4 threads serving HTTP (default: one per CPU)";

#[derive(Debug, Clone, Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs for the same server, each one's tools prefixed (`github_`, `stripe_`): API
    /// descriptions, runtime configs, or multi-API files (`mcpgen_apis:`, per-API options).
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    #[command(flatten)]
    pub warnings: StrictArg,

    #[command(flatten)]
    pub server: ServerArgs,

    /// Reload when SPEC changes (or a file its $refs reach, --bindings, --pin-definitions): tools/list changes
    /// without a restart, calls in flight finish, a broken edit is logged and the old tools stay.
    /// SIGHUP reloads too, with or without it.
    #[arg(long, help_heading = "Server")]
    pub watch: bool,
}

fn invalid(spec: &str, message: String) -> Error {
    Error::Invalid { location: Location::doc(spec), message }
}

pub(super) fn run(args: &ServeArgs) -> Result<()> {
    let specs = args.input.specs(&args.more);
    if specs.iter().any(|s| s == "-") && args.server.transport == Transport::Stdio {
        return Err(Error::Usage {
            message: "cannot read the API from stdin and serve MCP over stdin: pass a file or URL, or use \
                      --transport http"
                .into(),
        });
    }
    if args.watch
        && let Some(spec) = specs.iter().find(|s| !crate::load::names_a_file(s))
    {
        return Err(Error::Usage {
            message: format!(
                "--watch watches a file, and {} cannot be watched: pass a file path, or leave --watch out{}",
                if spec == "-" { "stdin".to_string() } else { format!("the URL {spec}") },
                if spec == "-" { "" } else { " and send SIGHUP to reload" }
            ),
        });
    }
    let (config, files) = build_config(args)?;
    let reload = reloader(args, files)?;
    let base_url = args.input.base_url.clone();
    crate::runtime::cli::run_reloading(config, base_url, &args.server, Extensions::default(), reload)
        .map_err(|source| Error::Runtime { spec: specs.join(", "), source })
}

/// The inputs made one runtime config (`crate::merge::open`): a runtime config as it is, an
/// API description through the pipeline, several APIs (or a multi-API file) merged; with the
/// local files they were read from (`--watch` watches them).
pub(crate) fn build_config(args: &ServeArgs) -> Result<(RuntimeConfig, Vec<PathBuf>)> {
    let specs = args.input.specs(&args.more);
    let opts = args.input.pipeline_options(args.warnings.strict)?;
    // The log is serve's stderr (JSON with --log-format json): warnings go into it.
    let inputs = crate::merge::open(&specs, &opts, &|p| super::report_warnings_by(p, super::say_in_log))?;
    let mut files = inputs.files;
    let config = match inputs.source {
        Source::Config { config, kind: ConfigKind::Given } => *config,
        source => {
            super::report_source_by(&source, super::say_in_log);
            let mut config = source.into_config();
            args.server.context.apply(&mut config.context);
            crate::tokens::measure_if_in_doubt(&mut config);
            config
        }
    };
    if let Some(bindings) = args.input.bindings.as_deref() {
        files.push(std::path::absolute(bindings).unwrap_or_else(|_| PathBuf::from(bindings)));
    }
    // An approval (`mcpgen pins update`) is picked up as an edit of the input is.
    if let Some(pins) = args.server.pins.pin_definitions.as_deref() {
        files.push(std::path::absolute(pins).unwrap_or_else(|_| pins.to_path_buf()));
    }
    check_bound(&inputs.origin, &config)?;
    Ok((config, files))
}

/// Reads the inputs again, with the same flags, on SIGHUP and, with `--watch`, when `files` change.
fn reloader(args: &ServeArgs, files: Vec<PathBuf>) -> Result<Reload> {
    let (changes, watch) = if args.watch {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        (Some(rx), Some(Arc::new(Watch::start(&files, tx)?)))
    } else {
        (None, None)
    };
    let watching = watch.clone();
    let specs = args.input.specs(&args.more);
    let from_stdin = specs.iter().any(|s| s == "-");
    let args = args.clone();
    let load = move || -> std::result::Result<RuntimeConfig, LoadError> {
        if from_stdin {
            return Err("the API was read from stdin, which cannot be read again: restart the server".into());
        }
        let (config, files) = build_config(&args)?;
        if let Some(w) = &watching {
            w.set_files(&files);
        }
        Ok(config)
    };
    Ok(Reload {
        origin: specs.join(", "),
        load: Arc::new(load),
        changes,
        guard: watch.map(|w| Box::new(w) as Box<dyn Send>),
    })
}

/// `serve` runs no Rust handlers: every tool needs an HTTP binding.
fn check_bound(spec: &str, config: &RuntimeConfig) -> Result<()> {
    let unbound: Vec<&str> = config.unbound_tools().map(|t| t.name.as_str()).collect();
    if unbound.is_empty() {
        return Ok(());
    }
    let shown = unbound.iter().take(5).map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ");
    let more = if unbound.len() > 5 { format!(" and {} more", unbound.len() - 5) } else { String::new() };
    Err(invalid(
        spec,
        format!(
            "{shown}{more} have no HTTP binding, so `serve` cannot call them. A function list needs \
             --forward-url URL (POST URL/{{name}} with the arguments) or --bindings FILE (a method and URL \
             per function); or `mcpgen generate` a crate and write their handlers in Rust"
        ),
    ))
}
