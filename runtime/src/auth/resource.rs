//! The resource server: access tokens checked against the issuer's keys.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value, json};

use super::OAuthOptions;
use super::jwks::{JwksSource, KeyCache};
use crate::error::{Error, Result};

pub use crate::engine::caller::Principal;

/// The signature algorithms accepted: asymmetric only (no `none`, no HMAC).
pub const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Clock skew allowed on `exp` and `nbf`, in seconds.
pub const LEEWAY_SECS: u64 = 30;

/// Keys older than this are fetched again on the next token (a key the issuer withdrew stops
/// being accepted within this time).
pub const KEYS_MAX_AGE: Duration = Duration::from_secs(15 * 60);

/// Longest token looked at; anything longer is refused unread.
const MAX_TOKEN: usize = 16 * 1024;

/// Where the metadata lives, under the origin (RFC 9728 section 3).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Why a token was refused; the text is what the 401's `error_description` says (no token
/// content in it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not three base64url parts with a JSON header, or too long.
    Malformed,
    /// An algorithm outside [`ALGORITHMS`] (`none`, HMAC, ...).
    Algorithm,
    /// No key of the issuer fits the token (unknown `kid`, or keys could not be fetched).
    UnknownKey,
    /// The signature does not verify.
    Signature,
    /// `exp` has passed.
    Expired,
    /// `nbf` has not come.
    NotYetValid,
    /// `iss` is another issuer.
    Issuer,
    /// `aud` does not name this server.
    Audience,
    /// A required claim (`exp`, `iss`, `aud`) is missing or has the wrong type.
    Claims,
}

impl Refusal {
    /// The `error_description` of the challenge.
    pub fn description(self) -> &'static str {
        match self {
            Refusal::Malformed => "the access token is not a well-formed JWT",
            Refusal::Algorithm => "the access token's signature algorithm is not accepted",
            Refusal::UnknownKey => "no key of the authorization server matches the access token",
            Refusal::Signature => "the access token's signature does not verify",
            Refusal::Expired => "the access token has expired",
            Refusal::NotYetValid => "the access token is not valid yet",
            Refusal::Issuer => "the access token comes from another authorization server",
            Refusal::Audience => "the access token is not meant for this server (audience)",
            Refusal::Claims => "the access token lacks exp, iss or aud",
        }
    }
}

/// The server's side of OAuth: the token check and the metadata it publishes.
pub struct ResourceServer {
    issuer: String,
    resource: String,
    audiences: Vec<String>,
    metadata_url: String,
    metadata: Value,
    keys: KeyCache,
}

