//! The MCP side: a hand-written rmcp `ServerHandler` over the engine's run-time tool list.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::engine::caching::CacheHints;
use crate::engine::confirm::{Confirmer, Gate};
use crate::engine::live::LiveEngine;
use crate::engine::resources;
use crate::engine::{Engine, Surface};

/// Tools per `tools/list` page: large APIs (Microsoft Graph: 22,000 tools, 60 MB) would otherwise
/// exceed what clients accept in one message (rmcp: 16 MB); common APIs fit in one page.
pub const PAGE_SIZE: usize = 2000;

/// The rmcp server handler over an [`Engine`]: `initialize`, paginated `tools/list`, `tools/call`.
/// Each request works on the engine of the moment (`LiveEngine`), which a reload may replace.
/// Cheap to clone (it holds an `Arc`).
#[derive(Clone)]
pub struct McpServer {
    live: LiveEngine,
    /// Access tokens are checked (`--oauth-issuer`): each request's caller sees and calls the
    /// tools its token's scopes allow.
    oauth: bool,
    /// The tools may change (`serve --watch`, SIGHUP): `listChanged` is declared and sessions
    /// are told.
    list_changed: bool,
    /// Calls of this class ask the user first (`--confirm`); `None`: none do.
    confirm: Option<Arc<Confirmer>>,
    /// Which tools it shows: the configured mode's, or every tool or discovery's (HTTP's
    /// `/mcp/tools` and `/mcp/discovery`).
    surface: Surface,
}

impl McpServer {
    /// A server for `engine`.
    pub fn new(engine: Arc<Engine>) -> Self {
        Self::live(LiveEngine::new(engine))
    }

    /// A server for whatever engine `live` holds at each request.
    pub fn live(live: LiveEngine) -> Self {
        McpServer { live, oauth: false, list_changed: false, confirm: None, surface: Surface::Configured }
    }

    /// The server with callers limited to what their access tokens allow (the HTTP layer puts
    /// the validated token in each request's extensions; see `crate::auth`).
    pub fn with_oauth(mut self) -> Self {
        self.oauth = true;
        self
    }

    /// The server declaring `tools.listChanged`, and remembering the sessions to notify.
    pub fn with_list_changed(mut self) -> Self {
        self.list_changed = true;
        self
    }

    /// The server asking the user before the calls `confirmer` names (`--confirm`).
    pub fn with_confirm(mut self, confirmer: Option<Arc<Confirmer>>) -> Self {
        self.confirm = confirmer;
        self
    }

    /// The same server showing `surface` (the same engine, sessions and checks).
    pub fn on(mut self, surface: Surface) -> Self {
        self.surface = surface;
        self
    }

    /// Which tools it shows.
    pub fn surface(&self) -> Surface {
        self.surface
    }

    /// The engine now served.
    pub fn engine(&self) -> Arc<Engine> {
        self.live.load()
    }

    /// The engine holder, shared with the code that reloads it.
    pub fn live_engine(&self) -> &LiveEngine {
        &self.live
    }

    /// Whether callers are limited to what their access tokens allow.
    #[cfg(feature = "http")]
    pub(crate) fn checks_tokens(&self) -> bool {
        self.oauth
    }

    /// Whether some calls ask the user first (`--confirm`).
    #[cfg(feature = "http")]
    pub(crate) fn confirms(&self) -> bool {
        self.confirm.is_some()
    }

    /// The caching hints of lists: private when each caller sees its own (OAuth scopes).
    fn list_hints(&self, engine: &Engine) -> CacheHints {
        CacheHints::lists(engine.list_ttl(), self.oauth)
    }
}

