//! The steps of `--upstream-auth user` tests share (tests/serve_oauth/user*.rs, and the generated
//! crate's in tests/generate.rs): the test API, a server's flags, a client, the authorization URL
//! an `isError` carries, a user's consent, the token an upstream request carried.
#![allow(dead_code)]

use rmcp::RoleClient;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use serde_json::Value;

use crate::common::*;
use crate::real_idp::*;

/// The encryption key of the token store (32 bytes, base64).
pub(crate) const STORE_KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

/// `mcpgen serve` with `--upstream-auth user` in front of the mock.
pub(crate) struct UserServer {
    pub(crate) url: String,
    pub(crate) mock: Mock,
    pub(crate) logs: Logs,
    pub(crate) pid: u32,
    _child: tokio::process::Child,
    _spec: tempfile::TempPath,
}

/// The test API's description: its OAuth2 authorization-code scheme at `idp`, its server `mock`.
pub(crate) fn user_spec(idp: &RealIdp, mock: &Mock) -> tempfile::TempPath {
    let text = std::fs::read_to_string("tests/fixtures/user_auth.yaml")
        .unwrap()
        .replace("ISSUER_URL", &idp.issuer)
        .replace("MOCK_URL", &mock.url());
    let mut f = tempfile::Builder::new().suffix(".yaml").tempfile().unwrap();
    std::io::Write::write_all(&mut f, text.as_bytes()).unwrap();
    f.into_temp_path()
}

/// The flags and environment of a server in user mode whose tokens are kept in `store`.
pub(crate) fn user_command(idp: &RealIdp, spec: &tempfile::TempPath, store: &str) -> ServerCommand {
    let cmd = ServerCommand::mcpgen(&[
        "serve",
        spec.to_str().unwrap(),
        "--upstream-auth",
        "user",
        "--user-auth-resource",
        API_RESOURCE,
    ]);
    with_user_flags(cmd, idp, store)
}

/// `cmd` (`mcpgen serve`, or a generated crate whose config says `user`) with the inbound OAuth
/// flags, the token store, the API app's client and the store's key.
pub(crate) fn with_user_flags(mut cmd: ServerCommand, idp: &RealIdp, store: &str) -> ServerCommand {
    let flags = ["--oauth-issuer", &idp.issuer, "--oauth-audience", MCP_RESOURCE, "--token-store", store];
    cmd.args.extend(flags.iter().map(|f| f.to_string()));
    cmd.env("TEAM_PETS_TEAM_CLIENT_ID", API_CLIENT_ID)
        .env("TEAM_PETS_TEAM_CLIENT_SECRET", API_CLIENT_SECRET)
        .env("MCPGEN_TOKEN_STORE_KEY", STORE_KEY)
        // Everything the server logs is checked for secrets.
        .env("MCPGEN_LOG", "debug")
}

pub(crate) async fn user_server(idp: &RealIdp, store: &str) -> UserServer {
    let mock = start_mock().await;
    let spec = user_spec(idp, &mock);
    let (child, url, logs) = spawn_http_logged(&user_command(idp, &spec, store), &[]).await;
    let pid = child.id().expect("the server's pid");
    UserServer { url, mock, logs, pid, _child: child, _spec: spec }
}

/// A 2025-11-25 client of `url` (no elicitation) with this bearer token.
pub(crate) async fn client(url: &str, token: &str) -> RunningService<RoleClient, ()> {
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.to_string())
            .auth_header(token.to_string()),
    );
    ().serve(transport).await.expect("initialize")
}

pub(crate) async fn list_pets<S: rmcp::service::Service<RoleClient>>(
    client: &RunningService<RoleClient, S>,
) -> CallToolResult {
    let params = CallToolRequestParams::new("listPets").with_arguments(Default::default());
    client.call_tool(params).await.expect("tools/call listPets")
}

/// The authorization URL an `isError` result carries.
pub(crate) fn authorization_url(r: &CallToolResult) -> String {
    assert_eq!(r.is_error, Some(true), "{r:?}");
    let t = text(r);
    let url = t.split("Open this URL to authorize: ").nth(1).and_then(|s| s.split_whitespace().next());
    url.unwrap_or_else(|| panic!("no authorization URL in {t}")).to_string()
}

/// The user's consent at the API through `url`, as `user`'s browser: the callback URL the
/// authorization server sends them back to (not visited yet), on the redirect URI's host
/// (127.0.0.1, any port: whichever replica sent them).
pub(crate) async fn consent(idp: &RealIdp, browser: &mut Browser, url: &str, user: &str) -> String {
    let redirect =
        reqwest::Url::parse(url).unwrap().query_pairs().find(|(k, _)| k == "redirect_uri").unwrap().1.to_string();
    authorize(browser, idp, url, user, &redirect).await
}

/// The token an upstream request carried, and its claims.
pub(crate) fn carried(r: &Recorded) -> (String, Value) {
    let token = r.header("authorization").expect("a token upstream").trim_start_matches("Bearer ").to_string();
    let c = claims(&token);
    (token, c)
}
