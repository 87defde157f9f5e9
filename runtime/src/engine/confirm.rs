//! Confirmation of calls that change data (`--confirm destructive|writes`): before such a call
//! reaches the API, the user is asked through the client (MCP elicitation).
//!
//! - Clients of 2025-06-18 and 2025-11-25 on a stream (stdio, legacy SSE) get an
//!   `elicitation/create` request in the middle of the `tools/call`.
//! - Clients of 2026-07-28 (stateless, SEP-2322) get an `InputRequiredResult` asking the same
//!   question, with a `requestState` sealed by HMAC-SHA256 and bound to the tool, a digest of the
//!   arguments and the caller, valid for [`STATE_TTL`]. The client's retry must carry it back
//!   unchanged with the same arguments: a forged, tampered, expired, reused or other-arguments
//!   state is refused with a JSON-RPC error, and nothing reaches the API.
//! - A client that cannot be asked (no elicitation capability, or a 2025 client over stateless
//!   Streamable HTTP, which has no channel for a request to the client mid-call) is refused.
//!
//! The HMAC key is random per process unless `MCPGEN_CONFIRM_KEY` gives one (replicas behind a
//! load balancer must share it). It is never logged.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequestParams, ElicitResult, ElicitationAction, InputRequest,
    InputRequests, InputRequiredResult, ProtocolVersion, RequestStateCodec, RequestStateError, SealOptions,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};

use crate::engine::caller::Caller;
use crate::engine::{Engine, Surface, ToolEntry, tool_error};
use crate::error::Error;

/// The environment variable holding the HMAC key of request states (at least 32 bytes).
pub const KEY_ENV: &str = "MCPGEN_CONFIRM_KEY";
/// How long a 2026-07-28 client has to answer a confirmation.
pub const STATE_TTL: Duration = Duration::from_secs(300);
/// How long a 2025 client's `elicitation/create` may wait for the user.
const ELICIT_TIMEOUT: Duration = Duration::from_secs(600);
/// The key of the confirmation in `inputRequests` / `inputResponses`.
pub const INPUT_KEY: &str = "confirm";
/// The boolean field of the confirmation form.
pub const FIELD: &str = "confirm";
/// Argument values longer than this are cut in the question.
const MAX_ARGS_TEXT: usize = 2000;
/// Argument names whose values are never shown (they look like credentials).
const SECRET_WORDS: &[&str] =
    &["password", "passwd", "secret", "token", "apikey", "api_key", "api-key", "authorization", "cookie", "credential"];

/// `--confirm`: which tool calls ask the user first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ConfirmPolicy {
    /// No call asks.
    #[default]
    None,
    /// Tools that may destroy data (`destructiveHint`, as DELETE operations have).
    Destructive,
    /// Every tool that is not read-only (`readOnlyHint` false: POST, PUT, PATCH, DELETE).
    Writes,
}

impl ConfirmPolicy {
    /// Whether a tool with these annotations needs the user's confirmation. The hints' defaults
    /// are MCP's: not read-only, and destructive unless said otherwise.
    pub fn applies(self, annotations: Option<&ToolAnnotations>) -> bool {
        let read_only = annotations.and_then(|a| a.read_only_hint).unwrap_or(false);
        let destructive = annotations.and_then(|a| a.destructive_hint).unwrap_or(true);
        match self {
            ConfirmPolicy::None => false,
            ConfirmPolicy::Destructive => !read_only && destructive,
            ConfirmPolicy::Writes => !read_only,
        }
    }
}

/// `--confirm` (a server flag, not part of the config).
#[derive(Debug, Clone, Default, Args)]
pub struct ConfirmArgs {
    /// Ask the user (MCP elicitation) before calling tools of this class; clients that cannot be
    /// asked are refused such calls. With several replicas, set MCPGEN_CONFIRM_KEY (32+ bytes)
    /// alike on all.
    #[arg(long, value_enum, value_name = "CLASS", default_value_t = ConfirmPolicy::None, help_heading = "Server")]
    pub confirm: ConfirmPolicy,
}

