//! `mcpgen inspect`: what tools an input yields and what they cost in context.

use std::fmt::Write as _;

use clap::Args;
use serde::Serialize;
use serde_json::Value;

use super::{InputArgs, StrictArg};
use crate::diag::Diagnostic;
use crate::error::Result;
use crate::pipeline::{self, Pipeline};
use crate::runtime::model::{Annotations, SecurityScheme, Tool};

pub const EXAMPLES: &str = "\
Examples:
  mcpgen inspect samples/petstore-oas30.json
  mcpgen inspect api.yaml --include-tag pets --method GET
  mcpgen inspect api.yaml --json | jq '.totals'";

#[derive(Debug, Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// Print a JSON report instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &InspectArgs) -> Result<()> {
    let p = pipeline::run(&args.input.spec, &args.input.pipeline_options(args.warnings.strict)?)?;
    let report = Report::new(&p);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).unwrap_or_default());
    } else {
        print!("{}", report.render());
    }
    Ok(())
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub api: ApiSummary,
    pub tools: Vec<ToolRow>,
    pub totals: Totals,
    pub credentials: Vec<Credential>,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Serialize)]
pub struct ApiSummary {
    pub title: String,
    pub version: String,
    pub dialect: &'static str,
    pub source: String,
    pub base_url: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ToolRow {
    pub name: String,
    pub method: Option<String>,
    pub path: Option<String>,
    pub params: usize,
    pub schema_bytes: usize,
    pub annotations: Annotations,
    pub source: String,
}

#[derive(Debug, Serialize)]
pub struct Totals {
    pub operations: usize,
    pub tools: usize,
    /// Compact JSON size of the `tools/list` result.
    pub tools_list_bytes: usize,
    /// Estimated tokens of context for the tool list (bytes / 4).
    pub estimated_tokens: usize,
}

#[derive(Debug, Serialize)]
pub struct Credential {
    pub scheme: String,
    pub kind: String,
    pub env: Vec<String>,
}

impl Report {
    pub fn new(p: &Pipeline) -> Self {
        let config = &p.tools.config;
        let tools: Vec<ToolRow> = config
            .tools
            .iter()
            .zip(&p.tools.sources)
            .map(|(t, src)| ToolRow {
                name: t.name.clone(),
                method: t.http.as_ref().map(|h| h.method.clone()),
                path: t.http.as_ref().map(|h| h.path.clone()),
                params: param_count(t),
                schema_bytes: serde_json::to_vec(&t.input_schema).map(|v| v.len()).unwrap_or(0),
                annotations: t.annotations.clone(),
                source: src.pointer.clone(),
            })
            .collect();
        let bytes = tools_list_bytes(&config.tools);
        let credentials = config
            .security_schemes
            .iter()
            .map(|(name, s)| {
                let kind = match s {
                    SecurityScheme::ApiKey { location, name, .. } => {
                        // Only the location is lower-cased: the key's own name is case-sensitive on the wire.
                        format!("API key in {} `{name}`", format!("{location:?}").to_lowercase())
                    }
                    SecurityScheme::Bearer { .. } => "bearer token".to_string(),
                    SecurityScheme::Basic { .. } => "HTTP basic".to_string(),
                    SecurityScheme::OAuth2ClientCredentials { .. } => "OAuth2 client credentials".to_string(),
                    SecurityScheme::External { description, .. } => description.clone(),
                };
                let env = s.env_vars().into_iter().map(str::to_string).collect();
                Credential { scheme: name.clone(), kind, env }
            })
            .collect();
        Report {
            api: ApiSummary {
                title: p.ir.info.title.clone(),
                version: p.ir.info.version.clone(),
                dialect: p.ir.dialect.label(),
                source: p.origin.clone(),
                base_url: config.upstream.base_url.clone(),
            },
            totals: Totals {
                operations: p.tools.operations,
                tools: tools.len(),
                tools_list_bytes: bytes,
                estimated_tokens: bytes.div_ceil(4),
            },
            tools,
            credentials,
            diagnostics: p.diagnostics().cloned().collect(),
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        let a = &self.api;
        let _ = writeln!(out, "{} {} ({}, {})", a.title, a.version, a.dialect, a.source);
        if let Some(url) = &a.base_url {
            let _ = writeln!(out, "base URL: {url}");
        }
        out.push('\n');
        let headers = ["TOOL", "METHOD", "PATH", "PARAMS", "SCHEMA", "ANNOTATIONS"];
        let rows: Vec<[String; 6]> = self
            .tools
            .iter()
            .map(|t| {
                [
                    t.name.clone(),
                    t.method.clone().unwrap_or_else(|| "-".into()),
                    t.path.clone().unwrap_or_else(|| "-".into()),
                    t.params.to_string(),
                    human_bytes(t.schema_bytes),
                    annotation_words(&t.annotations),
                ]
            })
            .collect();
        let mut widths = headers.map(str::len);
        for r in &rows {
            for (w, cell) in widths.iter_mut().zip(r) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |cells: [&str; 6]| {
            let mut l = String::new();
            for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
                if i == 5 {
                    l.push_str(c);
                } else if i == 3 || i == 4 {
                    let _ = write!(l, "{c:>w$}  ");
                } else {
                    let _ = write!(l, "{c:<w$}  ");
                }
            }
            l.trim_end().to_string()
        };
        let _ = writeln!(out, "{}", line(headers));
        for r in &rows {
            let _ = writeln!(out, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4], &r[5]]));
        }
        let t = &self.totals;
        let _ = writeln!(
            out,
            "\n{} operations -> {} tools; tools/list is {} bytes, about {} tokens of context",
            t.operations,
            t.tools,
            group_digits(t.tools_list_bytes),
            group_digits(t.estimated_tokens)
        );
        let unbound = self.tools.iter().filter(|t| t.method.is_none()).count();
        if unbound > 0 {
            let _ = writeln!(
                out,
                "{unbound} tools have no HTTP binding: `serve` needs --forward-url URL or --bindings FILE; \
                 `generate` gives them Rust handler stubs"
            );
        }
        if !self.credentials.is_empty() {
            let _ = writeln!(out, "\nCredentials (environment variables):");
            for c in &self.credentials {
                let _ = writeln!(out, "  {:<20} {}  ({})", c.scheme, c.env.join(", "), c.kind);
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
        if !notes.is_empty() {
            let _ = writeln!(out, "\nNotes ({}):", notes.len());
            for d in notes {
                let _ = writeln!(out, "  {d}");
            }
        }
        out
    }
}

/// Compact JSON size of `{"tools":[...]}`, measured without building it.
pub fn tools_list_bytes(tools: &[Tool]) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(r#"{"tools":[]}"#.len() + tools.len().saturating_sub(1));
    for t in tools {
        let _ = serde_json::to_writer(&mut counter, &t.mcp_view());
    }
    counter.0
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

fn human_bytes(n: usize) -> String {
    if n < 1024 {
        format!("{n} B")
    } else if n < 1024 * 1024 {
        format!("{:.1} KB", n as f64 / 1024.0)
    } else {
        format!("{:.1} MB", n as f64 / 1048576.0)
    }
}

fn group_digits(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
