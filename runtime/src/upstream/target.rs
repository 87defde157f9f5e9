//! Where requests go: each API's base URL, checked, and the static headers its requests carry
//! (one target for a config of one API, one per API for a config of several).

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use crate::config::{Api, Tool, Upstream};
use crate::error::{Error, Result};
use crate::upstream::request::BaseUrl;

/// Where one API's requests go: its base URL and the static headers every request carries.
pub(crate) struct Target {
    /// Where tool paths are appended; `None` when no tool needs it.
    pub(crate) base_url: Option<String>,
    /// `base_url` parsed, when it is absolute (requests' URLs are parsed relative to it).
    pub(crate) base: Option<BaseUrl>,
    /// Sent with every request.
    pub(crate) headers: HeaderMap,
    /// Whose identity the requests carry.
    pub(crate) identity: crate::upstream::identity::Identity,
}

impl Target {
    /// The target of `api`'s tools (of the tools of no API for `None`), checked: a base URL that
    /// is absolute when a tool needs one. `--base-url` overrides every API's; the config's
    /// top-level headers, then the API's, then `--header`s are sent.
    pub(crate) fn new(
        top: &Upstream,
        api: Option<&Api>,
        tools: &[Tool],
        (base_url_flag, header_flags): (Option<&str>, &[(String, String)]),
    ) -> Result<Target> {
        let own = api.map_or(&top.base_url, |a| &a.upstream.base_url);
        let base_url = base_url_flag.map(str::to_string).or(own.clone()).map(|u| u.trim_end_matches('/').to_string());
        let name = api.map(|a| a.name.as_str());
        let needs_base =
            tools.iter().any(|t| t.api.as_deref() == name && t.http.as_ref().is_some_and(|h| h.base_url.is_none()));
        let of_api = name.map(|n| format!("the API `{n}`: ")).unwrap_or_default();
        match &base_url {
            Some(u) if u.starts_with("http://") || u.starts_with("https://") => {
                reqwest::Url::parse(u).map_err(|e| Error::Config(format!("{of_api}invalid base URL {u:?}: {e}")))?;
            }
            Some(u) if needs_base => {
                return Err(Error::Config(format!(
                    "{of_api}the API's server URL {u:?} is relative: pass --base-url with the absolute URL (e.g. https://api.example.com{u})"
                )));
            }
            None if needs_base => {
                return Err(Error::Config(format!("{of_api}the API description names no server: pass --base-url")));
            }
            _ => {}
        }
        let mut headers = HeaderMap::new();
        let api_headers = api.map(|a| &a.upstream.headers).into_iter().flatten();
        let cli = header_flags.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        for (name, value) in top.headers.iter().chain(api_headers).map(|(k, v)| (k.as_str(), v.as_str())).chain(cli) {
            let n = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| Error::Config(format!("{of_api}invalid header name {name:?}")))?;
            let v = HeaderValue::from_str(value.trim())
                .map_err(|_| Error::Config(format!("{of_api}invalid value for header {name}")))?;
            headers.insert(n, v);
        }
        let base = base_url.as_deref().and_then(|u| BaseUrl::parse(u).ok());
        Ok(Target { base_url, base, headers, identity: Default::default() })
    }
}