/// What the gate decided about one `tools/call`.
#[derive(Debug)]
pub enum Gate {
    /// Call the API.
    Proceed,
    /// Answer this instead (a question, a refusal, the user's decline); nothing goes upstream.
    Answer(CallToolResponse),
}

/// The confirmation gate of one server: the policy, the request state codec and the states
/// already used (so that one confirmation calls the API once).
pub struct Confirmer {
    policy: ConfirmPolicy,
    codec: RequestStateCodec,
    used: Mutex<HashMap<String, Instant>>,
}

impl std::fmt::Debug for Confirmer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Confirmer").field("policy", &self.policy).finish_non_exhaustive()
    }
}

/// The tool a call reaches and its arguments (through discovery's `call_tool` too).
pub(crate) struct Target<'a> {
    pub(crate) tool: &'a ToolEntry,
    args: Map<String, Value>,
}

impl Confirmer {
    /// The gate for `policy`; `None` when nothing is confirmed. The key comes from
    /// [`KEY_ENV`] when set, else it is random.
    pub fn new(policy: ConfirmPolicy) -> Result<Option<Arc<Confirmer>>, Error> {
        Self::with_key(policy, std::env::var(KEY_ENV).ok())
    }

    /// Like [`Confirmer::new`] with the key given (tests).
    pub fn with_key(policy: ConfirmPolicy, key: Option<String>) -> Result<Option<Arc<Confirmer>>, Error> {
        if policy == ConfirmPolicy::None {
            return Ok(None);
        }
        let key = match key {
            Some(k) => k.into_bytes(),
            None => {
                let mut k = vec![0u8; 32];
                ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut k)
                    .map_err(|_| Error::Config("no randomness for the --confirm key".into()))?;
                k
            }
        };
        let codec = RequestStateCodec::try_new(key).map_err(|e| match e {
            RequestStateError::KeyTooShort { minimum, actual } => {
                Error::Config(format!("{KEY_ENV} must hold at least {minimum} bytes, it holds {actual}"))
            }
            other => Error::Config(format!("{KEY_ENV}: {other}")),
        })?;
        Ok(Some(Arc::new(Confirmer { policy, codec, used: Mutex::new(HashMap::new()) })))
    }

    /// Decides whether `request` may go on to the API, asking the user if its tool needs it.
    pub async fn gate(
        &self,
        engine: &Engine,
        surface: Surface,
        request: &CallToolRequestParams,
        args: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
        caller: &Caller,
    ) -> Result<Gate, ErrorData> {
        let Some(target) = target(engine, surface, &request.name, args) else { return Ok(Gate::Proceed) };
        if !self.policy.applies(target.tool.mcp.annotations.as_ref()) {
            return Ok(Gate::Proceed);
        }
        let question = question(engine, &target);
        let can_elicit = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let stateless = context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        if stateless {
            return self.stateless(request, &target, &question, can_elicit, caller);
        }
        // Stateless HTTP keeps no session: a request to the client mid-call has no way back.
        if context.extensions.get::<http::request::Parts>().is_some() {
            return Ok(refused(
                &target,
                "this client's protocol (before 2026-07-28) cannot be asked in the middle of a call over stateless \
                 Streamable HTTP; use protocol 2026-07-28 or stdio",
            ));
        }
        Ok(elicit(&target, question, can_elicit, context).await)
    }

    /// Whether a call that a script makes (code mode's `run_script`) may go on: `None` when it
    /// may (the policy does not cover it, or the user said yes), else the refusal the script's
    /// call throws. The user is asked in the middle of the `run_script` call, through its
    /// session; a session that cannot be asked mid-call (stateless Streamable HTTP, whatever the
    /// protocol: a 2026-07-28 retry would run the script again) is refused.
    pub async fn confirm_script_call(
        &self,
        engine: &Engine,
        tool: &ToolEntry,
        args: &Map<String, Value>,
        context: &RequestContext<RoleServer>,
    ) -> Option<String> {
        if !self.policy.applies(tool.mcp.annotations.as_ref()) {
            return None;
        }
        let target = Target { tool, args: args.clone() };
        let question = format!("A script asks: {}", question(engine, &target));
        let can_elicit = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let gate = if context.extensions.get::<http::request::Parts>().is_some() {
            refused(
                &target,
                "a script cannot ask for it over stateless Streamable HTTP (the user can only be asked in the \
                 middle of a call over stdio or an SSE session); call the tool on its own instead",
            )
        } else {
            elicit(&target, question, can_elicit, context).await
        };
        match gate {
            Gate::Proceed => None,
            Gate::Answer(answer) => Some(answer_text(&answer)),
        }
    }

    /// The 2026-07-28 flow: ask with an `InputRequiredResult`, or check the retry's answer.
    fn stateless(
        &self,
        request: &CallToolRequestParams,
        target: &Target<'_>,
        question: &str,
        can_elicit: bool,
        caller: &Caller,
    ) -> Result<Gate, ErrorData> {
        let bound = associated_data(&target.tool.mcp.name, &target.args, caller);
        let Some(state) = &request.request_state else {
            if !can_elicit {
                return Ok(refused(target, "the client does not support elicitation"));
            }
            return self.ask(question, &bound);
        };
        let nonce = self.codec.open_with(state, bound.as_bytes()).map_err(|e| {
            let why = match e {
                RequestStateError::Expired => "it has expired; call the tool again without requestState".to_string(),
                RequestStateError::IntegrityCheckFailed => {
                    "it was not issued for this tool, these arguments and this caller, or was altered".to_string()
                }
                other => other.to_string(),
            };
            ErrorData::invalid_params(
                format!("confirmation of `{}` refused: the requestState is not valid: {why}", target.tool.mcp.name),
                None,
            )
        })?;
        let answer = request.input_responses.as_ref().and_then(|r| r.get(INPUT_KEY)).cloned();
        // No (readable) answer: ask again, as SEP-2322 recommends.
        let Some(answer) = answer.and_then(|a| serde_json::from_value::<ElicitResult>(a).ok()) else {
            return self.ask(question, &bound);
        };
        let gate = decide(target, &answer);
        if matches!(gate, Gate::Proceed) && !self.first_use(&nonce) {
            return Err(ErrorData::invalid_params(
                format!("confirmation of `{}` refused: this requestState was already used", target.tool.mcp.name),
                None,
            ));
        }
        Ok(gate)
    }

    /// An `InputRequiredResult` asking the question, its state sealed to `bound`.
    fn ask(&self, question: &str, bound: &str) -> Result<Gate, ErrorData> {
        let mut nonce = [0u8; 16];
        ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut nonce)
            .map_err(|_| ErrorData::internal_error("no randomness for the confirmation", None))?;
        let state = self.codec.seal_with(&nonce, &SealOptions::new().associated_data(bound.as_bytes()).ttl(STATE_TTL));
        let request: InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"mode": "form", "message": question, "requestedSchema": form_schema()},
        }))
        .map_err(|e| ErrorData::internal_error(format!("confirmation request: {e}"), None))?;
        let requests: InputRequests = [(INPUT_KEY.to_string(), request)].into();
        Ok(Gate::Answer(InputRequiredResult::new(Some(requests), Some(state)).into()))
    }

    /// Records a state's nonce as used; `false` when it already was. Expired entries go.
    fn first_use(&self, nonce: &[u8]) -> bool {
        let key: String = nonce.iter().map(|b| format!("{b:02x}")).collect();
        let now = Instant::now();
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used.retain(|_, at| now.duration_since(*at) < STATE_TTL);
        used.insert(key, now).is_none()
    }
}

