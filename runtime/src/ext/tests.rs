//! Rust tools through the engine: a replacement answers the model and reaches the API through
//! its context, tools of a crate's own are listed and called, the owner's fixed and default
//! arguments go upstream, and a Rust function for no tool stops the start.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::{Context, Error, Extensions, HandlerFuture, Handlers, Hooks, OwnTools, Request};
use crate::config::RuntimeConfig;
use crate::engine::{Engine, EngineOptions};

/// An API that answers each request with what it received.
async fn echo_api() -> String {
    async fn echo(
        method: axum::http::Method,
        uri: axum::http::Uri,
        headers: axum::http::HeaderMap,
    ) -> axum::Json<Value> {
        let tenant = headers.get("x-tenant").and_then(|v| v.to_str().ok()).map(str::to_string);
        let team = headers.get("x-team").and_then(|v| v.to_str().ok()).map(str::to_string);
        axum::Json(json!({"method": method.as_str(), "uri": uri.to_string(), "tenant": tenant, "team": team}))
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, axum::Router::new().fallback(echo)).await });
    url
}

/// `getUser` (GET /users/{id}, a `limit` the owner defaults, an `x-tenant` header the owner
/// fixes) and `deleteUser`.
fn config(base_url: &str) -> RuntimeConfig {
    let tool = |name: &str, method: &str| {
        json!({
            "name": name,
            "input_schema": {"type": "object", "properties": {"id": {"type": "string"}, "limit": {"type": "integer"}},
                             "required": ["id"]},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": true},
            "http": {"method": method, "path": "/users/{id}", "params": [
                {"arg": "id", "name": "id", "in": "path", "style": "simple", "explode": false},
                {"arg": "limit", "name": "limit", "in": "query", "style": "form", "explode": true},
                {"arg": "x-tenant", "name": "x-tenant", "in": "header", "style": "simple", "explode": false}
            ]},
            "fixed_arguments": {"x-tenant": "acme"},
            "default_arguments": {"limit": 20}
        })
    };
    let config = json!({
        "mcpgen_config": crate::config::CONFIG_FORMAT_VERSION,
        "server": {"name": "t", "version": "1"},
        "upstream": {"base_url": base_url},
        "tools": [tool("getUser", "GET"), tool("deleteUser", "DELETE")]
    });
    RuntimeConfig::from_json(&config.to_string()).unwrap()
}

/// Replaces `getUser`: asks the API through its context and wraps the answer.
struct Replace;

impl Handlers for Replace {
    fn call<'a>(&'a self, tool: &'a str, args: Map<String, Value>, cx: Context) -> Option<HandlerFuture<'a>> {
        (tool == "getUser").then(|| -> HandlerFuture<'a> {
            Box::pin(async move {
                let seen = cx.call("getUser", args).await?;
                Ok(json!({"wrapped": seen, "subject": cx.subject()}))
            })
        })
    }

    fn answers(&self) -> Vec<String> {
        vec!["getUser".into()]
    }
}

/// A header on every request, and no deleting.
struct TeamHooks;

impl Hooks for TeamHooks {
    async fn before_request(&self, tool: &str, _args: &Map<String, Value>, request: &mut Request) -> Result<(), Error> {
        if tool == "deleteUser" {
            return Err(Error::new("deleting users is switched off"));
        }
        request.headers.insert("x-team", super::header::HeaderValue::from_static("blue"));
        Ok(())
    }
}

struct Api(Context);

impl From<Context> for Api {
    fn from(cx: Context) -> Api {
        Api(cx)
    }
}

/// Greets someone, after looking them up.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct HelloArgs {
    /// Whom to greet.
    id: String,
}

/// Both: the replacement, and a tool of the crate's own.
struct Both(Replace, OwnTools<Api>);

impl Handlers for Both {
    fn call<'a>(&'a self, tool: &'a str, args: Map<String, Value>, cx: Context) -> Option<HandlerFuture<'a>> {
        match self.0.call(tool, args.clone(), cx.clone()) {
            Some(call) => Some(call),
            None => self.1.answer(tool, args, cx),
        }
    }

    fn answers(&self) -> Vec<String> {
        self.0.answers().into_iter().chain(self.1.names()).collect()
    }

    fn tools(&self) -> Vec<crate::config::Tool> {
        self.1.declared()
    }
}

fn own() -> OwnTools<Api> {
    OwnTools::new().tool("hello", |api: Api, args: HelloArgs| async move {
        let user = api.0.call("getUser", Map::from_iter([("id".to_string(), json!(args.id))])).await?;
        Ok(json!({"hello": args.id, "uri": user["uri"]}))
    })
}

async fn engine(handlers: impl Handlers) -> crate::error::Result<Arc<Engine>> {
    let base = echo_api().await;
    let ext = Extensions::with_hooks(TeamHooks).with_handlers(handlers);
    Engine::with_extensions(config(&base), EngineOptions::default(), ext)
}

fn structured(result: &rmcp::model::CallToolResult) -> Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result.structured_content.clone().unwrap_or(Value::Null)
}

#[tokio::test]
async fn a_replacement_answers_the_model_and_reaches_the_api_through_its_context() {
    crate::upstream::install_crypto_provider();
    let engine = engine(Replace).await.unwrap();
    let result = engine.call("getUser", Map::from_iter([("id".into(), json!("7"))])).await.unwrap();
    let seen = structured(&result);
    assert_eq!(seen["wrapped"]["uri"], "/users/7?limit=20", "the owner's default went upstream");
    assert_eq!(seen["wrapped"]["tenant"], "acme", "the owner's fixed value went upstream");
    assert_eq!(seen["wrapped"]["team"], "blue", "the hooks ran on the context's call");
    assert_eq!(seen["subject"], Value::Null);
}

