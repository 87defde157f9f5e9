//! The server under test: `mcpgen serve --oauth-issuer` in front of the mock upstream, and the
//! requests and checks the cases share.

use rmcp::ServiceExt;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

use crate::common::*;
use crate::idp::Idp;

pub(crate) const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

pub(crate) struct Server {
    pub(crate) _child: Option<tokio::process::Child>,
    /// The `/mcp` URL, which is also the resource and the default audience.
    pub(crate) url: String,
    pub(crate) mock: Mock,
    pub(crate) _spec: tempfile::TempPath,
}

impl Server {
    pub(crate) async fn start(idp: &Idp, extra: &[&str]) -> Server {
        Server::start_issuer(&idp.url, extra).await
    }

    pub(crate) async fn start_issuer(issuer: &str, extra: &[&str]) -> Server {
        Server::start_with_env(issuer, extra, &[]).await
    }

    /// [`Server::start_issuer`] with more environment variables.
    pub(crate) async fn start_with_env(issuer: &str, extra: &[&str], env: &[(&str, &str)]) -> Server {
        let mock = start_mock().await;
        let spec = fixture_spec("oauth.yaml", &mock);
        let mut args = vec!["serve", spec.to_str().unwrap(), "--oauth-issuer", issuer];
        args.extend_from_slice(extra);
        let mut cmd = ServerCommand::mcpgen(&args).env("SCOPED_PETS_KEY", "server-key");
        for (k, v) in env {
            cmd = cmd.env(k, v);
        }
        let (child, url) = spawn_http(&cmd, &[]).await;
        Server { _child: Some(child), url, mock, _spec: spec }
    }

    pub(crate) fn origin(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }

    /// A raw POST of `body` to /mcp with this bearer token.
    pub(crate) async fn post(&self, token: Option<&str>, body: &str) -> reqwest::Response {
        self.post_to("", token, body).await
    }

    /// A raw POST of `body` to /mcp followed by `suffix` (a sibling path) with this bearer token.
    pub(crate) async fn post_to(&self, suffix: &str, token: Option<&str>, body: &str) -> reqwest::Response {
        let mut r = reqwest::Client::new()
            .post(format!("{}{suffix}", self.url))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-06-18")
            .body(body.to_string());
        if let Some(t) = token {
            r = r.header("authorization", format!("Bearer {t}"));
        }
        r.send().await.unwrap()
    }

    /// An MCP client that sends this token.
    pub(crate) async fn client(&self, token: &str) -> RunningService<rmcp::RoleClient, ()> {
        self.client_at("", token).await
    }

    /// An MCP client of /mcp followed by `suffix` (a sibling path) that sends this token.
    pub(crate) async fn client_at(&self, suffix: &str, token: &str) -> RunningService<rmcp::RoleClient, ()> {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(format!("{}{suffix}", self.url))
                .auth_header(token.to_string()),
        );
        ().serve(transport).await.expect("initialize with a good token")
    }
}

pub(crate) fn challenge(r: &reqwest::Response) -> String {
    r.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default()
}

/// Asserts a 401 `invalid_token` naming `why`.
pub(crate) async fn assert_refused(server: &Server, token: &str, why: &str) {
    let r = server.post(Some(token), INIT).await;
    let c = challenge(&r);
    assert_eq!(r.status(), 401, "{c}");
    assert!(c.starts_with("Bearer error=\"invalid_token\""), "{c}");
    assert!(c.contains(&format!("error_description=\"{why}\"")), "{c}");
    assert!(c.contains(&format!("resource_metadata=\"{}\"", metadata_url(server))), "{c}");
}

pub(crate) fn metadata_url(server: &Server) -> String {
    format!("{}/.well-known/oauth-protected-resource/mcp", server.origin())
}

pub(crate) async fn tool_names(client: &RunningService<rmcp::RoleClient, ()>) -> Vec<String> {
    let mut names: Vec<String> =
        client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

pub(crate) fn call(name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": args}}).to_string()
}
