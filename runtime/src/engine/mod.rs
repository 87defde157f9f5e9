//! The engine: a [`RuntimeConfig`] made callable. One call = validate the arguments, build the
//! request, add credentials, send it, map the response.

pub mod args;
pub mod caching;
pub mod caller;
pub mod confirm;
pub mod exposure;
pub mod hooks;
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

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{CallToolResult, ContentBlock, Tool as McpTool, ToolAnnotations};
use serde_json::{Map, Value};
use tracing::Instrument;

use self::exposure::Exposure;
use crate::config::{HttpBinding, RuntimeConfig, Tool};
#[cfg(feature = "discovery")]
use crate::discovery::finder::Finder;
#[cfg(feature = "discovery")]
use crate::discovery::search::{SearchDoc, SearchIndex};
#[cfg(feature = "semantic")]
use crate::discovery::semantic::{SemanticIndex, SentenceModel};
use crate::engine::caller::Caller;
use crate::engine::hooks::Extensions;
use crate::engine::results::ToolResults;
use crate::engine::routes::Routes;
use crate::error::{Error, Result};
use crate::metrics::{Metrics, Outcome, RequestId, ToolCounters};
use crate::response::{self, CallContext};
use crate::upstream::credentials::{Credential, Credentials};
pub use crate::upstream::identity::UpstreamAuth;
use crate::upstream::identity::{Identity, Users};
use crate::upstream::request::{self, PreparedRequest};
use crate::upstream::target::Target;
use crate::upstream::{Upstream, UpstreamPolicy};

/// Builds an engine for a config with the server's options: the first one, and each reload's.
pub(crate) type BuildFn = dyn Fn(RuntimeConfig) -> Result<Arc<Engine>> + Send + Sync;

/// What the operator chooses at start-up (command-line flags of `serve` and of generated crates).
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// Overrides the config's base URL.
    pub base_url: Option<String>,
    /// Static headers sent with every upstream request (`--header 'Name: value'`).
    pub headers: Vec<(String, String)>,
    /// Timeout, response size cap, retries, concurrency and rate limit toward the upstream.
    pub policy: UpstreamPolicy,
    /// Where calls are counted; shared by the engines of one server so that counts go on across
    /// a reload.
    pub metrics: Arc<Metrics>,
    /// Log each call's line at `info` (an access log, for `--log-format json`); else at `debug`.
    pub log_calls: bool,
    /// How long clients may cache lists (`--list-ttl`); [`crate::engine::caching::DEFAULT_LIST_TTL`] when
    /// `None`.
    pub list_ttl: Option<std::time::Duration>,
    /// Discovery is served whatever the mode (Streamable HTTP's `/mcp/discovery`): the search
    /// index is built in the background at start and the search model loaded, as in discovery
    /// mode.
    pub serves_discovery: bool,
    /// The tools `--pin-definitions` withheld from this catalogue (see [`pins`]): a call to one
    /// says why.
    pub withheld: pins::Withheld,
    /// Where users' own tokens at the APIs are kept (`--upstream-auth user`, `--token-store`;
    /// `()` without the feature `user-auth`).
    pub users: Users,
}

/// One tool as the engine holds it: what clients are shown, and what calls are checked against.
pub struct ToolEntry {
    /// The full definition (what is listed unless schemas are compact; see [`ToolEntry::advertised`]).
    pub mcp: McpTool,
    /// The full input schema: arguments are validated against it in every mode.
    pub input_schema: Arc<Map<String, Value>>,
    /// The tool's output schema, which structured results are validated against; `None`: none.
    pub output_schema: Option<Arc<Map<String, Value>>>,
    /// How a call is sent; `None`: the tool is answered by a handler ([`Extensions`]).
    pub http: Option<HttpBinding>,
    /// The tool's operationId when it differs from its name (search finds the tool by it too).
    pub operation_id: Option<String>,
    /// The operation's tags (search, and the areas of discovery's map).
    pub tags: Vec<String>,
    /// The OAuth scopes a caller needs for this tool (see [`crate::config::Tool::scopes`]).
    pub scopes: Vec<Vec<String>>,
    /// The API it belongs to, by index in [`RuntimeConfig::apis`]; `None`: the only one.
    pub api: Option<usize>,
    /// Its projection argument, pagination, budget and response shape.
    pub results: ToolResults,
    /// What its response looks like, as the config says (code mode's declarations read it).
    pub response: Option<crate::config::ResponseInfo>,
    input_validator: OnceLock<Option<jsonschema::Validator>>,
    output_validator: OnceLock<Option<jsonschema::Validator>>,
}

