//! `mcpgen search`: the discovery mode's search from the command line, to see how findable each
//! operation is before a model has to find it.

use std::path::PathBuf;

use clap::Args;

use super::{InputArgs, StrictArg};
use crate::error::{Error, Result};
use crate::runtime::tooling::search::Finder;
use crate::runtime::tooling::search::SearchIndex;
use crate::runtime::tooling::search::{self as meta, MAX_LIMIT};
#[cfg(feature = "semantic")]
use crate::runtime::tooling::search::{SemanticIndex, SentenceModel, embed_cache_dir};
use crate::tokens;

pub(super) const EXAMPLES: &str = "\
Examples:
  mcpgen search github.json \"who starred my repository\"
  mcpgen search github.json \"create a release\" --limit 3 --json | jq '.tools[].name'
  mcpgen search api.yaml \"delete\" --method DELETE          the same filters as every command
  mcpgen search github.json \"put a thumbs up on a comment\" --search-model ~/.cache/mcpgen/models/all-MiniLM-L6-v2
                                                       by meaning too (scripts/fetch-search-model.sh)";

#[derive(Debug, Args)]
pub(crate) struct SearchArgs {
    #[command(flatten)]
    pub input: InputArgs,

    #[command(flatten)]
    pub warnings: StrictArg,

    /// What to look for, in plain words (or a tool name / operationId).
    #[arg(value_name = "QUERY")]
    pub query: String,

    /// How many tools to show (1 to 50).
    #[arg(long, value_name = "N", default_value_t = meta::DEFAULT_LIMIT, value_parser = clap::value_parser!(u64).range(1..=MAX_LIMIT))]
    pub limit: u64,

    /// Print what `search_tools` returns as structured content (JSON) instead of text.
    #[arg(long)]
    pub json: bool,

    /// A sentence-embedding model directory (config.json, tokenizer.json, model.safetensors), e.g.
    /// all-MiniLM-L6-v2: search also by what the request means, as `serve --search-model` does.
    #[arg(long, value_name = "DIR", env = "MCPGEN_SEARCH_MODEL")]
    pub search_model: Option<PathBuf>,
}

/// What `--search-model` says to an mcpgen built without search by meaning.
#[cfg(not(feature = "semantic"))]
pub(crate) const NO_SEMANTIC: &str = "--search-model needs search by meaning, which this mcpgen was built without: build it with `--features semantic` (cargo install --path . --features semantic)";

pub(super) fn run(args: &SearchArgs) -> Result<()> {
    // One SPEC (the query follows it); several APIs come in a multi-API file.
    let source = super::open(&args.input, &[], args.warnings.strict)?.source;
    let entries = tokens::entries(&source.config().tools);
    crate::mem::free_now(source);
    let index = SearchIndex::build(entries.iter().map(|e| e.search_doc()));
    #[cfg(feature = "semantic")]
    let model = args
        .search_model
        .as_deref()
        .map(SentenceModel::load)
        .transpose()
        .map_err(|e| Error::Usage { message: e.to_string() })?;
    #[cfg(feature = "semantic")]
    let vectors = match &model {
        Some(model) => {
            let made = |n: usize| eprintln!("embedding {n} tools with the search model (once: they are cached)");
            let cache = embed_cache_dir();
            let docs = entries.iter().map(|e| e.search_doc());
            Some(
                SemanticIndex::build(model, docs, cache.as_deref(), &made)
                    .map_err(|e| Error::Usage { message: e.to_string() })?,
            )
        }
        None => None,
    };
    #[cfg(feature = "semantic")]
    let finder = Finder { index: &index, semantic: model.as_ref().zip(vectors.as_ref()) };
    #[cfg(not(feature = "semantic"))]
    let finder = match &args.search_model {
        Some(_) => return Err(Error::Usage { message: NO_SEMANTIC.into() }),
        None => Finder::words(&index),
    };
    let result = meta::search_result(&entries, &finder, &args.query, args.limit as usize);
    if args.json {
        let structured = result.structured_content.unwrap_or_default();
        let text =
            serde_json::to_string_pretty(&structured).map_err(|e| Error::internal("printing the search result", e))?;
        println!("{text}");
    } else {
        for block in &result.content {
            if let Some(t) = block.as_text() {
                println!("{}", t.text);
            }
        }
    }
    Ok(())
}
