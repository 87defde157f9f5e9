//! Semantic search: a sentence-embedding model reads what a request means, where BM25 only sees
//! its words ("how many API calls do I have left this hour" finds "Get rate limit status").
//!
//! The model is a BERT encoder in the sentence-transformers layout (`config.json`,
//! `tokenizer.json`, `model.safetensors`), such as all-MiniLM-L6-v2, run on the CPU with candle.
//! Each tool's title, first sentence and route are embedded once (cached on disk, see
//! [`crate::discovery::embed_cache`]); each query once per search. [`crate::discovery::search::SearchIndex::search_with`]
//! adds the cosine similarity to the BM25 score: on requests the engine was never tuned on, the top
//! 5 hold the right operation for 0.72 of them instead of 0.65 (docs/context.md).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::SystemTime;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams};

use crate::discovery::compact::{first_sentence, without_links};
use crate::discovery::embed_cache;
use crate::discovery::search::SearchDoc;
use crate::discovery::search::fields::strip_markup;

/// Longest input, in tokens (all-MiniLM-L6-v2's `max_seq_length`); tool texts are far shorter.
const MAX_TOKENS: usize = 256;
/// Texts embedded at once: padding is to the longest of a batch, and texts are sorted by length.
const BATCH: usize = 32;

/// Why a model cannot be loaded or run.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file of the model directory is missing or unreadable.
    #[error(
        "search model: cannot read {path}: {reason}. --search-model wants a sentence-transformers directory (config.json, tokenizer.json, model.safetensors), such as all-MiniLM-L6-v2 (docs/context.md says where to get one)"
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// What reading it said.
        reason: String,
    },
    /// The model's files do not make a BERT encoder.
    #[error("search model {path}: {reason}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Running the model failed.
    #[error("search model: {0}")]
    Run(String),
}

/// A loaded sentence-embedding model.
pub struct SentenceModel {
    model: BertModel,
    tokenizer: Tokenizer,
    dim: usize,
    dir: PathBuf,
    /// SHA-256 of the model's three files: what cached vectors were made with.
    fingerprint: [u8; 32],
}

impl std::fmt::Debug for SentenceModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SentenceModel").field("dir", &self.dir).field("dim", &self.dim).finish()
    }
}

fn run_err(e: impl std::fmt::Display) -> ModelError {
    ModelError::Run(e.to_string())
}

/// The files of a model directory.
const MODEL_FILES: [&str; 3] = ["config.json", "tokenizer.json", "model.safetensors"];

/// What tells a model directory's files apart without reading them: each file's canonical path,
/// length and modification time.
type Stamp = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn stamp(dir: &Path) -> Option<Stamp> {
    MODEL_FILES
        .iter()
        .map(|name| {
            let path = std::fs::canonicalize(dir.join(name)).ok()?;
            let meta = std::fs::metadata(&path).ok()?;
            Some((path, meta.len(), meta.modified().ok()))
        })
        .collect()
}

/// Models loaded and still in use, by their files' stamp.
static LOADED: Mutex<Vec<(Stamp, Weak<SentenceModel>)>> = Mutex::new(Vec::new());

impl SentenceModel {
    /// The model in `dir`, shared with any engine that already holds it: a reload that keeps
    /// `--search-model` neither reads and hashes 90 MB again nor holds two copies while the old
    /// engine drains. Files changed on disk (length or time) load afresh.
    pub fn shared(dir: &Path) -> Result<Arc<SentenceModel>, ModelError> {
        let stamp = stamp(dir);
        if let Some(stamp) = &stamp {
            let mut loaded = LOADED.lock().unwrap_or_else(PoisonError::into_inner);
            loaded.retain(|(_, model)| model.strong_count() > 0);
            if let Some(model) = loaded.iter().find(|(s, _)| s == stamp).and_then(|(_, m)| m.upgrade()) {
                return Ok(model);
            }
        }
        let model = Arc::new(SentenceModel::load(dir)?);
        if let Some(stamp) = stamp {
            LOADED.lock().unwrap_or_else(PoisonError::into_inner).push((stamp, Arc::downgrade(&model)));
        }
        Ok(model)
    }

