//! Credentials toward the upstream API, read from environment variables at start-up. Secrets are
//! never logged: [`Secret`] prints as `***`.

use std::collections::BTreeMap;
use std::fmt;
use std::time::{Duration, Instant};

use base64::Engine as _;
use tokio::sync::Mutex;

use crate::config::{ApiKeyLocation, SecurityScheme};
use crate::error::Error;

/// A credential: an env var's value, or a header value made from one. `Debug` prints `***`, so
/// it never reaches a log.
#[derive(Clone)]
pub struct Secret(String);

impl Secret {
    /// A secret value (read from the environment, or received from an authorization server).
    pub(crate) fn new(value: String) -> Secret {
        Secret(value)
    }

    /// The value itself, to put in a request (and nowhere else).
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// What a scheme adds to a request.
#[derive(Debug)]
pub enum Credential {
    /// A request header (API keys in a header, bearer and basic credentials, external tokens).
    Header {
        /// The header's name (`Authorization` for all but API keys).
        name: String,
        /// The whole header value (`Bearer ...`, `Basic ...`, or an API key as it is).
        value: Secret,
    },
    /// A query parameter (an API key).
    Query {
        /// The parameter's name.
        name: String,
        /// The key, from its env var (URL-encoded when added to the query).
        value: Secret,
    },
    /// A cookie (an API key).
    Cookie {
        /// The cookie's name.
        name: String,
        /// The key, from its env var (percent-encoded when added to the `Cookie` header).
        value: Secret,
    },
    /// An OAuth2 client-credentials client: its access token goes in `Authorization`.
    OAuth2(OAuth2Client),
}

/// Credentials per scheme name; a scheme whose env vars are unset is absent.
#[derive(Debug, Default)]
pub struct Credentials {
    by_scheme: BTreeMap<String, Credential>,
    /// Env vars a scheme needs, in words, for "set X" hints in messages.
    pub hints: BTreeMap<String, String>,
}

fn env(name: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Option<Secret> {
    lookup(name).filter(|v| !v.is_empty()).map(Secret)
}

impl Credentials {
    /// Reads the credentials of every scheme (through `lookup`, normally `std::env::var`).
    pub fn from_env(schemes: &BTreeMap<String, SecurityScheme>, lookup: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut creds = Credentials::default();
        for (name, scheme) in schemes {
            let cred = match scheme {
                SecurityScheme::ApiKey { location, name: key, env: var } => {
                    env(var, lookup).map(|value| match location {
                        ApiKeyLocation::Header => Credential::Header { name: key.clone(), value },
                        ApiKeyLocation::Query => Credential::Query { name: key.clone(), value },
                        ApiKeyLocation::Cookie => Credential::Cookie { name: key.clone(), value },
                    })
                }
                SecurityScheme::Bearer { env: var }
                | SecurityScheme::External { env: var, .. }
                | SecurityScheme::OAuth2AuthorizationCode { token_env: var, .. } => {
                    env(var, lookup).map(|t| Credential::Header {
                        name: "Authorization".into(),
                        value: Secret(if matches!(scheme, SecurityScheme::External { .. }) && t.0.contains(' ') {
                            t.0
                        } else {
                            format!("Bearer {}", t.0)
                        }),
                    })
                }
                SecurityScheme::Basic { username_env, password_env } => env(username_env, lookup).map(|user| {
                    let pass = env(password_env, lookup).map(|p| p.0).unwrap_or_default();
                    let token = base64::engine::general_purpose::STANDARD.encode(format!("{}:{pass}", user.0));
                    Credential::Header { name: "Authorization".into(), value: Secret(format!("Basic {token}")) }
                }),
                SecurityScheme::OAuth2ClientCredentials {
                    token_url,
                    scopes,
                    client_id_env,
                    client_secret_env,
                    token_env,
                } => {
                    let ready = token_env.as_deref().and_then(|t| env(t, lookup));
                    match (ready, env(client_id_env, lookup), env(client_secret_env, lookup)) {
                        (Some(token), _, _) => Some(Credential::Header {
                            name: "Authorization".into(),
                            value: Secret(format!("Bearer {}", token.0)),
                        }),
                        (None, Some(id), Some(secret)) => Some(Credential::OAuth2(OAuth2Client {
                            token_url: token_url.clone(),
                            scopes: scopes.join(" "),
                            client_id: id,
                            client_secret: secret,
                            cached: Mutex::new(None),
                        })),
                        _ => None,
                    }
                }
            };
            creds.hints.insert(name.clone(), scheme.env_hint());
            if let Some(c) = cred {
                creds.by_scheme.insert(name.clone(), c);
            }
        }
        creds
    }

    /// Schemes whose credentials are not set, with how many of `tools` (their security
    /// alternatives) go without credentials for want of it: for one warning per scheme at start.
    pub fn missing<'a>(&self, tools: impl Iterator<Item = &'a [Vec<String>]>) -> Vec<(String, String, usize)> {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for alternatives in tools {
            if alternatives.is_empty() || alternatives.iter().any(Vec::is_empty) || self.choose(alternatives).is_some()
            {
                continue;
            }
            let mut named: Vec<&str> = alternatives.iter().flatten().map(String::as_str).collect();
            named.sort_unstable();
            named.dedup();
            for s in named.into_iter().filter(|s| self.get(s).is_none()) {
                *counts.entry(s).or_default() += 1;
            }
        }
        counts.into_iter().filter_map(|(s, n)| self.hints.get(s).map(|h| (s.to_string(), h.clone(), n))).collect()
    }

    /// The credential of scheme `scheme`; `None` when no such scheme or its env vars are unset.
    pub fn get(&self, scheme: &str) -> Option<&Credential> {
        self.by_scheme.get(scheme)
    }

    /// The first alternative whose schemes all have credentials; `None` when none does (the
    /// request then goes without, and the upstream decides).
    pub fn choose<'a>(&'a self, alternatives: &[Vec<String>]) -> Option<Vec<&'a Credential>> {
        alternatives.iter().find_map(|alt| alt.iter().map(|s| self.get(s)).collect::<Option<Vec<_>>>())
    }

    /// "set X or Y" for the alternatives of an operation.
    pub fn hint(&self, alternatives: &[Vec<String>]) -> Option<String> {
        let options: Vec<String> = alternatives
            .iter()
            .filter(|a| !a.is_empty())
            .map(|alt| alt.iter().filter_map(|s| self.hints.get(s).cloned()).collect::<Vec<_>>().join(" and "))
            .filter(|s| !s.is_empty())
            .collect();
        (!options.is_empty()).then(|| format!("set the environment variable {}", options.join(", or ")))
    }
}

