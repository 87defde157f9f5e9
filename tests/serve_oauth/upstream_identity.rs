//! Whose credentials go upstream: the server's by default, the caller's token with passthrough.

use crate::idp::*;
use crate::server::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_callers_token_never_goes_upstream_by_default() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let token = key.token(&claims(&idp, &server.url, ALL_SCOPES));
    let client = server.client(&token).await;
    for tool in ["listPets", "createPet", "ping", "resetAll"] {
        let params = rmcp::model::CallToolRequestParams::new(tool).with_arguments(Default::default());
        assert_eq!(client.call_tool(params).await.unwrap().is_error, Some(false), "{tool}");
    }
    let requests = server.mock.requests();
    assert_eq!(requests.len(), 4);
    for r in requests {
        assert_eq!(r.header("x-api-key"), Some("server-key"), "the server's own credential");
        assert!(r.header("authorization").is_none(), "{:?}", r.headers);
        let seen = format!("{:?} {:?} {}", r.headers, r.query, String::from_utf8_lossy(&r.body));
        assert!(!seen.contains(&token) && !seen.contains(token.split('.').nth(1).unwrap()), "{seen}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passthrough_sends_the_callers_token_upstream() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &["--upstream-auth", "passthrough"]).await;
    let token = key.token(&claims(&idp, &server.url, ALL_SCOPES));
    let client = server.client(&token).await;
    let params = rmcp::model::CallToolRequestParams::new("listPets").with_arguments(Default::default());
    assert_eq!(client.call_tool(params).await.unwrap().is_error, Some(false));
    let r = server.mock.last();
    assert_eq!(r.header("authorization"), Some(format!("Bearer {token}").as_str()));
    assert!(r.header("x-api-key").is_none(), "the caller's identity instead of the server's");
    // Each caller's own token.
    let other = key.token(&claims(&idp, &server.url, "pets:read"));
    let client = server.client(&other).await;
    let params = rmcp::model::CallToolRequestParams::new("listPets").with_arguments(Default::default());
    client.call_tool(params).await.unwrap();
    assert_eq!(server.mock.last().header("authorization"), Some(format!("Bearer {other}").as_str()));
}
