//! The MCP side: a hand-written rmcp `ServerHandler` over the engine's run-time tool list.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use super::engine::Engine;
use super::live::LiveEngine;

/// Tools per `tools/list` page: large APIs (Microsoft Graph: 22,000 tools, 60 MB) would otherwise
/// exceed what clients accept in one message (rmcp: 16 MB); common APIs fit in one page.
pub const PAGE_SIZE: usize = 2000;

/// The rmcp server handler over an [`Engine`]: `initialize`, paginated `tools/list`, `tools/call`.
/// Each request works on the engine of the moment ([`LiveEngine`]), which a reload may replace.
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
}

impl McpServer {
    /// A server for `engine`.
    pub fn new(engine: Arc<Engine>) -> Self {
        Self::live(LiveEngine::new(engine))
    }

    /// A server for whatever engine `live` holds at each request.
    pub fn live(live: LiveEngine) -> Self {
        McpServer { live, oauth: false, list_changed: false }
    }

    /// The server with callers limited to what their access tokens allow (the HTTP layer puts
    /// the validated token in each request's extensions; see [`super::oauth`]).
    pub fn with_oauth(mut self) -> Self {
        self.oauth = true;
        self
    }

    /// The server declaring `tools.listChanged`, and remembering the sessions to notify.
    pub fn with_list_changed(mut self) -> Self {
        self.list_changed = true;
        self
    }

    /// The engine now served.
    pub fn engine(&self) -> Arc<Engine> {
        self.live.load()
    }

    /// The engine holder, shared with the code that reloads it.
    pub fn live_engine(&self) -> &LiveEngine {
        &self.live
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let engine = self.engine();
        let info = &engine.info;
        let mut implementation = Implementation::new(info.name.clone(), info.version.clone());
        if let Some(t) = &info.title {
            implementation = implementation.with_title(t.clone());
        }
        let capabilities = if self.list_changed {
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        let config = ServerConfig::new(capabilities).with_server_info(implementation);
        match &info.instructions {
            Some(i) => config.with_instructions(i.clone()),
            None => config,
        }
    }

    /// Pages of [`PAGE_SIZE`] tools; the cursor is the index of the next tool.
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
        let caller = super::oauth::caller(self.oauth, &context.extensions);
        let (tools, next) = self.engine().mcp_tools_page_for(&caller, start, PAGE_SIZE);
        let mut result = ListToolsResult::with_all_items(tools);
        result.next_cursor = next.map(|n| n.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The engine counts and logs the call.
        let args = request.arguments.unwrap_or_default();
        let caller = super::oauth::caller(self.oauth, &context.extensions);
        // The engine of the moment, held to the end of the call even if a reload replaces it.
        let engine = self.engine();
        match engine.call_from_client(&request.name, args, &caller).await {
            Ok(result) => Ok(result.into()),
            Err(e) => Err(ErrorData::invalid_params(e.to_string(), None)),
        }
    }

    /// A session with a stream to its client (stdio, legacy SSE; stateless HTTP sends no
    /// `initialized` here): remembered, to be told when the tools change.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if self.list_changed {
            self.live.add_peer(context.peer);
        }
    }
}
