//! `mcpgen config`: writes the runtime config that `mcpgen serve` runs.

use std::path::PathBuf;

use clap::Args;

use super::{InputArgs, StrictArg, output};
use crate::error::Result;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen config openapi.yaml -o petstore.mcp.json       then: mcpgen serve petstore.mcp.json
  mcpgen config openapi.yaml -o petstore.mcp.yaml       YAML, by extension
  mcpgen config https://example.com/openapi.json --include-tag pets > pets.json
  mcpgen config github.json --tool-mode discovery --pin-tool 'repos_get' -o github.mcp.json
  mcpgen config github.json stripe.yaml -o both.mcp.json   two APIs in one config
  mcpgen config apis.yaml -o both.mcp.json              a multi-API file, per-API options
  mcpgen config petstore.mcp.json --include-tag pets -o pets.mcp.yaml   a config, filtered";

#[derive(Debug, Args)]
pub(crate) struct ConfigArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs for the same config, each one's tools prefixed (`github_`, `stripe_`): API
    /// descriptions, runtime configs, or multi-API files (`mcpgen_apis:`, per-API options).
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// Write to FILE (JSON, or YAML for .yaml/.yml) instead of stdout. Written atomically.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Upstream request timeout to record in the config, in seconds [default: 30, or the config's].
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,

    /// Response size cap to record in the config [default: 1048576, or the config's].
    #[arg(long, value_name = "BYTES")]
    pub max_response_bytes: Option<u64>,

    #[command(flatten)]
    pub context: crate::runtime::cli::ContextArgs,

    #[command(flatten)]
    pub resources: crate::runtime::engine::resources::ResourceArgs,
}

pub(super) fn run(args: &ConfigArgs) -> Result<()> {
    let inputs = super::open(&args.input, &args.more, args.warnings.strict)?;
    let given =
        matches!(inputs.source, crate::pipeline::Source::Config { kind: crate::pipeline::ConfigKind::Given, .. });
    let mut config = inputs.source.into_config();
    let unbound = config.unbound_tools().count();
    if unbound > 0 {
        eprintln!(
            "note: {unbound} tools have no HTTP binding: `mcpgen serve` cannot call them; pass --forward-url URL or --bindings FILE"
        );
    }
    // A runtime config keeps its own limits but for the flags given.
    config.limits.timeout_secs = args.timeout.unwrap_or(if given { config.limits.timeout_secs } else { 30.0 });
    config.limits.max_response_bytes =
        args.max_response_bytes.unwrap_or(if given { config.limits.max_response_bytes } else { 1024 * 1024 });
    args.context.apply(&mut config.context);
    args.resources.apply(&mut config.resources);
    crate::tokens::measure(&mut config);
    let path = args.output.as_deref();
    let text = output::render(&config, path.is_some_and(output::is_yaml), &args.input.spec)?;
    output::write(path, &text)?;
    if let Some(path) = path {
        let p = path.display();
        eprintln!("wrote {p} ({} tools); serve it with: mcpgen serve {p}", config.tools.len());
    }
    Ok(())
}