impl ToolEntry {
    /// A catalogue tool.
    pub fn new(t: Tool) -> ToolEntry {
        let results = ToolResults::new(&t);
        let advertised_schema = Arc::new(results.with_projection(t.input_schema.clone()));
        let input_schema = Arc::new(t.input_schema);
        let output_schema = t.output_schema.map(Arc::new);
        let mut mcp =
            McpTool::new_with_raw(t.name, (!t.description.is_empty()).then(|| t.description.into()), advertised_schema);
        mcp.title = t.title;
        mcp.output_schema = output_schema.clone();
        let a = t.annotations;
        let mut ann = ToolAnnotations::new()
            .read_only(a.read_only_hint)
            .destructive(a.destructive_hint)
            .idempotent(a.idempotent_hint)
            .open_world(a.open_world_hint);
        ann.title = a.title;
        mcp.annotations = Some(ann);
        ToolEntry {
            mcp,
            input_schema,
            output_schema,
            http: t.http,
            operation_id: t.operation_id,
            tags: t.tags,
            scopes: t.scopes,
            api: None,
            results,
            response: t.response,
            input_validator: OnceLock::new(),
            output_validator: OnceLock::new(),
        }
    }

    /// The definition clients are shown: the full one, or with compact schemas and description
    /// (see [`crate::discovery::compact`]), computed when asked for so that discovery mode pays only for the
    /// tools a client describes.
    #[cfg_attr(not(feature = "discovery"), allow(unused_mut, unused_variables))]
    pub fn advertised(&self, compact: bool) -> McpTool {
        let mut mcp = self.mcp.clone();
        // A list's shape after its description (not in `mcp`: search reads that).
        if !compact && let Some(d) = self.results.listed_description(mcp.description.as_deref().unwrap_or("")) {
            mcp.description = Some(d.into());
        }
        #[cfg(feature = "discovery")]
        if compact {
            use crate::discovery::compact::{
                Known, compact_annotations, compact_schema, compact_title, listed_description,
            };
            let description = listed_description(mcp.description.as_deref().unwrap_or(""), mcp.title.as_deref());
            let known = Known::new(&[&mcp.name, mcp.title.as_deref().unwrap_or("")]);
            mcp.title = mcp.title.take().and_then(|t| compact_title(&t, &description, &mcp.name));
            mcp.description = (!description.is_empty()).then(|| description.into());
            mcp.input_schema = Arc::new(self.results.with_projection(compact_schema(&self.input_schema, &known)));
            mcp.output_schema = self.output_schema.as_ref().map(|s| Arc::new(compact_schema(s, &known)));
            mcp.annotations = mcp.annotations.as_ref().and_then(compact_annotations);
        }
        mcp
    }

    /// The definition `describe_tools` gives: [`Self::advertised`], with a compact description
    /// that also keeps the sentence after the summary (see [`crate::discovery::compact::described_description`]).
    #[cfg_attr(not(feature = "discovery"), allow(unused_mut))]
    pub fn described(&self, compact: bool) -> McpTool {
        let mut mcp = self.advertised(compact);
        // `describe_tools` gives the shape as the tool's `response`.
        mcp.description = self.mcp.description.clone();
        #[cfg(feature = "discovery")]
        if compact {
            let description = crate::discovery::compact::described_description(
                self.mcp.description.as_deref().unwrap_or(""),
                self.mcp.title.as_deref(),
            );
            mcp.description = (!description.is_empty()).then(|| description.into());
        }
        mcp
    }

