//! The flow of one API against a local token endpoint: the consent URL and its state, one
//! refresh for concurrent calls, a refused refresh.

use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::State;

use super::*;
use crate::upstream::user::store::FileStore;

const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

/// A token endpoint that counts refreshes, answers each with a new token (after a pause, so
/// that concurrent calls overlap), and refuses the refresh token `revoked`.
async fn token_endpoint() -> (String, Arc<AtomicUsize>) {
    let count = Arc::new(AtomicUsize::new(0));
    let app = axum::Router::new()
        .route(
            "/token",
            axum::routing::post(|State(n): State<Arc<AtomicUsize>>, body: String| async move {
                if body.contains("refresh_token=revoked") {
                    return (
                        axum::http::StatusCode::BAD_REQUEST,
                        axum::Json(serde_json::json!({"error": "invalid_grant"})),
                    );
                }
                let i = n.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(100)).await;
                let answer = serde_json::json!({"access_token": format!("new-{i}"), "expires_in": 3600});
                (axum::http::StatusCode::OK, axum::Json(answer))
            }),
        )
        .with_state(count.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/token", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, count)
}

fn authorizer(dir: &std::path::Path, token_url: &str) -> UserAuthorizer {
    crate::install_crypto_provider();
    let store: Arc<dyn crate::upstream::user::store::TokenStore> =
        Arc::new(FileStore::open(dir.join("tokens.json")).unwrap());
    let users = Arc::new(UserAuth::new(Arc::new(Sealed::new(store, KEY).unwrap())));
    users.set_redirect_uri("http://127.0.0.1:9/oauth/callback".into());
    let scheme = SecurityScheme::OAuth2AuthorizationCode {
        authorization_url: "https://auth.example.com/authorize?tenant=t1".into(),
        token_url: token_url.into(),
        scopes: vec!["read".into(), "write".into()],
        client_id_env: "ID".into(),
        client_secret_env: "SECRET".into(),
        token_env: "TOKEN".into(),
    };
    let env = |n: &str| (n == "ID").then(|| "the-app".to_string());
    UserAuthorizer::new("api", "The API", ("oauth", &scheme), Some("https://api.example.com/".into()), users, &env)
        .unwrap()
}

async fn store_tokens(a: &UserAuthorizer, subject: &str, refresh: &str, expires_at: u64) {
    let tokens =
        Tokens { access_token: "old".into(), refresh_token: Some(refresh.into()), expires_at: Some(expires_at) };
    let bytes = serde_json::to_vec(&tokens).unwrap();
    a.users.store.put(&token_key(subject, "api"), &bytes, None).await.unwrap();
}

#[tokio::test]
async fn a_user_without_tokens_is_sent_to_the_consent_page_once_per_state() {
    let dir = tempfile::tempdir().unwrap();
    let a = authorizer(dir.path(), "http://127.0.0.1:9/token");
    let Authorization::Needed(prompt) = a.authorization(&reqwest::Client::new(), "alice", "listPets").await.unwrap()
    else {
        panic!("no tokens yet")
    };
    let url = url::Url::parse(&prompt.url).unwrap();
    let q: HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!(q["tenant"], "t1", "the authorization URL's own query is kept");
    assert_eq!((q["response_type"].as_str(), q["client_id"].as_str()), ("code", "the-app"));
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!((q["scope"].as_str(), q["resource"].as_str()), ("read write", "https://api.example.com/"));
    assert_eq!(q["redirect_uri"], "http://127.0.0.1:9/oauth/callback");
    let pending = a.users.take_pending(&q["state"]).await.unwrap().expect("the pending authorization");
    assert_eq!((pending.subject.as_str(), pending.tool.as_str()), ("alice", "listPets"));
    let challenge = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, pending.verifier.as_bytes()));
    assert_eq!(q["code_challenge"], challenge);
    assert!(a.users.take_pending(&q["state"]).await.unwrap().is_none(), "a state works once");
    assert!(!prompt.url.contains(&prompt.id), "the elicitation's id does not give the state away");
    // Its state used, the next call gets a new link; that one is given again while unused.
    let again = |tool: &'static str| {
        let a = &a;
        async move {
            match a.authorization(&reqwest::Client::new(), "alice", tool).await.unwrap() {
                Authorization::Needed(p) => p.url,
                other => panic!("{other:?}"),
            }
        }
    };
    let second = again("listPets").await;
    assert_ne!(second, prompt.url);
    assert_eq!(again("listPets").await, second, "the same link, not a new state per call");
    assert_ne!(again("addPet").await, second, "another tool's call begins its own");
}

#[tokio::test]
async fn concurrent_calls_refresh_once() {
    let (token_url, refreshes) = token_endpoint().await;
    let dir = tempfile::tempdir().unwrap();
    let a = authorizer(dir.path(), &token_url);
    store_tokens(&a, "alice", "r1", now()).await;
    let http = reqwest::Client::new();
    let (x, y) = tokio::join!(a.authorization(&http, "alice", "t"), a.authorization(&http, "alice", "t"));
    for got in [x.unwrap(), y.unwrap()] {
        let Authorization::Token(t) = got else { panic!("a token") };
        assert_eq!(t.expose(), "Bearer new-0");
    }
    assert_eq!(refreshes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_refresh_forgets_the_tokens_and_asks_again() {
    let (token_url, _) = token_endpoint().await;
    let dir = tempfile::tempdir().unwrap();
    let a = authorizer(dir.path(), &token_url);
    store_tokens(&a, "alice", "revoked", now()).await;
    let got = a.authorization(&reqwest::Client::new(), "alice", "t").await.unwrap();
    assert!(matches!(got, Authorization::Needed(_)), "{got:?}");
    assert!(a.users.store.get(&token_key("alice", "api")).await.unwrap().is_none(), "forgotten");
}