impl ResourceServer {
    /// Checks the options; `bound` is the address the server listens on (the default resource
    /// URL), `name` the server's title. No request is made here: see [`ResourceServer::prefetch`].
    pub fn new(opts: &OAuthOptions, bound: SocketAddr, name: &str) -> Result<Self> {
        let issuer = opts.issuer.trim().to_string();
        let issuer_url = checked_url("--oauth-issuer", &issuer)?;
        if issuer_url.query().is_some() || issuer_url.fragment().is_some() {
            return Err(Error::Config(format!("--oauth-issuer {issuer:?} must have no query or fragment (RFC 8414)")));
        }
        let resource = match &opts.resource {
            Some(r) => r.trim().trim_end_matches('/').to_string(),
            None => {
                if !bound.ip().is_loopback() {
                    tracing::warn!(
                        "OAuth: the resource URL is http://{bound}/mcp; pass --oauth-resource with the URL clients reach this server at"
                    );
                }
                format!("http://{bound}/mcp")
            }
        };
        let resource_url = match url::Url::parse(&resource) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.fragment().is_none() => u,
            _ => {
                return Err(Error::Config(format!(
                    "--oauth-resource {resource:?} must be an absolute http(s) URL without a fragment"
                )));
            }
        };
        let jwks = match &opts.jwks_url {
            Some(u) => {
                checked_url("--oauth-jwks", u)?;
                JwksSource::Given(u.clone())
            }
            None => JwksSource::Discover(issuer.clone()),
        };
        let audiences = if opts.audiences.is_empty() { vec![resource.clone()] } else { opts.audiences.clone() };
        let metadata_url = metadata_url(&resource_url);
        let metadata = json!({
            "resource": resource,
            "authorization_servers": [issuer],
            "bearer_methods_supported": ["header"],
            "resource_name": name,
        });
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Config(format!("HTTP client for the authorization server: {e}")))?;
        crate::auth::jwt_ring::install();
        Ok(ResourceServer {
            issuer,
            resource,
            audiences,
            metadata_url,
            metadata,
            keys: KeyCache::new(jwks, http, opts.jwks_min_refresh),
        })
    }

    /// Where authorization servers send users back to (`--upstream-auth user`): beside the
    /// resource's `/mcp`, at `/oauth/callback`.
    #[cfg(feature = "user-auth")]
    pub fn callback_url(&self) -> String {
        let base = self.resource.strip_suffix("/mcp").unwrap_or(&self.resource);
        format!("{base}{}", crate::upstream::user::authorizer::CALLBACK_PATH)
    }

    /// The Protected Resource Metadata document, with `scopes_supported` when tools need any
    /// (`scopes`: what the tools served now need).
    pub fn metadata(&self, scopes: &BTreeSet<String>) -> Value {
        let mut metadata = self.metadata.clone();
        if !scopes.is_empty() {
            metadata["scopes_supported"] = json!(scopes);
        }
        metadata
    }

    /// The paths the metadata is served at: the root form and the ones suffixed with the
    /// resource's path and with each MCP path (`/mcp` and its siblings `/mcp/tools` and
    /// `/mcp/discovery`, also under the resource's path when that differs). Every path is one
    /// resource: a client of a sibling path finds the metadata where RFC 9728 puts it, and its
    /// `resource` (the `/mcp` URL) is a prefix of the URL the client reached.
    pub fn metadata_paths(&self) -> Vec<String> {
        let mut paths = vec![METADATA_PATH.to_string()];
        let resource_path = url::Url::parse(&self.resource).map(|u| u.path().trim_end_matches('/').to_string());
        for (_, path) in crate::engine::Surface::HTTP {
            let mut suffixes = vec![path.to_string()];
            if let (Ok(base), Some(rest)) = (&resource_path, path.strip_prefix("/mcp")) {
                suffixes.push(format!("{base}{rest}"));
            }
            for suffix in suffixes {
                let suffixed = format!("{METADATA_PATH}{suffix}");
                if !paths.contains(&suffixed) {
                    paths.push(suffixed);
                }
            }
        }
        paths
    }

    /// Fetches the keys once at start, so that the first client does not wait and a wrong
    /// issuer shows in the log at once.
    pub async fn prefetch(&self) {
        self.keys.refresh(None).await;
        let n = self.keys.current().keys.len();
        if n > 0 {
            tracing::info!("OAuth: {n} signing keys of {} loaded; tokens must name {:?}", self.issuer, self.audiences);
        }
    }

    /// Validates a bearer token.
    pub async fn authenticate(&self, token: &str) -> std::result::Result<Principal, Refusal> {
        if token.is_empty() || token.len() > MAX_TOKEN {
            return Err(Refusal::Malformed);
        }
        let header = jsonwebtoken::decode_header(token).map_err(|_| Refusal::Malformed)?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(Refusal::Algorithm);
        }
        let keys = self.keys.candidates(&header).await;
        if keys.is_empty() {
            return Err(Refusal::UnknownKey);
        }
        let mut validation = Validation::new(header.alg);
        validation.leeway = LEEWAY_SECS;
        validation.validate_exp = true;
        validation.validate_nbf = true;
        validation.validate_aud = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[self.issuer.as_str()]);
        validation.set_audience(&self.audiences);
        let mut refusal = Refusal::Signature;
        for key in &keys {
            match jsonwebtoken::decode::<Map<String, Value>>(token, key, &validation) {
                Ok(data) => return Ok(principal(data.claims, token)),
                Err(e) => {
                    refusal = match e.kind() {
                        ErrorKind::InvalidSignature | ErrorKind::InvalidKeyFormat => continue,
                        ErrorKind::ExpiredSignature => Refusal::Expired,
                        ErrorKind::ImmatureSignature => Refusal::NotYetValid,
                        ErrorKind::InvalidIssuer => Refusal::Issuer,
                        ErrorKind::InvalidAudience => Refusal::Audience,
                        ErrorKind::MissingRequiredClaim(_) | ErrorKind::InvalidClaimFormat(_) => Refusal::Claims,
                        ErrorKind::InvalidAlgorithm | ErrorKind::MissingAlgorithm => Refusal::Algorithm,
                        _ => Refusal::Malformed,
                    };
                    // The signature verified (claims are checked after it): no other key will do better.
                    break;
                }
            }
        }
        Err(refusal)
    }

    /// The challenge of a 401: `Bearer resource_metadata="..."`, with the error when a token was
    /// given and refused.
    pub fn unauthorized(&self, refusal: Option<Refusal>) -> Response {
        let challenge = match refusal {
            None => format!("Bearer resource_metadata=\"{}\"", self.metadata_url),
            Some(r) => format!(
                "Bearer error=\"invalid_token\", error_description=\"{}\", resource_metadata=\"{}\"",
                r.description(),
                self.metadata_url
            ),
        };
        let text = match refusal {
            None => "this MCP server needs an OAuth access token (Authorization: Bearer ...)\n".to_string(),
            Some(r) => format!("{}\n", r.description()),
        };
        challenge_response(StatusCode::UNAUTHORIZED, &challenge, text)
    }

    /// The 403 of a call outside the token's scopes: `error="insufficient_scope"` and, in
    /// `scope`, what the token holds plus the set of `needed` it lacks least of (MCP's
    /// recommended approach: a client that asks for these keeps what it had).
    pub fn insufficient_scope(&self, principal: &Principal, tool: &str, needed: &[Vec<String>]) -> Response {
        let best = needed.iter().min_by_key(|set| set.iter().filter(|s| !principal.has(s)).count());
        let mut scopes: Vec<&str> = principal.scopes.iter().map(String::as_str).collect();
        for s in best.into_iter().flatten() {
            if !principal.has(s) {
                scopes.push(s);
            }
        }
        scopes.retain(|s| is_scope_token(s));
        let challenge = format!(
            "Bearer error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\", error_description=\"{tool} needs more scope\"",
            scopes.join(" "),
            self.metadata_url
        );
        let text = format!("the tool {tool} needs more scope than the access token has\n");
        challenge_response(StatusCode::FORBIDDEN, &challenge, text)
    }
}

