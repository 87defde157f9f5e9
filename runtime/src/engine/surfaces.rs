//! What one endpoint shows of the engine, its [`Surface`]: the tools `tools/list` gives, the
//! instructions `initialize` gives, and the tools `tools/call` takes. One engine (one catalogue,
//! one upstream client, one search index) serves every surface: stdio and `/mcp` the one the
//! tool mode chose, `/mcp/tools` every tool (for clients that search tools themselves), and
//! `/mcp/discovery` discovery's three tools (for those that do not). A child module of
//! `engine.rs`, so that the engine's fields stay private to the two.

use std::sync::OnceLock;

use rmcp::model::Tool as McpTool;

use super::caller::Caller;
use super::exposure::Exposure;
use super::listing::{About, Listing, Surface};
use super::{Engine, ToolEntry, code, search};
use crate::error::Result;

/// The engine's views: every tool, discovery's and code mode's (each a part of its feature's).
/// The configured one is made with the engine; the others when a surface first asks for them
/// (every tool of a 22,000-tool catalogue is 60 MB that stdio and `/mcp` never need). The
/// instructions of all are made at once: they are short, and their map is bounded.
pub(super) struct Views {
    all: OnceLock<Listing>,
    all_instructions: Option<String>,
    /// Discovery's listing and instructions.
    discovery: search::View,
    /// Code mode's listing and instructions, and `run_script` in discovery's.
    code: code::View,
}

/// The kinds of listing a surface shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    All,
    Discovery,
    Code,
}

impl Views {
    /// The views of `tools` as `exposure` shows them, code mode's as `code` says; the configured
    /// listing is made now (an invalid `--pin-tool` glob is an error in discovery mode).
    pub(super) fn new(exposure: &Exposure, tools: &[ToolEntry], about: About<'_>, code: &code::Code) -> Result<Views> {
        let with_results = |text: String| -> Option<String> {
            match (text.trim().is_empty(), &about.results) {
                (true, results) => results.clone(),
                (false, None) => Some(text),
                (false, Some(r)) => Some(format!("{text}\n\n{r}")),
            }
        };
        let all_text = crate::engine::overview::all_tools(about.text, tools, about.apis, about.tags);
        let views = Views {
            all: OnceLock::new(),
            all_instructions: with_results(all_text),
            discovery: search::View::new(&about, tools, code.discovery_note(), &with_results),
            code: code.view(exposure, &about, tools),
        };
        if exposure.code {
            return Ok(views);
        }
        if exposure.discovery {
            views.discovery.configure(exposure, tools, views.code.run_script_tool())?;
            return Ok(views);
        }
        let _ = views.all.set(all_listing(exposure, tools));
        Ok(views)
    }

    /// The instructions of the configured view (discovery's in discovery mode, code mode's in
    /// code mode).
    pub(super) fn configured_instructions(&self, exposure: &Exposure) -> Option<String> {
        if let Some((_, text)) = self.code.configured() {
            return text.clone();
        }
        if exposure.discovery {
            return self.discovery.instructions().map(str::to_string);
        }
        self.all_instructions.clone()
    }
}

/// Every tool, as `exposure` advertises them.
fn all_listing(exposure: &Exposure, tools: &[ToolEntry]) -> Listing {
    Listing {
        tools: tools.iter().map(|t| t.advertised(exposure.compact)).collect(),
        index: (0..tools.len()).map(Some).collect(),
    }
}

impl Engine {
    /// The listing `surface` shows.
    fn kind(&self, surface: Surface) -> Kind {
        match surface {
            // Without discovery nothing serves it (the HTTP layer has no such path).
            Surface::Discovery if self.search.served() => Kind::Discovery,
            Surface::Configured if self.code.configured(&self.exposure) => Kind::Code,
            Surface::Configured if self.exposure.discovery => Kind::Discovery,
            _ => Kind::All,
        }
    }

