//! `mcpgen inspect`: what tools an input yields and what they cost in context.

use std::fmt::Write as _;

mod notes;
mod table;

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::{InputArgs, StrictArg};
use crate::diag::Diagnostic;
use crate::error::{Error, Result};
use crate::merge::{ConfigKind, Source};
use crate::pipeline::Pipeline;
use crate::responses::estimate::{self, Estimate};
use crate::responses::sample::SampleSource;
use crate::runtime::cli::ContextArgs;
use crate::tokens::{self, Cost, ModeCosts};
use mcpgen_config::text::{group_digits, human_bytes};
use mcpgen_config::{Annotations, ListTokens, Method, ResponseDetail, RuntimeConfig, Tool};

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen inspect samples/petstore-oas30.json
  mcpgen inspect api.yaml --include-tag pets --method GET
  mcpgen inspect api.yaml --json | jq '.totals'
  mcpgen inspect github.json --tool-mode all --schema-detail compact   the cost of a mode
  mcpgen inspect petstore.mcp.json                 a runtime config, as `serve` runs it
  mcpgen inspect apis.yaml                         a multi-API file: every API's tools, prefixed";

#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    #[command(flatten)]
    pub input: InputArgs,

    /// More APIs, each one's tools prefixed (`github_`, `stripe_`) as `serve` would serve them:
    /// API descriptions, runtime configs, or multi-API files (`mcpgen_apis:`, per-API options).
    #[arg(value_name = "SPEC")]
    pub more: Vec<String>,

    #[command(flatten)]
    pub warnings: StrictArg,

    #[command(flatten)]
    pub context: ContextArgs,

    /// Print a JSON report instead of a table.
    #[arg(long)]
    pub json: bool,

    /// List every note (renamed tools are otherwise summed up with three examples).
    #[arg(long, short)]
    pub verbose: bool,
}

pub(super) fn run(args: &InspectArgs) -> Result<()> {
    let opts = args.input.pipeline_options(args.warnings.strict)?;
    // A pipeline's warnings are in the report; those of APIs merged with others go to stderr.
    let mut inputs = crate::merge::open(&args.input.specs(&args.more), &opts, &super::report_warnings)?;
    if let Source::Config { kind: ConfigKind::Merged { warnings }, .. } = &inputs.source {
        super::report_merge_warnings(warnings, super::say_on_stderr);
    }
    args.context.apply(&mut inputs.source.config_mut().context);
    let progress = crate::progress::Progress::start(true, "counting tokens");
    let report = Report::of(&inputs.source, &inputs.origin)
        .map_err(|source| Error::Runtime { spec: inputs.origin.clone(), source })?;
    drop(progress);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        print!("{}", report.render_within(args.verbose, table::terminal_width()));
    }
    Ok(())
}

/// What `mcpgen inspect` reports (its `--json` output): the API, its tools, what listing them
/// costs, the credentials to set, and every diagnostic.
#[derive(Debug, Serialize)]
pub struct Report {
    /// The API: title, version, dialect, where it was read from, base URL.
    pub api: ApiSummary,
    /// One row per tool, in the config's order.
    pub tools: Vec<ToolRow>,
    /// Operations, skipped operations and tools counted, and the cost of `tools/list` in each mode.
    pub totals: Totals,
    /// Per security scheme of the config: the env vars that hold its credentials.
    pub credentials: Vec<Credential>,
    /// Every stage's diagnostics, warnings and notes.
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Serialize)]
pub struct ApiSummary {
    pub title: String,
    pub version: String,
    /// The input's kind: an API description's dialect, or a runtime config.
    pub dialect: &'static str,
    pub source: String,
    pub base_url: Option<String>,
    /// For a config of several APIs: each API (its tools' names start with its prefix).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub apis: Vec<ApiPart>,
}

/// One API of a config of several.
#[derive(Debug, Serialize)]
pub struct ApiPart {
    /// Its key: what its tools' `api` and its security schemes' namespace say.
    pub name: String,
    pub title: String,
    pub version: Option<String>,
    pub prefix: String,
    pub base_url: Option<String>,
}

/// What a report's input is when it is a runtime config given as it is.
const CONFIG_DIALECT: &str = "mcpgen runtime config";
/// ... and when it is several APIs merged into one config.
const MERGED_DIALECT: &str = "several APIs in one config";

