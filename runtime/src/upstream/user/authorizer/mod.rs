//! One API's side of `--upstream-auth user`: each caller's own tokens at the API, and the
//! authorization-code flow (RFC 6749 §4.1 with PKCE S256, RFC 7636) that gets them.
//!
//! - A caller with no token gets the URL of the API's consent page ([`Authorization::Needed`]);
//!   the flow's `state` (256 random bits) is stored for ten minutes with the caller's subject,
//!   the API, the tool asked for and the PKCE verifier, and is taken once by the callback
//!   ([`UserAuthorizer::complete`]): an unknown, expired or replayed `state` finds nothing.
//! - Tokens are stored sealed (store/sealed.rs) under the caller's subject and the API, refreshed
//!   shortly before they expire; a refresh the authorization server refuses (revoked, expired)
//!   forgets them, so the caller is sent to the consent page again instead of into an error loop.
//! - No token, code, verifier or refresh token is ever logged or put in an error.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::config::SecurityScheme;
use crate::error::Error;
use crate::upstream::credentials::{Secret, TokenPostError, error_code, post_token_form, refusal};
use crate::upstream::user::store::{Sealed, StoreError, begun_key, state_key, token_key};

/// How long a user has to complete an authorization.
pub const STATE_TTL: Duration = Duration::from_secs(600);
/// How long a begun authorization's URL is given again to the same user's calls of the same tool
/// (rather than a new one each call), leaving them at least as long to complete it.
const REUSE_FOR: Duration = Duration::from_secs(300);
/// How long before its expiry a token is refreshed.
const EARLY: Duration = Duration::from_secs(30);
/// The path of the callback route, under the server's origin.
pub const CALLBACK_PATH: &str = "/oauth/callback";

/// What the users of one server share: where tokens live, and the callback URL the
/// authorization servers send users back to (known once the HTTP server is bound).
pub struct UserAuth {
    store: Arc<Sealed>,
    redirect_uri: OnceLock<String>,
    /// One refresh at a time per user and API in this process (a rotating authorization server
    /// refuses the second use of a refresh token).
    refreshing: std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl fmt::Debug for UserAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserAuth").field("redirect_uri", &self.redirect_uri.get()).finish_non_exhaustive()
    }
}

impl UserAuth {
    /// Users' tokens kept in `store`.
    pub fn new(store: Arc<Sealed>) -> UserAuth {
        UserAuth { store, redirect_uri: OnceLock::new(), refreshing: Default::default() }
    }

    /// Sets the callback URL (`https://mcp.example.com/oauth/callback`); the first one holds.
    pub fn set_redirect_uri(&self, uri: String) {
        let _ = self.redirect_uri.set(uri);
    }

    /// The store of tokens and pending authorizations.
    pub fn store(&self) -> &Arc<Sealed> {
        &self.store
    }

    /// Takes the pending authorization of `state` (once: a second take finds nothing).
    pub async fn take_pending(&self, state: &str) -> Result<Option<Pending>, Error> {
        if state.is_empty() || state.len() > 128 {
            return Ok(None);
        }
        let Some(bytes) = self.store.take(&state_key(state)).await.map_err(store_error)? else { return Ok(None) };
        Ok(serde_json::from_slice(&bytes).ok())
    }
}

/// An authorization begun and not yet completed, stored under its `state`.
#[derive(Debug, Serialize, Deserialize)]
pub struct Pending {
    /// The caller's subject (`sub` of their access token for this server).
    pub subject: String,
    /// The API (its key in a config of several; empty for a config of one).
    pub api: String,
    /// The tool whose call asked for it.
    pub tool: String,
    /// The PKCE code verifier.
    verifier: String,
    /// The redirect URI sent (the token request must repeat it).
    redirect_uri: String,
}

/// An authorization begun for a user and a tool: what their next calls are given again.
#[derive(Serialize, Deserialize)]
struct Begun {
    state: String,
    tool: String,
    url: String,
    id: String,
}

/// A user's tokens at the API, as stored (sealed).
#[derive(Serialize, Deserialize)]
struct Tokens {
    access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    refresh_token: Option<String>,
    /// Unix seconds; `None`: the server did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    expires_at: Option<u64>,
}

impl Tokens {
    /// Not about to expire (an unknown expiry counts as fresh: the API's 401 says otherwise).
    fn fresh(&self) -> bool {
        self.expires_at.is_none_or(|at| now() + EARLY.as_secs() < at)
    }
}

/// What a caller's call carries, or what they must do first.
#[derive(Debug)]
pub enum Authorization {
    /// The `Authorization` header value (`Bearer ...`).
    Token(Secret),
    /// The caller has not authorized the API (or no longer has): send them here.
    Needed(Prompt),
}