/// OAuth2 client-credentials: a token fetched on first use, cached until shortly before it
/// expires, fetched again after.
pub struct OAuth2Client {
    token_url: String,
    scopes: String,
    client_id: Secret,
    client_secret: Secret,
    cached: Mutex<Option<(Secret, Instant)>>,
}

impl fmt::Debug for OAuth2Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth2Client").field("token_url", &self.token_url).finish_non_exhaustive()
    }
}

impl OAuth2Client {
    /// A valid access token, from the cache or the token endpoint.
    pub async fn token(&self, http: &reqwest::Client) -> Result<Secret, Error> {
        let fail = Error::Credentials;
        let mut cached = self.cached.lock().await;
        if let Some((token, until)) = cached.as_ref()
            && Instant::now() < *until
        {
            return Ok(token.clone());
        }
        let mut form = vec![("grant_type", "client_credentials")];
        if !self.scopes.is_empty() {
            form.push(("scope", self.scopes.as_str()));
        }
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(form).finish();
        let (status, bytes) = post_token_form(http, &self.token_url, &self.client_id, Some(&self.client_secret), body)
            .await
            .map_err(|e| {
                fail(match e {
                    TokenPostError::Send(why) => format!("OAuth2 token request to {} failed: {why}", self.token_url),
                    TokenPostError::Read(why) => format!("OAuth2 token response: {why}"),
                })
            })?;
        if !status.is_success() {
            return Err(fail(format!("OAuth2 token endpoint {} answered HTTP {status}", self.token_url)));
        }
        let json: serde_json::Value =
            serde_json::from_slice(&bytes).map_err(|_| fail("OAuth2 token endpoint did not answer JSON".into()))?;
        let token = json
            .get("access_token")
            .and_then(|t| t.as_str())
            .ok_or_else(|| fail("OAuth2 token response has no access_token".into()))?
            .to_string();
        let lifetime = json.get("expires_in").and_then(|e| e.as_u64()).unwrap_or(3600);
        // Refresh a little early so that a token never expires in flight.
        let until = Instant::now() + Duration::from_secs(lifetime.saturating_sub(30).max(1));
        let secret = Secret(format!("Bearer {token}"));
        *cached = Some((secret.clone(), until));
        Ok(secret)
    }

