//! What one endpoint shows of the engine, its [`Surface`]: the tools `tools/list` gives, the
//! instructions `initialize` gives, and the tools `tools/call` takes. One engine (one catalogue,
//! one upstream client, one search index) serves every surface: stdio and `/mcp` the one the
//! tool mode chose, `/mcp/tools` every tool (for clients that search tools themselves), and
//! `/mcp/discovery` discovery's three tools (for those that do not). A child module of
//! `engine.rs`, so that the engine's fields stay private to the two.

use super::*;

/// Which tools an endpoint shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Surface {
    /// What the tool mode chose (`--tool-mode`): stdio, HTTP's `/mcp`. Its `tools/call` takes
    /// any tool of the catalogue, and the discovery tools in discovery mode.
    #[default]
    Configured,
    /// Every tool, in full or compact schemas as the mode says (HTTP's `/mcp/tools`); its
    /// `tools/call` takes every tool of the catalogue.
    AllTools,
    /// Discovery's three tools and the pinned ones (HTTP's `/mcp/discovery`, feature
    /// `discovery`); its `tools/call` takes only those: the others are called through `call_tool`.
    Discovery,
}

impl Surface {
    /// The surfaces Streamable HTTP serves, with their paths: `/mcp` and its two siblings.
    pub const HTTP: [(Surface, &'static str); 3] =
        [(Surface::Configured, "/mcp"), (Surface::AllTools, "/mcp/tools"), (Surface::Discovery, "/mcp/discovery")];

    /// Its path over Streamable HTTP.
    pub fn path(self) -> &'static str {
        match self {
            Surface::Configured => "/mcp",
            Surface::AllTools => "/mcp/tools",
            Surface::Discovery => "/mcp/discovery",
        }
    }
}

/// One way of showing the catalogue: the tools `tools/list` gives, in order, with the catalogue
/// index of each (`None` for discovery's own tools).
pub(super) struct Listing {
    tools: Vec<McpTool>,
    index: Vec<Option<usize>>,
}

/// The engine's two views: every tool, and discovery's. The configured one is made with the
/// engine; the other when a surface first asks for it (every tool of a 22,000-tool catalogue is
/// 60 MB that stdio and `/mcp` never need). The instructions of both are made at once: they are
/// short, and their map is bounded.
pub(super) struct Views {
    all: OnceLock<Listing>,
    #[cfg(feature = "discovery")]
    discovery: OnceLock<Listing>,
    all_instructions: Option<String>,
    #[cfg(feature = "discovery")]
    discovery_instructions: Option<String>,
    /// Code mode's listing and instructions (made with the engine in code mode, else never).
    #[cfg(feature = "code")]
    code: Option<(Listing, Option<String>)>,
    /// Discovery's listing offers `run_script` (`--run-script`), with these limits.
    #[cfg(feature = "code")]
    run_script: Option<crate::code::sandbox::Limits>,
    /// `--pin-tool`'s globs, for a discovery listing made later.
    #[cfg(feature = "discovery")]
    pins: Vec<String>,
}

/// The two kinds of listing a surface shows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    All,
    #[cfg(feature = "discovery")]
    Discovery,
    #[cfg(feature = "code")]
    Code,
}

/// What [`Views::new`] needs of the config besides the tools.
pub(super) struct About<'a> {
    /// The config's `server.instructions`.
    pub(super) text: Option<&'a str>,
    pub(super) apis: &'a [crate::config::Api],
    pub(super) tags: &'a std::collections::BTreeMap<String, String>,
    pub(super) pins: &'a [String],
    /// The paragraph on results (`_jq`, the budget), last in every view's instructions.
    pub(super) results: Option<String>,
    /// A script's limits, and whether discovery offers `run_script`.
    #[cfg(feature = "code")]
    pub(super) code: (crate::code::sandbox::Limits, bool),
}

impl Views {
    /// The views of `tools` as `exposure` shows them; the configured listing is made now (an
    /// invalid `--pin-tool` glob is an error in discovery mode).
    pub(super) fn new(exposure: &Exposure, tools: &[ToolEntry], about: About<'_>) -> Result<Views> {
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
            #[cfg(feature = "discovery")]
            discovery: OnceLock::new(),
            all_instructions: with_results(all_text),
            #[cfg(feature = "discovery")]
            discovery_instructions: with_results(discovery_text(&about, tools)),
            #[cfg(feature = "discovery")]
            pins: about.pins.to_vec(),
            #[cfg(feature = "code")]
            code: exposure.code.then(|| code_view(&about, tools)),
            #[cfg(feature = "code")]
            run_script: about.code.1.then_some(about.code.0),
        };
        #[cfg(not(feature = "discovery"))]
        let _ = about.pins;
        #[cfg(feature = "code")]
        if exposure.code {
            return Ok(views);
        }
        #[cfg(feature = "discovery")]
        if exposure.discovery {
            let listing = views.discovery_listing(&meta::listed(exposure, &views.pins, tools)?, tools);
            let _ = views.discovery.set(listing);
            return Ok(views);
        }
        let _ = views.all.set(all_listing(exposure, tools));
        Ok(views)
    }

    /// The instructions of the configured view (discovery's in discovery mode, code mode's in
    /// code mode).
    pub(super) fn configured_instructions(&self, exposure: &Exposure) -> Option<String> {
        #[cfg(feature = "code")]
        if let Some((_, text)) = &self.code {
            return text.clone();
        }
        #[cfg(feature = "discovery")]
        if exposure.discovery {
            return self.discovery_instructions.clone();
        }
        let _ = exposure;
        self.all_instructions.clone()
    }

    /// Discovery's listing: its three tools (and `run_script` with `--run-script`), then the
    /// pinned ones (found by name in `tools`).
    #[cfg(feature = "discovery")]
    fn discovery_listing(&self, listed: &[McpTool], tools: &[ToolEntry]) -> Listing {
        #[cfg(feature = "code")]
        if let Some(limits) = &self.run_script {
            let mut listed = listed.to_vec();
            listed.insert(exposure::META_TOOLS.len(), crate::code::serve::run_script_tool(limits));
            return discovery_listing(&listed, tools, exposure::META_TOOLS.len() + 1);
        }
        discovery_listing(listed, tools, exposure::META_TOOLS.len())
    }
}

