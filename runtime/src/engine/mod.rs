//! The engine: a [`RuntimeConfig`] made callable. One call = validate the arguments, build the
//! request, add credentials, send it, map the response.
//!
//! What a feature adds to the engine is a part of its own, a module compiled with the feature
//! and replaced by a stand-in without it: discovery's (`search`: the index, search by meaning,
//! compact schemas, discovery's view and tools) and code mode's (`code`: scripts, their view
//! and tools). The hub reads the same whatever the features.

pub mod args;
pub mod caching;
pub mod caller;
pub mod confirm;
pub mod exposure;
pub mod live;
#[cfg(feature = "discovery")]
pub mod meta;
pub mod overview;
pub mod pins;
pub mod progress;
#[cfg(feature = "reload")]
pub mod reload;
pub mod resources;
pub mod results;
pub mod routes;

mod call;
#[cfg_attr(not(feature = "code"), path = "code_off.rs")]
mod code;
#[cfg_attr(not(feature = "discovery"), path = "compact_off.rs")]
mod compact;
mod delivery;
mod listing;
mod options;
#[cfg_attr(not(feature = "discovery"), path = "search_off.rs")]
mod search;
mod stored;
mod surfaces;
mod targets;
mod tool;

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock};

use self::exposure::Exposure;
use crate::config::{RuntimeConfig, Tool};
use crate::engine::routes::Routes;
use crate::error::{Error, Result};
use crate::ext::Extensions;
use crate::metrics::{Metrics, Outcome, ToolCounters};
use crate::upstream::Upstream;
use crate::upstream::credentials::Credentials;
pub use crate::upstream::identity::UpstreamAuth;
use crate::upstream::identity::Users;
use crate::upstream::target::Target;

pub use confirm::Asker;
pub use listing::Surface;
pub use options::EngineOptions;
pub use stored::StoredSchema;
pub use tool::ToolEntry;

/// Builds an engine for a config with the server's options: the first one, and each reload's.
pub(crate) type BuildFn = dyn Fn(RuntimeConfig) -> Result<Arc<Engine>> + Send + Sync;

/// A [`RuntimeConfig`] made callable: the tools, what `tools/list` shows, the upstream client, the
/// credentials read at start, and the hooks and handlers. Shared (`Arc`) by every session.
pub struct Engine {
    /// What `initialize` reports on the configured surface: the config's server info, with the
    /// map of the API and, in discovery mode, discovery's instructions (see
    /// [`Engine::instructions`] for each surface's).
    pub info: crate::config::ServerInfo,
    tools: Vec<ToolEntry>,
    index: HashMap<String, usize>,
    /// All tools, or discovery; compact schemas or full.
    exposure: Exposure,
    /// What each surface lists and says (see [`surfaces`]).
    views: surfaces::Views,
    /// Discovery's part: the search index and search by meaning.
    search: search::Search,
    /// Where tools of no listed API go (every tool, for a config of one API).
    default_target: Target,
    /// Where the tools of each API of [`RuntimeConfig::apis`] go, in its order.
    apis: Vec<Target>,
    upstream: Upstream,
    credentials: Credentials,
    /// Users' own tokens (`--upstream-auth user`), for the callback route.
    users: Users,
    ext: Extensions,
    /// The engine itself, for the [`crate::ext::Context`] a Rust tool gets.
    me: std::sync::Weak<Engine>,
    metrics: Arc<Metrics>,
    log_calls: bool,
    /// Call counters by tool index; the discovery tools after the catalogue's.
    counters: ToolCounters,
    /// Every scope some tool needs.
    scopes: BTreeSet<String>,
    /// The GET operations served as resources (`--resources`).
    routes: Routes,
    /// The context's result budget, detail and format.
    rendering: Rendering,
    list_ttl: std::time::Duration,
    /// Tools not in the catalogue because their definitions are not approved (`--pin-definitions`).
    withheld: pins::Withheld,
    /// Code mode's part: the scripts' names, limits and slots.
    code: code::Code,
}

/// How results are written: the context's budget (a tool's own overrides it), detail and format.
#[derive(Debug, Clone, Copy)]
struct Rendering {
    budget: usize,
    detail: crate::config::ResponseDetail,
    format: crate::config::ResponseFormat,
}

