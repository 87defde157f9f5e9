//! `mcpgen diff OLD NEW`: what changed in the tools an agent sees between two versions of an
//! API (API descriptions, function lists, runtime configs, multi-API files), and what breaks
//! (`crate::diff`). Its exit codes follow diff(1)'s: 2 for trouble, so that 1 can mean "breaking
//! changes" under `--fail-on-breaking`.
//!
//! An API description is made into tools as `merge::open` would, with output schemas on, so
//! that changes to responses show; a runtime config is compared as it is (output schemas if it
//! was written with them, else the response shapes it keeps). A multi-API file goes through
//! `merge::open` itself.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{parse_glob, parse_method};
use crate::diff::Side;
use crate::error::{Error, Result};
use crate::ir::Method;
use crate::load::{self, AnyInput, Input, LoadOptions};
use crate::merge::{self, Source};
use crate::pipeline::{self, OutputSchemaPolicy, PipelineOptions};
use crate::tools::{Filter, ToolOptions};
use mcpgen_config::RuntimeConfig;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen diff old.yaml new.yaml                      the changes, as Markdown for a pull request
                                                     (shortened to fit a comment when needed)
  mcpgen diff old.yaml new.yaml --full -o diff.md    every change, written to diff.md
  mcpgen diff v1.json v2.json --fail-on-breaking     exit 1 when an agent made for v1 may break (CI)
  mcpgen diff api.mcp.json openapi.yaml --json       a config against its API description, as JSON
  git show main:openapi.yaml | mcpgen diff - openapi.yaml   against the committed version

Breaking: a tool removed or renamed; a required argument added, an argument removed or made
required; a type, enum, bound or pattern that accepts less; an anyOf/oneOf alternative removed
(alternatives are paired by content: a tag, a title, their structure); an annotation less safe
than before (readOnlyHint true -> false, destructiveHint false -> true, ...); new credentials or
scopes; a response member removed or holding a type it did not.

Exit codes:
  0  compared (whether or not a change is breaking, without --fail-on-breaking)
  1  a change is breaking, with --fail-on-breaking
  2  an input could not be read or made into tools, or the command line is wrong";

#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// The old version: an API description, function list, runtime config or multi-API file; a
    /// path, an http(s) URL, or `-` for stdin.
    #[arg(value_name = "OLD")]
    pub old: String,

    /// The new version, likewise.
    #[arg(value_name = "NEW")]
    pub new: String,

    /// Print a JSON document (`{"breaking": N, "other": M, ..., "changes": [...]}`) instead of Markdown.
    #[arg(long)]
    pub json: bool,

    /// Print every change in the Markdown report. Without it, a report over 65,536 characters (what a
    /// pull-request comment holds) is shortened: one line per tool, the breaking changes in detail
    /// as far as they fit, and how to get the rest.
    #[arg(long, conflicts_with = "json")]
    pub full: bool,

    /// Write the report to this file instead of stdout.
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Exit 1 when a change is breaking.
    #[arg(long)]
    pub fail_on_breaking: bool,

    /// Follow `$ref`s to http(s) URLs (refused by default).
    #[arg(long)]
    pub allow_remote_refs: bool,

    /// Compare only operations with one of these tags (repeatable, or comma-separated).
    #[arg(long, value_name = "TAG", value_delimiter = ',', help_heading = "Filters")]
    pub include_tag: Vec<String>,

    /// Leave out operations with any of these tags.
    #[arg(long, value_name = "TAG", value_delimiter = ',', help_heading = "Filters")]
    pub exclude_tag: Vec<String>,

    /// Compare only tools whose name or operationId matches one of these globs (e.g. 'get*').
    #[arg(long, value_name = "GLOB", value_delimiter = ',', value_parser = parse_glob, help_heading = "Filters")]
    pub include_op: Vec<glob::Pattern>,

    /// Leave out tools whose name or operationId matches any of these globs.
    #[arg(long, value_name = "GLOB", value_delimiter = ',', value_parser = parse_glob, help_heading = "Filters")]
    pub exclude_op: Vec<glob::Pattern>,

    /// Compare only operations whose path matches one of these globs (e.g. '/pets*').
    #[arg(long, value_name = "GLOB", value_delimiter = ',', value_parser = parse_glob, help_heading = "Filters")]
    pub include_path: Vec<glob::Pattern>,

    /// Compare only operations with these HTTP methods (e.g. GET,POST).
    #[arg(long, value_name = "METHOD", value_delimiter = ',', value_parser = parse_method, help_heading = "Filters")]
    pub method: Vec<Method>,
}