/// What a report says about its input beside its tools.
struct About {
    api: ApiSummary,
    operations: usize,
    skipped: usize,
    diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Serialize)]
pub struct ToolRow {
    pub name: String,
    pub method: Option<Method>,
    pub path: Option<String>,
    pub params: usize,
    pub schema_bytes: usize,
    /// Tokens of the tool's definition in `tools/list` with full schemas: its share of the
    /// listing (from its name to the next tool's), so that the rows sum to the listing.
    pub tokens: usize,
    pub annotations: Annotations,
    pub source: String,
    /// The estimated size of its successful response (`None`: not known, or the input is a
    /// runtime config, which has no response examples or schemas to measure).
    pub response: Option<ResponseEstimate>,
}

/// How large a tool's successful response is likely to be: its sample (the declared example, else
/// made from the schema) with its list at the API's default page size, as minified JSON.
#[derive(Debug, Serialize)]
pub struct ResponseEstimate {
    /// Characters of the response as the API sends it (minified).
    pub estimated_chars: usize,
    /// Characters without the members that link back into the API (the engine's default, lean).
    pub estimated_lean_chars: usize,
    /// The page size its list was measured at; `None`: it has no list.
    pub page_size: Option<usize>,
    /// `example` (declared) or `synthesised` (made from the schema).
    pub source: SampleSource,
    /// Whether the result as the engine writes it (lean, or full with `--response-detail full`)
    /// is over the tool's result budget.
    pub over_budget: bool,
    /// Characters of the result as the engine writes it.
    #[serde(skip)]
    rendered: usize,
    /// The tool's result budget: its own, else the context's.
    #[serde(skip)]
    budget: usize,
}

#[derive(Debug, Serialize)]
pub struct Totals {
    /// Operations (or functions) in the input, skipped ones included.
    pub operations: usize,
    /// Operations that could not be converted (see the warnings).
    pub skipped: usize,
    pub tools: usize,

    /// Compact JSON size of the `tools/list` result listing every tool with full schemas.
    pub tools_list_bytes: usize,
    /// Its tokens ([`tokens::TOKENIZER`]).
    pub tools_list_tokens: usize,
    pub tokenizer: &'static str,
    /// `tools/list` in each mode.
    pub modes: ModeCosts,
    /// The mode `serve` would choose with these flags, and why.
    pub chosen: Chosen,
    /// The result budget in characters (`--max-result-chars`; `0`: no limit); a tool's
    /// `x-mcp.maxResultChars` overrides it.
    pub max_result_chars: usize,
    /// Tools whose responses are likely over their budget.
    pub over_budget: usize,
}

#[derive(Debug, Serialize)]
pub struct Chosen {
    pub discovery: bool,
    pub compact: bool,
    pub reason: String,
}

#[derive(Debug, Serialize)]
pub struct Credential {
    pub scheme: String,
    pub kind: String,
    pub env: Vec<String>,
    /// What to set, in words (`A and B`, `T, or A and B`).
    pub set: String,
}

impl Report {
    /// The report of an API description's pipeline; `Err` for a context policy that cannot apply
    /// (a bad pin glob).
    pub fn new(p: &Pipeline) -> std::result::Result<Self, crate::runtime::Error> {
        let skipped = p.diagnostics().filter(|d| d.kind == crate::diag::DiagKind::OperationSkipped).count();
        let about = About {
            api: ApiSummary {
                title: p.ir.info.title.clone(),
                version: p.ir.info.version.clone(),
                dialect: p.ir.dialect.label(),
                source: p.origin.clone(),
                base_url: p.tools.config.upstream.base_url.clone(),
                apis: Vec::new(),
            },
            operations: p.tools.operations + skipped,
            skipped,
            diagnostics: p.diagnostics().cloned().collect(),
        };
        let operations: std::collections::HashMap<&str, &crate::ir::Operation> =
            p.ir.operations.iter().map(|op| (op.pointer.as_str(), op)).collect();
        let operation = |t: &Tool| operations.get(p.tools.source(&t.name)?.pointer.as_str()).copied();
        let tools = &p.tools.config.tools;
        let estimates = estimate::estimates(&p.ir, &tools.iter().map(operation).collect::<Vec<_>>());
        let estimates: std::collections::HashMap<&str, Estimate> =
            tools.iter().zip(estimates).filter_map(|(t, e)| Some((t.name.as_str(), e?))).collect();
        Report::build(
            &p.tools.config,
            about,
            |t| p.tools.source(&t.name).map(|s| s.pointer.clone()),
            |t| estimates.get(t.name.as_str()).copied(),
        )
    }

