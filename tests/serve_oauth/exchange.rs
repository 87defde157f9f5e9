//! `--upstream-auth exchange` against a real authorization server (tests/fixtures/idp: panva's
//! oidc-provider on node): users log in and consent through its forms as a browser would
//! (authorization code with PKCE), their tokens for mcpgen are exchanged (RFC 8693) for tokens
//! for the API, and the recording mock shows which token each upstream request carried.
//!
//! Needs node and the fixture's packages (`npm ci` in tests/fixtures/idp); without them the cases
//! say so and pass, unless `MCPGEN_REQUIRE_IDP` is set.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;

use base64::Engine as _;
use serde_json::Value;
use tokio::io::AsyncBufReadExt;

use crate::common::*;
use crate::server::Server;

const MCP_RESOURCE: &str = "http://mcp.test/mcp";
const API_RESOURCE: &str = "http://api.test/";
const REDIRECT: &str = "http://127.0.0.1:9/cb";
const CLIENT_ID: &str = "mcpgen";
const CLIENT_SECRET: &str = "exchange-secret-7c1d";

/// The authorization server, while it runs.
struct RealIdp {
    issuer: String,
    _child: tokio::process::Child,
}

/// Starts the authorization server, or says why it cannot (`None`).
async fn real_idp() -> Option<RealIdp> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/idp");
    let node = std::env::var("MCPGEN_TEST_NODE").unwrap_or_else(|_| "node".into());
    if !dir.join("node_modules/oidc-provider").exists() {
        let why = "the test authorization server's packages are not installed (npm ci in tests/fixtures/idp)";
        assert!(std::env::var_os("MCPGEN_REQUIRE_IDP").is_none(), "{why}");
        eprintln!("{why}: skipped");
        return None;
    }
    let mut child = tokio::process::Command::new(node)
        .arg("server.mjs")
        .current_dir(&dir)
        .env("MCP_RESOURCE", MCP_RESOURCE)
        .env("MCP_SCOPES", "pets:read pets:write")
        .env("API_RESOURCE", API_RESOURCE)
        .env("EXCHANGE_CLIENT_ID", CLIENT_ID)
        .env("EXCHANGE_CLIENT_SECRET", CLIENT_SECRET)
        .env("REDIRECT_URIS", REDIRECT)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start node");
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line()).await;
    let line = first.expect("the authorization server started").unwrap().expect("its first line");
    let started: Value = serde_json::from_str(&line).unwrap();
    // The rest of its output is read and dropped: a closed pipe would end it at its next notice.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Some(RealIdp { issuer: started["issuer"].as_str().unwrap().to_string(), _child: child })
}

/// A browser of one user: cookies by name, no automatic redirects.
struct Browser {
    http: reqwest::Client,
    cookies: BTreeMap<String, String>,
}

impl Browser {
    fn new() -> Browser {
        let http = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
        Browser { http, cookies: BTreeMap::new() }
    }

    async fn go(&mut self, url: &str, form: Option<&[(String, String)]>) -> (u16, Option<String>, String) {
        let cookie = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
        let req = match form {
            Some(f) => self.http.post(url).header("content-type", "application/x-www-form-urlencoded").body(encode(f)),
            None => self.http.get(url),
        };
        let resp = req.header("cookie", cookie).send().await.unwrap();
        for c in resp.headers().get_all("set-cookie") {
            let pair = c.to_str().unwrap().split(';').next().unwrap();
            if let Some((k, v)) = pair.split_once('=') {
                self.cookies.insert(k.to_string(), v.to_string());
            }
        }
        let status = resp.status().as_u16();
        let location = resp.headers().get("location").map(|l| l.to_str().unwrap().to_string());
        (status, location, resp.text().await.unwrap())
    }
}

/// `user`'s access token for mcpgen: the authorization code flow with PKCE, the login and consent
/// forms filled in as a browser would.
async fn user_token(idp: &RealIdp, user: &str) -> String {
    let verifier: String = (0..64).map(|i| char::from(b'a' + ((i * 7 + user.len()) % 26) as u8)).collect();
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref());
    let query = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("client_id", "mcp-client")
        .append_pair("response_type", "code")
        .append_pair("redirect_uri", REDIRECT)
        .append_pair("scope", "openid pets:read pets:write")
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("resource", MCP_RESOURCE)
        .append_pair("state", "browser-state")
        .finish();
    let mut browser = Browser::new();
    let absolute = |l: String| if l.starts_with('/') { format!("{}{l}", idp.issuer) } else { l };
    let (_, mut location, _) = browser.go(&format!("{}/auth?{query}", idp.issuer), None).await;
    for _ in 0..10 {
        let at = absolute(location.expect("a redirect"));
        if at.starts_with(REDIRECT) {
            let url = reqwest::Url::parse(&at).unwrap();
            let code = url.query_pairs().find(|(k, _)| k == "code").expect("a code").1.to_string();
            let form: Vec<(String, String)> = [
                ("grant_type", "authorization_code"),
                ("code", code.as_str()),
                ("redirect_uri", REDIRECT),
                ("code_verifier", verifier.as_str()),
                ("client_id", "mcp-client"),
            ]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
            let token = reqwest::Client::new()
                .post(format!("{}/token", idp.issuer))
                .header("content-type", "application/x-www-form-urlencoded")
                .body(encode(&form))
                .send()
                .await
                .unwrap();
            let body: Value = token.json().await.unwrap();
            return body["access_token"].as_str().expect("an access token").to_string();
        }
        let (status, next, page) = browser.go(&at, None).await;
        location = if status == 200 {
            // A form: the login (user name, any password) or the consent.
            let action = page.split("action=\"").nth(1).and_then(|r| r.split('"').next()).expect("a form").to_string();
            let mut fields: Vec<(String, String)> = page
                .split("<input type=\"hidden\" name=\"")
                .skip(1)
                .filter_map(|f| {
                    let (name, rest) = f.split_once('"')?;
                    let value = rest.split("value=\"").nth(1)?.split('"').next()?;
                    Some((name.to_string(), value.to_string()))
                })
                .collect();
            if page.contains("name=\"login\"") {
                fields.push(("login".into(), user.into()));
                fields.push(("password".into(), "any".into()));
            }
            browser.go(&absolute(action), Some(&fields)).await.1
        } else {
            next
        };
    }
    panic!("the authorization flow did not end at the redirect URI");
}

/// A form, URL-encoded.
fn encode(fields: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish()
}

/// The claims of a JWT (not checked: the test reads what the authorization server issued).
fn claims(jwt: &str) -> Value {
    let payload = jwt.split('.').nth(1).unwrap();
    serde_json::from_slice(&base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(payload).unwrap()).unwrap()
}

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
