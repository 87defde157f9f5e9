//! The issuer's verification keys for [`crate::auth`]: the JWKS, found through the
//! authorization server's metadata (RFC 8414, OpenID Connect discovery) or given, cached, and
//! fetched again for an unknown key id at most every `min_refresh`.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Header};
use serde_json::Value;

use crate::auth::{ALGORITHMS, KEYS_MAX_AGE, checked_url};

/// The largest metadata or JWKS document read.
const MAX_DOCUMENT: usize = 1024 * 1024;

/// Where the keys come from.
#[derive(Debug, Clone)]
pub(crate) enum JwksSource {
    Given(String),
    /// The `jwks_uri` of the issuer's metadata.
    Discover(String),
}

/// A verification key of the issuer.
pub(crate) struct Key {
    kid: Option<String>,
    /// The algorithm the key is for, when the JWK says.
    alg: Option<Algorithm>,
    curve: Option<EllipticCurve>,
    key: DecodingKey,
}

impl Key {
    /// A JWK as a verification key; `None` for anything else (symmetric keys, encryption keys,
    /// key types or algorithms not accepted).
    fn from_jwk(jwk: &Jwk) -> Option<Key> {
        if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))) {
            return None;
        }
        let alg = match jwk.common.key_algorithm {
            Some(a) => Some(Algorithm::try_from(a).ok().filter(|a| ALGORITHMS.contains(a))?),
            None => None,
        };
        let curve = match &jwk.algorithm {
            AlgorithmParameters::RSA(_) => None,
            AlgorithmParameters::EllipticCurve(p) => Some(p.curve.clone()),
            AlgorithmParameters::OctetKeyPair(p) => Some(p.curve.clone()),
            // Never a shared secret: HMAC is not accepted, and a key set that holds one is odd.
            _ => return None,
        };
        let key = DecodingKey::from_jwk(jwk).ok()?;
        Some(Key { kid: jwk.common.key_id.clone(), alg, curve, key })
    }

    /// Whether this key may check a token with `header`.
    fn fits(&self, header: &Header) -> bool {
        let alg = header.alg;
        if self.key.family() != alg.family() || self.alg.is_some_and(|a| a != alg) {
            return false;
        }
        let curve_ok = match alg {
            Algorithm::ES256 => self.curve == Some(EllipticCurve::P256),
            Algorithm::ES384 => self.curve == Some(EllipticCurve::P384),
            Algorithm::EdDSA => self.curve == Some(EllipticCurve::Ed25519),
            _ => self.key.family() == AlgorithmFamily::Rsa,
        };
        curve_ok
            && match (&header.kid, &self.kid) {
                (Some(wanted), Some(have)) => wanted == have,
                (Some(_), None) => false,
                (None, _) => true,
            }
    }
}

/// The keys as last fetched.
#[derive(Default)]
pub(crate) struct KeySet {
    pub(crate) keys: Vec<Key>,
    fetched: Option<Instant>,
}

pub(crate) struct KeyCache {
    source: JwksSource,
    http: reqwest::Client,
    min_refresh: Duration,
    keys: RwLock<Arc<KeySet>>,
    /// Held while fetching: the time of the last attempt and the JWKS URL once known.
    refresh: tokio::sync::Mutex<(Option<Instant>, Option<String>)>,
}

impl KeyCache {
    pub(crate) fn new(source: JwksSource, http: reqwest::Client, min_refresh: Duration) -> KeyCache {
        let uri = match &source {
            JwksSource::Given(u) => Some(u.clone()),
            JwksSource::Discover(_) => None,
        };
        KeyCache {
            source,
            http,
            min_refresh,
            keys: RwLock::new(Arc::new(KeySet::default())),
            refresh: tokio::sync::Mutex::new((None, uri)),
        }
    }