/// A scope as RFC 6749 section 3.3 allows it (so that it can stand in a quoted header value).
fn is_scope_token(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b == 0x21 || (0x23..=0x5b).contains(&b) || (0x5d..=0x7e).contains(&b))
}

fn challenge_response(status: StatusCode, challenge: &str, text: String) -> Response {
    match HeaderValue::from_str(challenge) {
        Ok(v) => (status, [(header::WWW_AUTHENTICATE, v)], text).into_response(),
        Err(_) => (status, [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))], text).into_response(),
    }
}

/// An https URL, or http to a loopback host (a local authorization server in development).
pub(crate) fn checked_url(flag: &str, value: &str) -> Result<url::Url> {
    let u = url::Url::parse(value).map_err(|e| Error::Config(format!("{flag} {value:?} is not a URL: {e}")))?;
    let loopback = match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match u.scheme() {
        "https" => Ok(u),
        "http" if loopback => Ok(u),
        _ => Err(Error::Config(format!(
            "{flag} {value:?} must be an https URL (http only for localhost): tokens are checked with what it serves"
        ))),
    }
}

/// `https://host/.well-known/oauth-protected-resource/path` for `https://host/path`.
fn metadata_url(resource: &url::Url) -> String {
    let mut origin = resource.origin().ascii_serialization();
    origin.push_str(METADATA_PATH);
    origin.push_str(resource.path().trim_end_matches('/'));
    origin
}

fn principal(claims: Map<String, Value>, token: &str) -> Principal {
    let mut scopes = BTreeSet::new();
    for claim in ["scope", "scp"] {
        match claims.get(claim) {
            Some(Value::String(s)) => scopes.extend(s.split_whitespace().map(str::to_string)),
            Some(Value::Array(list)) => scopes.extend(list.iter().filter_map(Value::as_str).map(str::to_string)),
            _ => {}
        }
    }
    Principal::new(claims.get("sub").and_then(Value::as_str).map(str::to_string), scopes, token.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::caller::Caller;
    use std::sync::Arc;

    #[test]
    fn metadata_urls_insert_the_well_known_path() {
        let u = |s: &str| metadata_url(&url::Url::parse(s).unwrap());
        assert_eq!(
            u("https://mcp.example.com/mcp"),
            "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(u("https://mcp.example.com"), "https://mcp.example.com/.well-known/oauth-protected-resource");
        assert_eq!(
            u("http://127.0.0.1:8080/public/mcp"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource/public/mcp"
        );
    }

    #[test]
    fn issuers_are_https_but_for_localhost() {
        assert!(checked_url("f", "https://idp.example.com").is_ok());
        assert!(checked_url("f", "http://127.0.0.1:9000").is_ok());
        assert!(checked_url("f", "http://localhost:9000/realms/x").is_ok());
        assert!(checked_url("f", "http://idp.example.com").is_err());
        assert!(checked_url("f", "idp.example.com").is_err());
    }

    #[test]
    fn scopes_from_scope_or_scp() {
        let claims = |v: Value| principal(v.as_object().unwrap().clone(), "t").scopes;
        assert_eq!(claims(json!({"scope": "a  b"})), BTreeSet::from(["a".into(), "b".into()]));
        assert_eq!(claims(json!({"scp": ["a", 1, "c"]})), BTreeSet::from(["a".into(), "c".into()]));
        assert_eq!(claims(json!({"scp": "x"})), BTreeSet::from(["x".into()]));
        assert!(claims(json!({"scope": 5})).is_empty());
    }

    #[test]
    fn callers_and_tools() {
        let p = Arc::new(principal(json!({"scope": "read"}).as_object().unwrap().clone(), "secret-token"));
        let caller = Caller::Token(p.clone());
        assert!(caller.may_use(&[]));
        assert!(caller.may_use(&[vec!["write".into()], vec!["read".into()]]));
        assert!(!caller.may_use(&[vec!["read".into(), "write".into()]]));
        assert!(Caller::Trusted.may_use(&[vec!["admin".into()]]));
        assert!(!Caller::Anonymous.may_use(&[vec!["read".into()]]));
        assert!(!format!("{p:?}").contains("secret-token"), "the token never prints");
    }

    #[test]
    fn scope_tokens() {
        assert!(is_scope_token("pets:read"));
        assert!(is_scope_token("https://graph.example.com/.default"));
        assert!(!is_scope_token("a\"b"));
        assert!(!is_scope_token("a b"));
        assert!(!is_scope_token(""));
    }
}
