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

/// The engine's view of every tool (made on every core).
pub(crate) fn entries(tools: &[Tool]) -> Vec<ToolEntry> {
    crate::parallel::map_in_order(tools, |t| ToolEntry::new(t.clone()))
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

/// What listing every tool costs, with full and with compact schemas.
pub(crate) fn all_tools_costs(entries: &[ToolEntry]) -> (Cost, Cost) {
    (listing(&texts(entries, false)).cost, listing(&texts(entries, true)).cost)
}

/// Each tool as `tools/list` shows it, with full or compact schemas (compact JSON), written on
/// every core.
pub(crate) fn texts(entries: &[ToolEntry], compact: bool) -> Vec<String> {
    crate::parallel::map_in_order(entries, |e| serde_json::to_string(&e.advertised(compact)).unwrap_or_default())
}

/// A listing of tools and each tool's share of its tokens.
pub(crate) struct Listing {
    /// `{"tools":[...]}`, as [`list_cost`] counts it.
    pub cost: Cost,
    /// Each tool's tokens in the listing: its text from its `name` on, up to the next tool's
    /// (`},{"` joins two tools into one piece of the tokenizer); the shares and the listing's
    /// opening `{"tools":[{"` sum to `cost.tokens`.
    pub shares: Vec<usize>,
}

/// The listing of the tools of `texts` (each one's compact JSON), counted on every core. o200k's
/// pre-tokenizer cuts a text into pieces that BPE encodes one by one, and every tool's text starts
/// `{"name":`, a run of punctuation then a word: the cut before `name` is a cut of the listing's
/// pieces, so the listing's tokens are the sum of its parts' between those cuts.
pub(crate) fn listing(texts: &[String]) -> Listing {
    const HEAD: &str = "{\"tools\":[";
    const OPEN: &str = "{\"";
    let bytes = HEAD.len() + texts.iter().map(|t| t.len()).sum::<usize>() + texts.len().saturating_sub(1) + 2;
    if texts.is_empty() || !texts.iter().all(|t| t.starts_with("{\"name\":")) {
        let cost = listing_counted_whole(texts);
        return Listing { cost, shares: texts.iter().map(|t| count(t)).collect() };
    }
    let parts: Vec<(usize, &String)> = texts.iter().enumerate().collect();
    let shares = crate::parallel::map_in_order(&parts, |&(i, text)| {
        let joint = if i + 1 < texts.len() { ",{\"" } else { "]}" };
        count(&[&text[OPEN.len()..], joint].concat())
    });
    let tokens = count(&[HEAD, OPEN].concat()) + shares.iter().sum::<usize>();
    Listing { cost: Cost { bytes, tokens }, shares }
}

/// [`listing`]'s cost, the listing written whole and counted as one text.
fn listing_counted_whole(texts: &[String]) -> Cost {
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

    /// The listing counted in parts is the listing counted whole, for every sample API, with
    /// full and compact schemas.
    #[test]
    fn a_listing_counted_in_parts_is_the_listing_counted_whole() {
        let mut checked = 0;
        for sample in std::fs::read_dir("samples").expect("samples").flatten() {
            let path = sample.path();
            if !path.extension().is_some_and(|e| e == "json" || e == "yaml") {
                continue;
            }
            let Ok(p) = crate::pipeline::run(&path.display().to_string(), &Default::default()) else { continue };
            let entries = entries(&p.tools.config.tools);
            for compact in [false, true] {
                let texts = texts(&entries, compact);
                let listed = listing(&texts);
                assert_eq!(listed.cost, list_cost(entries.iter().map(|e| e.advertised(compact))), "{}", path.display());
                assert_eq!(listed.cost, listing_counted_whole(&texts), "{}", path.display());
                assert_eq!(listed.shares.len(), texts.len());
            }
            checked += 1;
        }
        assert!(checked >= 5, "only {checked} samples read");
        assert_eq!(listing(&[]).cost, list_cost([]));
    }

    /// Texts that do not start as a tool's do are counted whole.
    #[test]
    fn other_texts_are_counted_whole() {
        let texts = vec!["{\"a\":\"b c\"}".to_string(), "{\"name\":\"x\"}".to_string()];
        assert_eq!(listing(&texts).cost, listing_counted_whole(&texts));
        assert_eq!(listing(&texts).shares, [count(&texts[0]), count(&texts[1])]);
    }

    #[test]
    fn counts_with_o200k() {
        // Reference values from OpenAI's tokenizer for o200k_base.
        assert_eq!(count("hello world"), 2);
        assert_eq!(count(""), 0);
        assert!(count(r#"{"type":"object","properties":{"petId":{"type":"integer"}}}"#) > 10);
    }
}
