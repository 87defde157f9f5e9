//! The test authorization server: signing keys, tokens, and an issuer publishing its metadata
//! and a JWKS on 127.0.0.1.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::extract::State;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::signature::{self as sig, KeyPair};
use serde_json::{Value, json};

// Keys and tokens

/// A signing key of the test authorization server.
pub(crate) enum Key {
    Rsa(sig::RsaKeyPair),
    Ec(sig::EcdsaKeyPair),
}

pub(crate) struct Signer {
    kid: String,
    pub(crate) key: Key,
}

impl Signer {
    /// An RSA key of tests/fixtures/oauth (PKCS#8 PEM).
    pub(crate) fn rsa(file: &str, kid: &str) -> Signer {
        let pem = std::fs::read_to_string(format!("tests/fixtures/oauth/{file}")).unwrap();
        let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
        let der = STANDARD.decode(b64).unwrap();
        Signer { kid: kid.into(), key: Key::Rsa(sig::RsaKeyPair::from_pkcs8(&der).unwrap()) }
    }

    /// A new P-256 key.
    pub(crate) fn ec(kid: &str) -> Signer {
        let rng = ring::rand::SystemRandom::new();
        let alg = &sig::ECDSA_P256_SHA256_FIXED_SIGNING;
        let pkcs8 = sig::EcdsaKeyPair::generate_pkcs8(alg, &rng).unwrap();
        let pair = sig::EcdsaKeyPair::from_pkcs8(alg, pkcs8.as_ref(), &rng).unwrap();
        Signer { kid: kid.into(), key: Key::Ec(pair) }
    }

    pub(crate) fn alg(&self) -> &'static str {
        match self.key {
            Key::Rsa(_) => "RS256",
            Key::Ec(_) => "ES256",
        }
    }

    /// The public key as a JWK.
    pub(crate) fn jwk(&self) -> Value {
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
    pub(crate) fn public_bytes(&self) -> Vec<u8> {
        match &self.key {
            Key::Rsa(pair) => pair.public().as_ref().to_vec(),
            Key::Ec(pair) => pair.public_key().as_ref().to_vec(),
        }
    }

    pub(crate) fn sign(&self, message: &[u8]) -> Vec<u8> {
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
    pub(crate) fn token(&self, claims: &Value) -> String {
        let header = json!({"alg": self.alg(), "typ": "at+jwt", "kid": self.kid});
        let input = signing_input(&header, claims);
        format!("{input}.{}", URL_SAFE_NO_PAD.encode(self.sign(input.as_bytes())))
    }
}

pub(crate) fn signing_input(header: &Value, claims: &Value) -> String {
    format!("{}.{}", URL_SAFE_NO_PAD.encode(header.to_string()), URL_SAFE_NO_PAD.encode(claims.to_string()))
}

pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

/// Claims that pass: this issuer, this audience, valid for ten minutes, with `scope`.
pub(crate) fn claims(idp: &Idp, audience: &str, scope: &str) -> Value {
    json!({"iss": idp.issuer(), "aud": audience, "sub": "user-1", "iat": now(), "exp": now() + 600, "scope": scope})
}

pub(crate) const ALL_SCOPES: &str = "pets:read pets:write admin";

// The authorization server

#[derive(Default)]
pub(crate) struct IdpState {
    issuer: Mutex<String>,
    jwks: Mutex<Value>,
    jwks_fetches: AtomicUsize,
}

/// The test authorization server: its metadata and a JWKS that tests can change.
pub(crate) struct Idp {
    pub(crate) url: String,
    state: Arc<IdpState>,
}

/// Where the authorization server publishes its metadata.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Metadata {
    /// RFC 8414 at the root; the issuer is the origin.
    OAuth,
    /// OpenID Connect discovery appended to the issuer's path (Keycloak's `/realms/test`).
    OpenIdWithPath,
}

impl Idp {
    pub(crate) async fn start(keys: &[&Signer]) -> Idp {
        Idp::start_with(keys, Metadata::OAuth).await
    }

    pub(crate) async fn start_with(keys: &[&Signer], style: Metadata) -> Idp {
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

    pub(crate) fn issuer(&self) -> String {
        self.url.clone()
    }

    /// The JWKS from now on.
    pub(crate) fn publish(&self, keys: &[&Signer]) {
        *self.state.jwks.lock().unwrap() = json!({"keys": keys.iter().map(|k| k.jwk()).collect::<Vec<_>>()});
    }

    pub(crate) fn jwks_fetches(&self) -> usize {
        self.state.jwks_fetches.load(Ordering::SeqCst)
    }
}
