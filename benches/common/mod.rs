//! What the benches share.

use std::path::PathBuf;

/// A file of the corpus of real API descriptions (`../shared/corpus/fetch.sh`, in `$MCPGEN_CORPUS`
/// or `~/.cache/mcpgen-corpus`) by its path under `node_modules`; `None` when it is absent.
pub fn corpus(rel: &str) -> Option<PathBuf> {
    let root = std::env::var_os("MCPGEN_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/mcpgen-corpus"));
    let path = root.join("node_modules").join(rel);
    path.exists().then_some(path)
}
