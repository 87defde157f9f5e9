//! The search discovery mode runs: words (BM25, [`crate::discovery::search`]) and, with a model,
//! meaning ([`crate::discovery::semantic`]), blended by the word index.

use crate::discovery::search::SearchIndex;
#[cfg(feature = "semantic")]
use crate::discovery::semantic::{SemanticIndex, SentenceModel};

/// The search discovery mode runs: BM25 over the tools' words, and, with a model and the tools'
/// vectors, what the request means.
#[derive(Clone, Copy)]
pub struct Finder<'a> {
    /// The words.
    pub index: &'a SearchIndex,
    /// The model and the tools' vectors; `None`: words only.
    #[cfg(feature = "semantic")]
    pub semantic: Option<(&'a SentenceModel, &'a SemanticIndex)>,
}

impl<'a> Finder<'a> {
    /// Words only.
    pub fn words(index: &'a SearchIndex) -> Finder<'a> {
        Finder {
            index,
            #[cfg(feature = "semantic")]
            semantic: None,
        }
    }

    /// The best `limit` tools for `query`, best first (see [`SearchIndex::search_with`]). A model
    /// that fails on a request leaves the words to answer it.
    pub fn search(&self, query: &str, limit: usize) -> Vec<(usize, f32)> {
        #[cfg(not(feature = "semantic"))]
        let cosines: Option<Vec<f32>> = None;
        #[cfg(feature = "semantic")]
        let cosines = self.semantic.and_then(|(model, vectors)| match vectors.score(model, query) {
            Ok(c) => Some(c),
            Err(e) => {
                tracing::warn!("{e}; searching by words only");
                None
            }
        });
        self.index.search_with(query, limit, cosines.as_deref())
    }
}
