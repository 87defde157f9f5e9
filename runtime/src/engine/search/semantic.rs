//! Search by meaning in discovery's part of the engine (feature `semantic`; `semantic_off.rs`
//! stands in without it): the context's search model, loaded at start, and the tools' vectors.

use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::discovery::finder::Finder;
use crate::discovery::search::SearchIndex;
use crate::discovery::semantic::{SemanticIndex, SentenceModel};
use crate::engine::ToolEntry;
use crate::engine::exposure::Exposure;
use crate::error::{Error, Result};

/// The search model and the tools' vectors.
pub(super) struct Semantic {
    /// The context's `search_model`, loaded at start.
    model: Option<Arc<SentenceModel>>,
    /// The tools' vectors, made (or read from the cache) in the background at start; search goes
    /// by words alone until they are there.
    vectors: OnceLock<SemanticIndex>,
}

impl Semantic {
    /// Loads the model in `dir` where search is served (`searched`).
    pub(super) fn new(dir: Option<&Path>, _exposure: &Exposure, searched: bool) -> Result<Semantic> {
        let model = match dir {
            Some(dir) if searched => Some(SentenceModel::shared(dir).map_err(|e| Error::Config(e.to_string()))?),
            Some(_) => {
                tracing::info!("search model not loaded: every tool is listed, so there is no search");
                None
            }
            None => None,
        };
        Ok(Semantic { model, vectors: OnceLock::new() })
    }

    /// Makes the tools' vectors with the search model (or reads them from the cache), once.
    pub(super) fn embed(&self, tools: &[ToolEntry]) {
        let Some(model) = &self.model else { return };
        let started = std::time::Instant::now();
        let cache = crate::discovery::embed_cache::default_dir();
        let made = |n: usize| tracing::info!("search model {}: embedding {n} tools", model.dir().display());
        match SemanticIndex::build(model, tools.iter().map(ToolEntry::search_doc), cache.as_deref(), &made) {
            Ok(vectors) => {
                tracing::info!(
                    "search model {}: {} tools ready in {:.1} s",
                    model.dir().display(),
                    vectors.len(),
                    started.elapsed().as_secs_f64()
                );
                let _ = self.vectors.set(vectors);
            }
            Err(e) => tracing::warn!("{e}; searching by words only"),
        }
    }

    /// Search over `index`, and by meaning once the vectors are made.
    pub(super) fn finder<'a>(&'a self, index: &'a SearchIndex) -> Finder<'a> {
        Finder { index, semantic: self.model.as_deref().zip(self.vectors.get()) }
    }
}
