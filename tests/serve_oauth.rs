//! `mcpgen serve --transport http --oauth-issuer URL`: the server as an OAuth 2.1 resource
//! server. A local authorization server (metadata and JWKS on 127.0.0.1) stands for the issuer;
//! tokens are signed here with test keys (tests/fixtures/oauth/, and EC keys made on the spot).
//! Each case starts its own server; the mock upstream records what reaches the API.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::*;
use ring::signature::{self as sig, KeyPair};
use rmcp::ServiceExt;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;

// ---------------------------------------------------------------------------------------------
// Keys and tokens

/// A signing key of the test authorization server.
enum Key {
    Rsa(sig::RsaKeyPair),
    Ec(sig::EcdsaKeyPair),
}

struct Signer {
    kid: String,
    key: Key,
}

impl Signer {
    /// An RSA key of tests/fixtures/oauth (PKCS#8 PEM).
    fn rsa(file: &str, kid: &str) -> Signer {
        let pem = std::fs::read_to_string(format!("tests/fixtures/oauth/{file}")).unwrap();
        let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        let der = STANDARD.decode(b64).unwrap();
        Signer { kid: kid.into(), key: Key::Rsa(sig::RsaKeyPair::from_pkcs8(&der).unwrap()) }
    }

    /// A new P-256 key.
    fn ec(kid: &str) -> Signer {
        let rng = ring::rand::SystemRandom::new();
        let alg = &sig::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = sig::EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
        let pair = sig::EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
        Signer { kid: kid.into(), key: Key::Ec(pair) }
    }

    fn alg(&self) -> &'static str {
        match self.key {
            Key::Rsa(_) => "RS256",
            Key::Ec(_) => "ES256",
        }
    }

    /// The public key as a JWK.
    fn jwk(&self) -> Value {
        match &self.key {
            Key::Rsa(pair) => {
                let c = sig::RsaPublicKeyComponents::<Vec<u8>>::from(pair.public());
                json!({"kty": "RSA", "kid": self.kid, "use": "sig", "alg": "RS256",
                       "n": URL_SAFE_NO_PAD.encode(&c.n), "e": URL_SAFE_NO_PAD.encode(&c.e)})
            }
            Key::Ec(pair) => {
                let point = pair.public_key().as_ref();
                json!({"kty": "EC", "kid": self.kid, "use": "sig", "crv": "P-256",
                       "x": URL_SAFE_NO_PAD.encode(&point[1..33]), "y": URL_SAFE_NO_PAD.encode(&point[33..65])})
            }
        }
    }

    /// The RSA public key's bytes (what an HMAC-confusion attacker would use as the secret).
    fn public_bytes(&self) -> Vec<u8> {
        match &self.key {
            Key::Rsa(pair) => pair.public().as_ref().to_vec(),
            Key::Ec(pair) => pair.public_key().as_ref().to_vec(),
        }
    }

    fn sign(&self, message: &[u8]) -> Vec<u8> {
        let rng = ring::rand::SystemRandom::new();
        match &self.key {
            Key::Rsa(pair) => {
                let mut out = vec![0; pair.public().modulus_len()];
                pair.sign(&sig::RSA_PKCS1_SHA256, &rng, message, &mut out).unwrap();
                out
            }
            Key::Ec(pair) => pair.sign(&rng, message).unwrap().as_ref().to_vec(),
        }
    }

    /// A compact JWS of `claims`, signed with this key.
    fn token(&self, claims: &Value) -> String {
        let header = json!({"alg": self.alg(), "typ": "at+jwt", "kid": self.kid});
        let input = signing_input(&header, claims);
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(self.sign(input.as_bytes())))
    }
}

