//! `mcpgen serve`: an API description or runtime config served as a live MCP proxy.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::watch::Watch;
use super::{InputArgs, StrictArg};
use crate::error::{Error, Location, Result};
use crate::pipeline;
use crate::runtime::cli::{ContextArgs, ServerArgs, Transport};
use crate::runtime::hooks::Extensions;
use crate::runtime::model::RuntimeConfig;
use crate::runtime::reload::Reload;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen serve openapi.yaml                                   stdio, for Claude Desktop / Cursor / VS Code
  mcpgen serve openapi.yaml --transport http --bind 127.0.0.1:8080
  mcpgen serve petstore.mcp.json --base-url http://localhost:4010 --header 'X-Tenant: acme'
  SWAGGER_PETSTORE_API_KEY=... mcpgen serve openapi.yaml      credentials come from env vars (see `mcpgen inspect`)
  mcpgen serve functions.json --forward-url http://localhost:9000/tools
                                                              a function list: POST .../tools/{name} with the arguments
  mcpgen serve functions.json --bindings bindings.yaml         a function list bound to a REST API
  mcpgen serve openapi.yaml --watch                           reload on each edit, and on SIGHUP";

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub warnings: StrictArg,

    #[command(flatten)]
    pub server: ServerArgs,

    /// Reload when SPEC changes (or a file its $refs reach, or --bindings): tools/list changes
    /// without a restart, calls in flight finish, a broken edit is logged and the old tools stay.
    /// SIGHUP reloads too, with or without it.
    #[arg(long, help_heading = "Server")]
    pub watch: bool,
}

fn invalid(spec: &str, message: String) -> Error {
    Error::Invalid { location: Location::doc(spec), message }
}

pub(super) fn run(args: &ServeArgs) -> Result<()> {
    let spec = &args.input.spec;
    if spec == "-" && args.server.transport == Transport::Stdio {
        return Err(Error::Usage {
            message: "cannot read the API from stdin and serve MCP over stdin: pass a file or URL, or use \
                      --transport http"
                .into(),
        });
    }
    if args.watch && (spec == "-" || spec.starts_with("http://") || spec.starts_with("https://")) {
        return Err(Error::Usage {
            message: format!(
                "--watch watches a file, and {} cannot be watched: pass a file path, or leave --watch out{}",
                if spec == "-" { "stdin".to_string() } else { format!("the URL {spec}") },
                if spec == "-" { "" } else { " and send SIGHUP to reload" }
            ),
        });
    }
    let (config, files) = load(&args.input, args.warnings.strict, &args.server.context)?;
    let reload = reloader(args, files)?;
    let base_url = args.input.base_url.clone();
    crate::runtime::cli::run_reloading(config, base_url, &args.server, Extensions::default(), reload)
        .map_err(|source| Error::Runtime { spec: spec.clone(), source })
}

/// The input made a runtime config as the flags say, with the local files it was read from.
fn load(input: &InputArgs, strict: bool, context: &ContextArgs) -> Result<(RuntimeConfig, Vec<PathBuf>)> {
    let spec = &input.spec;
    let absolute = |path: &str| std::path::absolute(path).unwrap_or_else(|_| PathBuf::from(path));
    let (config, mut files) = match pipeline::source(spec, &input.pipeline_options(strict)?)? {
        pipeline::Source::Config(c) => (*c, vec![absolute(spec)]),
        pipeline::Source::Api(p) => {
            super::report_warnings(&p);
            let pipeline::Pipeline { ir, tools, files, .. } = *p;
            let mut config = tools.config;
            crate::mem::drop_in_background(ir);
            context.apply(&mut config.context);
            crate::tokens::measure_if_in_doubt(&mut config);
            (config, files)
        }
    };
    files.extend(input.bindings.as_deref().map(absolute));
    check_bound(spec, &config)?;
    Ok((config, files))
}

/// Reads the input again, with the same flags, on SIGHUP and, with `--watch`, when `files` change.
fn reloader(args: &ServeArgs, files: Vec<PathBuf>) -> Result<Reload> {
    let (input, strict, context) = (args.input.clone(), args.warnings.strict, args.server.context.clone());
    let (changes, watch) = if args.watch {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        (Some(rx), Some(Arc::new(Watch::start(&files, tx)?)))
    } else {
        (None, None)
    };
    let watching = watch.clone();
    let load = move || {
        if input.spec == "-" {
            return Err("the API was read from stdin, which cannot be read again: restart the server".to_string());
        }
        let (config, files) = load(&input, strict, &context).map_err(|e| e.to_string())?;
        if let Some(w) = &watching {
            w.set_files(&files);
        }
        Ok(config)
    };
    Ok(Reload {
        origin: args.input.spec.clone(),
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
