//! The paths beside `/mcp` (`/mcp/tools`, every tool; `/mcp/discovery`, discovery's three) under
//! OAuth: the same token check, the same scopes, the same metadata.

use serde_json::{Value, json};

use crate::idp::*;
use crate::server::*;

/// The sibling paths, as suffixes of the `/mcp` URL.
const SIBLINGS: [&str; 2] = ["/tools", "/discovery"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_token_is_refused_on_every_mcp_path() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    for suffix in SIBLINGS {
        let r = server.post_to(suffix, None, INIT).await;
        assert_eq!(r.status(), 401, "{suffix}");
        assert_eq!(challenge(&r), format!("Bearer resource_metadata=\"{}\"", metadata_url(&server)), "{suffix}");
        let r = server.post_to(suffix, Some("not.a.jwt"), &call("ping", json!({}))).await;
        assert_eq!(r.status(), 401, "{suffix}: a refused token");
    }
    assert!(server.mock.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_path_lists_what_the_token_allows() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let token = key.token(&claims(&idp, &server.url, "pets:read"));
    assert_eq!(tool_names(&server.client_at("/tools", &token).await).await, ["listPets", "ping"]);
    let discovery = server.client_at("/discovery", &token).await;
    assert_eq!(tool_names(&discovery).await, ["call_tool", "describe_tools", "search_tools"]);
    let params = rmcp::model::CallToolRequestParams::new("search_tools")
        .with_arguments(json!({"query": "pets", "limit": 10}).as_object().unwrap().clone());
    let found = discovery.call_tool(params).await.unwrap().structured_content.unwrap();
    let names: Vec<&str> = found["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"listPets") && !names.contains(&"createPet"), "{names:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_outside_the_scopes_is_refused_on_every_path() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let reader = key.token(&claims(&idp, &server.url, "pets:read"));
    let direct = server.post_to("/tools", Some(&reader), &call("createPet", json!({"name": "Rex"}))).await;
    assert_eq!(direct.status(), 403);
    assert!(challenge(&direct).contains("error=\"insufficient_scope\""), "{}", challenge(&direct));
    let through = call("call_tool", json!({"name": "createPet", "arguments": {"name": "Rex"}}));
    let via = server.post_to("/discovery", Some(&reader), &through).await;
    assert_eq!(via.status(), 403);
    assert!(challenge(&via).contains("scope=\"pets:read pets:write\""), "{}", challenge(&via));
    assert!(server.mock.requests().is_empty(), "nothing reached the API: {:?}", server.mock.requests());
    // What the token allows goes through on either path.
    let allowed = call("call_tool", json!({"name": "listPets", "arguments": {}}));
    let r: Value = server.post_to("/discovery", Some(&reader), &allowed).await.json().await.unwrap();
    assert_eq!(r["result"]["isError"], false, "{r}");
    let r: Value = server.post_to("/tools", Some(&reader), &call("listPets", json!({}))).await.json().await.unwrap();
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(server.mock.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_metadata_is_found_from_every_path() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    for suffix in SIBLINGS {
        let url = format!("{}/.well-known/oauth-protected-resource/mcp{suffix}", server.origin());
        let doc: Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
        // One resource: `/mcp`'s URL, a prefix of every path's, so tokens for it work on each.
        assert_eq!(doc["resource"], server.url, "{url}");
    }
}
