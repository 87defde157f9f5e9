//! Tools by scope: what each caller is shown and may call, and lists cached privately since
//! each caller sees its own.

use serde_json::json;

use crate::idp::*;
use crate::server::*;

// Tools by scope

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_shows_what_the_token_allows() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let reader = server.client(&key.token(&claims(&idp, &server.url, "pets:read"))).await;
    let admin = server.client(&key.token(&claims(&idp, &server.url, ALL_SCOPES))).await;
    let nobody = server.client(&key.token(&claims(&idp, &server.url, "profile"))).await;
    assert_eq!(tool_names(&reader).await, ["listPets", "ping"]);
    assert_eq!(tool_names(&admin).await, ["createPet", "listPets", "ping", "resetAll"]);
    assert_eq!(tool_names(&nobody).await, ["ping"], "a tool that needs no scope is for every token");
    // `scp` as a list works the same.
    let mut c = claims(&idp, &server.url, "");
    c.as_object_mut().unwrap().remove("scope");
    c["scp"] = json!(["pets:write"]);
    let writer = server.client(&key.token(&c)).await;
    assert_eq!(tool_names(&writer).await, ["createPet", "ping"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_outside_the_scopes_never_reaches_the_api() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let reader = server.client(&key.token(&claims(&idp, &server.url, "pets:read"))).await;
    for tool in ["createPet", "resetAll"] {
        let params = rmcp::model::CallToolRequestParams::new(tool).with_arguments(Default::default());
        assert!(reader.call_tool(params).await.is_err(), "{tool} refused");
    }
    assert!(server.mock.requests().is_empty(), "{:?}", server.mock.requests());
    let params = rmcp::model::CallToolRequestParams::new("listPets").with_arguments(Default::default());
    assert_eq!(reader.call_tool(params).await.unwrap().is_error, Some(false));
    assert_eq!(server.mock.requests().len(), 1, "the allowed call went through");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discovery_finds_describes_and_calls_only_allowed_tools() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &["--tool-mode", "discovery"]).await;
    let token = key.token(&claims(&idp, &server.url, "pets:read"));
    let reader = server.client(&token).await;
    let meta = tool_names(&reader).await;
    assert_eq!(meta, ["call_tool", "describe_tools", "search_tools"]);
    let search = |q: &str| {
        let params = rmcp::model::CallToolRequestParams::new("search_tools")
            .with_arguments(json!({"query": q, "limit": 10}).as_object().unwrap().clone());
        reader.call_tool(params)
    };
    let found = search("pets").await.unwrap();
    let names: Vec<&str> = found.structured_content.as_ref().unwrap()["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"listPets") && !names.contains(&"createPet") && !names.contains(&"resetAll"), "{names:?}");
    let described = reader
        .call_tool(
            rmcp::model::CallToolRequestParams::new("describe_tools")
                .with_arguments(json!({"names": ["createPet", "listPets"]}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    let structured = described.structured_content.unwrap();
    assert_eq!(structured["tools"].as_array().unwrap().len(), 1);
    assert_eq!(structured["unknown"][0]["name"], "createPet", "hidden like an unknown tool");
    // call_tool to a tool outside the scopes: the same 403 as a direct call.
    let r =
        server.post(Some(&token), &call("call_tool", json!({"name": "createPet", "arguments": {"name": "Rex"}}))).await;
    assert_eq!(r.status(), 403);
    assert!(challenge(&r).contains("scope=\"pets:read pets:write\""), "{}", challenge(&r));
    assert!(server.mock.requests().is_empty());
}

// Caching hints

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_are_private_when_each_caller_sees_its_own() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let client = server.client(&key.token(&claims(&idp, &server.url, ALL_SCOPES))).await;
    let page = Some(rmcp::model::PaginatedRequestParams::default());
    let tools = client.list_tools(page.clone()).await.unwrap();
    assert_eq!(tools.cache_scope, Some(rmcp::model::CacheScope::Private));
    let resources = client.list_resources(page).await.unwrap();
    assert_eq!(resources.cache_scope, Some(rmcp::model::CacheScope::Private));
}

/// Code mode: a script calls only the tools its caller's token allows (any other is an unknown
/// function, as in describe_tools), and the caller's token never goes upstream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_script_calls_only_the_tools_its_caller_may() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &["--tool-mode", "code"]).await;
    let token = key.token(&claims(&idp, &server.url, "pets:read"));
    let reader = server.client(&token).await;
    assert_eq!(tool_names(&reader).await, ["describe_tools", "run_script", "search_tools"]);
    let run = |code: &str| {
        let params = rmcp::model::CallToolRequestParams::new("run_script")
            .with_arguments(json!({ "code": code }).as_object().unwrap().clone());
        reader.call_tool(params)
    };
    let r = run("const pets = await api.listPets(); \
                 try { await api.createPet({name: 'Rex'}); return 'created' } catch (e) { return e.name + ': ' + e.message }")
        .await
        .unwrap();
    let text = r.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect::<String>();
    assert!(text.starts_with("TypeError: api.createPet is not a function of this API"), "{text}");
    let requests = server.mock.requests();
    assert_eq!(requests.len(), 1, "only listPets went: {requests:?}");
    assert_eq!(requests[0].header("x-api-key"), Some("server-key"));
    assert!(requests[0].header("authorization").is_none(), "the caller's token stays with mcpgen");
}