    pub(crate) fn current(&self) -> Arc<KeySet> {
        self.keys.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The keys that may check a token with `header`, fetching the key set again when none
    /// fits or it is old (within the floor).
    pub(crate) async fn candidates(&self, header: &Header) -> Vec<DecodingKey> {
        let set = self.current();
        let fitting = |set: &KeySet| -> Vec<DecodingKey> {
            set.keys.iter().filter(|k| k.fits(header)).map(|k| k.key.clone()).collect()
        };
        let found = fitting(&set);
        let stale = set.fetched.is_none_or(|t| t.elapsed() > KEYS_MAX_AGE);
        if !found.is_empty() && !stale {
            return found;
        }
        self.refresh(set.fetched).await;
        fitting(&self.current())
    }

    /// Fetches the keys unless another task did since `seen` or the last attempt is within the
    /// floor. A failed fetch keeps the keys there were.
    pub(crate) async fn refresh(&self, seen: Option<Instant>) {
        let mut state = self.refresh.lock().await;
        if self.current().fetched != seen {
            return;
        }
        if state.0.is_some_and(|t| t.elapsed() < self.min_refresh) {
            return;
        }
        state.0 = Some(Instant::now());
        let uri = match &state.1 {
            Some(u) => u.clone(),
            None => {
                let JwksSource::Discover(issuer) = &self.source else { return };
                match discover_jwks_uri(&self.http, issuer).await {
                    Ok(u) => {
                        state.1 = Some(u.clone());
                        u
                    }
                    Err(e) => {
                        tracing::warn!("OAuth: {e}; tokens are refused until it answers");
                        return;
                    }
                }
            }
        };
        match fetch_json(&self.http, &uri).await {
            Ok(doc) => {
                let listed = doc.get("keys").and_then(Value::as_array).map_or(0, Vec::len);
                let keys: Vec<Key> = doc
                    .get("keys")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
                    .filter_map(|jwk| Key::from_jwk(&jwk))
                    .collect();
                if keys.len() < listed {
                    tracing::debug!(
                        "OAuth: {} of the {listed} keys at {uri} are not signature keys used here",
                        listed - keys.len()
                    );
                }
                if keys.is_empty() {
                    tracing::warn!("OAuth: the JWKS at {uri} holds no usable signature key");
                } else {
                    tracing::debug!("OAuth: {} signing keys fetched from {uri}", keys.len());
                }
                *self.keys.write().unwrap_or_else(|p| p.into_inner()) =
                    Arc::new(KeySet { keys, fetched: Some(Instant::now()) });
            }
            Err(e) => tracing::warn!("OAuth: cannot fetch the signing keys: {e}"),
        }
    }
}

/// Why the issuer's keys could not be found or fetched (logged: tokens wait for the next try).
#[derive(Debug, thiserror::Error)]
pub(crate) enum KeysError {
    /// The issuer is not a URL.
    #[error("invalid issuer {issuer:?}: {cause}")]
    InvalidIssuer { issuer: String, cause: url::ParseError },
    /// A metadata document names another issuer (RFC 8414 section 3.3).
    #[error("the metadata at {url} is for the issuer {named:?}, not {issuer:?}")]
    OtherIssuer { url: String, named: String, issuer: String },
    /// A metadata document without `jwks_uri`.
    #[error("the metadata at {url} names no jwks_uri")]
    NoJwksUri { url: String },
    /// The `jwks_uri` is not a URL the server fetches.
    #[error("{0}")]
    BadJwksUri(crate::error::Error),
    /// None of the metadata locations answered with a document.
    #[error("no authorization server metadata for {issuer} ({})", tried.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    NoMetadata { issuer: String, tried: Vec<KeysError> },
    /// The request failed or its body broke off.
    #[error("{url}: {cause}")]
    Fetch { url: String, cause: reqwest::Error },
    /// The answer was not a success.
    #[error("{url}: HTTP {status}")]
    Status { url: String, status: reqwest::StatusCode },
    /// The answer was longer than [`MAX_DOCUMENT`].
    #[error("{url}: larger than {MAX_DOCUMENT} bytes")]
    TooLarge { url: String },
    /// The answer was not JSON.
    #[error("{url}: not JSON: {cause}")]
    NotJson { url: String, cause: serde_json::Error },
}

/// The `jwks_uri` of the issuer's metadata: RFC 8414 (well-known inserted before the issuer's
/// path), then OpenID Connect discovery (inserted, then appended). The metadata must name the
/// same issuer (RFC 8414 section 3.3).
async fn discover_jwks_uri(http: &reqwest::Client, issuer: &str) -> std::result::Result<String, KeysError> {
    let u = url::Url::parse(issuer).map_err(|cause| KeysError::InvalidIssuer { issuer: issuer.to_string(), cause })?;
    let origin = u.origin().ascii_serialization();
    let path = u.path().trim_end_matches('/');
    let candidates = [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
        format!("{origin}{path}/.well-known/openid-configuration"),
    ];
    let mut tried = Vec::new();
    for url in candidates.iter().take(if path.is_empty() { 2 } else { 3 }) {
        match fetch_json(http, url).await {
            Ok(doc) => {
                let named = doc.get("issuer").and_then(Value::as_str).unwrap_or("");
                if named != issuer {
                    return Err(KeysError::OtherIssuer {
                        url: url.clone(),
                        named: named.to_string(),
                        issuer: issuer.to_string(),
                    });
                }
                let jwks = doc
                    .get("jwks_uri")
                    .and_then(Value::as_str)
                    .ok_or_else(|| KeysError::NoJwksUri { url: url.clone() })?;
                checked_url("the issuer's jwks_uri", jwks).map_err(KeysError::BadJwksUri)?;
                return Ok(jwks.to_string());
            }
            Err(e) => tried.push(e),
        }
    }
    Err(KeysError::NoMetadata { issuer: issuer.to_string(), tried })
}

/// A JSON document of the authorization server, up to [`MAX_DOCUMENT`] bytes.
async fn fetch_json(http: &reqwest::Client, url: &str) -> std::result::Result<Value, KeysError> {
    let fetch = |cause| KeysError::Fetch { url: url.to_string(), cause };
    let mut resp = http.get(url).header(reqwest::header::ACCEPT, "application/json").send().await.map_err(fetch)?;
    if !resp.status().is_success() {
        return Err(KeysError::Status { url: url.to_string(), status: resp.status() });
    }
    let mut body = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(fetch)? {
        if body.len() + chunk.len() > MAX_DOCUMENT {
            return Err(KeysError::TooLarge { url: url.to_string() });
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|cause| KeysError::NotJson { url: url.to_string(), cause })
}