    /// Loads the model in `dir`.
    pub fn load(dir: &Path) -> Result<SentenceModel, ModelError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|e| ModelError::Read { path, reason: e.to_string() })
        };
        let invalid = |name: &str, reason: String| ModelError::Invalid { path: dir.join(name), reason };
        let (config_bytes, tokenizer_bytes) = (read("config.json")?, read("tokenizer.json")?);
        let config: Config =
            serde_json::from_slice(&config_bytes).map_err(|e| invalid("config.json", e.to_string()))?;
        let mut tokenizer =
            Tokenizer::from_bytes(&tokenizer_bytes).map_err(|e| invalid("tokenizer.json", e.to_string()))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..Default::default() }))
            .map_err(|e| invalid("tokenizer.json", e.to_string()))?;
        let weights = read("model.safetensors")?;
        let mut digest = ring::digest::Context::new(&ring::digest::SHA256);
        for bytes in [&config_bytes, &tokenizer_bytes, &weights] {
            digest.update(&(bytes.len() as u64).to_le_bytes());
            digest.update(bytes);
        }
        let mut fingerprint = [0u8; 32];
        fingerprint.copy_from_slice(digest.finish().as_ref());
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &Device::Cpu)
            .map_err(|e| invalid("model.safetensors", e.to_string()))?;
        // sentence-transformers checkpoints name the tensors without the `bert.` prefix that
        // transformers' own checkpoints carry; candle's loader looks for both.
        let model = BertModel::load(vb, &config).map_err(|e| invalid("model.safetensors", e.to_string()))?;
        Ok(SentenceModel { model, tokenizer, dim: config.hidden_size, dir: dir.to_path_buf(), fingerprint })
    }

    /// SHA-256 of the model's files.
    pub fn fingerprint(&self) -> &[u8; 32] {
        &self.fingerprint
    }

    /// The length of the vectors.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The directory the model was loaded from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// One unit-length vector per text, one after the other: mean pooling over the tokens, as
    /// sentence-transformers does for this family of models.
    pub fn encode(&self, texts: &[&str]) -> Result<Vec<f32>, ModelError> {
        let mut out = vec![0f32; texts.len() * self.dim];
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        for batch in order.chunks(BATCH) {
            let vectors = self.encode_batch(&batch.iter().map(|&i| texts[i]).collect::<Vec<_>>())?;
            for (&i, v) in batch.iter().zip(vectors.chunks(self.dim)) {
                out[i * self.dim..(i + 1) * self.dim].copy_from_slice(v);
            }
        }
        Ok(out)
    }

    fn encode_batch(&self, texts: &[&str]) -> Result<Vec<f32>, ModelError> {
        let encodings = self.tokenizer.encode_batch(texts.to_vec(), true).map_err(run_err)?;
        let len = encodings.iter().map(|e| e.get_ids().len()).max().unwrap_or(0).max(1);
        let mut ids = vec![0u32; texts.len() * len];
        let mut mask = vec![0u32; texts.len() * len];
        for (row, e) in encodings.iter().enumerate() {
            let n = e.get_ids().len();
            ids[row * len..row * len + n].copy_from_slice(e.get_ids());
            mask[row * len..row * len + n].fill(1);
        }
        let shape = (texts.len(), len);
        let ids = Tensor::from_vec(ids, shape, &Device::Cpu).map_err(run_err)?;
        let mask = Tensor::from_vec(mask, shape, &Device::Cpu).map_err(run_err)?;
        let types = ids.zeros_like().map_err(run_err)?;
        let hidden = self.model.forward(&ids, &types, Some(&mask)).map_err(run_err)?;
        // Mean over the real tokens, then unit length.
        let mask = mask.to_dtype(DType::F32).and_then(|m| m.unsqueeze(2)).map_err(run_err)?;
        let summed = hidden.broadcast_mul(&mask).and_then(|h| h.sum(1)).map_err(run_err)?;
        let counts = mask.sum(1).map_err(run_err)?;
        let mean = summed.broadcast_div(&counts).map_err(run_err)?;
        let mut flat: Vec<f32> = mean.flatten_all().and_then(|t| t.to_vec1()).map_err(run_err)?;
        for v in flat.chunks_mut(self.dim) {
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
            v.iter_mut().for_each(|x| *x /= norm);
        }
        Ok(flat)
    }
}

