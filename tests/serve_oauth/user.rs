//! `--upstream-auth user` against a real authorization server (tests/fixtures/idp: panva's
//! oidc-provider): each user authorizes the API once through its consent page (authorization
//! code with PKCE, driven as a browser would), mcpgen's callback stores their tokens sealed under
//! their subject, and the recording mock shows that each upstream request carries that user's own
//! token. Refresh, revocation, replayed and forged `state`s, secrets in logs and the store's
//! permissions are checked here too.

use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Mutex};

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RequestContext};
use rmcp::{ErrorData, RoleClient};
use serde_json::Value;

use crate::common::*;
use crate::real_idp::*;
use crate::user_flow::*;

/// A user with no token is sent to the API's consent page; once they consent, their calls carry
/// a token the API's authorization server issued to them (never their token for mcpgen), and
/// another user's carry theirs. The callback's `state` works once; a forged one is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_user_authorizes_once_and_their_calls_carry_their_own_token() {
    let Some(idp) = real_idp().await else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tokens.json");
    let server = user_server(&idp, store.to_str().unwrap()).await;
    let mut secrets: Vec<String> = Vec::new();
    for user in ["alice", "bob"] {
        let token = user_token(&idp, user).await;
        let c = client(&server.url, &token).await;
        // Not authorized yet: the URL of the API's consent page, and nothing sent upstream.
        let before = server.mock.requests().len();
        let url = authorization_url(&list_pets(&c).await);
        assert_eq!(server.mock.requests().len(), before, "nothing reaches the API before consent");
        assert!(url.starts_with(&format!("{}/auth?", idp.issuer)), "{url}");
        let q: std::collections::BTreeMap<String, String> =
            reqwest::Url::parse(&url).unwrap().query_pairs().into_owned().collect();
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["client_id"], API_CLIENT_ID);
        assert_eq!(q["resource"], API_RESOURCE);
        assert_eq!(q["state"].len(), 43, "256 random bits");
        // The user consents in their browser and is sent back to mcpgen's callback.
        let mut browser = Browser::new();
        let callback = consent(&idp, &mut browser, &url, user).await;
        let (status, _, page) = browser.go(&callback, None).await;
        assert_eq!(status, 200, "{page}");
        assert!(page.contains("Authorized"), "{page}");
        // The same callback again: the state was used.
        let (status, _, page) = browser.go(&callback, None).await;
        assert_eq!(status, 400, "{page}");
        assert!(page.contains("already used"), "{page}");
        let code =
            reqwest::Url::parse(&callback).unwrap().query_pairs().find(|(k, _)| k == "code").unwrap().1.to_string();
        secrets.extend([token.clone(), code]);
        // The call now goes through with the user's own token at the API.
        let r = list_pets(&c).await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let (carried_token, claims) = carried(&server.mock.last());
        assert_ne!(carried_token, token, "the token for mcpgen never goes upstream");
        assert_eq!(claims["sub"], user);
        assert_eq!(claims["aud"], API_RESOURCE);
        assert_eq!(claims["client_id"], API_CLIENT_ID, "issued to the API's app for mcpgen");
        secrets.push(carried_token);
    }
    // Alice again: her own token still, stored (the same one), never Bob's.
    let alice = user_token(&idp, "alice").await;
    let r = list_pets(&client(&server.url, &alice).await).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    let (token, claims) = carried(&server.mock.last());
    assert_eq!(claims["sub"], "alice");
    assert_eq!(token, secrets[2], "her stored token, not a new one");
    // A forged state is refused, and stores nothing.
    let origin = server.url.trim_end_matches("/mcp");
    let r = reqwest::get(format!("{origin}/oauth/callback?state=forged-state&code=abc")).await.unwrap();
    assert_eq!(r.status(), 400);
    // The store is private to the server's user and holds no token in the clear.
    let mode = std::fs::metadata(&store).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let kept = std::fs::read_to_string(&store).unwrap();
    for s in &secrets {
        assert!(!kept.contains(s.as_str()), "a secret in the store file");
    }
    // No token or code in the server's logs.
    let logs = server.logs.lock().unwrap().join("\n");
    assert!(logs.contains("a user authorized the API"), "{logs}");
    for s in &secrets {
        assert!(!logs.contains(s.as_str()), "a secret in the logs: {logs}");
    }
    // Revoking Alice's tokens sends her back to the consent page; Bob keeps his.
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["tokens", "revoke", "alice", "--token-store", store.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    authorization_url(&list_pets(&client(&server.url, &alice).await).await);
    let bob = user_token(&idp, "bob").await;
    let r = list_pets(&client(&server.url, &bob).await).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(carried(&server.mock.last()).1["sub"], "bob");
    // Bob drops his own through the route, with his token for mcpgen; none: refused.
    let tokens_url = format!("{origin}/oauth/tokens");
    let http = reqwest::Client::new();
    assert_eq!(http.delete(&tokens_url).send().await.unwrap().status(), 401);
    let r = http.delete(&tokens_url).bearer_auth(&bob).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap(), serde_json::json!({"revoked": 1}));
    authorization_url(&list_pets(&client(&server.url, &bob).await).await);
    // Nothing secret in the server's command line either (secrets come from the environment).
    let argv = std::fs::read(format!("/proc/{}/cmdline", server.pid)).unwrap();
    let argv = String::from_utf8_lossy(&argv);
    for s in secrets.iter().map(String::as_str).chain([STORE_KEY, API_CLIENT_SECRET]) {
        assert!(!argv.contains(s), "a secret in argv: {argv}");
    }
}

