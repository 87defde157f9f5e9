//! The vocabulary of what an endpoint shows, which the views (`surfaces.rs`) and the features'
//! parts (`search`, `code`) share: the [`Surface`] an endpoint is, a [`Listing`] of tools, and
//! what the views' instructions are made of ([`About`]). It imports none of them.

use rmcp::model::Tool as McpTool;

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
/// index of each (`None` for the server's own tools).
pub(super) struct Listing {
    pub(super) tools: Vec<McpTool>,
    pub(super) index: Vec<Option<usize>>,
}

/// What the views need of the config besides the tools (see `surfaces.rs`).
pub(super) struct About<'a> {
    /// The config's `server.instructions`.
    pub(super) text: Option<&'a str>,
    pub(super) apis: &'a [crate::config::Api],
    pub(super) tags: &'a std::collections::BTreeMap<String, String>,
    pub(super) pins: &'a [String],
    /// The paragraph on results (`_jq`, the budget), last in every view's instructions.
    pub(super) results: Option<String>,
}