/// Unit vectors of every tool, in catalogue order.
#[derive(Debug, Clone, PartialEq)]
pub struct SemanticIndex {
    dim: usize,
    vectors: Vec<f32>,
}

impl SemanticIndex {
    /// Vectors made elsewhere (the cache): `vectors.len()` is a multiple of `dim`.
    pub fn from_vectors(dim: usize, vectors: Vec<f32>) -> Option<SemanticIndex> {
        (dim > 0 && vectors.len().is_multiple_of(dim)).then_some(SemanticIndex { dim, vectors })
    }

    /// Embeds each tool's [`doc_text`], or reads the vectors the same model made of the same
    /// texts before from the cache (`cache`: its directory; `None`: none). `made` is told the
    /// number of tools before they are embedded (not when the cache had them).
    pub fn build<'a>(
        model: &SentenceModel,
        docs: impl IntoIterator<Item = SearchDoc<'a>>,
        cache: Option<&Path>,
        made: &dyn Fn(usize),
    ) -> Result<Self, ModelError> {
        let texts: Vec<String> = docs.into_iter().map(|d| doc_text(&d)).collect();
        let key = embed_cache::key(model.fingerprint(), &texts);
        let cached = cache.and_then(|dir| embed_cache::read(dir, &key, model.dim(), texts.len()));
        if let Some(index) = cached.and_then(|vectors| SemanticIndex::from_vectors(model.dim(), vectors)) {
            return Ok(index);
        }
        made(texts.len());
        let vectors = model.encode(&texts.iter().map(String::as_str).collect::<Vec<_>>())?;
        let index = SemanticIndex { dim: model.dim(), vectors };
        if let Some(dir) = cache {
            embed_cache::write(dir, &key, index.dim, &index.vectors);
        }
        Ok(index)
    }

    /// The number of tools.
    pub fn len(&self) -> usize {
        self.vectors.len() / self.dim
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.vectors.is_empty()
    }

    /// The vectors, one after the other.
    pub fn vectors(&self) -> &[f32] {
        &self.vectors
    }

    /// The length of each vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The cosine similarity of each tool to `query` (a unit vector).
    pub fn cosines(&self, query: &[f32]) -> Vec<f32> {
        self.vectors.chunks(self.dim).map(|v| v.iter().zip(query).map(|(a, b)| a * b).sum()).collect()
    }

    /// Embeds a request ([`query_text`]) and scores every tool against it.
    pub fn score(&self, model: &SentenceModel, query: &str) -> Result<Vec<f32>, ModelError> {
        let q = model.encode(&[&query_text(query)])?;
        Ok(self.cosines(&q))
    }
}

/// What is embedded of a tool: its title and the first sentence of its description (either
/// alone when the other is missing; the name when both are), and its method and path.
///
/// A description that opens with its summary ("Get a repository\n\nThe `parent`…") gives the
/// summary as its first sentence, so such a tool's summary is embedded twice. That is kept on
/// purpose: embedding the body's first sentence instead (`compact::described_description`) was
/// measured on the 550 requests of the spent sets and did no better (recall@5 0.743 against
/// 0.748, @10 0.847 against 0.838), because that sentence is often a note or boilerplate.
pub fn doc_text(doc: &SearchDoc<'_>) -> String {
    let sentence = first_sentence(&strip_markup(&without_links(doc.description)), 300);
    let mut text = match doc.title {
        Some(t) if sentence.is_empty() => t.to_string(),
        Some(t) => format!("{t}. {sentence}"),
        None if sentence.is_empty() => doc.name.to_string(),
        None => sentence,
    };
    if let (Some(m), Some(p)) = (doc.method, doc.path) {
        text.push(' ');
        text.push_str(m);
        text.push(' ');
        text.push_str(p);
    }
    text
}

