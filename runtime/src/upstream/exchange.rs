//! `--upstream-auth exchange`: each caller's validated access token traded for one issued for the
//! API (RFC 8693 token exchange) at the authorization server's token endpoint, so that the API sees
//! the real user without ever receiving a token meant for this server. The server authenticates
//! with its own client credentials (from environment variables); the exchanged token is cached per
//! (subject, target) until shortly before it expires. Failures say what the authorization server
//! said (`invalid_target`, `invalid_grant`, ...) and never show a token.

use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::sync::Mutex;

use crate::error::Error;
use crate::upstream::credentials::{Secret, TokenPostError, post_token_form, refusal};

/// The grant type of RFC 8693.
pub const GRANT_TYPE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// The token type of the subject token, and of the token asked for.
pub const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";
/// The environment variables of the server's client credentials at the authorization server.
pub const CLIENT_ID_ENV: &str = "MCPGEN_EXCHANGE_CLIENT_ID";
/// See [`CLIENT_ID_ENV`].
pub const CLIENT_SECRET_ENV: &str = "MCPGEN_EXCHANGE_CLIENT_SECRET";
/// How long before its expiry an exchanged token is exchanged again.
const EARLY: Duration = Duration::from_secs(30);
/// The lifetime assumed when the answer gives none.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);
/// What a refusal of the exchange starts with.
const REFUSED: &str = "the authorization server refused the exchange";
/// Cached tokens at most: past it, expired ones go, then the oldest.
const MAX_CACHED: usize = 10_000;

/// What the exchanged token is for: RFC 8707's `resource` (a URI) and/or RFC 8693's `audience`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Target {
    /// The API's resource indicator.
    pub resource: Option<String>,
    /// The API's logical name at the authorization server.
    pub audience: Option<String>,
    /// The scopes asked for (space-separated); none: what the server grants.
    pub scope: Option<String>,
}

/// The exchange of one server: where, for what, with which credentials, and the tokens it got.
pub struct TokenExchanger {
    token_url: String,
    target: Target,
    client_id: Secret,
    client_secret: Secret,
    cache: Mutex<HashMap<String, (Secret, Instant)>>,
}

impl fmt::Debug for TokenExchanger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenExchanger")
            .field("token_url", &self.token_url)
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

/// A token endpoint's answer, success or error (RFC 6749 §5).
#[derive(Deserialize)]
struct Answer {
    access_token: Option<String>,
    expires_in: Option<u64>,
    error: Option<String>,
    error_description: Option<String>,
}

