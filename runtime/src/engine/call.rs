//! A tool call through the engine: the checks (scopes, arguments), the call itself (a handler, or
//! the HTTP request with its credentials) and what is observed of it (metrics, the log line). A
//! child module of `engine.rs`, so that the engine's fields stay private to the two.

use std::sync::OnceLock;
use std::time::Instant;

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::CallToolResult;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::{Engine, Observation, Surface, ToolEntry, tool_error};
use crate::config::HttpBinding;
use crate::engine::caller::Caller;
use crate::engine::confirm::Asker;
use crate::error::{Error, Result};
use crate::metrics::{Outcome, RequestId};
use crate::response::{self, CallContext};
use crate::upstream::credentials::Credential;
use crate::upstream::identity::{Identity, UpstreamAuth};
use crate::upstream::request::{self, PreparedRequest};

impl Engine {
    /// Calls a tool. Failures of the call itself (bad arguments, upstream errors) are results with
    /// `isError: true`; only an unknown tool is an `Err` ([`Error::UnknownTool`], or
    /// [`Error::Withheld`] for a tool `--pin-definitions` withholds). The call is
    /// counted in the metrics and logged (`tools/call`, with a request id, the tool, the outcome,
    /// the upstream status and the duration; never arguments, headers or credentials) at `info`
    /// with [`EngineOptions::log_calls`](super::EngineOptions::log_calls), else at `debug`.
    pub async fn call(&self, name: &str, args: Map<String, Value>) -> Result<CallToolResult> {
        self.call_as(name, args, &Caller::Trusted).await
    }

    /// Calls a tool for `caller`, counted and logged like [`Engine::call`]: a tool outside its
    /// scopes is [`Error::InsufficientScope`] (nothing is sent), and with `--upstream-auth
    /// passthrough` its token goes upstream.
    pub async fn call_as(&self, name: &str, args: Map<String, Value>, caller: &Caller) -> Result<CallToolResult> {
        self.observed(name, args, Surface::AllTools, caller, Via::default()).await.0
    }

    /// A `tools/call` from a client of the configured surface: the discovery tools in discovery
    /// mode, else the API's tool. Counted and logged like [`Engine::call`]; `caller` finds, sees
    /// and calls only the tools its scopes allow.
    pub async fn call_from_client(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
    ) -> Result<CallToolResult> {
        self.call_on(Surface::Configured, name, args, caller).await
    }

    /// [`Engine::call_from_client`] from a client of `surface`: the discovery tools where it
    /// serves them; on the discovery path, only what it lists ([`Error::OnlyThroughCallTool`]
    /// for the rest).
    pub async fn call_on(
        &self,
        surface: Surface,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
    ) -> Result<CallToolResult> {
        self.observed(name, args, surface, caller, Via::default()).await.0
    }

    /// [`Engine::call_on`] where the user can be asked to confirm the calls a script makes
    /// (`--confirm`, through `asker`).
    pub async fn call_on_asking(
        &self,
        surface: Surface,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
        asker: Option<&Asker>,
    ) -> Result<CallToolResult> {
        let via = Via { asker, ..Via::default() };
        self.observed(name, args, surface, caller, via).await.0
    }

    /// Like [`Engine::call_as`], with how the call ended and the upstream's status (a resource
    /// read tells "not found" from other failures by them).
    pub async fn call_observed(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
    ) -> (Result<CallToolResult>, Outcome, Option<u16>) {
        self.observed(name, args, Surface::AllTools, caller, Via::default()).await
    }