#[tokio::test]
async fn the_model_cannot_set_a_fixed_argument() {
    crate::upstream::install_crypto_provider();
    let engine = engine(Replace).await.unwrap();
    let args = Map::from_iter([("id".into(), json!("7")), ("x-tenant".into(), json!("evil"))]);
    let result = engine.call("deleteUser", args).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = format!("{:?}", result.content);
    assert!(text.contains("x-tenant"), "{text}");
}

#[tokio::test]
async fn a_hook_refuses_before_anything_is_sent() {
    crate::upstream::install_crypto_provider();
    let engine = engine(Replace).await.unwrap();
    let result = engine.call("deleteUser", Map::from_iter([("id".into(), json!("7"))])).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    assert!(format!("{:?}", result.content).contains("deleting users is switched off"));
}

#[tokio::test]
async fn a_tool_of_the_crates_own_is_listed_and_calls_the_api() {
    crate::upstream::install_crypto_provider();
    let engine = engine(Both(Replace, own())).await.unwrap();
    let (listed, _) = engine.mcp_tools_page(0, usize::MAX);
    let hello = listed.iter().find(|t| t.name == "hello").expect("listed");
    assert_eq!(hello.description.as_deref(), Some("Greets someone, after looking them up."));
    assert_eq!(hello.input_schema["required"], json!(["id"]));
    let result = engine.call("hello", Map::from_iter([("id".into(), json!("9"))])).await.unwrap();
    assert_eq!(structured(&result), json!({"hello": "9", "uri": "/users/9?limit=20"}));
    let refused = engine.call("hello", Map::new()).await.unwrap();
    assert_eq!(refused.is_error, Some(true), "its schema is checked");
}

/// Answers a tool the server does not have.
struct Stray;

impl Handlers for Stray {
    fn call<'a>(&'a self, _: &'a str, _: Map<String, Value>, _: Context) -> Option<HandlerFuture<'a>> {
        None
    }

    fn answers(&self) -> Vec<String> {
        vec!["getUsr".into()]
    }
}

#[tokio::test]
async fn a_rust_function_for_no_tool_stops_the_start() {
    let e = engine(Stray).await.err().expect("refused").to_string();
    assert!(e.contains("a Rust function answers `getUsr`, which is not a tool of this server"), "{e}");
    assert!(e.contains("the closest is `getUser`"), "{e}");
}

#[tokio::test]
async fn a_tool_of_the_crates_own_may_not_take_an_api_tools_name() {
    let taken = OwnTools::<Api>::new().tool("getUser", |_: Api, _: HelloArgs| async { Ok(Value::Null) });
    let e = engine(Both(Replace, taken)).await.err().expect("refused").to_string();
    assert!(e.contains("the Rust tool `getUser` has the name of a tool of the API"), "{e}");
}

/// The user's answer, as a client that can elicit gives it (`None`: a client that cannot).
#[derive(Clone)]
struct User(Option<Value>);

impl rmcp::ClientHandler for User {
    async fn create_elicitation(
        &self,
        request: rmcp::model::ElicitRequestParams,
        _: rmcp::service::RequestContext<rmcp::RoleClient>,
    ) -> Result<rmcp::model::ElicitResult, rmcp::ErrorData> {
        let rmcp::model::ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            return Err(rmcp::ErrorData::invalid_params("a form was expected", None));
        };
        assert_eq!(message, "Delete user 7?");
        let mut result = rmcp::model::ElicitResult::new(rmcp::model::ElicitationAction::Accept);
        result.content = self.0.clone();
        Ok(result)
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        if self.0.is_some() {
            info.capabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
        }
        info
    }
}

/// Deletes a user once the user says so.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct AskArgs {
    id: String,
}

fn asking() -> OwnTools<Api> {
    OwnTools::new().tool("delete_asking", |api: Api, args: AskArgs| async move {
        let form = json!({"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]});
        let answer = api.0.ask(&format!("Delete user {}?", args.id), form).await?;
        api.0.progress(1, Some(1));
        Ok(json!({"answer": answer}))
    })
}

/// A client over an in-process pipe to the engine's MCP server.
async fn session(user: User) -> rmcp::service::RunningService<rmcp::RoleClient, User> {
    let engine = engine(Both(Replace, asking())).await.unwrap();
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let server = crate::transport::server::McpServer::new(engine);
    tokio::spawn(async move {
        if let Ok(running) = rmcp::ServiceExt::serve(server, server_io).await {
            let _ = running.waiting().await;
        }
    });
    rmcp::ServiceExt::serve(user, client_io).await.unwrap()
}

async fn ask(user: User) -> rmcp::model::CallToolResult {
    let client = session(user).await;
    let args = json!({"id": "7"}).as_object().cloned().unwrap();
    let params = rmcp::model::CallToolRequestParams::new("delete_asking".to_string()).with_arguments(args);
    client.call_tool(params).await.unwrap()
}

#[tokio::test]
async fn a_rust_tool_asks_the_user_through_the_clients_session() {
    crate::upstream::install_crypto_provider();
    let r = ask(User(Some(json!({"confirm": true})))).await;
    assert_eq!(r.structured_content, Some(json!({"answer": {"confirm": true}})), "{r:?}");
}

#[tokio::test]
async fn a_client_that_cannot_be_asked_is_a_tool_error() {
    crate::upstream::install_crypto_provider();
    let r = ask(User(None)).await;
    assert_eq!(r.is_error, Some(true));
    assert!(format!("{:?}", r.content).contains("the client cannot ask its user"), "{r:?}");
}