    /// What the search index reads of this tool.
    #[cfg(feature = "discovery")]
    pub fn search_doc(&self) -> SearchDoc<'_> {
        SearchDoc {
            name: &self.mcp.name,
            operation_id: self.operation_id.as_deref(),
            title: self.mcp.title.as_deref(),
            description: self.mcp.description.as_deref().unwrap_or(""),
            method: self.http.as_ref().map(|h| h.method.as_upper()),
            path: self.http.as_ref().map(|h| h.path.as_str()),
            tags: &self.tags,
            input_schema: &self.input_schema,
            response_shape: self.results.shape.as_deref(),
        }
    }
}

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
    /// Built on first use (in the background at start in discovery mode).
    #[cfg(feature = "discovery")]
    search: OnceLock<SearchIndex>,
    /// The context's `search_model`, loaded at start.
    #[cfg(feature = "semantic")]
    search_model: Option<Arc<SentenceModel>>,
    /// The tools' vectors, made (or read from the cache) in the background at start; search goes
    /// by words alone until they are there.
    #[cfg(feature = "semantic")]
    semantic: OnceLock<SemanticIndex>,
    /// Where tools of no listed API go (every tool, for a config of one API).
    default_target: Target,
    /// Where the tools of each API of [`RuntimeConfig::apis`] go, in its order.
    apis: Vec<Target>,
    upstream: Upstream,
    credentials: Credentials,
    /// Users' own tokens (`--upstream-auth user`), for the callback route.
    users: Users,
    ext: Extensions,
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
    /// Itself, for what outlives a borrow of it (a script's API calls are tasks of their own).
    #[cfg(feature = "code")]
    me: std::sync::Weak<Engine>,
    /// Code mode's names, limits and slots.
    #[cfg(feature = "code")]
    code: crate::code::serve::CodeState,
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
        let (default_target, apis, tool_apis) = targets::targets(&config, &opts)?;
        // A config written before credentials were kept out of arguments (or by hand) is served
        // so too: the operator's credential, never the model's value.
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
        let credentials = Credentials::from_env(&config.security_schemes, env);
        let needs = config.tools.iter().filter_map(|t| t.http.as_ref()).map(|h| h.security.as_slice());
        for (scheme, vars, tools) in credentials.missing(needs) {
            // The model would find out on its first 401: say it once, now.
            let need = if tools == 1 { "1 tool needs it".to_string() } else { format!("{tools} tools need it") };
            tracing::warn!("{vars} not set: {need} (security scheme `{scheme}`)");
        }
        let upstream = Upstream::new(opts.policy.clone(), opts.metrics.clone())?;
        let exposure = exposure::resolve(&config.context, &config.tools);
        #[cfg(not(feature = "discovery"))]
        let exposure = exposure::without_discovery(exposure, &config.context)?;
        #[cfg(not(feature = "code"))]
        let exposure = exposure::without_code(exposure, &config.context)?;
        #[cfg(not(feature = "semantic"))]
        if config.context.search_model.is_some() && (exposure.discovery || exposure.code) {
            return Err(Error::missing_feature("semantic", "--search-model"));
        }
        #[cfg(feature = "discovery")]
        let searched = exposure.discovery || exposure.code || opts.serves_discovery;
        #[cfg(feature = "semantic")]
        let search_model = match &config.context.search_model {
            Some(dir) if searched => Some(SentenceModel::shared(dir).map_err(|e| Error::Config(e.to_string()))?),
            Some(_) => {
                tracing::info!("search model not loaded: every tool is listed, so there is no search");
                None
            }
            None => None,
        };
        let mut index = HashMap::with_capacity(config.tools.len());
        let tools: Vec<ToolEntry> = config
            .tools
            .into_iter()
            .enumerate()
            .zip(tool_apis)
            .map(|((i, t), api)| {
                index.insert(t.name.clone(), i);
                ToolEntry { api, ..ToolEntry::new(t) }
            })
            .collect();
        let routes = Routes::build(&tools, &config.resources, crate::engine::resources::DESCRIPTION_URI);
        let rendering = Rendering {
            budget: config.context.max_result_chars,
            detail: config.context.response_detail,
            format: config.context.response_format,
        };
        #[cfg(feature = "code")]
        let code = crate::code::serve::CodeState::new((&config.context.script).into());
        #[cfg(feature = "code")]
        let run_script = config.context.run_script;
        let about = surfaces::About {
            text: config.server.instructions.as_deref(),
            apis: &config.apis,
            tags: &config.tags,
            pins: &config.context.pin_tools,
            results: results::instructions(tools.iter().map(|t| (&*t.mcp.name, &t.results)), rendering.budget),
            #[cfg(feature = "code")]
            code: (code.limits(), run_script),
        };
        let views = surfaces::Views::new(&exposure, &tools, about)?;
        let mut info = config.server;
        info.instructions = views.configured_instructions(&exposure);
        opts.metrics.set_tools(tools.len());
        opts.metrics.set_withheld(opts.withheld.count("changed"), opts.withheld.count("new"));
        let counters = ToolCounters::new(tools.len() + exposure::OWN_TOOLS.len());
        let scopes = tools.iter().flat_map(|t| t.scopes.iter().flatten().cloned()).collect();
        #[cfg_attr(not(feature = "code"), allow(unused_variables))]
        let engine = Arc::new_cyclic(|me| Engine {
            #[cfg(feature = "code")]
            me: me.clone(),
            #[cfg(feature = "code")]
            code,
            info,
            tools,
            index,
            exposure,
            views,
            #[cfg(feature = "discovery")]
            search: OnceLock::new(),
            #[cfg(feature = "semantic")]
            search_model,
            #[cfg(feature = "semantic")]
            semantic: OnceLock::new(),
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
        #[cfg(feature = "discovery")]
        if searched {
            // A large catalogue (Microsoft Graph: 22,000 tools) takes a moment to index: off the
            // start-up path. A search arriving before it is done waits for it.
            let e = engine.clone();
            std::thread::spawn(move || {
                e.search_index();
                #[cfg(feature = "semantic")]
                e.embed_tools();
            });
        }
        Ok(engine)
    }

    /// This engine as shared (`None` once every holder dropped it).
    #[cfg(feature = "code")]
    pub(crate) fn shared(&self) -> Option<Arc<Engine>> {
        self.me.upgrade()
    }

    /// Code mode's names, limits and slots.
    #[cfg(feature = "code")]
    pub(crate) fn code_state(&self) -> &crate::code::serve::CodeState {
        &self.code
    }

    /// The tools' names in scripts.
    #[cfg(feature = "code")]
    pub fn script_names(&self) -> &crate::code::ScriptNames {
        self.code.names(&self.tools)
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

    /// The search index over every tool, built on first use.
    #[cfg(feature = "discovery")]
    pub fn search_index(&self) -> &SearchIndex {
        self.search.get_or_init(|| SearchIndex::build(self.tools.iter().map(ToolEntry::search_doc)))
    }

    /// Discovery's search: by words, and by meaning once the tools' vectors are made.
    #[cfg(feature = "discovery")]
    pub fn finder(&self) -> Finder<'_> {
        Finder {
            index: self.search_index(),
            #[cfg(feature = "semantic")]
            semantic: self.search_model.as_deref().zip(self.semantic.get()),
        }
    }

    /// Makes the tools' vectors with the search model (or reads them from the cache), once.
    #[cfg(feature = "semantic")]
    fn embed_tools(&self) {
        let Some(model) = &self.search_model else { return };
        let started = std::time::Instant::now();
        let cache = crate::discovery::embed_cache::default_dir();
        let made = |n: usize| tracing::info!("search model {}: embedding {n} tools", model.dir().display());
        match SemanticIndex::build(model, self.tools.iter().map(ToolEntry::search_doc), cache.as_deref(), &made) {
            Ok(vectors) => {
                tracing::info!(
                    "search model {}: {} tools ready in {:.1} s",
                    model.dir().display(),
                    vectors.len(),
                    started.elapsed().as_secs_f64()
                );
                let _ = self.semantic.set(vectors);
            }
            Err(e) => tracing::warn!("{e}; searching by words only"),
        }
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

mod call;
mod surfaces;
mod targets;

pub use call::Delivery;
#[cfg(feature = "code")]
pub(crate) use call::Via;
pub use confirm::Asker;

pub use surfaces::Surface;

pub(crate) fn tool_error(text: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text)])
}
