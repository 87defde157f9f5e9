//! Credentials mcpgen cannot fill by itself (`crate::tools::security` makes them `External`
//! schemes: an env var with a token obtained elsewhere).
//!
//! A tool depends on such schemes when each alternative of its `security` has one of them (no
//! alternative mcpgen performs alone, and none that needs no credentials); each finding counts
//! the tools that depend on its scheme. A scheme no tool depends on is not reported. In the
//! score, an unsupported scheme (and an undefined one) costs each tool that depends on it (their
//! calls fail); a token to get elsewhere costs the API once (a user sets it once).
//!
//! - `unsupported-auth`: mutual TLS, and HTTP schemes that answer a challenge (`digest`,
//!   `negotiate`, `ntlm`, `hoba`, `mutual`, `scram-*`): no fixed value in an env var passes. (A
//!   runtime config's are known by the descriptions mcpgen gave them.)
//! - `external-token-required`: OAuth2 without the client-credentials flow, OpenID Connect, other
//!   HTTP schemes: a token obtained elsewhere works until it expires.
//! - `undefined-security-scheme` (API descriptions): an operation's (or the API's) `security`
//!   names a scheme the document does not define (nor one it defines but mcpgen could not read,
//!   which a diagnostic reports), so that its tool is sent without credentials.

use std::collections::{BTreeMap, BTreeSet};

use crate::diag::child;
use crate::doctor::rules::{EXTERNAL_TOKEN_REQUIRED, UNDEFINED_SECURITY_SCHEME, UNSUPPORTED_AUTH};
use crate::doctor::{Context, Finding, Origin, Severity};
use crate::ir::{self, Dialect, HttpScheme};
use mcpgen_config::SecurityScheme;

/// HTTP schemes that answer a server's challenge: a fixed `Authorization` value cannot.
const CHALLENGE_SCHEMES: &[&str] = &["digest", "negotiate", "ntlm", "hoba", "mutual"];

pub(crate) fn check(ctx: &Context<'_>) -> Vec<Finding> {
    let mut out = external(ctx);
    out.extend(undefined(ctx));
    out
}

/// `unsupported-auth` and `external-token-required`.
fn external(ctx: &Context<'_>) -> Vec<Finding> {
    let schemes = &ctx.config.security_schemes;
    let is_external = |name: &String| matches!(schemes.get(name), Some(SecurityScheme::External { .. }));
    let mut dependents: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for s in &ctx.subjects {
        let Some(http) = &s.tool.http else { continue };
        let sets = &http.security;
        if sets.is_empty() || !sets.iter().all(|set| set.iter().any(is_external)) {
            continue;
        }
        let needed: BTreeSet<&str> = sets.iter().flatten().filter(|n| is_external(n)).map(String::as_str).collect();
        for name in needed {
            dependents.entry(name).or_default().push(&s.pointer);
        }
    }
    let mut out = Vec::new();
    for (name, tools) in dependents {
        let Some(SecurityScheme::External { description, env }) = schemes.get(name) else { continue };
        let declared = ctx.ir.and_then(|ir| ir.security_schemes.get(name));
        let tools_word = super::plural(tools.len(), "tool");
        let finding = if declared.map_or_else(|| unsupported_in_config(description), unsupported) {
            Finding::new(
                &UNSUPPORTED_AUTH,
                scheme_pointer(ctx, name),
                format!(
                    "security scheme `{name}` ({description}) is the only way to call {tools_word}: {} calls fail",
                    if tools.len() == 1 { "its" } else { "their" }
                ),
                "offer an alternative mcpgen can send (an API key or a bearer token) in those operations' `security`",
            )
        } else {
            Finding::new(
                &EXTERNAL_TOKEN_REQUIRED,
                scheme_pointer(ctx, name),
                format!(
                    "security scheme `{name}` is the only way to call {tools_word}, and mcpgen cannot sign in with it: \
                     {description} ({env})"
                ),
                "offer a scheme mcpgen performs (an API key, a bearer token, OAuth2 client credentials), or document \
                 how a user gets a long-lived token",
            )
        };
        out.push(match finding.severity {
            // The tools' calls fail: each of them loses its worth.
            Severity::Error => finding.about_all(tools),
            // A user sets a token once: a cost to the API, not to each call.
            _ => finding.spanning(tools.len()),
        });
    }
    out
}

