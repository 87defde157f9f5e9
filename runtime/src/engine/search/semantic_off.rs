//! Search by meaning without the feature `semantic` (`semantic.rs` with it): words only, and a
//! search model asked for where search is served is refused by name.

use std::path::Path;

use crate::discovery::finder::Finder;
use crate::discovery::search::SearchIndex;
use crate::engine::ToolEntry;
use crate::engine::exposure::Exposure;
use crate::error::{Error, Result};

/// No model, no vectors.
pub(super) struct Semantic;

impl Semantic {
    /// A search model (`dir`) needs the `semantic` feature where discovery or code mode search.
    pub(super) fn new(dir: Option<&Path>, exposure: &Exposure, _searched: bool) -> Result<Semantic> {
        if dir.is_some() && (exposure.discovery || exposure.code) {
            return Err(Error::missing_feature("semantic", "--search-model"));
        }
        Ok(Semantic)
    }

    /// No vectors to make.
    pub(super) fn embed(&self, _tools: &[ToolEntry]) {}

    /// Search over `index` by words.
    pub(super) fn finder<'a>(&'a self, index: &'a SearchIndex) -> Finder<'a> {
        Finder::words(index)
    }
}