    fn listing(&self, kind: Kind) -> &Listing {
        let all = || self.views.all.get_or_init(|| all_listing(&self.exposure, &self.tools));
        match kind {
            Kind::All => all(),
            Kind::Discovery => {
                let run_script = || self.views.code.run_script_tool();
                self.views.discovery.listing(&self.exposure, &self.tools, run_script).unwrap_or_else(all)
            }
            Kind::Code => self.views.code.configured().map(|(listing, _)| listing).unwrap_or_else(all),
        }
    }

    /// The instructions `initialize` gives on `surface`.
    pub fn instructions(&self, surface: Surface) -> Option<&str> {
        match self.kind(surface) {
            Kind::All => self.views.all_instructions.as_deref(),
            Kind::Discovery => self.views.discovery.instructions(),
            Kind::Code => self.views.code.configured().and_then(|(_, text)| text.as_deref()),
        }
    }

    /// Whether `surface` is code mode's (its `describe_tools` answers declarations).
    pub fn lists_code(&self, surface: Surface) -> bool {
        self.kind(surface) == Kind::Code
    }

    /// Whether `surface` answers `run_script`: code mode's, and discovery's with `--run-script`.
    pub fn runs_scripts(&self, surface: Surface) -> bool {
        match self.kind(surface) {
            Kind::Code => true,
            Kind::Discovery => self.views.code.runs_in_discovery(),
            Kind::All => false,
        }
    }

    /// Whether `surface` answers discovery's tools (`search_tools`, `describe_tools`,
    /// `call_tool`): a tool of the API by one of those names is then reached through `call_tool`.
    pub fn serves_meta(&self, surface: Surface) -> bool {
        self.kind(surface) != Kind::All
    }

    /// Whether `surface`'s `tools/call` takes `name` directly: every name but on the discovery
    /// path, which takes only what it lists (the others go through `call_tool`).
    pub fn calls_directly(&self, surface: Surface, name: &str) -> bool {
        surface != Surface::Discovery || self.listing(self.kind(surface)).tools.iter().any(|t| t.name == name)
    }

    /// Up to `size` tools of the configured listing from `start`, and where the next page starts.
    pub fn mcp_tools_page(&self, start: usize, size: usize) -> (Vec<McpTool>, Option<usize>) {
        self.mcp_tools_page_for(Surface::Configured, &Caller::Trusted, start, size)
    }

    /// Up to `size` tools that `surface` lists for `caller` from `start` (a caller who may see
    /// only some tools pages through those), and where the next page starts.
    pub fn mcp_tools_page_for(
        &self,
        surface: Surface,
        caller: &Caller,
        start: usize,
        size: usize,
    ) -> (Vec<McpTool>, Option<usize>) {
        let listing = self.listing(self.kind(surface));
        let visible: Vec<&McpTool> = if caller.is_restricted() {
            let may = |i: &Option<usize>| i.is_none_or(|i| caller.may_use(&self.tools[i].scopes));
            listing.tools.iter().zip(&listing.index).filter(|(_, i)| may(i)).map(|(t, _)| t).collect()
        } else {
            listing.tools.iter().collect()
        };
        let end = start.saturating_add(size).min(visible.len());
        let page = visible.get(start..end).unwrap_or_default().iter().map(|t| (*t).clone()).collect();
        (page, (end < visible.len()).then_some(end))
    }

    /// The tools the configured surface lists.
    pub fn listed_count(&self) -> usize {
        self.listing(self.kind(Surface::Configured)).tools.len()
    }

    /// Whether `tools/list` on `surface` shows every caller the same tools on `other` as on this
    /// engine (the tools, and the scopes that decide who sees them): if not, its sessions are told.
    pub fn lists_as(&self, other: &Engine, surface: Surface) -> bool {
        fn scopes<'a>(e: &'a Engine, l: &'a Listing) -> impl Iterator<Item = Option<&'a Vec<Vec<String>>>> {
            l.index.iter().map(|i| i.map(|i| &e.tools[i].scopes))
        }
        let (mine, theirs) = (self.listing(self.kind(surface)), other.listing(other.kind(surface)));
        mine.tools == theirs.tools && scopes(self, mine).eq(scopes(other, theirs))
    }
}
