//! The HTTP call of a tool, in its steps: the request as its target says, the identity it
//! carries (the caller's or the server's credentials), the hooks, sending it (again, once, with a
//! fresh token when the API refuses one), and its response as the result. A child module of
//! `call.rs`, so that the engine's fields stay private to the engine.

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use super::{Wanted, validate};
use crate::config::HttpBinding;
use crate::engine::caller::{Caller, Principal};
use crate::engine::delivery::Delivery;
use crate::engine::{Engine, Observation, ToolEntry, tool_error};
use crate::error::{Error, Result};
use crate::metrics::Outcome;
use crate::response::{self, CallContext};
use crate::upstream::UpstreamResponse;
use crate::upstream::credentials::{Credential, OAuth2Client};
use crate::upstream::identity::{Identity, UpstreamAuth};
use crate::upstream::request::{self, PreparedRequest};

/// Why a call stopped before the API answered: how it is counted, and the model's text.
type Stopped = (Outcome, String);

/// Whose identity a request carries, once its credentials are added.
struct Carried<'e> {
    /// The caller's (passthrough, exchange, user) instead of the server's.
    delegated: bool,
    /// The server's OAuth2 client whose token went, to fetch a new one if the API refuses it.
    oauth: Option<&'e OAuth2Client>,
}

impl Engine {
    /// Calls `tool` over HTTP with `args` for `caller`; what happened goes into `obs`.
    pub(super) async fn call_http(
        &self,
        tool: &ToolEntry,
        http: &HttpBinding,
        args: &Map<String, Value>,
        wanted: Wanted<'_>,
        caller: &Caller,
        obs: &mut Observation,
    ) -> CallToolResult {
        let sent = async {
            let mut req = self.prepare_http(tool, http, args)?;
            let carried = self.carry_identity(tool, http, caller, &mut req).await?;
            if let Err(e) = self.ext.hooks.before_request(&tool.mcp.name, args, &mut req).await {
                return Err((Outcome::Refused, e.to_string()));
            }
            let origin = crate::response::lean::origin_of(&req.url);
            let outcome = self.send_http(tool, caller, &carried, &mut req).await?;
            Ok((outcome, carried.delegated, origin))
        };
        match sent.await {
            Ok((Ok(resp), delegated, origin)) => {
                let answer = Answer { tool, http, args, wanted, delegated, origin: &origin };
                self.answer_http(resp, answer, obs).await
            }
            Ok((Err(e), _, _)) => {
                obs.outcome = Some(Outcome::TransportError);
                tool_error(e.to_string())
            }
            Err((outcome, text)) => {
                obs.outcome = Some(outcome);
                tool_error(text)
            }
        }
    }

    /// The request as `tool`'s target says (its base URL and static headers), asking for JSON
    /// first: many APIs answer XML to `*/*` (Swagger 2.0 `produces` lists often start with it).
    fn prepare_http(
        &self,
        tool: &ToolEntry,
        http: &HttpBinding,
        args: &Map<String, Value>,
    ) -> std::result::Result<PreparedRequest, Stopped> {
        let target = self.target_of(tool);
        // The target's base URL was parsed when the engine was built; an operation's own is parsed here.
        let prepared = match (&http.base_url, &target.base) {
            (None, Some(parsed)) => request::prepare_on(parsed, http, args),
            (own, _) => {
                let base = own.as_deref().or(target.base_url.as_deref()).unwrap_or_default();
                request::prepare(base, http, args)
            }
        };
        let mut req = prepared
            .map_err(|e| (Outcome::InvalidArguments, format!("Invalid arguments for `{}`: {e}", tool.mcp.name)))?;
        if !req.headers.contains_key(reqwest::header::ACCEPT) {
            req.headers.insert(reqwest::header::ACCEPT, HeaderValue::from_static("application/json, */*;q=0.8"));
        }
        for (k, v) in &target.headers {
            req.headers.insert(k, v.clone());
        }
        Ok(req)
    }

