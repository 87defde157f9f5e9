//! What tool lists cost a model, in tokens of OpenAI's o200k_base BPE (GPT-4o and later), counted
//! with the `tiktoken` crate (OpenAI's tiktoken's counts). Other models' tokenizers differ by a
//! few percent on JSON; the ranking of modes does not.

use rmcp::model::Tool as McpTool;
use serde::Serialize;

use crate::runtime::tooling::ToolEntry;
use crate::runtime::tooling::listing as meta;
use mcpgen_config::{ListTokens, RuntimeConfig, Tool, tools_list_bytes};

/// Named in reports, so that readers know what was counted.
pub(crate) const TOKENIZER: &str = "o200k_base (tiktoken)";

/// Lists larger than this are not measured when a config is written: past it the cost is far
/// over any sensible limit, and the engine's estimate from the size suffices.
const MEASURE_MAX_BYTES: usize = 4 * 1024 * 1024;

fn bpe() -> Option<&'static tiktoken::CoreBpe> {
    tiktoken::get_encoding("o200k_base")
}

/// Tokens of `text` (an estimate from its size should the tokenizer's built-in table not load).
pub(crate) fn count(text: &str) -> usize {
    match bpe() {
        Some(bpe) => bpe.count(text),
        None => text.len().div_ceil(mcpgen_config::exposure::BYTES_PER_TOKEN_ESTIMATE),
    }
}

/// The size of one list: bytes of compact JSON and tokens.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
pub struct Cost {
    pub bytes: usize,
    pub tokens: usize,
}

/// `{"tools": [...]}` as the server sends it.
pub(crate) fn list_cost(tools: impl IntoIterator<Item = McpTool>) -> Cost {
    #[derive(Serialize)]
    struct List {
        tools: Vec<McpTool>,
    }
    let text = serde_json::to_string(&List { tools: tools.into_iter().collect() }).unwrap_or_default();
    Cost { bytes: text.len(), tokens: count(&text) }
}

/// The engine's view of every tool.
pub(crate) fn entries(tools: &[Tool]) -> Vec<ToolEntry> {
    tools.iter().map(|t| ToolEntry::new(t.clone())).collect()
}

/// Records in the config what listing every tool costs, with full and with compact schemas, so
/// that `auto` decides on real counts wherever the config is served (a generated crate too).
pub fn measure(config: &mut RuntimeConfig) {
    if tools_list_bytes(config.tools.iter().map(Tool::mcp_view), MEASURE_MAX_BYTES) > MEASURE_MAX_BYTES {
        config.context.tools_list_tokens = None;
        return;
    }
    let (full, compact) = all_tools_costs(&entries(&config.tools));
    config.context.tools_list_tokens = Some(ListTokens { full: full.tokens, compact: compact.tokens });
}

/// What listing every tool costs, with full and with compact schemas (counted side by side).
pub(crate) fn all_tools_costs(entries: &[ToolEntry]) -> (Cost, Cost) {
    let (texts, compact) = full_texts_and_compact_cost(entries);
    (listing_cost(&texts), compact)
}

/// Each tool as `tools/list` shows it with full schemas (compact JSON), and what listing every
/// tool with compact schemas costs (counted on a thread of its own meanwhile).
pub(crate) fn full_texts_and_compact_cost(entries: &[ToolEntry]) -> (Vec<String>, Cost) {
    std::thread::scope(|scope| {
        let compact = scope.spawn(|| list_cost(entries.iter().map(|e| e.advertised(true))));
        let texts = entries.iter().map(|e| serde_json::to_string(&e.advertised(false)).unwrap_or_default()).collect();
        (texts, compact.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// What listing the tools of `texts` (each one's compact JSON) costs: the list is written from
/// them, byte for byte what [`list_cost`] writes from the tools.
pub(crate) fn listing_cost(texts: &[String]) -> Cost {
    let mut text = String::with_capacity(texts.iter().map(|t| t.len() + 1).sum::<usize>() + 12);
    text.push_str("{\"tools\":[");
    for (i, tool) in texts.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        text.push_str(tool);
    }
    text.push_str("]}");
    Cost { bytes: text.len(), tokens: count(&text) }
}

/// Like [`measure`], for `serve`'s start-up: counts only when the size leaves `auto`'s choice in
/// doubt. JSON tool lists run 2 to 6 bytes per o200k token, so below 2 bytes per token of the
/// limit the list surely fits and above 6 surely not: the engine's estimate decides as well, without
/// the tokenizer's 130 ms and 50 MB.
pub(crate) fn measure_if_in_doubt(config: &mut RuntimeConfig) {
    let limit = config.context.auto_max_tokens;
    let bytes = tools_list_bytes(config.tools.iter().map(Tool::mcp_view), limit.saturating_mul(6));
    if bytes > limit.saturating_mul(2) && bytes <= limit.saturating_mul(6) {
        measure(config);
    }
}

/// What `tools/list` costs in each mode.
#[derive(Debug, Clone, Serialize)]
pub struct ModeCosts {
    pub all_full: Cost,
    pub all_compact: Cost,
    /// The three discovery tools and the pinned ones.
    pub discovery: Cost,
}

/// What discovery mode's `tools/list` costs: the three tools and the pinned ones, shown with the
/// schema detail the mode uses.
pub(crate) fn discovery_cost(
    entries: &[ToolEntry],
    pins: &[String],
    compact: bool,
) -> Result<Cost, crate::runtime::Error> {
    let pinned = meta::pinned(pins, entries)?;
    Ok(list_cost(meta::meta_tools().into_iter().chain(pinned.iter().map(|&i| entries[i].advertised(compact)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_from_texts_is_the_listing() {
        let p = crate::pipeline::run("samples/petstore-oas30.json", &Default::default()).expect("petstore");
        let entries = entries(&p.tools.config.tools);
        let (texts, _) = full_texts_and_compact_cost(&entries);
        assert_eq!(listing_cost(&texts), list_cost(entries.iter().map(|e| e.advertised(false))));
        assert_eq!(listing_cost(&[]), list_cost([]));
    }

    #[test]
    fn counts_with_o200k() {
        // Reference values from OpenAI's tokenizer for o200k_base.
        assert_eq!(count("hello world"), 2);
        assert_eq!(count(""), 0);
        assert!(count(r#"{"type":"object","properties":{"petId":{"type":"integer"}}}"#) > 10);
    }
}
