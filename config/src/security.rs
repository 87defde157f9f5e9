//! How credentials reach the upstream, as the runtime config describes them: security schemes
//! with the names of the env vars that hold their secrets (never the secrets), and the
//! requirements that combine them. Part of the runtime config's model (`model.rs` re-exports it);
//! depends on nothing but serde.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a credential reaches the upstream. Secrets are never stored: only the names of the
/// environment variables that hold them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum SecurityScheme {
    /// `api_key`: a key sent in a header, a query parameter or a cookie.
    ApiKey {
        /// Where the key goes.
        location: ApiKeyLocation,
        /// The header, query parameter or cookie the key is sent as, spelt as the API expects it.
        name: String,
        /// The env var that holds the key.
        env: String,
    },
    /// `bearer`: `Authorization: Bearer <token>`.
    Bearer {
        /// The env var that holds the token (without `Bearer `).
        env: String,
    },
    /// `basic`: HTTP basic authentication (`Authorization: Basic ...`).
    Basic {
        /// The env var that holds the user name; the scheme is used only when it is set.
        username_env: String,
        /// The env var that holds the password; unset means an empty password.
        password_env: String,
    },
    /// `oauth2_client_credentials`: unless `token_env` holds a token, the engine fetches access
    /// tokens from the token endpoint with the client ID and secret (HTTP basic), caches them until
    /// shortly before they expire, and sends them as `Authorization: Bearer <token>`.
    #[serde(rename = "oauth2_client_credentials")]
    OAuth2ClientCredentials {
        /// The token endpoint, POSTed a `grant_type=client_credentials` form.
        token_url: String,
        /// The scopes to request, sent space-separated as `scope` (no `scope` when empty). Omitted
        /// when empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scopes: Vec<String>,
        /// The env var that holds the client ID.
        client_id_env: String,
        /// The env var that holds the client secret.
        client_secret_env: String,
        /// An access token the user already has: sent as a bearer token when set, so that the
        /// client id and secret are needed only for mcpgen to fetch tokens itself.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token_env: Option<String>,
    },
    /// `oauth2_authorization_code`: the API's OAuth2 authorization-code flow. With `serve
    /// --upstream-auth user` each user authorizes their own account once (PKCE; the client is the
    /// server's app at the API, from `client_id_env` and `client_secret_env`) and their calls
    /// carry their own token; otherwise a token in `token_env` is sent as a bearer token.
    #[serde(rename = "oauth2_authorization_code")]
    OAuth2AuthorizationCode {
        /// The authorization endpoint, where users are sent to consent.
        authorization_url: String,
        /// The token endpoint, where codes and refresh tokens are exchanged.
        token_url: String,
        /// The scopes to request, space-separated as `scope`. Omitted when empty.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        scopes: Vec<String>,
        /// The env var that holds the client ID of the server's app at the API.
        client_id_env: String,
        /// The env var that holds its client secret (unset: a public client, PKCE alone).
        client_secret_env: String,
        /// The env var of an access token obtained elsewhere, sent as `Authorization: Bearer`
        /// when the server's own credentials are used.
        token_env: String,
    },
    /// A scheme the engine cannot perform itself (OAuth2 implicit or password flows, OpenID Connect, mutual TLS):
    /// an access token obtained elsewhere may be supplied as a bearer token in `env`.
    External {
        /// How to obtain the credential, in words for people (`inspect`, a generated crate's help);
        /// [`describe`](SecurityScheme::describe) returns it.
        description: String,
        /// The env var that holds the token: sent as `Authorization: Bearer <value>`, or as the
        /// whole `Authorization` value when it contains a space (`Digest ...`).
        env: String,
    },
}

impl SecurityScheme {
    /// The environment variables that hold this scheme's credentials, in order.
    pub fn env_vars(&self) -> Vec<&str> {
        match self {
            SecurityScheme::ApiKey { env, .. }
            | SecurityScheme::Bearer { env }
            | SecurityScheme::External { env, .. } => {
                vec![env]
            }
            SecurityScheme::Basic { username_env, password_env } => vec![username_env, password_env],
            SecurityScheme::OAuth2AuthorizationCode { token_env, client_id_env, client_secret_env, .. } => {
                vec![token_env, client_id_env, client_secret_env]
            }
            SecurityScheme::OAuth2ClientCredentials { client_id_env, client_secret_env, token_env, .. } => token_env
                .iter()
                .map(String::as_str)
                .chain([client_id_env.as_str(), client_secret_env.as_str()])
                .collect(),
        }
    }

    /// What to set for this scheme, in words: `A`, `A and B`, or `T, or A and B`.
    pub fn env_hint(&self) -> String {
        match self {
            SecurityScheme::OAuth2ClientCredentials {
                client_id_env, client_secret_env, token_env: Some(t), ..
            } => {
                format!("{t}, or {client_id_env} and {client_secret_env}")
            }
            // The server's own credential is a token; the client is for each user's authorization.
            SecurityScheme::OAuth2AuthorizationCode { token_env, .. } => token_env.clone(),
            other => other.env_vars().join(" and "),
        }
    }