    /// A call on `surface` (a direct call of any tool: [`Surface::AllTools`]) with its request id
    /// (a span around it, so that what is logged during the call carries the id), in-flight
    /// gauge, count and log line.
    pub(crate) async fn observed(
        &self,
        name: &str,
        args: Map<String, Value>,
        surface: Surface,
        caller: &Caller,
        via: Via<'_>,
    ) -> (Result<CallToolResult>, Outcome, Option<u16>) {
        let id = RequestId::next();
        let started = Instant::now();
        let _in_flight = self.metrics.in_flight();
        let mut obs = Observation::default();
        // Boxed: the call's state (the upstream request, its body) is kilobytes, and every
        // future that awaits this one would hold it too, and be copied whole as it is created
        // and moved (7 % of a call's instructions went to those copies).
        let result = Box::pin(async {
            if let Some(result) = super::code::call_own(self, surface, name, &args, caller, via.asker, &mut obs).await {
                return Ok(result);
            }
            if let Some(result) = super::search::call_own(self, surface, name, &args, caller, &mut obs).await {
                return Ok(result);
            }
            if !self.calls_directly(surface, name) && self.index.contains_key(name) {
                obs.outcome = Some(Outcome::UnknownTool);
                return Err(Error::OnlyThroughCallTool(name.to_string()));
            }
            self.call_delivering(name, args, caller, &mut obs, via.delivery).await
        })
        .instrument(tracing::info_span!("call", request_id = %id))
        .await;
        let outcome = match (&result, obs.outcome) {
            (Err(Error::InsufficientScope(_)), _) => Outcome::Forbidden,
            (Err(_), _) => Outcome::UnknownTool,
            (Ok(r), Some(Outcome::Ok) | None) if r.is_error == Some(true) => {
                if obs.tool.is_none() {
                    Outcome::InvalidArguments
                } else {
                    Outcome::ToolError
                }
            }
            (Ok(_), Some(outcome)) => outcome,
            (Ok(_), None) => Outcome::Ok,
        };
        let counted = match obs.tool {
            _ if outcome == Outcome::UnknownTool => {
                self.metrics.unknown_tool();
                None
            }
            Some(i) => {
                let tool = &self.tools[i].mcp.name;
                self.counters.count(&self.metrics, i, tool, outcome);
                Some(&**tool)
            }
            None => {
                // A discovery tool that did not reach an API tool (a search, or a call_tool
                // without a usable name or arguments).
                let k = crate::engine::exposure::OWN_TOOLS.iter().position(|m| *m == name);
                if let Some(k) = k {
                    self.counters.count(&self.metrics, self.tools.len() + k, name, outcome);
                }
                k.map(|k| crate::engine::exposure::OWN_TOOLS[k])
            }
        };
        let duration_ms = started.elapsed().as_micros() as f64 / 1000.0;
        let tool: std::borrow::Cow<'_, str> = match counted {
            Some(tool) => tool.into(),
            // A name the client made up: as it is when it looks like a name, else escaped.
            None if name.len() <= 128 && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"_-./".contains(&b)) => {
                name.into()
            }
            None => name.escape_debug().to_string().into(),
        };
        macro_rules! call_line {
            ($level:expr) => {
                tracing::event!(
                    $level,
                    request_id = %id,
                    tool = &*tool,
                    outcome = outcome.as_str(),
                    status = obs.status,
                    duration_ms,
                    "tools/call"
                )
            };
        }
        if self.log_calls {
            call_line!(tracing::Level::INFO);
        } else {
            call_line!(tracing::Level::DEBUG);
        }
        (result, outcome, obs.status)
    }

    /// [`Engine::call_as`] without its count and log line: what the call did goes into `obs`.
    pub async fn call_observing(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
        obs: &mut Observation,
    ) -> Result<CallToolResult> {
        self.call_delivering(name, args, caller, obs, Delivery::Model).await
    }

    /// [`Engine::call_observing`], its result written for `delivery`.
    async fn call_delivering(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
        obs: &mut Observation,
        delivery: Delivery,
    ) -> Result<CallToolResult> {
        let Some(&index) = self.index.get(name) else {
            obs.outcome = Some(Outcome::UnknownTool);
            if let Some(reason) = self.withheld.reason(name) {
                return Err(Error::Withheld { tool: name.to_string(), why: reason.why() });
            }
            return Err(Error::UnknownTool(name.to_string()));
        };
        obs.tool = Some(index);
        let tool = &self.tools[index];
        if !caller.may_use(&tool.scopes) {
            obs.outcome = Some(Outcome::Forbidden);
            return Err(Error::InsufficientScope(name.to_string()));
        }
        let mut args = args;
        let filter = match tool.results.take_filter(&mut args) {
            Ok(f) => f,
            Err(problem) => {
                obs.outcome = Some(Outcome::InvalidArguments);
                return Ok(tool_error(format!("Invalid arguments for `{name}`: {problem}.")));
            }
        };
        // `null` for an optional argument means "left out" (models send it; OpenAI's strict mode must).
        crate::engine::args::drop_absent_nulls(&tool.input_schema, &mut args);
        let args_value = Value::Object(args);
        if let Some(problems) = validate(&tool.input_validator, &tool.input_schema, &args_value) {
            obs.outcome = Some(Outcome::InvalidArguments);
            return Ok(tool_error(format!("Invalid arguments for `{name}`: {problems}. Fix them and call again.")));
        }
        let Value::Object(args) = args_value else {
            obs.outcome = Some(Outcome::InvalidArguments);
            return Ok(tool_error("arguments must be an object".into()));
        };
        let mut result = match &tool.http {
            Some(http) => {
                let wanted = Wanted { filter: filter.as_deref(), delivery };
                self.call_http(tool, http, &args, wanted, caller, obs).await
            }
            None => self.call_handler(tool, args).await,
        };
        self.ext.hooks.after_response(name, &mut result);
        Ok(result)
    }

    /// A tool without an HTTP binding is answered by its handler.
    async fn call_handler(&self, tool: &ToolEntry, args: Map<String, Value>) -> CallToolResult {
        let name = &tool.mcp.name;
        let Some(call) = self.ext.handlers.call(name, args) else {
            return tool_error(format!(
                "`{name}` has no HTTP binding and no handler: serve it with --forward-url or --bindings"
            ));
        };
        match call.await {
            Ok(value) => {
                let text = match &value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let result = response::json_result(value, text);
                let check = tool.output_schema.as_ref().zip(result.structured_content.as_ref());
                if let Some((schema, structured)) = check
                    && let Some(problems) = validate(&tool.output_validator, schema, structured)
                {
                    return tool_error(format!("`{name}` answered a result that breaks its output schema: {problems}"));
                }
                result
            }
            Err(e) => tool_error(e.to_string()),
        }
    }

    async fn call_http(
        &self,
        tool: &ToolEntry,
        http: &HttpBinding,
        args: &Map<String, Value>,
        wanted: Wanted<'_>,
        caller: &Caller,
        obs: &mut Observation,
    ) -> CallToolResult {
        let Wanted { filter, delivery } = wanted;
        let target = self.target_of(tool);
        // The target's base URL was parsed when the engine was built; an operation's own is parsed here.
        let prepared = match (&http.base_url, &target.base) {
            (None, Some(parsed)) => request::prepare_on(parsed, http, args),
            (own, _) => {
                let base = own.as_deref().or(target.base_url.as_deref()).unwrap_or_default();
                request::prepare(base, http, args)
            }
        };
        let mut req = match prepared {
            Ok(r) => r,
            Err(e) => {
                obs.outcome = Some(Outcome::InvalidArguments);
                return tool_error(format!("Invalid arguments for `{}`: {e}", tool.mcp.name));
            }
        };
        // JSON first: many APIs answer XML to `*/*` (Swagger 2.0 `produces` lists often start with it).
        if !req.headers.contains_key(reqwest::header::ACCEPT) {
            req.headers.insert(reqwest::header::ACCEPT, HeaderValue::from_static("application/json, */*;q=0.8"));
        }
        for (k, v) in &target.headers {
            req.headers.insert(k, v.clone());
        }
        let identity = &target.identity;
        let delegated = !matches!(identity, Identity::Server) && caller.is_restricted();
        let oauth = if delegated {
            // The caller's identity instead of the server's: its token (passthrough), the one
            // exchanged for it, or its own at the API (user), and none of the server's
            // credentials (an anonymous caller, which the HTTP layer never lets through, gets none).
            if let Some(p) = caller.principal() {
                match self.caller_authorization(identity, p, &tool.mcp.name, false).await {
                    Ok(v) => {
                        req.headers.insert(reqwest::header::AUTHORIZATION, v);
                    }
                    Err(e) => {
                        obs.outcome = Some(Outcome::CredentialsError);
                        return tool_error(e);
                    }
                }
            }
            None
        } else {
            match self.authorize(&mut req, &http.security).await {
                Ok(o) => o,
                Err(e) => {
                    obs.outcome = Some(Outcome::CredentialsError);
                    return tool_error(e.to_string());
                }
            }
        };
        if let Err(e) = self.ext.hooks.before_request(&tool.mcp.name, args, &mut req).await {
            obs.outcome = Some(Outcome::Refused);
            return tool_error(e.to_string());
        }
        let origin = crate::response::lean::origin_of(&req.url);
        let mut outcome = self.upstream.send(&req).await;
        // A refused exchanged or user token may have been revoked early or have expired: exchange
        // or refresh it, once (a user whose refresh is refused is asked to authorize again).
        if let (true, Some(p), Ok(resp)) = (delegated, caller.principal(), &outcome)
            && resp.status == reqwest::StatusCode::UNAUTHORIZED
            && !matches!(identity, Identity::Passthrough)
        {
            match self.caller_authorization(identity, p, &tool.mcp.name, true).await {
                Ok(v) => {
                    req.headers.insert(reqwest::header::AUTHORIZATION, v);
                    outcome = self.upstream.send(&req).await;
                }
                // The user must authorize again: say where, rather than the API's 401.
                Err(e) if identity.mode() == UpstreamAuth::User => {
                    obs.outcome = Some(Outcome::CredentialsError);
                    return tool_error(e);
                }
                Err(_) => {}
            }
        }
        // A refused OAuth2 token may have been revoked early: fetch a new one, once.
        if let (Some(client), Ok(resp)) = (oauth, &outcome)
            && resp.status == reqwest::StatusCode::UNAUTHORIZED
        {
            client.invalidate().await;
            if let Ok(token) = client.token(self.upstream.http()).await
                && let Ok(v) = HeaderValue::from_str(token.expose())
            {
                req.headers.insert(reqwest::header::AUTHORIZATION, v);
                outcome = self.upstream.send(&req).await;
            }
        }
        match outcome {
            Ok(resp) => {
                obs.status = Some(resp.status.as_u16());
                obs.outcome = Some(Outcome::of_status(resp.status.as_u16()));
                let output_check = |v: &Value| {
                    tool.output_schema.as_ref().and_then(|schema| validate(&tool.output_validator, schema, v))
                };
                let ctx = CallContext {
                    method: http.method,
                    path: &http.path,
                    tool: &tool.mcp.name,
                    auth_hint: if delegated {
                        Some(match identity.mode() {
                            UpstreamAuth::Exchange => {
                                "the token exchanged for the caller (--upstream-auth exchange) does not grant this"
                                    .into()
                            }
                            UpstreamAuth::User => {
                                "the caller's own authorization at the API (--upstream-auth user) does not grant this"
                                    .into()
                            }
                            _ => "the caller's access token (--upstream-auth passthrough) does not grant this".into(),
                        })
                    } else {
                        self.credentials.hint(&http.security)
                    },
                    validate_output: tool.output_schema.is_some().then_some(&output_check as response::OutputCheck<'_>),
                    budget: crate::config::exposure::budget(tool.results.budget, self.rendering.budget),
                    detail: self.rendering.detail,
                    format: self.rendering.format,
                    origin: &origin,
                    args,
                    pager: tool.results.pager.as_ref(),
                    jq: tool.results.jq_arg.as_deref().map(|arg| (arg, filter)),
                };
                match delivery {
                    Delivery::Model => response::to_result(resp, &ctx).await,
                    // A script reads the data whole; the budget applies to what it returns.
                    Delivery::Script => response::for_script(resp, &ctx),
                }
            }
            Err(e) => {
                obs.outcome = Some(Outcome::TransportError);
                tool_error(e.to_string())
            }
        }
    }

    /// The `Authorization` value for the API on behalf of `caller` under `identity`: its own
    /// token (passthrough), the one exchanged for it, or its own at the API (user); `again`
    /// after the API refused the last one. The error is the model's text (for a user who must
    /// authorize first: where).
    #[cfg_attr(not(feature = "user-auth"), allow(unused_variables))]
    async fn caller_authorization(
        &self,
        identity: &Identity,
        caller: &crate::engine::caller::Principal,
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
            // Never the caller's token for the server's own identity (not asked for: see call_http).
            Identity::Server => return Err("this API is called with the server's own credentials".into()),
        };
        HeaderValue::from_str(&value).map_err(|_| "the caller's access token is not valid header text".to_string())
    }

    /// Adds the credentials of the first satisfiable security alternative.
    async fn authorize(
        &self,
        req: &mut PreparedRequest,
        security: &[Vec<String>],
    ) -> Result<Option<&crate::upstream::credentials::OAuth2Client>> {
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

/// Whom a call's result is written for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Delivery {
    /// The model: lean or full, tables, within the result budget.
    #[default]
    Model,
    /// A script of code mode: the response as sent, whole (see [`response::for_script`]).
    Script,
}

