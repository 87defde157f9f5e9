//! `mcpgen export`: any input as the tool list of an LLM API or of MCP.

use std::collections::BTreeMap;
use std::path::PathBuf;

use clap::Args;

use super::values::{FormatArg, NamespacesArg, name_of};
use super::{InputArgs, output};
use crate::error::Result;
use crate::export::{self, Options, ToolSearch};
use crate::merge::Source;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen export openapi.yaml --format openai > tools.json      the API's operations as OpenAI tools
  mcpgen export openapi.yaml --format openai --strict          schemas that OpenAI's strict mode accepts
  mcpgen export functions.json --format anthropic              an OpenAI function list for Claude
  mcpgen export anthropic-tools.json --format gemini -o gemini-tools.json
  mcpgen export openapi.yaml --format mcp --include-tag pets   a tools/list result
  mcpgen export petstore.mcp.json --format anthropic          a runtime config (`mcpgen config`) too
  mcpgen export openapi.yaml --format anthropic --defer-loading --pin-tool get_pet --input-examples
                                          Claude's tool search: deferred tools, input examples
  mcpgen export openapi.yaml --format openai --namespaces tag --defer-loading
                                          OpenAI's tool search: namespaces by tag (Responses API)";

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

    /// Mark the tools `defer_loading: true` for the provider's tool search (--format anthropic, or
    /// openai, whose list then takes the Responses API's shape: `{"type": "function", "name", ...}`).
    /// Add the provider's tool search tool to the request (docs/function-calling.md).
    #[arg(long, help_heading = "Tool search")]
    pub defer_loading: bool,

    /// A tool loaded up front all the same, not deferred (repeatable, or comma-separated); with
    /// --defer-loading.
    #[arg(long, value_name = "NAME", value_delimiter = ',', help_heading = "Tool search")]
    pub pin_tool: Vec<String>,

    /// OpenAI: the tools in namespaces (Responses API), by `tag`: each tool's first tag, at most
    /// 10 tools a namespace (`pulls`, `pulls_2`, ...), untagged tools in their API's.
    #[arg(long, value_enum, value_name = "BY", help_heading = "Tool search")]
    pub namespaces: Option<NamespacesArg>,

    /// Anthropic: `input_examples` from the API description's examples (parameters, bodies,
    /// schemas), each valid for the tool's input schema, at most 3 a tool; those left out are
    /// noted on stderr.
    #[arg(long, help_heading = "Tool search")]
    pub input_examples: bool,
}

impl ExportArgs {
    fn tool_search(&self) -> ToolSearch {
        ToolSearch {
            defer_loading: self.defer_loading,
            pinned: self.pin_tool.clone(),
            namespaces: self.namespaces == Some(NamespacesArg::Tag),
            input_examples: self.input_examples,
        }
    }
}

pub(super) fn run(args: &ExportArgs) -> Result<()> {
    let spec = &args.input.spec;
    let source = super::open(&args.input, &args.more, false)?.source;
    let tools = source.config().tools.len();
    let out = export_source(source, args)?;
    report_strict(&out);
    report_examples(&out, args.input_examples);
    // Tool lists are JSON whatever the file is called.
    let path = args.output.as_deref();
    output::write(path, &output::render(&out.value, false, spec)?)?;
    if let Some(path) = path {
        let grouped = match out.namespaces {
            0 => String::new(),
            n => format!(" in {n} namespaces"),
        };
        eprintln!("wrote {} ({tools} tools{grouped}, {} format)", path.display(), name_of(&args.format));
    }
    Ok(())
}

/// The export of `source`'s tools. Input examples read the operations' examples, so the IR is
/// kept for them; otherwise it is freed at once, as the tools alone are exported.
fn export_source(source: Source, args: &ExportArgs) -> Result<export::Export> {
    let mut opts = Options { strict: args.strict, search: args.tool_search(), operations: BTreeMap::new() };
    match source {
        Source::Api(p) if args.input_examples => {
            opts.operations = export::operations_by_tool(&p.ir, &p.tools);
            export::export_with(&p.tools.config, args.format.into(), &opts)
        }
        source => export::export_with(&source.into_config(), args.format.into(), &opts),
    }
}

/// What `--input-examples` wrote, and each example it left out, on stderr.
fn report_examples(out: &export::Export, asked: bool) {
    const DETAILED: usize = 40;
    if !asked {
        return;
    }
    let dropped = out.examples_dropped.len();
    eprintln!("input examples: {} written, {dropped} left out", out.input_examples);
    for (tool, why) in out.examples_dropped.iter().take(DETAILED) {
        eprintln!("  note: {tool}: {why}");
    }
    if dropped > DETAILED {
        eprintln!("  note: {} more left out", dropped - DETAILED);
    }
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