/// Runs `mcpgen diff`, with its own exit codes (see [`EXAMPLES`]); errors are printed here.
pub(super) fn main(args: &DiffArgs) -> ExitCode {
    match run(args) {
        Ok(breaking) if breaking > 0 && args.fail_on_breaking => {
            let changes =
                if breaking == 1 { "1 breaking change".to_string() } else { format!("{breaking} breaking changes") };
            eprintln!("mcpgen diff: {changes} (--fail-on-breaking)");
            ExitCode::from(1)
        }
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Prints the diff; returns how many changes are breaking.
fn run(args: &DiffArgs) -> Result<usize> {
    if args.old == "-" && args.new == "-" {
        return Err(Error::Usage { message: "stdin (`-`) can be read only once: name a file for OLD or NEW".into() });
    }
    let opts = options(args);
    let old = read(&args.old, &opts)?;
    let new = read(&args.new, &opts)?;
    let diff = crate::diff::diff(old.side(), new.side());
    let text = if args.json {
        crate::diff::json(&diff, &args.old, &args.new).map_err(|e| Error::internal("printing the diff as JSON", e))?
    } else if args.full {
        crate::diff::markdown(&diff, &args.old, &args.new)
    } else {
        crate::diff::markdown_within(&diff, &args.old, &args.new, crate::diff::COMMENT_LIMIT)
    };
    super::output::write(args.output.as_deref(), &text)?;
    Ok(diff.breaking())
}

fn options(args: &DiffArgs) -> PipelineOptions {
    PipelineOptions {
        load: LoadOptions { allow_remote_refs: args.allow_remote_refs, ..LoadOptions::default() },
        tools: ToolOptions {
            filter: Filter {
                include_tags: args.include_tag.clone(),
                exclude_tags: args.exclude_tag.clone(),
                include_ops: args.include_op.clone(),
                exclude_ops: args.exclude_op.clone(),
                include_paths: args.include_path.clone(),
                methods: args.method.clone(),
            },
            ..ToolOptions::default()
        },
        progress: true,
        ..PipelineOptions::default()
    }
}

/// One version's tools.
struct Version {
    config: RuntimeConfig,
    output_schemas: bool,
}

impl Version {
    fn side(&self) -> Side<'_> {
        Side { config: &self.config, output_schemas: self.output_schemas }
    }
}

/// Reads one version: an API description with output schemas, a config as it is (filtered).
fn read(spec: &str, opts: &PipelineOptions) -> Result<Version> {
    let _progress = crate::progress::Progress::start(opts.progress, &format!("loading {spec}"));
    match load::load_any(spec, &opts.load)? {
        AnyInput::One(Input::Api(doc)) => {
            let mut with_outputs = opts.clone();
            with_outputs.tools.output_schema = OutputSchemaPolicy::Full;
            let p = pipeline::run_loaded(spec, *doc, &with_outputs)?;
            super::report_warnings(&p);
            Ok(Version { config: Source::Api(Box::new(p)).into_config(), output_schemas: true })
        }
        AnyInput::One(Input::Config(config)) => {
            let mut config = *config;
            config.tools.retain(|t| opts.tools.filter.keeps_tool(t));
            Ok(Version { config, output_schemas: false })
        }
        AnyInput::Apis(_) if spec == "-" => {
            Err(Error::Usage { message: "a multi-API file is compared from a file, not stdin: name it".into() })
        }
        AnyInput::Apis(_) => {
            let inputs = merge::open(&[spec.to_string()], opts, &super::report_warnings)?;
            super::report_source(&inputs.source);
            Ok(Version { config: inputs.source.into_config(), output_schemas: false })
        }
    }
}