/// What one call did, filled in as it goes, for its count and its log line.
#[derive(Debug, Default)]
pub struct Observation {
    /// The catalogue tool called, by index (`None`: a discovery tool or an unknown name).
    pub tool: Option<usize>,
    /// How it ended, when the result alone does not say (see [`Outcome`]).
    pub outcome: Option<Outcome>,
    /// The status of the upstream's last response.
    pub status: Option<u16>,
}

impl Engine {
    /// Builds the engine; credentials are read from the environment here, once.
    pub fn new(config: RuntimeConfig, opts: EngineOptions) -> Result<Arc<Engine>> {
        Self::build(config, opts, &|name| std::env::var(name).ok(), Extensions::default())
    }

    /// Like [`Engine::new`], with hooks and handlers.
    pub fn with_extensions(config: RuntimeConfig, opts: EngineOptions, ext: Extensions) -> Result<Arc<Engine>> {
        Self::build(config, opts, &|name| std::env::var(name).ok(), ext)
    }

    /// The general constructor: credentials looked up through `env`.
    pub fn build(
        mut config: RuntimeConfig,
        opts: EngineOptions,
        env: &dyn Fn(&str) -> Option<String>,
        ext: Extensions,
    ) -> Result<Arc<Engine>> {
        let started = std::time::Instant::now();
        let rust = rust_tools(&mut config, &ext)?;
        let (default_target, apis, tool_apis) = targets::targets(&config, &opts)?;
        strip_credential_arguments(&mut config);
        // Each definition the tools' schemas share held once (a config of format 2 has them so).
        config.share_definitions();
        let shared = std::time::Instant::now();
        let definitions = Arc::new(std::mem::take(&mut config.definitions));
        let credentials = read_credentials(&config, env);
        let upstream = Upstream::new(opts.policy.clone(), opts.metrics.clone())?;
        let exposure = exposure::resolve(&config.context, &config.tools, &definitions);
        let exposure = search::Search::check(exposure, &config.context)?;
        let exposure = code::Code::check(exposure, &config.context)?;
        let search = search::Search::new(&config.context, &exposure, opts.serves_discovery)?;
        let code = code::Code::new(&config.context);
        let (mut tools, index) = catalogue(std::mem::take(&mut config.tools), tool_apis, &definitions)?;
        let catalogued = std::time::Instant::now();
        for name in &rust {
            if let Some(&i) = index.get(name) {
                tools[i].rust = true;
            }
        }
        let routes = Routes::build(&tools, &config.resources, crate::engine::resources::DESCRIPTION_URI);
        let rendering = Rendering {
            budget: config.context.max_result_chars,
            detail: config.context.response_detail,
            format: config.context.response_format,
        };
        let about = listing::About {
            text: config.server.instructions.as_deref(),
            apis: &config.apis,
            tags: &config.tags,
            pins: &config.context.pin_tools,
            results: results::instructions(tools.iter().map(|t| (&*t.mcp.name, &t.results)), rendering.budget),
        };
        let views = surfaces::Views::new(&exposure, &tools, about, &code)?;
        let mut info = config.server;
        info.instructions = views.configured_instructions(&exposure);
        opts.metrics.set_tools(tools.len());
        opts.metrics.set_withheld(opts.withheld.count("changed"), opts.withheld.count("new"));
        let counters = ToolCounters::new(tools.len() + exposure::OWN_TOOLS.len());
        let scopes = tools.iter().flat_map(|t| t.scopes.iter().flatten().cloned()).collect();
        let engine = Arc::new_cyclic(|me| Engine {
            me: me.clone(),
            code: code.bound(me),
            info,
            tools,
            index,
            exposure,
            views,
            search,
            default_target,
            apis,
            upstream,
            credentials,
            users: opts.users,
            ext,
            metrics: opts.metrics,
            log_calls: opts.log_calls,
            counters,
            scopes,
            routes,
            rendering,
            list_ttl: opts.list_ttl.unwrap_or(crate::engine::caching::DEFAULT_LIST_TTL),
            withheld: opts.withheld,
        });
        tracing::debug!(
            share_ms = (shared - started).as_millis() as u64,
            catalogue_ms = (catalogued - shared).as_millis() as u64,
            views_ms = catalogued.elapsed().as_millis() as u64,
            "engine built"
        );
        search::Search::start(&engine);
        Ok(engine)
    }

    /// The context's result budget (characters; `0`: none).
    pub fn result_budget(&self) -> usize {
        self.rendering.budget
    }

    /// Every scope some tool needs, for the metadata's `scopes_supported`.
    pub fn scopes(&self) -> &BTreeSet<String> {
        &self.scopes
    }

