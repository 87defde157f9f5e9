//! A tool call through the engine: the checks (scopes, arguments), the call itself (a handler, or
//! the HTTP request with its credentials, in `call/http.rs`) and what is observed of it (metrics,
//! the log line). A child module of `engine.rs`, so that the engine's fields stay private to the
//! engine.

mod http;

use std::sync::OnceLock;
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use serde_json::{Map, Value};
use tracing::Instrument;

use super::delivery::{Delivery, Via};
use super::{Engine, Observation, Surface, ToolEntry, tool_error};
use crate::engine::caller::Caller;
use crate::engine::confirm::Asker;
use crate::error::{Error, Result};
use crate::metrics::{Outcome, RequestId};
use crate::response;

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

    /// [`Engine::call_on_asking`] for the client request `session`, which a Rust tool may ask
    /// the user through.
    pub(crate) async fn call_in_session(
        &self,
        surface: Surface,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
        asker: Option<&Asker>,
        session: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult> {
        let via = Via { asker, session: Some(session), ..Via::default() };
        self.observed(name, args, surface, caller, via).await.0
    }

    /// A call from a crate's Rust code ([`crate::ext::Context::call`]): as a model's call of
    /// the API's tool (counted and logged too), its result the response whole: JSON parsed, text
    /// as a string, `null` for no body; a failure is the error text a model would see.
    pub(crate) async fn call_from_rust(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
    ) -> std::result::Result<Value, crate::ext::Error> {
        let via = Via { delivery: Delivery::Rust, ..Via::default() };
        let (result, _, _) = self.observed(name, args, Surface::AllTools, caller, via).await;
        let result = result.map_err(|e| crate::ext::Error::new(e.to_string()))?;
        let text = || result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect::<String>();
        if result.is_error == Some(true) {
            return Err(crate::ext::Error::new(text()));
        }
        if let Some(structured) = &result.structured_content {
            return Ok(structured.clone());
        }
        Ok(match response::script::Kind::of(&result) {
            Some(response::script::Kind::Json) => serde_json::from_str(&text())?,
            Some(response::script::Kind::Empty) => Value::Null,
            _ => Value::String(text()),
        })
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
        let result = Box::pin(self.route(name, args, surface, caller, via, &mut obs))
            .instrument(tracing::info_span!("call", request_id = %id))
            .await;
        let outcome = outcome_of(&result, &obs);
        let counted = self.count(name, outcome, &obs);
        let line = CallLine { id, name, counted, outcome, status: obs.status, started };
        self.log_call(&line);
        (result, outcome, obs.status)
    }

    /// The call itself: one of the server's own tools where `surface` serves them (code mode's,
    /// discovery's), else the API's tool, where `surface` calls it directly.
    async fn route(
        &self,
        name: &str,
        args: Map<String, Value>,
        surface: Surface,
        caller: &Caller,
        via: Via<'_>,
        obs: &mut Observation,
    ) -> Result<CallToolResult> {
        if let Some(result) = super::code::call_own(self, surface, name, &args, caller, via.asker, obs).await {
            return Ok(result);
        }
        if let Some(result) = super::search::call_own(self, surface, name, &args, caller, obs).await {
            return Ok(result);
        }
        if !self.calls_directly(surface, name) && self.index.contains_key(name) {
            obs.outcome = Some(Outcome::UnknownTool);
            return Err(Error::OnlyThroughCallTool(name.to_string()));
        }
        self.call_delivering(name, args, caller, obs, via).await
    }

    /// Counts the call of `name` as `outcome`: under its catalogue tool, or the server's own tool
    /// it is, or as an unknown tool. The name it is counted under, if any.
    fn count<'a>(&'a self, name: &str, outcome: Outcome, obs: &Observation) -> Option<&'a str> {
        match obs.tool {
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
        }
    }

    /// The call's log line (never its arguments, headers or credentials): at `info` as an access
    /// log ([`EngineOptions::log_calls`](super::EngineOptions::log_calls)), else at `debug`.
    fn log_call(&self, line: &CallLine<'_>) {
        let CallLine { id, name, counted, outcome, status, started } = *line;
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
                    status,
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
    }

    /// [`Engine::call_as`] without its count and log line: what the call did goes into `obs`.
    pub async fn call_observing(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
        obs: &mut Observation,
    ) -> Result<CallToolResult> {
        self.call_delivering(name, args, caller, obs, Via::default()).await
    }

    /// [`Engine::call_observing`], its result written for `delivery`.
    async fn call_delivering(
        &self,
        name: &str,
        args: Map<String, Value>,
        caller: &Caller,
        obs: &mut Observation,
        via: Via<'_>,
    ) -> Result<CallToolResult> {
        let delivery = via.delivery;
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
        let schema = tool.full_input_schema();
        crate::engine::args::drop_absent_nulls(schema, &mut args);
        // An argument the request would drop is refused, before anything is sent.
        if !tool.passes_unknown_arguments() {
            let unknown = crate::engine::args::unknown_arguments(schema, &args);
            if !unknown.is_empty() {
                obs.outcome = Some(Outcome::InvalidArguments);
                let text = crate::engine::args::unknown_text(&unknown);
                return Ok(tool_error(format!("Invalid arguments for `{name}`: {text}. Fix them and call again.")));
            }
        }
        let args_value = Value::Object(args);
        if let Some(problems) = validate(&tool.input_validator, || Value::Object(schema.clone()), &args_value) {
            obs.outcome = Some(Outcome::InvalidArguments);
            return Ok(tool_error(format!("Invalid arguments for `{name}`: {problems}. Fix them and call again.")));
        }
        let Value::Object(mut args) = args_value else {
            obs.outcome = Some(Outcome::InvalidArguments);
            return Ok(tool_error("arguments must be an object".into()));
        };
        let mut result = match &tool.http {
            // The crate's Rust code answers a model's call of a tool it replaces (with the
            // model's arguments: the owner's fixed values are the API request's, added when the
            // code calls the tool through its context); its own calls of the tool reach the API.
            Some(_) if tool.rust && delivery != Delivery::Rust => {
                tool.owners.apply_defaults(&mut args);
                self.call_handler(tool, args, caller, via).await
            }
            Some(http) => {
                tool.owners.apply(&mut args);
                let wanted = Wanted { filter: filter.as_deref(), delivery };
                self.call_http(tool, http, &args, wanted, caller, obs).await
            }
            None => {
                tool.owners.apply(&mut args);
                self.call_handler(tool, args, caller, via).await
            }
        };
        self.ext.hooks.after_response(name, &mut result);
        Ok(result)
    }

    /// A tool without an HTTP binding, or one the crate's Rust code replaces, is answered by its
    /// handler.
    async fn call_handler(
        &self,
        tool: &ToolEntry,
        args: Map<String, Value>,
        caller: &Caller,
        via: Via<'_>,
    ) -> CallToolResult {
        let name = &tool.mcp.name;
        let Some(me) = self.me.upgrade() else {
            return tool_error("the server is shutting down".into());
        };
        let cx = crate::ext::Context::new(me, caller.clone(), via.session.cloned());
        let Some(call) = self.ext.handlers.call(name, args, cx) else {
            return tool_error(format!(
                "`{name}` has no HTTP binding and no handler: serve it with --forward-url or --bindings"
            ));
        };
        match call.await {
            // Code reads a handler's value whole, as it reads an API's response.
            Ok(value) if via.delivery.whole() => {
                response::script::script_result(response::script::Kind::Json, value.to_string())
            }
            Ok(value) => {
                let text = match &value {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                let result = response::json_result(value, text);
                let schema = || tool.assembled_output_schema().map_or(Value::Null, Value::Object);
                let check = tool.output_schema.as_ref().zip(result.structured_content.as_ref());
                if let Some((_, structured)) = check
                    && let Some(problems) = validate(&tool.output_validator, schema, structured)
                {
                    return tool_error(format!("`{name}` answered a result that breaks its output schema: {problems}"));
                }
                result
            }
            Err(e) => tool_error(e.to_string()),
        }
    }
}

