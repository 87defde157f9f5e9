//! What a Rust tool is called with besides its arguments ([`Context`]): the engine, to call the
//! API's tools exactly as a model's call goes, who called, and the call's session, to ask the
//! user (elicitation) and report progress.

use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::ElicitRequestParams;
use rmcp::service::RequestContext;
use serde_json::{Map, Value};

use super::Error;
use crate::engine::Engine;
use crate::engine::caller::Caller;

/// How long a Rust tool's question may wait for the user.
const ASK_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(300);

/// A Rust tool's view of the server for one call. Cheap to clone; a generated crate wraps it in
/// its typed `Api`.
#[derive(Clone)]
pub struct Context {
    engine: Arc<Engine>,
    caller: Caller,
    session: Option<RequestContext<RoleServer>>,
}

impl Context {
    pub(crate) fn new(engine: Arc<Engine>, caller: Caller, session: Option<RequestContext<RoleServer>>) -> Context {
        Context { engine, caller, session }
    }

    /// A context outside any client's call (a program's own use of the engine, a test): calls go
    /// with the server's credentials and nobody can be asked.
    pub fn detached(engine: Arc<Engine>) -> Context {
        Context { engine, caller: Caller::Trusted, session: None }
    }

    /// Calls the API's tool `tool` as a model's call goes (the arguments checked against its
    /// schema, the owner's fixed and default values, credentials or the caller's identity as the
    /// server's mode says, hooks, retries, the rate limit) and answers the API's whole response:
    /// JSON parsed, text as a string, `null` for an empty body. A Rust tool that replaces `tool`
    /// is not called: this reaches the API. A failed call (refused arguments, an API error, a
    /// hook's refusal) is an [`Error`] with the message a model would see.
    pub async fn call(&self, tool: &str, args: Map<String, Value>) -> Result<Value, Error> {
        self.engine.call_from_rust(tool, args, &self.caller).await
    }

    /// The caller's identity: the `sub` of its access token when the server checks tokens
    /// (`--oauth-issuer`); `None` otherwise.
    pub fn subject(&self) -> Option<&str> {
        self.caller.principal().and_then(|p| p.subject.as_deref())
    }

    /// Asks the user through the client (MCP elicitation, a form whose fields `schema` describes:
    /// a flat object of strings, numbers, booleans and enums). `Ok(Some(answer))` when the user
    /// accepted, `Ok(None)` when they declined or cancelled, an error when there is nobody to ask
    /// (a client without elicitation, or a call from outside a client's session).
    pub async fn ask(&self, message: &str, schema: Value) -> Result<Option<Map<String, Value>>, Error> {
        use rmcp::model::ElicitationAction;
        let Some(session) = &self.session else {
            return Err(Error::new("this call has no client session to ask the user through"));
        };
        if session.client_capabilities().is_none_or(|c| c.elicitation.is_none()) {
            return Err(Error::new("the client cannot ask its user (no elicitation capability)"));
        }
        let requested_schema = serde_json::from_value(schema)
            .map_err(|e| Error::new(format!("the question's form is not an elicitation schema: {e}")))?;
        let params =
            ElicitRequestParams::FormElicitationParams { meta: None, message: message.into(), requested_schema };
        let answer = session
            .peer
            .create_elicitation_with_timeout(params, Some(ASK_TIMEOUT))
            .await
            .map_err(|e| Error::new(format!("asking the user failed: {e}")))?;
        Ok(match answer.action {
            ElicitationAction::Accept => Some(answer.content.and_then(|c| c.as_object().cloned()).unwrap_or_default()),
            _ => None,
        })
    }

    /// Reports the call's progress to a client that asked for it (`progressToken`): `done` of
    /// `total` steps. Calls through [`Context::call`] report what they receive by themselves.
    pub fn progress(&self, done: u64, total: Option<u64>) {
        crate::upstream::progress::steps(done, total);
    }
}