    /// Forgets the cached token (after the upstream refused it).
    pub async fn invalidate(&self) {
        *self.cached.lock().await = None;
    }
}

/// Why a POST to a token endpoint got no answer to read.
pub(crate) enum TokenPostError {
    /// The request failed (described without the request's secrets).
    Send(String),
    /// The answer's body could not be read.
    Read(String),
}

/// A form POSTed to an OAuth 2.0 token endpoint: the answer's status and body (client
/// credentials, token exchange, authorization code and refresh). A confidential client
/// authenticates with HTTP Basic; a public one (no secret) names itself in the form (RFC 6749
/// §2.3.1, §3.2.1).
pub(crate) async fn post_token_form(
    http: &reqwest::Client,
    token_url: &str,
    client_id: &Secret,
    client_secret: Option<&Secret>,
    mut form: String,
) -> Result<(reqwest::StatusCode, bytes::Bytes), TokenPostError> {
    let mut req = http.post(token_url);
    match client_secret {
        Some(secret) => req = req.basic_auth(client_id.expose(), Some(secret.expose())),
        None => {
            let mut extra = url::form_urlencoded::Serializer::new(String::new());
            extra.append_pair("client_id", client_id.expose());
            if !form.is_empty() {
                form.push('&');
            }
            form.push_str(&extra.finish());
        }
    }
    let resp = req
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Accept", "application/json")
        .body(form)
        .send()
        .await
        .map_err(|e| TokenPostError::Send(crate::upstream::describe_error(&e)))?;
    let status = resp.status();
    let bytes = resp.bytes().await.map_err(|e| TokenPostError::Read(e.to_string()))?;
    Ok((status, bytes))
}

/// An authorization server's error code as text fit to show: printable ASCII, at most 64
/// characters (it comes from the network).
pub(crate) fn error_code(error: &str) -> String {
    error.chars().filter(|c| c.is_ascii_graphic()).take(64).collect()
}

/// What an authorization server refused, as the model reads it: `{refused}: CODE`, and its
/// description (written for people) cut and plain. Never a token: none is sent back to it.
pub(crate) fn refusal(refused: &str, error: &str, description: Option<&str>) -> String {
    let mut text = format!("{refused}: {}", error_code(error));
    if let Some(d) = description.map(|d| crate::text::cap_words(&crate::text::plain(d), 200)).filter(|d| !d.is_empty())
    {
        text.push_str(&format!(" ({d})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_env_and_chooses_alternatives() {
        let schemes: BTreeMap<String, SecurityScheme> = serde_json::from_value(serde_json::json!({
            "key": {"type": "api_key", "location": "query", "name": "api_key", "env": "T_KEY"},
            "bearer": {"type": "bearer", "env": "T_TOKEN"},
            "basic": {"type": "basic", "username_env": "T_USER", "password_env": "T_PASS"}
        }))
        .unwrap();
        let vars: BTreeMap<&str, &str> = [("T_TOKEN", "tok"), ("T_USER", "u"), ("T_PASS", "p")].into();
        let creds = Credentials::from_env(&schemes, &|n| vars.get(n).map(|v| v.to_string()));
        assert!(creds.get("key").is_none());
        let alts = vec![vec!["key".to_string()], vec!["bearer".to_string(), "basic".to_string()]];
        let chosen = creds.choose(&alts).unwrap();
        assert_eq!(chosen.len(), 2);
        let Credential::Header { value, .. } = chosen[1] else { panic!() };
        assert_eq!(value.expose(), "Basic dTpw");
        assert_eq!(format!("{value:?}"), "***");
        assert_eq!(creds.hint(&alts[..1]).unwrap(), "set the environment variable T_KEY");
    }
}