    /// The tools of the catalogue (all of them, whatever `tools/list` shows).
    pub fn tool_count(&self) -> usize {
        self.tools.len()
    }

    /// What the engine shows (every tool or discovery, full or compact schemas) and why.
    pub fn exposure(&self) -> &Exposure {
        &self.exposure
    }

    /// Every tool of the catalogue, in its order (whatever `tools/list` shows).
    pub fn tools(&self) -> &[ToolEntry] {
        &self.tools
    }

    /// The GET operations served as resources and resource templates.
    pub fn routes(&self) -> &Routes {
        &self.routes
    }

    /// How long clients may cache lists.
    pub fn list_ttl(&self) -> std::time::Duration {
        self.list_ttl
    }

    /// The metrics this engine counts into.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Counts a call to `name` that the HTTP layer refused because the caller's token lacks the
    /// tool's scopes (it never reaches [`Engine::call_as`]).
    pub fn count_forbidden(&self, name: &str) {
        if let Some(&index) = self.index.get(name) {
            self.counters.count(&self.metrics, index, name, Outcome::Forbidden);
        }
    }

    /// The tools `--pin-definitions` withheld from this catalogue.
    pub fn withheld(&self) -> &pins::Withheld {
        &self.withheld
    }

    /// The tool named `name` (any tool of the catalogue, listed or not); `None` when there is none.
    pub fn tool(&self, name: &str) -> Option<&ToolEntry> {
        self.index.get(name).map(|&i| &self.tools[i])
    }
}

/// Removes from `config`'s tools the arguments that are a security scheme's credential: a config
/// written before credentials were kept out of arguments (or by hand) is served so too, with the
/// operator's credential, never the model's value.
fn strip_credential_arguments(config: &mut RuntimeConfig) {
    for tool in &mut config.tools {
        for taken in tool.strip_credential_arguments(&config.security_schemes) {
            tracing::warn!(
                "tool `{}`: argument `{}` is the {} `{}` of security scheme `{}`: the credential is sent, the argument is removed",
                tool.name,
                taken.arg,
                taken.location.as_str(),
                taken.name,
                taken.scheme
            );
        }
    }
}

/// The credentials of `config`'s security schemes, read through `env` once; a credential that
/// tools need and that is not set is said now (the model would find out on its first 401).
fn read_credentials(config: &RuntimeConfig, env: &dyn Fn(&str) -> Option<String>) -> Credentials {
    let credentials = Credentials::from_env(&config.security_schemes, env);
    let bound = || config.tools.iter().filter_map(|t| t.http.as_ref());
    // An API that declares no way to authenticate (GitHub's description, say) gets no credentials:
    // say so now, not at the model's first 401.
    if config.security_schemes.is_empty() && bound().next().is_some() {
        tracing::warn!("the API declares no security scheme, so requests carry no credentials; {NO_SCHEME_HINT}");
    }
    let needs = bound().map(|h| h.security.as_slice());
    for (scheme, vars, tools) in credentials.missing(needs) {
        let need = if tools == 1 { "1 tool needs it".to_string() } else { format!("{tools} tools need it") };
        tracing::warn!("{vars} not set: {need} (security scheme `{scheme}`)");
    }
    credentials
}

/// How to give credentials to an API whose description declares none.
pub(crate) const NO_SCHEME_HINT: &str = "if it needs some, give them with `--auth bearer:ENV_VAR` (or `header:NAME:ENV_VAR`) to mcpgen serve, config or generate";