fn signing_input(header: &Value, claims: &Value) -> String {
    format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// Claims that pass: this issuer, this audience, valid for ten minutes, with `scope`.
fn claims(idp: &Idp, audience: &str, scope: &str) -> Value {
    json!({"iss": idp.issuer(), "aud": audience, "sub": "user-1", "iat": now(), "exp": now() + 600, "scope": scope})
}

const ALL_SCOPES: &str = "pets:read pets:write admin";

// ---------------------------------------------------------------------------------------------
// The authorization server

#[derive(Default)]
struct IdpState {
    issuer: Mutex<String>,
    jwks: Mutex<Value>,
    jwks_fetches: AtomicUsize,
}

/// The test authorization server: its metadata and a JWKS that tests can change.
struct Idp {
    url: String,
    state: Arc<IdpState>,
}

/// Where the authorization server publishes its metadata.
#[derive(Clone, Copy, PartialEq)]
enum Metadata {
    /// RFC 8414 at the root; the issuer is the origin.
    OAuth,
    /// OpenID Connect discovery appended to the issuer's path (Keycloak's `/realms/test`).
    OpenIdWithPath,
}

impl Idp {
    async fn start(keys: &[&Signer]) -> Idp {
        Idp::start_with(keys, Metadata::OAuth).await
    }

    async fn start_with(keys: &[&Signer], style: Metadata) -> Idp {
        let state = Arc::new(IdpState::default());
        let metadata = |State(s): State<Arc<IdpState>>| async move {
            let issuer = s.issuer.lock().unwrap().clone();
            let origin = issuer.trim_end_matches("/realms/test").to_string();
            axum::Json(json!({
                "issuer": issuer,
                "jwks_uri": format!("{origin}/jwks"),
                "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"),
                "code_challenge_methods_supported": ["S256"],
            }))
        };
        let path = match style {
            Metadata::OAuth => "/.well-known/oauth-authorization-server",
            Metadata::OpenIdWithPath => "/realms/test/.well-known/openid-configuration",
        };
        let app = axum::Router::new()
            .route(path, axum::routing::get(metadata))
            .route(
                "/jwks",
                axum::routing::get(|State(s): State<Arc<IdpState>>| async move {
                    s.jwks_fetches.fetch_add(1, Ordering::SeqCst);
                    axum::Json(s.jwks.lock().unwrap().clone())
                }),
            )
            .with_state(state.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        if style == Metadata::OpenIdWithPath {
            url.push_str("/realms/test");
        }
        *state.issuer.lock().unwrap() = url.clone();
        let idp = Idp { url, state };
        idp.publish(keys);
        idp
    }

    fn issuer(&self) -> String {
        self.url.clone()
    }

    /// The JWKS from now on.
    fn publish(&self, keys: &[&Signer]) {
        *self.state.jwks.lock().unwrap() = json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()});
    }

    fn jwks_fetches(&self) -> usize {
        self.state.jwks_fetches.load(Ordering::SeqCst)
    }
}

// ---------------------------------------------------------------------------------------------
// The server under test

struct Server {
    _child: Option<tokio::process::Child>,
    /// The `/mcp` URL, which is also the resource and the default audience.
    url: String,
    mock: Mock,
    _spec: tempfile::TempPath,
}

impl Server {
    async fn start(idp: &Idp, extra: &[&str]) -> Server {
        Server::start_issuer(&idp.url, extra).await
    }

    async fn start_issuer(issuer: &str, extra: &[&str]) -> Server {
        let mock = start_mock().await;
        let spec = fixture_spec("oauth.yaml", &mock);
        let mut args = vec!["serve", spec.to_str().unwrap(), "--oauth-issuer", issuer];
        args.extend_from_slice(extra);
        let cmd = ServerCommand::mcpgen(&args).env("SCOPED_PETS_KEY", "server-key");
        let (child, url) = spawn_http(&cmd, &[]).await;
        Server { _child: Some(child), url, mock, _spec: spec }
    }

    fn origin(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }

    /// A raw POST of `body` to /mcp with this bearer token.
    async fn post(&self, token: Option<&str>, body: &str) -> reqwest::Response {
        let mut r = reqwest::Client::new()
            .post(&self.url)
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
    async fn client(&self, token: &str) -> RunningService<rmcp::RoleClient, ()> {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(self.url.clone()).auth_header(token.to_string()),
        );
        ().serve(transport).await.expect("initialize with a good token")
    }
}

fn challenge(r: &reqwest::Response) -> String {
    r.headers().get("www-authenticate").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default()
}

/// Asserts a 401 `invalid_token` naming `why`.
async fn assert_refused(server: &Server, token: &str, why: &str) {
    let r = server.post(Some(token), INIT).await;
    let c = challenge(&r);
    assert_eq!(r.status(), 401, "{c}");
    assert!(c.starts_with("Bearer error=\"invalid_token\""), "{c}");
    assert!(c.contains(&format!("error_description=\"{why}\"")), "{c}");
    assert!(c.contains(&format!("resource_metadata=\"{}\"", metadata_url(server))), "{c}");
}

fn metadata_url(server: &Server) -> String {
    format!("{}/.well-known/oauth-protected-resource/mcp", server.origin())
}

async fn tool_names(client: &RunningService<rmcp::RoleClient, ()>) -> Vec<String> {
    let mut names: Vec<String> =
        client.list_all_tools().await.unwrap().into_iter().map(|t| t.name.to_string()).collect();
    names.sort();
    names
}

fn call(name: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": name, "arguments": args}}).to_string()
}