    /// The scheme in words, for people: `API key in header `X-API-Key``, `bearer token`, `HTTP
    /// basic`, `OAuth2 client credentials`, or an external scheme's own description. `inspect`,
    /// generated crates' help and OpenAPI exports all say it so.
    pub fn describe(&self) -> String {
        match self {
            // Only the location is lower-case: the key's own name is case-sensitive on the wire.
            SecurityScheme::ApiKey { location, name, .. } => format!("API key in {} `{name}`", location.as_str()),
            SecurityScheme::Bearer { .. } => "bearer token".to_string(),
            SecurityScheme::Basic { .. } => "HTTP basic".to_string(),
            SecurityScheme::OAuth2ClientCredentials { .. } => "OAuth2 client credentials".to_string(),
            SecurityScheme::OAuth2AuthorizationCode { .. } => {
                "OAuth2 authorization code (each user's own with --upstream-auth user; else a token obtained elsewhere)"
                    .to_string()
            }
            SecurityScheme::External { description, .. } => description.clone(),
        }
    }

    /// Each env var of [`env_vars`](Self::env_vars) with what it holds, in words: the scheme's
    /// [`describe`](Self::describe), and the part of the credential when there are several.
    pub fn describe_env_vars(&self) -> Vec<(&str, String)> {
        let what = self.describe();
        match self {
            SecurityScheme::Basic { username_env, password_env } => {
                vec![(username_env, format!("{what} user name")), (password_env, format!("{what} password"))]
            }
            SecurityScheme::OAuth2ClientCredentials { client_id_env, client_secret_env, token_env, .. } => token_env
                .iter()
                .map(|t| (t.as_str(), format!("{what}: an access token you already have, or set the two below")))
                .chain([
                    (client_id_env.as_str(), format!("{what}: client ID")),
                    (client_secret_env.as_str(), format!("{what}: client secret")),
                ])
                .collect(),
            SecurityScheme::OAuth2AuthorizationCode { client_id_env, client_secret_env, token_env, .. } => vec![
                (token_env.as_str(), "OAuth2 authorization code: an access token obtained elsewhere".to_string()),
                (
                    client_id_env.as_str(),
                    "OAuth2 authorization code: this server's app at the API, client ID (--upstream-auth user)"
                        .to_string(),
                ),
                (
                    client_secret_env.as_str(),
                    "OAuth2 authorization code: its client secret (--upstream-auth user)".to_string(),
                ),
            ],
            _ => self.env_vars().into_iter().map(|env| (env, what.clone())).collect(),
        }
    }
}

/// Where a scheme's credential is carried on the wire: a header, query parameter or cookie name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CredentialPlace<'a> {
    /// Where it goes.
    pub location: crate::binding::ParamLocation,
    /// The header (any case), query parameter or cookie name.
    pub name: &'a str,
}

impl CredentialPlace<'_> {
    /// Whether a parameter sent as `name` at `location` lands on this credential: header names
    /// compare without case, as HTTP reads them.
    pub fn holds(&self, location: crate::binding::ParamLocation, name: &str) -> bool {
        use crate::binding::ParamLocation;
        location == self.location
            && match location {
                ParamLocation::Header => name.eq_ignore_ascii_case(self.name),
                _ => name == self.name,
            }
    }
}

impl SecurityScheme {
    /// Where the credential goes: an API key's header, query parameter or cookie, else the
    /// `Authorization` header. A parameter an API declares at the same place is this credential,
    /// never a model's argument (see [`crate::Tool::strip_credential_arguments`]).
    pub fn credential_place(&self) -> CredentialPlace<'_> {
        use crate::binding::ParamLocation;
        match self {
            SecurityScheme::ApiKey { location, name, .. } => CredentialPlace {
                location: match location {
                    ApiKeyLocation::Header => ParamLocation::Header,
                    ApiKeyLocation::Query => ParamLocation::Query,
                    ApiKeyLocation::Cookie => ParamLocation::Cookie,
                },
                name,
            },
            _ => CredentialPlace { location: ParamLocation::Header, name: "Authorization" },
        }
    }
}

/// Where an API key goes (`location` in the config, lower-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApiKeyLocation {
    /// `header`: a request header.
    Header,
    /// `query`: a query parameter.
    Query,
    /// `cookie`: a cookie of the `Cookie` header.
    Cookie,
}

impl ApiKeyLocation {
    /// `header`, `query` or `cookie`, as OpenAPI and the config spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            ApiKeyLocation::Header => "header",
            ApiKeyLocation::Query => "query",
            ApiKeyLocation::Cookie => "cookie",
        }
    }
}