    /// The report of what a command's inputs came to: a pipeline's ([`Report::new`]), or a
    /// runtime config's, which knows its tools but not the operations they were made from: each
    /// tool's source is the operationId (or function name) it was made from, as the config records
    /// it (a config given as it is), or its API (several APIs merged); operations are its tools,
    /// and none was skipped.
    pub fn of(source: &Source, origin: &str) -> std::result::Result<Self, crate::runtime::Error> {
        let (config, kind) = match source {
            Source::Api(p) => return Report::new(p),
            Source::Config { config, kind } => (config.as_ref(), kind),
        };
        let server = &config.server;
        let about = About {
            api: ApiSummary {
                title: server.title.clone().unwrap_or_else(|| server.name.clone()),
                version: server.version.clone(),
                dialect: match kind {
                    ConfigKind::Given => CONFIG_DIALECT,
                    ConfigKind::Merged { .. } => MERGED_DIALECT,
                },
                source: origin.to_string(),
                base_url: config.upstream.base_url.clone(),
                apis: config
                    .apis
                    .iter()
                    .map(|a| ApiPart {
                        name: a.name.clone(),
                        title: a.title.clone().unwrap_or_else(|| a.name.clone()),
                        version: a.version.clone(),
                        prefix: a.prefix.clone(),
                        base_url: a.upstream.base_url.clone(),
                    })
                    .collect(),
            },
            operations: config.tools.len(),
            skipped: 0,
            diagnostics: Vec::new(),
        };
        let given = *kind == ConfigKind::Given;
        let source = |t: &Tool| match given {
            true => Some(t.operation_id.clone().unwrap_or_else(|| t.name.clone())),
            false => t.api.clone(),
        };
        Report::build(config, about, source, |_| None)
    }

    /// The report of `config`'s tools; `source` names where a tool comes from, `estimate` measures
    /// its response.
    fn build(
        config: &RuntimeConfig,
        about: About,
        source: impl Fn(&Tool) -> Option<String>,
        estimate: impl Fn(&Tool) -> Option<Estimate>,
    ) -> std::result::Result<Self, crate::runtime::Error> {
        let full = tokens::entries(&config.tools);
        // Each tool is written as `tools/list` shows it once: its row counts its share of the
        // listing, and the listing's tokens are the sum of the shares.
        let listed = tokens::listing(&tokens::texts(&full, false));
        let all_compact = tokens::listing(&tokens::texts(&full, true)).cost;
        let all_full = listed.cost;
        let tools: Vec<ToolRow> = config
            .tools
            .iter()
            .zip(listed.shares)
            .map(|(t, tokens)| ToolRow {
                name: t.name.clone(),
                method: t.http.as_ref().map(|h| h.method),
                path: t.http.as_ref().map(|h| h.path.clone()),
                params: param_count(t),
                schema_bytes: mcpgen_config::json_bytes(&t.input_schema),
                tokens,
                annotations: t.annotations.clone(),
                source: source(t).unwrap_or_default(),
                response: estimate(t).map(|e| response_estimate(e, t, &config.context)),
            })
            .collect();
        let over_budget = tools.iter().filter(|t| t.response.as_ref().is_some_and(|r| r.over_budget)).count();
        let mut context = config.context.clone();
        context.tools_list_tokens = Some(ListTokens { full: all_full.tokens, compact: all_compact.tokens });
        let exposure = mcpgen_config::exposure::resolve(&context, &config.tools, &config.definitions);
        let discovery = tokens::discovery_cost(&full, &context.pin_tools, exposure.compact)?;
        drop(full);
        let modes = ModeCosts { all_full, all_compact, discovery };
        let credentials = config
            .security_schemes
            .iter()
            .map(|(name, s)| {
                let env = s.env_vars().into_iter().map(str::to_string).collect();
                Credential { scheme: name.clone(), kind: s.describe(), env, set: s.env_hint() }
            })
            .collect();
        Ok(Report {
            api: about.api,
            totals: Totals {
                operations: about.operations,
                skipped: about.skipped,
                tools: tools.len(),
                tools_list_bytes: modes.all_full.bytes,
                tools_list_tokens: modes.all_full.tokens,
                tokenizer: tokens::TOKENIZER,
                modes,
                chosen: Chosen { discovery: exposure.discovery, compact: exposure.compact, reason: exposure.reason },
                max_result_chars: config.context.max_result_chars,
                over_budget,
            },
            tools,
            credentials,
            diagnostics: about.diagnostics,
        })
    }

