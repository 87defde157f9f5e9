//! Tokens: which access tokens the server accepts and why it refuses the others.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::signature as sig;
use serde_json::json;

use crate::common::*;
use crate::idp::*;
use crate::server::*;

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