/// Whose identity an API's requests carry (`upstream.auth`, per API in a config of several);
/// `serve --upstream-auth` overrides it for every API. The server's own credentials when absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "mode", rename_all = "snake_case", deny_unknown_fields)]
pub enum UpstreamIdentity {
    /// `server`: the server's own credentials (its env vars); a caller's token never goes upstream.
    Server,
    /// `passthrough`: the caller's validated OAuth access token itself (needs inbound OAuth; for
    /// APIs that trust the same authorization server and accept tokens for this server's audience).
    Passthrough,
    /// `exchange`: the caller's validated token exchanged (RFC 8693) for one issued for the API;
    /// the server's client at the authorization server comes from MCPGEN_EXCHANGE_CLIENT_ID and
    /// MCPGEN_EXCHANGE_CLIENT_SECRET.
    Exchange {
        /// The authorization server's token endpoint.
        token_url: String,
        /// The API's resource indicator (RFC 8707).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<String>,
        /// The API's audience.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        audience: Option<String>,
        /// The scopes asked for, space-separated.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scope: Option<String>,
    },
    /// `user`: each caller's own authorization at the API, through its `oauth2_authorization_code`
    /// scheme (the first callers are sent to the API's consent page; tokens are kept encrypted
    /// per caller, refreshed, revocable).
    User {
        /// The `oauth2_authorization_code` scheme to use; `None`: the API's only one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scheme: Option<String>,
        /// The API's resource indicator (RFC 8707), sent in the authorization and token requests
        /// when the authorization server serves several APIs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        resource: Option<String>,
    },
}

/// Alternatives (any one suffices) of sets of schemes (all needed together); empty = no auth.
pub type SecurityRequirements = Vec<Vec<String>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn oauth2(token_env: Option<&str>) -> SecurityScheme {
        SecurityScheme::OAuth2ClientCredentials {
            token_url: "https://auth.example.com/token".into(),
            scopes: vec![],
            client_id_env: "ID".into(),
            client_secret_env: "SECRET".into(),
            token_env: token_env.map(String::from),
        }
    }

    #[test]
    fn api_key_locations_as_openapi_spells_them() {
        for location in [ApiKeyLocation::Header, ApiKeyLocation::Query, ApiKeyLocation::Cookie] {
            assert_eq!(serde_json::to_value(location).unwrap(), location.as_str());
        }
    }

    #[test]
    fn schemes_in_words() {
        let key =
            SecurityScheme::ApiKey { location: ApiKeyLocation::Cookie, name: "SESSIONID".into(), env: "K".into() };
        assert_eq!(key.describe(), "API key in cookie `SESSIONID`");
        assert_eq!(SecurityScheme::Bearer { env: "T".into() }.describe(), "bearer token");
        let basic = SecurityScheme::Basic { username_env: "U".into(), password_env: "P".into() };
        assert_eq!(basic.describe(), "HTTP basic");
        assert_eq!(oauth2(None).describe(), "OAuth2 client credentials");
        let external = SecurityScheme::External { description: "mutual TLS".into(), env: "T".into() };
        assert_eq!(external.describe(), "mutual TLS");
    }

    #[test]
    fn single_env_vars_hold_the_scheme() {
        let key = SecurityScheme::ApiKey { location: ApiKeyLocation::Header, name: "X-Key".into(), env: "K".into() };
        assert_eq!(key.describe_env_vars(), [("K", "API key in header `X-Key`".to_string())]);
    }

    #[test]
    fn several_env_vars_say_their_part() {
        let basic = SecurityScheme::Basic { username_env: "U".into(), password_env: "P".into() };
        assert_eq!(
            basic.describe_env_vars(),
            [("U", "HTTP basic user name".to_string()), ("P", "HTTP basic password".to_string())]
        );
        let with_token = oauth2(Some("T"));
        let vars: Vec<&str> = with_token.describe_env_vars().into_iter().map(|(env, _)| env).collect();
        assert_eq!(vars, with_token.env_vars());
        let without = oauth2(None);
        assert_eq!(without.describe_env_vars()[0], ("ID", "OAuth2 client credentials: client ID".to_string()));
    }

    #[test]
    fn an_authorization_code_scheme_names_its_token_and_its_app() {
        let scheme = SecurityScheme::OAuth2AuthorizationCode {
            authorization_url: "https://a/auth".into(),
            token_url: "https://a/token".into(),
            scopes: vec![],
            client_id_env: "ID".into(),
            client_secret_env: "SECRET".into(),
            token_env: "TOKEN".into(),
        };
        assert_eq!(scheme.env_vars(), ["TOKEN", "ID", "SECRET"]);
        assert_eq!(scheme.env_hint(), "TOKEN", "the server's own credential is the token");
        let described: Vec<&str> = scheme.describe_env_vars().into_iter().map(|(env, _)| env).collect();
        assert_eq!(described, scheme.env_vars());
    }
}