    /// Whether the input is a runtime config (given, or merged from several APIs).
    fn is_config(&self) -> bool {
        [CONFIG_DIALECT, MERGED_DIALECT].contains(&self.api.dialect)
    }

    /// The totals (tools, what listing them costs), the table, credentials, warnings and notes
    /// (renames summed up), within [`table::DEFAULT_WIDTH`] columns.
    pub fn render(&self) -> String {
        self.render_with(false)
    }

    /// Like [`Report::render`]; `verbose` lists every rename.
    pub fn render_with(&self, verbose: bool) -> String {
        self.render_within(verbose, table::DEFAULT_WIDTH)
    }

    /// Like [`Report::render_with`], the table fitted to `width` columns as far as it can be (its
    /// paths, then its tool names, shortened in the middle).
    pub fn render_within(&self, verbose: bool, width: usize) -> String {
        let mut out = String::new();
        let a = &self.api;
        let _ = writeln!(out, "{} {} ({}, {})", a.title, a.version, a.dialect, a.source);
        if let Some(url) = &a.base_url {
            let note = if url.starts_with("http://") || url.starts_with("https://") {
                ""
            } else {
                " (relative: `serve` needs --base-url with the absolute URL)"
            };
            let _ = writeln!(out, "base URL: {url}{note}");
        }
        for api in &a.apis {
            let version = api.version.as_deref().map(|v| format!(" {v}")).unwrap_or_default();
            let url = api.base_url.as_deref().unwrap_or("no base URL: `serve` needs --base-url");
            let _ = writeln!(out, "  {}{version} (tools {}*): {url}", api.title, api.prefix);
        }
        self.render_totals(&mut out);
        out.push('\n');
        self.render_table(&mut out, width);
        self.render_over_budget(&mut out, verbose);
        if !self.credentials.is_empty() {
            let _ = writeln!(out, "\nCredentials (environment variables):");
            for c in &self.credentials {
                let _ = writeln!(out, "  {:<20} {}  ({})", c.scheme, c.set, c.kind);
            }
        }
        let (warnings, notes): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
            self.diagnostics.iter().partition(|d| d.kind.is_warning());
        if !warnings.is_empty() {
            let _ = writeln!(out, "\nWarnings ({}):", warnings.len());
            for d in warnings {
                let _ = writeln!(out, "  {d}");
            }
        }
        notes::render(&mut out, notes, verbose);
        out
    }

    /// The tools as a table: name, method, path, parameters, schema size, tokens, annotations.
    fn render_table(&self, out: &mut String, width: usize) {
        let headers = ["TOOL", "METHOD", "PATH", "PARAMS", "SCHEMA", "TOKENS", "ANNOTATIONS"];
        let rows: Vec<[String; 7]> = self
            .tools
            .iter()
            .map(|t| {
                [
                    t.name.clone(),
                    t.method.map_or("-", Method::as_upper).to_string(),
                    t.path.clone().unwrap_or_else(|| "-".into()),
                    t.params.to_string(),
                    human_bytes(t.schema_bytes),
                    group_digits(t.tokens),
                    annotation_words(&t.annotations),
                ]
            })
            .collect();
        out.push_str(&table::render(headers, &rows, &[3, 4, 5], width));
    }