/// Where to send a user to authorize, and what to tell them.
#[derive(Debug, Clone)]
pub struct Prompt {
    /// The API's authorization URL with this flow's parameters.
    pub url: String,
    /// The elicitation's id (the flow's id, not its `state`).
    pub id: String,
    /// For the user: which API, and why.
    pub message: String,
}

/// The authorization-code flow of one API for its users.
pub struct UserAuthorizer {
    api: String,
    title: String,
    authorization_url: url::Url,
    token_url: String,
    scopes: String,
    resource: Option<String>,
    client_id: Secret,
    client_secret: Option<Secret>,
    users: Arc<UserAuth>,
}

impl fmt::Debug for UserAuthorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserAuthorizer")
            .field("api", &self.api)
            .field("authorization_url", &self.authorization_url.as_str())
            .field("token_url", &self.token_url)
            .finish_non_exhaustive()
    }
}

/// A token endpoint's answer (RFC 6749 §5.1, §5.2).
#[derive(Deserialize)]
struct Answer {
    access_token: Option<String>,
    refresh_token: Option<String>,
    expires_in: Option<u64>,
    error: Option<String>,
    error_description: Option<String>,
}

/// Why a token request failed.
enum Refusal {
    /// The authorization server refused the grant (`invalid_grant`: a revoked or expired refresh
    /// token, a used code): start again.
    Grant(String),
    /// Anything else (unreachable, a malformed answer, a refused client): an error.
    Other(String),
}

