//! `mcpgen convert`: a function list (with its bindings, or the forward-URL convention) as an
//! OpenAPI 3.1 document: the IR of the operations that became tools, written out.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{InputArgs, StrictArg, output};
use crate::error::{Error, Location, Result};
use crate::normalize::{Forward, ForwardMode, Routing};
use crate::pipeline;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen convert functions.json --to openapi --forward-url https://tools.example.com -o tools.yaml
                                          one operation per function: POST /{name}, the arguments as JSON body
  mcpgen convert functions.json --to openapi --bindings bindings.yaml -o api.yaml
                                          the REST calls a bindings file describes
  mcpgen convert swagger.json --to openapi   any OpenAPI input, upgraded to 3.1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Target {
    /// OpenAPI 3.1 (YAML for .yaml/.yml outputs, JSON otherwise).
    Openapi,
}

#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// What to convert to.
    #[arg(long, value_enum, value_name = "FORMAT", default_value_t = Target::Openapi)]
    pub to: Target,

    /// Write to FILE instead of stdout (atomically).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub(super) fn run(args: &ConvertArgs) -> Result<()> {
    let spec = &args.input.spec;
    let mut opts = args.input.pipeline_options(args.warnings.strict)?;
    // Not `merge::open`, the other commands' door: `convert` writes the IR of one API
    // description as OpenAPI, and a runtime config (or several APIs merged into one) keeps no IR,
    // only tools. `load` says so for a config or a multi-API file. It also needs the document's
    // dialect before the pipeline runs (a function list without bindings gets the forward-URL
    // convention below).
    let doc = crate::load::load(spec, &opts.load)?;
    // A function list without a binding follows the forward-URL convention; no server is named.
    if !doc.dialect.is_openapi() && matches!(opts.routing, Routing::Unbound) {
        eprintln!(
            "note: no --forward-url or --bindings: each function becomes POST /{{name}}; add `servers` to the document"
        );
        opts.routing = Routing::Forward(Forward { url: String::new(), mode: ForwardMode::PerTool });
    }
    let p = pipeline::run_loaded(spec, doc, &opts)?;
    super::report_warnings(&p);
    let operations = p.tools.config.tools.len();
    let mut ir = crate::export::openapi::of_tools(p.ir, &p.tools);
    if let Some(url) = &opts.tools.base_url {
        // As for the tools: `--base-url` stands for the document's servers, a bound function's
        // own server stays.
        ir.servers = vec![url.clone()];
        ir.operations.iter_mut().filter(|op| op.function.is_none()).for_each(|op| op.servers.clear());
    }
    let doc = crate::export::openapi::to_openapi(&ir)
        .map_err(|message| Error::Invalid { location: Location::doc(spec), message })?;
    let doc = Ordered {
        openapi: &doc["openapi"],
        info: &doc["info"],
        servers: doc.get("servers"),
        tags: doc.get("tags"),
        paths: &doc["paths"],
        components: doc.get("components"),
        security: doc.get("security"),
    };
    let path = args.output.as_deref();
    output::write(path, &output::render(&doc, path.is_some_and(output::is_yaml), spec)?)?;
    if let Some(path) = path {
        eprintln!("wrote {} (OpenAPI 3.1, {operations} operations)", path.display());
    }
    Ok(())
}

/// The top-level keys in the conventional order (maps are sorted otherwise).
#[derive(serde::Serialize)]
struct Ordered<'a> {
    openapi: &'a serde_json::Value,
    info: &'a serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    servers: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'a serde_json::Value>,
    paths: &'a serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    components: Option<&'a serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    security: Option<&'a serde_json::Value>,
}
