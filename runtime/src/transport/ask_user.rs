//! Asking a user to authorize an API through their client (URL-mode elicitation) before a call
//! that acts as them. Over stateless Streamable HTTP only a 2026-07-28 client can be asked in the
//! middle of a call: it gets an `InputRequiredResult` whose input request opens the API's
//! consent page, and its retry goes on once the user has authorized. Every other client gets the
//! call's `isError` result carrying the URL (the engine's answer, `needed_text`).

use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion};
use rmcp::service::RequestContext;
use serde_json::{Map, Value, json};

use crate::engine::caller::Caller;
use crate::engine::{Engine, Surface};
use crate::upstream::user::authorizer::Authorization;

/// The key of the authorization in `inputRequests`.
pub const INPUT_KEY: &str = "authorize";

/// The question to answer instead of calling, when the client can open a URL for its user and
/// the call's tool acts as a user who has not authorized its API; `None`: go on with the call.
pub(crate) async fn ask_first(
    engine: &Engine,
    surface: Surface,
    name: &str,
    args: &Map<String, Value>,
    context: &RequestContext<RoleServer>,
    caller: &Caller,
) -> Option<CallToolResponse> {
    let stateless = context.protocol_version().is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    let opens_urls = context.client_capabilities().and_then(|c| c.elicitation).is_some_and(|e| e.url.is_some());
    if !(stateless && opens_urls) {
        return None;
    }
    let target = crate::engine::confirm::target(engine, surface, name, args)?;
    let authorizer = engine.user_authorizer_of(target.tool)?;
    let subject = caller.principal()?.subject.as_deref()?;
    let tool = &target.tool.mcp.name;
    // Errors are the call's to tell (it asks the same and says what failed).
    let Ok(Authorization::Needed(prompt)) = authorizer.authorization(engine.upstream_http(), subject, tool).await
    else {
        return None;
    };
    let request: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {"mode": "url", "message": prompt.message, "url": prompt.url, "elicitationId": prompt.id},
    }))
    .ok()?;
    let requests: InputRequests = [(INPUT_KEY.to_string(), request)].into();
    Some(InputRequiredResult::new(Some(requests), None).into())
}
