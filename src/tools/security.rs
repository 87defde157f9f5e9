//! Security schemes of the API as the engine performs them, with the names of the environment
//! variables that hold the credentials.

use std::collections::BTreeMap;

use crate::ir::{self, HttpScheme, SecurityRequirement};
use crate::names::screaming_snake_case;
use mcpgen_config::{ScopeSets, SecurityRequirements, SecurityScheme};

pub(crate) fn runtime_schemes(
    schemes: &BTreeMap<String, ir::SecurityScheme>,
    prefix: &str,
) -> BTreeMap<String, SecurityScheme> {
    schemes
        .iter()
        .map(|(name, scheme)| {
            let base = if prefix.is_empty() {
                screaming_snake_case(name)
            } else {
                format!("{prefix}_{}", screaming_snake_case(name))
            };
            let env = |suffix: &str| if suffix.is_empty() { base.clone() } else { format!("{base}_{suffix}") };
            let s = match scheme {
                ir::SecurityScheme::ApiKey { name, location } => {
                    SecurityScheme::ApiKey { location: *location, name: name.clone(), env: env("") }
                }
                ir::SecurityScheme::Http { scheme: HttpScheme::Basic, .. } => {
                    SecurityScheme::Basic { username_env: env("USERNAME"), password_env: env("PASSWORD") }
                }
                ir::SecurityScheme::Http { scheme: HttpScheme::Bearer, .. } => {
                    SecurityScheme::Bearer { env: env("TOKEN") }
                }
                ir::SecurityScheme::Http { scheme: HttpScheme::Other(scheme), .. } => SecurityScheme::External {
                    description: format!(
                        "HTTP `{scheme}` authentication: the env var holds the whole Authorization value"
                    ),
                    env: env("TOKEN"),
                },
                ir::SecurityScheme::OAuth2 { client_credentials: Some(flow), .. } => {
                    SecurityScheme::OAuth2ClientCredentials {
                        token_url: flow.token_url.clone(),
                        scopes: flow.scopes.clone(),
                        client_id_env: env("CLIENT_ID"),
                        client_secret_env: env("CLIENT_SECRET"),
                        token_env: Some(env("TOKEN")),
                    }
                }
                ir::SecurityScheme::OAuth2 { authorization_code: Some(flow), .. } => {
                    SecurityScheme::OAuth2AuthorizationCode {
                        authorization_url: flow.authorization_url.clone(),
                        token_url: flow.token_url.clone(),
                        scopes: flow.scopes.clone(),
                        client_id_env: env("CLIENT_ID"),
                        client_secret_env: env("CLIENT_SECRET"),
                        token_env: env("TOKEN"),
                    }
                }
                ir::SecurityScheme::OAuth2 { other_flows, .. } => SecurityScheme::External {
                    description: format!(
                        "OAuth2 ({}): obtain an access token elsewhere and put it in the env var",
                        other_flows.join(", ")
                    ),
                    env: env("TOKEN"),
                },
                ir::SecurityScheme::OpenIdConnect { url } => SecurityScheme::External {
                    description: format!(
                        "OpenID Connect ({url}): obtain an access token elsewhere and put it in the env var"
                    ),
                    env: env("TOKEN"),
                },
                ir::SecurityScheme::MutualTls => SecurityScheme::External {
                    description: "mutual TLS is not supported; a bearer token in the env var is sent instead".into(),
                    env: env("TOKEN"),
                },
            };
            (name.clone(), s)
        })
        .collect()
}

/// Requirements as sets of scheme names; schemes the document does not define are dropped.
pub(crate) fn requirements(
    reqs: &[SecurityRequirement],
    known: &BTreeMap<String, SecurityScheme>,
) -> SecurityRequirements {
    let mut out: SecurityRequirements = Vec::new();
    for r in reqs {
        let set: Vec<String> = r.keys().filter(|k| known.contains_key(*k)).cloned().collect();
        if set.len() == r.len() && !out.contains(&set) {
            out.push(set);
        }
    }
    // `[]` alone means no auth; an empty set among others means credentials are optional.
    if out.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    out
}

/// The OAuth scopes a caller needs for an operation with these requirements (see
/// `mcpgen_config::Tool::scopes`): each alternative's oauth2 and openIdConnect scopes, as one
/// set. Alternatives without such a scheme are left out (an API key the server holds says
/// nothing about the caller); when none has one, or one needs no scope, no scope is needed. A set
/// that holds another is dropped.
pub(crate) fn caller_scopes(reqs: &[SecurityRequirement], schemes: &BTreeMap<String, ir::SecurityScheme>) -> ScopeSets {
    let mut sets: ScopeSets = Vec::new();
    for r in reqs {
        let mut set: Vec<String> = Vec::new();
        let mut oauth = false;
        for (name, scopes) in r {
            if matches!(
                schemes.get(name),
                Some(ir::SecurityScheme::OAuth2 { .. } | ir::SecurityScheme::OpenIdConnect { .. })
            ) {
                oauth = true;
                for s in scopes {
                    if !set.contains(s) {
                        set.push(s.clone());
                    }
                }
            }
        }
        if !oauth {
            continue;
        }
        if set.is_empty() {
            return Vec::new();
        }
        set.sort();
        if !sets.contains(&set) {
            sets.push(set);
        }
    }
    // A set that holds another asks for more than needed: any one set suffices.
    let minimal: ScopeSets = sets
        .iter()
        .filter(|set| !sets.iter().any(|other| other != *set && other.iter().all(|s| set.contains(s))))
        .cloned()
        .collect();
    minimal
}

