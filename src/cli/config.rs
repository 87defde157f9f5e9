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
  mcpgen config apis.yaml -o both.mcp.json              a multi-API file, per-API options";

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

    /// Upstream request timeout to record in the config, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,

    /// Response size cap to record in the config.
    #[arg(long, value_name = "BYTES", default_value_t = 1024 * 1024)]
    pub max_response_bytes: u64,

    #[command(flatten)]
    pub context: crate::runtime::cli::ContextArgs,

    #[command(flatten)]
    pub resources: crate::runtime::engine::resources::ResourceArgs,
}

pub(super) fn run(args: &ConfigArgs) -> Result<()> {
    let specs = args.input.specs(&args.more);
    let opts = args.input.pipeline_options(args.warnings.strict)?;
    let mut config = match crate::merge::load(&specs, &opts, &super::report_warnings)?.0 {
        crate::merge::Loaded::Built { config, warnings } => {
            super::report_merge_warnings(&warnings);
            *config
        }
        crate::merge::Loaded::Config(_) => return Err(crate::load::runtime_config_here(&args.input.spec)),
    };
    let unbound = config.unbound_tools().count();
    if unbound > 0 {
        eprintln!(
            "note: {unbound} tools have no HTTP binding: `mcpgen serve` cannot call them; pass --forward-url URL or --bindings FILE"
        );
    }
    config.limits.timeout_secs = args.timeout;
    config.limits.max_response_bytes = args.max_response_bytes;
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
