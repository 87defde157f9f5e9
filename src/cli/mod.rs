//! The command line: clap definitions and the commands. Errors are reported here, once, on stderr.

mod config;
mod convert;
mod diff;
mod doctor;
mod export;
mod generate;
mod inspect;
mod output;
mod pins;
mod recipe;
mod search;
mod serve;
mod tokens;
mod values;
mod watch;

pub use inspect::Report as InspectReport;

use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use crate::ir::Method;
use crate::load::LoadOptions;
use crate::normalize::{Bindings, Forward, Routing};
use crate::pipeline::PipelineOptions;
use crate::tools::{Filter, ToolOptions};
use values::{ForwardModeArg, OutputSchemaArg};

const EXAMPLES: &str = "\
Examples:
  mcpgen openapi.yaml                          a Rust MCP server crate for the API (`mcpgen generate`)
  mcpgen inspect openapi.yaml                  what tools an API yields, and their cost in tokens
  mcpgen search openapi.yaml \"refund a payment\"  the tools discovery mode finds for a request
  mcpgen serve openapi.yaml                    a live MCP proxy over stdio (or --transport http)
  mcpgen config openapi.yaml -o api.mcp.json   a runtime config to edit, then `mcpgen serve api.mcp.json`
  mcpgen inspect openai-tools.json             function-calling lists work too
  mcpgen export openapi.yaml --format openai   any input as an OpenAI / Anthropic / Gemini / MCP tool list
  mcpgen diff v1.yaml v2.yaml                  what changed for agents between two versions, and what breaks
  mcpgen serve functions.json --forward-url http://localhost:9000/tools
                                               a function list served as MCP, each call POSTed to the URL";

#[derive(Debug, Parser)]
#[command(name = "mcpgen", version, about = "Turn OpenAPI documents and function-calling tool lists into MCP servers", after_help = EXAMPLES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Show the MCP tools an input yields: a table, totals, token estimate, credentials, warnings.
    #[command(after_help = inspect::EXAMPLES)]
    Inspect(inspect::InspectArgs),
    /// Run an MCP server (stdio or Streamable HTTP) that proxies an API, from its description or a runtime config.
    #[command(after_help = serve::EXAMPLES)]
    Serve(serve::ServeArgs),
    /// Write a ready-to-build Rust MCP server crate for the API (also: `mcpgen SPEC`).
    #[command(after_help = generate::EXAMPLES, args_override_self = true)]
    Generate(generate::GenerateArgs),
    /// Write the runtime config (tools, HTTP bindings, credential env var names) that `serve` runs.
    #[command(after_help = config::EXAMPLES)]
    Config(config::ConfigArgs),
    /// Print the tools as an OpenAI, Anthropic, Gemini or MCP tool list (from any input).
    #[command(after_help = export::EXAMPLES)]
    Export(export::ExportArgs),
    /// Write an OpenAPI 3.1 document for a function list and its bindings (or any input).
    #[command(after_help = convert::EXAMPLES)]
    Convert(convert::ConvertArgs),
    /// Search an API's tools as discovery mode's search_tools does: how findable is each operation?
    #[command(after_help = search::EXAMPLES)]
    Search(search::SearchArgs),
    /// How well an API description serves an AI agent: findings with JSON pointers and fixes, and a score.
    #[command(after_help = doctor::EXAMPLES)]
    Doctor(doctor::DoctorArgs),
    /// Compare two versions of an API's tools: what changed for an agent, and what breaks it.
    #[command(after_help = diff::EXAMPLES)]
    Diff(diff::DiffArgs),
    /// Approve the tool definitions `serve --pin-definitions` serves (`update`), or check them (`check`).
    #[command(after_help = pins::EXAMPLES)]
    Pins(pins::PinsArgs),
    /// Revoke the upstream tokens `serve --upstream-auth user` stores for a user (`revoke`).
    #[command(after_help = tokens::EXAMPLES)]
    Tokens(tokens::TokensArgs),
}

/// The input and how it becomes tools: shared by every command.
#[derive(Debug, Clone, Args)]
pub(crate) struct InputArgs {
    /// OpenAPI document (2.0, 3.0, 3.1; JSON or YAML), function-calling tool list, Postman collection (v2.0, v2.1) or HAR file; or, for every command but
    /// `convert`, a runtime config (`mcpgen config`) or a multi-API file (`mcpgen_apis:`): a file path, an http(s)
    /// URL, or `-` for stdin.
    #[arg(value_name = "SPEC")]
    pub spec: String,

