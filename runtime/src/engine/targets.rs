//! Where each tool's requests go and as whom: the targets of a config's APIs (base URL, headers,
//! identity), built with the engine, and what the HTTP layer asks of them (the users' flows of
//! `--upstream-auth user`).

use std::collections::HashMap;

use super::{Engine, EngineOptions, ToolEntry};
use crate::config::{RuntimeConfig, Tool};
use crate::error::{Error, Result};
use crate::upstream::identity::{Identity, Users};
use crate::upstream::target::Target;

impl Engine {
    /// The upstream's base URL (`--base-url` or the config's; `None` for a merged config, whose
    /// APIs have one each).
    pub fn base_url(&self) -> Option<&str> {
        self.default_target.base_url.as_deref()
    }

    /// Users' own tokens at the APIs (`--upstream-auth user`), if any API uses them (`()`
    /// without the feature `user-auth`).
    pub fn users(&self) -> &Users {
        &self.users
    }

    /// The `user` flow of the API keyed `api` in the store (`api` for a config of one).
    #[cfg(feature = "user-auth")]
    pub(crate) fn user_authorizer(&self, api: &str) -> Option<&crate::upstream::user::authorizer::UserAuthorizer> {
        std::iter::once(&self.default_target).chain(&self.apis).find_map(|t| match &t.identity {
            Identity::User(a) if a.api() == api => Some(&**a),
            _ => None,
        })
    }

    /// The `user` flow the calls of `tool` go through, if its API has one.
    #[cfg(feature = "user-auth")]
    pub(crate) fn user_authorizer_of(
        &self,
        tool: &ToolEntry,
    ) -> Option<&crate::upstream::user::authorizer::UserAuthorizer> {
        match &self.target_of(tool).identity {
            Identity::User(a) => Some(a),
            _ => None,
        }
    }

    /// Where `tool`'s requests go.
    pub(crate) fn target_of(&self, tool: &ToolEntry) -> &Target {
        tool.api.and_then(|i| self.apis.get(i)).unwrap_or(&self.default_target)
    }

    /// The HTTP client of upstream requests (token requests use it too).
    #[cfg(feature = "user-auth")]
    pub(crate) fn upstream_http(&self) -> &reqwest::Client {
        self.upstream.http()
    }
}

/// Where tools go: the target of tools of no listed API, one per API of [`RuntimeConfig::apis`]
/// in its order, and each tool's API by index (`None`: the tools of no listed API).
pub(super) fn targets(
    config: &RuntimeConfig,
    opts: &EngineOptions,
) -> Result<(Target, Vec<Target>, Vec<Option<usize>>)> {
    let mut default_target =
        Target::new(&config.upstream, None, &config.tools, (opts.base_url.as_deref(), &opts.headers))?;
    // Only tools of no listed API go there (every tool of a config of one API; none of a merged
    // one, whose top-level `upstream.auth` is its APIs' default, not a target of its own).
    if config.tools.iter().any(|t| t.api.is_none()) {
        default_target.identity = Identity::of(config, None, &opts.users)?;
    }
    let mut api_index = HashMap::with_capacity(config.apis.len());
    let mut apis = Vec::with_capacity(config.apis.len());
    for (i, api) in config.apis.iter().enumerate() {
        if api_index.insert(api.name.clone(), i).is_some() {
            return Err(Error::Config(format!("the API `{}` is listed twice in `apis`", api.name)));
        }
        let mut target =
            Target::new(&config.upstream, Some(api), &config.tools, (opts.base_url.as_deref(), &opts.headers))?;
        target.identity = Identity::of(config, Some(api), &opts.users)?;
        apis.push(target);
    }
    let tool_api = |t: &Tool| -> Result<Option<usize>> {
        t.api
            .as_ref()
            .map(|name| {
                api_index.get(name).copied().ok_or_else(|| {
                    Error::Config(format!("tool `{}` belongs to the API `{name}`, which `apis` does not list", t.name))
                })
            })
            .transpose()
    };
    let tool_apis = config.tools.iter().map(tool_api).collect::<Result<Vec<_>>>()?;
    Ok((default_target, apis, tool_apis))
}