    /// Adds the identity `req` carries: the caller's (its token for passthrough, the one
    /// exchanged for it, or its own at the API for user) and none of the server's credentials,
    /// or the server's credentials. An anonymous caller, which the HTTP layer never lets through,
    /// gets none.
    async fn carry_identity(
        &self,
        tool: &ToolEntry,
        http: &HttpBinding,
        caller: &Caller,
        req: &mut PreparedRequest,
    ) -> std::result::Result<Carried<'_>, Stopped> {
        let identity = &self.target_of(tool).identity;
        let delegated = !matches!(identity, Identity::Server) && caller.is_restricted();
        if !delegated {
            let oauth =
                self.authorize(req, &http.security).await.map_err(|e| (Outcome::CredentialsError, e.to_string()))?;
            return Ok(Carried { delegated, oauth });
        }
        if let Some(p) = caller.principal() {
            let v = self
                .caller_authorization(identity, p, &tool.mcp.name, false)
                .await
                .map_err(|e| (Outcome::CredentialsError, e))?;
            req.headers.insert(reqwest::header::AUTHORIZATION, v);
        }
        Ok(Carried { delegated, oauth: None })
    }

    /// Sends `req`; a token the API refuses (401) may have been revoked early or have expired:
    /// it is exchanged, refreshed or fetched again and the request sent again, once. A user
    /// whose refresh is refused is told where to authorize again, rather than the API's 401.
    async fn send_http(
        &self,
        tool: &ToolEntry,
        caller: &Caller,
        carried: &Carried<'_>,
        req: &mut PreparedRequest,
    ) -> std::result::Result<Result<UpstreamResponse>, Stopped> {
        let identity = &self.target_of(tool).identity;
        let refused = |outcome: &Result<UpstreamResponse>| matches!(outcome, Ok(resp) if resp.status == reqwest::StatusCode::UNAUTHORIZED);
        let mut outcome = self.upstream.send(req).await;
        if let (true, Some(p)) = (carried.delegated, caller.principal())
            && refused(&outcome)
            && !matches!(identity, Identity::Passthrough)
        {
            match self.caller_authorization(identity, p, &tool.mcp.name, true).await {
                Ok(v) => {
                    req.headers.insert(reqwest::header::AUTHORIZATION, v);
                    outcome = self.upstream.send(req).await;
                }
                Err(e) if identity.mode() == UpstreamAuth::User => return Err((Outcome::CredentialsError, e)),
                Err(_) => {}
            }
        }
        if let Some(client) = carried.oauth
            && refused(&outcome)
        {
            client.invalidate().await;
            if let Ok(token) = client.token(self.upstream.http()).await
                && let Ok(v) = HeaderValue::from_str(token.expose())
            {
                req.headers.insert(reqwest::header::AUTHORIZATION, v);
                outcome = self.upstream.send(req).await;
            }
        }
        Ok(outcome)
    }

    /// The API's response as the call's result: counted by its status, checked against the
    /// tool's output schema, written for whom it is for (the model within its budget, or a
    /// script whole).
    async fn answer_http(&self, resp: UpstreamResponse, answer: Answer<'_>, obs: &mut Observation) -> CallToolResult {
        let Answer { tool, http, args, wanted, delegated, origin } = answer;
        obs.status = Some(resp.status.as_u16());
        obs.outcome = Some(Outcome::of_status(resp.status.as_u16()));
        let output_check = |v: &Value| {
            let schema = || tool.assembled_output_schema().map_or(Value::Null, Value::Object);
            tool.output_schema.as_ref().and_then(|_| validate(&tool.output_validator, schema, v))
        };
        let ctx = CallContext {
            method: http.method,
            path: &http.path,
            tool: &tool.mcp.name,
            auth_hint: self.auth_hint(tool, http, delegated),
            validate_output: tool.output_schema.is_some().then_some(&output_check as response::OutputCheck<'_>),
            budget: crate::config::exposure::budget(tool.results.budget, self.rendering.budget),
            detail: self.rendering.detail,
            format: self.rendering.format,
            origin,
            args,
            pager: tool.results.pager.as_ref(),
            jq: tool.results.jq_arg.as_deref().map(|arg| (arg, wanted.filter)),
        };
        match wanted.delivery {
            Delivery::Model => response::to_result(resp, &ctx).await,
            // A script reads the data whole; the budget applies to what it returns.
            Delivery::Script | Delivery::Rust => response::for_script(resp, &ctx),
        }
    }

    /// What a refusal's message suggests: the identity the caller's requests carry, or the
    /// server's credentials that the tool's security needs.
    fn auth_hint(&self, tool: &ToolEntry, http: &HttpBinding, delegated: bool) -> Option<String> {
        if !delegated && http.security.iter().all(Vec::is_empty) {
            let hint = crate::engine::NO_SCHEME_HINT;
            return Some(format!("the API description declares no credentials for this tool; {hint}"));
        }
        if !delegated {
            return self.credentials.hint(&http.security);
        }
        Some(match self.target_of(tool).identity.mode() {
            UpstreamAuth::Exchange => {
                "the token exchanged for the caller (--upstream-auth exchange) does not grant this".into()
            }
            UpstreamAuth::User => {
                "the caller's own authorization at the API (--upstream-auth user) does not grant this".into()
            }
            _ => "the caller's access token (--upstream-auth passthrough) does not grant this".into(),
        })
    }

    /// The `Authorization` value for the API on behalf of `caller` under `identity`: its own
    /// token (passthrough), the one exchanged for it, or its own at the API (user); `again`
    /// after the API refused the last one. The error is the model's text (for a user who must
    /// authorize first: where).
    #[cfg_attr(not(feature = "user-auth"), allow(unused_variables))]
    async fn caller_authorization(
        &self,
        identity: &Identity,
        caller: &Principal,
        tool: &str,
        again: bool,
    ) -> std::result::Result<HeaderValue, String> {
        let http = self.upstream.http();
        let value = match identity {
            Identity::Exchange(exchanger) => {
                if again {
                    exchanger.invalidate(caller.subject.as_deref(), caller.token()).await;
                }
                exchanger
                    .token_for(http, caller.subject.as_deref(), caller.token())
                    .await
                    .map_err(|e| e.to_string())?
                    .expose()
                    .to_string()
            }
            #[cfg(feature = "user-auth")]
            Identity::User(authorizer) => {
                use crate::upstream::user::authorizer::{Authorization, needed_text};
                let Some(subject) = caller.subject.as_deref() else {
                    return Err("--upstream-auth user needs the caller's access token to name its user (`sub`)".into());
                };
                let answer = if again {
                    authorizer.after_refusal(http, subject, tool).await
                } else {
                    authorizer.authorization(http, subject, tool).await
                };
                match answer.map_err(|e| e.to_string())? {
                    Authorization::Token(t) => t.expose().to_string(),
                    Authorization::Needed(prompt) => return Err(needed_text(&prompt, tool)),
                }
            }
            Identity::Passthrough => format!("Bearer {}", caller.token()),
            // Never the caller's token for the server's own identity (not asked for: see carry_identity).
            Identity::Server => return Err("this API is called with the server's own credentials".into()),
        };
        HeaderValue::from_str(&value).map_err(|_| "the caller's access token is not valid header text".to_string())
    }

    /// Adds the credentials of the first satisfiable security alternative.
    async fn authorize(&self, req: &mut PreparedRequest, security: &[Vec<String>]) -> Result<Option<&OAuth2Client>> {
        let Some(creds) = self.credentials.choose(security) else { return Ok(None) };
        let mut oauth = None;
        for c in creds {
            match c {
                Credential::Header { name, value } => {
                    let n = HeaderName::from_bytes(name.as_bytes())
                        .map_err(|_| Error::Credentials(format!("invalid credential header name {name:?}")))?;
                    let v = HeaderValue::from_str(value.expose()).map_err(|_| {
                        Error::Credentials(format!("the credential for header {name} is not valid header text"))
                    })?;
                    req.headers.insert(n, v);
                }
                // A credential replaces whatever else would go by its name (headers: `insert`).
                Credential::Query { name, value } => {
                    // Re-encoding the query is only for the rare request that has the name already
                    // (it would re-encode `allowReserved` values).
                    if req.url.query_pairs().any(|(k, _)| k == name.as_str()) {
                        let others: Vec<(String, String)> = req
                            .url
                            .query_pairs()
                            .filter(|(k, _)| k != name.as_str())
                            .map(|(k, v)| (k.into(), v.into()))
                            .collect();
                        req.url.query_pairs_mut().clear().extend_pairs(others);
                    }
                    req.url.query_pairs_mut().append_pair(name, value.expose());
                }
                Credential::Cookie { name, value } => {
                    let name = crate::upstream::encode::encode(name);
                    req.cookies.retain(|c| c.split_once('=').is_none_or(|(n, _)| n != name));
                    req.cookies.push(format!("{name}={}", crate::upstream::encode::encode(value.expose())));
                }
                Credential::OAuth2(client) => {
                    let token = client.token(self.upstream.http()).await?;
                    let v = HeaderValue::from_str(token.expose())
                        .map_err(|_| Error::Credentials("the OAuth2 access token is not valid header text".into()))?;
                    req.headers.insert(reqwest::header::AUTHORIZATION, v);
                    oauth = Some(client);
                }
            }
        }
        Ok(oauth)
    }
}

/// What the result of an HTTP call is written from, besides the response.
struct Answer<'a> {
    tool: &'a ToolEntry,
    http: &'a HttpBinding,
    args: &'a Map<String, Value>,
    wanted: Wanted<'a>,
    /// The request carried the caller's identity.
    delegated: bool,
    /// The request's origin (lean results shorten its URLs).
    origin: &'a str,
}