/// How a call ended, for its count and log line: what the result and `obs` say.
fn outcome_of(result: &Result<CallToolResult>, obs: &Observation) -> Outcome {
    match (result, obs.outcome) {
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
    }
}

/// What one call's log line says.
#[derive(Clone, Copy)]
struct CallLine<'a> {
    id: RequestId,
    /// The name called.
    name: &'a str,
    /// The tool it was counted under, if any.
    counted: Option<&'a str>,
    outcome: Outcome,
    status: Option<u16>,
    started: Instant,
}

/// What a call's result is made of: its `_jq` filter, and whom it is for.
#[derive(Clone, Copy)]
struct Wanted<'a> {
    filter: Option<&'a str>,
    delivery: Delivery,
}

/// Validates against a lazily compiled schema; `Some(problems)` when invalid. A schema the
/// validator cannot compile (an exotic regex, say) is not enforced: the upstream will judge.
fn validate(
    cell: &OnceLock<Option<jsonschema::Validator>>,
    schema: impl FnOnce() -> Value,
    instance: &Value,
) -> Option<String> {
    let validator = cell.get_or_init(|| match jsonschema::validator_for(&schema()) {
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
            let what = match e.kind() {
                jsonschema::error::ValidationErrorKind::Enum { options } => match options.as_array() {
                    Some(options) => crate::engine::args::enum_text(e.instance(), options),
                    None => e.to_string(),
                },
                _ => e.to_string(),
            };
            if at.is_empty() { what } else { format!("{at}: {what}") }
        })
        .collect();
    (!problems.is_empty()).then(|| problems.join("; "))
}