/// A `tools/call` on `engine`'s `surface` for `caller`, answered as the MCP result or error, as
/// rmcp's handler ([`McpServer::call_tool`]) answers it outside a session: the HTTP fast path's
/// (`transport::http::fast_call`).
#[cfg(feature = "http")]
pub(crate) async fn call(
    engine: &Engine,
    surface: Surface,
    name: &str,
    args: serde_json::Map<String, serde_json::Value>,
    caller: &crate::engine::caller::Caller,
) -> Result<rmcp::model::CallToolResult, ErrorData> {
    engine.call_on(surface, name, args, caller).await.map_err(|e| ErrorData::invalid_params(e.to_string(), None))
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let engine = self.engine();
        let info = &engine.info;
        let mut implementation = Implementation::new(info.name.clone(), info.version.clone());
        if let Some(t) = &info.title {
            implementation = implementation.with_title(t.clone());
        }
        // Resources: the API description at least; completions: of resource template variables.
        let mut capabilities = if self.list_changed {
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().enable_resources().build()
        } else {
            ServerCapabilities::builder().enable_tools().enable_resources().build()
        };
        if !engine.routes().templates.is_empty() {
            capabilities.completions = Some(Default::default());
        }
        let config = ServerConfig::new(capabilities).with_server_info(implementation);
        match engine.instructions(self.surface) {
            Some(i) => config.with_instructions(i.to_string()),
            None => config,
        }
    }

    /// Pages of `PAGE_SIZE` tools; the cursor is the index of the next tool.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => {
                c.parse::<usize>().map_err(|_| ErrorData::invalid_params(format!("invalid cursor {c:?}"), None))?
            }
        };
        let caller = crate::engine::caller::caller(self.oauth, &context.extensions);
        let engine = self.engine();
        let (tools, next) = engine.mcp_tools_page_for(self.surface, &caller, start, PAGE_SIZE);
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next.map(|n| n.to_string());
        let hints = self.list_hints(&engine);
        Ok(result.with_ttl_ms(hints.ttl_ms).with_cache_scope(hints.scope))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let caller = crate::engine::caller::caller(self.oauth, &context.extensions);
        let engine = self.engine();
        let all = resources::list(&engine, &caller);
        let (items, next) = resources::page(all, request.as_ref().and_then(|r| r.cursor.as_deref()), PAGE_SIZE)?;
        let mut result = ListResourcesResult::with_all_items(items);
        result.next_cursor = next;
        let hints = self.list_hints(&engine);
        Ok(result.with_ttl_ms(hints.ttl_ms).with_cache_scope(hints.scope))
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let caller = crate::engine::caller::caller(self.oauth, &context.extensions);
        let engine = self.engine();
        let all = resources::templates(&engine, &caller);
        let (items, next) = resources::page(all, request.as_ref().and_then(|r| r.cursor.as_deref()), PAGE_SIZE)?;
        let mut result = ListResourceTemplatesResult::with_all_items(items);
        result.next_cursor = next;
        let hints = self.list_hints(&engine);
        Ok(result.with_ttl_ms(hints.ttl_ms).with_cache_scope(hints.scope))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let caller = crate::engine::caller::caller(self.oauth, &context.extensions);
        Ok(resources::read(&self.engine(), &request.uri, &caller, self.oauth).await?.into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        resources::complete(&self.engine(), &request)
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The engine counts and logs the call.
        let args = request.arguments.take().unwrap_or_default();
        let caller = crate::engine::caller::caller(self.oauth, &context.extensions);
        // The engine of the moment, held to the end of the call even if a reload replaces it.
        let engine = self.engine();
        // The call's futures are boxed: rmcp spawns a task per request whose future holds this
        // one, and tokio copies a task's whole future when it spawns it and when it ends (a call
        // with its upstream request inline is kilobytes; memcpy was the top of the profile).
        if let Some(confirmer) = &self.confirm
            && let Gate::Answer(answer) =
                Box::pin(confirmer.gate(&engine, self.surface, &request, &args, &context, &caller)).await?
        {
            return Ok(answer);
        }
        // A user who has not authorized the API yet is sent to its consent page by their client.
        #[cfg(feature = "user-auth")]
        if let Some(question) = Box::pin(crate::transport::ask_user::ask_first(
            &engine,
            self.surface,
            &request.name,
            &args,
            &context,
            &caller,
        ))
        .await
        {
            return Ok(question);
        }
        // A script's calls ask through this call's session.
        let asker = match &self.confirm {
            Some(confirmer) if request.name == crate::engine::exposure::RUN_SCRIPT => {
                Some(crate::engine::Asker::new(confirmer.clone(), context.clone()))
            }
            _ => None,
        };
        // Progress when asked for; a cancelled request drops the call and its upstream request.
        let call = engine.call_in_session(self.surface, &request.name, args, &caller, asker.as_ref(), &context);
        let call = Box::pin(crate::engine::progress::run(
            async { call.await.map_err(|e| ErrorData::invalid_params(e.to_string(), None)) },
            &context,
        ))
        .await;
        let Some(outcome) = call else {
            return Err(ErrorData::internal_error("the request was cancelled", None));
        };
        outcome.map(Into::into)
    }

    /// 2026-07-28's `subscriptions/listen`: tools-list changes, when the tools may change.
    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = (self.list_changed && requested.tools_list_changed == Some(true)).then_some(true);
        Some(accepted)
    }

    /// A subscription is told of reloads that change the tools until the client ends it (or the
    /// server shuts down: its streams are cut after the shutdown grace).
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let id = context.sink().id().clone();
        if context.accepted().tools_list_changed == Some(true) {
            self.live.add_subscription(context.sink().clone(), self.surface);
        }
        context.cancelled().await;
        self.live.remove_subscription(&id);
        Ok(())
    }

    /// A session with a stream to its client (stdio, legacy SSE; stateless HTTP sends no
    /// `initialized` here): remembered, to be told when the tools change.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if self.list_changed {
            self.live.add_peer(context.peer, self.surface);
        }
    }
}
