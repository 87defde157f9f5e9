//! The Protected Resource Metadata, and the 401 and 403 challenges that point to it.

use serde_json::{Value, json};

use crate::idp::*;
use crate::server::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protected_resource_metadata() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let http = reqwest::Client::new();
    for url in [metadata_url(&server), format!("{}/.well-known/oauth-protected-resource", server.origin())] {
        let r = http.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200, "{url}");
        assert_eq!(r.headers()["access-control-allow-origin"], "*");
        let doc: Value = r.json().await.unwrap();
        assert_eq!(
            doc,
            json!({
                "resource": server.url,
                "authorization_servers": [idp.issuer()],
                "bearer_methods_supported": ["header"],
                "resource_name": "Scoped Pets",
                "scopes_supported": ["admin", "pets:read", "pets:write"],
            }),
            "{url}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_follows_the_public_url() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &["--oauth-resource", "https://mcp.example.com/pets/mcp"]).await;
    let r = server.post(None, INIT).await;
    assert_eq!(
        challenge(&r),
        "Bearer resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/pets/mcp\""
    );
    let doc: Value = reqwest::get(format!("{}/.well-known/oauth-protected-resource/pets/mcp", server.origin()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["resource"], "https://mcp.example.com/pets/mcp");
    let token = key.token(&claims(&idp, "https://mcp.example.com/pets/mcp", ALL_SCOPES));
    assert_eq!(server.post(Some(&token), INIT).await.status(), 200, "the resource is the default audience");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_gets_a_401_that_names_the_metadata() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let r = server.post(None, INIT).await;
    assert_eq!(r.status(), 401);
    assert_eq!(challenge(&r), format!("Bearer resource_metadata=\"{}\"", metadata_url(&server)));
    let basic = reqwest::Client::new().post(&server.url).header("authorization", "Basic dTpw").body(INIT).send();
    assert_eq!(basic.await.unwrap().status(), 401, "only bearer tokens");
    // /health stays open (load balancers); the metadata too.
    assert_eq!(reqwest::get(format!("{}/health", server.origin())).await.unwrap().status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_outside_the_scopes_gets_a_403_challenge() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let reader = key.token(&claims(&idp, &server.url, "pets:read"));
    let r = server.post(Some(&reader), &call("createPet", json!({"name": "Rex"}))).await;
    assert_eq!(r.status(), 403);
    assert_eq!(
        challenge(&r),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"pets:read pets:write\", resource_metadata=\"{}\", error_description=\"createPet needs more scope\"",
            metadata_url(&server)
        )
    );
    assert!(server.mock.requests().is_empty(), "nothing reached the API: {:?}", server.mock.requests());
}
