//! The routes of users' authorizations. `DELETE /oauth/tokens` (behind the access token check,
//! as `/mcp`): the caller drops every token the server keeps for them, as `mcpgen tokens revoke`
//! does. `GET /oauth/callback`: where an API's authorization server sends a user back with a
//! `code` and the flow's `state`. The state is taken once from the store (any replica may answer);
//! an unknown, expired or replayed one is refused and nothing is stored. The page says what
//! happened in words and never shows a code or a token; it is not cached, not framed, and sends
//! no referrer.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

use crate::engine::live::LiveEngine;

/// The callback's query (RFC 6749 §4.1.2, §4.1.2.1).
#[derive(Default)]
struct Params {
    state: Option<String>,
    code: Option<String>,
    error: Option<String>,
}

impl Params {
    fn of(uri: &Uri) -> Params {
        let mut params = Params::default();
        for (k, v) in url::form_urlencoded::parse(uri.query().unwrap_or_default().as_bytes()) {
            let slot = match &*k {
                "state" => &mut params.state,
                "code" => &mut params.code,
                "error" => &mut params.error,
                _ => continue,
            };
            slot.get_or_insert_with(|| v.into_owned());
        }
        params
    }
}

/// Completes the authorization the `state` names, for the user who began it.
pub async fn callback(State(live): State<LiveEngine>, uri: Uri) -> Response {
    let params = Params::of(&uri);
    let engine = live.load();
    let Some(users) = engine.users().as_ref() else {
        return page(StatusCode::NOT_FOUND, "This server does not authorize users at an API.");
    };
    let Some(state) = params.state else {
        return page(StatusCode::BAD_REQUEST, "This address needs the `state` an authorization server sends back.");
    };
    let pending = match users.take_pending(&state).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            tracing::warn!("OAuth callback with an unknown, expired or already used state: refused");
            return page(
                StatusCode::BAD_REQUEST,
                "This authorization link is unknown, has expired or was already used. Ask your assistant to call \
                 the tool again for a new one.",
            );
        }
        Err(e) => return page(StatusCode::SERVICE_UNAVAILABLE, &e.to_string()),
    };
    if let Some(error) = params.error {
        let code = crate::upstream::credentials::error_code(&error);
        return page(
            StatusCode::BAD_REQUEST,
            &format!(
                "The API's authorization server did not authorize access ({code}). Ask your assistant to call `{}` \
                 again to retry.",
                pending.tool
            ),
        );
    }
    let Some(code) = params.code.filter(|c| !c.is_empty()) else {
        return page(StatusCode::BAD_REQUEST, "The authorization server sent no code back.");
    };
    let Some(authorizer) = engine.user_authorizer(&pending.api) else {
        return page(StatusCode::BAD_REQUEST, "This API no longer authorizes each user: nothing was stored.");
    };
    match authorizer.complete(engine.upstream_http(), &pending, &code).await {
        Ok(()) => {
            tracing::info!(api = %pending.api, "a user authorized the API; their calls now carry their own token");
            page(
                StatusCode::OK,
                &format!("Authorized. You can close this tab: ask your assistant to call `{}` again.", pending.tool),
            )
        }
        Err(e) => {
            tracing::warn!(api = %pending.api, "completing a user's authorization failed: {e}");
            page(StatusCode::BAD_GATEWAY, &format!("The authorization could not be completed: {e}"))
        }
    }
}

/// `DELETE /oauth/tokens`: the caller's stored tokens at every API go; their next call asks them
/// to authorize again.
pub async fn revoke(
    State(live): State<LiveEngine>,
    principal: Option<axum::Extension<std::sync::Arc<crate::engine::caller::Principal>>>,
) -> Response {
    let engine = live.load();
    let (Some(users), Some(subject)) = (engine.users().as_ref(), principal.as_ref().and_then(|p| p.subject.clone()))
    else {
        return (StatusCode::BAD_REQUEST, "this needs an access token naming its user (`sub`)\n").into_response();
    };
    let prefix = crate::upstream::user::store::subject_prefix(&subject);
    match users.store().delete_prefix(&prefix).await {
        Ok(n) => {
            tracing::info!("a user revoked their {n} stored upstream tokens");
            super::Json(serde_json::json!({"revoked": n})).into_response()
        }
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")).into_response(),
    }
}

/// A small HTML page saying `text`.
fn page(status: StatusCode, text: &str) -> Response {
    let body = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>mcpgen</title></head>\
         <body><p>{}</p></body></html>\n",
        escape(text)
    );
    let mut resp = (status, body).into_response();
    let headers = resp.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'"));
    resp
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_escape_what_they_say() {
        assert_eq!(escape("<b>\"a\" & b</b>"), "&lt;b&gt;&quot;a&quot; &amp; b&lt;/b&gt;");
    }
}
