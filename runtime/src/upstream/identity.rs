//! Whose identity each API's requests carry: the server's own credentials, the caller's token
//! (passthrough), a token exchanged for it (RFC 8693), or the caller's own authorization at the
//! API (`user`). The config says it per API (`upstream.auth`, the top-level one for APIs that
//! say nothing); `serve --upstream-auth` writes the top-level one and clears the APIs' own.

use std::sync::Arc;

#[cfg(feature = "user-auth")]
use crate::config::SecurityScheme;
use crate::config::{Api, RuntimeConfig, UpstreamIdentity};
use crate::error::{Error, Result};
use crate::upstream::exchange::{Target, TokenExchanger};

/// Whose credentials go upstream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UpstreamAuth {
    /// The server's own, from its environment variables; a caller's token never goes upstream.
    #[default]
    Server,
    /// The caller's validated OAuth access token, as `Authorization: Bearer`, instead of the
    /// server's credentials (for APIs that trust the same authorization server).
    Passthrough,
    /// The caller's validated token exchanged (RFC 8693) for one issued for the API.
    Exchange,
    /// The caller's own authorization at the API (OAuth2 authorization code with PKCE), kept in
    /// [`crate::EngineOptions::users`].
    User,
}

/// Where users' own tokens at the APIs are kept (`--upstream-auth user`, `--token-store`), if
/// anywhere.
#[cfg(feature = "user-auth")]
pub type Users = Option<Arc<crate::upstream::user::authorizer::UserAuth>>;

/// Without the feature `user-auth` users keep no tokens here.
#[cfg(not(feature = "user-auth"))]
pub type Users = ();

/// One API's choice, ready to use.
#[derive(Debug, Clone, Default)]
pub(crate) enum Identity {
    /// The server's credentials.
    #[default]
    Server,
    /// The caller's validated token itself.
    Passthrough,
    /// The caller's token exchanged for the API's.
    Exchange(Arc<TokenExchanger>),
    /// The caller's own tokens at the API.
    #[cfg(feature = "user-auth")]
    User(Arc<crate::upstream::user::authorizer::UserAuthorizer>),
}

impl Identity {
    /// The identity of `api`'s requests (of the tools of no listed API for `None`).
    pub(crate) fn of(config: &RuntimeConfig, api: Option<&Api>, users: &Users) -> Result<Identity> {
        let Some(chosen) = declared(config, api).cloned() else { return Ok(Identity::Server) };
        let env = |name: &str| std::env::var(name).ok();
        match chosen {
            UpstreamIdentity::Server => Ok(Identity::Server),
            UpstreamIdentity::Passthrough => Ok(Identity::Passthrough),
            UpstreamIdentity::Exchange { token_url, resource, audience, scope } => {
                let target = Target { resource, audience, scope };
                Ok(Identity::Exchange(Arc::new(TokenExchanger::from_env(&token_url, target, &env)?)))
            }
            UpstreamIdentity::User { scheme, resource } => user(config, api, users, scheme.as_deref(), resource, &env),
        }
    }

    /// The `--upstream-auth` mode it is.
    pub(crate) fn mode(&self) -> UpstreamAuth {
        match self {
            Identity::Server => UpstreamAuth::Server,
            Identity::Passthrough => UpstreamAuth::Passthrough,
            Identity::Exchange(_) => UpstreamAuth::Exchange,
            #[cfg(feature = "user-auth")]
            Identity::User(_) => UpstreamAuth::User,
        }
    }
}

/// What the config says of `api` (its own `upstream.auth`, else the top-level one).
pub(crate) fn declared<'a>(config: &'a RuntimeConfig, api: Option<&'a Api>) -> Option<&'a UpstreamIdentity> {
    api.and_then(|a| a.upstream.auth.as_ref()).or(config.upstream.auth.as_ref())
}

/// Every mode the config declares, for the checks made before serving (inbound OAuth, a store).
pub fn declared_modes(config: &RuntimeConfig) -> Vec<UpstreamAuth> {
    let mut modes: Vec<UpstreamAuth> = std::iter::once(config.upstream.auth.as_ref())
        .chain(config.apis.iter().map(|a| a.upstream.auth.as_ref()))
        .flatten()
        .map(|i| match i {
            UpstreamIdentity::Server => UpstreamAuth::Server,
            UpstreamIdentity::Passthrough => UpstreamAuth::Passthrough,
            UpstreamIdentity::Exchange { .. } => UpstreamAuth::Exchange,
            UpstreamIdentity::User { .. } => UpstreamAuth::User,
        })
        .collect();
    modes.dedup();
    modes
}

/// The `user` identity of `api`: its OAuth2 authorization-code scheme (`scheme`, or its only
/// one) and the users' store.
#[cfg_attr(not(feature = "user-auth"), allow(unused_variables))]
fn user(
    config: &RuntimeConfig,
    api: Option<&Api>,
    users: &Users,
    scheme: Option<&str>,
    resource: Option<String>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Identity> {
    #[cfg(not(feature = "user-auth"))]
    return Err(Error::missing_feature("user-auth", "--upstream-auth user"));
    #[cfg(feature = "user-auth")]
    {
        let of_api = api.map(|a| format!(" of the API `{}`", a.name)).unwrap_or_default();
        let (name, found) = authorization_code_scheme(config, api, scheme)
            .map_err(|why| Error::Config(format!("--upstream-auth user{of_api}: {why}")))?;
        let Some(users) = users else {
            return Err(Error::Config("--upstream-auth user needs a token store (--token-store)".into()));
        };
        let title = api
            .and_then(|a| a.title.clone())
            .or_else(|| config.server.title.clone())
            .unwrap_or_else(|| config.server.name.clone());
        let key = api.map(|a| a.name.as_str()).unwrap_or("api");
        let authorizer = crate::upstream::user::authorizer::UserAuthorizer::new(
            key,
            &title,
            (name, found),
            resource,
            users.clone(),
            env,
        )?;
        Ok(Identity::User(Arc::new(authorizer)))
    }
}

/// The OAuth2 authorization-code scheme of `api` (schemes of an API of several are named
/// `api/name`): the one named, or the only one.
#[cfg(feature = "user-auth")]
pub(crate) fn authorization_code_scheme<'a>(
    config: &'a RuntimeConfig,
    api: Option<&Api>,
    named: Option<&str>,
) -> std::result::Result<(&'a str, &'a SecurityScheme), String> {
    let prefix = api.map(|a| format!("{}/", a.name));
    let ours = |n: &str| prefix.as_deref().is_none_or(|p| n.starts_with(p));
    if let Some(want) = named {
        let full = prefix.as_deref().map(|p| format!("{p}{want}"));
        return config
            .security_schemes
            .iter()
            .find(|(n, _)| n.as_str() == want || Some(n.as_str()) == full.as_deref())
            .map(|(n, s)| (n.as_str(), s))
            .ok_or_else(|| format!("no security scheme `{want}`"));
    }
    let found: Vec<(&str, &SecurityScheme)> = config
        .security_schemes
        .iter()
        .filter(|(n, s)| ours(n) && matches!(s, SecurityScheme::OAuth2AuthorizationCode { .. }))
        .map(|(n, s)| (n.as_str(), s))
        .collect();
    match found.as_slice() {
        [one] => Ok(*one),
        [] => Err("the API declares no OAuth2 authorization-code scheme; declare one with \
                   --auth 'oauth2:authorize=URL,token=URL,scopes=...' when generating the config"
            .into()),
        many => Err(format!(
            "the API has several OAuth2 authorization-code schemes ({}): name one in `upstream.auth.scheme`",
            many.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        )),
    }
}