/// The catalogue as the engine holds it: each tool with its API (by index, from `tool_apis`) and
/// the `definitions` its schemas share, and the index of each by name.
///
/// Made afresh from each tool's JSON text. The tools arrive as trees allocated in the middle of
/// loading's peak (the document, the IR, a config's tree of values), and what the engine keeps
/// of them (names, descriptions, bindings) would pin the allocator's pages of that peak: Graph
/// v1.0 held 227 MB resident for 64 MB live (docs/performance.md). So every tool is written out
/// and its tree freed first, then each is read back, one at a time, into pages of its own.
fn catalogue(
    tools: Vec<Tool>,
    tool_apis: Vec<Option<usize>>,
    definitions: &Arc<crate::config::Definitions>,
) -> Result<(Vec<ToolEntry>, HashMap<String, usize>)> {
    // Written while the trees are alive: each tool's schemas as the text the engine stores,
    // and the rest of it (small) as JSON to read back.
    let written = tools
        .into_iter()
        .map(|mut t| {
            let schemas = tool::WrittenSchemas::take(&mut t);
            let rest = serde_json::to_string(&t)
                .map_err(|e| Error::Config(format!("tool `{}` cannot be written: {e}", t.name)))?;
            Ok((rest, schemas))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut index = HashMap::with_capacity(written.len());
    let mut texts = stored::SchemaTexts::default();
    let mut tools = Vec::with_capacity(written.len());
    for ((i, (rest, schemas)), api) in written.into_iter().enumerate().zip(tool_apis) {
        let t: Tool = serde_json::from_str(&rest)
            .map_err(|e| Error::Config(format!("tool {i} does not read back from what it wrote: {e}")))?;
        drop(rest);
        index.insert(t.name.clone(), i);
        tools.push(ToolEntry { api, ..ToolEntry::stored(t, schemas, definitions, &mut texts) });
    }
    Ok((tools, index))
}

/// Adds the Rust tools' own tools to the catalogue, and checks that each tool they answer is
/// there: a name taken twice, or a Rust function for a tool that does not exist, stops the start.
/// Returns the names they answer.
fn rust_tools(config: &mut RuntimeConfig, ext: &Extensions) -> Result<Vec<String>> {
    let own = ext.handlers.tools();
    for tool in own {
        if config.tools.iter().any(|t| t.name == tool.name) {
            return Err(crate::error::Error::Config(format!(
                "the Rust tool `{}` has the name of a tool of the API: give it another name, or replace that tool",
                tool.name
            )));
        }
        config.tools.push(tool);
    }
    let answers = ext.handlers.answers();
    for name in &answers {
        if !config.tools.iter().any(|t| t.name == *name) {
            let closest = args::by_closeness(name, config.tools.iter().map(|t| (t.name.as_str(), t.name.as_str())));
            let hint = closest.first().map(|(_, n)| format!(" (the closest is `{n}`)")).unwrap_or_default();
            return Err(crate::error::Error::Config(format!(
                "a Rust function answers `{name}`, which is not a tool of this server{hint}"
            )));
        }
    }
    Ok(answers)
}

pub(crate) fn tool_error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// A tool with every field the config has, numbers that do not print short among them.
    fn full_tool() -> Tool {
        serde_json::from_value(json!({
            "name": "orders_create",
            "title": "Create an order",
            "operation_id": "createOrder",
            "tags": ["orders", "store"],
            "description": "Places an order.",
            "input_schema": {"type": "object", "properties": {"qty": {"type": "number", "minimum": 0.1, "multipleOf": 0.30000000000000004}},
                             "required": ["qty"]},
            "output_schema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": true},
            "http": {"method": "POST", "path": "/orders", "params": []},
            "scopes": [["orders:write"], ["admin"]],
            "response": {"media_types": ["application/json"], "shape": "{ id }", "max_result_chars": 5000},
            "fixed_arguments": {"store": 2.2250738585072014e-308},
            "default_arguments": {"qty": 1.5}
        }))
        .expect("a tool")
    }

    #[test]
    fn the_catalogue_made_afresh_keeps_every_field() {
        let t = full_tool();
        let (tools, index) = catalogue(vec![t.clone()], vec![Some(1)], &Arc::default()).expect("the catalogue");
        let entry = &tools[0];
        assert_eq!(index.get("orders_create"), Some(&0));
        assert_eq!(entry.api, Some(1));
        assert_eq!(entry.mcp.name, t.name);
        assert_eq!(entry.mcp.title, t.title);
        assert_eq!(entry.mcp.description.as_deref(), Some(t.description.as_str()));
        assert_eq!(entry.operation_id, t.operation_id);
        assert_eq!(entry.tags, t.tags);
        assert_eq!(entry.scopes, t.scopes);
        assert_eq!(entry.http, t.http);
        assert_eq!(entry.response, t.response);
        assert_eq!(entry.owners.fixed, t.fixed_arguments);
        assert_eq!(entry.owners.defaults, t.default_arguments);
        assert_eq!(entry.input_schema.parse(), t.input_schema);
        assert_eq!(entry.output_schema.as_ref().map(StoredSchema::parse), t.output_schema);
        let (afresh, alone) = (entry.advertised(false), ToolEntry::new(t).advertised(false));
        assert_eq!(serde_json::to_string(&afresh).ok(), serde_json::to_string(&alone).ok());
    }
}