    /// Base URL of the upstream API, overriding the document's `servers`.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// Follow `$ref`s to http(s) URLs (refused by default).
    #[arg(long)]
    pub allow_remote_refs: bool,

    /// For a HAR file: keep the requests to this host (repeatable, or comma-separated; `host` or
    /// `host:port`). Default: the host most requests went to.
    #[arg(long, value_name = "HOST", value_delimiter = ',')]
    pub host: Vec<String>,

    /// Credentials for operations that declare none (repeatable): bearer:ENV, header:NAME:ENV,
    /// query:NAME:ENV, basic:USER_ENV:PASS_ENV, or an OAuth2 authorization-code scheme for
    /// --upstream-auth user: 'oauth2:authorize=URL,token=URL,scopes=A B,env=PREFIX'. Names env vars
    /// only; e.g. bearer:GITHUB_TOKEN.
    #[arg(long, value_name = "SPEC", value_parser = crate::tools::security::parse_auth)]
    pub auth: Vec<mcpgen_config::SecurityScheme>,

    /// Keep only operations with one of these tags (repeatable, or comma-separated).
    #[arg(long, value_name = "TAG", value_delimiter = ',', help_heading = "Filters")]
    pub include_tag: Vec<String>,

    /// Drop operations with any of these tags.
    #[arg(long, value_name = "TAG", value_delimiter = ',', help_heading = "Filters")]
    pub exclude_tag: Vec<String>,

    /// Keep only tools whose name or operationId matches one of these globs (e.g. 'get*').
    #[arg(long, value_name = "GLOB", value_delimiter = ',', value_parser = parse_glob, help_heading = "Filters")]
    pub include_op: Vec<glob::Pattern>,

    /// Drop tools whose name or operationId matches any of these globs.
    #[arg(long, value_name = "GLOB", value_delimiter = ',', value_parser = parse_glob, help_heading = "Filters")]
    pub exclude_op: Vec<glob::Pattern>,

    /// Keep only operations whose path matches one of these globs (e.g. '/pets*').
    #[arg(long, value_name = "GLOB", value_delimiter = ',', value_parser = parse_glob, help_heading = "Filters")]
    pub include_path: Vec<glob::Pattern>,

    /// Keep only operations with these HTTP methods (e.g. GET,POST).
    #[arg(long, value_name = "METHOD", value_delimiter = ',', value_parser = parse_method, help_heading = "Filters")]
    pub method: Vec<Method>,

    /// Longest tool name; longer ones lose whole words (repeated, small, then common ones first).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u16).range(8..=128), help_heading = "Tools")]
    pub max_name_len: u16,

    /// Longest tool description, in characters.
    #[arg(long, value_name = "N", default_value_t = 1024, help_heading = "Tools")]
    pub max_description_len: usize,

    /// Whether tools declare an outputSchema (from the 2xx JSON response).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = OutputSchemaArg::None, help_heading = "Tools")]
    pub output_schema: OutputSchemaArg,

    /// Prefix of the credential env vars (default: from the API title, e.g. SWAGGER_PETSTORE).
    #[arg(long, value_name = "PREFIX", help_heading = "Tools")]
    pub env_prefix: Option<String>,

    /// Send every call of a function list to URL: `POST URL/{name}` with the arguments as JSON body.
    #[arg(long, value_name = "URL", conflicts_with_all = ["bindings", "base_url"], help_heading = "Function lists")]
    pub forward_url: Option<String>,

    /// per-tool: `POST URL/{name}`; single: `POST URL` with {"name", "arguments"}.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = ForwardModeArg::PerTool, requires = "forward_url", help_heading = "Function lists")]
    pub forward_mode: ForwardModeArg,

    /// YAML/JSON file mapping each function to a method, URL template and argument places.
    #[arg(long, value_name = "FILE", help_heading = "Function lists")]
    pub bindings: Option<String>,

    /// Skip bad entries of a function list (no name, duplicate name, non-object schema) with a warning.
    #[arg(long, help_heading = "Function lists")]
    pub lenient: bool,

