//! Search over the tools, for discovery mode ([`crate::engine::meta`] serves its three tools) and
//! `mcpgen search`: BM25 over words ([`search`]), search by meaning ([`semantic`], feature
//! `semantic`) and the two blended ([`finder`]); compact schemas ([`compact`]). Nothing here knows
//! the engine.

pub mod analyzer;
pub mod compact;
#[cfg(feature = "semantic")]
pub mod embed_cache;
pub mod finder;
pub(crate) mod fuzzy;
pub mod lexicon;
pub mod query;
pub(crate) mod rerank;
pub mod search;
#[cfg(feature = "semantic")]
pub mod semantic;
