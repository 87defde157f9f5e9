//! What the benches share.

use std::path::PathBuf;

use serde_json::Value;

/// A file of the corpus of real API descriptions (`../shared/corpus/fetch.sh`, in `$MCPGEN_CORPUS`
/// or `~/.cache/mcpgen-corpus`) by its path under `node_modules`; `None` when it is absent.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let root = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"));
    let path = root.join("node_modules").join(rel);
    path.exists().then_some(path)
}

/// Characters tokenized exactly; a longer text is counted on this many and scaled.
#[allow(dead_code)] // not every bench counts tokens
const TOKENIZE_MAX_CHARS: usize = 200_000;

#[allow(dead_code)]
fn bpe() -> &'static tiktoken::CoreBpe {
    tiktoken::get_encoding("o200k_base").expect("o200k_base")
}

/// o200k tokens of `text`: exact up to [`TOKENIZE_MAX_CHARS`], else scaled from that many.
#[allow(dead_code)] // not every bench counts tokens
pub fn tokens(text: &str) -> usize {
    let chars = text.chars().count();
    if chars <= TOKENIZE_MAX_CHARS {
        return bpe().count(text);
    }
    let cut = text.char_indices().nth(TOKENIZE_MAX_CHARS).map_or(text.len(), |(i, _)| i);
    let n = bpe().count(&text[..cut]);
    (n as f64 * chars as f64 / TOKENIZE_MAX_CHARS as f64).round() as usize
}

/// A sample as a local upstream would send it: URLs on the API's own origin point at the local
/// upstream, which stands in for it.
#[allow(dead_code)] // not every bench runs an upstream
pub fn rehome(v: &mut Value, from: &str, to: &str) {
    match v {
        Value::String(s) if s.starts_with(from) => *s = format!("{to}{}", &s[from.len()..]),
        Value::Array(a) => a.iter_mut().for_each(|v| rehome(v, from, to)),
        Value::Object(o) => o.values_mut().for_each(|v| rehome(v, from, to)),
        _ => {}
    }
}