/// What is embedded of a request: its words without the values in it (ids, numbers, `owner/repo`,
/// `#channel`, `@handle`, quoted text, host names), which say which thing, not what to do with it.
/// A request of values alone is embedded whole.
pub fn query_text(query: &str) -> String {
    let is_value = |w: &str| {
        w.contains(|c: char| c.is_ascii_digit() || matches!(c, '/' | '_' | '@' | '#' | '='))
            || w.starts_with(['\'', '"', '`'])
            || w.ends_with(['\'', '"', '`'])
            || [".com", ".dev", ".io"].iter().any(|tld| w.contains(tld))
    };
    let words: Vec<&str> = query.split_whitespace().filter(|w| !is_value(w)).collect();
    if words.is_empty() { query.trim().to_string() } else { words.join(" ") }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn doc<'a>(
        title: Option<&'a str>,
        description: &'a str,
        schema: &'a Map<String, serde_json::Value>,
    ) -> SearchDoc<'a> {
        SearchDoc {
            name: "issues_lock",
            operation_id: None,
            title,
            description,
            method: Some("PUT"),
            path: Some("/repos/{owner}/{repo}/issues/{issue_number}/lock"),
            tags: &[],
            input_schema: std::borrow::Cow::Borrowed(schema),
            response_shape: None,
        }
    }

    #[test]
    fn doc_text_is_title_first_sentence_and_route() {
        let schema = Map::new();
        let d = doc(Some("Lock an issue"), "Users with push access can lock an issue. More here.", &schema);
        assert_eq!(
            doc_text(&d),
            "Lock an issue. Users with push access can lock an issue. PUT /repos/{owner}/{repo}/issues/{issue_number}/lock"
        );
    }

    #[test]
    fn doc_text_without_title_uses_the_description_without_markup() {
        let schema = Map::new();
        let d = doc(None, "<p>Locks the [issue](https://x.example/a). Then more.</p>", &schema);
        assert_eq!(doc_text(&d), "Locks the issue. PUT /repos/{owner}/{repo}/issues/{issue_number}/lock");
        let d = doc(None, "", &schema);
        assert_eq!(doc_text(&d), "issues_lock PUT /repos/{owner}/{repo}/issues/{issue_number}/lock");
    }

    #[test]
    fn query_text_drops_values() {
        assert_eq!(query_text("lock issue 77 on acme/api, it's a 'flame war'"), "lock issue on it's a");
        assert_eq!(query_text("refund pi_3Nx8Kd2e for bob@acme.com in #billing"), "refund for in");
        assert_eq!(query_text("call https://ci.acme.dev/hook on push"), "call on push");
        assert_eq!(query_text("  42 acme/api "), "42 acme/api");
    }

    #[test]
    fn cosines_are_dot_products_of_unit_vectors() {
        let index = SemanticIndex::from_vectors(2, vec![1.0, 0.0, 0.6, 0.8]).unwrap();
        assert_eq!(index.len(), 2);
        assert_eq!(index.cosines(&[0.6, 0.8]), vec![0.6, 0.6 * 0.6 + 0.8 * 0.8]);
        assert!(SemanticIndex::from_vectors(2, vec![1.0]).is_none());
        assert!(SemanticIndex::from_vectors(0, vec![]).is_none());
    }

    #[test]
    fn a_stamp_changes_with_the_files() {
        let dir = tempfile::tempdir().unwrap();
        assert!(stamp(dir.path()).is_none(), "no files, no stamp");
        for name in MODEL_FILES {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        let before = stamp(dir.path()).unwrap();
        assert_eq!(stamp(dir.path()), Some(before.clone()));
        std::fs::write(dir.path().join("model.safetensors"), "xy").unwrap();
        assert_ne!(stamp(dir.path()), Some(before));
    }

    /// With a real model (`MCPGEN_TEST_SEARCH_MODEL`, which CI sets): one copy while it is held.
    #[test]
    fn a_held_model_is_shared() {
        let Some(dir) = std::env::var_os("MCPGEN_TEST_SEARCH_MODEL").map(PathBuf::from) else {
            eprintln!("skipped: no MCPGEN_TEST_SEARCH_MODEL");
            return;
        };
        let first = SentenceModel::shared(&dir).unwrap();
        let second = SentenceModel::shared(&dir).unwrap();
        assert!(Arc::ptr_eq(&first, &second));
        let weak = Arc::downgrade(&first);
        drop((first, second));
        assert!(weak.upgrade().is_none(), "the cache holds no model alive");
        assert_eq!(SentenceModel::shared(&dir).unwrap().dim(), 384);
    }

    #[test]
    fn a_missing_model_says_what_a_model_directory_holds() {
        let dir = tempfile::tempdir().unwrap();
        let err = SentenceModel::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("config.json") && err.contains("sentence-transformers"), "{err}");
    }
}