/// An `--auth` credential: `bearer:ENV`, `header:NAME:ENV`, `query:NAME:ENV`,
/// `basic:USER_ENV:PASS_ENV`, or an OAuth2 authorization-code scheme
/// `oauth2:authorize=URL,token=URL[,scopes=A B][,env=PREFIX]` (its client in `PREFIX_CLIENT_ID`
/// and `PREFIX_CLIENT_SECRET`, a token obtained elsewhere in `PREFIX_TOKEN`; `OAUTH2` by
/// default). Only env var names are taken: the secrets stay in the environment.
pub(crate) fn parse_auth(spec: &str) -> Result<SecurityScheme, String> {
    use mcpgen_config::ApiKeyLocation;
    if let Some(rest) = spec.strip_prefix("oauth2:") {
        return parse_oauth2(rest);
    }
    let parts: Vec<&str> = spec.split(':').collect();
    let env_name = |v: &str| -> Result<String, String> {
        let ok = v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if ok {
            Ok(v.to_string())
        } else {
            Err(format!(
                "`{v}` is not an environment variable name: --auth takes the NAME of the variable that holds the secret, never the secret"
            ))
        }
    };
    let header_name = |v: &str| -> Result<String, String> {
        if !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)) {
            Ok(v.to_string())
        } else {
            Err(format!("`{v}` is not a valid header or query parameter name"))
        }
    };
    match parts.as_slice() {
        ["bearer", env] => Ok(SecurityScheme::Bearer { env: env_name(env)? }),
        ["header", name, env] => Ok(SecurityScheme::ApiKey {
            location: ApiKeyLocation::Header,
            name: header_name(name)?,
            env: env_name(env)?,
        }),
        ["query", name, env] => Ok(SecurityScheme::ApiKey {
            location: ApiKeyLocation::Query,
            name: header_name(name)?,
            env: env_name(env)?,
        }),
        ["basic", user, pass] => {
            Ok(SecurityScheme::Basic { username_env: env_name(user)?, password_env: env_name(pass)? })
        }
        _ => Err(format!(
            "invalid --auth {spec:?}: use bearer:ENV, header:NAME:ENV, query:NAME:ENV, basic:USER_ENV:PASS_ENV or \
             oauth2:authorize=URL,token=URL[,scopes=A B][,env=PREFIX]"
        )),
    }
}

/// The part of `--auth oauth2:...` after `oauth2:`.
fn parse_oauth2(rest: &str) -> Result<SecurityScheme, String> {
    let (mut authorize, mut token, mut scopes, mut prefix) = (None, None, Vec::new(), "OAUTH2".to_string());
    for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((key, value)) = part.split_once('=') else {
            return Err(format!("--auth oauth2: `{part}` is not KEY=VALUE (authorize, token, scopes, env)"));
        };
        match key.trim() {
            "authorize" => authorize = Some(oauth2_url("authorize", value)?),
            "token" => token = Some(oauth2_url("token", value)?),
            "scopes" => scopes = value.split_whitespace().map(str::to_string).collect(),
            "env" => {
                let ok = value.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if !ok {
                    return Err(format!(
                        "--auth oauth2: env={value:?} is not the start of an environment variable name"
                    ));
                }
                prefix = value.to_string();
            }
            other => return Err(format!("--auth oauth2: unknown key `{other}` (authorize, token, scopes, env)")),
        }
    }
    let (Some(authorization_url), Some(token_url)) = (authorize, token) else {
        return Err(
            "--auth oauth2: needs authorize=URL and token=URL (the API's authorization and token endpoints)".into()
        );
    };
    scopes.sort();
    scopes.dedup();
    Ok(SecurityScheme::OAuth2AuthorizationCode {
        authorization_url,
        token_url,
        scopes,
        client_id_env: format!("{prefix}_CLIENT_ID"),
        client_secret_env: format!("{prefix}_CLIENT_SECRET"),
        token_env: format!("{prefix}_TOKEN"),
    })
}

fn oauth2_url(key: &str, value: &str) -> Result<String, String> {
    match url::Url::parse(value.trim()) {
        Ok(u) if matches!(u.scheme(), "https" | "http") => Ok(value.trim().to_string()),
        _ => Err(format!("--auth oauth2: {key}={value:?} is not an http(s) URL")),
    }
}

/// Adds the `--auth` schemes (`auth`, `auth_2`, ...) and returns their names: one requirement
/// that needs them all.
pub(crate) fn add_cli_schemes(schemes: &mut BTreeMap<String, SecurityScheme>, auth: &[SecurityScheme]) -> Vec<String> {
    let mut names = Vec::new();
    for (i, scheme) in auth.iter().enumerate() {
        let mut name = if i == 0 { "auth".to_string() } else { format!("auth_{}", i + 1) };
        while schemes.contains_key(&name) {
            name.push('_');
        }
        schemes.insert(name.clone(), scheme.clone());
        names.push(name);
    }
    names
}