    /// Keep the text at this JSON pointer (and under it) as written, though it reads like
    /// instructions to the model (repeatable; the warning names the pointer): e.g.
    /// '#/paths/~1pets/get/description', or 'other.yaml#/...' in another file of the document.
    #[arg(long, value_name = "POINTER", help_heading = "Trust")]
    pub allow_description_text: Vec<String>,
}

/// `--strict` as every command but `export` means it.
#[derive(Debug, Clone, Args)]
pub(crate) struct StrictArg {
    /// Fail on any warning instead of skipping what cannot be converted.
    #[arg(long)]
    pub strict: bool,
}

impl InputArgs {
    /// The inputs: `SPEC` and, for `serve` and `config`, the ones after it.
    pub(crate) fn specs(&self, more: &[String]) -> Vec<String> {
        std::iter::once(self.spec.clone()).chain(more.iter().cloned()).collect()
    }

    /// The pipeline's options; reads the bindings file, if any.
    pub(crate) fn pipeline_options(&self, strict: bool) -> crate::error::Result<PipelineOptions> {
        let routing = match (&self.forward_url, &self.bindings) {
            (Some(url), _) => Routing::Forward(Forward::new(url, self.forward_mode.into())?),
            (None, Some(path)) => Routing::Bindings(Box::new(Bindings::read(path)?)),
            (None, None) => Routing::Unbound,
        };
        Ok(PipelineOptions {
            load: LoadOptions { allow_remote_refs: self.allow_remote_refs, hosts: self.host.clone() },
            routing,
            tools: ToolOptions {
                filter: Filter {
                    include_tags: self.include_tag.clone(),
                    exclude_tags: self.exclude_tag.clone(),
                    include_ops: self.include_op.clone(),
                    exclude_ops: self.exclude_op.clone(),
                    include_paths: self.include_path.clone(),
                    methods: self.method.clone(),
                },
                max_name_len: usize::from(self.max_name_len),
                max_description_len: self.max_description_len.max(16),
                output_schema: self.output_schema.into(),
                base_url: self.base_url.as_ref().map(|u| u.trim_end_matches('/').to_string()),
                env_prefix: self.env_prefix.clone(),
                auth: self.auth.clone(),
                ..ToolOptions::default()
            },
            strict,
            lenient: self.lenient,
            progress: true,
            trust: crate::trust::TrustOptions { allow: self.allow_description_text.clone() },
        })
    }
}

fn parse_glob(s: &str) -> Result<glob::Pattern, String> {
    glob::Pattern::new(s).map_err(|e| format!("invalid glob {s:?}: {e}"))
}

fn parse_method(s: &str) -> Result<Method, String> {
    Method::parse(s)
        .ok_or_else(|| format!("unknown HTTP method {s:?} (GET, PUT, POST, DELETE, OPTIONS, HEAD, PATCH, TRACE)"))
}

/// How warnings are said: on stderr as `warning: ...` lines, or (`serve`, whose stderr is its log,
/// text or JSON) as log events.
pub(crate) type Say = fn(&str);

/// A warning on stderr.
pub(crate) fn say_on_stderr(line: &str) {
    eprintln!("warning: {line}");
}

/// A warning in the log (`--log-format json` keeps every line JSON).
pub(crate) fn say_in_log(line: &str) {
    tracing::warn!("{line}");
}

/// Warnings of a pipeline run, on stderr, briefly: `inspect` shows them all.
pub(crate) fn report_warnings(p: &crate::pipeline::Pipeline) {
    report_warnings_by(p, say_on_stderr);
}

/// [`report_warnings`], said by `say`.
pub(crate) fn report_warnings_by(p: &crate::pipeline::Pipeline, say: Say) {
    let warnings: Vec<_> = p.diagnostics().filter(|d| d.kind.is_warning()).collect();
    for d in warnings.iter().take(5) {
        say(&d.to_string());
    }
    if warnings.len() > 5 {
        say(&format!("... and {} more; `mcpgen inspect {}` lists them all", warnings.len() - 5, p.origin));
    }
}

/// What merging several APIs renamed to keep them apart, by `say`.
pub(crate) fn report_merge_warnings(warnings: &[String], say: Say) {
    for w in warnings {
        say(w);
    }
}