/// Asks the user, through the session of one `tools/call`, to confirm the calls a script run by
/// it makes (`--confirm`).
#[derive(Clone)]
pub struct Asker {
    confirmer: Arc<Confirmer>,
    context: RequestContext<RoleServer>,
}

impl Asker {
    /// The asker for the call of `context`.
    pub fn new(confirmer: Arc<Confirmer>, context: RequestContext<RoleServer>) -> Asker {
        Asker { confirmer, context }
    }

    /// `None` when the call may go on, else why not (see [`Confirmer::confirm_script_call`]).
    pub async fn check(&self, engine: &Engine, tool: &ToolEntry, args: &Map<String, Value>) -> Option<String> {
        self.confirmer.confirm_script_call(engine, tool, args, &self.context).await
    }
}

/// The API tool a call on `surface` reaches: the tool named by discovery's `call_tool` where
/// discovery is served, else itself (none when the surface does not call it directly).
pub(crate) fn target<'a>(
    engine: &'a Engine,
    surface: Surface,
    name: &str,
    args: &Map<String, Value>,
) -> Option<Target<'a>> {
    if engine.serves_meta(surface) && name == crate::engine::exposure::CALL_TOOL {
        let inner = args.get("name").and_then(Value::as_str)?;
        let tool = engine.tool(inner)?;
        let args = match args.get("arguments") {
            Some(Value::Object(a)) => a.clone(),
            _ => Map::new(),
        };
        return Some(Target { tool, args });
    }
    let tool = engine.tool(name).filter(|_| engine.calls_directly(surface, name))?;
    Some(Target { tool, args: args.clone() })
}