/// The scheme standing for declared `Authorization` header parameters (many documents use one
/// instead of a security scheme): the header's whole value comes from `<API>_AUTHORIZATION`.
pub(crate) const AUTHORIZATION_HEADER: &str = "authorization_header";

pub(crate) fn authorization_header(prefix: &str) -> SecurityScheme {
    SecurityScheme::ApiKey {
        location: mcpgen_config::ApiKeyLocation::Header,
        name: "Authorization".into(),
        env: format!("{prefix}_AUTHORIZATION"),
    }
}

/// Adds the `Authorization` header scheme when an operation declares that header parameter.
pub(crate) fn add_authorization_header(
    schemes: &mut BTreeMap<String, SecurityScheme>,
    operations: &[crate::ir::Operation],
    prefix: &str,
) {
    if operations.iter().any(declares_authorization) {
        schemes.entry(AUTHORIZATION_HEADER.to_string()).or_insert_with(|| authorization_header(prefix));
    }
}

/// Whether an operation declares an `Authorization` header parameter (a bound function's is an
/// argument it declared).
pub(crate) fn declares_authorization(op: &crate::ir::Operation) -> bool {
    op.function.is_none()
        && op
            .parameters
            .iter()
            .any(|p| p.location == mcpgen_config::ParamLocation::Header && p.name.eq_ignore_ascii_case("authorization"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schemes() -> BTreeMap<String, ir::SecurityScheme> {
        BTreeMap::from([
            (
                "user".to_string(),
                ir::SecurityScheme::OAuth2 { client_credentials: None, authorization_code: None, other_flows: vec![] },
            ),
            ("oidc".to_string(), ir::SecurityScheme::OpenIdConnect { url: "https://idp.example.com".into() }),
            (
                "key".to_string(),
                ir::SecurityScheme::ApiKey { name: "k".into(), location: mcpgen_config::ApiKeyLocation::Header },
            ),
        ])
    }

    fn req(pairs: &[(&str, &[&str])]) -> SecurityRequirement {
        pairs.iter().map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect())).collect()
    }

    fn sets(v: &[&[&str]]) -> ScopeSets {
        v.iter().map(|set| set.iter().map(|s| s.to_string()).collect()).collect()
    }

    #[test]
    fn caller_scopes_from_oauth_requirements() {
        let s = schemes();
        let scopes = |reqs: &[SecurityRequirement]| caller_scopes(reqs, &s);
        assert_eq!(scopes(&[req(&[("user", &["b", "a"])])]), sets(&[&["a", "b"]]));
        assert_eq!(scopes(&[req(&[("user", &["a"])]), req(&[("key", &[])])]), sets(&[&["a"]]), "the key says nothing");
        assert_eq!(scopes(&[req(&[("key", &[])])]), ScopeSets::new(), "no OAuth: no scope");
        assert_eq!(scopes(&[req(&[("user", &["a"])]), req(&[("user", &[])])]), ScopeSets::new());
        assert_eq!(
            scopes(&[req(&[("user", &["r"])]), req(&[("oidc", &["w"])]), req(&[("user", &["r", "p"])])]),
            sets(&[&["r"], &["w"]]),
            "alternatives; a superset of another is dropped"
        );
        assert_eq!(scopes(&[req(&[("user", &["a"]), ("oidc", &["b"]), ("key", &[])])]), sets(&[&["a", "b"]]));
    }

    #[test]
    fn an_oauth2_authorization_code_scheme_is_declared_with_auth() {
        let scheme = parse_auth(
            "oauth2:authorize=https://github.com/login/oauth/authorize,token=https://github.com/login/oauth/access_token,scopes=repo read:org,env=GITHUB",
        )
        .unwrap();
        assert_eq!(
            scheme,
            SecurityScheme::OAuth2AuthorizationCode {
                authorization_url: "https://github.com/login/oauth/authorize".into(),
                token_url: "https://github.com/login/oauth/access_token".into(),
                scopes: vec!["read:org".into(), "repo".into()],
                client_id_env: "GITHUB_CLIENT_ID".into(),
                client_secret_env: "GITHUB_CLIENT_SECRET".into(),
                token_env: "GITHUB_TOKEN".into(),
            }
        );
    }

    #[test]
    fn a_bad_oauth2_auth_says_what_is_wrong() {
        let err = |s: &str| parse_auth(s).unwrap_err();
        assert!(err("oauth2:token=https://t").contains("needs authorize=URL and token=URL"));
        assert!(
            err("oauth2:authorize=ftp://a,token=https://t").contains("authorize=\"ftp://a\" is not an http(s) URL")
        );
        assert!(err("oauth2:authorize=https://a,token=https://t,env=1X").contains("env=\"1X\""));
        assert!(err("oauth2:authorize=https://a,token=https://t,client=x").contains("unknown key `client`"));
    }
}