/// The warnings of what the inputs came to, on stderr: a pipeline's (briefly), or what merging
/// renamed (a merged API's pipeline warnings are reported as it is built).
pub(crate) fn report_source(source: &crate::merge::Source) {
    report_source_by(source, say_on_stderr);
}

/// [`report_source`], said by `say`.
pub(crate) fn report_source_by(source: &crate::merge::Source, say: Say) {
    match source {
        crate::merge::Source::Api(p) => report_warnings_by(p, say),
        crate::merge::Source::Config { kind: crate::merge::ConfigKind::Merged { warnings }, .. } => {
            report_merge_warnings(warnings, say)
        }
        crate::merge::Source::Config { .. } => {}
    }
}

/// The inputs and the pipeline's options of a command: read by `crate::merge::open`, its
/// warnings reported on stderr.
pub(crate) fn open(input: &InputArgs, more: &[String], strict: bool) -> crate::error::Result<crate::merge::Inputs> {
    let opts = input.pipeline_options(strict)?;
    let inputs = crate::merge::open(&input.specs(more), &opts, &report_warnings)?;
    report_source(&inputs.source);
    Ok(inputs)
}

const COMMANDS: [&str; 12] = [
    "inspect", "serve", "generate", "config", "export", "convert", "search", "doctor", "diff", "pins", "tokens", "help",
];

/// `mcpgen SPEC ...` is `mcpgen generate SPEC ...` when the first argument is an input: an
/// existing path, an http(s) URL, or `-`. Any other word is a mistyped command.
fn with_default_command(args: Vec<std::ffi::OsString>) -> Result<Vec<std::ffi::OsString>, String> {
    let Some(first) = args.get(1) else { return Ok(args) };
    let text = first.to_string_lossy();
    if text.starts_with('-') || COMMANDS.contains(&text.as_ref()) {
        return Ok(args);
    }
    let is_input = text == "-"
        || text.starts_with("http://")
        || text.starts_with("https://")
        || std::path::Path::new(first).exists();
    if !is_input {
        let closest = COMMANDS
            .iter()
            .map(|c| (strsim::damerau_levenshtein(c, &text), *c))
            .min()
            .filter(|(d, _)| *d <= 2)
            .map(|(_, c)| format!("; did you mean `{c}`?"))
            .unwrap_or_else(|| format!(" (and no file `{text}` exists)"));
        return Err(format!(
            "unknown command `{text}`{closest}\n\nCommands: {}. `mcpgen SPEC` (an existing file, a URL or -) is `mcpgen generate SPEC`.",
            COMMANDS[..COMMANDS.len() - 1].join(", ")
        ));
    }
    let mut out = args;
    out.insert(1, "generate".into());
    Ok(out)
}

/// Runs the `mcpgen` command line (`mcpgen SPEC`, for a file, a URL or `-`, is `mcpgen generate
/// SPEC`). Exit code 0 on success, 1 on an error, 2 on a command line that does not parse (`diff`:
/// 1 for breaking changes with `--fail-on-breaking`, 2 on an error; `doctor`: 1 for findings with
/// `--fail-on`, 2 on an error).
pub fn main() -> ExitCode {
    // Started again as a `_jq` worker (see the runtime's `response::jq`): run the filter only.
    if let Some(code) = crate::runtime::run_worker_if_asked() {
        return code;
    }
    let args = match with_default_command(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let args = match recipe::with_recipe(args) {
        Ok(args) => args,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    let matches = <Cli as clap::CommandFactory>::command().get_matches_from(args);
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let log_format = match &cli.command {
        Command::Serve(args) => args.server.log_format,
        _ => crate::runtime::cli::LogFormat::Text,
    };
    crate::runtime::cli::init_logging("warn,mcpgen=info,mcpgen_runtime=info", log_format);
    let result = match cli.command {
        Command::Inspect(args) => inspect::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Config(args) => config::run(&args),
        Command::Generate(args) => generate::run(&args, matches.subcommand_matches("generate")),
        Command::Export(args) => export::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Search(args) => search::run(&args),
        // Exit 1 means findings at `--fail-on`'s level, so an input that cannot be read is 2.
        Command::Doctor(args) => match doctor::run(&args) {
            Ok(code) => return code,
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        Command::Diff(args) => return diff::main(&args),
        Command::Pins(args) => pins::run(&args),
        Command::Tokens(args) => tokens::run(&args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
