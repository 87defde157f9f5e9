//! `mcpgen export`: any input as the tool list of an LLM API or of MCP.

use std::path::PathBuf;

use clap::Args;

use super::values::{FormatArg, name_of};
use super::{InputArgs, output};
use crate::error::Result;
use crate::export;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen export openapi.yaml --format openai > tools.json      the API's operations as OpenAI tools
  mcpgen export openapi.yaml --format openai --strict          schemas that OpenAI's strict mode accepts
  mcpgen export functions.json --format anthropic              an OpenAI function list for Claude
  mcpgen export anthropic-tools.json --format gemini -o gemini-tools.json
  mcpgen export openapi.yaml --format mcp --include-tag pets   a tools/list result
  mcpgen export petstore.mcp.json --format anthropic          a runtime config (`mcpgen config`) too";

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs for the same list, each one's tools prefixed (`github_`, `stripe_`): API
    /// descriptions, runtime configs, or multi-API files (`mcpgen_apis:`, per-API options).
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    /// The tool list's format.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = FormatArg::Openai)]
    pub format: FormatArg,

    /// OpenAI strict mode: additionalProperties false everywhere, every property required (optional
    /// ones made nullable), unsupported keywords removed; each change is reported on stderr.
    #[arg(long)]
    pub strict: bool,

    /// Write to FILE instead of stdout (atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub(super) fn run(args: &ExportArgs) -> Result<()> {
    let spec = &args.input.spec;
    let config = super::open(&args.input, &args.more, false)?.source.into_config();
    let out = export::export(&config, args.format.into(), args.strict)?;
    report_strict(&out);
    // Tool lists are JSON whatever the file is called.
    let path = args.output.as_deref();
    output::write(path, &output::render(&out.value, false, spec)?)?;
    if let Some(path) = path {
        eprintln!("wrote {} ({} tools, {} format)", path.display(), config.tools.len(), name_of(&args.format));
    }
    Ok(())
}

/// What strict mode changed, on stderr: losses as warnings, the rest as notes (counted by kind
/// when there are many).
fn report_strict(out: &export::Export) {
    const DETAILED: usize = 40;
    let lossy = out.changes.iter().filter(|(_, c)| c.lossy).count();
    if !out.changes.is_empty() {
        eprintln!(
            "strict mode: {} change(s) to fit OpenAI's strict schemas ({lossy} lose information):",
            out.changes.len()
        );
    }
    let many = out.changes.len() > DETAILED;
    let mut kinds: std::collections::BTreeMap<export::strict::ChangeKind, usize> = std::collections::BTreeMap::new();
    for (tool, c) in &out.changes {
        if c.lossy || !many {
            let level = if c.lossy { "warning" } else { "note" };
            eprintln!("  {level}: {tool} {}: {}", c.at, c.what);
        } else {
            *kinds.entry(c.kind).or_default() += 1;
        }
    }
    for (kind, n) in &kinds {
        eprintln!("  note: {}: {n}x", kind.label());
    }
    for (tool, violations) in &out.not_strict {
        for v in violations {
            eprintln!("warning: {tool} {}: {} (exported with strict: false)", v.at, v.message);
        }
    }
}