/// Tokens about to expire are refreshed; when the authorization server refuses the refresh token
/// (revoked), the user is sent to the consent page again, each time they call, rather than into
/// an error; consenting again works.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_tokens_refresh_and_a_revoked_refresh_token_asks_again() {
    // Tokens live 20 s, less than the 30 s before expiry at which mcpgen refreshes: every call
    // refreshes.
    let Some(idp) = real_idp_with(&[("ACCESS_TOKEN_TTL", "20")]).await else { return };
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("tokens.json");
    let server = user_server(&idp, store.to_str().unwrap()).await;
    let alice = user_token(&idp, "alice").await;
    let c = client(&server.url, &alice).await;
    let url = authorization_url(&list_pets(&c).await);
    let mut browser = Browser::new();
    let callback = consent(&idp, &mut browser, &url, "alice").await;
    assert_eq!(browser.go(&callback, None).await.0, 200);
    let mut seen = Vec::new();
    for _ in 0..2 {
        let r = list_pets(&c).await;
        assert_eq!(r.is_error, Some(false), "{r:?}");
        let (token, claims) = carried(&server.mock.last());
        assert_eq!(claims["sub"], "alice");
        seen.push(token);
    }
    assert_ne!(seen[0], seen[1], "each call refreshed the short-lived token");
    // The refresh token revoked at the authorization server (read from the store, as only the
    // server's key opens it).
    let refresh = stored_refresh_token(&store, "alice").await;
    let r = reqwest::Client::new()
        .post(format!("{}/token/revocation", idp.issuer))
        .basic_auth(API_CLIENT_ID, Some(API_CLIENT_SECRET))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(encode(&[("token".into(), refresh.clone()), ("token_type_hint".into(), "refresh_token".into())]))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let before = server.mock.requests().len();
    for _ in 0..2 {
        authorization_url(&list_pets(&c).await);
    }
    assert_eq!(server.mock.requests().len(), before, "nothing sent with a dead token");
    let logs = server.logs.lock().unwrap().join("\n");
    assert!(!logs.contains(&refresh), "the refresh token in the logs");
    // Consenting again works.
    let url = authorization_url(&list_pets(&c).await);
    let callback = consent(&idp, &mut browser, &url, "alice").await;
    assert_eq!(browser.go(&callback, None).await.0, 200);
    let r = list_pets(&c).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
}

/// The refresh token the server keeps for `subject` (its store opened with the server's key).
async fn stored_refresh_token(store: &std::path::Path, subject: &str) -> String {
    use mcpgen::runtime::tooling::store;
    let env = |name: &str| (name == store::KEY_ENV).then(|| STORE_KEY.to_string());
    let opened = store::open(store.to_str().unwrap(), &env).await.unwrap();
    let sealed = store::Sealed::from_env(opened, &env).unwrap();
    let bytes = sealed.get(&store::token_key(subject, "api")).await.unwrap().expect("stored tokens");
    let tokens: Value = serde_json::from_slice(&bytes).unwrap();
    tokens["refresh_token"].as_str().expect("a refresh token").to_string()
}

