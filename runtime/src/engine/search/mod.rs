//! Discovery's part of the engine (feature `discovery`; `search_off.rs` stands in without it):
//! the search index over the tools and search by meaning ([`Search`]), compact schemas, the view
//! that `/mcp/discovery` and discovery mode show ([`View`]), and discovery's own tools in a call.

#[cfg_attr(not(feature = "semantic"), path = "semantic_off.rs")]
mod semantic;

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use rmcp::model::{CallToolResult, Tool as McpTool};
use serde_json::{Map, Value};

use super::listing::{About, Listing};
use crate::config::Context;
use crate::discovery::finder::Finder;
use crate::discovery::search::{SearchDoc, SearchIndex};
use crate::engine::caller::Caller;
use crate::engine::exposure::{self, Exposure};
use crate::engine::{Engine, Observation, Surface, ToolEntry, meta};
use crate::error::Result;

/// Discovery's part of the engine: the index over every tool, built on first use (in the
/// background at start where search is served), and search by meaning.
pub(super) struct Search {
    index: OnceLock<SearchIndex>,
    semantic: semantic::Semantic,
    /// Search is served (discovery mode, code mode, `/mcp/discovery`): the index is built at
    /// start and the search model loaded.
    searched: bool,
}

impl Search {
    /// The exposure a server with discovery can give: any.
    pub(super) fn check(exposure: Exposure, _context: &Context) -> Result<Exposure> {
        Ok(exposure)
    }

    /// The part for `exposure`, with the context's search model when search is served.
    pub(super) fn new(context: &Context, exposure: &Exposure, serves_discovery: bool) -> Result<Search> {
        let searched = exposure.discovery || exposure.code || serves_discovery;
        let semantic = semantic::Semantic::new(context.search_model.as_deref(), exposure, searched)?;
        Ok(Search { index: OnceLock::new(), semantic, searched })
    }

    /// Discovery is compiled in: the discovery surface shows discovery's view.
    pub(super) fn served(&self) -> bool {
        true
    }

    /// Where search is served, builds the index (and the tools' vectors) in the background.
    pub(super) fn start(engine: &Arc<Engine>) {
        if !engine.search.searched {
            return;
        }
        // A large catalogue (Microsoft Graph: 22,000 tools) takes a moment to index: off the
        // start-up path. A search arriving before it is done waits for it.
        let e = engine.clone();
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            e.search_index();
            tracing::debug!(index_ms = started.elapsed().as_millis() as u64, "search index built");
            e.search.semantic.embed(&e.tools);
        });
    }
}

impl Engine {
    /// The search index over every tool, built on first use.
    pub fn search_index(&self) -> &SearchIndex {
        self.search.index.get_or_init(|| SearchIndex::build_from(self.tools.len(), |i| self.tools[i].search_doc()))
    }

    /// Discovery's search: by words, and by meaning once the tools' vectors are made.
    pub fn finder(&self) -> Finder<'_> {
        self.search.semantic.finder(self.search_index())
    }
}

impl ToolEntry {
    /// What the search index reads of this tool.
    pub fn search_doc(&self) -> SearchDoc<'_> {
        SearchDoc {
            name: &self.mcp.name,
            operation_id: self.operation_id.as_deref(),
            title: self.mcp.title.as_deref(),
            description: self.mcp.description.as_deref().unwrap_or(""),
            method: self.http.as_ref().map(|h| h.method.as_upper()),
            path: self.http.as_ref().map(|h| h.path.as_str()),
            tags: &self.tags,
            input_schema: Cow::Owned(self.input_schema.parse()),
            response_shape: self.results.shape.as_deref(),
        }
    }
}

/// Discovery's view: its listing (made when a surface first asks for it, or with the engine in
/// discovery mode), its instructions, and `--pin-tool`'s globs for a listing made later.
pub(super) struct View {
    listing: OnceLock<Listing>,
    instructions: Option<String>,
    pins: Vec<String>,
}

impl View {
    /// Discovery's view of `tools`; `note` is what its instructions add (on `run_script`), and
    /// `finish` adds the paragraph on results.
    pub(super) fn new(
        about: &About<'_>,
        tools: &[ToolEntry],
        note: Option<String>,
        finish: &dyn Fn(String) -> Option<String>,
    ) -> View {
        let mut text = crate::engine::overview::discovery(about.text, tools, about.apis, about.tags);
        if let Some(note) = note {
            text.push_str("\n\n");
            text.push_str(&note);
        }
        View { listing: OnceLock::new(), instructions: finish(text), pins: about.pins.to_vec() }
    }

    /// Discovery's instructions.
    pub(super) fn instructions(&self) -> Option<&str> {
        self.instructions.as_deref()
    }

    /// Makes the listing now, for the configured surface in discovery mode: an invalid
    /// `--pin-tool` glob is an error. `run_script`: its tool, where discovery offers it.
    pub(super) fn configure(
        &self,
        exposure: &Exposure,
        tools: &[ToolEntry],
        run_script: Option<McpTool>,
    ) -> Result<()> {
        let listing = listing_of(meta::listed(exposure, &self.pins, tools)?, tools, run_script);
        let _ = self.listing.set(listing);
        Ok(())
    }

    /// The listing, made on first use.
    pub(super) fn listing(
        &self,
        exposure: &Exposure,
        tools: &[ToolEntry],
        run_script: impl FnOnce() -> Option<McpTool>,
    ) -> Option<&Listing> {
        Some(self.listing.get_or_init(|| {
            // Made after start: a glob the configured mode never read is a warning here.
            let listed = meta::listed(&Exposure { discovery: true, ..exposure.clone() }, &self.pins, tools)
                .unwrap_or_else(|e| {
                    tracing::warn!("{e}; /mcp/discovery pins no tool");
                    meta::meta_tools()
                });
            listing_of(listed, tools, run_script())
        }))
    }
}

/// Discovery's listing: its three tools (and `run_script`), then the pinned ones (found by name
/// in `tools`).
fn listing_of(mut listed: Vec<McpTool>, tools: &[ToolEntry], run_script: Option<McpTool>) -> Listing {
    let mut metas = exposure::META_TOOLS.len();
    if let Some(run_script) = run_script {
        listed.insert(metas, run_script);
        metas += 1;
    }
    let index = listed
        .iter()
        .enumerate()
        .map(|(i, t)| (i >= metas).then(|| tools.iter().position(|e| e.mcp.name == t.name)).flatten())
        .collect();
    Listing { tools: listed, index }
}

/// Answers a call to one of discovery's tools on `surface`, where it serves them; `None` when
/// `name` is not one there.
pub(super) async fn call_own(
    engine: &Engine,
    surface: Surface,
    name: &str,
    args: &Map<String, Value>,
    caller: &Caller,
    obs: &mut Observation,
) -> Option<CallToolResult> {
    if !engine.serves_meta(surface) {
        return None;
    }
    meta::call_meta(engine, name, args, caller, obs).await
}