/// Discovery's instructions, with a word on `run_script` where it is offered.
#[cfg(feature = "discovery")]
fn discovery_text(about: &About<'_>, tools: &[ToolEntry]) -> String {
    #[cfg_attr(not(feature = "code"), allow(unused_mut))]
    let mut text = crate::engine::overview::discovery(about.text, tools, about.apis, about.tags);
    #[cfg(feature = "code")]
    if about.code.1 {
        text.push_str("\n\n");
        text.push_str(&crate::code::serve::discovery_instructions(&about.code.0));
    }
    text
}

/// Code mode's listing (its three tools; calls reach every tool through `run_script`) and
/// instructions.
#[cfg(feature = "code")]
fn code_view(about: &About<'_>, tools: &[ToolEntry]) -> (Listing, Option<String>) {
    let limits = &about.code.0;
    let listed = crate::code::serve::code_tools(limits);
    let index = vec![None; listed.len()];
    let how = crate::code::serve::instructions(limits, tools.len());
    let text = crate::engine::overview::code(about.text, &how, tools, about.apis, about.tags);
    (Listing { tools: listed, index }, Some(text))
}

/// Every tool, as `exposure` advertises them.
fn all_listing(exposure: &Exposure, tools: &[ToolEntry]) -> Listing {
    Listing {
        tools: tools.iter().map(|t| t.advertised(exposure.compact)).collect(),
        index: (0..tools.len()).map(Some).collect(),
    }
}

/// A listing of `metas` tools of the server's own, then catalogue tools (found by name in `tools`).
#[cfg(feature = "discovery")]
fn discovery_listing(listed: &[McpTool], tools: &[ToolEntry], metas: usize) -> Listing {
    let index = listed
        .iter()
        .enumerate()
        .map(|(i, t)| (i >= metas).then(|| tools.iter().position(|e| e.mcp.name == t.name)).flatten())
        .collect();
    Listing { tools: listed.to_vec(), index }
}

impl Engine {
    /// The listing `surface` shows.
    fn kind(&self, surface: Surface) -> Kind {
        match surface {
            #[cfg(feature = "discovery")]
            Surface::Discovery => Kind::Discovery,
            #[cfg(feature = "code")]
            Surface::Configured if self.exposure.code => Kind::Code,
            #[cfg(feature = "discovery")]
            Surface::Configured if self.exposure.discovery => Kind::Discovery,
            // Without the feature nothing serves discovery (the HTTP layer has no such path).
            _ => Kind::All,
        }
    }

    fn listing(&self, kind: Kind) -> &Listing {
        match kind {
            Kind::All => self.views.all.get_or_init(|| all_listing(&self.exposure, &self.tools)),
            #[cfg(feature = "discovery")]
            Kind::Discovery => self.views.discovery.get_or_init(|| {
                // Made after start: a glob the configured mode never read is a warning here.
                let listed =
                    meta::listed(&Exposure { discovery: true, ..self.exposure.clone() }, &self.views.pins, &self.tools)
                        .unwrap_or_else(|e| {
                            tracing::warn!("{e}; /mcp/discovery pins no tool");
                            meta::meta_tools()
                        });
                self.views.discovery_listing(&listed, &self.tools)
            }),
            #[cfg(feature = "code")]
            Kind::Code => match &self.views.code {
                Some((listing, _)) => listing,
                None => self.listing(Kind::All),
            },
        }
    }

    /// The instructions `initialize` gives on `surface`.
    pub fn instructions(&self, surface: Surface) -> Option<&str> {
        match self.kind(surface) {
            Kind::All => self.views.all_instructions.as_deref(),
            #[cfg(feature = "discovery")]
            Kind::Discovery => self.views.discovery_instructions.as_deref(),
            #[cfg(feature = "code")]
            Kind::Code => self.views.code.as_ref().and_then(|(_, text)| text.as_deref()),
        }
    }

    /// Whether `surface` is code mode's (its `describe_tools` answers declarations).
    pub fn lists_code(&self, surface: Surface) -> bool {
        #[cfg(feature = "code")]
        return self.kind(surface) == Kind::Code;
        #[cfg(not(feature = "code"))]
        {
            let _ = surface;
            false
        }
    }

    /// Whether `surface` answers `run_script`: code mode's, and discovery's with `--run-script`.
    pub fn runs_scripts(&self, surface: Surface) -> bool {
        #[cfg(feature = "code")]
        return match self.kind(surface) {
            Kind::Code => true,
            Kind::Discovery => self.views.run_script.is_some(),
            Kind::All => false,
        };
        #[cfg(not(feature = "code"))]
        {
            let _ = surface;
            false
        }
    }

    /// Whether `surface` answers discovery's tools (`search_tools`, `describe_tools`,
    /// `call_tool`): a tool of the API by one of those names is then reached through `call_tool`.
    pub fn serves_meta(&self, surface: Surface) -> bool {
        #[cfg(feature = "discovery")]
        return self.kind(surface) != Kind::All;
        #[cfg(not(feature = "discovery"))]
        {
            let _ = surface;
            false
        }
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