    /// Operations and tools, the cost of `tools/list` in each mode, the mode `serve` would use,
    /// and the tools without an HTTP binding.
    fn render_totals(&self, out: &mut String) {
        let t = &self.totals;
        let skipped = if t.skipped > 0 { format!(", {} skipped", t.skipped) } else { String::new() };
        if self.is_config() {
            let _ = writeln!(out, "\n{} tools", t.tools);
        } else {
            let _ = writeln!(out, "\n{} operations -> {} tools{skipped}", t.operations, t.tools);
        }
        let _ = writeln!(out, "tools/list by mode (tokens: {}):", t.tokenizer);
        let mode = |out: &mut String, label: &str, c: &Cost| {
            let _ =
                writeln!(out, "  {label:<28} {:>11} bytes {:>9} tokens", group_digits(c.bytes), group_digits(c.tokens));
        };
        mode(out, "all tools, full schemas", &t.modes.all_full);
        mode(out, "all tools, compact schemas", &t.modes.all_compact);
        mode(out, "discovery", &t.modes.discovery);
        let _ = writeln!(out, "serve would use {}", t.chosen.reason);
        let unbound = self.tools.iter().filter(|t| t.method.is_none()).count();
        if unbound > 0 {
            let binding = if self.is_config() {
                "an `http` binding in the config"
            } else {
                "--forward-url URL or --bindings FILE"
            };
            let _ = writeln!(
                out,
                "{unbound} tools have no HTTP binding: `serve` needs {binding}; `generate` gives them Rust handler stubs"
            );
        }
    }
}

impl Report {
    /// The tools whose responses are likely over the result budget, largest first (the first
    /// [`OVER_BUDGET_SHOWN`] unless `verbose`).
    fn render_over_budget(&self, out: &mut String, verbose: bool) {
        let mut over: Vec<(&str, &ResponseEstimate)> = self
            .tools
            .iter()
            .filter_map(|t| Some((t.name.as_str(), t.response.as_ref().filter(|r| r.over_budget)?)))
            .collect();
        if over.is_empty() {
            return;
        }
        over.sort_by(|a, b| b.1.rendered.cmp(&a.1.rendered).then(a.0.cmp(b.0)));
        let _ = writeln!(
            out,
            "\nResponses likely over the result budget ({} chars):",
            group_digits(self.totals.max_result_chars)
        );
        let shown = if verbose { over.len() } else { OVER_BUDGET_SHOWN.min(over.len()) };
        let width = over[..shown].iter().map(|(name, _)| name.chars().count()).max().unwrap_or(0);
        for (name, r) in &over[..shown] {
            let mut notes = Vec::new();
            if let Some(p) = r.page_size {
                notes.push(format!("page size {p}"));
            }
            if r.budget != self.totals.max_result_chars {
                notes.push(format!("its budget {}", group_digits(r.budget)));
            }
            let notes = if notes.is_empty() { String::new() } else { format!(" ({})", notes.join(", ")) };
            let _ = writeln!(out, "  {name:<width$} — ~{} chars{notes}", group_digits(r.rendered));
        }
        if shown < over.len() {
            let _ = writeln!(out, "  and {} more; --verbose lists them all", over.len() - shown);
        }
    }
}

/// Tools listed over the budget unless `--verbose`.
const OVER_BUDGET_SHOWN: usize = 10;

/// A tool's response estimate against its budget: its own (`x-mcp.maxResultChars`), else the
/// context's; `0`: no limit.
fn response_estimate(e: Estimate, tool: &Tool, context: &mcpgen_config::Context) -> ResponseEstimate {
    let budget = mcpgen_config::exposure::result_budget(tool, context);
    let rendered = match context.response_detail {
        ResponseDetail::Lean => e.lean_chars,
        ResponseDetail::Full => e.chars,
    };
    ResponseEstimate {
        estimated_chars: e.chars,
        estimated_lean_chars: e.lean_chars,
        page_size: e.page_size,
        source: e.source,
        over_budget: budget > 0 && rendered > budget,
        rendered,
        budget,
    }
}

fn param_count(t: &Tool) -> usize {
    t.input_schema.get("properties").and_then(Value::as_object).map_or(0, |p| p.len())
}

fn annotation_words(a: &Annotations) -> String {
    let mut words = Vec::new();
    if a.read_only_hint {
        words.push("read-only");
    } else {
        if a.destructive_hint {
            words.push("destructive");
        }
        if a.idempotent_hint {
            words.push("idempotent");
        }
        if words.is_empty() {
            words.push("write");
        }
    }
    if !a.open_world_hint {
        words.push("closed-world");
    }
    words.join(", ")
}
