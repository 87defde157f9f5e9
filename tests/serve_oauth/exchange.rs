//! `--upstream-auth exchange` against a real authorization server (tests/fixtures/idp: panva's
//! oidc-provider on node): users log in and consent through its forms as a browser would
//! (authorization code with PKCE), their tokens for mcpgen are exchanged (RFC 8693) for tokens
//! for the API, and the recording mock shows which token each upstream request carried.
//!
//! Needs node and the fixture's packages (see real_idp.rs).

use crate::common::*;
use crate::real_idp::*;
use crate::server::Server;

async fn exchange_server(idp: &RealIdp, resource: &str) -> Server {
    let token_url = format!("{}/token", idp.issuer);
    let flags = [
        "--oauth-audience",
        MCP_RESOURCE,
        "--upstream-auth",
        "exchange",
        "--exchange-token-url",
        &token_url,
        "--exchange-resource",
        resource,
    ];
    Server::start_with_env(
        &idp.issuer,
        &flags,
        &[("MCPGEN_EXCHANGE_CLIENT_ID", CLIENT_ID), ("MCPGEN_EXCHANGE_CLIENT_SECRET", CLIENT_SECRET)],
    )
    .await
}

async fn list_pets(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> rmcp::model::CallToolResult {
    let params = rmcp::model::CallToolRequestParams::new("listPets").with_arguments(Default::default());
    client.call_tool(params).await.unwrap()
}

/// Each user's calls carry a token the authorization server issued for the API to that user:
/// never the user's token for mcpgen, never the server's key, never the other user's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_users_calls_carry_a_token_exchanged_for_the_api() {
    let Some(idp) = real_idp().await else { return };
    let server = exchange_server(&idp, API_RESOURCE).await;
    let (alice, bob) = (user_token(&idp, "alice").await, user_token(&idp, "bob").await);
    assert_eq!(claims(&alice)["aud"], MCP_RESOURCE);
    for (user, token) in [("alice", &alice), ("bob", &bob), ("alice", &alice)] {
        let client = server.client(token).await;
        let r = list_pets(&client).await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let sent = server.mock.last();
        let carried = sent.header("authorization").expect("a token upstream").trim_start_matches("Bearer ").to_string();
        assert_ne!(&carried, token, "the token for mcpgen never goes upstream");
        let c = claims(&carried);
        assert_eq!((c["sub"].as_str(), c["aud"].as_str()), (Some(user), Some(API_RESOURCE)), "{c}");
        assert_eq!(c["client_id"], CLIENT_ID, "issued to mcpgen by the exchange");
        assert!(sent.header("x-api-key").is_none(), "not the server's own key");
    }
    // Alice's second call reused her exchanged token (cached until shortly before it expires).
    let alice_tokens: Vec<String> = server
        .mock
        .requests()
        .iter()
        .filter_map(|r| r.header("authorization").map(str::to_string))
        .filter(|t| claims(t.trim_start_matches("Bearer "))["sub"] == "alice")
        .collect();
    assert_eq!(alice_tokens.len(), 2);
    assert_eq!(alice_tokens[0], alice_tokens[1]);
}

/// A refused exchange is a clear tool error naming the authorization server's error, without a
/// token; nothing reaches the API.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_exchange_is_a_clear_error() {
    let Some(idp) = real_idp().await else { return };
    let server = exchange_server(&idp, "http://unknown.test/").await;
    let alice = user_token(&idp, "alice").await;
    let client = server.client(&alice).await;
    let r = list_pets(&client).await;
    assert_eq!(r.is_error, Some(true));
    let text = text(&r);
    assert!(text.contains("the authorization server refused the exchange: invalid_target"), "{text}");
    assert!(!text.contains(&alice) && !text.contains(CLIENT_SECRET), "{text}");
    assert!(server.mock.requests().is_empty(), "{:?}", server.mock.requests());
}

/// In a config of several APIs each carries the identity its entry says: the first API's calls
/// carry the token exchanged for the caller, the second's the server's own key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_api_carries_the_identity_its_entry_says() {
    let Some(idp) = real_idp().await else { return };
    let mock = start_mock().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = std::fs::read_to_string("tests/fixtures/oauth.yaml").unwrap().replace("MOCK_URL", &mock.url());
    std::fs::write(dir.path().join("a.yaml"), &spec).unwrap();
    std::fs::write(dir.path().join("b.yaml"), &spec).unwrap();
    let apis = format!(
        "mcpgen_apis:\n- spec: a.yaml\n  prefix: a\n  upstream_auth: {{mode: exchange, token_url: '{}/token', resource: '{API_RESOURCE}'}}\n\
         - spec: b.yaml\n  prefix: b\n",
        idp.issuer
    );
    let file = dir.path().join("apis.yaml");
    std::fs::write(&file, apis).unwrap();
    let cmd = ServerCommand::mcpgen(&[
        "serve",
        file.to_str().unwrap(),
        "--oauth-issuer",
        &idp.issuer,
        "--oauth-audience",
        MCP_RESOURCE,
    ])
    .env("MCPGEN_EXCHANGE_CLIENT_ID", CLIENT_ID)
    .env("MCPGEN_EXCHANGE_CLIENT_SECRET", CLIENT_SECRET)
    .env("SCOPED_PETS_KEY", "a-key")
    .env("B_SCOPED_PETS_KEY", "b-key");
    let (_child, url) = spawn_http(&cmd, &[]).await;
    let alice = user_token(&idp, "alice").await;
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url).auth_header(alice),
    );
    let client = rmcp::ServiceExt::serve((), transport).await.unwrap();
    let call = |name: &'static str| {
        let client = &client;
        async move {
            let params = rmcp::model::CallToolRequestParams::new(name).with_arguments(Default::default());
            client.call_tool(params).await.unwrap()
        }
    };
    let r = call("a_listPets").await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let sent = mock.last();
    let carried = sent.header("authorization").expect("the exchanged token").trim_start_matches("Bearer ");
    assert_eq!((claims(carried)["sub"].as_str(), claims(carried)["aud"].as_str()), (Some("alice"), Some(API_RESOURCE)));
    assert!(sent.header("x-api-key").is_none(), "not the server's key");
    let r = call("b_listPets").await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let sent = mock.last();
    assert_eq!(sent.header("x-api-key"), Some("b-key"), "the server's own key for the second API");
    assert!(sent.header("authorization").is_none(), "no caller's token there");
}