/// A 2026-07-28 client that can open URLs for its user: asked with a URL-mode elicitation in the
/// middle of the call, it sends the user through the consent page, accepts, and its retry goes
/// through with the user's own token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_opens_urls_is_asked_and_the_call_proceeds() {
    let Some(idp) = real_idp().await else { return };
    let idp = Arc::new(idp);
    let dir = tempfile::tempdir().unwrap();
    let server = user_server(&idp, dir.path().join("tokens.json").to_str().unwrap()).await;
    let token = user_token(&idp, "carol").await;
    mcpgen::runtime::install_crypto_provider();
    let user = Opener { idp: idp.clone(), user: "carol", opened: Arc::default() };
    let transport = rmcp::transport::StreamableHttpClientTransport::from_config(
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(server.url.clone())
            .auth_header(token),
    );
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let c = user.clone().serve_with_lifecycle(transport, lifecycle).await.expect("connect");
    let r = list_pets(&c).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(carried(&server.mock.last()).1["sub"], "carol");
    let opened = user.opened.lock().unwrap().clone();
    assert_eq!(opened.len(), 1, "asked once: {opened:?}");
    assert!(opened[0].starts_with(&format!("{}/auth?", idp.issuer)), "{opened:?}");
    // Authorized now: the next call is not asked.
    let r = list_pets(&c).await;
    assert_eq!(r.is_error, Some(false), "{r:?}");
    assert_eq!(user.opened.lock().unwrap().len(), 1);
}

/// A client whose user opens the URLs it is given and consents.
#[derive(Clone)]
struct Opener {
    idp: Arc<RealIdp>,
    user: &'static str,
    opened: Arc<Mutex<Vec<String>>>,
}

impl rmcp::ClientHandler for Opener {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::UrlElicitationParams { url, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.opened.lock().unwrap().push(url.clone());
        let mut browser = Browser::new();
        let callback = consent(&self.idp, &mut browser, &url, self.user).await;
        let (status, _, page) = browser.go(&callback, None).await;
        assert_eq!(status, 200, "{page}");
        Ok(ElicitResult::new(ElicitationAction::Accept))
    }

    fn get_info(&self) -> ClientConfig {
        let mut info = ClientConfig::default();
        info.capabilities =
            serde_json::from_value::<ClientCapabilities>(serde_json::json!({"elicitation": {"url": {}}})).unwrap();
        info
    }
}

/// Several APIs, each with its own authorization-code scheme, under `--upstream-auth user`: each
/// API's first call sends the user to that API's consent page with that API's app.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_api_of_several_has_its_own_consent() {
    let Some(idp) = real_idp().await else { return };
    let mock = start_mock().await;
    let dir = tempfile::tempdir().unwrap();
    let spec = user_spec(&idp, &mock);
    std::fs::copy(&spec, dir.path().join("a.yaml")).unwrap();
    std::fs::copy(&spec, dir.path().join("b.yaml")).unwrap();
    let apis = dir.path().join("apis.yaml");
    std::fs::write(&apis, "mcpgen_apis:\n- {spec: a.yaml, prefix: a}\n- {spec: b.yaml, prefix: b}\n").unwrap();
    let store = dir.path().join("tokens.json");
    let cmd = ServerCommand::mcpgen(&["serve", apis.to_str().unwrap(), "--upstream-auth", "user"]);
    // The second API's env vars are renamed with its prefix (they would clash).
    let cmd = with_user_flags(cmd, &idp, store.to_str().unwrap())
        .env("B_TEAM_PETS_TEAM_CLIENT_ID", "second-app")
        .env("B_TEAM_PETS_TEAM_CLIENT_SECRET", "second-secret");
    let (_child, url, _) = spawn_http_logged(&cmd, &[]).await;
    let alice = user_token(&idp, "alice").await;
    let c = client(&url, &alice).await;
    for (tool, app) in [("a_listPets", API_CLIENT_ID), ("b_listPets", "second-app")] {
        let params = rmcp::model::CallToolRequestParams::new(tool).with_arguments(Default::default());
        let at = authorization_url(&c.call_tool(params).await.unwrap());
        let client_id =
            reqwest::Url::parse(&at).unwrap().query_pairs().find(|(k, _)| k == "client_id").unwrap().1.to_string();
        assert_eq!(client_id, app, "{tool}");
    }
}