impl UserAuthorizer {
    /// The flow of `scheme` (an `oauth2_authorization_code` scheme) for the API `api` (empty for
    /// a config of one) called `title`, its client from the scheme's env vars through `env`.
    pub fn new(
        api: &str,
        title: &str,
        scheme: (&str, &SecurityScheme),
        resource: Option<String>,
        users: Arc<UserAuth>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<UserAuthorizer, Error> {
        let (name, scheme) = scheme;
        let SecurityScheme::OAuth2AuthorizationCode {
            authorization_url,
            token_url,
            scopes,
            client_id_env,
            client_secret_env,
            ..
        } = scheme
        else {
            return Err(Error::Config(format!(
                "--upstream-auth user needs an OAuth2 authorization-code scheme; `{name}` is {}",
                scheme.describe()
            )));
        };
        let authorization_url = checked_endpoint("authorization URL", name, authorization_url)?;
        checked_endpoint("token URL", name, token_url)?;
        let client_id = env(client_id_env).filter(|v| !v.is_empty()).ok_or_else(|| {
            Error::Config(format!(
                "--upstream-auth user needs {client_id_env}: the client ID of this server's app at the API (scheme `{name}`)"
            ))
        })?;
        Ok(UserAuthorizer {
            api: api.to_string(),
            title: title.to_string(),
            authorization_url,
            token_url: token_url.clone(),
            scopes: scopes.join(" "),
            resource,
            client_id: Secret::new(client_id),
            client_secret: env(client_secret_env).filter(|v| !v.is_empty()).map(Secret::new),
            users,
        })
    }

    /// The API's key in the store and in pending authorizations.
    pub fn api(&self) -> &str {
        &self.api
    }

    /// What `subject`'s call of `tool` carries: their token (refreshed if it is about to
    /// expire), or where they must authorize first.
    pub async fn authorization(
        &self,
        http: &reqwest::Client,
        subject: &str,
        tool: &str,
    ) -> Result<Authorization, Error> {
        let Some(tokens) = self.stored(&token_key(subject, &self.api)).await? else {
            return self.begin(subject, tool).await.map(Authorization::Needed);
        };
        if tokens.fresh() {
            return Ok(Authorization::Token(bearer(&tokens.access_token)));
        }
        self.refresh(http, subject, tool, tokens).await
    }

    /// After the API refused `subject`'s token (HTTP 401): a refreshed one, or where to authorize
    /// again.
    pub async fn after_refusal(
        &self,
        http: &reqwest::Client,
        subject: &str,
        tool: &str,
    ) -> Result<Authorization, Error> {
        match self.stored(&token_key(subject, &self.api)).await? {
            Some(tokens) => self.refresh(http, subject, tool, tokens).await,
            None => self.begin(subject, tool).await.map(Authorization::Needed),
        }
    }

    /// Forgets `subject`'s tokens at this API.
    pub async fn forget(&self, subject: &str) -> Result<(), Error> {
        self.users.store.take(&token_key(subject, &self.api)).await.map_err(store_error)?;
        Ok(())
    }

    /// Refreshes `tokens`; without a refresh token, or when the authorization server refuses
    /// it, they are forgotten and the user is sent to authorize again.
    async fn refresh(
        &self,
        http: &reqwest::Client,
        subject: &str,
        tool: &str,
        tokens: Tokens,
    ) -> Result<Authorization, Error> {
        let key = token_key(subject, &self.api);
        let lock = {
            let mut all = self.users.refreshing.lock().unwrap_or_else(|e| e.into_inner());
            // Locks nobody holds any more go.
            all.retain(|_, l| Arc::strong_count(l) > 1);
            all.entry(key.clone()).or_default().clone()
        };
        let _one_at_a_time = lock.lock().await;
        // Another call (here, or on another replica) may have refreshed them meanwhile.
        if let Some(newer) = self.newer_than(&key, &tokens).await? {
            return Ok(Authorization::Token(bearer(&newer.access_token)));
        }
        let Some(refresh_token) = tokens.refresh_token else {
            self.forget(subject).await?;
            return self.begin(subject, tool).await.map(Authorization::Needed);
        };
        let form = self.form(&[("grant_type", "refresh_token"), ("refresh_token", &refresh_token)]);
        match self.token_request(http, form).await {
            Ok(answer) => {
                // A server that does not rotate refresh tokens answers none: keep the old one.
                let tokens = self.keep(subject, answer, Some(refresh_token)).await?;
                Ok(Authorization::Token(bearer(&tokens.access_token)))
            }
            Err(Refusal::Grant(why)) => {
                // Refused because another replica used (and rotated) it first: take theirs.
                if let Some(newer) =
                    self.newer_than(&key, &Tokens { refresh_token: Some(refresh_token), ..tokens }).await?
                {
                    return Ok(Authorization::Token(bearer(&newer.access_token)));
                }
                tracing::info!(api = %self.api, "a user's refresh token was refused ({why}): they are asked to authorize again");
                self.forget(subject).await?;
                self.begin(subject, tool).await.map(Authorization::Needed)
            }
            Err(Refusal::Other(why)) => Err(Error::Credentials(why)),
        }
    }

    /// The tokens stored under `key`, if any (a record that does not read is none).
    async fn stored(&self, key: &str) -> Result<Option<Tokens>, Error> {
        let bytes = self.users.store.get(key).await.map_err(store_error)?;
        Ok(bytes.and_then(|b| serde_json::from_slice::<Tokens>(&b).ok()))
    }

    /// The stored tokens under `key` when they are fresh and not `old` (someone refreshed them).
    async fn newer_than(&self, key: &str, old: &Tokens) -> Result<Option<Tokens>, Error> {
        Ok(self.stored(key).await?.filter(|t| t.fresh() && t.access_token != old.access_token))
    }

    /// Begins an authorization for `subject`'s call of `tool`: a pending record under a new
    /// `state`, and the URL of the consent page.
    async fn begin(&self, subject: &str, tool: &str) -> Result<Prompt, Error> {
        let Some(redirect_uri) = self.users.redirect_uri.get().cloned() else {
            return Err(Error::Config("--upstream-auth user: the callback URL is not known yet".into()));
        };
        let message = format!(
            "`{tool}` acts on {} as you. Authorize it once at {}'s page; your calls then carry your own access.",
            self.title, self.title
        );
        // The same link again while it is young and unused: repeated calls do not pile up states.
        let begun_at = begun_key(subject, &self.api);
        if let Some(bytes) = self.users.store.get(&begun_at).await.map_err(store_error)?
            && let Ok(begun) = serde_json::from_slice::<Begun>(&bytes)
            && begun.tool == tool
            && self.users.store.get(&state_key(&begun.state)).await.map_err(store_error)?.is_some()
        {
            return Ok(Prompt { url: begun.url, id: begun.id, message });
        }
        let state = random_token()?;
        let verifier = random_token()?;
        let pending = Pending {
            subject: subject.to_string(),
            api: self.api.clone(),
            tool: tool.to_string(),
            verifier: verifier.clone(),
            redirect_uri: redirect_uri.clone(),
        };
        let bytes = serde_json::to_vec(&pending).map_err(|e| Error::Config(e.to_string()))?;
        self.users.store.put(&state_key(&state), &bytes, Some(STATE_TTL)).await.map_err(store_error)?;
        let challenge = URL_SAFE_NO_PAD.encode(ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes()));
        let mut url = self.authorization_url.clone();
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", self.client_id.expose())
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge)
                .append_pair("code_challenge_method", "S256");
            if !self.scopes.is_empty() {
                q.append_pair("scope", &self.scopes);
            }
            if let Some(r) = &self.resource {
                q.append_pair("resource", r);
            }
        }
        // The elicitation's id names the flow without giving its `state` away.
        let id = URL_SAFE_NO_PAD.encode(&ring::digest::digest(&ring::digest::SHA256, state.as_bytes()).as_ref()[..12]);
        let begun = Begun { state, tool: tool.to_string(), url: url.to_string(), id: id.clone() };
        let bytes = serde_json::to_vec(&begun).map_err(|e| Error::Config(e.to_string()))?;
        self.users.store.put(&begun_at, &bytes, Some(REUSE_FOR)).await.map_err(store_error)?;
        Ok(Prompt { url: begun.url, id, message })
    }

    /// Completes `pending` with the callback's `code`: the tokens are fetched and stored for its
    /// subject.
    pub async fn complete(&self, http: &reqwest::Client, pending: &Pending, code: &str) -> Result<(), Error> {
        let form = self.form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", &pending.redirect_uri),
            ("code_verifier", &pending.verifier),
        ]);
        let answer = self.token_request(http, form).await.map_err(|r| match r {
            Refusal::Grant(why) | Refusal::Other(why) => Error::Credentials(why),
        })?;
        self.keep(&pending.subject, answer, None).await?;
        self.users.store.take(&begun_key(&pending.subject, &self.api)).await.map_err(store_error)?;
        Ok(())
    }

    /// A token request's form: `pairs`, and the API's resource indicator.
    fn form(&self, pairs: &[(&str, &str)]) -> String {
        let mut form = url::form_urlencoded::Serializer::new(String::new());
        form.extend_pairs(pairs);
        if let Some(r) = &self.resource {
            form.append_pair("resource", r);
        }
        form.finish()
    }

    /// Stores an answer's tokens for `subject` (keeping `old_refresh` when it brings none).
    async fn keep(&self, subject: &str, answer: Answer, old_refresh: Option<String>) -> Result<Tokens, Error> {
        let Some(access_token) = answer.access_token else {
            return Err(Error::Credentials(format!("{}'s token endpoint answered no access token", self.title)));
        };
        let tokens = Tokens {
            access_token,
            refresh_token: answer.refresh_token.or(old_refresh),
            expires_at: answer.expires_in.map(|s| now() + s),
        };
        let bytes = serde_json::to_vec(&tokens).map_err(|e| Error::Config(e.to_string()))?;
        self.users.store.put(&token_key(subject, &self.api), &bytes, None).await.map_err(store_error)?;
        Ok(tokens)
    }

    /// One POST to the token endpoint: the answer with an access token, or why not (never a
    /// token).
    async fn token_request(&self, http: &reqwest::Client, form: String) -> Result<Answer, Refusal> {
        let sent = post_token_form(http, &self.token_url, &self.client_id, self.client_secret.as_ref(), form).await;
        let (status, bytes) = sent.map_err(|e| {
            Refusal::Other(match e {
                TokenPostError::Send(why) => format!("{}'s token endpoint could not be reached: {why}", self.title),
                TokenPostError::Read(why) => format!("{}'s token endpoint's answer: {why}", self.title),
            })
        })?;
        let answer: Option<Answer> = serde_json::from_slice(&bytes).ok();
        match answer {
            Some(a) if status.is_success() && a.access_token.is_some() => Ok(a),
            Some(Answer { error: Some(error), error_description, .. }) => {
                let refused = format!("{}'s authorization server refused", self.title);
                let why = refusal(&refused, &error, error_description.as_deref());
                Err(if error_code(&error) == "invalid_grant" { Refusal::Grant(why) } else { Refusal::Other(why) })
            }
            _ => Err(Refusal::Other(format!("{}'s token endpoint answered HTTP {status} and no token", self.title))),
        }
    }
}

