//! An upstream error response as a tool error: the status, the advice it implies and the API's
//! own message first, then the body (minified when it is JSON), at most [`MAX_ERROR_CHARS`]
//! characters in all: clients cut long error texts (Claude Code at about 11,000 characters), and
//! the beginning is what a model needs to fix its call.

use rmcp::model::{CallToolResult, ContentBlock};

use crate::response::CallContext;
use crate::response::json::Json;
use crate::upstream::UpstreamResponse;

/// The longest error text.
pub const MAX_ERROR_CHARS: usize = 8_000;

pub(super) fn error_result(resp: &UpstreamResponse, ctx: &CallContext<'_>) -> CallToolResult {
    let status = resp.status;
    let mut text = format!(
        "HTTP {} {} from {} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or(""),
        ctx.method,
        ctx.path
    );
    let advice = match status.as_u16() {
        400 | 422 => Some("check the arguments against the tool's input schema and the message below".to_string()),
        401 | 403 => Some(match &ctx.auth_hint {
            Some(h) => format!("the API refused the credentials: {h}"),
            None => "the API refused the request: credentials are missing or lack permission".to_string(),
        }),
        404 => Some("the resource does not exist: check identifiers in the path".to_string()),
        429 => Some(match &resp.retry_after {
            Some(s) => format!("rate limited: retry after {s} s"),
            None => "rate limited: wait before retrying".to_string(),
        }),
        500..=599 => Some("the API failed; retrying later may help".to_string()),
        _ => None,
    };
    if let Some(a) = advice {
        text.push_str(": ");
        text.push_str(&a);
    }
    let budget = match ctx.budget {
        0 => MAX_ERROR_CHARS,
        b => b.min(MAX_ERROR_CHARS),
    };
    if !resp.body.is_empty() {
        let json = Json::parse(&resp.body).ok();
        if let Some(message) = json.as_ref().and_then(api_message) {
            text.push_str("\nThe API says: ");
            text.push_str(&cut(&message, 1_000));
        }
        let body = match &json {
            Some(j) => j.to_text(),
            None => String::from_utf8_lossy(&resp.body).trim().to_string(),
        };
        let room = budget.saturating_sub(text.chars().count() + 2);
        text.push_str("\n\n");
        let cut_body = cut(&body, room);
        let was_cut = cut_body.len() < body.len() || resp.truncated;
        text.push_str(&cut_body);
        if was_cut && !cut_body.ends_with("[...]") {
            text.push_str(" [...]");
        }
    }
    CallToolResult::error(vec![ContentBlock::text(text)])
}

/// `s` cut to `max` characters, with ` [...]` in the last six when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let keep: String = s.chars().take(max.saturating_sub(6)).collect();
    format!("{keep} [...]")
}

/// The API's message in an error body: `message`, `error` (a string, or an object with a
/// `message`), `detail`, `title`, `error_description`, or the first of `errors`.
fn api_message(body: &Json) -> Option<String> {
    const KEYS: &[&str] = &["message", "error_description", "detail", "title", "error", "msg", "description"];
    for key in KEYS {
        match body.get(key) {
            Some(Json::Str(s)) if !s.trim().is_empty() => return Some(s.trim().to_string()),
            Some(inner @ Json::Obj(_)) => {
                if let Some(m) = api_message(inner) {
                    return Some(m);
                }
            }
            _ => {}
        }
    }
    match body.get("errors") {
        Some(Json::Arr(items)) => items.first().and_then(|e| e.as_str().map(str::to_string).or_else(|| api_message(e))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(text: &str) -> Option<String> {
        api_message(&Json::parse(text.as_bytes()).unwrap())
    }

    #[test]
    fn the_apis_message_is_found_where_apis_put_it() {
        assert_eq!(
            message(r#"{"message":"Bad credentials","documentation_url":"x"}"#).as_deref(),
            Some("Bad credentials")
        );
        assert_eq!(
            message(r#"{"error":{"type":"invalid_request_error","message":"No such customer"}}"#).as_deref(),
            Some("No such customer")
        );
        assert_eq!(message(r#"{"ok":false,"error":"channel_not_found"}"#).as_deref(), Some("channel_not_found"));
        assert_eq!(message(r#"{"errors":[{"detail":"Title is required"}]}"#).as_deref(), Some("Title is required"));
        assert_eq!(message(r#"[1]"#), None);
    }

    #[test]
    fn cut_marks_what_it_cut() {
        assert_eq!(cut("abcdef", 10), "abcdef");
        assert_eq!(cut(&"x".repeat(20), 10), "xxxx [...]");
    }
}