// ---------------------------------------------------------------------------------------------
// Tokens

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_token_is_accepted() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let token = key.token(&claims(&idp, &server.url, ALL_SCOPES));
    let client = server.client(&token).await;
    let r = client
        .call_tool(rmcp::model::CallToolRequestParams::new("ping").with_arguments(Default::default()))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{}", text(&r));
    assert_eq!(server.mock.last().path, "/ping");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_es256_token_is_accepted() {
    let key = Signer::ec("ec-1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let token = key.token(&claims(&idp, &server.url, "pets:read"));
    assert_eq!(server.post(Some(&token), INIT).await.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openid_connect_discovery_finds_the_keys_of_an_issuer_with_a_path() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start_with(&[&key], Metadata::OpenIdWithPath).await;
    assert!(idp.issuer().ends_with("/realms/test"));
    let server = Server::start(&idp, &[]).await;
    let token = key.token(&claims(&idp, &server.url, ALL_SCOPES));
    assert_eq!(server.post(Some(&token), INIT).await.status(), 200);
    assert_eq!(idp.jwks_fetches(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_given_jwks_url_needs_no_metadata() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start_with(&[&key], Metadata::OpenIdWithPath).await;
    // The issuer's metadata is not where discovery looks; --oauth-jwks says where the keys are.
    let origin = idp.url.trim_end_matches("/realms/test").to_string();
    let mut c = claims(&idp, "", ALL_SCOPES);
    c["iss"] = json!(format!("{origin}/elsewhere"));
    let server =
        Server::start_issuer(&format!("{origin}/elsewhere"), &["--oauth-jwks", &format!("{origin}/jwks")]).await;
    c["aud"] = json!(server.url);
    assert_eq!(server.post(Some(&key.token(&c)), INIT).await.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_issuer_refuses_tokens_but_the_server_runs() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    // A port nobody listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let issuer = format!("http://{closed}");
    let server = Server::start_issuer(&issuer, &[]).await;
    let c = json!({"iss": issuer, "aud": server.url, "exp": now() + 600, "scope": ALL_SCOPES});
    assert_refused(&server, &key.token(&c), "no key of the authorization server matches the access token").await;
    assert_eq!(reqwest::get(format!("{}/health", server.origin())).await.unwrap().status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_token_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let mut c = claims(&idp, &server.url, ALL_SCOPES);
    c["exp"] = json!(now() - 120);
    assert_refused(&server, &key.token(&c), "the access token has expired").await;
    // Within the leeway (30 s) it still passes.
    c["exp"] = json!(now() - 5);
    assert_eq!(server.post(Some(&key.token(&c)), INIT).await.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_not_yet_valid_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let mut c = claims(&idp, &server.url, ALL_SCOPES);
    c["nbf"] = json!(now() + 300);
    assert_refused(&server, &key.token(&c), "the access token is not valid yet").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_for_another_audience_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let other = key.token(&claims(&idp, "https://other-api.example.com", ALL_SCOPES));
    assert_refused(&server, &other, "the access token is not meant for this server (audience)").await;
    let mut none = claims(&idp, &server.url, ALL_SCOPES);
    none.as_object_mut().unwrap().remove("aud");
    assert_refused(&server, &key.token(&none), "the access token lacks exp, iss or aud").await;
    // An audience list that names this server passes.
    let mut list = claims(&idp, &server.url, ALL_SCOPES);
    list["aud"] = json!(["https://other-api.example.com", server.url]);
    assert_eq!(server.post(Some(&key.token(&list)), INIT).await.status(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_explicit_audience_replaces_the_resource_url() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &["--oauth-audience", "api://pets"]).await;
    let ok = key.token(&claims(&idp, "api://pets", ALL_SCOPES));
    assert_eq!(server.post(Some(&ok), INIT).await.status(), 200);
    let resource = key.token(&claims(&idp, &server.url, ALL_SCOPES));
    assert_refused(&server, &resource, "the access token is not meant for this server (audience)").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_from_another_issuer_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let mut c = claims(&idp, &server.url, ALL_SCOPES);
    c["iss"] = json!("https://evil.example.com");
    assert_refused(&server, &key.token(&c), "the access token comes from another authorization server").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_key_is_accepted_once_the_jwks_has_it() {
    let old = Signer::rsa("rsa-1.pem", "k1");
    let new = Signer::rsa("rsa-2.pem", "k2");
    let idp = Idp::start(&[&old]).await;
    let server = Server::start(&idp, &["--oauth-jwks-min-refresh", "1"]).await;
    assert_eq!(idp.jwks_fetches(), 1, "fetched at start");
    let token = new.token(&claims(&idp, &server.url, ALL_SCOPES));
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_refused(&server, &token, "no key of the authorization server matches the access token").await;
    assert_eq!(idp.jwks_fetches(), 2, "an unknown kid fetches the keys again");
    // The authorization server rotates its keys: the new one is published, the old one kept.
    idp.publish(&[&new, &old]);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(server.post(Some(&token), INIT).await.status(), 200, "accepted after the re-fetch");
    assert_eq!(idp.jwks_fetches(), 3);
    let old_token = old.token(&claims(&idp, &server.url, ALL_SCOPES));
    assert_eq!(server.post(Some(&old_token), INIT).await.status(), 200, "the old key still works");
    assert_eq!(idp.jwks_fetches(), 3, "known keys need no fetch");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_keys_do_not_make_the_server_hammer_the_jwks() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    for i in 0..10 {
        let s = Signer::ec(&format!("made-up-{i}"));
        let r = server.post(Some(&s.token(&claims(&idp, &server.url, ALL_SCOPES))), INIT).await;
        assert_eq!(r.status(), 401);
    }
    assert_eq!(idp.jwks_fetches(), 1, "within the floor (30 s) the keys are not fetched again");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_token_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let token = key.token(&claims(&idp, &server.url, "pets:read"));
    // The same signature over claims that grant more.
    let signature = token.rsplit('.').next().unwrap();
    let header = json!({"alg": "RS256", "typ": "at+jwt", "kid": "k1"});
    let forged = format!("{}.{signature}", signing_input(&header, &claims(&idp, &server.url, ALL_SCOPES)));
    assert_refused(&server, &forged, "the access token's signature does not verify").await;
    // One bit of the signature changed.
    let mut bytes = URL_SAFE_NO_PAD.decode(signature).unwrap();
    bytes[10] ^= 1;
    let (input, _) = token.rsplit_once('.').unwrap();
    let flipped = format!("{input}.{}", URL_SAFE_NO_PAD.encode(bytes));
    assert_refused(&server, &flipped, "the access token's signature does not verify").await;
    // Garbage never crashes the server.
    for junk in ["", "a.b", "a.b.c", "...", "eyJhbGciOiJSUzI1NiJ9.e30.", &"x".repeat(20_000)] {
        let r = server.post(Some(junk), INIT).await;
        assert_eq!(r.status(), 401, "{junk:.20}");
    }
    assert_eq!(server.post(Some(&token), INIT).await.status(), 200, "still serving");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alg_none_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let c = claims(&idp, &server.url, ALL_SCOPES);
    for alg in ["none", "None", "NONE"] {
        let unsigned = format!("{}.", signing_input(&json!({"alg": alg, "typ": "JWT", "kid": "k1"}), &c));
        assert_refused(&server, &unsigned, "the access token is not a well-formed JWT").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hmac_signed_with_the_public_key_is_refused() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let c = claims(&idp, &server.url, ALL_SCOPES);
    // The attacker knows the public key (the JWKS is public) and signs with it as an HMAC secret.
    let jwk = key.jwk();
    let secrets: Vec<Vec<u8>> =
        vec![key.public_bytes(), jwk.to_string().into_bytes(), jwk["n"].as_str().unwrap().into()];
    for secret in secrets {
        for (alg, hmac) in [("HS256", ring::hmac::HMAC_SHA256), ("HS512", ring::hmac::HMAC_SHA512)] {
            let input = signing_input(&json!({"alg": alg, "typ": "JWT", "kid": "k1"}), &c);
            let tag = ring::hmac::sign(&ring::hmac::Key::new(hmac, &secret), input.as_bytes());
            let forged = format!("{input}.{}", URL_SAFE_NO_PAD.encode(tag.as_ref()));
            assert_refused(&server, &forged, "the access token's signature algorithm is not accepted").await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_for_another_algorithm_is_not_used() {
    // The JWKS says the RSA key is for RS256; a PS256 token naming it is not checked with it.
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let server = Server::start(&idp, &[]).await;
    let Key::Rsa(pair) = &key.key else { unreachable!() };
    let input = signing_input(&json!({"alg": "PS256", "kid": "k1"}), &claims(&idp, &server.url, ALL_SCOPES));
    let mut out = vec![0; pair.public().modulus_len()];
    pair.sign(&sig::RSA_PSS_SHA256, &ring::rand::SystemRandom::new(), input.as_bytes(), &mut out).unwrap();
    let token = format!("{input}.{}", URL_SAFE_NO_PAD.encode(out));
    assert_refused(&server, &token, "no key of the authorization server matches the access token").await;
}

// ---------------------------------------------------------------------------------------------
// Metadata and challenges

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

// ---------------------------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------------------------
// Upstream identity

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

// ---------------------------------------------------------------------------------------------
// Flags and logs

#[test]
fn contradictory_flags_are_refused() {
    let spec = "tests/fixtures/oauth.yaml";
    let cases: [(&[&str], &str); 5] = [
        (
            &["--transport", "http", "--oauth-issuer", "https://idp.example.com", "--auth-token", "t"],
            "exclude each other",
        ),
        (&["--transport", "stdio", "--oauth-issuer", "https://idp.example.com"], "needs --transport http"),
        (&["--transport", "http", "--upstream-auth", "passthrough"], "needs --oauth-issuer"),
        (&["--transport", "http", "--oauth-audience", "x"], "need --oauth-issuer"),
        (&["--transport", "http", "--oauth-issuer", "http://idp.example.com"], "must be an https URL"),
    ];
    for (args, says) in cases {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
            .args(["serve", spec, "--base-url", "http://127.0.0.1:9", "--bind", "127.0.0.1:0"])
            .args(args)
            .env_remove("MCPGEN_AUTH_TOKEN")
            .env_remove("MCPGEN_OAUTH_ISSUER")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success() && stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_never_reach_the_log() {
    use tokio::io::AsyncBufReadExt;
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let mock = start_mock().await;
    let spec = fixture_spec("oauth.yaml", &mock);
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpgen"))
        .args(["serve", spec.to_str().unwrap(), "--transport", "http", "--bind", "127.0.0.1:0"])
        .args(["--oauth-issuer", &idp.url, "--upstream-auth", "passthrough"])
        .env("MCPGEN_LOG", "trace")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line()).await.unwrap().unwrap().unwrap();
        if let Some(i) = line.find("http://").filter(|_| line.contains("serving")) {
            break line[i..].split_whitespace().next().unwrap().to_string();
        }
    };
    let log = Arc::new(Mutex::new(String::new()));
    let sink = log.clone();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            sink.lock().unwrap().push_str(&line);
        }
    });
    let server = Server { _child: None, url, mock, _spec: spec };
    let good = key.token(&claims(&idp, &server.url, "pets:read"));
    let mut expired = claims(&idp, &server.url, "pets:read");
    expired["exp"] = json!(now() - 3600);
    let bad = key.token(&expired);
    server.post(Some(&bad), INIT).await;
    server.post(Some(&good), &call("createPet", json!({}))).await;
    let client = server.client(&good).await;
    let params = rmcp::model::CallToolRequestParams::new("listPets").with_arguments(Default::default());
    client.call_tool(params).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let log = log.lock().unwrap().clone();
    assert!(log.contains("refused"), "the refusals are logged: {log}");
    for t in [&good, &bad] {
        let signature = t.rsplit('.').next().unwrap();
        assert!(!log.contains(signature), "a token in the log");
    }
    drop(child);
}

// ---------------------------------------------------------------------------------------------
// Metrics under OAuth

/// No token a scraper could hold: /metrics is not on /mcp's listener, only on --metrics-bind,
/// where a call refused for its scopes counts as `forbidden`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_forbidden_calls_on_their_own_listener() {
    let key = Signer::rsa("rsa-1.pem", "k1");
    let idp = Idp::start(&[&key]).await;
    let mock = start_mock().await;
    let spec = fixture_spec("oauth.yaml", &mock);
    let cmd = ServerCommand::mcpgen(&["serve", spec.to_str().unwrap(), "--oauth-issuer", &idp.url])
        .env("SCOPED_PETS_KEY", "server-key");
    let (_child, url, logs) = spawn_http_logged(&cmd, &["--metrics-bind", "127.0.0.1:0"]).await;
    let metrics = wait_for_url(&logs, "/metrics").await;
    let origin = url.trim_end_matches("/mcp");
    let on_mcp_listener = reqwest::get(format!("{origin}/metrics")).await.unwrap();
    assert_eq!(on_mcp_listener.status(), 404, "/metrics is not served beside /mcp under OAuth");

    let reader = key.token(&claims(&idp, &url, "pets:read"));
    let r = reqwest::Client::new()
        .post(&url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-06-18")
        .header("authorization", format!("Bearer {reader}"))
        .body(call("createPet", json!({"name": "Rex"})))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let text = reqwest::get(&metrics).await.unwrap().text().await.unwrap();
    assert!(text.lines().any(|l| l == r#"mcpgen_tool_calls_total{tool="createPet",outcome="forbidden"} 1"#), "{text}");
    assert!(mock.requests().is_empty());
}

// ---------------------------------------------------------------------------------------------
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