/// Asks the user through the session of `context` (an `elicitation/create` request in the middle
/// of the call), if the client can be asked.
async fn elicit(target: &Target<'_>, question: String, can_elicit: bool, context: &RequestContext<RoleServer>) -> Gate {
    if !can_elicit {
        return refused(target, "the client does not support elicitation");
    }
    let schema = match serde_json::from_value(form_schema()) {
        Ok(s) => s,
        Err(e) => return refused(target, &format!("the confirmation form could not be made ({e})")),
    };
    let params = ElicitRequestParams::FormElicitationParams { meta: None, message: question, requested_schema: schema };
    match context.peer.create_elicitation_with_timeout(params, Some(ELICIT_TIMEOUT)).await {
        Ok(answer) => decide(target, &answer),
        Err(e) => refused(target, &format!("asking the user failed ({e})")),
    }
}

/// The text of a refusal or a decline.
fn answer_text(answer: &CallToolResponse) -> String {
    match answer {
        CallToolResponse::Complete(result) => {
            result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.as_str())).collect::<Vec<_>>().join("\n")
        }
        _ => "the call needs the user's confirmation, which could not be asked".to_string(),
    }
}

/// The form: one required boolean.
fn form_schema() -> Value {
    json!({
        "type": "object",
        "properties": {FIELD: {"type": "boolean", "title": "Allow this call", "default": false}},
        "required": [FIELD],
    })
}

/// The question: the tool, the request it sends (method, URL path) and the arguments, with values
/// that look like credentials hidden. Credentials themselves are added after this, never shown.
fn question(engine: &Engine, target: &Target<'_>) -> String {
    let name = &target.tool.mcp.name;
    let request = target.tool.http.as_ref().map(|http| {
        let base = http.base_url.as_deref().or(engine.base_url()).unwrap_or_default();
        let path = match crate::upstream::request::prepare(base, http, &target.args) {
            Ok(r) => r.url.path().to_string(),
            Err(_) => http.path.clone(),
        };
        format!(" {} {path}", http.method.as_upper())
    });
    let mut shown = Value::Object(target.args.clone());
    redact(&mut shown);
    let mut args = shown.to_string();
    if args.len() > MAX_ARGS_TEXT {
        let cut = (0..=MAX_ARGS_TEXT).rev().find(|&i| args.is_char_boundary(i)).unwrap_or(0);
        args.truncate(cut);
        args.push('…');
    }
    match request {
        Some(request) => format!("Allow `{name}` to send{request} to the API? Arguments: {args}"),
        None => format!("Allow `{name}` to run? Arguments: {args}"),
    }
}

/// Hides the values of arguments whose names look like credentials, at any depth.
fn redact(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                let k = k.to_ascii_lowercase();
                if SECRET_WORDS.iter().any(|w| k.contains(w)) {
                    *v = Value::String("***".into());
                } else {
                    redact(v);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact),
        _ => {}
    }
}