/// Whether no fixed credential passes the declared scheme.
fn unsupported(scheme: &ir::SecurityScheme) -> bool {
    match scheme {
        ir::SecurityScheme::MutualTls => true,
        ir::SecurityScheme::Http { scheme: HttpScheme::Other(name), .. } => {
            CHALLENGE_SCHEMES.contains(&name.as_str()) || name.starts_with("scram-")
        }
        _ => false,
    }
}

/// Whether no fixed credential passes a config's external scheme, as its description (the one
/// `crate::tools::security` writes) says: mutual TLS, or an HTTP scheme that answers a challenge.
fn unsupported_in_config(description: &str) -> bool {
    let http = description.strip_prefix("HTTP `").and_then(|rest| rest.split('`').next());
    description.starts_with("mutual TLS")
        || http.is_some_and(|name| CHALLENGE_SCHEMES.contains(&name) || name.starts_with("scram-"))
}

/// Where the scheme `name` is declared: the document's components (Swagger 2.0's
/// `securityDefinitions`), or the config's `security_schemes`.
fn scheme_pointer(ctx: &Context<'_>, name: &str) -> String {
    let holder = match ctx.ir.map(|ir| ir.dialect) {
        Some(Dialect::Swagger2) => "#/securityDefinitions",
        Some(_) => "#/components/securitySchemes",
        None => "#/security_schemes",
    };
    child(holder, name)
}

/// `undefined-security-scheme`.
fn undefined(ctx: &Context<'_>) -> Vec<Finding> {
    let Some(ir) = ctx.ir.filter(|ir| ir.dialect.is_openapi()) else { return Vec::new() };
    let unreadable = |name: &str| {
        let at = scheme_pointer(ctx, name);
        ctx.diagnostics.iter().any(|d| d.pointer == at || d.pointer.starts_with(&format!("{at}/")))
    };
    // By scheme name: where it is first required, and the tools sent without credentials.
    let mut missing: BTreeMap<&str, (String, Vec<&str>)> = BTreeMap::new();
    for s in &ctx.subjects {
        let Origin::Operation(op) = s.origin else { continue };
        let (reqs, at) = match &op.security {
            Some(reqs) => (reqs, child(&op.pointer, "security")),
            None => (&ir.security, "#/security".to_string()),
        };
        let sent_bare = s.tool.http.as_ref().is_some_and(|h| h.security.is_empty());
        if reqs.is_empty() || reqs.iter().any(|r| r.is_empty()) || !sent_bare {
            continue;
        }
        let names: BTreeSet<&str> = reqs.iter().flat_map(|r| r.keys()).map(String::as_str).collect();
        for name in names {
            if ir.security_schemes.contains_key(name) || unreadable(name) {
                continue;
            }
            let entry = missing.entry(name).or_insert_with(|| (at.clone(), Vec::new()));
            entry.1.push(&s.pointer);
        }
    }
    missing
        .into_iter()
        .map(|(name, (at, tools))| {
            Finding::new(
                &UNDEFINED_SECURITY_SCHEME,
                at,
                format!(
                    "`security` names the scheme `{name}`, which the document does not define: {} sent without credentials",
                    match tools.len() {
                        1 => "1 tool is".to_string(),
                        n => format!("{} tools are", super::group_digits(n)),
                    }
                ),
                format!("define `{name}` among the security schemes, or correct the name"),
            )
            .about_all(tools)
        })
        .collect()
}

#[cfg(test)]
mod tests;