impl TokenExchanger {
    /// An exchanger at `token_url` for `target`, with the client credentials of `env`
    /// ([`CLIENT_ID_ENV`], [`CLIENT_SECRET_ENV`]); an error names what is missing.
    pub fn from_env(token_url: &str, target: Target, env: &dyn Fn(&str) -> Option<String>) -> Result<Self, Error> {
        if target.resource.is_none() && target.audience.is_none() {
            return Err(Error::Config(
                "--upstream-auth exchange needs the API's --exchange-resource URI or --exchange-audience: the \
                 exchanged token must be for the API"
                    .into(),
            ));
        }
        let url = reqwest::Url::parse(token_url)
            .map_err(|e| Error::Config(format!("--exchange-token-url {token_url:?} is not a URL: {e}")))?;
        if url.scheme() != "https"
            && !url.host_str().is_some_and(|h| h == "127.0.0.1" || h == "localhost" || h == "[::1]")
        {
            return Err(Error::Config(format!(
                "--exchange-token-url {token_url:?} must be https (plain http only on this machine): the request carries \
                 the caller's token and the server's secret"
            )));
        }
        let read = |name: &str| {
            env(name).filter(|v| !v.is_empty()).ok_or_else(|| {
                Error::Config(format!(
                    "--upstream-auth exchange needs {name} (the server's client at the authorization server)"
                ))
            })
        };
        Ok(TokenExchanger {
            token_url: token_url.to_string(),
            target,
            client_id: Secret::new(read(CLIENT_ID_ENV)?),
            client_secret: Secret::new(read(CLIENT_SECRET_ENV)?),
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The `Authorization` value for the API on behalf of the caller whose validated access token
    /// is `token` (its `sub` claim `subject`): from the cache, or exchanged now.
    pub async fn token_for(&self, http: &reqwest::Client, subject: Option<&str>, token: &str) -> Result<Secret, Error> {
        let key = cache_key(subject, token);
        if let Some((token, until)) = self.cache.lock().await.get(&key)
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let (token, lifetime) = self.exchange(http, token).await?;
        let until = Instant::now() + lifetime.saturating_sub(EARLY).max(Duration::from_secs(1));
        let mut cache = self.cache.lock().await;
        if cache.len() >= MAX_CACHED {
            let now = Instant::now();
            cache.retain(|_, (_, until)| *until > now);
            if cache.len() >= MAX_CACHED
                && let Some(oldest) = cache.iter().min_by_key(|(_, (_, until))| *until).map(|(k, _)| k.clone())
            {
                cache.remove(&oldest);
            }
        }
        cache.insert(key, (token.clone(), until));
        Ok(token)
    }

    /// Forgets the exchanged token of the caller of `subject` and `token` (the API refused it).
    pub async fn invalidate(&self, subject: Option<&str>, token: &str) {
        self.cache.lock().await.remove(&cache_key(subject, token));
    }

    /// One exchange at the token endpoint.
    async fn exchange(&self, http: &reqwest::Client, subject_token: &str) -> Result<(Secret, Duration), Error> {
        let fail = Error::Credentials;
        let body = form(subject_token, &self.target);
        let (status, bytes) = post_token_form(http, &self.token_url, &self.client_id, Some(&self.client_secret), body)
            .await
            .map_err(|e| {
                fail(match e {
                    TokenPostError::Send(why) => format!("the token exchange at {} failed: {why}", self.token_url),
                    TokenPostError::Read(why) => format!("the token exchange's answer: {why}"),
                })
            })?;
        let answer: Option<Answer> = serde_json::from_slice(&bytes).ok();
        match answer {
            Some(Answer { access_token: Some(token), expires_in, .. }) if status.is_success() => {
                let lifetime = expires_in.map_or(DEFAULT_LIFETIME, Duration::from_secs);
                Ok((Secret::new(format!("Bearer {token}")), lifetime))
            }
            Some(Answer { error: Some(error), error_description, .. }) => {
                Err(fail(refusal(REFUSED, &error, error_description.as_deref())))
            }
            _ => Err(fail(format!(
                "the authorization server answered the token exchange with HTTP {status} and no token"
            ))),
        }
    }
}

/// The exchange request's form (RFC 8693 §2.1).
fn form(subject_token: &str, target: &Target) -> String {
    let mut form = url::form_urlencoded::Serializer::new(String::new());
    form.append_pair("grant_type", GRANT_TYPE)
        .append_pair("subject_token", subject_token)
        .append_pair("subject_token_type", ACCESS_TOKEN_TYPE)
        .append_pair("requested_token_type", ACCESS_TOKEN_TYPE);
    if let Some(r) = &target.resource {
        form.append_pair("resource", r);
    }
    if let Some(a) = &target.audience {
        form.append_pair("audience", a);
    }
    if let Some(s) = &target.scope {
        form.append_pair("scope", s);
    }
    form.finish()
}

/// Tokens are cached per subject; a token without a subject by its digest.
fn cache_key(subject: Option<&str>, token: &str) -> String {
    match subject {
        Some(sub) => format!("sub:{sub}"),
        None => {
            let digest = ring::digest::digest(&ring::digest::SHA256, token.as_bytes());
            format!("token:{}", digest.as_ref().iter().map(|b| format!("{b:02x}")).collect::<String>())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let vars: HashMap<String, String> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| vars.get(k).cloned()
    }

    #[test]
    fn the_form_is_rfc_8693() {
        let target = Target {
            resource: Some("https://api.example.com/".into()),
            audience: None,
            scope: Some("read write".into()),
        };
        let body = form("tok.en", &target);
        assert_eq!(
            body,
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=tok.en\
             &subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token\
             &requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token\
             &resource=https%3A%2F%2Fapi.example.com%2F&scope=read+write"
        );
    }

    #[test]
    fn a_refusal_names_the_error_without_a_token() {
        assert_eq!(
            refusal(REFUSED, "invalid_target", Some("<b>unknown</b> resource")),
            "the authorization server refused the exchange: invalid_target (unknown resource)"
        );
        assert_eq!(
            refusal(REFUSED, "invalid_grant\u{0}x", None),
            "the authorization server refused the exchange: invalid_grantx"
        );
    }

    #[test]
    fn credentials_and_a_target_are_required() {
        let target = Target { audience: Some("api".into()), ..Target::default() };
        let err = TokenExchanger::from_env("https://as.example/token", target.clone(), &env(&[])).unwrap_err();
        assert!(err.to_string().contains(CLIENT_ID_ENV), "{err}");
        let both = env(&[(CLIENT_ID_ENV, "id"), (CLIENT_SECRET_ENV, "s3cret")]);
        let err = TokenExchanger::from_env("https://as.example/token", Target::default(), &both).unwrap_err();
        assert!(err.to_string().contains("--exchange-resource"), "{err}");
        let err = TokenExchanger::from_env("http://as.example/token", target.clone(), &both).unwrap_err();
        assert!(err.to_string().contains("must be https"), "{err}");
        let ok = TokenExchanger::from_env("http://127.0.0.1:9/token", target, &both).unwrap();
        assert!(!format!("{ok:?}").contains("s3cret"));
    }
}