/// What binds a request state: the tool, a digest of its arguments, and the caller.
fn associated_data(tool: &str, args: &Map<String, Value>, caller: &Caller) -> String {
    // serde_json's maps are sorted, so equal arguments serialise alike.
    let bytes = serde_json::to_vec(args).unwrap_or_default();
    let digest: String =
        ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref().iter().map(|b| format!("{b:02x}")).collect();
    let who = match caller {
        Caller::Trusted => "trusted".to_string(),
        Caller::Anonymous => "anonymous".to_string(),
        Caller::Token(p) => match &p.subject {
            Some(s) => format!("sub:{s}"),
            None => {
                let t = ring::digest::digest(&ring::digest::SHA256, p.token().as_bytes());
                format!("token:{}", t.as_ref().iter().map(|b| format!("{b:02x}")).collect::<String>())
            }
        },
    };
    format!("mcpgen/confirm/v1\n{tool}\n{digest}\n{who}")
}

/// The user's answer: go on only on an accepted form that says yes.
fn decide(target: &Target<'_>, answer: &ElicitResult) -> Gate {
    let yes = answer.action == ElicitationAction::Accept
        && answer.content.as_ref().and_then(|c| c.get(FIELD)).and_then(Value::as_bool) == Some(true);
    if yes {
        return Gate::Proceed;
    }
    let how = match answer.action {
        ElicitationAction::Cancel => "cancelled",
        _ => "declined",
    };
    let name = &target.tool.mcp.name;
    Gate::Answer(
        tool_error(format!(
            "The user {how} the call to `{name}`; nothing was sent to the API. Do not retry it unless the user asks."
        ))
        .into(),
    )
}

/// A refusal: the call needs a confirmation that cannot be had.
fn refused(target: &Target<'_>, why: &str) -> Gate {
    let name = &target.tool.mcp.name;
    Gate::Answer(
        tool_error(format!(
            "`{name}` needs the user's confirmation (the server runs with --confirm) and {why}; nothing was sent to the API."
        ))
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ann(read_only: Option<bool>, destructive: Option<bool>) -> ToolAnnotations {
        let mut a = ToolAnnotations::new();
        a.read_only_hint = read_only;
        a.destructive_hint = destructive;
        a
    }

    #[test]
    fn destructive_confirms_only_destructive_writes() {
        let p = ConfirmPolicy::Destructive;
        assert!(p.applies(Some(&ann(Some(false), Some(true)))));
        assert!(!p.applies(Some(&ann(Some(false), Some(false)))));
        assert!(!p.applies(Some(&ann(Some(true), None))));
        assert!(p.applies(None), "MCP's defaults: a tool without hints may destroy");
    }

    #[test]
    fn writes_confirms_everything_not_read_only() {
        let p = ConfirmPolicy::Writes;
        assert!(p.applies(Some(&ann(Some(false), Some(false)))));
        assert!(!p.applies(Some(&ann(Some(true), Some(false)))));
        assert!(!ConfirmPolicy::None.applies(None));
    }

    #[test]
    fn credentials_in_arguments_are_hidden() {
        let mut v = json!({"name": "rex", "api_key": "s3cret", "nested": [{"Password": "x"}]});
        redact(&mut v);
        assert_eq!(v, json!({"name": "rex", "api_key": "***", "nested": [{"Password": "***"}]}));
    }

    #[test]
    fn states_bind_tool_arguments_and_caller() {
        let a = associated_data("delete_pet", &json!({"id": 1}).as_object().cloned().unwrap(), &Caller::Trusted);
        let b = associated_data("delete_pet", &json!({"id": 2}).as_object().cloned().unwrap(), &Caller::Trusted);
        let c = associated_data("delete_pet", &json!({"id": 1}).as_object().cloned().unwrap(), &Caller::Anonymous);
        assert_ne!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn a_short_key_is_refused_without_showing_it() {
        let err = Confirmer::with_key(ConfirmPolicy::Writes, Some("short-key".into())).unwrap_err().to_string();
        assert!(err.contains("at least 32 bytes"), "{err}");
        assert!(!err.contains("short-key"), "{err}");
    }

    #[test]
    fn a_nonce_is_used_once() {
        let c = Confirmer::with_key(ConfirmPolicy::Writes, None).unwrap().unwrap();
        assert!(c.first_use(b"abc"));
        assert!(!c.first_use(b"abc"));
    }
}
