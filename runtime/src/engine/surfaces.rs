//! What one endpoint shows of the engine, its [`Surface`]: the tools `tools/list` gives, the
//! instructions `initialize` gives, and the tools `tools/call` takes. One engine (one catalogue,
//! one upstream client, one search index) serves every surface: stdio and `/mcp` the one the
//! tool mode chose, `/mcp/tools` every tool (for clients that search tools themselves), and
//! `/mcp/discovery` discovery's three tools (for those that do not). A child module of
//! `engine.rs`, so that the engine's fields stay private to the two.

use rmcp::model::Tool as McpTool;

use super::caller::Caller;
use super::exposure::Exposure;
use super::listing::{About, Listing, Surface};
use super::{Engine, ToolEntry, code, search};
use crate::error::Result;

/// The engine's views: every tool, discovery's and code mode's (each a part of its feature's).
/// Every tool's view is no listing held: each page of it is written from the catalogue when
/// asked for (the advertised schemas of a 11,000-tool catalogue are hundreds of megabytes, and
/// their definitions are the catalogue's, shared). Discovery's and code mode's, short, are made
/// when a surface first asks for them (the configured one with the engine). The instructions of
/// all are made at once: they are short, and their map is bounded.
pub(super) struct Views {
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
            all_instructions: with_results(all_text),
            discovery: search::View::new(&about, tools, code.discovery_note(), &with_results),
            code: code.view(exposure, &about, tools),
        };
        if exposure.code {
            return Ok(views);
        }
        if exposure.discovery {
            views.discovery.configure(exposure, tools, views.code.run_script_tool())?;
        }
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

/// What a surface lists: a listing held (discovery's, code mode's), or every tool of the
/// catalogue, advertised when a page is written.
#[derive(Clone, Copy)]
enum Shown<'a> {
    Held(&'a Listing),
    All,
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

    fn listing(&self, kind: Kind) -> Shown<'_> {
        let held = match kind {
            Kind::All => None,
            Kind::Discovery => {
                let run_script = || self.views.code.run_script_tool();
                self.views.discovery.listing(&self.exposure, &self.tools, run_script)
            }
            Kind::Code => self.views.code.configured().map(|(listing, _)| listing),
        };
        held.map_or(Shown::All, Shown::Held)
    }

    /// The catalogue indexes of what `shown` lists (`None` for the server's own tools).
    fn shown_indexes<'a>(&'a self, shown: Shown<'a>) -> Box<dyn Iterator<Item = Option<usize>> + 'a> {
        match shown {
            Shown::Held(listing) => Box::new(listing.index.iter().copied()),
            Shown::All => Box::new((0..self.tools.len()).map(Some)),
        }
    }

    /// The `i`th tool `shown` lists, as advertised.
    fn shown_tool(&self, shown: Shown<'_>, i: usize) -> Option<McpTool> {
        match shown {
            Shown::Held(listing) => listing.tools.get(i).cloned(),
            Shown::All => self.tools.get(i).map(|t| t.advertised(self.exposure.compact)),
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
        surface != Surface::Discovery
            || match self.listing(self.kind(surface)) {
                Shown::Held(listing) => listing.tools.iter().any(|t| t.name == name),
                Shown::All => self.index.contains_key(name),
            }
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
        let shown = self.listing(self.kind(surface));
        // The positions in the listing of the tools the caller may see.
        let may =
            |i: &Option<usize>| !caller.is_restricted() || i.is_none_or(|i| caller.may_use(&self.tools[i].scopes));
        let visible: Vec<usize> =
            self.shown_indexes(shown).enumerate().filter(|(_, i)| may(i)).map(|(at, _)| at).collect();
        let end = start.saturating_add(size).min(visible.len());
        let page =
            visible.get(start..end).unwrap_or_default().iter().filter_map(|&at| self.shown_tool(shown, at)).collect();
        (page, (end < visible.len()).then_some(end))
    }

    /// The tools the configured surface lists.
    pub fn listed_count(&self) -> usize {
        match self.listing(self.kind(Surface::Configured)) {
            Shown::Held(listing) => listing.tools.len(),
            Shown::All => self.tools.len(),
        }
    }

    /// Whether `tools/list` on `surface` shows every caller the same tools on `other` as on this
    /// engine (the tools, and the scopes that decide who sees them): if not, its sessions are told.
    pub fn lists_as(&self, other: &Engine, surface: Surface) -> bool {
        fn scopes<'a>(e: &'a Engine, shown: Shown<'a>) -> impl Iterator<Item = Option<&'a Vec<Vec<String>>>> {
            e.shown_indexes(shown).map(|i| i.map(|i| &e.tools[i].scopes))
        }
        let (mine, theirs) = (self.listing(self.kind(surface)), other.listing(other.kind(surface)));
        let count = |e: &Engine, shown: Shown<'_>| e.shown_indexes(shown).count();
        let (n, m) = (count(self, mine), count(other, theirs));
        // One tool at a time: every tool's advertised definition is never held at once.
        n == m
            && (0..n).all(|i| self.shown_tool(mine, i) == other.shown_tool(theirs, i))
            && scopes(self, mine).eq(scopes(other, theirs))
    }
}