/// What a call's result is made of: its `_jq` filter, and whom it is for.
#[derive(Clone, Copy)]
struct Wanted<'a> {
    filter: Option<&'a str>,
    delivery: Delivery,
}

/// How a call reaches the engine besides its tool and arguments.
#[derive(Clone, Copy, Default)]
pub(crate) struct Via<'a> {
    /// Whom the result is for.
    pub(crate) delivery: Delivery,
    /// Who asks the user to confirm the calls a script makes (`--confirm`).
    #[cfg_attr(not(feature = "code"), allow(dead_code))]
    pub(crate) asker: Option<&'a crate::engine::confirm::Asker>,
}

/// Validates against a lazily compiled schema; `Some(problems)` when invalid. A schema the
/// validator cannot compile (an exotic regex, say) is not enforced: the upstream will judge.
fn validate(
    cell: &OnceLock<Option<jsonschema::Validator>>,
    schema: &Map<String, Value>,
    instance: &Value,
) -> Option<String> {
    let validator = cell.get_or_init(|| match jsonschema::validator_for(&Value::Object(schema.clone())) {
        Ok(v) => Some(v),
        Err(e) => {
            tracing::warn!("schema not enforced (it does not compile: {e})");
            None
        }
    });
    let validator = validator.as_ref()?;
    // Most calls are valid: a yes or no first, the errors only when there are some.
    if validator.is_valid(instance) {
        return None;
    }
    let problems: Vec<String> = validator
        .iter_errors(instance)
        .take(5)
        .map(|e| {
            let at = e.instance_path().to_string();
            if at.is_empty() { e.to_string() } else { format!("{at}: {e}") }
        })
        .collect();
    (!problems.is_empty()).then(|| problems.join("; "))
}