/// The model's text when `prompt`'s user must authorize first: the URL, and what to do after.
pub fn needed_text(prompt: &Prompt, tool: &str) -> String {
    format!(
        "{} Open this URL to authorize: {} — then call `{tool}` again. (The link is yours alone and works once, for ten minutes.)",
        prompt.message, prompt.url
    )
}

fn bearer(token: &str) -> Secret {
    Secret::new(format!("Bearer {token}"))
}

fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// 256 random bits, base64url: a `state` or a PKCE verifier (43 characters, RFC 7636 §4.1).
fn random_token() -> Result<String, Error> {
    let mut bytes = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut bytes)
        .map_err(|_| Error::Config("no randomness for an authorization".into()))?;
    Ok(URL_SAFE_NO_PAD.encode(bytes))
}

/// An endpoint of the scheme: absolute, https (plain http only on this machine).
fn checked_endpoint(what: &str, scheme: &str, value: &str) -> Result<url::Url, Error> {
    let url = url::Url::parse(value)
        .map_err(|e| Error::Config(format!("the {what} of scheme `{scheme}` ({value:?}) is not a URL: {e}")))?;
    let loopback = url.host_str().is_some_and(|h| h == "127.0.0.1" || h == "localhost" || h == "[::1]");
    if url.scheme() != "https" && !(url.scheme() == "http" && loopback) {
        return Err(Error::Config(format!(
            "the {what} of scheme `{scheme}` ({value:?}) must be https (plain http only on this machine)"
        )));
    }
    Ok(url)
}

fn store_error(e: StoreError) -> Error {
    Error::Credentials(format!("the token store: {e}"))
}

#[cfg(test)]
mod tests;
