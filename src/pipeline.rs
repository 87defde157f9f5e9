//! The stages chained: what every command runs before doing its own job. The stages' own
//! options and outputs are re-exported here, so that library users need no other module.

use std::path::PathBuf;

use crate::error::{Error, Result};
use crate::ir::ApiIr;
use crate::load;
use crate::tools;

pub use crate::diag::{DiagKind, Diagnostic};
pub use crate::load::{Document, LoadOptions, load, parse_document};
// The door (`open`) and what it returns live with the merge that implements it, which builds on
// this module's stages; they are re-exported here for the library's users only (the crate
// imports them from `crate::merge`).
pub use crate::merge::{ConfigKind, Inputs, Source, open};
pub use crate::normalize::{Bindings, Forward, ForwardMode, Routing, bind, normalize};
pub use crate::tokens::measure as measure_tokens;
pub use crate::tools::{Filter, OutputSchemaPolicy, ToolOptions, ToolSet, build as build_tools};

/// The options of every stage, as the command line sets them.
#[derive(Debug, Clone, Default)]
pub struct PipelineOptions {
    /// How the input is loaded.
    pub load: LoadOptions,
    /// Where the calls of a function list go (`--forward-url`, `--bindings`).
    pub routing: Routing,
    /// How tools are built: filters, names, descriptions, output schemas, base URL, credentials.
    pub tools: ToolOptions,
    /// Fail on any warning instead of skipping what cannot be converted.
    pub strict: bool,
    /// Skip bad entries of a function list with a warning instead of failing.
    pub lenient: bool,
    /// Show progress on stderr when it is a terminal and the work takes a while.
    pub progress: bool,
    /// Which texts of the input pass as written (`--allow-description-text`).
    pub trust: crate::trust::TrustOptions,
}

/// The IR and the tools of one input, with every diagnostic of every stage.
pub struct Pipeline {
    /// The input as the user named it (path, URL or `-`).
    pub origin: String,
    /// The API, normalised (and bound, for a function list with `--forward-url` or `--bindings`).
    pub ir: ApiIr,
    /// The tools built from it.
    pub tools: ToolSet,
    /// The local files read: the input and those its `$ref`s reach (`serve --watch` watches them).
    pub files: Vec<PathBuf>,
}

impl Pipeline {
    /// Every diagnostic: loading's and normalize's, then the tools stage's.
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.ir.diagnostics.iter().chain(self.tools.diagnostics.iter())
    }
}

/// Loads `spec` (path, URL or `-`) and builds its tools.
pub fn run(spec: &str, opts: &PipelineOptions) -> Result<Pipeline> {
    let progress = crate::progress::Progress::start(opts.progress, &format!("loading {spec}"));
    let doc = load::load(spec, &opts.load)?;
    progress.stage(format!("converting {spec}"));
    run_loaded(spec, doc, opts)
}

/// Like [`run`] for a document already in memory.
pub fn run_str(text: &str, origin: &str, opts: &PipelineOptions) -> Result<Pipeline> {
    let doc = load::load_str(text, origin)?;
    run_loaded(origin, doc, opts)
}

/// Like [`run`] for a document already loaded (for commands whose options depend on it).
pub fn run_loaded(origin: &str, doc: load::Document, opts: &PipelineOptions) -> Result<Pipeline> {
    let files = doc.docs.local_files();
    let mut pipeline = finish(origin, prepare(doc, opts)?, opts)?;
    pipeline.files = files;
    Ok(pipeline)
}

/// The first half of [`run_loaded`]: the document normalised and bound, before its tools are
/// built (for callers whose tool options depend on the API, such as its title).
pub fn prepare(mut doc: load::Document, opts: &PipelineOptions) -> Result<ApiIr> {
    let started = std::time::Instant::now();
    let cleaning = crate::trust::clean_document(&mut doc, &opts.trust);
    doc.warnings.extend(cleaning.withheld);
    let cleaned = std::time::Instant::now();
    let ir = bind(normalize(doc, opts.lenient)?, &opts.routing);
    tracing::debug!(
        trust_ms = (cleaned - started).as_millis() as u64,
        normalize_ms = cleaned.elapsed().as_millis() as u64,
        "stages: trust, normalize"
    );
    ir
}

/// The second half of [`run_loaded`]: the tools of a prepared API, and `--strict`'s check. Its
/// `files` are left empty (the caller knows what it read).
pub fn finish(origin: &str, ir: ApiIr, opts: &PipelineOptions) -> Result<Pipeline> {
    let files = Vec::new();
    let started = std::time::Instant::now();
    let tools = tools::build(&ir, origin, &opts.tools)?;
    tracing::debug!(tools_ms = started.elapsed().as_millis() as u64, "stage: tools");
    let pipeline = Pipeline { origin: origin.to_string(), ir, tools, files };
    if opts.strict {
        let warnings: Vec<Diagnostic> = pipeline.diagnostics().filter(|d| d.kind.is_warning()).cloned().collect();
        if !warnings.is_empty() {
            return Err(Error::Strict { origin: origin.to_string(), diagnostics: warnings });
        }
    }
    Ok(pipeline)
}
